// Reading and writing the MiniMalloc CSV format.
//
// The format (from the public google/minimalloc repository, whose benchmark
// files use it): a header row naming the columns, then one row per buffer.
// Required columns: id, lower, upper, size. Optional: alignment (the offset
// must be a multiple of it) and offset (pins the buffer; an empty field
// leaves that buffer free). Columns may come in any order. Like MiniMalloc we
// accept the aliases buffer / buffer_id for id, start / begin for lower, and
// end for upper, where end is inclusive (upper = end + 1). Any other column
// is carried through to the output untouched, except gaps, a MiniMalloc
// extension (buffers with holes in their lifetime) that this solver does not
// model: it is rejected rather than silently ignored.
//
// Blank lines (also lines of only spaces) are skipped; fields are trimmed of
// surrounding spaces; quoting follows RFC 4180 (encoding/csv). Ids are
// opaque strings. Every error names the file and the line, is one line long,
// and is returned, never panicked: a malformed header, a duplicate or missing
// column, a wrong field count, a non-integer number, upper <= lower, a
// negative size, alignment or offset, or an offset that is not a multiple of
// its alignment.
//
// Writing reproduces the header and every row's original fields, with the
// solved offset in the offset column (appended when the input had none).
package pack

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/narwhal-compiler/narwhal/diag"
)

// CSVError is a malformed-input error at a line of a CSV file.
type CSVError struct {
	File string
	Line int // 1-based; 0 when the error is about the file as a whole
	Msg  string
}

// ErrorCode is diag.BadCSV.
func (e *CSVError) ErrorCode() string { return diag.BadCSV }

func (e *CSVError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// CSVTable is a parsed MiniMalloc CSV file. Buffers[i] comes from Rows[i];
// its ID is i (the row's ordinal), and the row's own id text is IDs[i].
type CSVTable struct {
	Header  []string
	Rows    [][]string
	Lines   []int // Lines[i] is the 1-based line of Rows[i]
	IDs     []string
	Buffers []Buffer

	offsetColumn int // index of the offset column in Header, or -1
}

// csvColumns maps the canonical column names to their index in the header.
type csvColumns struct {
	id, lower, upper, size, alignment, offset int
	upperInclusive                            bool
}

func parseCSVHeader(fields []string) (csvColumns, error) {
	cols := csvColumns{id: -1, lower: -1, upper: -1, size: -1, alignment: -1, offset: -1}
	seen := map[string]bool{}
	for k, raw := range fields {
		name := strings.ToLower(strings.TrimSpace(raw))
		if name == "" {
			return cols, fmt.Errorf("header: column %d has no name", k+1)
		}
		canonical := name
		switch name {
		case "buffer", "buffer_id":
			canonical = "id"
		case "start", "begin":
			canonical = "lower"
		case "end":
			canonical = "upper"
		}
		if seen[canonical] {
			return cols, fmt.Errorf("header: duplicate column %q", raw)
		}
		seen[canonical] = true
		switch canonical {
		case "id":
			cols.id = k
		case "lower":
			cols.lower = k
		case "upper":
			cols.upper = k
			cols.upperInclusive = name == "end"
		case "size":
			cols.size = k
		case "alignment":
			cols.alignment = k
		case "offset":
			cols.offset = k
		case "gaps":
			return cols, fmt.Errorf("header: the gaps column (buffers with holes in their lifetime) is not supported")
		}
	}
	var missing []string
	for _, c := range []struct {
		name string
		at   int
	}{{"id", cols.id}, {"lower", cols.lower}, {"upper", cols.upper}, {"size", cols.size}} {
		if c.at < 0 {
			missing = append(missing, c.name)
		}
	}
	if len(missing) > 0 {
		return cols, fmt.Errorf("header: missing required column(s) %s (want id,lower,upper,size)", strings.Join(missing, ","))
	}
	return cols, nil
}

func isBlankRecord(rec []string) bool {
	return len(rec) == 1 && strings.TrimSpace(rec[0]) == ""
}

// ReadCSV parses a MiniMalloc CSV stream. name is used in error messages.
func ReadCSV(r io.Reader, name string) (*CSVTable, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = false
	fail := func(line int, format string, args ...any) error {
		return &CSVError{File: name, Line: line, Msg: fmt.Sprintf(format, args...)}
	}
	t := &CSVTable{offsetColumn: -1}
	var cols csvColumns
	haveHeader := false
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var perr *csv.ParseError
			if errors.As(err, &perr) {
				return nil, fail(perr.Line, "%v", perr.Err)
			}
			return nil, &CSVError{File: name, Msg: err.Error()}
		}
		line, _ := cr.FieldPos(0)
		if isBlankRecord(rec) {
			continue
		}
		for k := range rec {
			rec[k] = strings.TrimSpace(rec[k])
		}
		if !haveHeader {
			if cols, err = parseCSVHeader(rec); err != nil {
				return nil, fail(line, "%v", err)
			}
			t.Header = rec
			t.offsetColumn = cols.offset
			haveHeader = true
			continue
		}
		if len(rec) != len(t.Header) {
			return nil, fail(line, "%d fields, header has %d", len(rec), len(t.Header))
		}
		b, err := parseCSVRow(rec, t.Header, cols)
		if err != nil {
			return nil, fail(line, "%v", err)
		}
		b.ID = int64(len(t.Buffers))
		t.Rows = append(t.Rows, rec)
		t.Lines = append(t.Lines, line)
		t.IDs = append(t.IDs, rec[cols.id])
		t.Buffers = append(t.Buffers, b)
	}
	if !haveHeader {
		return nil, fail(0, "empty file: no header row (want id,lower,upper,size)")
	}
	return t, nil
}

func parseCSVRow(rec, header []string, cols csvColumns) (Buffer, error) {
	var b Buffer
	number := func(col int) (int64, error) {
		v, err := strconv.ParseInt(rec[col], 10, 64)
		if err != nil {
			if rec[col] == "" {
				return 0, fmt.Errorf("empty %s field", header[col])
			}
			return 0, fmt.Errorf("%s %q is not an integer", header[col], rec[col])
		}
		if v < -maxCoordinate || v > maxCoordinate {
			return 0, fmt.Errorf("%s %d out of range ±2^52", header[col], v)
		}
		return v, nil
	}
	if rec[cols.id] == "" {
		return b, fmt.Errorf("empty id field")
	}
	var err error
	if b.Lower, err = number(cols.lower); err != nil {
		return b, err
	}
	if b.Upper, err = number(cols.upper); err != nil {
		return b, err
	}
	if cols.upperInclusive {
		b.Upper++
	}
	if b.Size, err = number(cols.size); err != nil {
		return b, err
	}
	if b.Upper <= b.Lower {
		return b, fmt.Errorf("empty live range: upper %d <= lower %d", b.Upper, b.Lower)
	}
	if b.Size < 0 {
		return b, fmt.Errorf("negative size %d", b.Size)
	}
	if cols.alignment >= 0 {
		if b.Align, err = number(cols.alignment); err != nil {
			return b, err
		}
		if b.Align < 0 {
			return b, fmt.Errorf("negative alignment %d", b.Align)
		}
	}
	if cols.offset >= 0 && rec[cols.offset] != "" {
		off, err := number(cols.offset)
		if err != nil {
			return b, err
		}
		if off < 0 {
			return b, fmt.Errorf("negative offset %d", off)
		}
		if b.Align > 1 && off%b.Align != 0 {
			return b, fmt.Errorf("offset %d is not a multiple of alignment %d", off, b.Align)
		}
		b.Fixed = &off
	}
	return b, nil
}

// Write writes the table with the given offsets (indexed like Buffers) in
// the offset column.
func (t *CSVTable) Write(w io.Writer, offsets []int64) error {
	if len(offsets) != len(t.Rows) {
		return fmt.Errorf("pack: %d offsets for %d rows", len(offsets), len(t.Rows))
	}
	cw := csv.NewWriter(w)
	header := t.Header
	col := t.offsetColumn
	if col < 0 {
		header = append(append([]string(nil), t.Header...), "offset")
		col = len(t.Header)
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	row := make([]string, len(header))
	for i, rec := range t.Rows {
		copy(row, rec)
		row[col] = strconv.FormatInt(offsets[i], 10)
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
