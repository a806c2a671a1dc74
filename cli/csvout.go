package cli

// --output csv: what a command writes as NDJSON, one object a line, made
// a CSV for a spreadsheet or another tool. Every command that writes
// NDJSON writes CSV; no command writes CSV of its own.

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
)

// csvFeed gathers the NDJSON lines a command writes and, flushed, writes
// them as a CSV: a header of every column any line has, in the order they
// were first met, then a record a line. The columns are not known until
// the last line, so the lines are held until the command ends (a paged
// listing's page, an export's whole file).
//
// A line's fields are its columns (a line that is one value, not an
// object, is one column, "value"), values as written (a string's text,
// a number as written, true or false, null empty, an array or object as
// its JSON), but for the objects that hold a result's or row's own
// fields, "payload" (geo), "record" (table), "data" (log) and "fields"
// (rel), whose fields are columns of their own, named as they are (so
// that a geo export imports back: its payload's fields are the other
// columns geo import reads as a payload), or "payload.name" where that
// name is taken.
type csvFeed struct {
	out   io.Writer
	lines bytes.Buffer
}

// csvWrapped are the fields whose objects' fields are columns of their own.
var csvWrapped = []string{"payload", "record", "data", "fields"}

func (f *csvFeed) Write(p []byte) (int, error) { return f.lines.Write(p) }

// column is one field of a line, its name and its JSON value.
type column struct {
	name  string
	value json.RawMessage
}

// Flush writes the lines gathered so far as a CSV, and forgets them.
func (f *csvFeed) Flush() error {
	var rows [][]column
	sc := bufio.NewScanner(&f.lines)
	sc.Buffer(make([]byte, 1<<20), 1<<30)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if line[0] != '{' && json.Valid(line) {
			// A line that is one value (index distinct's): one column.
			rows = append(rows, []column{{"value", slices.Clone(line)}})
			continue
		}
		cols, err := orderedFields(line)
		if err != nil {
			return fmt.Errorf("--output csv: a line that is not a JSON object: %w", err)
		}
		rows = append(rows, flattenColumns(cols))
	}
	f.lines.Reset()
	if len(rows) == 0 {
		return nil
	}
	var header []string
	at := map[string]int{}
	for _, r := range rows {
		for _, c := range r {
			if _, ok := at[c.name]; !ok {
				at[c.name] = len(header)
				header = append(header, c.name)
			}
		}
	}
	w := csv.NewWriter(f.out)
	w.Write(header)
	rec := make([]string, len(header))
	for _, r := range rows {
		clear(rec)
		for _, c := range r {
			rec[at[c.name]] = csvCell(c.value)
		}
		w.Write(rec)
	}
	w.Flush()
	return w.Error()
}

// flattenColumns makes the fields of a line's wrapped objects (payload,
// record) columns of their own.
func flattenColumns(cols []column) []column {
	type wrapped struct {
		name   string
		fields []column
	}
	var out []column
	var inner []wrapped
	taken := map[string]bool{}
	for _, c := range cols {
		if slices.Contains(csvWrapped, c.name) && bytes.HasPrefix(c.value, []byte("{")) {
			if fields, err := orderedFields(c.value); err == nil {
				inner = append(inner, wrapped{c.name, fields})
				continue
			}
		}
		out = append(out, c)
		taken[c.name] = true
	}
	for _, w := range inner {
		for _, c := range w.fields {
			if taken[c.name] {
				c.name = w.name + "." + c.name
			}
			taken[c.name] = true
			out = append(out, c)
		}
	}
	return out
}

// orderedFields reads a JSON object's fields in the order they are
// written (a map would sort them).
func orderedFields(obj []byte) ([]column, error) {
	d := json.NewDecoder(bytes.NewReader(obj))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("%.40q is not an object", obj)
	}
	var cols []column
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, err
		}
		cols = append(cols, column{tok.(string), v})
	}
	return cols, nil
}

// csvCell is a JSON value as a CSV cell: a string's text, null empty, and
// anything else as written.
func csvCell(v json.RawMessage) string {
	switch {
	case bytes.Equal(v, []byte("null")):
		return ""
	case bytes.HasPrefix(v, []byte(`"`)):
		var s string
		if json.Unmarshal(v, &s) == nil {
			return s
		}
	}
	return string(v)
}
