package cli_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// project is the test's own --fields: the fields of an object named, each
// its own key's value, else the dotted path's through objects and arrays,
// in the order named; nil for what is no object.
func project(v any, fields []string) ([]string, []any) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, nil
	}
	var names []string
	var values []any
	for _, f := range fields {
		x, found := obj[f]
		if !found {
			x, found = any(obj), true
			for _, part := range strings.Split(f, ".") {
				switch c := x.(type) {
				case map[string]any:
					x, found = c[part]
				case []any:
					i, err := strconv.Atoi(part)
					found = err == nil && i >= 0 && i < len(c)
					if found {
						x = c[i]
					}
				default:
					found = false
				}
				if !found {
					break
				}
			}
		}
		if found {
			names, values = append(names, f), append(values, x)
		}
	}
	return names, values
}

// objectKeys returns the keys of the JSON object text in the order the
// text has them.
func objectKeys(t *testing.T, raw json.RawMessage) []string {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	var keys []string
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// TestFieldsProjection: --fields on geo queries, get and scan, on
// table scan and get and index lookup, on rel list and on fence get and
// list prints each payload's or record's
// fields named, in the order named, as the test projects them from the
// same command's output without --fields: a field of its own name
// before a dotted path, a missing one left out, a payload that is no
// object printed as {}. A CSV's columns follow the order too.
func TestFieldsProjection(t *testing.T) {
	db := filepath.Join(t.TempDir(), "fields.db")
	var ndjson strings.Builder
	for i := range 40 {
		row := map[string]any{"id": fmt.Sprint("p", i), "lat": 59 + float64(i%8)/100, "lon": 10 + float64(i/8)/100,
			"name": fmt.Sprint("n", i), "pop": i * 1000, "meta": map[string]any{"a": i % 3, "b": "x"}, "tags": []any{"t", fmt.Sprint(i)}}
		if i%5 == 0 {
			delete(row, "pop")
			row["meta.a"] = "own" // a field named as the path is: it comes first
		}
		b, _ := json.Marshal(row)
		ndjson.Write(append(b, '\n'))
	}
	runOK(t, ndjson.String(), "--db", db, "-q", "geo", "import", "--index", "p", "--format", "ndjson", "-")
	runOK(t, "", "--db", db, "-q", "geo", "put", "--index", "p", "--lat", "59.01", "--lon", "10.01", "--payload", "plain text", "plain")
	runOK(t, ndjson.String(), "--db", db, "-q", "table", "import", "--table", "t", "--key-cols", "id", "--format", "ndjson", "-")
	runOK(t, "", "--db", db, "-q", "index", "create", "--table", "t", "--name", "by_a", "--fields", "meta.b")
	for i := range 5 {
		left := fmt.Sprintf(`{"name":"u%d","pop":%d,"meta":{"a":%d},"tags":["t","%d"]}`, i, i*7, i, i)
		runOK(t, "", "--db", db, "-q", "rel", "link", "--rel", "likes", "--left-fields", left, fmt.Sprint("u", i), "i1")
	}
	runOK(t, "", "--db", db, "-q", "fence", "put", "--fences", "z", "--lat", "59", "--lon", "10", "--radius", "1km", "--payload", `{"name":"f","meta":{"a":5},"pop":1}`, "f1")
	fields := []string{"pop", "meta.a", "tags.1", "missing", "name"}
	for _, c := range []struct {
		args       []string
		list, item string // where the items are in the JSON, and the field of each projected
	}{
		{[]string{"geo", "near", "--index", "p", "--lat", "59.03", "--lon", "10.02", "--radius", "3km"}, "results", "payload"},
		{[]string{"geo", "knn", "--index", "p", "--lat", "59.03", "--lon", "10.02", "--k", "12"}, "results", "payload"},
		{[]string{"geo", "box", "--index", "p", "--min-lat", "59", "--min-lon", "10", "--max-lat", "59.05", "--max-lon", "10.03"}, "results", "payload"},
		{[]string{"geo", "scan", "--index", "p"}, "points", "payload"},
		{[]string{"geo", "get", "--index", "p", "p3", "plain", "p5"}, "results", "payload"},
		{[]string{"table", "scan", "--table", "t"}, "rows", "record"},
		{[]string{"table", "get", "--table", "t", "p5", "p2"}, "rows", "record"},
		{[]string{"index", "lookup", "--table", "t", "--name", "by_a", "x"}, "entries", "record"},
		{[]string{"rel", "list", "--rel", "likes", "--right", "i1"}, "links", "fields"},
	} {
		read := func(extra ...string) []map[string]json.RawMessage {
			out := runOK(t, "", slices.Concat([]string{"--db", db, "-o", "json"}, c.args, extra)...)
			var doc map[string]json.RawMessage
			var items []map[string]json.RawMessage
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("%v: %v\n%s", c.args, err, out)
			}
			if err := json.Unmarshal(doc[c.list], &items); err != nil {
				t.Fatalf("%v: %v\n%s", c.args, err, out)
			}
			return items
		}
		whole, projected := read(), read("--fields", strings.Join(fields, ","))
		if len(whole) < 2 || len(projected) != len(whole) {
			t.Fatalf("%v: %d items, %d with --fields", c.args, len(whole), len(projected))
		}
		for i := range whole {
			var v any
			json.Unmarshal(whole[i][c.item], &v)
			if _, isText := v.(string); isText {
				v = map[string]any{} // a payload that is no object: no fields
			}
			names, values := project(v, fields)
			var got map[string]any
			if err := json.Unmarshal(projected[i][c.item], &got); err != nil {
				t.Fatalf("%v: item %d: %s: %v", c.args, i, projected[i][c.item], err)
			}
			want := map[string]any{}
			for j, name := range names {
				want[name] = values[j]
			}
			if keys := objectKeys(t, projected[i][c.item]); !reflect.DeepEqual(got, want) || !slices.Equal(keys, names) && len(names) > 0 {
				t.Errorf("%v: item %d: %s, want the fields %q of %s", c.args, i, projected[i][c.item], names, whole[i][c.item])
			}
		}
	}
	// A fence's payload is its GeoJSON properties, beside its radius.
	for _, args := range [][]string{{"fence", "get", "--fences", "z", "f1"}, {"fence", "list", "--fences", "z"}} {
		out := runOK(t, "", slices.Concat([]string{"--db", db, "-o", "json"}, args, []string{"--fields", "meta.a,name,missing"})...)
		var doc struct {
			Fences []struct{ Properties map[string]any }
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Fences) != 1 ||
			!reflect.DeepEqual(doc.Fences[0].Properties, map[string]any{"meta.a": 5.0, "name": "f", "radius": 1000.0}) {
			t.Errorf("%v --fields meta.a,name,missing: %v\n%s", args, err, out)
		}
	}
	csv := runOK(t, "", "--db", db, "-o", "csv", "table", "get", "--table", "t", "p1", "--fields", "tags.0,name")
	if want := "key,tags.0,name\np1,t,n1\n"; csv != want {
		t.Errorf("CSV with --fields: %q, want %q", csv, want)
	}
	for _, args := range [][]string{
		{"geo", "near", "--index", "p", "--lat", "59", "--lon", "10", "--radius", "1km", "--store", "q", "--fields", "name"},
		{"table", "scan", "--table", "t", "--fields", "a,,b"},
	} {
		if _, stderr, code := run(t, "", slices.Concat([]string{"--db", db}, args)...); code != 2 || !strings.Contains(stderr, "--fields") {
			t.Errorf("%v: exit %d, %q", args, code, stderr)
		}
	}
}
