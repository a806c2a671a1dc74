package cli

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/keyspacedb/keyspace/geo"
	"github.com/tidwall/gjson"
	"github.com/tidwall/match"
	ucli "github.com/urfave/cli/v2"
)

// matchFlag is --match, Tile38's and Redis's MATCH on the ids of what
// (points, fences).
func matchFlag(what string) ucli.Flag {
	return &ucli.StringFlag{Name: "match", Usage: "keep only " + what + " whose id matches the glob `PATTERN`: * any run of characters, ? any one, \\ before * or ? for itself, as Tile38's and Redis's MATCH (truck-*)"}
}

// idMatcher is --match's test of an id (nil when --match is not given),
// and the literal start every matching id has (a prefix, which a scan
// in id order is past once its ids are past it).
func idMatcher(c *ucli.Context) (matches func(id string) bool, prefix string) {
	pattern := c.String("match")
	if pattern == "" {
		return nil, ""
	}
	prefix = pattern
	if i := strings.IndexAny(pattern, "*?\\"); i >= 0 {
		prefix = pattern[:i]
	}
	return func(id string) bool { return match.Match(id, pattern) }, prefix
}

// scanFrom is where a scan in id order for ids starting with prefix, from
// after cursor, begins: after cursor, or just below prefix if that is
// later (the scan lists ids after the string it is given), so that it
// skips the ids before every match instead of reading and rejecting
// them. Just below "truck-" is "truck,", whose extensions the match test
// rejects.
func scanFrom(prefix, cursor string) string {
	if prefix == "" {
		return cursor
	}
	below := prefix[:len(prefix)-1]
	if last := prefix[len(prefix)-1]; last > 0 {
		below += string([]byte{last - 1})
	}
	return max(cursor, below)
}

// scanBefore is where a scan in descending id order for ids starting
// with prefix, from before cursor ("" for the last id), begins: before
// cursor, or before the least string above every extension of prefix if
// that is sooner (prefix with its last byte below 0xff raised by one, the
// bytes after it dropped), so that it skips the ids after every match.
// A prefix of 0xff bytes alone has no such string: the scan begins at the
// last id, or before cursor.
func scanBefore(prefix, cursor string) string {
	above := ""
	for i := len(prefix) - 1; i >= 0; i-- {
		if prefix[i] < 0xff {
			above = prefix[:i] + string([]byte{prefix[i] + 1})
			break
		}
	}
	switch {
	case above == "":
		return cursor
	case cursor == "":
		return above
	}
	return min(cursor, above)
}

func whereFlag() ucli.Flag { return whereFlagOf("points whose payload field") }

// whereFlagOf is --where on what ("points whose payload field").
func whereFlagOf(what string) ucli.Flag {
	return &ucli.StringSliceFlag{Name: "where", Usage: "keep only " + what + " `FIELD<OP>VALUE` holds, with = != < <= > >= (status=free, speed>=70, driver.rating>=4 for a field of an object; repeat it: all must hold), as Tile38's WHERE"}
}

// whereInFlag is --where-in on points' payloads (Tile38's WHEREIN).
func whereInFlag() ucli.Flag { return whereInFlagOf("points whose payload field") }

// whereInFlagOf is --where-in on what ("rows whose field").
func whereInFlagOf(what string) ucli.Flag {
	return &ucli.StringSliceFlag{Name: "where-in", Usage: "keep only " + what + " FIELD is one of the `FIELD=VALUE,VALUE…` (status=free,idle; a value with a comma in double quotes, as in CSV; repeat it: all must hold, with every --where), as Tile38's WHEREIN"}
}

// recordFilter is the test of a table record by --where's conditions
// (nil for none): every condition holds for its fields.
func recordFilter(conds []condition) func(map[string]any) bool {
	if len(conds) == 0 {
		return nil
	}
	return func(fields map[string]any) bool {
		for _, cond := range conds {
			if !cond.holds(fields) {
				return false
			}
		}
		return true
	}
}

// A fieldWatch notes, as a scan tests rows with --where's conditions,
// whether any row tested had each condition's field, and the fields the
// first rows had: a misspelt field (--where staus=open) matches nothing,
// without a word, and a scan that kept nothing says so (missing).
type fieldWatch struct {
	what   string // "row" or "record", or "point" or "fence" for payloads
	conds  []condition
	had    []bool          // by condition: some row had its field
	fields map[string]bool // the fields of the first rows tested, and their objects'
	tested int
	kept   int // by the filter (watchPayloads)
}

func newFieldWatch(what string, conds []condition) *fieldWatch {
	return &fieldWatch{what: what, conds: conds, had: make([]bool, len(conds)), fields: map[string]bool{}}
}

// watchFields returns the watch and keep, recordFilter's test of conds,
// watching the rows it tests (nil, nil without conditions).
func watchFields(conds []condition) (*fieldWatch, func(map[string]any) bool) {
	keep := recordFilter(conds)
	if keep == nil {
		return nil, nil
	}
	w := newFieldWatch("row", conds)
	return w, func(rec map[string]any) bool {
		w.see(rec)
		return keep(rec)
	}
}

// watchNamed is a watch of the fields named (table count's --by and --of),
// which see is shown the rows of.
func watchNamed(fields ...string) *fieldWatch {
	conds := make([]condition, 0, len(fields))
	for _, f := range fields {
		if f = strings.TrimPrefix(f, "-"); f != "" { // --by -n: descending n
			conds = append(conds, condition{field: f})
		}
	}
	return newFieldWatch("row", conds)
}

// see notes a record tested: whether it has each condition's field, and,
// among the first rows, its fields.
func (w *fieldWatch) see(rec map[string]any) {
	w.tested++
	if w.tested <= 100 {
		for name, v := range rec {
			w.fields[name] = true
			if obj, ok := v.(map[string]any); ok { // driver.rating
				for sub := range obj {
					w.fields[name+"."+sub] = true
				}
			}
		}
	}
	for i, cond := range w.conds {
		if !w.had[i] {
			_, ok := rec[cond.field]
			if !ok && strings.Contains(cond.field, ".") {
				_, ok = pathValue(rec, cond.field)
			}
			w.had[i] = ok
		}
	}
}

// watchPayloads is watchFields for payloads, of what ("point", "fence"):
// the watch, and the filter of --where's conditions and --match's pattern
// (pointFilter) that watches the payloads of those whose ids match.
func watchPayloads(what string, conds []condition, matches func(id string) bool) (*fieldWatch, func(geo.Point) bool) {
	if len(conds) == 0 {
		return nil, pointFilter(conds, matches)
	}
	w := newFieldWatch(what, conds)
	return w, func(p geo.Point) bool {
		if matches != nil && !matches(p.ID) {
			return false
		}
		w.tested++
		object := isObject(p.Payload)
		if object {
			if w.tested <= 100 {
				gjson.ParseBytes(p.Payload).ForEach(func(k, v gjson.Result) bool {
					w.fields[k.Str] = true
					if v.IsObject() { // driver.rating
						v.ForEach(func(sub, _ gjson.Result) bool { w.fields[k.Str+"."+sub.Str] = true; return true })
					}
					return true
				})
			}
			for i, cond := range conds {
				if !w.had[i] {
					w.had[i] = slices.ContainsFunc(cond.paths, func(path string) bool { return gjson.GetBytes(p.Payload, path).Exists() })
				}
			}
		}
		if !holdIn(conds, p.Payload, object) {
			return false
		}
		w.kept++
		return true
	}
}

// missing is the note for the conditions' fields no row tested had ("" for
// none, or when no row was tested), with the field most like each.
func (w *fieldWatch) missing() string {
	if w == nil || w.tested == 0 {
		return ""
	}
	var absent, named []string
	for i, cond := range w.conds {
		if w.had[i] || slices.Contains(absent, cond.field) {
			continue
		}
		absent = append(absent, cond.field)
		name := strconv.Quote(cond.field)
		if like := nearest(cond.field, slices.Sorted(maps.Keys(w.fields))); like != "" && like != cond.field {
			name += fmt.Sprintf(" (did you mean %q?)", like)
		}
		named = append(named, name)
	}
	has := "no " + w.what + " read has a"
	if w.what == "point" || w.what == "fence" {
		has += " payload"
	}
	switch len(named) {
	case 0:
		return ""
	case 1:
		return has + " field " + named[0]
	}
	return strings.Replace(has, " a", " the", 1) + " fields " + strings.Join(named, ", ")
}

// A condition is one --where (a payload field, an operator and a value)
// or --where-in (a field, the operator "in" and values).
type condition struct {
	field, op, value string
	number           float64  // value, for <, <=, > and >=
	values           []string // the values of "in"
	paths            []string // where the field is in a payload (payloadPaths)
}

var conditionSyntax = regexp.MustCompile(`^([^=!<>]+)(=|!=|<=|>=|<|>)(.*)$`)

// parseWhere reads the --where and --where-in conditions; a bad one is a
// usage error.
func parseWhere(c *ucli.Context) ([]condition, error) {
	return parseConditions(c.StringSlice("where"), c.StringSlice("where-in"))
}

// parseConditions reads conditions written as --where and --where-in
// take them; a bad one is a usage error.
func parseConditions(where, whereIn []string) ([]condition, error) {
	var out []condition
	for _, w := range where {
		m := conditionSyntax.FindStringSubmatch(w)
		if m == nil {
			return nil, usagef("--where %q: write FIELD<OP>VALUE with one of = != < <= > >=, as in status=free or speed>=70", w)
		}
		cond := condition{field: strings.TrimSpace(m[1]), op: m[2], value: m[3]}
		if cond.field == "" {
			return nil, usagef("--where %q: the FIELD before %s is missing", w, cond.op)
		}
		if strings.HasSuffix(m[1], " ") {
			// FIELD = VALUE, spaced as SQL is: the spaces around the
			// operator are not the value's. FIELD= VALUE keeps them.
			cond.value = strings.TrimLeft(cond.value, " ")
		}
		if cond.op != "=" && cond.op != "!=" {
			cond.value = strings.TrimSpace(cond.value) // a number has no spaces
			n, err := strconv.ParseFloat(cond.value, 64)
			if err != nil {
				return nil, usagef("--where %q: %s compares numbers, and %q is not one", w, cond.op, cond.value)
			}
			cond.number = n
		}
		out = append(out, cond)
	}
	for _, w := range whereIn {
		field, list, ok := strings.Cut(w, "=")
		if strings.HasSuffix(field, " ") {
			list = strings.TrimLeft(list, " ") // as FIELD = VALUE in --where
		}
		field = strings.TrimSpace(field)
		if !ok || field == "" {
			return nil, usagef("--where-in %q: write FIELD=VALUE,VALUE…, as in status=free,idle", w)
		}
		values, err := csv.NewReader(strings.NewReader(list)).Read()
		if err == io.EOF {
			values, err = []string{""}, nil // FIELD= : the field is empty text
		}
		if err != nil {
			return nil, usagef("--where-in %q: the values read as one CSV line, and %v", w, err)
		}
		out = append(out, condition{field: field, op: "in", values: values})
	}
	for i := range out {
		out[i].paths = payloadPaths(out[i].field)
	}
	return out, nil
}

// payloadPaths are the gjson paths of a field in a payload: the key of
// that name, then, when it has dots, the path through objects and arrays
// its parts make.
func payloadPaths(field string) []string {
	paths := []string{gjson.Escape(field)}
	if parts := strings.Split(field, "."); len(parts) > 1 {
		for i, part := range parts {
			parts[i] = gjson.Escape(part)
		}
		paths = append(paths, strings.Join(parts, "."))
	}
	return paths
}

// pointFilter is the geo.QueryOptions.Filter of --where's conditions and
// --match's pattern (nil for neither): an id must match, then the
// conditions hold (whereFilter).
func pointFilter(conds []condition, matches func(id string) bool) func(geo.Point) bool {
	where := whereFilter(conds)
	switch {
	case matches == nil:
		return where
	case where == nil:
		return func(p geo.Point) bool { return matches(p.ID) }
	}
	return func(p geo.Point) bool { return matches(p.ID) && where(p) }
}

// whereFilter is the geo.QueryOptions.Filter of the conditions (nil for
// none): a point is kept when its payload is a JSON object and every
// condition holds for it. A field holds text or a number (a CSV import
// stores its other columns as text): =, != and in compare numbers as
// numbers (7 = 7.0) and anything else as text; <, <=, > and >= hold only
// for a field that reads as a number. A missing field holds only for !=,
// and so does an object or an array, which is not one value to compare;
// a number past float64's range (1e700) reads as ±infinity.
// A field with no name of its own that has dots in it is a path through
// objects and arrays (driver.rating, tags.0), as column flags take one.
//
// The payload is not decoded: gjson finds each condition's field in its
// bytes (github.com/tidwall/gjson, as Tile38's WHERE does): a k-nearest
// query that read all of 1,000,000 points to find the ten of population
// over 999,900 took 0.34–0.39 s, against 1.5–2.8 s decoding each payload
// into a map with encoding/json (three runs of each). holds, on a decoded
// record, is the same test, and FuzzWhereOnPayload holds the two to the
// same answers.
func whereFilter(conds []condition) func(geo.Point) bool {
	if len(conds) == 0 {
		return nil
	}
	return func(p geo.Point) bool { return holdIn(conds, p.Payload, isObject(p.Payload)) }
}

// holdIn reports whether every condition holds for a payload, object
// whether it is a JSON object (isObject, which reads all of it: found once
// a payload).
func holdIn(conds []condition, payload []byte, object bool) bool {
	for _, cond := range conds {
		if !cond.holdsIn(payload, object) {
			return false
		}
	}
	return true
}

// isObject reports whether payload is one valid JSON object, nested no
// deeper than encoding/json reads: any other payload has no fields.
func isObject(payload []byte) bool {
	for _, c := range payload {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case '{':
			// gjson validates by recursion: ten million brackets would
			// overflow the stack, which no recover catches.
			return nestedWithin(payload, maxNesting) && gjson.ValidBytes(payload)
		}
		return false
	}
	return false
}

// maxNesting is encoding/json's limit on nested objects and arrays.
const maxNesting = 10000

// nestedWithin reports whether no object or array in the JSON text b
// lies more than most deep, counting the brackets outside strings.
func nestedWithin(b []byte, most int) bool {
	depth, inString := 0, false
	for i := 0; i < len(b); i++ {
		switch c := b[i]; {
		case inString && c == '\\':
			i++ // the escaped byte, which may be a quote
		case c == '"':
			inString = !inString
		case inString:
		case c == '{' || c == '[':
			if depth++; depth > most {
				return false
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return true
}

// holdsIn is holds on a payload's bytes; object says whether the payload
// is a JSON object (isObject).
func (cond condition) holdsIn(payload []byte, object bool) bool {
	if !object {
		return cond.test(operand{}, false)
	}
	var r gjson.Result
	for _, path := range cond.paths {
		if r = gjson.GetBytes(payload, path); r.Exists() {
			break
		}
	}
	switch r.Type {
	case gjson.Null: // missing, or null
		return cond.test(operand{}, false)
	case gjson.Number:
		return cond.test(operand{text: r.Raw, number: r.Num, isNumber: true}, true)
	case gjson.String:
		return cond.test(textOperand(r.Str), true)
	case gjson.JSON:
		return cond.test(operand{structured: true}, true)
	}
	return cond.test(textOperand(r.Raw), true) // true or false
}

// holds is the condition's test of a decoded record's fields (table scan
// --where).
func (cond condition) holds(fields map[string]any) bool {
	v, ok := fields[cond.field]
	if !ok && strings.Contains(cond.field, ".") {
		v, _ = pathValue(fields, cond.field)
	}
	switch v := v.(type) {
	case nil:
		return cond.test(operand{}, false)
	case json.Number:
		return cond.test(textOperand(v.String()), true)
	case float64:
		return cond.test(operand{text: fmt.Sprint(v), number: v, isNumber: true}, true)
	case string:
		return cond.test(textOperand(v), true)
	case map[string]any, []any:
		return cond.test(operand{structured: true}, true)
	}
	return cond.test(textOperand(fmt.Sprint(v)), true) // true or false
}

// An operand is a field's value as a condition compares it: its text,
// and its number when it is one or its text reads as one ("70" from a
// CSV). An object or an array is structured: no value equals it.
type operand struct {
	text       string
	number     float64
	isNumber   bool
	structured bool
}

func textOperand(text string) operand {
	n, err := strconv.ParseFloat(text, 64)
	return operand{text: text, number: n, isNumber: err == nil}
}

// test is the condition on a field's value v, or on a missing field.
func (cond condition) test(v operand, present bool) bool {
	if !present {
		return cond.op == "!="
	}
	// equal is = on the field: numbers as numbers (7 = 7.0), else text.
	equal := func(want string) bool {
		if v.structured {
			return false
		}
		if w, err := strconv.ParseFloat(want, 64); err == nil && v.isNumber {
			if c, exact := exactCompare(v.text, v.number, want, w); exact {
				return c == 0
			}
			return v.number == w
		}
		return v.text == want
	}
	switch cond.op {
	case "=", "!=":
		return equal(cond.value) == (cond.op == "=")
	case "in":
		return slices.ContainsFunc(cond.values, equal)
	}
	if !v.isNumber {
		return false
	}
	if c, exact := exactCompare(v.text, v.number, cond.value, cond.number); exact {
		switch cond.op {
		case "<":
			return c < 0
		case "<=":
			return c <= 0
		case ">":
			return c > 0
		}
		return c >= 0
	}
	switch cond.op {
	case "<":
		return v.number < cond.number
	case "<=":
		return v.number <= cond.number
	case ">":
		return v.number > cond.number
	}
	return v.number >= cond.number
}
