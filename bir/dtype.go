package bir

import "fmt"

// Dtype is an element type. The numbering is narwhal's and is chosen so that
// the byte sizes are exactly the seeds' DtypeSize table
// {1,1,2,1,1,1,1,1,4,4,2,2,2,2,4,4,4,4,8,8} (seed 001: qword_1DE10A0, seed
// 004: the dtype byte-size table at 0x1de6c40); every Dtype is <= 0x13.
type Dtype uint8

const (
	Int8           Dtype = iota // 1 byte
	Uint8                       // 1
	Float4E2M1FNx4              // 2: four fp4 values packed
	Float8E3                    // 1
	Float8E4                    // 1
	Float8E5                    // 1
	Float8E4M3                  // 1: IEEE-style e4m3 with Inf (ml_dtypes float8_e4m3)
	Float8E4M3FN                // 1: e4m3 without Inf
	Float8E5M2x4                // 4: four e5m2 values packed
	Float8E4M3FNx4              // 4: four e4m3fn values packed
	BFloat16                    // 2
	Float16                     // 2
	Int16                       // 2
	Uint16                      // 2
	Float32                     // 4
	Float32R                    // 4: fp32 "round" (tf32-style matmul input)
	Int32                       // 4
	Uint32                      // 4
	Int64                       // 8
	Uint64                      // 8

	NumDtypes = 20
)

// MaxDtype is the largest valid dtype number (0x13), the bound the seeds
// assert ("Unknown dtype").
const MaxDtype = Dtype(0x13)

// DtypeSize is the seeds' table: bytes per element, indexed by Dtype.
var DtypeSize = [NumDtypes]int64{1, 1, 2, 1, 1, 1, 1, 1, 4, 4, 2, 2, 2, 2, 4, 4, 4, 4, 8, 8}

type dtypeInfo struct {
	json  string // BIR-JSON spelling (bir-json.md §3.3 where it exists)
	short string // text-form spelling
	float bool
	sign  bool
}

var dtypeInfos = [NumDtypes]dtypeInfo{
	Int8:           {"int8", "i8", false, true},
	Uint8:          {"uint8", "u8", false, false},
	Float4E2M1FNx4: {"float4_e2m1fn_x4", "f4e2m1fnx4", true, true},
	Float8E3:       {"float8e3", "f8e3", true, true},
	Float8E4:       {"float8e4", "f8e4", true, true},
	Float8E5:       {"float8e5", "f8e5", true, true},
	Float8E4M3:     {"float8_e4m3", "f8e4m3", true, true},
	Float8E4M3FN:   {"float8_e4m3fn", "f8e4m3fn", true, true},
	Float8E5M2x4:   {"float8_e5m2_x4", "f8e5m2x4", true, true},
	Float8E4M3FNx4: {"float8_e4m3fn_x4", "f8e4m3fnx4", true, true},
	BFloat16:       {"bfloat16", "bf16", true, true},
	Float16:        {"float16", "f16", true, true},
	Int16:          {"int16", "i16", false, true},
	Uint16:         {"uint16", "u16", false, false},
	Float32:        {"float32", "f32", true, true},
	Float32R:       {"float32r", "f32r", true, true},
	Int32:          {"int32", "i32", false, true},
	Uint32:         {"uint32", "u32", false, false},
	Int64:          {"int64", "i64", false, true},
	Uint64:         {"uint64", "u64", false, false},
}

var dtypeByName = func() map[string]Dtype {
	m := make(map[string]Dtype, 3*NumDtypes)
	for i, d := range dtypeInfos {
		m[d.json] = Dtype(i)
		m[d.short] = Dtype(i)
	}
	// Accepted aliases (KLR / NKI spellings).
	m["float8_e5m2"] = Float8E5
	m["fp32"] = Float32
	m["tfloat32"] = Float32R
	return m
}()

// Valid reports whether d is in the table.
func (d Dtype) Valid() bool { return d <= MaxDtype }

// Size returns the element size in bytes (0 for an invalid dtype).
func (d Dtype) Size() int64 {
	if !d.Valid() {
		return 0
	}
	return DtypeSize[d]
}

// IsFloat reports whether d is a floating-point format.
func (d Dtype) IsFloat() bool { return d.Valid() && dtypeInfos[d].float }

// IsSigned reports whether d is signed (all floats are).
func (d Dtype) IsSigned() bool { return d.Valid() && dtypeInfos[d].sign }

// String returns the BIR-JSON spelling.
func (d Dtype) String() string {
	if !d.Valid() {
		return fmt.Sprintf("dtype(%d)", uint8(d))
	}
	return dtypeInfos[d].json
}

// Short returns the text-form spelling (f32, bf16, ...).
func (d Dtype) Short() string {
	if !d.Valid() {
		return fmt.Sprintf("dtype(%d)", uint8(d))
	}
	return dtypeInfos[d].short
}

// ParseDtype accepts a BIR-JSON name, narwhal's full list, or a short
// text-form name.
func ParseDtype(s string) (Dtype, error) {
	if d, ok := dtypeByName[s]; ok {
		return d, nil
	}
	return 0, fmt.Errorf("unknown dtype %q (want one of the 20 names of the dtype table, e.g. float32, bfloat16, int8)", s)
}

// DtypeFromNumber converts a numeric dtype, rejecting numbers above 0x13.
func DtypeFromNumber(n int64) (Dtype, error) {
	if n < 0 || n > int64(MaxDtype) {
		return 0, fmt.Errorf("unknown dtype number %d: want 0..%d", n, MaxDtype)
	}
	return Dtype(n), nil
}
