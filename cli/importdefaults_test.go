package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportColumnDefaults: rel import reads the left and right columns
// rel scan writes, and log import the parent column log scan writes, with
// no column flags; a file without them names the flag and its columns.
// A time column that --time-col does not name, and a log's data column
// that --data-col does not, get a note that every row was stamped now or
// had its other fields for data; with the flags the round trip keeps
// every link's and item's time and data, compared with the first file's.
func TestImportColumnDefaults(t *testing.T) {
	dir := t.TempDir()
	from, to := filepath.Join(dir, "from.db"), filepath.Join(dir, "to.db")
	runOK(t, "", "--db", from, "rel", "link", "--rel", "likes", "--time", "2026-01-02T03:04:05Z", "u1", "i1")
	runOK(t, "", "--db", from, "rel", "link", "--rel", "likes", "--time", "2026-02-02T03:04:05Z", "u2", "i1")
	runOK(t, "", "--db", from, "log", "append", "--log", "inbox", "-p", "alice", "--time", "2026-01-02T03:04:05Z", "hello")
	runOK(t, "", "--db", from, "log", "append", "--log", "inbox", "-p", "bob", "--time", "2026-01-03T03:04:05Z", "hi")
	links := runOK(t, "", "--db", from, "-o", "ndjson", "rel", "scan", "--rel", "likes")
	items := runOK(t, "", "--db", from, "-o", "ndjson", "log", "scan", "--log", "inbox")

	_, stderr, code := run(t, links, "--db", to, "rel", "import", "--rel", "now", "--format", "ndjson", "-")
	if code != 0 || !strings.Contains(stderr, "imported 2 links into relation now; every link stamped now, not at the rows' time column (--time-col time reads it)") {
		t.Errorf("rel import with no column flags: exit %d, %q", code, stderr)
	}
	_, stderr, code = run(t, items, "--db", to, "log", "import", "--log", "now", "--format", "ndjson", "-")
	if code != 0 || !strings.Contains(stderr, "imported 2 items into log now under 2 parents; every item stamped now") || !strings.Contains(stderr, "--data-col data reads it") {
		t.Errorf("log import with no column flags: exit %d, %q", code, stderr)
	}

	_, stderr, code = run(t, links, "--db", to, "rel", "import", "--rel", "likes", "--time-col", "time", "--format", "ndjson", "-")
	if code != 0 || strings.Contains(stderr, "stamped now") {
		t.Errorf("rel import --time-col time: exit %d, %q", code, stderr)
	}
	if got := runOK(t, "", "--db", to, "-o", "ndjson", "rel", "scan", "--rel", "likes"); got != links {
		t.Errorf("rel scan after the round trip:\n%s\nwant\n%s", got, links)
	}
	_, stderr, code = run(t, items, "--db", to, "log", "import", "--log", "inbox", "--time-col", "time", "--data-col", "data", "--format", "ndjson", "-")
	if code != 0 || strings.Contains(stderr, "note") || strings.Contains(stderr, "stamped now") {
		t.Errorf("log import --time-col time --data-col data: exit %d, %q", code, stderr)
	}
	if got := runOK(t, "", "--db", to, "-o", "ndjson", "log", "scan", "--log", "inbox"); got != items {
		t.Errorf("log scan after the round trip:\n%s\nwant\n%s", got, items)
	}

	for _, c := range []struct {
		args  []string
		stdin string
		code  int
		want  string
	}{
		{[]string{"rel", "import", "--rel", "x", "--format", "csv", "-"}, "user,item\nu,i\n", 1, "no row has a left column (choose one with --left-col; nothing imported); the columns are user, item"},
		{[]string{"log", "import", "--log", "x", "--format", "csv", "-"}, "user,text\nu,hi\n", 1, "no row has a parent column (choose one with --parent-col; nothing imported)"},
		{[]string{"log", "import", "--log", "x", "--parent", "p", "--parent-col", "user", "--format", "csv", "-"}, "user,text\nu,hi\n", 2, "takes --parent-col (each row's parent) or --parent (one parent for every row), not both"},
	} {
		_, stderr, code := run(t, c.stdin, append([]string{"--db", to}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
	// --parent alone needs no parent column.
	runOK(t, "user,text\nu,hi\n", "--db", to, "log", "import", "--log", "one", "--parent", "p", "--format", "csv", "-")
	var page struct{ Items []struct{ Data string } }
	if err := json.Unmarshal([]byte(runOK(t, "", "--db", to, "-o", "json", "log", "latest", "--log", "one", "-p", "p")), &page); err != nil || len(page.Items) != 1 || page.Items[0].Data != `{"text":"hi","user":"u"}` {
		t.Errorf("log import --parent: %+v, %v", page, err)
	}
}

// TestImportIDColumnAnyCase: geo import and fence import find their
// default id column in any case, as they find lat and lon (ID,
// Latitude, Longitude, as many exports write them), and leave it out of
// the payload; a --id-col given is taken as written.
func TestImportIDColumnAnyCase(t *testing.T) {
	db := filepath.Join(t.TempDir(), "case.db")
	rows := "ID,Latitude,Longitude,Radius,Name\na,1,2,500,x\nb,3,4,600,y\n"
	runOK(t, rows, "--db", db, "-q", "geo", "import", "--index", "g", "--format", "csv", "-")
	var got struct {
		Results []struct {
			ID       string
			Lat, Lon float64
			Payload  map[string]any
		}
	}
	if err := json.Unmarshal([]byte(runOK(t, "", "--db", db, "-o", "json", "geo", "get", "--index", "g", "a", "b")), &got); err != nil || len(got.Results) != 2 {
		t.Fatalf("geo get a b: %+v, %v", got, err)
	}
	for i, want := range []struct {
		id, name string
		lat, lon float64
	}{{"a", "x", 1, 2}, {"b", "y", 3, 4}} {
		p := got.Results[i]
		if _, hasID := p.Payload["ID"]; p.ID != want.id || p.Lat != want.lat || p.Lon != want.lon || p.Payload["Name"] != want.name || hasID {
			t.Errorf("point %d: %+v; want %+v, with no ID in the payload", i, p, want)
		}
	}
	runOK(t, rows, "--db", db, "-q", "fence", "import", "--fences", "f", "--radius-col", "Radius", "--format", "csv", "-")
	if out := runOK(t, "", "--db", db, "fence", "containing", "--fences", "f", "--lat", "1", "--lon", "2"); !strings.Contains(out, "a\n") {
		t.Errorf("fence containing 1,2: %q; want fence a", out)
	}
	if _, stderr, code := run(t, rows, "--db", db, "geo", "import", "--index", "h", "--id-col", "id", "--format", "csv", "-"); code != 1 || !strings.Contains(stderr, `no id column "id" in the header`) {
		t.Errorf("--id-col id on a header of ID: exit %d, %q", code, stderr)
	}
}

// TestImportDecimalComma: a coordinate written with a decimal comma, as
// a spreadsheet in such a locale saves it (separated by semicolons), is
// a bad row that says how to write it, and nothing is imported.
func TestImportDecimalComma(t *testing.T) {
	db := filepath.Join(t.TempDir(), "comma.db")
	_, stderr, code := run(t, "id;lat;lon\na;52,52;13,41\n", "--db", db, "geo", "import", "--index", "g", "--format", "csv", "-")
	if code != 1 || !strings.Contains(stderr, `line 2: latitude "52,52" is not a number: write a point for the decimal comma, 52.52 (nothing imported)`) {
		t.Errorf("exit %d, %q", code, stderr)
	}
	if _, stderr, code := run(t, "", "--db", db, "geo", "get", "--index", "g", "a"); code == 0 {
		t.Errorf("geo get a after the refused import: exit 0, %q", stderr)
	}
}
