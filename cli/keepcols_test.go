package cli_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestImportKeepsColumns: geo import --payload-cols and table import
// --record-cols keep only the columns named (a table's key columns
// always), each point's payload and each row's record what the test
// makes of the row it wrote; an export's payload object is narrowed the
// same way; a column no row has is refused, naming the nearest, and
// nothing is imported.
func TestImportKeepsColumns(t *testing.T) {
	db := filepath.Join(t.TempDir(), "keep.db")
	var csv strings.Builder
	csv.WriteString("id,lat,lon,name,pop,note\n")
	want := map[string]map[string]any{}
	for i := range 30 {
		fmt.Fprintf(&csv, "p%d,%g,%g,n%d,%d,x%d\n", i, 59+float64(i)/100, 10.0, i, i*10, i)
		want[fmt.Sprint("p", i)] = map[string]any{"name": fmt.Sprint("n", i), "pop": fmt.Sprint(i * 10)}
	}
	runOK(t, csv.String(), "--db", db, "-q", "geo", "import", "--index", "p", "--payload-cols", "pop,name", "-")
	points := func(index string) map[string]map[string]any {
		got := map[string]map[string]any{}
		for _, line := range strings.Split(strings.TrimSpace(runOK(t, "", "--db", db, "-o", "ndjson", "geo", "scan", "--index", index)), "\n") {
			var p struct {
				ID      string
				Payload map[string]any
			}
			if err := json.Unmarshal([]byte(line), &p); err != nil {
				t.Fatal(err)
			}
			got[p.ID] = p.Payload
		}
		return got
	}
	if got := points("p"); !maps.EqualFunc(got, want, maps.Equal) {
		t.Errorf("geo import --payload-cols pop,name: %v, want %v", got, want)
	}
	// An export's payload object, narrowed to name.
	export := runOK(t, "", "--db", db, "-o", "ndjson", "geo", "scan", "--index", "p")
	runOK(t, export, "--db", db, "-q", "geo", "import", "--index", "q", "--format", "ndjson", "--payload-cols", "name", "-")
	for id := range want {
		want[id] = map[string]any{"name": want[id]["name"]}
	}
	if got := points("q"); !maps.EqualFunc(got, want, maps.Equal) {
		t.Errorf("an export imported with --payload-cols name: %v, want %v", got, want)
	}

	runOK(t, csv.String(), "--db", db, "-q", "table", "import", "--table", "t", "--key-cols", "id", "--record-cols", "note", "-")
	out := runOK(t, "", "--db", db, "-o", "ndjson", "table", "scan", "--table", "t")
	rows := 0
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r struct {
			Key    string
			Record map[string]any
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		i := strings.TrimPrefix(r.Key, "p")
		if want := map[string]any{"id": r.Key, "note": "x" + i}; !maps.Equal(r.Record, want) {
			t.Errorf("table import --record-cols note: row %s is %v, want %v", r.Key, r.Record, want)
		}
		rows++
	}
	if rows != 30 {
		t.Errorf("%d rows, want 30", rows)
	}

	before := runOK(t, "", "--db", db, "stats")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"geo", "import", "--index", "r", "--payload-cols", "name,popp"}, `no payload column "popp" (--payload-cols) in the header; did you mean "pop"?`},
		{[]string{"table", "import", "--table", "u", "--key-cols", "id", "--record-cols", "nmae"}, `no column "nmae" (--record-cols) in the header; did you mean "name"?`},
	} {
		_, stderr, code := run(t, csv.String(), slices.Concat([]string{"--db", db}, c.args, []string{"-"})...)
		if code != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want %q", c.args, code, stderr, c.want)
		}
	}
	if after := runOK(t, "", "--db", db, "stats"); after != before {
		t.Errorf("a refused import changed the file:\n%s\n%s", before, after)
	}
}
