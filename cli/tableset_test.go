package cli_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestTableSetAgainstModel: random table sets (new rows, changed and
// removed fields, --xx on rows that are and are not there) against a
// model of the rows: after each, the changed count is the model's, the
// table scans as the model, and the index on a set field verifies clean
// and finds what the model says. A key column cannot be set or removed.
func TestTableSetAgainstModel(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	if _, stderr, code := run(t, "state,id,status\nCA,1,open\nCA,2,shipped\nNY,3,open\n", "--db", db, "--quiet", "table", "import", "--table", "o", "--key-cols", "state,id", "-"); code != 0 {
		t.Fatal(stderr)
	}
	for _, args := range [][]string{
		{"index", "create", "--table", "o", "--name", "by_status", "--fields", "status"},
		{"index", "build", "--table", "o", "--name", "by_status"},
	} {
		if _, stderr, code := run(t, "", append([]string{"--db", db}, args...)...); code != 0 {
			t.Fatal(stderr)
		}
	}
	model := map[string]map[string]any{ // key text → record
		"CA:1": {"state": "CA", "id": "1", "status": "open"},
		"CA:2": {"state": "CA", "id": "2", "status": "shipped"},
		"NY:3": {"state": "NY", "id": "3", "status": "open"},
	}
	r := rand.New(rand.NewPCG(5, 6))
	keys := []string{"CA:1", "CA:2", "NY:3", "NY:4", "TX:5"}
	values := []struct {
		arg  string
		json any
	}{{"open", "open"}, {"shipped", "shipped"}, {"7", 7.0}, {"true", true}, {`"7"`, "7"}, {"a b", "a b"}}
	for step := range 40 {
		key := keys[r.IntN(len(keys))]
		args := []string{"--db", db, "table", "set", "--table", "o", key}
		want, exists := model[key]
		next := map[string]any{}
		if exists {
			next = maps.Clone(want)
		} else {
			next["state"], next["id"] = strings.Split(key, ":")[0], strings.Split(key, ":")[1]
		}
		touched := map[string]bool{}
		if r.IntN(4) == 0 {
			f := []string{"status", "note", "qty"}[r.IntN(3)]
			args = append(args, "--del", f)
			delete(next, f)
			touched[f] = true
		}
		for range 1 + r.IntN(2) {
			f, v := []string{"status", "note", "qty"}[r.IntN(3)], values[r.IntN(len(values))]
			args = append(args, f+"="+v.arg)
			next[f] = v.json
			touched[f] = true
		}
		xx := r.IntN(4) == 0
		if xx {
			args = append(args, "--xx")
		}
		changed := 0
		for f := range touched {
			old, had := want[f]
			now, has := next[f]
			if had != has || had && !reflect.DeepEqual(old, now) {
				changed++
			}
		}
		if xx && !exists {
			changed = 0
		} else {
			model[key] = next
		}
		out, stderr, code := run(t, "", args...)
		if code != 0 || strings.TrimSpace(out) != fmt.Sprint(changed) {
			t.Fatalf("step %d: %v: exit %d, %q %q; the model changed %d fields", step, args[3:], code, out, stderr, changed)
		}
		// The table is the model.
		out, stderr, code = run(t, "", "--db", db, "--output", "ndjson", "table", "scan", "--table", "o")
		got := map[string]map[string]any{}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var row struct {
				Key    string
				Record map[string]any
			}
			if err := json.Unmarshal([]byte(line), &row); err != nil {
				t.Fatalf("step %d: %q: %v (%s)", step, line, err, stderr)
			}
			got[row.Key] = row.Record
		}
		if code != 0 || !reflect.DeepEqual(got, model) {
			t.Fatalf("step %d: %v: the table holds\n%v\nthe model\n%v", step, args[3:], got, model)
		}
	}
	// The index follows: verify is clean, and a lookup finds the model's rows.
	if out, stderr, code := run(t, "", "--db", db, "index", "verify", "--table", "o", "--name", "by_status"); code != 0 {
		t.Fatalf("index verify: exit %d: %s %s", code, out, stderr)
	}
	var wantOpen []string
	for key, rec := range model {
		if rec["status"] == "open" {
			wantOpen = append(wantOpen, key)
		}
	}
	out, _, _ := run(t, "", "--db", db, "--output", "ndjson", "index", "lookup", "--table", "o", "--name", "by_status", "open")
	var gotOpen []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e struct{ Key string }
		if line != "" && json.Unmarshal([]byte(line), &e) == nil {
			gotOpen = append(gotOpen, e.Key)
		}
	}
	slices.Sort(wantOpen)
	slices.Sort(gotOpen)
	if !slices.Equal(gotOpen, wantOpen) {
		t.Errorf("lookup open: %v, the model %v", gotOpen, wantOpen)
	}
	// Key columns are the key; a refused set changes nothing.
	before, _, _ := run(t, "", "--db", db, "--output", "json", "table", "scan", "--table", "o")
	for _, args := range [][]string{{"CA:1", "state=NY"}, {"CA:1", "--del", "id"}, {"CA", "status=x"}, {"CA:1"}} {
		if _, stderr, code := run(t, "", append([]string{"--db", db, "table", "set", "--table", "o"}, args...)...); code != 2 {
			t.Errorf("table set %v: exit %d, %q; want a usage error", args, code, stderr)
		}
	}
	if after, _, _ := run(t, "", "--db", db, "--output", "json", "table", "scan", "--table", "o"); after != before {
		t.Error("a refused table set changed the table")
	}
}

// TestTableNDJSONRoundTrip: table scan --output ndjson, imported with
// --format ndjson into another file, scans as the original, values with
// their JSON types and expiries to the nanosecond; flat NDJSON objects
// import with their types too.
func TestTableNDJSONRoundTrip(t *testing.T) {
	dir := t.TempDir()
	db, copyDB := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	must := func(stdin string, args ...string) string {
		t.Helper()
		out, stderr, code := run(t, stdin, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		return out
	}
	must("state,id,status\nCA,1,open\nCA,2,shipped\nNY,3,open\n", "--db", db, "--quiet", "table", "import", "--table", "o", "--key-cols", "state,id", "-")
	must("", "--db", db, "table", "set", "--table", "o", "CA:1", `tags=["a",1]`, "qty=7", `note={"x":null}`)
	must("", "--db", db, "table", "expire", "--table", "o", "--ttl", "2h", "NY:3")
	export := must("", "--db", db, "--output", "ndjson", "table", "scan", "--table", "o")
	if !strings.Contains(export, `"expires"`) || !strings.Contains(export, `"tags":["a",1]`) {
		t.Fatalf("the export lacks what was set:\n%s", export)
	}
	must(export, "--db", copyDB, "--quiet", "table", "import", "--table", "o", "--key-cols", "state,id", "--format", "ndjson", "-")
	if again := must("", "--db", copyDB, "--output", "ndjson", "table", "scan", "--table", "o"); again != export {
		t.Errorf("the copy exports as\n%s\nnot\n%s", again, export)
	}
	// Flat objects: each field with its JSON type, the key from its columns.
	must(`{"id":10,"tags":["x"],"ok":true}`+"\n"+`{"id":11,"n":1.5}`+"\n", "--db", copyDB, "--quiet", "table", "import", "--table", "j", "--key-cols", "id", "--format", "ndjson", "-")
	out := must("", "--db", copyDB, "--output", "ndjson", "table", "scan", "--table", "j")
	want := `{"key":"10","record":{"id":10,"ok":true,"tags":["x"]}}` + "\n" + `{"key":"11","record":{"id":11,"n":1.5}}` + "\n"
	if out != want {
		t.Errorf("flat NDJSON scans as\n%s\nwant\n%s", out, want)
	}
	if _, stderr, code := run(t, `{"key":"1","expires":"soon","record":{"id":1}}`+"\n", "--db", copyDB, "table", "import", "--table", "k", "--key-cols", "id", "--format", "ndjson", "-"); code != 1 || !strings.Contains(stderr, `line 1: expiry "soon" is not an RFC 3339 time`) {
		t.Errorf("a bad expiry: exit %d, %q", code, stderr)
	}
}

// TestIndexCreateBuildsOrChangesNothing: index create builds the index it
// declares; one that cannot be built (a unique index over values that
// repeat) leaves the file as it was, writes still work, and the name is
// free. An index whose build is unfinished is refused by lookups and is
// one problem to verify until index build finishes it.
func TestIndexCreateBuildsOrChangesNothing(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	if _, stderr, code := run(t, "id,city,pop\n1,Oslo,5\n2,Lima,5\n3,Oslo,7\n", "--db", db, "--quiet", "table", "import", "--table", "t", "--key-cols", "id", "-"); code != 0 {
		t.Fatal(stderr)
	}
	if _, stderr, code := run(t, "", "--db", db, "--quiet", "index", "create", "--table", "t", "--name", "bc", "--fields", "city"); code != 0 || stderr != "created index bc over 3 records: 3 entries\n" {
		t.Fatalf("create bc: exit %d, %q", code, stderr)
	}
	lookup := func(name, value string) (string, string, int) {
		return run(t, "", "--db", db, "--output", "ndjson", "index", "lookup", "--table", "t", "--name", name, value)
	}
	if out, stderr, code := lookup("bc", "Oslo"); code != 0 || strings.Count(out, "\n") != 2 {
		t.Errorf("lookup Oslo right after create: exit %d, %q %q", code, out, stderr)
	}
	before, _, _ := run(t, "", "--db", db, "stats", "--output", "json")
	if _, stderr, code := run(t, "", "--db", db, "--quiet", "index", "create", "--table", "t", "--name", "up", "--fields", "pop", "--unique"); code != 1 || !strings.Contains(stderr, "index up not created") || !strings.Contains(stderr, "unique index violation") {
		t.Errorf("a unique index over repeated values: exit %d, %q", code, stderr)
	}
	if after, _, _ := run(t, "", "--db", db, "stats", "--output", "json"); after != before {
		t.Errorf("a failed create changed the file:\n%s\n%s", before, after)
	}
	if _, stderr, code := run(t, "", "--db", db, "table", "set", "--table", "t", "3", "pop=5"); code != 0 {
		t.Errorf("a write after the failed create: %s", stderr)
	}
	// An unfinished build: the mark a create leaves until its build ends.
	markUnbuilt(t, db, "t", "bc")
	if _, stderr, code := lookup("bc", "Oslo"); code != 1 || !strings.Contains(stderr, "index bc on table t is not fully built: keyspace index build --table t --name bc finishes it") {
		t.Errorf("lookup of an unbuilt index: exit %d, %q", code, stderr)
	}
	if out, _, code := run(t, "", "--db", db, "verify"); code != 1 || !strings.Contains(out, "table t index bc: 1 problem\n") || !strings.Contains(out, "not fully built") {
		t.Errorf("verify of an unbuilt index: exit %d, %q", code, out)
	}
	if _, stderr, code := run(t, "", "--db", db, "--quiet", "index", "build", "--table", "t", "--name", "bc"); code != 0 {
		t.Fatal(stderr)
	}
	if out, stderr, code := lookup("bc", "Oslo"); code != 0 || strings.Count(out, "\n") != 2 {
		t.Errorf("lookup Oslo after build: exit %d, %q %q", code, out, stderr)
	}
	if out, stderr, code := run(t, "", "--db", db, "verify"); code != 0 {
		t.Errorf("verify after build: exit %d, %q %q", code, out, stderr)
	}
}

// TestTableScanWhere: table scan --where keeps the rows whose fields
// hold every condition, page by page, under a key query or none, as a
// filter of the imported rows says.
func TestTableScanWhere(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	r := rand.New(rand.NewPCG(21, 22))
	type row struct {
		state, id, status string
		qty               int
	}
	var rows []row
	var csv strings.Builder
	csv.WriteString("state,id,status,qty\n")
	for i := range 60 {
		w := row{[]string{"CA", "NY"}[r.IntN(2)], fmt.Sprint(i), []string{"open", "shipped"}[r.IntN(2)], r.IntN(10)}
		rows = append(rows, w)
		fmt.Fprintf(&csv, "%s,%s,%s,%d\n", w.state, w.id, w.status, w.qty)
	}
	if _, stderr, code := run(t, csv.String(), "--db", db, "--quiet", "table", "import", "--table", "o", "--key-cols", "state,id", "-"); code != 0 {
		t.Fatal(stderr)
	}
	for _, tc := range []struct {
		query string
		where []string
		keep  func(row) bool
	}{
		{"*", []string{"qty>=5"}, func(w row) bool { return w.qty >= 5 }},
		{"CA:*", []string{"status=open", "qty<3"}, func(w row) bool { return w.state == "CA" && w.status == "open" && w.qty < 3 }},
		{"NY:*", []string{"qty!=4"}, func(w row) bool { return w.state == "NY" && w.qty != 4 }},
		{"*", []string{"nothing=here"}, func(row) bool { return false }},
	} {
		var want []string
		for _, w := range rows {
			if tc.keep(w) {
				want = append(want, w.state+":"+w.id)
			}
		}
		var got []string
		for cursor, pages := "", 0; pages < 100; pages++ {
			args := []string{"--db", db, "--output", "json", "table", "scan", "--table", "o", "--limit", "4", "--cursor", cursor, tc.query}
			for _, w := range tc.where {
				args = append(args, "--where", w)
			}
			out, stderr, code := run(t, "", args...)
			var page struct {
				Rows []struct{ Key string }
				Next string
			}
			if err := json.Unmarshal([]byte(out), &page); code != 0 || err != nil {
				t.Fatalf("%v: exit %d, %v: %s", args, code, err, stderr)
			}
			for _, x := range page.Rows {
				got = append(got, x.Key)
			}
			if cursor = page.Next; cursor == "" {
				break
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("scan %s --where %v: %v, want %v", tc.query, tc.where, got, want)
		}
	}
}
