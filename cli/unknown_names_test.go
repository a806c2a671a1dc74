package cli_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestUnknownNamesSuggest misspells each kind of name a command reads (a
// geo index, a table, an index on it, a fence set, a series) and expects exit 1,
// nothing on stdout and an error naming it, with the name in the file
// most like it when one is near, and none for a name like none of them.
func TestUnknownNamesSuggest(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "names.db")
	rows := filepath.Join(dir, "cities.csv")
	if err := os.WriteFile(rows, []byte("id,lat,lon,tz\n1,59.9,10.7,Europe/Oslo\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"geo", "import", "--index", "quakes", rows},
		{"geo", "import", "--index", "towns", rows},
		{"table", "import", "--table", "cities", "--key-cols", "id", rows},
		{"index", "create", "--table", "cities", "--name", "by_tz", "--fields", "tz"},
		{"fence", "put", "--fences", "zones", "--lat", "1", "--lon", "2", "--radius", "1km", "z"},
		{"series", "add", "--series", "temps", "--sensor", "s1", "21.5"},
	} {
		runOK(t, "", slices.Concat([]string{"--db", db, "-q"}, args)...)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"geo", "near", "-i", "quakez", "--lat", "1", "--lon", "2", "--radius", "1km"}, `unknown geo index "quakez": it holds no points (see keyspace stats); did you mean "quakes"?`},
		{[]string{"geo", "near", "-i", "town", "--lat", "1", "--lon", "2", "--radius", "1km"}, `unknown geo index "town": it holds no points (see keyspace stats); did you mean "towns"?`},
		{[]string{"geo", "near", "-i", "fleet", "--lat", "1", "--lon", "2", "--radius", "1km"}, `unknown geo index "fleet": it holds no points (see keyspace stats)`},
		{[]string{"table", "scan", "-t", "citys"}, `unknown table "citys" (import it first; see keyspace stats); did you mean "cities"?`},
		{[]string{"table", "scan", "-t", "orders"}, `unknown table "orders" (import it first; see keyspace stats)`},
		{[]string{"index", "lookup", "-t", "cities", "--name", "by_zt", "x"}, `unknown index "by_zt" on table cities (see keyspace index create); did you mean "by_tz"?`},
		{[]string{"index", "lookup", "-t", "cities", "--name", "status", "x"}, `unknown index "status" on table cities (see keyspace index create)`},
		{[]string{"fence", "containing", "-f", "zone", "--lat", "1", "--lon", "2"}, `unknown fence set "zone": it holds no fences (see keyspace stats); did you mean "zones"?`},
		{[]string{"series", "range", "--series", "temp", "--sensor", "s1"}, `unknown series "temp": it has no readings (see keyspace stats); did you mean "temps"?`},
		// A table shares the series' layout, but is no series.
		{[]string{"series", "range", "--series", "citie", "--sensor", "s1"}, `unknown series "citie": it has no readings (see keyspace stats)`},
	} {
		args := slices.Concat([]string{"--db", db}, tc.args)
		out, stderr, code := run(t, "", args...)
		if code != 1 || out != "" || stderr != "keyspace: "+tc.want+"\n" {
			t.Errorf("keyspace %s: exit %d, printed %q, stderr %q; want exit 1 and %q", strings.Join(args, " "), code, out, stderr, tc.want)
		}
	}
}
