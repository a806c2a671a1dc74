package cli_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
)

// tableRows reads --output json of table scan or get: each row's key and
// expiry ("" for none).
func tableRows(t *testing.T, out string) map[string]string {
	t.Helper()
	var doc struct {
		Rows []struct{ Key, Expires string }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	got := map[string]string{}
	for _, r := range doc.Rows {
		got[r.Key] = r.Expires
	}
	return got
}

// TestTableExpiry: rows imported with --ttl expire from get, scan and
// index lookups once their time has passed, and only then; table expire
// and persist change expiries, all keys or none; verify checks the expiry
// entries, table repair puts a lost one back; table count leaves expired
// rows out; table sweep deletes exactly the expired rows of every table
// (and stats names the file's format).
// The oracle is which imports and commands gave which rows a TTL.
func TestTableExpiry(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	ok := func(stdin string, args ...string) string {
		t.Helper()
		out, stderr, code := run(t, stdin, append([]string{"--db", db, "--quiet"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		return out
	}
	csv := func(from, to int) string {
		var b strings.Builder
		b.WriteString("id,user\n")
		for i := from; i < to; i++ {
			fmt.Fprintf(&b, "%d,u%d\n", i, i)
		}
		return b.String()
	}
	ok(csv(0, 10), "table", "import", "--table", "s", "--key-cols", "id", "-")
	ok("", "index", "create", "--table", "s", "--name", "by_user", "--fields", "user", "--unique")
	ok("", "index", "build", "--table", "s", "--name", "by_user")
	before := time.Now()
	ok(csv(10, 20), "table", "import", "--table", "s", "--key-cols", "id", "--ttl", "1h", "-")
	after := time.Now()
	ok(csv(20, 30), "table", "import", "--table", "s", "--key-cols", "id", "--ttl", "1ms", "-")
	ok(csv(0, 5), "table", "import", "--table", "other", "--key-cols", "id", "--ttl", "1ms", "-")
	time.Sleep(5 * time.Millisecond)

	// The oracle: rows 0–9 never expire, 10–19 in an hour, 20–29 have.
	live := map[string]string{}
	for i := range 20 {
		live[fmt.Sprint(i)] = ""
	}
	check := func(what string, want map[string]string) {
		t.Helper()
		got := tableRows(t, ok("", "--output", "json", "table", "scan", "--table", "s"))
		for k, v := range got {
			if v == "" {
				continue
			}
			at, err := time.Parse(time.RFC3339Nano, v)
			if err != nil || want[k] != "hour" || at.Before(before.Add(time.Hour)) || at.After(after.Add(time.Hour)) {
				t.Fatalf("%s: row %s expires at %q, want %q", what, k, v, want[k])
			}
			got[k] = "hour"
		}
		if !maps.Equal(got, want) {
			t.Fatalf("%s: scan gives %v, want %v", what, got, want)
		}
		// An index lookup of every user leaves the same rows.
		var keys []string
		for i := range 30 {
			var doc struct{ Entries []struct{ Key string } }
			out := ok("", "--output", "json", "index", "lookup", "--table", "s", "--name", "by_user", fmt.Sprint("u", i))
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatal(err)
			}
			for _, e := range doc.Entries {
				keys = append(keys, e.Key)
			}
		}
		if wantKeys := slices.Collect(maps.Keys(want)); !sameSet(keys, wantKeys) {
			t.Fatalf("%s: lookups give %v, want %v", what, keys, wantKeys)
		}
	}
	for i := 10; i < 20; i++ {
		live[fmt.Sprint(i)] = "hour"
	}
	check("after import", live)
	if _, _, code := run(t, "", "--db", db, "table", "get", "--table", "s", "25"); code != 1 {
		t.Errorf("table get of an expired row: exit %d, want 1", code)
	}
	if out := ok("", "table", "get", "--table", "s", "12", "3"); !strings.Contains(out, "EXPIRES") || !strings.Contains(out, "never") {
		t.Errorf("table get of an expiring and a lasting row:\n%s", out)
	}
	// A new row takes the unique user of an expired one.
	ok("id,user\n99,u25\n", "table", "import", "--table", "s", "--key-cols", "id", "-")
	live["99"] = ""

	// expire and persist: all keys or none.
	if _, stderr, code := run(t, "", "--db", db, "table", "expire", "--table", "s", "--ttl", "1ms", "1", "25"); code != 1 || !strings.Contains(stderr, "nothing changed") {
		t.Errorf("expire naming an expired row: exit %d, %q", code, stderr)
	}
	check("after a refused expire", live)
	ok("", "table", "expire", "--table", "s", "--ttl", "1ms", "1", "2")
	ok("", "table", "persist", "--table", "s", "10", "11")
	time.Sleep(5 * time.Millisecond)
	delete(live, "1")
	delete(live, "2")
	live["10"], live["11"] = "", ""
	check("after expire and persist", live)

	// verify checks the expiry entries; a lost one is a problem that
	// table repair fixes.
	if out := ok("", "verify"); !strings.Contains(out, "table s expiry entries: 0 problems") {
		t.Errorf("verify:\n%s", out)
	}
	s, err := keyspace.Open(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Update(func(tx keyspace.Tx) error {
		for k := range tx.Scan(composite.NewSubspace("x", "s", "e").Range()) {
			return tx.Delete(k)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if out, _, code := run(t, "", "--db", db, "verify"); code != 1 || !strings.Contains(out, "table s expiry entries: 1 problem") {
		t.Errorf("verify of a lost expiry entry: exit %d\n%s", code, out)
	}
	if out := ok("", "table", "repair", "--table", "s"); !strings.HasSuffix(out, "table s: repaired 1 problem\n") {
		t.Errorf("table repair:\n%s", out)
	}
	ok("", "verify")

	// count leaves the expired rows out before they are swept, as get and
	// scan do.
	if got := ok("", "--output", "json", "table", "count", "--table", "s", "--depth", "1"); strings.Count(got, ":") != len(live) {
		t.Errorf("before the sweep, count sees %d rows, want the %d live:\n%s", strings.Count(got, ":"), len(live), got)
	}

	// sweep deletes the expired rows of every table: 20–29 less 25
	// (taken over by 99) and 1, 2 from s; all five from other.
	out := ok("", "table", "sweep")
	if want := "deleted 5 expired rows from table other\ndeleted 11 expired rows from table s\nnext expiry: "; !strings.HasPrefix(out, want) {
		t.Errorf("sweep:\n%s\nwant it to start\n%s", out, want)
	}
	check("after the sweep", live)
	if got := ok("", "--output", "json", "table", "count", "--table", "s", "--depth", "1"); strings.Count(got, ":") != len(live) {
		t.Errorf("after the sweep, count sees the keys of %d rows, want %d:\n%s", strings.Count(got, ":"), len(live), got)
	}
	ok("", "verify")
	if out := ok("", "stats"); !strings.HasSuffix(out, fmt.Sprintf("format %d\n", keyspace.FormatVersion)) {
		t.Errorf("stats does not give the file's format:\n%s", out)
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
