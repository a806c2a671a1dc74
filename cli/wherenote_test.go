package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestWhereMissingFieldNoted: a --where whose field no row has keeps
// nothing, and table scan, count and del say which field no row read had,
// with the field most like it; a field some row has, matched by none,
// and a scan that keeps rows get no note; nothing is deleted.
func TestWhereMissingFieldNoted(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	rows := `{"id":1,"status":"open","driver":{"rating":4}}` + "\n" + `{"id":2,"status":"done"}` + "\n"
	runOK(t, rows, "--db", db, "table", "import", "--table", "o", "--key-cols", "id", "--format", "ndjson", "-")
	for _, c := range []struct {
		args []string
		note string // "" for none
	}{
		{[]string{"table", "scan", "--table", "o", "--where", "staus=open"}, `no row read has a field "staus" (did you mean "status"?)`},
		{[]string{"table", "scan", "--table", "o", "--where", "staus=open", "--where", "qty>1", "--where", "staus!=x"}, `no row read has the fields "staus" (did you mean "status"?), "qty"`},
		{[]string{"table", "count", "--table", "o", "--where", "staus=open"}, `no row read has a field "staus" (did you mean "status"?)`},
		{[]string{"table", "del", "--table", "o", "--where", "driver.ratin>3"}, `no row read has a field "driver.ratin" (did you mean "driver.rating"?)`},
		{[]string{"table", "scan", "--table", "o", "--where", "status=closed"}, ""},
		{[]string{"table", "scan", "--table", "o", "--where", "driver.rating>5"}, ""},
		{[]string{"table", "scan", "--table", "o", "--where", "qty!=3"}, ""}, // kept: no qty is not 3
		{[]string{"table", "count", "--table", "o", "--by", "staus"}, `no row read has a field "staus" (did you mean "status"?)`},
		{[]string{"table", "count", "--table", "o", "--by=-staus,id"}, `no row read has a field "staus" (did you mean "status"?)`},
		{[]string{"table", "count", "--table", "o", "--by", "status", "--of", "driver.ratin"}, `no row read has a field "driver.ratin" (did you mean "driver.rating"?)`},
		{[]string{"table", "count", "--table", "o", "--of", "idd"}, `no row read has a field "idd" (did you mean "id"?)`},
		{[]string{"table", "count", "--table", "o", "--by", "status", "--of", "driver.rating"}, ""},
		{[]string{"table", "count", "--table", "o", "--of", "status"}, ""}, // there, though no number
	} {
		_, stderr, code := run(t, "", append([]string{"--db", db}, c.args...)...)
		if got := noteOf(stderr); code != 0 || got != c.note {
			t.Errorf("%v: exit %d, note %q; want %q (stderr %q)", c.args, code, noteOf(stderr), c.note, stderr)
		}
	}
	if out := runOK(t, "", "--db", db, "-o", "count", "table", "scan", "--table", "o"); strings.TrimSpace(out) != "2" {
		t.Errorf("after the del that matched nothing: %s rows, want 2", out)
	}
}

// TestWhereMissingPayloadFieldNoted: the same for geo queries' --where
// on payloads, with --match's ids: a field no payload read has is named,
// with the field most like it (a nested one too); a query that keeps a
// point, or whose field some payload has, gets no note.
func TestWhereMissingPayloadFieldNoted(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	runOK(t, "", "--db", db, "geo", "put", "-i", "f", "--lat", "1", "--lon", "1", "--payload", `{"status":"free","driver":{"rating":4}}`, "car-1")
	runOK(t, "", "--db", db, "geo", "put", "-i", "f", "--lat", "1", "--lon", "1.001", "--payload", "plain text", "car-2")
	near := []string{"geo", "near", "-i", "f", "--lat", "1", "--lon", "1", "--radius", "10km"}
	for _, c := range []struct {
		args []string
		note string
	}{
		{append(near, "--where", "staus=free"), `no point read has a payload field "staus" (did you mean "status"?)`},
		{append(near, "--where", "driver.ratin>3", "--where", "qty<1"), `no point read has the payload fields "driver.ratin" (did you mean "driver.rating"?), "qty"`},
		{[]string{"geo", "knn", "-i", "f", "--lat", "1", "--lon", "1", "--k", "2", "--where", "staus=free"}, `no point read has a payload field "staus" (did you mean "status"?)`},
		{append(near, "--where", "status=busy"), ""},
		{append(near, "--where", "status=free"), ""},
		{append(near, "--where", "status=free", "--match", "car-2"), `no point read has a payload field "status"`},
	} {
		_, stderr, code := run(t, "", append([]string{"--db", db}, c.args...)...)
		if got := noteOf(stderr); code != 0 || got != c.note {
			t.Errorf("%v: exit %d, note %q; want %q (stderr %q)", c.args, code, noteOf(stderr), c.note, stderr)
		}
	}
}

// noteOf is the last note on stderr, "" for none.
func noteOf(stderr string) string {
	note := ""
	for _, line := range strings.Split(stderr, "\n") {
		if n, ok := strings.CutPrefix(line, "keyspace: note: "); ok {
			note = n
		}
	}
	return note
}
