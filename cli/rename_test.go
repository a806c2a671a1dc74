package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRename renames a geo index, a fence set, a log, a table (with an
// index), a relation and a series beside others
// whose names begin with theirs: each answers under its new name what it
// answered under the old (the same JSON, but for a page's cursor, which
// names its index), the old name is
// unknown, verify finds the file sound, and the others are untouched. A
// rename onto a name that holds something, or of a name that holds
// nothing, fails with exit 1 and leaves the file as it was; a rename
// without its new name is a usage error.
func TestRename(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "rename.db")
	points := filepath.Join(dir, "points.csv")
	var csv strings.Builder
	csv.WriteString("id,lat,lon,name\n")
	for i := range 200 {
		fmt.Fprintf(&csv, "p%d,%g,%g,n%d\n", i, float64(i%40)/10+59, float64(i/40)/10+10, i)
	}
	if err := os.WriteFile(points, []byte(csv.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"geo", "import", "--index", "fleet", points},
		{"geo", "import", "--index", "fleet2", "--ttl", "1h", points},
		{"fence", "put", "--fences", "zones", "--lat", "60", "--lon", "10.2", "--radius", "30km", "oslo"},
		{"fence", "put", "--fences", "zones", "--min-lat", "59", "--min-lon", "10", "--max-lat", "59.5", "--max-lon", "10.3", "south"},
		{"log", "append", "--log", "inbox", "--parent", "ann", "hi"},
		{"log", "append", "--log", "inbox", "--parent", "ann", "again"},
		{"table", "import", "--table", "places", "--key-cols", "name,id", points},
		{"table", "import", "--table", "places2", "--key-cols", "id", points},
		{"index", "create", "--table", "places", "--name", "by_lat", "--fields", "lat"},
		{"rel", "link", "--rel", "likes", "ann", "p1"},
		{"rel", "link", "--rel", "likes", "bob", "p1"},
		{"rel", "link", "--rel", "places", "ann", "p2"}, // a relation sharing the table's name
		{"series", "add", "--series", "temps", "--sensor", "s1", "21.5"},
		{"series", "add", "--series", "temps", "--sensor", "s1", "22.5"},
	} {
		runOK(t, "", slices.Concat([]string{"--db", db, "-q"}, args)...)
	}
	queries := func(index, fences, log, table, rel, series string) []string {
		var out []string
		for _, args := range [][]string{
			{"table", "scan", "--table", table, "n1*"},
			{"index", "lookup", "--table", table, "--name", "by_lat", "59.5"},
			{"rel", "list", "--rel", rel, "--right", "p1"},
			{"rel", "count", "--rel", rel, "--left", "ann"},
			{"series", "range", "--series", series, "--sensor", "s1"},
			{"geo", "near", "--index", index, "--lat", "60", "--lon", "10.2", "--radius", "20km"},
			{"geo", "knn", "--index", index, "--lat", "59.5", "--lon", "10.1", "-k", "7"},
			{"geo", "scan", "--index", index},
			{"fence", "containing", "--fences", fences, "--lat", "59.2", "--lon", "10.2"},
			{"fence", "list", "--fences", fences},
			{"log", "latest", "--log", log, "--parent", "ann"},
		} {
			// A page's cursor is tied to its query, the index's name
			// with it: the rest must be the same.
			lines := strings.Split(runOK(t, "", slices.Concat([]string{"--db", db, "-o", "json"}, args)...), "\n")
			out = append(out, strings.Join(slices.DeleteFunc(lines, func(l string) bool { return strings.Contains(l, `"next": `) }), "\n"))
		}
		return out
	}
	before := queries("fleet", "zones", "inbox", "places", "likes", "temps")
	neighbours := func() string {
		return runOK(t, "", "--db", db, "-o", "json", "geo", "scan", "--index", "fleet2") +
			runOK(t, "", "--db", db, "-o", "json", "table", "scan", "--table", "places2") +
			runOK(t, "", "--db", db, "-o", "json", "rel", "list", "--rel", "places", "--left", "ann")
	}
	neighbour := neighbours()
	for _, args := range [][]string{
		{"geo", "rename", "--index", "fleet", "vans"},
		{"fence", "rename", "--fences", "zones", "districts"},
		{"log", "rename", "--log", "inbox", "mail"},
		{"table", "rename", "--table", "places", "spots"},
		{"rel", "rename", "--rel", "likes", "fans"},
		{"series", "rename", "--series", "temps", "heat"},
	} {
		if out := runOK(t, "", slices.Concat([]string{"--db", db}, args)...); !strings.HasPrefix(out, "renamed ") {
			t.Errorf("%v printed %q", args, out)
		}
	}
	if after := queries("vans", "districts", "mail", "spots", "fans", "heat"); !slices.Equal(after, before) {
		t.Errorf("renamed, they answer\n%s\nwhere before they answered\n%s", strings.Join(after, "\n"), strings.Join(before, "\n"))
	}
	if got := neighbours(); got != neighbour {
		t.Error("a geo index or table whose name begins with a renamed one's, or the relation sharing the table's name, changed")
	}
	runOK(t, "", "--db", db, "verify")
	if _, stderr, code := run(t, "", "--db", db, "geo", "near", "--index", "fleet", "--lat", "60", "--lon", "10", "--radius", "1km"); code != 1 || !strings.Contains(stderr, `unknown geo index "fleet"`) {
		t.Errorf("the old name after the rename: exit %d, %q", code, stderr)
	}
	file, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"geo", "rename", "--index", "vans", "fleet2"}, 1, `geo index "fleet2" holds something already: drop it first, or choose another name (nothing renamed)`},
		{[]string{"geo", "rename", "--index", "van", "cars"}, 1, `unknown geo index "van": it holds no points (see keyspace stats); did you mean "vans"?`},
		{[]string{"log", "rename", "--log", "mail", "mail"}, 1, `log "mail" holds something already`},
		{[]string{"fence", "rename", "--fences", "districts"}, 2, "fence rename wants one NAME, the new one"},
		{[]string{"table", "rename", "--table", "spots", "places2"}, 1, `table "places2" holds something already`},
		{[]string{"rel", "rename", "--rel", "fans", "places"}, 1, `relation "places" holds something already`},
		{[]string{"series", "rename", "--series", "heat", "heat"}, 1, `series "heat" holds something already`},
		{[]string{"table", "rename", "--table", "places", "x"}, 1, `unknown table "places"`},
	} {
		_, stderr, code := run(t, "", slices.Concat([]string{"--db", db}, tc.args)...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
		if after, _ := os.ReadFile(db); !slices.Equal(after, file) {
			t.Errorf("%v changed the file", tc.args)
		}
	}
}
