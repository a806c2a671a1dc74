package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/keyspacedb/keyspace"
)

// TestComplete: Tab completes commands under the words before, a leaf
// command's flags, and after a flag that names a structure the names
// given for it.
func TestComplete(t *testing.T) {
	commands := newApp(nil, nil, nil).Commands
	names := func(flag string, words []string) []string {
		if flag == "name" && slices.Contains(words, "cities") { // the indexes of --table cities
			return []string{"by_state", "by_name"}
		}
		return map[string][]string{"index": {"quakes", "cities"}, "table": {"cities"}, "fences": {"zones"}}[flag]
	}
	for _, c := range []struct {
		line string
		want []string
	}{
		{"geo ne", []string{"geo near "}},
		{"g", []string{"geo "}},
		{"", nil}, // filled below: every top command
		{"geo near --ra", []string{"geo near --radius "}},
		{"geo near -i cities --sc", []string{"geo near -i cities --scope "}},
		{"table sc", []string{"table scan "}},
		{"ex", []string{"exit "}},
		{"geo ex", []string{"geo expire ", "geo explain "}[:1]},
		{"nope ", nil},
		{"geo near --index q", []string{"geo near --index quakes "}},
		{"geo near -i ", []string{"geo near -i cities ", "geo near -i quakes "}},
		{"geo near --radius 1km -i c", []string{"geo near --radius 1km -i cities "}},
		{"table scan --table ", []string{"table scan --table cities "}},
		{"fence containing -f z", []string{"fence containing -f zones "}},
		{"fence containing --index q", []string{"fence containing --index quakes "}},
		{"log latest --log ", nil},   // none given
		{"geo near --scope ", nil},   // not a name the file lists
		{"index scan --name c", nil}, // no table: no index to offer
		{"index scan --table cities --name by_s", []string{"index scan --table cities --name by_state "}},
		{"index lookup -t cities --name ", []string{"index lookup -t cities --name by_name ", "index lookup -t cities --name by_state "}},
		{"geo near --index quakes --r", []string{"geo near --index quakes --radius "}},
		{"geo near --desc --ra", []string{"geo near --desc --radius "}},
		{"geo near -o j", []string{"geo near -o json "}},
		{"geo near --output c", []string{"geo near --output count ", "geo near --output csv "}},
		{"table import --format nd", []string{"table import --format ndjson "}},
		{"bench --dataset c", []string{"bench --dataset cities ", "bench --dataset clustered "}},
	} {
		got := complete(commands, c.line, names)
		if c.line == "" {
			if len(got) < 10 || !slices.Contains(got, "geo ") || !slices.Contains(got, "exit ") {
				t.Errorf("complete(%q) = %q", c.line, got)
			}
			continue
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("complete(%q) = %q, want %q", c.line, got, c.want)
		}
	}
}

// TestCompleteFromFile: the names Tab offers after --index, --table,
// --fences, --log and --series are those the file holds; none, at once,
// while a writer holds the file.
func TestCompleteFromFile(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "names.db")
	rows := filepath.Join(dir, "rows.csv")
	if err := os.WriteFile(rows, []byte("id,lat,lon\n1,59.9,10.7\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"geo", "import", "--index", "quakes", rows},
		{"geo", "import", "--index", "cities", rows},
		{"table", "import", "--table", "towns", "--key-cols", "id", rows},
		{"table", "import", "--table", "towns2", "--key-cols", "id", rows},
		{"index", "create", "--table", "towns", "--name", "by_lat", "--fields", "lat"},
		{"index", "create", "--table", "towns", "--name", "by_lon", "--fields", "lon"},
		{"index", "create", "--table", "towns2", "--name", "other", "--fields", "lat"},
		{"fence", "put", "--fences", "zones", "--lat", "1", "--lon", "2", "--radius", "1km", "z"},
		{"log", "append", "--log", "inbox", "--parent", "ann", "hi"},
		{"series", "add", "--series", "temps", "--sensor", "s1", "21.5"},
	} {
		var out, errb bytes.Buffer
		if code := Run(append([]string{"keyspace", "--db", db, "-q"}, args...), strings.NewReader(""), &out, &errb); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
	}
	names := fileNames(db)
	for flag, want := range map[string][]string{
		"index": {"cities", "quakes"}, "table": {"towns", "towns2"}, "fences": {"zones"}, "log": {"inbox"}, "series": {"temps"},
	} {
		if got := names(flag, []string{"geo", "near"}); !slices.Equal(got, want) {
			t.Errorf("names(%q) = %q, want %q", flag, got, want)
		}
	}
	// An index's --name: the indexes of the line's --table.
	for _, c := range []struct {
		words []string
		want  []string
	}{
		{[]string{"index", "lookup", "--table", "towns", "--name"}, []string{"by_lat", "by_lon"}},
		{[]string{"index", "scan", "--name", "x", "-t", "towns2", "--name"}, []string{"other"}},
		{[]string{"index", "scan", "--table=towns", "--name"}, []string{"by_lat", "by_lon"}},
		{[]string{"index", "scan", "--name"}, nil},
		{[]string{"index", "scan", "--table", "town", "--name"}, nil},
	} {
		if got := names("name", c.words); !slices.Equal(got, c.want) {
			t.Errorf("names(name) after %q = %q, want %q", c.words, got, c.want)
		}
	}
	if got := fileNames(filepath.Join(dir, "missing.db"))("index", nil); got != nil {
		t.Errorf("a missing file offered %q", got)
	}
	writer, err := keyspace.Open(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	if got := names("index", nil); got != nil {
		t.Errorf("a file a writer holds offered %q", got)
	}
}
