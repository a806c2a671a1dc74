package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestImportIntoIndexedTable: rows imported into a table that already
// has indexes (over a number, an object, an array and a compound with a
// covered field) as NDJSON, JSON and --typed CSV, their numbers written
// 7.50, 1e2, -0 and 12345678901234567890, leave every index what a
// recomputation from the rows read back says (verify): the entries
// were computed from the numbers' text (json.Number) where a read gives
// float64s, and an object holding 1.50 was indexed as text verify found
// stale. A number past a float64's range is refused with its line, and
// nothing is imported.
func TestImportIntoIndexedTable(t *testing.T) {
	db := filepath.Join(t.TempDir(), "indexed.db")
	runOK(t, `{"id":1,"n":7,"o":{"a":1},"tags":[1,"x"],"city":"Oslo"}`+"\n", "--db", db, "-q", "table", "import", "--table", "t", "--key-cols", "id", "--format", "ndjson", "-")
	for _, args := range [][]string{
		{"--name", "n", "--fields", "n"},
		{"--name", "o", "--fields", "o"},
		{"--name", "tags", "--fields", "tags"},
		{"--name", "city_n", "--fields", "city,-n", "--cover", "n,o"},
	} {
		runOK(t, "", append([]string{"--db", db, "-q", "index", "create", "--table", "t"}, args...)...)
	}
	for _, imp := range []struct {
		format, rows string
		extra        []string
	}{
		{"ndjson", `{"id":2,"n":7.50,"o":{"a":1.50,"b":[2.0]},"tags":[1e2,-0],"city":"Oslo"}` + "\n" +
			`{"id":3,"n":12345678901234567890,"o":{"a":12345678901234567890},"tags":[7.50],"city":"Lima"}` + "\n", nil},
		{"json", `[{"id":4,"n":1e2,"o":{"a":[1.10]},"tags":[0.0],"city":"Oslo"},{"id":5,"n":-0,"city":"Lima"}]`, nil},
		{"csv", "id,n,city\n6,7.50,Oslo\n7,1e2,Lima\n8,-0.0,Oslo\n", []string{"--typed"}},
	} {
		args := append([]string{"--db", db, "-q", "table", "import", "--table", "t", "--key-cols", "id", "--format", imp.format}, imp.extra...)
		runOK(t, imp.rows, append(args, "-")...)
		if out, stderr, code := run(t, "", "--db", db, "verify"); code != 0 {
			t.Fatalf("verify after the %s import: exit %d\n%s%s", imp.format, code, out, stderr)
		}
	}
	before := runOK(t, "", "--db", db, "-o", "ndjson", "table", "scan", "--table", "t")
	_, stderr, code := run(t, `{"id":9,"n":1}`+"\n"+`{"id":10,"o":{"a":[1e999]}}`+"\n", "--db", db, "table", "import", "--table", "t", "--key-cols", "id", "--format", "ndjson", "-")
	if code == 0 || !strings.Contains(stderr, `line 2: field "o": 1e999 is past a float64's range`) || !strings.Contains(stderr, "nothing imported") {
		t.Errorf("a number past a float64's range: exit %d, %q", code, stderr)
	}
	if after := runOK(t, "", "--db", db, "-o", "ndjson", "table", "scan", "--table", "t"); after != before {
		t.Errorf("a refused import changed the table:\n%s\nwas\n%s", after, before)
	}
}
