package cli_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// statsEntry is one line of `keyspace stats --output json`.
type statsEntry struct {
	Kind, Name  string
	Items, Keys int
}

func stats(t *testing.T, db string) map[string]statsEntry {
	t.Helper()
	out, stderr, code := run(t, "", "--db", db, "stats", "--output", "json")
	if code != 0 {
		t.Fatalf("stats: exit %d: %s", code, stderr)
	}
	var s struct{ Subspaces []statsEntry }
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("stats JSON: %v\n%s", err, out)
	}
	m := map[string]statsEntry{}
	for _, e := range s.Subspaces {
		m[e.Kind+" "+e.Name] = e
	}
	return m
}

// TestDropAndStats fills a file with a structure of every kind, two of
// each with one name the start of the other's (and a table and a relation
// of the same name), checks that stats counts what was put, and lists
// every key under a structure of a kind it knows (a table's expiry
// entries under the table, not the bare layout), then drops
// them one by one: each drop says what went, stats loses exactly that
// structure, and dropping it again is an error that changes nothing.
func TestDropAndStats(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	must := func(stdin string, args ...string) {
		t.Helper()
		if _, stderr, code := run(t, stdin, append([]string{"--db", db, "--quiet"}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	want := map[string]int{} // items put, by "kind name"
	for i, name := range []string{"shops", "shops2"} {
		var csv strings.Builder
		csv.WriteString("id,lat,lon\n")
		for j := range 5 + i {
			fmt.Fprintf(&csv, "p%d,%d,%d\n", j, j*10-40, j*30-170)
		}
		must(csv.String(), "geo", "import", "--index", name, "-")
		want["geo index "+name] = 5 + i
	}
	for i, name := range []string{"likes", "likes2"} {
		ttl := []string{"--ttl", "1h"}[:2*i] // the second's records expire, with entries of their own
		must(fmt.Sprintf("id,city\n1,Oslo\n2,Rome\n%d,Lima\n", 3+i), append([]string{"table", "import", "--table", name, "--key-cols", "id", "-"}, ttl...)...)
		want["table "+name] = 3
		must("", "index", "create", "--table", name, "--name", "by_city", "--fields", "city")
		must("", "index", "build", "--table", name, "--name", "by_city")
	}
	for i := range 4 {
		must("", "rel", "link", "--rel", "likes", fmt.Sprint("u", i%2), fmt.Sprint("i", i))
		must("", "log", "append", "--log", "inbox", "--parent", fmt.Sprint("user", i%3), "hi")
		must("", "log", "append", "--log", "inbox2", "--parent", "user0", "hi")
	}
	want["relation likes"], want["log inbox"], want["log inbox2"] = 4, 4, 4
	want["catalog table"], want["catalog index"] = 2, 2

	got := stats(t, db)
	for k, n := range want {
		if got[k].Items != n {
			t.Errorf("stats: %s has %d items, want %d", k, got[k].Items, n)
		}
	}
	if len(got) != len(want) {
		t.Errorf("stats lists %v, want the %d entries of %v", got, len(want), want)
	}

	for _, d := range []struct {
		args  []string
		entry string
		said  string
	}{
		{[]string{"geo", "drop", "--index", "shops"}, "geo index shops", "dropped geo index shops: 5 points"},
		{[]string{"table", "drop", "--table", "likes"}, "table likes", "dropped table likes: 3 records"},
		{[]string{"rel", "drop", "--rel", "likes"}, "relation likes", "dropped relation likes: 4 links"},
		{[]string{"log", "drop", "--log", "inbox"}, "log inbox", "dropped log inbox: 4 items"},
	} {
		before := stats(t, db)
		out, stderr, code := run(t, "", append([]string{"--db", db}, d.args...)...)
		if code != 0 || strings.TrimSpace(out) != d.said {
			t.Errorf("%v: exit %d, said %q (%s); want %q", d.args, code, out, stderr, d.said)
		}
		after := stats(t, db)
		for k, e := range before {
			switch {
			case k == d.entry:
				if _, ok := after[k]; ok {
					t.Errorf("after %v, stats still lists %s", d.args, k)
				}
			case strings.HasPrefix(k, "catalog "):
				// A table's schema and index definitions go with it.
			case after[k] != e:
				t.Errorf("after %v, %s went from %+v to %+v", d.args, k, e, after[k])
			}
		}
		if _, stderr, code := run(t, "", append([]string{"--db", db}, d.args...)...); code != 1 || !strings.Contains(stderr, "unknown") {
			t.Errorf("%v again: exit %d, %q; want exit 1 naming it unknown", d.args, code, stderr)
		}
		if again := stats(t, db); fmt.Sprint(again) != fmt.Sprint(after) {
			t.Errorf("a failed %v changed the file: %v, then %v", d.args, after, again)
		}
	}
	if got := stats(t, db); got["catalog table"].Items != 1 || got["catalog index"].Items != 1 {
		t.Errorf("after dropping one of two tables, the catalog holds %d tables and %d indexes, want 1 and 1",
			got["catalog table"].Items, got["catalog index"].Items)
	}
	// The tables, indexes and names that were not dropped still work.
	out, _, _ := run(t, "", "--db", db, "index", "lookup", "--table", "likes2", "--name", "by_city", "Lima", "--output", "json")
	if !strings.Contains(out, `"key": "4"`) && !strings.Contains(out, `"key":"4"`) {
		t.Errorf("index lookup on likes2 after dropping likes: %s", out)
	}
	if _, stderr, code := run(t, "", "--db", db, "table", "scan", "--table", "likes"); code != 1 || !strings.Contains(stderr, "unknown table") {
		t.Errorf("scan of a dropped table: exit %d, %q", code, stderr)
	}
}
