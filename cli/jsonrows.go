package cli

// Rows from one JSON document (--format json): the objects of an array,
// or, with --each, the objects a path of keys leads to in a nested
// document (or in each line of NDJSON), each lent the plain fields of
// the objects above it that the import names.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/tidwall/match"
	ucli "github.com/urfave/cli/v2"
)

// eachFlag is --each, the path to the rows of a nested JSON document.
func eachFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "each", Usage: "in a JSON document (or each line of NDJSON), the `PATH` of keys down to the objects that are rows (states.cities: each city of each state of each element of the top array); " +
		"the plain fields of the objects above a row, named by their path from the top as jq writes them (.iso2 the country's, .states.name the state's), are the row's too when a column flag (--key-cols .iso2,.states.iso2,id) or --with names them"}
}

// withFlag is --with, the fields of the objects above a row of --each
// that it keeps.
func withFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "with", Usage: "with --each, the `FIELDS` of the objects above a row that it keeps beside those its column flags name, comma-separated, * for any run of characters (.name,.states.*)"}
}

// jsonPath is the path --each walks and the fields above a row that the
// row keeps.
type jsonPath struct {
	keys []string // --each, split at its dots; nil when not given
	with []string // patterns (tidwall/match) of the lent fields rows keep
}

// eachPath reads --each and what the rows keep of the objects above them:
// the fields a column flag names (a flag whose name ends in -col or -cols,
// as --key-cols, --lat-col, --time-col) and those --with names.
func eachPath(c *ucli.Context) (jsonPath, error) {
	if !c.IsSet("each") {
		if c.IsSet("with") {
			return jsonPath{}, usagef("--with names fields of the objects above a row of --each, which is not given")
		}
		return jsonPath{}, nil
	}
	p := jsonPath{keys: strings.Split(strings.TrimPrefix(c.String("each"), "."), ".")}
	for _, k := range p.keys {
		if k == "" {
			return jsonPath{}, usagef("--each %q: want keys joined by dots (states.cities)", c.String("each"))
		}
	}
	for _, f := range c.Command.Flags {
		name := f.Names()[0]
		if _, ok := f.(*ucli.StringFlag); ok && (strings.HasSuffix(name, "-col") || strings.HasSuffix(name, "-cols") || name == "with") {
			for _, field := range strings.Split(c.String(name), ",") {
				if field = strings.TrimSpace(field); field != "" {
					p.with = append(p.with, field)
				}
			}
		}
	}
	return p, nil
}

// keeps reports whether a row keeps the field name lent by an object
// above it.
func (p jsonPath) keeps(name string) bool {
	return slices.ContainsFunc(p.with, func(pattern string) bool { return match.Match(name, pattern) })
}

// readJSON reads the rows of one JSON document: each object of its top
// array, or the document itself when it is an object; with each, the
// objects reached from those by following its keys, an array on the way
// standing for each of its elements:
//
//	[{"iso2": "DE", "states": [{"name": "Berlin", "cities": [{"name": "Berlin", …}]}]}]
//
// with each = [states cities] gives a row a city, with the city's fields
// as they are and those of the fields of its state and country that path
// keeps, as .states.name and .iso2 (plain ones: strings, numbers,
// booleans, null; an object or array above a row, a country's
// translations or its states, is not lent). Lending every field would
// copy a country's thirty into each of its cities: 153,728 cities so took
// 338 MB of bbolt file, and the import is to name what it wants. A
// row is named by its path, as jq writes it: .[0].states[3].cities[12].
// Something other than an object where a row or a key was wanted is a
// bad row at its path, but for a null on the way to the rows, which, as
// a missing key, holds none. A document that is not JSON, or that has more
// after it, is an error; so is an each whose keys no object has.
//
// A top array is read an element at a time, so a large file takes the
// memory of its rows and of its largest element, not of its text.
func readJSON(ctx context.Context, in io.Reader, path jsonPath) ([]row, error) {
	br := buffered(in)
	d := json.NewDecoder(br)
	d.UseNumber()
	w := newJSONWalk(ctx, path)
	if bom, _ := br.Peek(3); string(bom) == "\ufeff" {
		br.Discard(3)
	}
	head, _ := br.Peek(1 << 10)
	head = bytes.TrimLeft(head, " \t\r\n")
	if len(head) > 0 && head[0] == '[' {
		if _, err := d.Token(); err != nil {
			return nil, jsonError(err)
		}
		for i := 0; d.More(); i++ {
			var v any
			if err := d.Decode(&v); err != nil {
				return nil, jsonError(err)
			}
			if err := w.walk(v, 0, fmt.Sprintf(".[%d]", i), nil); err != nil {
				return nil, err
			}
		}
		if _, err := d.Token(); err != nil { // ]
			return nil, jsonError(err)
		}
	} else {
		var v any
		if err := d.Decode(&v); err == io.EOF {
			return nil, errors.New("not JSON: the input is empty (nothing imported)")
		} else if err != nil {
			return nil, jsonError(err)
		}
		if err := w.walk(v, 0, ".", nil); err != nil {
			return nil, err
		}
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("not one JSON document: more follows it (NDJSON is --format ndjson; nothing imported)")
	}
	return w.done()
}

// readJSONLines is readJSON for NDJSON (--each with --format ndjson):
// each line an object walked as a document is, its rows named by the
// line and their path in it (line 3 .states[2].cities[0]).
func readJSONLines(ctx context.Context, in io.Reader, path jsonPath) ([]row, error) {
	w := newJSONWalk(ctx, path)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		obj, err := decodeObject(text)
		if err != nil {
			return nil, fmt.Errorf("line %d: not a JSON object: %v (nothing imported)", line, err)
		}
		from := len(w.rows)
		if err := w.walk(obj, 0, ".", nil); err != nil {
			return nil, err
		}
		for i := from; i < len(w.rows); i++ {
			w.rows[i].path = fmt.Sprintf("line %d %s", line, w.rows[i].path)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return w.done()
}

// newJSONWalk is a walk along path.
func newJSONWalk(ctx context.Context, path jsonPath) *jsonWalk {
	return &jsonWalk{ctx: ctx, each: path.keys, keeps: path.keeps, reached: make([]bool, len(path.keys)), had: make([]bool, len(path.keys)),
		lendable: map[string]bool{}}
}

// done returns the rows gathered, or an error when no object on the way
// had the key the walk looked for in it (a misspelt --each).
func (w *jsonWalk) done() ([]row, error) {
	for depth, key := range w.each {
		if w.reached[depth] && !w.had[depth] {
			return nil, fmt.Errorf("--each %s: no object at %s has a %q key (nothing imported)", strings.Join(w.each, "."), w.pathTo(depth), key)
		}
	}
	if len(w.lendable) > 0 {
		lendable := slices.Sorted(maps.Keys(w.lendable))
		for i := range w.rows {
			w.rows[i].lendable = &lendable
		}
	}
	return w.rows, nil
}

// jsonError is a decoding error as an import says it, with where in the
// (uncompressed) input it is when the decoder says.
func jsonError(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("not JSON at byte %d: %v (nothing imported)", se.Offset, err)
	}
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		return errors.New("not JSON: the input ends before the document does (nothing imported)")
	}
	return fmt.Errorf("not JSON: %v (nothing imported)", err)
}

// jsonWalk follows --each through a document, gathering rows.
type jsonWalk struct {
	ctx   context.Context
	each  []string
	keeps func(name string) bool // the lent fields rows keep
	rows  []row
	// reached[d] says an object was met where each[d] was looked for,
	// and had[d] that one of them had it.
	reached, had []bool
	// lendable are the plain fields the objects above the rows have,
	// kept or not (.iso2, .states.name), for the hint of a column flag
	// that names none of them (lentHint).
	lendable map[string]bool
}

// lent is a field an object above a row lends it.
type lent struct {
	name  string
	value any
}

// pathTo is where each[depth] is looked for, jq's way: .[].states[].
func (w *jsonWalk) pathTo(depth int) string {
	if depth == 0 {
		return "the top"
	}
	return "." + strings.Join(w.each[:depth], ".")
}

// walk gathers the rows of v, found at where, each[depth] the next key to
// follow; above are the fields lent by the objects above v.
func (w *jsonWalk) walk(v any, depth int, where string, above []lent) error {
	if arr, ok := v.([]any); ok {
		for i, e := range arr {
			at := fmt.Sprintf("%s[%d]", where, i)
			if where == "." {
				at = fmt.Sprintf(".[%d]", i)
			}
			if err := w.walk(e, depth, at, above); err != nil {
				return err
			}
		}
		return nil
	}
	obj, ok := v.(map[string]any)
	if depth == len(w.each) {
		if err := interrupted(w.ctx, len(w.rows)); err != nil {
			return err
		}
		r := row{path: where}
		if !ok {
			r.bad = fmt.Errorf("%s, not an object", jsonKind(v))
			w.rows = append(w.rows, r)
			return nil
		}
		r.values = obj
		if len(above) > 0 {
			r.values = make(map[string]any, len(obj)+len(above))
			maps.Copy(r.values, obj)
		}
		for _, f := range above {
			if _, twice := r.values[f.name]; twice && r.bad == nil {
				r.bad = fmt.Errorf("the row's own field %q has the name of a field of an object above it", f.name)
			}
			r.values[f.name] = f.value
		}
		w.rows = append(w.rows, r)
		return nil
	}
	if v == nil {
		return nil // "states": null, as a missing key: no rows
	}
	if !ok {
		w.rows = append(w.rows, row{path: where, bad: fmt.Errorf("%s where --each wants an object with a %q key", jsonKind(v), w.each[depth])})
		return nil
	}
	w.reached[depth] = true
	next, has := obj[w.each[depth]]
	if !has {
		return nil // a country without states has no cities
	}
	w.had[depth] = true
	if next == nil {
		return nil // "cities": null, as no key: no rows
	}
	prefix := "."
	if depth > 0 {
		prefix = "." + strings.Join(w.each[:depth], ".") + "."
	}
	lends := append([]lent(nil), above...)
	for k, val := range obj {
		switch val.(type) {
		case map[string]any, []any:
		default:
			name := prefix + k // as jq writes the path: .states.name
			w.lendable[name] = true
			if w.keeps(name) {
				lends = append(lends, lent{name, val})
			}
		}
	}
	at := where + "." + w.each[depth]
	if where == "." {
		at = "." + w.each[depth]
	}
	return w.walk(next, depth+1, at, lends)
}

// jsonKind names a decoded JSON value's type for an error.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	}
	return "an object"
}
