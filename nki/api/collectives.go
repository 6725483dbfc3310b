package api

// nki.collectives: what one NeuronCore can run. A collective over a
// replica group of one rank ([[0]]) exchanges nothing: all_reduce,
// all_gather, reduce_scatter, all_to_all and collective_permute with the
// pair (0, 0) leave each destination equal to its source (a reduction
// over one rank, a concatenation of one part, a split into one part), so
// narwhal lowers each to a copy DMA per (source, destination) pair, and
// rank_id() is 0. A group of several ranks needs several devices: a
// NotSupported error naming the collective and the group.

import (
	"fmt"

	"github.com/narwhal-compiler/narwhal/nki/api/lower"
	"github.com/narwhal-compiler/narwhal/nki/tracer"
)

// ReplicaGroup is ncc.ReplicaGroup(groups): lists of ranks.
type ReplicaGroup struct {
	groups [][]int64
}

func (g *ReplicaGroup) Type() string         { return "ReplicaGroup" }
func (g *ReplicaGroup) String() string       { return fmt.Sprintf("ReplicaGroup(%v)", g.groups) }
func (g *ReplicaGroup) Truth() (bool, error) { return true, nil }

// single reports whether the group is one rank.
func (g *ReplicaGroup) single() bool {
	return len(g.groups) == 1 && len(g.groups[0]) == 1 && g.groups[0][0] == 0
}

func newReplicaGroup(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
	var groups tracer.Value
	if err := tracer.UnpackArgs("ncc.ReplicaGroup", args, kwargs, "replica_groups", &groups); err != nil {
		return nil, err
	}
	g := &ReplicaGroup{}
	err := tracer.Iterate(th, groups, func(v tracer.Value) error {
		ranks, err := tupleInts(th, v)
		g.groups = append(g.groups, ranks)
		return err
	})
	if err != nil {
		return nil, typeErrorf("ncc.ReplicaGroup takes a list of lists of ranks ([[0]]), not %s", tracer.Repr(groups))
	}
	return g, nil
}

// tensorList converts srcs= / dsts=: a list of tensors.
func tensorList(th *tracer.Thread, v tracer.Value, what, param string) ([]lower.Access, error) {
	var out []lower.Access
	err := tracer.Iterate(th, v, func(x tracer.Value) error {
		a, _, err := tileOf(x, what, param)
		out = append(out, a)
		return err
	})
	return out, err
}

// collective builds one of the copying collectives.
func collective(name string, extra ...string) builtinFn {
	what := "ncc." + name
	return func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
		var srcs, dsts, group, nm, prio tracer.Value
		pairs := []any{"srcs", &srcs, "dsts", &dsts}
		vals := make([]tracer.Value, len(extra))
		for i, e := range extra {
			pairs = append(pairs, e, &vals[i])
		}
		pairs = append(pairs, "priority?", &prio, "name?", &nm)
		if err := isaUnpack(what, args, kwargs, pairs...); err != nil {
			return nil, err
		}
		for i, e := range extra {
			if e == "replica_group" {
				group = vals[i]
			}
			if e == "source_target_pairs" {
				var ps [][]int64
				if err := tracer.Iterate(th, vals[i], func(v tracer.Value) error {
					p, err := tupleInts(th, v)
					ps = append(ps, p)
					return err
				}); err != nil {
					return nil, err
				}
				if len(ps) != 1 || len(ps[0]) != 2 || ps[0][0] != 0 || ps[0][1] != 0 {
					return nil, notSupportedf("%s with source_target_pairs %v: moving data between ranks needs several devices; one NeuronCore runs the pair (0, 0) only", what, ps)
				}
			}
		}
		if group != nil {
			g, ok := group.(*ReplicaGroup)
			if !ok {
				return nil, typeErrorf("%s: replica_group= takes an ncc.ReplicaGroup, not %s", what, group.Type())
			}
			if !g.single() {
				return nil, notSupportedf("%s over the replica group %v: a collective of several ranks needs several devices; narwhal runs one NeuronCore (a group of the one rank [[0]])", what, g.groups)
			}
		}
		st, err := kernelState(th, what)
		if err != nil {
			return nil, err
		}
		s, err := tensorList(th, srcs, what, "srcs")
		if err != nil {
			return nil, err
		}
		d, err := tensorList(th, dsts, what, "dsts")
		if err != nil {
			return nil, err
		}
		if len(s) != len(d) {
			return nil, nkiErrorf("%s: %d sources and %d destinations", what, len(s), len(d))
		}
		for i := range s {
			if s[i].Elems() != d[i].Elems() {
				return nil, nkiErrorf("%s on one rank: source %s (%d elements) and destination %s (%d) differ", what, s[i].T.Describe(), s[i].Elems(), d[i].T.Describe(), d[i].Elems())
			}
			if err := st.k.DMA(d[i], s[i], lower.Mask{}); err != nil {
				return nil, convert(err)
			}
		}
		return tracer.None, nil
	}
}

func collectivesModule(name string) *tracer.Module {
	m := map[string]tracer.Value{
		"ReplicaGroup":       tracer.NewBuiltin("ncc.ReplicaGroup", newReplicaGroup),
		"all_reduce":         &Op{name: "ncc.all_reduce", fn: collective("all_reduce", "replica_group", "op")},
		"all_gather":         &Op{name: "ncc.all_gather", fn: collective("all_gather", "replica_group", "collective_dim")},
		"reduce_scatter":     &Op{name: "ncc.reduce_scatter", fn: collective("reduce_scatter", "replica_group", "collective_dim", "op")},
		"all_to_all":         &Op{name: "ncc.all_to_all", fn: collective("all_to_all", "replica_group", "collective_dim")},
		"collective_permute": &Op{name: "ncc.collective_permute", fn: collective("collective_permute", "source_target_pairs")},
		"rank_id": tracer.NewBuiltin("ncc.rank_id", func(th *tracer.Thread, args []tracer.Value, kwargs []tracer.Kwarg) (tracer.Value, error) {
			var nm tracer.Value
			if err := tracer.UnpackArgs("ncc.rank_id", args, kwargs, "name?", &nm); err != nil {
				return nil, err
			}
			return tracer.MakeInt(0), nil
		}),
	}
	for n, why := range map[string]string{
		"all_to_all_v":                                           "its per-rank counts come from a metadata tensor at run time, and it needs several devices (\"requires LNC=2 and more than one participating device\")",
		"collective_permute_implicit":                            "a ring of ranks needs several devices",
		"collective_permute_implicit_reduce":                     "a ring of ranks needs several devices",
		"collective_permute_implicit_current_processing_rank_id": "a ring of ranks needs several devices",
	} {
		m[n] = &Op{name: "ncc." + n, why: why}
	}
	return tracer.NewModule(name, m)
}
