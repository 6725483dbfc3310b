package footprint

// HeuristicAttr is the loop-instruction attribute heuristic_unroll and
// sb_size_legalization's force_unroll_update set (heuristic_unroll =
// true) and FullUnroll level 1 honours: the loop is unrolled completely.
const HeuristicAttr = "heuristic_unroll"

// NeedUnrollAttr is the function attribute that makes FullUnroll level 1
// unroll a whole function.
const NeedUnrollAttr = "need_unroll"
