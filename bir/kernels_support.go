package bir

// Support for the kernel library (package kernels).

// IsZero reports whether o is the zero Operand, the "no operand" value the
// builder's optional arguments take (Activation's bias, TensorScalarPtr's
// second scalar). The zero value's Kind is OpdPhysAP, so Kind.IsAP alone
// cannot tell an absent operand from a physical AP; a real physical AP has
// a non-empty pattern, so the all-zero value is never a meaningful one.
func (o Operand) IsZero() bool { return o == Operand{} }
