// The "pos" extension: an instruction's source position (docs/bir-json.md,
// "Instruction: pos").
//
//	"pos": {"file": "kernels.py", "line": 28, "column": 4}
//	"pos": {"file": "kernels.py", "line": 28, "column": 4, "end_line": 28, "end_column": 30}
//
// The key and the field names follow KLR's Stmt.pos (Pos {line, column,
// lineEnd?, columnEnd?, filename?}), in BIR-JSON's snake case. "file"
// may be omitted (no file name), "line" >= 1 is required, the rest default
// to 0. The writer writes "pos" after "deps", only for an instruction with
// a position; the text of each interned position is built once per Encode,
// and the reader interns each distinct source text once per Decode (every
// instruction unrolled from one kernel statement shares it), so positions
// cost no allocation per instruction either way.
package birjson

import (
	"math"
	"strconv"

	"github.com/narwhal-compiler/narwhal/bir"
)

// posJSON returns `,"pos":{...}` for position id (built once per Encode).
func (e *encoder) posJSON(id bir.PosID) (string, error) {
	if !e.m.ValidPos(id) {
		return "", e.errf("source position #%d out of range", id)
	}
	if int(id) >= len(e.posText) {
		e.posText = append(e.posText, make([]string, e.m.NumPositions()-len(e.posText))...)
	}
	if s := e.posText[id]; s != "" {
		return s, nil
	}
	e.posText[id] = string(appendPosJSON([]byte(`,"pos":`), e.m.Pos(id)))
	return e.posText[id], nil
}

// appendPosJSON appends the JSON object of position p.
func appendPosJSON(b []byte, p bir.Pos) []byte {
	b = append(b, '{')
	if p.File != "" {
		b = append(b, `"file":`...)
		b = appendStr(b, p.File)
		b = append(b, ',')
	}
	b = strconv.AppendInt(append(b, `"line":`...), int64(p.Line), 10)
	b = strconv.AppendInt(append(b, `,"column":`...), int64(p.Col), 10)
	if p.EndLine != 0 || p.EndCol != 0 {
		b = strconv.AppendInt(append(b, `,"end_line":`...), int64(p.EndLine), 10)
		b = strconv.AppendInt(append(b, `,"end_column":`...), int64(p.EndCol), 10)
	}
	return append(b, '}')
}

// srcPos reads the "pos" object at the cursor; span is its source text, the
// key of the per-decode memo.
func (d *decoder) srcPos() (bir.PosID, error) {
	d.ws()
	start := d.pos
	if err := d.skip(); err != nil {
		return 0, err
	}
	span := d.data[start:d.pos]
	if id, ok := d.posMemo[string(span)]; ok {
		return id, nil
	}
	end := d.pos
	d.pos = start
	p, err := d.parsePos()
	if err != nil {
		return 0, err
	}
	d.pos = end
	id := d.m.InternPos(p)
	if d.posMemo == nil {
		d.posMemo = map[string]bir.PosID{}
	}
	d.posMemo[string(span)] = id
	return id, nil
}

func (d *decoder) parsePos() (bir.Pos, error) {
	var p bir.Pos
	d.ws()
	start := d.pos
	more, err := d.beginObject("pos")
	if err != nil {
		return p, err
	}
	const (
		kFile = 1 << iota
		kLine
		kCol
		kEndLine
		kEndCol
	)
	var seen uint
	for more {
		key, kpos, err := d.key()
		if err != nil {
			return p, err
		}
		var bit uint
		var dst *int32
		lo := int64(0)
		switch string(key) {
		case "file":
			bit = kFile
		case "line":
			bit, dst, lo = kLine, &p.Line, 1
		case "column":
			bit, dst = kCol, &p.Col
		case "end_line":
			bit, dst = kEndLine, &p.EndLine
		case "end_column":
			bit, dst = kEndCol, &p.EndCol
		default:
			return p, d.errf(kpos, "pos: unknown key %q (want file, line, column, end_line, end_column)", key)
		}
		if seen&bit != 0 {
			return p, d.dupKey(kpos, key)
		}
		seen |= bit
		d.ws()
		vpos := d.pos
		if bit == kFile {
			s, err := d.str()
			if err != nil {
				return p, err
			}
			p.File = string(s)
		} else {
			v, err := d.int()
			if err != nil {
				return p, err
			}
			if v < lo || v > math.MaxInt32 {
				return p, d.errf(vpos, "pos.%s: want an integer in [%d, %d], have %d", key, lo, math.MaxInt32, v)
			}
			*dst = int32(v)
		}
		if more, err = d.nextField(); err != nil {
			return p, err
		}
	}
	if seen&kLine == 0 {
		return p, d.errf(start, `pos: missing "line"`)
	}
	return p, nil
}
