package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestEmptyNamesRefused: a flag that names a table, index, log, relation,
// series or fence set, given as "" (a shell variable never set), is a
// usage error naming the flag, and writes nothing; drop takes it, for a
// file that holds such a thing.
func TestEmptyNamesRefused(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	runOK(t, "", "--db", db, "geo", "put", "-i", "f", "--lat", "1", "--lon", "2", "a")
	before := runOK(t, "", "--db", db, "-o", "json", "stats")
	for _, c := range []struct {
		flag string
		args []string
	}{
		{"--index", []string{"geo", "put", "--index", "", "--lat", "1", "--lon", "1", "x"}},
		{"--store", []string{"geo", "near", "-i", "f", "--lat", "1", "--lon", "2", "--radius", "1km", "--store", ""}},
		{"--table", []string{"table", "import", "--table", "", "--key-cols", "id", "--format", "csv", "-"}},
		{"--name", []string{"index", "create", "--table", "t", "--name", "", "--fields", "a"}},
		{"--log", []string{"log", "append", "--log", "", "-p", "alice", "hi"}},
		{"--rel", []string{"rel", "link", "--rel", "", "u1", "i1"}},
		{"--series", []string{"series", "add", "--series", "", "--sensor", "s1", "1"}},
		{"--fences", []string{"fence", "put", "--fences", "", "--lat", "1", "--lon", "1", "--radius", "1km", "z"}},
		{"--index", []string{"geo", "sweep", "--index", ""}},
	} {
		args := append([]string{"--db", db}, c.args...)
		_, stderr, code := run(t, "id\n1\n", args...)
		if code != 2 || !strings.Contains(stderr, c.flag+" is empty") {
			t.Errorf("keyspace %s: exit %d, stderr %q; want a usage error naming %s", strings.Join(c.args, " "), code, stderr, c.flag)
		}
	}
	if after := runOK(t, "", "--db", db, "-o", "json", "stats"); after != before {
		t.Errorf("the refused commands wrote: stats went from %s to %s", before, after)
	}
	if _, stderr, code := run(t, "", "--db", db, "log", "drop", "--log", ""); code == 2 || strings.Contains(stderr, "is empty") {
		t.Errorf("log drop --log \"\": exit %d, %s; want the name taken (and no such log found)", code, stderr)
	}
}
