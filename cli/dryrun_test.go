package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDryRun: every import with --dry-run says what it would import,
// exactly what the same import then says it imported, and leaves the
// file byte for byte as it was (or, where there was none, none); a bad
// row fails it as it fails the import; and inside one transaction
// (shell --atomic) it is a usage error.
func TestDryRun(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"points.csv":   "id,lat,lon,city\na,52.5,13.4,Berlin\nb,48.1,11.5,Munich\nc,91,0,nowhere\n",
		"rows.json":    `[{"id":1,"city":"Oslo"},{"id":2,"city":"Rome"}]`,
		"readings.csv": "sensor,time,value\ns1,2026-01-01T10:00:00Z,1\ns1,2026-01-01T10:00:30Z,2\n",
		"items.csv":    "user,time,text\nu1,2026-01-01T10:00:00Z,hi\nu2,2026-01-01T11:00:00Z,yo\n",
		"likes.csv":    "user,item\nu1,i1\nu2,i1\n",
		"stores.csv":   "id,lat,lon,radius\ns1,52.5,13.4,2km\n",
	}
	for name, body := range files {
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
	}
	imports := [][]string{
		{"geo", "import", "--index", "p", "--skip-bad", "points.csv"},
		{"table", "import", "--table", "t", "--key-cols", "id", "rows.json"},
		{"series", "import", "--series", "s", "readings.csv"},
		{"log", "import", "--log", "l", "--parent-col", "user", "--time-col", "time", "items.csv"},
		{"rel", "import", "--rel", "r", "--left-col", "user", "--right-col", "item", "likes.csv"},
		{"fence", "import", "--fences", "z", "stores.csv"},
	}
	withDir := func(args []string) []string {
		out := append([]string(nil), args...)
		out[len(out)-1] = filepath.Join(dir, out[len(out)-1])
		return out
	}
	db := filepath.Join(dir, "k.db")
	for i, args := range imports {
		before, _ := os.ReadFile(db) // nil before the first import: no file
		_, dryErr, code := run(t, "", append(append([]string{"--db", db}, withDir(args)...), "--dry-run")...)
		if code != 0 || !strings.HasPrefix(dryErr, "would import ") || !strings.Contains(dryErr, "; --dry-run: nothing written") {
			t.Fatalf("%v --dry-run: exit %d, %q", args, code, dryErr)
		}
		after, err := os.ReadFile(db)
		if i == 0 && !os.IsNotExist(err) || i > 0 && !bytes.Equal(before, after) {
			t.Fatalf("%v --dry-run changed the file (%v)", args, err)
		}
		_, realErr, code := run(t, "", append([]string{"--db", db}, withDir(args)...)...)
		said := strings.Replace(strings.Replace(dryErr, "would import ", "imported ", 1), "; --dry-run: nothing written", "", 1)
		if code != 0 || realErr != said {
			t.Errorf("%v: imported %q after a dry run said %q", args, realErr, dryErr)
		}
	}
	// A bad row fails a dry run as it fails the import.
	if _, stderr, code := run(t, "", "--db", db, "geo", "import", "--index", "q", "--dry-run", filepath.Join(dir, "points.csv")); code != 1 || !strings.Contains(stderr, "line 4: latitude 91") {
		t.Errorf("a bad row: exit %d, %q", code, stderr)
	}
	script := "geo import --index q --skip-bad --dry-run " + filepath.Join(dir, "points.csv") + "\n"
	if _, stderr, code := run(t, script, "--db", db, "shell", "--atomic"); code != 2 || !strings.Contains(stderr, "--dry-run inside one transaction") {
		t.Errorf("in shell --atomic: exit %d, %q", code, stderr)
	}
}
