package cli_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestPartialIndexAgainstModel: partial indexes (index create --where,
// --where-in, both, and a unique one) over a table changed by random
// table sets and deletes. After each change every index holds the
// entries the test computes from its own model of the rows, a unique
// one refuses a repeated value only among the rows it covers, and
// verify finds the file sound.
func TestPartialIndexAgainstModel(t *testing.T) {
	db := filepath.Join(t.TempDir(), "partial.db")
	type row struct {
		status, city string
		qty          int
	}
	model := map[int]row{}
	var csv strings.Builder
	csv.WriteString("id,status,city,qty\n")
	statuses, cities := []string{"open", "done", "held"}, []string{"Oslo", "Lima", "Pune", "a,b"}
	r := rand.New(rand.NewPCG(7, 8))
	random := func() row {
		return row{statuses[r.IntN(len(statuses))], cities[r.IntN(len(cities))], r.IntN(12)}
	}
	for id := range 30 {
		model[id] = random()
		fmt.Fprintf(&csv, "%d,%s,%q,%d\n", id, model[id].status, model[id].city, model[id].qty)
	}
	runOK(t, csv.String(), "--db", db, "-q", "table", "import", "--table", "o", "--key-cols", "id", "-")
	indexes := []struct {
		name   string
		args   []string
		covers func(row) bool
	}{
		{"open", []string{"--where", "status=open"}, func(x row) bool { return x.status == "open" }},
		{"south", []string{"--where-in", `city=Lima,"a,b"`}, func(x row) bool { return x.city == "Lima" || x.city == "a,b" }},
		{"big_oslo", []string{"--where", "qty>=6", "--where", "city!=Pune", "--where-in", "status=open,held"},
			func(x row) bool { return x.qty >= 6 && x.city != "Pune" && x.status != "done" }},
	}
	for _, ix := range indexes {
		runOK(t, "", slices.Concat([]string{"--db", db, "-q", "index", "create", "--table", "o", "--name", ix.name, "--fields", "qty"}, ix.args)...)
	}
	check := func(step int) {
		t.Helper()
		for _, ix := range indexes {
			var want []string
			for id, x := range model {
				if ix.covers(x) {
					want = append(want, fmt.Sprintf("%d %d", x.qty, id))
				}
			}
			var got []string
			out := runOK(t, "", "--db", db, "-o", "ndjson", "index", "scan", "--table", "o", "--name", ix.name)
			for _, line := range strings.Fields(out) {
				var e struct{ Value, Key string }
				if err := json.Unmarshal([]byte(line), &e); err != nil {
					t.Fatalf("%q: %v", line, err)
				}
				got = append(got, e.Value+" "+e.Key)
			}
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("step %d: index %s holds\n%q\nwant\n%q", step, ix.name, got, want)
			}
		}
		if out, stderr, code := run(t, "", "--db", db, "verify"); code != 0 {
			t.Fatalf("step %d: verify: exit %d\n%s%s", step, code, out, stderr)
		}
	}
	check(-1)
	for step := range 30 {
		id := r.IntN(40)
		if r.IntN(5) == 0 {
			if _, ok := model[id]; ok {
				runOK(t, "", "--db", db, "table", "del", "--table", "o", strconv.Itoa(id))
				delete(model, id)
			}
		} else {
			x := random()
			runOK(t, "", "--db", db, "table", "set", "--table", "o", strconv.Itoa(id), "status="+x.status, "city="+x.city, "qty="+strconv.Itoa(x.qty))
			model[id] = x
		}
		check(step)
	}

	// Unique among the rows it covers: rows with the same qty outside
	// --where stay, one inside is refused and changes nothing.
	runOK(t, "id,status,qty\n1,open,5\n2,done,5\n3,done,5\n", "--db", db, "-q", "table", "import", "--table", "u", "--key-cols", "id", "-")
	runOK(t, "", "--db", db, "-q", "index", "create", "--table", "u", "--name", "open_qty", "--fields", "qty", "--unique", "--where", "status=open")
	runOK(t, "", "--db", db, "table", "set", "--table", "u", "4", "status=held", "qty=5")
	if _, stderr, code := run(t, "", "--db", db, "table", "set", "--table", "u", "2", "status=open"); code != 1 || !strings.Contains(stderr, "unique index violation") {
		t.Errorf("a second open row of qty 5: exit %d, %q", code, stderr)
	}
	if out := runOK(t, "", "--db", db, "-o", "ndjson", "table", "get", "--table", "u", "2"); !strings.Contains(out, `"status":"done"`) {
		t.Errorf("the refused set changed the row: %s", out)
	}
	// Bad conditions are refused before anything is written.
	for _, c := range []struct{ args []string }{
		{[]string{"--where", "qty>>3"}}, {[]string{"--where", "nothing"}}, {[]string{"--where-in", "=a"}},
	} {
		args := slices.Concat([]string{"--db", db, "index", "create", "--table", "u", "--name", "bad", "--fields", "qty"}, c.args)
		if _, stderr, code := run(t, "", args...); code != 2 || !strings.Contains(stderr, c.args[1]) {
			t.Errorf("%v: exit %d, %q", c.args, code, stderr)
		}
	}
	if out := runOK(t, "", "--db", db, "index", "list", "--table", "u"); strings.Contains(out, "bad") || !strings.Contains(out, "status=open") {
		t.Errorf("index list after refused creates:\n%s", out)
	}
}

// TestIndexCreateRaisesFormat: a file an older build wrote (format 6)
// is raised to 8 by an index's create, whose numbers are ordered, which
// that build would misread (and a partial one as a whole one); a
// refused create leaves it as it was.
func TestIndexCreateRaisesFormat(t *testing.T) {
	db := filepath.Join(t.TempDir(), "format.db")
	runOK(t, "id,status,qty\n1,open,5\n2,done,6\n", "--db", db, "-q", "table", "import", "--table", "u", "--key-cols", "id", "-")
	bdb, err := bolt.Open(db, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := bdb.Update(func(tx *bolt.Tx) error { return tx.Bucket([]byte("keyspace")).SetSequence(6) }); err != nil {
		t.Fatal(err)
	}
	bdb.Close()
	format := func() string {
		out := runOK(t, "", "--db", db, "stats")
		return out[strings.LastIndex(out, " ")+1:]
	}
	for _, step := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--name", "bad", "--fields", "qty", "--where", "qty>>1"}, 2, "6\n"},
		{[]string{"--name", "whole", "--fields", "qty", "--unique"}, 0, "8\n"},
		{[]string{"--name", "partial", "--fields", "qty", "--where", "status=open", "--unique", "--where-in", "qty=5,5"}, 0, "8\n"},
	} {
		_, stderr, code := run(t, "", slices.Concat([]string{"--db", db, "-q", "index", "create", "--table", "u"}, step.args)...)
		if code != step.code || format() != step.want {
			t.Errorf("index create %q: exit %d (%s), format %q; want exit %d and format %q", step.args, code, stderr, format(), step.code, step.want)
		}
	}
}
