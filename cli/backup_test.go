package cli_test

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/storetest"
)

// contentsOf opens the file at path read-only and returns its pairs.
func contentsOf(t *testing.T, path string) storetest.Model {
	t.Helper()
	s, err := keyspace.Open(path, &keyspace.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	defer s.Close()
	return storetest.Contents(t, s)
}

// TestBackup: a backup, of the pages or compacted, opens and holds
// exactly the database's pairs; after a drop the compacted one is the
// smaller. A --to that exists, names the database or cannot be written
// is an error that leaves no file behind and the existing one as it was.
func TestBackup(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	var csvText strings.Builder
	csvText.WriteString("id,lat,lon,note\n")
	for i := range 3000 {
		fmt.Fprintf(&csvText, "p%s%d,%v,%v,%s\n", strings.Repeat("x", i%7), i, -60+float64(i%120), -170+float64(i%340), strings.Repeat("n", i%50))
	}
	for _, index := range []string{"keep", "gone"} {
		if _, stderr, code := run(t, csvText.String(), "--db", db, "--quiet", "geo", "import", "--index", index, "-"); code != 0 {
			t.Fatalf("import: %s", stderr)
		}
	}
	if _, stderr, code := run(t, "", "--db", db, "geo", "drop", "--index", "gone"); code != 0 {
		t.Fatalf("drop: %s", stderr)
	}
	want := contentsOf(t, db)
	pages, compact := filepath.Join(dir, "pages.db"), filepath.Join(dir, "compact.db")
	for _, args := range [][]string{{"--to", pages}, {"--to", compact, "--compact"}} {
		out, stderr, code := run(t, "", append([]string{"--db", db, "backup"}, args...)...)
		if code != 0 || !strings.HasPrefix(out, "backed up ") {
			t.Fatalf("backup %v: exit %d\n%s%s", args, code, out, stderr)
		}
		if got := contentsOf(t, args[1]); !maps.Equal(got, want) {
			t.Errorf("backup %v holds %d pairs, the database %d", args, len(got), len(want))
		}
	}
	if !strings.Contains(mustRun(t, "--db", compact, "verify"), "0 problems") {
		t.Error("verify of the compacted backup")
	}
	pi, _ := os.Stat(pages)
	ci, _ := os.Stat(compact)
	if di, _ := os.Stat(db); pi.Mode() != di.Mode() || ci.Mode() != di.Mode() {
		t.Errorf("modes %v and %v, the database's %v", pi.Mode(), ci.Mode(), di.Mode())
	}
	if ci.Size() >= pi.Size() {
		t.Errorf("after a drop the compacted backup is %d bytes, the copy of the pages %d", ci.Size(), pi.Size())
	}
	before, _ := os.ReadFile(pages)
	for _, tc := range []struct {
		to   string
		code int
		want string
	}{
		{pages, 1, "exists"},
		{db, 2, "is the database itself"},
		{filepath.Join(dir, "no", "such", "dir.db"), 1, "cannot create a file in " + filepath.Join(dir, "no", "such") + ": no such file or directory"},
	} {
		_, stderr, code := run(t, "", "--db", db, "backup", "--to", tc.to)
		if code != tc.code || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "partial") {
			t.Errorf("backup --to %s: exit %d, %q; want %d and %q", tc.to, code, stderr, tc.code, tc.want)
		}
	}
	if after, _ := os.ReadFile(pages); string(after) != string(before) {
		t.Error("a refused backup changed the file at --to")
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), "partial") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// mustRun runs the binary and returns its stdout, failing the test on a
// non-zero exit.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, stderr, code := run(t, "", args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	return out
}
