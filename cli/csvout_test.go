package cli_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCSVOutput runs every kind of command that writes NDJSON with
// --output csv too, and holds the CSV (read by encoding/csv) to the NDJSON
// (read by encoding/json): a record a line, each line's fields in the
// columns of their names, the fields of its payload, record, data or
// fields object in columns of their own ("payload.id" where the line has
// an id already), strings as their text, null and absent fields empty,
// numbers as written and arrays and objects as their JSON; a line that
// is one value (index distinct's) a column "value"; and no column that
// no line has.
func TestCSVOutput(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	for _, c := range []struct {
		stdin string
		args  []string
	}{
		{`{"id":"a","lat":52.52,"lon":13.4,"country":"DE","payload":{"id":"inner","note":"a, \"b\"\nc <&>","n":[1,{"x":null}],"big":12345678901234567891,"no":null}}` + "\n" +
			`{"id":"b","lat":52.53,"lon":13.41,"country":"DE","name":"Mitte","ok":true}` + "\n",
			[]string{"geo", "import", "--index", "p", "--scope-cols", "country", "--format", "ndjson", "-"}},
		{`[{"id":1,"city":"Oslo","tags":["a","b"]},{"id":2,"city":"Rome","pop":2800000.5}]`,
			[]string{"table", "import", "--table", "t", "--key-cols", "id", "--format", "json", "-"}},
		{"", []string{"index", "create", "--table", "t", "--name", "by_city", "--fields", "city"}},
		{"user,time,text\nu1,2026-01-01T10:00:00Z,hi\nu1,2026-01-01T11:00:00Z,\"a,b\"\nu2,2026-01-02T10:00:00Z,yo\n",
			[]string{"log", "import", "--log", "l", "--parent-col", "user", "--time-col", "time", "-"}},
		{"user,item,name\nu1,i1,Ann\nu1,i2,Ann\nu2,i1,Bob\n",
			[]string{"rel", "import", "--rel", "r", "--left-col", "user", "--right-col", "item", "--left-fields-cols", "name", "-"}},
		{"sensor,time,value\ns1,2026-01-01T10:00:05Z,1.5\ns1,2026-01-01T10:01:00Z,2\ns2,2026-01-01T10:00:00Z,-3\n",
			[]string{"series", "import", "--series", "s", "-"}},
		{"", []string{"fence", "put", "--fences", "z", "--lat", "52.52", "--lon", "13.4", "--radius", "2km", "mitte"}},
	} {
		if _, stderr, code := run(t, c.stdin, append([]string{"--db", db}, c.args...)...); code != 0 {
			t.Fatalf("%v: %s", c.args, stderr)
		}
	}
	points := `{"id":"q1","lat":52.52,"lon":13.4}` + "\n" + `{"id":"q2","lat":0,"lon":0}` + "\n"
	for _, args := range [][]string{
		{"geo", "near", "--index", "p", "--scope", "DE", "--lat", "52.52", "--lon", "13.4", "--radius", "5km"},
		{"geo", "get", "--index", "p", "b", "a"},
		{"geo", "scan", "--index", "p"},
		{"geo", "scopes", "--index", "p"},
		{"table", "scan", "--table", "t", "*"},
		{"table", "get", "--table", "t", "2", "1"},
		{"index", "lookup", "--table", "t", "--name", "by_city", "Oslo"},
		{"index", "distinct", "--table", "t", "--name", "by_city"}, // a value a line
		{"log", "scan", "--log", "l"},
		{"log", "parents", "--log", "l"},
		{"log", "latest", "--log", "l", "--parent", "u1"},
		{"rel", "list", "--rel", "r", "--right", "i1"},
		{"rel", "scan", "--rel", "r"},
		{"series", "range", "--series", "s", "--sensor", "s1"},
		{"series", "sensors", "--series", "s"},
		{"fence", "containing", "--fences", "z", "--format", "ndjson", "-"},
	} {
		stdin := ""
		if args[0] == "fence" {
			stdin = points
		}
		ndjson, stderr, code := run(t, stdin, append([]string{"--db", db, "--output", "ndjson"}, args...)...)
		if code != 0 || ndjson == "" {
			t.Fatalf("%v --output ndjson: exit %d, %q", args, code, stderr)
		}
		out, stderr, code := run(t, stdin, append([]string{"--db", db, "--output", "csv"}, args...)...)
		if code != 0 {
			t.Fatalf("%v --output csv: exit %d, %q", args, code, stderr)
		}
		recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil {
			t.Fatalf("%v: the CSV does not read: %v\n%s", args, err, out)
		}
		want, names := flattenNDJSON(t, ndjson)
		if len(recs) != len(want)+1 {
			t.Fatalf("%v: %d CSV records for %d lines\n%s", args, len(recs), len(want), out)
		}
		for i, line := range want {
			got := map[string]string{}
			for j, name := range recs[0] {
				if recs[i+1][j] != "" {
					got[name] = recs[i+1][j]
				}
			}
			if !maps.Equal(got, line) {
				t.Errorf("%v: record %d %v, the NDJSON line %v", args, i+1, got, line)
			}
		}
		for _, name := range recs[0] {
			if !names[name] {
				t.Errorf("%v: column %q is in no line", args, name)
			}
		}
	}
	// A command that writes no NDJSON refuses csv, naming what it writes.
	if _, stderr, code := run(t, "", "--db", db, "--output", "csv", "stats"); code != 2 || !strings.Contains(stderr, "this command writes table, json") {
		t.Errorf("stats --output csv: exit %d, %q", code, stderr)
	}
	if _, stderr, code := run(t, "", "--db", db, "--output", "yaml", "table", "scan", "--table", "t", "*"); code != 2 || !strings.Contains(stderr, "table, json, ndjson, count, csv") {
		t.Errorf("--output yaml: exit %d, %q", code, stderr)
	}
}

// flattenNDJSON is the oracle: each line's fields as cells, the fields of
// a payload, record, data or fields object beside them (prefixed where
// the line has the name), empty ones left out; and the names of them all.
func flattenNDJSON(t *testing.T, ndjson string) ([]map[string]string, map[string]bool) {
	t.Helper()
	cell := func(v any) string {
		switch v := v.(type) {
		case nil:
			return ""
		case string:
			return v
		case json.Number:
			return v.String()
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.Encode(v)
		return strings.TrimSuffix(b.String(), "\n")
	}
	var lines []map[string]string
	names := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(ndjson), "\n") {
		d := json.NewDecoder(strings.NewReader(line))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		row := map[string]string{}
		obj, isObject := v.(map[string]any)
		if !isObject { // a line that is one value: a column "value"
			names["value"] = true
			if c := cell(v); c != "" {
				row["value"] = c
			}
			lines = append(lines, row)
			continue
		}
		var wrapped []string
		for k, v := range obj {
			if _, isObj := v.(map[string]any); isObj && slices.Contains([]string{"payload", "record", "data", "fields"}, k) {
				wrapped = append(wrapped, k)
				continue
			}
			names[k] = true
			if c := cell(v); c != "" {
				row[k] = c
			}
		}
		slices.Sort(wrapped)
		for _, w := range wrapped {
			for k, v := range obj[w].(map[string]any) {
				name := k
				if _, top := obj[k]; top {
					name = w + "." + k
				}
				names[name] = true
				if c := cell(v); c != "" {
					row[name] = c
				}
			}
		}
		lines = append(lines, row)
	}
	return lines, names
}
