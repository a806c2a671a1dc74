package cli_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
)

// TestImportsRefuseWhatWouldOverwrite: an import into a table keyed
// otherwise, text in a table's integer key, or a file that names an id or
// key twice is refused with the line and the reason, and the table is as
// it was; a re-import under the same key updates in place.
func TestImportsRefuseWhatWouldOverwrite(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	scan := func() string {
		out, stderr, code := run(t, "", "--db", db, "table", "scan", "--table", "t", "--output", "json")
		if code != 0 {
			t.Fatalf("scan: %s", stderr)
		}
		return out
	}
	if _, stderr, code := run(t, "id,city\n1,Oslo\n2,Rome\n", "--db", db, "table", "import", "--table", "t", "--key-cols", "id", "-"); code != 0 {
		t.Fatal(stderr)
	}
	before := scan()
	for _, tc := range []struct {
		csv, keyCols, want string
	}{
		{"id,city\n3,Lima\n", "city", "table t is keyed id, not city"},
		{"id,city\nx,Lima\n", "id", `line 2: key column "id" is "x", not an integer`},
		{"id,city\n3,Lima\n3,Quito\n", "id", "line 3: key 3 repeats line 2"},
		{"id,city,city\n3,Lima,Quito\n", "id", `line 1: columns 2 and 3 of the header are both named "city"`},
	} {
		_, stderr, code := run(t, tc.csv, "--db", db, "table", "import", "--table", "t", "--key-cols", tc.keyCols, "-")
		if code != 1 || !strings.Contains(stderr, tc.want) {
			t.Errorf("import of %q keyed %s: exit %d, %q; want exit 1 saying %q", tc.csv, tc.keyCols, code, stderr, tc.want)
		}
		if after := scan(); after != before {
			t.Errorf("a refused import changed the table: %s", after)
		}
	}
	if _, stderr, code := run(t, "id,lat,lon\na,1,2\nb,3,4\na,5,6\n", "--db", db, "geo", "import", "--index", "p", "-"); code != 1 || !strings.Contains(stderr, `line 4: id "a" repeats line 2`) {
		t.Errorf("geo import of a repeated id: exit %d, %q", code, stderr)
	}
	// --skip-bad imports the good rows, keeps the first of a repeated key
	// and names the rest; an empty key says nothing of the column's kind.
	_, stderr, code := run(t, "id,city\n7,Oslo\n7,Rome\n,Quito\n8,Paris\n", "--db", db, "--quiet", "table", "import", "--table", "t2", "--key-cols", "id", "--skip-bad", "-")
	want := "imported 2 rows into table t2 keyed id; skipped 2 bad rows: line 3: key 7 repeats line 2; choose key columns that name each row once; line 4: empty key column \"id\"\n"
	if code != 0 || stderr != want {
		t.Errorf("--skip-bad: exit %d, %q; want %q", code, stderr, want)
	}
	if out, _, _ := run(t, "", "--db", db, "table", "scan", "--table", "t2"); !strings.Contains(out, "7    {\"city\":\"Oslo\"") || strings.Contains(out, "Rome") {
		t.Errorf("after --skip-bad the table holds:\n%s", out)
	}
	if _, stderr, code := run(t, "id,city\n2,Roma\n3,Lima\n", "--db", db, "table", "import", "--table", "t", "--key-cols", "id", "-"); code != 0 {
		t.Fatalf("a re-import under the same key: %s", stderr)
	}
	if got := scan(); !strings.Contains(got, `"city": "Roma"`) || !strings.Contains(got, `"city": "Lima"`) || !strings.Contains(got, `"city": "Oslo"`) || strings.Contains(got, "Rome") {
		t.Errorf("after re-importing 2 and adding 3: %s", got)
	}
}

// TestIndexBuildSaysWhatItBuilt: build counts its records and entries, and
// an index whose fields no record has (a misspelt field) says so, naming
// the fields none of the first records has with the one most like each,
// and a
// partial index whose conditions no record with those fields meets says
// that, naming them.
func TestIndexBuildSaysWhatItBuilt(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	if _, stderr, code := run(t, "id,city,status\n1,Oslo,open\n2,Rome,shut\n3,,gone\n", "--db", db, "table", "import", "--table", "t", "--key-cols", "id", "-"); code != 0 {
		t.Fatal(stderr)
	}
	for _, tc := range []struct {
		name, fields string
		where        []string
		want         string
	}{
		{"by_city", "city", nil, "built index by_city over 3 records: 3 entries\n"},
		{"by_town", "town", nil, "built index by_town over 3 records: 0 entries; no record has a value for the index's fields (no record read has a field \"town\")\n"},
		{"by_cty", "-cty,status", nil, "built index by_cty over 3 records: 0 entries; no record has a value for the index's fields (no record read has a field \"cty\" (did you mean \"city\"?))\n"},
		{"open_city", "city", []string{"--where", "status=open"}, "built index open_city over 3 records: 1 entry\n"},
		{"lost_city", "city", []string{"--where", "city=Oslo", "--where-in", "status=gone,lost"},
			"built index lost_city over 3 records: 0 entries; no record both meets city=Oslo and status in gone,lost and has a value for the index's fields (check their names)\n"},
	} {
		create := append([]string{"--db", db, "index", "create", "--table", "t", "--name", tc.name, "--fields", tc.fields}, tc.where...)
		if _, stderr, code := run(t, "", create...); code != 0 {
			t.Fatal(stderr)
		}
		_, stderr, code := run(t, "", "--db", db, "--quiet", "index", "build", "--table", "t", "--name", tc.name)
		if code != 0 || stderr != tc.want {
			t.Errorf("build %s: exit %d, %q; want %q", tc.name, code, stderr, tc.want)
		}
	}
}

// TestRelLinkWantsJSONFields: fields that are not JSON are a usage error
// and link nothing.
func TestRelLinkWantsJSONFields(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	_, stderr, code := run(t, "", "--db", db, "rel", "link", "--rel", "likes", "--right-fields", "{title: mac}", "u1", "i1")
	if code != 2 || !strings.Contains(stderr, `--right-fields "{title: mac}" is not JSON`) {
		t.Errorf("exit %d, %q", code, stderr)
	}
	out, _, _ := run(t, "", "--db", db, "rel", "list", "--rel", "likes", "--left", "u1", "--output", "json")
	if strings.Contains(out, "i1") {
		t.Errorf("the refused link is there: %s", out)
	}
}

// TestVerifyChecksRelations: verify finds a relation's list entry deleted
// behind its back, names the relation, and exits 1.
func TestVerifyChecksRelations(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	for _, l := range [][2]string{{"u1", "i1"}, {"u1", "i2"}, {"u2", "i1"}} {
		if _, stderr, code := run(t, "", "--db", db, "rel", "link", "--rel", "likes", "--right-fields", `{"title":"x"}`, l[0], l[1]); code != 0 {
			t.Fatal(stderr)
		}
	}
	if out, stderr, code := run(t, "", "--db", db, "verify"); code != 0 || out != fmt.Sprintf("file %s: 15 keys read\nrelation likes: 0 problems\n", db) { // three keys a link, the two items' fields, and four counts
		t.Fatalf("verify of a sound relation: exit %d, %q, %q", code, out, stderr)
	}
	s, err := keyspace.Open(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = s.Update(func(tx keyspace.Tx) error {
		for k := range tx.Scan(composite.NewSubspace("x", "likes", "f").Range()) {
			return tx.Delete(bytes.Clone(k)) // the first of u1's list
		}
		return errors.New("no forward entries")
	})
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	out, stderr, code := run(t, "", "--db", db, "verify")
	if code != 1 || !strings.Contains(out, "\nrelation likes: 1 problem\n") || !strings.Contains(out, "missing forward entry [u1") || !strings.HasPrefix(stderr, "keyspace: 1 problem (") {
		t.Errorf("verify of a damaged relation: exit %d, %q, %q", code, out, stderr)
	}
	// rel repair puts the entry back, and verify is clean again.
	if out, stderr, code := run(t, "", "--db", db, "rel", "repair", "--rel", "likes"); code != 0 || !strings.HasSuffix(out, "relation likes: repaired 1 problem\n") {
		t.Errorf("rel repair: exit %d, %q, %q", code, out, stderr)
	}
	if out, stderr, code := run(t, "", "--db", db, "verify"); code != 0 || !strings.Contains(out, "relation likes: 0 problems") {
		t.Errorf("verify after rel repair: exit %d, %q, %q", code, out, stderr)
	}
}

// TestScopesAreText: a scope column of digits imports as text, --scope 7
// finds it (not the integer 7, which nothing was put under), 07 stays
// apart from 7, a two-part scope from geo put is found by --scope US:CA,
// and an export (GeoJSON or NDJSON) imported again keeps every scope,
// the two-part one as two parts.
func TestScopesAreText(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	csv := "id,lat,lon,tenant\na,1,2,7\nb,1.001,2,7\nc,1.002,2,07\n"
	if _, stderr, code := run(t, csv, "--db", db, "--quiet", "geo", "import", "--index", "p", "--scope-cols", "tenant", "-"); code != 0 {
		t.Fatal(stderr)
	}
	if _, stderr, code := run(t, "", "--db", db, "geo", "put", "--index", "p", "--lat", "1", "--lon", "2", "--scope", `US:CA`, "d"); code != 0 {
		t.Fatal(stderr)
	}
	if _, stderr, code := run(t, "", "--db", db, "geo", "put", "--index", "p", "--lat", "1", "--lon", "2", "u"); code != 0 { // no scope
		t.Fatal(stderr)
	}
	scan := func(index, scope string) string {
		t.Helper()
		out, stderr, code := run(t, "", "--db", db, "geo", "scan", "--index", index, "--scope", scope, "--output", "ndjson")
		if code != 0 {
			t.Fatalf("scan --scope %s: %s", scope, stderr)
		}
		var ids []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			if line != "" {
				ids = append(ids, strings.SplitN(strings.TrimPrefix(line, `{"id":"`), `"`, 2)[0])
			}
		}
		return strings.Join(ids, ",")
	}
	for scope, want := range map[string]string{"7": "a,b", "07": "c", "US:CA": "d", "US": "", `US\:CA`: ""} {
		if got := scan("p", scope); got != want {
			t.Errorf("scan --scope %s = %q, want %q", scope, got, want)
		}
	}
	export, stderr, code := run(t, "", "--db", db, "geo", "scan", "--index", "p", "--output", "geojson")
	if code != 0 {
		t.Fatal(stderr)
	}
	if _, stderr, code := run(t, export, "--db", db, "--quiet", "geo", "import", "--index", "q", "--format", "geojson", "--scope-cols", "scope", "-"); code != 0 {
		t.Fatal(stderr)
	}
	// NDJSON too. A scope of several parts is exported as an array of
	// them, which the import reads back as those parts.
	ndExport, stderr, code := run(t, "", "--db", db, "geo", "scan", "--index", "p", "--output", "ndjson")
	if code != 0 || !strings.Contains(ndExport, `"scope":["US","CA"]`) {
		t.Fatalf("NDJSON export: exit %d, %s %s", code, ndExport, stderr)
	}
	if _, stderr, code := run(t, ndExport, "--db", db, "--quiet", "geo", "import", "--index", "r", "--format", "ndjson", "--scope-cols", "scope", "-"); code != 0 {
		t.Fatal(stderr)
	}
	for _, index := range []string{"q", "r"} {
		for scope, want := range map[string]string{"7": "a,b", "07": "c", "US:CA": "d", "US": "", `US\:CA`: ""} {
			if got := scan(index, scope); got != want {
				t.Errorf("after export and import into %s, scan --scope %s = %q, want %q", index, scope, got, want)
			}
		}
		// The whole export is the same, the point without a scope
		// without one (not under a scope of one empty part).
		if again, _, _ := run(t, "", "--db", db, "geo", "scan", "--index", index, "--output", "ndjson"); again != ndExport {
			t.Errorf("%s exports as\n%s\nnot\n%s", index, again, ndExport)
		}
	}
}

// TestCountIsLimit: Redis users' --count is --limit: the nearest N.
func TestCountIsLimit(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	if _, stderr, code := run(t, "id,lat,lon\nfar,1.02,2\nnear,1.001,2\nmid,1.01,2\n", "--db", db, "--quiet", "geo", "import", "--index", "p", "-"); code != 0 {
		t.Fatal(stderr)
	}
	for _, flag := range []string{"--count", "--limit", "-n"} {
		out, stderr, code := run(t, "", "--db", db, "geo", "near", "--index", "p", "--lat", "1", "--lon", "2", "--radius", "5km", flag, "2", "--output", "json")
		if got := ids(decode(t, out)); code != 0 || strings.Join(got, ",") != "near,mid" {
			t.Errorf("near %s 2: exit %d, %v (%s); want near,mid", flag, code, got, stderr)
		}
	}
}

// TestGeoHashMatchesRedis: geo hash gives the strings of Redis's GEOHASH
// documentation for its Sicily example (sqc8b49rny0 and sqdtr74hyu0).
// Redis keeps 52 bits, so its 11th character carries two of them and is
// padded; keyspace's carries five, and the first ten must agree.
func TestGeoHashMatchesRedis(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	for _, p := range [][3]string{{"Palermo", "38.115556", "13.361389"}, {"Catania", "37.502669", "15.087269"}} {
		if _, stderr, code := run(t, "", "--db", db, "geo", "put", "--index", "Sicily", "--lat", p[1], "--lon", p[2], p[0]); code != 0 {
			t.Fatal(stderr)
		}
	}
	out, stderr, code := run(t, "", "--db", db, "geo", "hash", "--index", "Sicily", "Palermo", "Catania", "--output", "json")
	if code != 0 {
		t.Fatal(stderr)
	}
	var got []struct{ ID, Geohash string }
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err, out)
	}
	redis := map[string]string{"Palermo": "sqc8b49rny0", "Catania": "sqdtr74hyu0"}
	if len(got) != 2 {
		t.Fatalf("geo hash: %s", out)
	}
	for _, g := range got {
		if len(g.Geohash) != 11 || g.Geohash[:10] != redis[g.ID][:10] {
			t.Errorf("geo hash %s = %q, Redis's %q", g.ID, g.Geohash, redis[g.ID])
		}
	}
	// Where Redis cannot go: the poles and ±180°, whose hashes the
	// definition gives (the upper half of each halving holds its middle
	// line; 90 and 180 are in the top row and the last column). The north
	// pole's was "h0000000000", a cell at the south pole.
	edges := map[string][3]string{
		"north": {"90", "0", "upbpbpbpbpb"}, "south": {"-90", "-180", "00000000000"},
		"east": {"0", "180", "xbpbpbpbpbp"}, "west": {"0", "-180", "80000000000"}, "northeast": {"90", "180", "zzzzzzzzzzz"},
	}
	for id, e := range edges {
		runOK(t, "", "--db", db, "geo", "put", "--index", "edges", "--lat", e[0], "--lon", e[1], id)
		if out := runOK(t, "", "--db", db, "-o", "json", "geo", "hash", "--index", "edges", id); !strings.Contains(out, `"geohash": "`+e[2]+`"`) {
			t.Errorf("geo hash at %s, %s: %s, want %s", e[0], e[1], out, e[2])
		}
	}
}

// TestIndexRepair: an index damaged behind its table's back (an entry
// deleted, a stray one added) fails index verify, index repair fixes
// both and says so, and the index then verifies and looks up as its
// table implies.
func TestIndexRepair(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	rows := "id,city\n1,Oslo\n2,Lima\n3,Oslo\n"
	for _, args := range [][]string{
		{"table", "import", "--table", "c", "--key-cols", "id", "-"},
		{"index", "create", "--table", "c", "--name", "by_city", "--fields", "city"},
		{"index", "build", "--table", "c", "--name", "by_city"},
	} {
		if _, stderr, code := run(t, rows, append([]string{"--db", db}, args...)...); code != 0 {
			t.Fatalf("%v: %s", args, stderr)
		}
	}
	s, err := keyspace.Open(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	entries := composite.NewSubspace("x", "c", "i", "by_city")
	err = s.Update(func(tx keyspace.Tx) error {
		for k := range tx.Scan(entries.Range()) {
			if err := tx.Delete(bytes.Clone(k)); err != nil { // Lima's
				return err
			}
			return tx.Put(entries.Pack(composite.Tuple{"Rome", int64(9)}), []byte{1})
		}
		return errors.New("no index entries")
	})
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	if out, _, code := run(t, "", "--db", db, "index", "verify", "--table", "c", "--name", "by_city"); code != 1 || !strings.Contains(out, "missing entry [Lima]") || !strings.Contains(out, "stale entry [Rome]") {
		t.Errorf("verify of the damaged index: exit %d, %q", code, out)
	}
	if out, stderr, code := run(t, "", "--db", db, "index", "repair", "--table", "c", "--name", "by_city"); code != 0 || out != "index by_city: repaired 2 entries\n" {
		t.Errorf("repair: exit %d, %q, %q", code, out, stderr)
	}
	if out, _, code := run(t, "", "--db", db, "index", "verify", "--table", "c", "--name", "by_city"); code != 0 {
		t.Errorf("verify after repair: exit %d, %q", code, out)
	}
	for city, want := range map[string]int{"Oslo": 2, "Lima": 1, "Rome": 0} {
		out, _, _ := run(t, "", "--db", db, "--output", "json", "index", "lookup", "--table", "c", "--name", "by_city", city)
		var page struct{ Entries []json.RawMessage }
		json.Unmarshal([]byte(out), &page)
		if len(page.Entries) != want {
			t.Errorf("lookup %s after repair: %d records, want %d", city, len(page.Entries), want)
		}
	}
}

// TestLogRepair: a log's time entry deleted behind its back is found by
// verify (naming the log, exit 1), put back by log repair, and the day's
// listing, which reads the time index, finds the item again.
func TestLogRepair(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	for i, at := range []string{"2026-11-21T09:00:00Z", "2026-11-21T14:00:00Z", "2026-11-22T09:00:00Z"} {
		if _, stderr, code := run(t, "", "--db", db, "log", "append", "--log", "inbox", "--parent", "alice", "--time", at, fmt.Sprint("m", i)); code != 0 {
			t.Fatal(stderr)
		}
	}
	day := func() string {
		out, _, _ := run(t, "", "--db", db, "log", "count", "--log", "inbox", "--parent", "alice", "--date", "2026-11-21")
		return strings.TrimSpace(out)
	}
	s, err := keyspace.Open(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = s.Update(func(tx keyspace.Tx) error {
		for k := range tx.Scan(composite.NewSubspace("e", "inbox", "t").Range()) {
			return tx.Delete(bytes.Clone(k)) // the first item's
		}
		return errors.New("no time entries")
	})
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	if n := day(); n != "1" {
		t.Errorf("with its time entry gone, the 21st counts %s items, want 1", n)
	}
	if out, stderr, code := run(t, "", "--db", db, "verify"); code != 1 || !strings.Contains(out, "log inbox: 1 problem") || !strings.Contains(out, "missing time entry [alice") {
		t.Errorf("verify of a damaged log: exit %d, %q, %q", code, out, stderr)
	}
	if out, stderr, code := run(t, "", "--db", db, "log", "repair", "--log", "inbox"); code != 0 || !strings.HasSuffix(out, "log inbox: repaired 1 problem\n") {
		t.Errorf("log repair: exit %d, %q, %q", code, out, stderr)
	}
	if n := day(); n != "2" {
		t.Errorf("after repair, the 21st counts %s items, want 2", n)
	}
	if out, stderr, code := run(t, "", "--db", db, "verify"); code != 0 {
		t.Errorf("verify after repair: exit %d, %q, %q", code, out, stderr)
	}
}

// TestGeoRepair: a point's reverse entry deleted behind the index's back
// makes geo get fail and verify name the index; geo repair writes it
// again from the point's key, and get finds the point.
func TestGeoRepair(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	if _, stderr, code := run(t, "id,lat,lon\na,59.9,10.7\nb,89.95,20\n", "--db", db, "geo", "import", "--index", "p", "-"); code != 0 {
		t.Fatal(stderr)
	}
	s, err := keyspace.Open(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = s.Update(func(tx keyspace.Tx) error {
		return tx.Delete(composite.NewSubspace("g", "p", "i").Pack(composite.Tuple{"b"}))
	})
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	if _, _, code := run(t, "", "--db", db, "geo", "get", "--index", "p", "b"); code != 1 {
		t.Errorf("get of a point with no reverse entry: exit %d, want 1", code)
	}
	if out, _, code := run(t, "", "--db", db, "verify"); code != 1 || !strings.Contains(out, "geo index p: 1 problem") || !strings.Contains(out, `point "b" has no reverse entry`) {
		t.Errorf("verify: exit %d, %q", code, out)
	}
	if out, stderr, code := run(t, "", "--db", db, "geo", "repair", "--index", "p"); code != 0 || !strings.HasSuffix(out, "geo index p: repaired 1 problem\n") {
		t.Errorf("geo repair: exit %d, %q, %q", code, out, stderr)
	}
	out, stderr, code := run(t, "", "--db", db, "--output", "json", "geo", "get", "--index", "p", "b")
	if code != 0 || !strings.Contains(out, `"lat": 89.95`) {
		t.Errorf("get after repair: exit %d, %q, %q", code, out, stderr)
	}
}

// TestImportsNameAKeyTooLong: a row whose key, or whose value of an
// indexed column, would make a key longer than the store takes is named
// by its line, and changes nothing; --skip-bad imports the other rows.
func TestImportsNameAKeyTooLong(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	for _, args := range [][]string{
		{"table", "import", "--table", "t", "--key-cols", "id", "-"},
		{"index", "create", "--table", "t", "--name", "by_city", "--fields", "city"},
	} {
		if _, stderr, code := run(t, "id,city\na,Oslo\n", append([]string{"--db", db}, args...)...); code != 0 {
			t.Fatalf("%v: %s", args, stderr)
		}
	}
	long := strings.Repeat("z", keyspace.MaxKeySize)
	csv := "id,city\nb,Rome\n" + long + ",Lima\nc," + long + "\nd,Quito\n"
	before, _, _ := run(t, "", "--db", db, "table", "scan", "--table", "t", "--output", "json")
	_, stderr, code := run(t, csv, "--db", db, "table", "import", "--table", "t", "--key-cols", "id", "-")
	if code != 1 || !strings.Contains(stderr, `line 3: indextable: table t: primary key "[zzz`) || !strings.Contains(stderr, "key too large") {
		t.Errorf("a key too long: exit %d, %.300q", code, stderr)
	}
	if after, _, _ := run(t, "", "--db", db, "table", "scan", "--table", "t", "--output", "json"); after != before {
		t.Errorf("a refused import changed the table")
	}
	_, stderr, code = run(t, csv, "--db", db, "table", "import", "--table", "t", "--key-cols", "id", "--skip-bad", "-")
	if code != 0 || !strings.Contains(stderr, "imported 2 rows") || !strings.Contains(stderr, "line 3: indextable: table t: primary key") ||
		!strings.Contains(stderr, "line 4: indextable: table t index by_city: value \"[zzz") {
		t.Errorf("--skip-bad: exit %d, %.500q", code, stderr)
	}
	if out, stderr, code := run(t, "", "--db", db, "index", "lookup", "--table", "t", "--name", "by_city", "Quito"); code != 0 || !strings.Contains(out, "d") {
		t.Errorf("lookup Quito after --skip-bad: exit %d, %q %q", code, out, stderr)
	}
}

// TestImportsOfNoObjectNameTheRows: when the reader can read none of a
// JSON document's rows (an array of numbers and strings), every import
// names the first row and why, not a column that the rows lack, and
// imports nothing; with --skip-bad it names them all and imports none.
func TestImportsOfNoObjectNameTheRows(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	for _, args := range [][]string{
		{"geo", "import", "--index", "p"},
		{"fence", "import", "--fences", "f", "--format", "json"},
		{"table", "import", "--table", "t", "--key-cols", "id"},
		{"log", "import", "--log", "l", "--parent-col", "user", "--time-col", "at"},
		{"rel", "import", "--rel", "r", "--left-col", "a", "--right-col", "b"},
		{"series", "import", "--series", "s"},
	} {
		args = append([]string{"--db", db}, args...)
		_, stderr, code := run(t, `[5, "x"]`, append(args, "-")...)
		if code != 1 || !strings.Contains(stderr, ".[0]: a number, not an object (nothing imported)") || strings.Contains(stderr, "column") {
			t.Errorf("%v: exit %d, %q; want exit 1 naming .[0], not a column", args[2:4], code, stderr)
		}
		_, stderr, code = run(t, `[5, "x"]`, append(args, "--skip-bad", "-")...)
		if code != 0 || !strings.Contains(stderr, "skipped 2 bad rows: .[0]: a number, not an object; .[1]: a string, not an object") {
			t.Errorf("%v --skip-bad: exit %d, %q; want both rows named", args[2:4], code, stderr)
		}
	}
	// Nothing was imported: the catalog may hold the names (an import
	// that skips every row still makes its table), but no subspace holds
	// an item.
	out, stderr, code := run(t, "", "--db", db, "--output", "json", "stats")
	if code != 0 {
		t.Fatal(stderr)
	}
	var stats struct {
		Subspaces []struct {
			Kind  string
			Items int
		}
	}
	if err := json.Unmarshal([]byte(out), &stats); err != nil {
		t.Fatalf("%v: %q", err, out)
	}
	for _, s := range stats.Subspaces {
		if s.Kind != "catalog" && s.Items != 0 {
			t.Errorf("after imports of no readable row: %+v", s)
		}
	}
}

// TestGeoJSONNullsAreErrors: a FeatureCollection with a null feature,
// and a feature whose GeometryCollection has a null member (which orb's
// reader panics on), are errors that name them from geo import, fence
// import and geo within --polygon, not a crash; they import nothing, and
// with --skip-bad the null feature is a bad row beside the good one.
func TestGeoJSONNullsAreErrors(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	good := `{"type":"Feature","id":"a","geometry":{"type":"Point","coordinates":[10,59]},"properties":{"radius":5}}`
	nullFeature := `{"type":"FeatureCollection","features":[null,` + good + `]}`
	nullMember := `{"type":"FeatureCollection","features":[{"type":"Feature","id":"b","geometry":{"type":"GeometryCollection","geometries":[null]},"properties":{}}]}`
	for _, tc := range []struct {
		stdin, want string
		args        []string
	}{
		{nullFeature, "feature 1: null, not a Feature", []string{"geo", "import", "--index", "p", "--format", "geojson", "-"}},
		{nullFeature, "feature 1 of 2: null, not a Feature", []string{"fence", "import", "--fences", "z", "--format", "geojson", "-"}},
		{nullMember, "could not read", []string{"geo", "import", "--index", "p", "--format", "geojson", "-"}},
		{nullMember, "could not read", []string{"fence", "import", "--fences", "z", "--format", "geojson", "-"}},
		{`{"type":"FeatureCollection","features":[null]}`, "a feature with no geometry", []string{"geo", "within", "--index", "p", "--polygon", "-"}},
		{`{"type":"Feature","geometry":{"type":"GeometryCollection","geometries":[null]}}`, "not GeoJSON", []string{"geo", "within", "--index", "p", "--polygon", "-"}},
	} {
		_, stderr, code := run(t, tc.stdin, append([]string{"--db", db}, tc.args...)...)
		if code != 1 || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "panic") {
			t.Errorf("%v: exit %d, %q; want exit 1 naming %q", tc.args[:2], code, stderr, tc.want)
		}
	}
	if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused imports left a file: %v", err)
	}
	for _, args := range [][]string{{"geo", "import", "--index", "p"}, {"fence", "import", "--fences", "z"}} {
		_, stderr, code := run(t, nullFeature, append(append([]string{"--db", db}, args...), "--format", "geojson", "--skip-bad", "-")...)
		if code != 0 || !strings.Contains(stderr, "imported 1 ") || !strings.Contains(stderr, "null, not a Feature") {
			t.Errorf("%v --skip-bad: exit %d, %q", args[:2], code, stderr)
		}
	}
}

// TestFailedFirstWriteLeavesNoFile: a command that would create the
// database and then fails, or writes nothing, leaves no file behind (the
// next command says it does not exist); one that writes leaves it, and a
// database that existed stays even when a command empties it.
func TestFailedFirstWriteLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	for _, c := range []struct {
		stdin string
		args  []string
	}{
		{"sensor,time,value\ns1,2026-11-23T23:58:00Z,1.7e308\ns1,2026-11-23T23:58:30Z,1e308\n", []string{"series", "import", "--series", "t", "-"}},
		{"", []string{"geo", "fset", "--index", "p", "a", "x=1"}},
		{"", []string{"geo", "del", "--index", "p", "a"}},
		{"", []string{"log", "append", "--log", "l", "--parent", strings.Repeat("p", keyspace.MaxKeySize), "hi"}},
	} {
		run(t, c.stdin, append([]string{"--db", db}, c.args...)...)
		if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%v left the file behind: %v", c.args, err)
		}
	}
	if _, stderr, code := run(t, "", "--db", db, "geo", "put", "--index", "p", "--lat", "1", "--lon", "2", "a"); code != 0 {
		t.Fatal(stderr)
	}
	if _, stderr, code := run(t, "", "--db", db, "geo", "del", "--index", "p", "a"); code != 0 {
		t.Fatal(stderr)
	}
	if _, err := os.Stat(db); err != nil {
		t.Errorf("a database that existed, emptied: %v", err)
	}
}

// TestJSONImportsKeepTypes: an NDJSON object's or a GeoJSON feature's
// properties reach the payload with their JSON types (a number stays a
// number, an array an array, null null), not as text; an NDJSON number
// keeps every digit; a GeoJSON export imported again gives the same
// payloads. The oracle is the input itself, decoded alike.
func TestJSONImportsKeepTypes(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	decode := func(s string) map[string]any {
		d := json.NewDecoder(strings.NewReader(s))
		d.UseNumber()
		var m map[string]any
		if err := d.Decode(&m); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		return m
	}
	payloads := func(index string) map[string]map[string]any {
		out, stderr, code := run(t, "", "--db", db, "geo", "scan", "--index", index, "--output", "ndjson")
		if code != 0 {
			t.Fatalf("scan %s: %s", index, stderr)
		}
		got := map[string]map[string]any{}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var p struct {
				ID      string          `json:"id"`
				Payload json.RawMessage `json:"payload"`
			}
			if err := json.Unmarshal([]byte(line), &p); err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			got[p.ID] = decode(string(p.Payload))
		}
		return got
	}
	props := []string{
		`{"pop":1000,"big":true,"tags":["x",2,null],"meta":{"k":{"deep":-1.5}},"none":null,"name":"A"}`,
		`{"ratio":0.1,"neg":-7,"empty":"","list":[],"obj":{}}`,
	}
	var ndjson, features []string
	want := map[string]map[string]any{}
	for i, p := range props {
		id := fmt.Sprint("p", i)
		want[id] = decode(p)
		ndjson = append(ndjson, fmt.Sprintf(`{"id":%q,"lat":%d,"lon":2,`, id, i)+p[1:])
		features = append(features, fmt.Sprintf(`{"type":"Feature","id":%q,"geometry":{"type":"Point","coordinates":[2,%d]},"properties":%s}`, id, i, p))
	}
	// An integer of 20 digits, more than a float64 holds, in NDJSON.
	ndjson = append(ndjson, `{"id":"n","lat":1,"lon":2,"serial":12345678901234567891}`)
	if _, stderr, code := run(t, strings.Join(ndjson, "\n")+"\n", "--db", db, "--quiet", "geo", "import", "--index", "nd", "--format", "ndjson", "-"); code != 0 {
		t.Fatal(stderr)
	}
	fc := `{"type":"FeatureCollection","features":[` + strings.Join(features, ",") + `]}`
	if _, stderr, code := run(t, fc, "--db", db, "--quiet", "geo", "import", "--index", "gj", "--format", "geojson", "-"); code != 0 {
		t.Fatal(stderr)
	}
	gotND, gotGJ := payloads("nd"), payloads("gj")
	if serial := gotND["n"]["serial"]; serial != json.Number("12345678901234567891") {
		t.Errorf("NDJSON serial = %v, want every digit of 12345678901234567891", serial)
	}
	delete(gotND, "n")
	for name, got := range map[string]map[string]map[string]any{"NDJSON": gotND, "GeoJSON": gotGJ} {
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s payloads:\n%v\nwant the input's properties:\n%v", name, got, want)
		}
	}
	export, stderr, code := run(t, "", "--db", db, "geo", "scan", "--index", "gj", "--output", "geojson")
	if code != 0 {
		t.Fatal(stderr)
	}
	if _, stderr, code := run(t, export, "--db", db, "--quiet", "geo", "import", "--index", "again", "--format", "geojson", "-"); code != 0 {
		t.Fatal(stderr)
	}
	if got := payloads("again"); !reflect.DeepEqual(got, want) {
		t.Errorf("export imported again:\n%v\nwant:\n%v", got, want)
	}
	// So does an NDJSON export (payload under "payload", the expiry
	// under "expires" when a point has one), whole: the export of the
	// copy is the export of the original.
	if _, stderr, code := run(t, "", "--db", db, "geo", "expire", "--index", "nd", "--ttl", "1h", "p1"); code != 0 {
		t.Fatal(stderr)
	}
	// Payloads that are not objects: text, and JSON of other kinds.
	for id, payload := range map[string]string{"t1": "plain text", "t2": "[1,2]", "t3": `"quoted"`, "t4": "7"} {
		if _, stderr, code := run(t, "", "--db", db, "geo", "put", "--index", "nd", "--lat", "3", "--lon", "4", "--payload", payload, id); code != 0 {
			t.Fatal(stderr)
		}
	}
	ndExport, stderr, code := run(t, "", "--db", db, "geo", "scan", "--index", "nd", "--output", "ndjson")
	if code != 0 || !strings.Contains(ndExport, `"expires"`) {
		t.Fatalf("export: exit %d, %s %s", code, ndExport, stderr)
	}
	if _, stderr, code := run(t, ndExport, "--db", db, "--quiet", "geo", "import", "--index", "nd2", "--format", "ndjson", "--expires-col", "expires", "-"); code != 0 {
		t.Fatal(stderr)
	}
	if again, _, _ := run(t, "", "--db", db, "geo", "scan", "--index", "nd2", "--output", "ndjson"); again != ndExport {
		t.Errorf("an NDJSON export imported again exports as\n%s\nnot\n%s", again, ndExport)
	}
}

// TestTypedCSVImport: with --typed a CSV's values that read as JSON
// numbers or booleans are stored as such (their digits as written), and
// everything else, a ZIP code with a leading zero, NaN, a number past
// float64, as text; key columns stay text; without --typed all is text.
func TestTypedCSVImport(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	csv := "id,lat,lon,zip,n,f,b,s,neg,big,nan,hex,plus\na,1,2,02134,7,1.5e3,true,x,-0.25,1e400,NaN,0x10,+5\n"
	want := map[string]any{"zip": "02134", "n": json.Number("7"), "f": json.Number("1.5e3"), "b": true, "s": "x",
		"neg": json.Number("-0.25"), "big": "1e400", "nan": "NaN", "hex": "0x10", "plus": "+5"}
	payload := func(index string) map[string]any {
		out, stderr, code := run(t, "", "--db", db, "geo", "scan", "--index", index, "--output", "ndjson")
		if code != 0 {
			t.Fatal(stderr)
		}
		var p struct{ Payload json.RawMessage }
		json.Unmarshal([]byte(out), &p)
		d := json.NewDecoder(bytes.NewReader(p.Payload))
		d.UseNumber()
		var m map[string]any
		if err := d.Decode(&m); err != nil {
			t.Fatalf("%s: %v", out, err)
		}
		return m
	}
	for _, typed := range []bool{true, false} {
		index, args := "plain", []string{"--db", db, "--quiet", "geo", "import", "--index", "plain", "-"}
		if typed {
			index, args = "typed", []string{"--db", db, "--quiet", "geo", "import", "--index", "typed", "--typed", "-"}
		}
		if _, stderr, code := run(t, csv, args...); code != 0 {
			t.Fatal(stderr)
		}
		got := payload(index)
		for k, w := range want {
			if !typed {
				w = strings.Split(strings.Split(csv, "\n")[1], ",")[slices.Index(strings.Split(strings.Split(csv, "\n")[0], ","), k)]
			}
			if got[k] != w {
				t.Errorf("typed %v: %s = %#v, want %#v", typed, k, got[k], w)
			}
		}
	}
	// A table: key columns stay text, the rest typed.
	if _, stderr, code := run(t, "id,zip,n\n17,02134,7\n", "--db", db, "--quiet", "table", "import", "--table", "t", "--key-cols", "id", "--typed", "-"); code != 0 {
		t.Fatal(stderr)
	}
	if out, _, _ := run(t, "", "--db", db, "--output", "ndjson", "table", "scan", "--table", "t"); out != `{"key":"17","record":{"id":"17","n":7,"zip":"02134"}}`+"\n" {
		t.Errorf("typed table row: %s", out)
	}
}
