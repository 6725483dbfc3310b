// Package footprint holds the analyses the allocator-prep footprint passes
// share (sb_size_legalization, passes/sbsize; FullUnroll's splitShape cut,
// passes/unroll; vn_splitter, passes/vnsplit; shrink_ml, passes/shrink):
// the facts about access patterns, opcodes and block tensors that follow
// from the IR's addressing model and the seeds' rules, defined once so
// that a pass and the passes that predict it cannot disagree. Passes never
// import each other (design.md); what one pass must know of another's
// rules lives here.
//
//   - Reach (reach.go): the one description of what each opcode lets the
//     footprint passes see through — whether the elements an instruction
//     touches are exactly those its access patterns name (so an access can
//     be rebased onto a piece, a _VN_ location or a trimmed location), and
//     whether it pairs its operands' elements in lockstep (so the cut may
//     split it); indirect, tensor-indirect, descriptor, collective and
//     call opcodes and the DMACopy modes are classified here and nowhere
//     else. IsMx is seed 004's isMx pre-filter.
//   - OnChipLayout and LayoutCache (layout.go) decompose an access over an
//     on-chip location into the partitions it walks and the element range
//     it touches inside each (the seeds' isShiftedPartitionAccess,
//     hasCrossChannelAccess, isPartitionContiguous,
//     getElementRangeInPartition).
//   - Geometry (legality.go) is the SBModel, and IsLegalTensor seed 000's
//     is_legal_tensor with its three cases; LocLegal and IllegalLocations
//     are the check shrink_ml's final step and sb_size_legalization's
//     classification share.
//   - Cut (cut.go) is FullUnroll::tensorSplit's geometry
//     (getLargestFactorWithThreshold, MaxFactor 16, the mapping of an
//     access onto pieces): the unroller performs the cut with it and
//     sb_size_legalization plans the cut with it.
//   - Flatten (flatten.go) is seed 000's flatten, the program-order
//     numbering of a function's instructions.
//   - BlockLiveness, LiveNFor, ShrinkDimOf (liveness.go) compute the
//     (shrinkDim, liveN) record seed 000's shrink_tensor and seed 004's
//     shrinkTensor write on a block tensor.
//   - HeuristicAttr and NeedUnrollAttr (marks.go) name the marks by which
//     heuristic_unroll and sb_size_legalization ask FullUnroll to unroll.
//
// Nothing here changes IR.
package footprint
