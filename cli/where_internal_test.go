package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/keyspacedb/keyspace/geo"
)

// TestScanFrom: a scan for ids starting with a prefix begins just below
// it, or at the cursor when that is later; below is a string every id
// with the prefix sorts after, and no id before it matches.
func TestScanFrom(t *testing.T) {
	for _, c := range []struct{ prefix, cursor, want string }{
		{"", "", ""},
		{"", "car-9", "car-9"},
		{"truck-", "", "truck,"},
		{"truck-", "truck-7", "truck-7"},
		{"truck-", "bike-1", "truck,"},
		{"a\x00", "", "a"},
		{"\x00", "", ""},
		{"é", "", "\xc3\xa8"},
	} {
		got := scanFrom(c.prefix, c.cursor)
		if got != c.want {
			t.Errorf("scanFrom(%q, %q) = %q, want %q", c.prefix, c.cursor, got, c.want)
		}
		if c.prefix != "" && !(got < c.prefix) && got != c.cursor {
			t.Errorf("scanFrom(%q, %q) = %q does not sort before the prefix", c.prefix, c.cursor, got)
		}
	}
}

func TestScanBefore(t *testing.T) {
	for _, c := range []struct{ prefix, cursor, want string }{
		{"", "", ""},
		{"", "car-9", "car-9"},
		{"truck-", "", "truck."},
		{"truck-", "truck-7", "truck-7"},
		{"truck-", "zebra", "truck."},
		{"a\xff", "", "b"},
		{"\xff\xff", "", ""},
		{"\xff", "b", "b"},
		{"é", "", "\xc3\xaa"},
	} {
		got := scanBefore(c.prefix, c.cursor)
		if got != c.want {
			t.Errorf("scanBefore(%q, %q) = %q, want %q", c.prefix, c.cursor, got, c.want)
		}
		// Every extension of the prefix sorts before it, unless it is
		// the cursor or there is no bound.
		if got != "" && got != c.cursor && !(c.prefix+"\xff\xff\xff" < got) {
			t.Errorf("scanBefore(%q, %q) = %q does not sort after the prefix's extensions", c.prefix, c.cursor, got)
		}
	}
}

// FuzzWhereOnPayload holds a condition's test of a payload's bytes
// (holdsIn, through gjson) to its test of the payload decoded by
// encoding/json into a map (holds), the way --where read payloads before.
func FuzzWhereOnPayload(f *testing.F) {
	for _, s := range []struct {
		payload, field string
		op             byte
		value          string
	}{
		{`{"status":"free","speed":70}`, "status", 0, "free"},
		{`{"status":"free","speed":70}`, "speed", 4, "70"},
		{`{"speed":"70.0"}`, "speed", 0, "70"},
		{`{"driver":{"rating":4.5,"name":"Ann"}}`, "driver.rating", 3, "4"},
		{`{"tags":["ev","van"]}`, "tags.1", 0, "van"},
		{`{"a.b":1,"a":{"b":2}}`, "a.b", 0, "1"},
		{`{"a":{"b":2}}`, "a.b", 6, "1,2,3"},
		{`{"x":null}`, "x", 1, "1"},
		{`{"x":true}`, "x", 0, "true"},
		{`{"x":[1,2]}`, "x", 1, "[1,2]"},
		{`[1,2]`, "0", 1, "1"},
		{`"text"`, "x", 1, "y"},
		{`{"x":1} {"x":2}`, "x", 0, "1"},
		{`{"@this":1,"#":2,"a*":3}`, "@this", 0, "1"},
		{`{"x":"\u00e9"}`, "x", 0, "é"},
		{`{"x":1e400}`, "x", 2, "0"},
		{``, "x", 1, "y"},
	} {
		f.Add([]byte(s.payload), s.field, s.op, s.value)
	}
	ops := []string{"=", "!=", "<", "<=", ">", ">=", "in"}
	f.Fuzz(func(t *testing.T, payload []byte, field string, op byte, value string) {
		if field == "" {
			return
		}
		cond := condition{field: field, op: ops[int(op)%len(ops)], value: value}
		if cond.op == "in" {
			cond.values = strings.Split(value, ",")
		} else if cond.op != "=" && cond.op != "!=" {
			n, err := strconv.ParseFloat(value, 64)
			if err != nil {
				return // parseWhere refuses it
			}
			cond.number = n
		}
		cond.paths = payloadPaths(field)
		var fields map[string]any
		if err := json.Unmarshal(payload, &fields); err != nil {
			var typeErr *json.UnmarshalTypeError
			if errors.As(err, &typeErr) && strings.HasPrefix(typeErr.Value, "number") {
				return // 1e700: encoding/json refuses the payload, gjson reads +Inf
			}
			fields = nil
		}
		if hasDuplicateKeys(payload) || !utf8.Valid(payload) {
			return // encoding/json keeps a repeated key's last value and mends bad UTF-8; gjson neither
		}
		if got, want := cond.holdsIn(payload, isObject(payload)), cond.holds(fields); got != want {
			t.Fatalf("%s %s %q on %s: %v from the bytes, %v from the decoded map %v", field, cond.op, value, payload, got, want, fields)
		}
	})
}

// hasDuplicateKeys reports whether an object in the JSON payload names a
// key twice.
func hasDuplicateKeys(payload []byte) bool {
	d := json.NewDecoder(bytes.NewReader(payload))
	type level struct {
		keys     map[string]bool
		inObject bool
		wantKey  bool
	}
	var stack []level
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		top := len(stack) - 1
		if top >= 0 && stack[top].inObject && stack[top].wantKey {
			if k, ok := tok.(string); ok {
				if stack[top].keys[k] {
					return true
				}
				stack[top].keys[k] = true
				stack[top].wantKey = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, level{keys: map[string]bool{}, inObject: true, wantKey: true})
			continue
		case json.Delim('['):
			stack = append(stack, level{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:top]
		}
		if top := len(stack) - 1; top >= 0 && stack[top].inObject {
			stack[top].wantKey = true // a value ended: a key comes next
		}
	}
}

// TestWhereDeepPayload: a payload nested deeper than encoding/json reads
// has no fields, as before, and ten million brackets do not overflow the
// stack (gjson validates by recursion).
func TestWhereDeepPayload(t *testing.T) {
	cond := condition{field: "y", op: "=", value: "1", paths: payloadPaths("y")}
	for _, c := range []struct {
		depth int
		holds bool
	}{{maxNesting, true}, {maxNesting + 1, false}, {10_000_000, false}} {
		// The object and depth-1 arrays, each holding a string with a
		// bracket and an escaped quote in it, then the next.
		p := []byte(`{"x":` + strings.Repeat(`["\"[",`, c.depth-1) + "0" + strings.Repeat("]", c.depth-1) + `,"y":1}`)
		var fields map[string]any
		_ = json.Unmarshal(p, &fields)
		if got := whereFilter([]condition{cond})(geo.Point{Payload: p}); got != c.holds || cond.holds(fields) != got {
			t.Errorf("y=1 on a payload %d deep: %v, want %v", c.depth, got, c.holds)
		}
	}
}

// TestWhereSpacedAsSQL: a condition spaced around its operator parses as
// the same condition written without the spaces, and a value's own
// leading space is kept when no space comes before the operator.
func TestWhereSpacedAsSQL(t *testing.T) {
	for _, c := range []struct{ spaced, plain string }{
		{"pop > 1e6", "pop>1e6"},
		{"pop >= 1 ", "pop>=1"},
		{" pop<2", "pop<2"},
		{"pop =1", "pop=1"},
		{"city = New York", "city=New York"},
		{"city  !=  New York", "city!=New York"},
		{"city= New York", "city= New York"},
		{"a.b = x", "a.b=x"},
	} {
		got, err := parseConditions([]string{c.spaced}, nil)
		if err != nil {
			t.Fatalf("%q: %v", c.spaced, err)
		}
		want, err := parseConditions([]string{c.plain}, nil)
		if err != nil {
			t.Fatalf("%q: %v", c.plain, err)
		}
		g, w := got[0], want[0]
		if g.field != w.field || g.op != w.op || g.value != w.value || g.number != w.number {
			t.Errorf("%q parsed as %+v, want %+v as %q is", c.spaced, g, w, c.plain)
		}
	}
	if got, _ := parseConditions([]string{"city= New York"}, nil); got[0].value != " New York" {
		t.Errorf(`"city= New York" has value %q, want its leading space kept`, got[0].value)
	}
	got, err := parseConditions(nil, []string{"status = free,idle"})
	if err != nil || got[0].field != "status" || !slices.Equal(got[0].values, []string{"free", "idle"}) {
		t.Errorf(`--where-in "status = free,idle" parsed as %+v, %v`, got, err)
	}
	for _, bad := range []string{" = 3", "  >1"} {
		if _, err := parseConditions([]string{bad}, nil); err == nil {
			t.Errorf("%q parsed with no field", bad)
		}
	}
}
