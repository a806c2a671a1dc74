package cli_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
)

// A numberForm is a field's value as a record holds it, and where an
// index puts it, as the test works it out: text first (by its bytes),
// then whole numbers past 2^53 (by value), then every other number by
// value (7, "7" and "7.0" alike), then false and true. An index from
// before numbers were ordered puts the whole numbers (whole: JSON
// numbers with no fraction, text of a plain integer) together before
// the others.
type numberForm struct {
	v     any // as the NDJSON holds it; nil: no field
	class int // 0 text, 1 a whole number past 2^53, 2 a number, 3 false or true
	num   float64
	text  string
	whole bool
}

var numberForms = []numberForm{
	{7, 2, 7, "", true}, {"7", 2, 7, "", true}, {"7.0", 2, 7, "", false}, {7.5, 2, 7.5, "", false},
	{"8", 2, 8, "", true}, {"1e1", 2, 10, "", false}, {-3, 2, -3, "", true}, {"-2.5", 2, -2.5, "", false},
	{0, 2, 0, "", true}, {"-0.0", 2, 0, "", false}, {"0.5", 2, 0.5, "", false},
	{9007199254740992, 2, 1 << 53, "", true}, {1 << 60, 1, 1 << 60, "", true},
	{"abc", 0, 0, "abc", false}, {"", 0, 0, "", false}, {"07", 0, 0, "07", false}, {"Inf", 0, 0, "Inf", false},
	{false, 3, 0, "", false}, {true, 3, 1, "", false}, {nil, -1, 0, "", false},
}

// compareForms orders two values as the ascending index does, or one
// from before numbers were ordered (byKind).
func compareForms(a, b numberForm, byKind bool) int {
	class := func(f numberForm) int {
		if byKind && f.class == 2 && f.whole {
			return 1 // among the whole numbers past 2^53
		}
		return f.class
	}
	if class(a) != class(b) {
		return cmp.Compare(class(a), class(b))
	}
	if a.class == 0 {
		return strings.Compare(a.text, b.text)
	}
	return cmp.Compare(a.num, b.num)
}

// TestIndexOrdersNumbers: index lookup lists records in the order of an
// index's field, whole, reversed, from and to a bound, and a page at a
// time, against the order the test works out from each value's form
// (numberForm); an ascending and a descending index alike. A number
// given as 7 finds 7, "7" and "7.0", and 0 finds −0. A unique index
// refuses 7 beside "7.0", which are one number. An index created before
// numbers were ordered (its definition without "numbers") keeps them by
// kind, after index repair as before.
func TestIndexOrdersNumbers(t *testing.T) {
	db := filepath.Join(t.TempDir(), "order.db")
	r := rand.New(rand.NewPCG(48, 1))
	forms := map[int]numberForm{} // by id
	var ndjson strings.Builder
	for id := range 150 {
		f := numberForms[r.IntN(len(numberForms))]
		if id < len(numberForms) {
			f = numberForms[id] // every form at least once
		}
		rec := map[string]any{"id": id}
		if f.v != nil {
			rec["n"] = f.v
			forms[id] = f
		}
		b, _ := json.Marshal(rec)
		ndjson.Write(append(b, '\n'))
	}
	runOK(t, ndjson.String(), "--db", db, "-q", "table", "import", "--table", "t", "--key-cols", "id", "--format", "ndjson", "-")
	runOK(t, "", "--db", db, "-q", "index", "create", "--table", "t", "--name", "up", "--fields", "n")
	runOK(t, "", "--db", db, "-q", "index", "create", "--table", "t", "--name", "down", "--fields=-n")

	// lookup lists the ids of the records index lookup finds, a page of
	// limit at a time (0: one page), following the cursors.
	lookup := func(args []string, limit int) []string {
		t.Helper()
		var ids []string
		cursor := ""
		for {
			a := slices.Concat([]string{"--db", db, "-o", "json", "index", "lookup", "--table", "t"}, args)
			if limit > 0 {
				a = append(a, "--limit", fmt.Sprint(limit))
			}
			if cursor != "" {
				a = append(a, "--cursor", cursor)
			}
			var page struct {
				Entries []struct{ Key string }
				Next    string
			}
			if out := runOK(t, "", a...); json.Unmarshal([]byte(out), &page) != nil {
				t.Fatalf("%q: %s", a, out)
			}
			for _, e := range page.Entries {
				ids = append(ids, e.Key)
			}
			if cursor = page.Next; cursor == "" {
				return ids
			}
		}
	}
	// want lists the ids whose values keep holds, in the order of the
	// index (desc: descending values), ties by id.
	want := func(desc, byKind bool, keep func(numberForm) bool) []string {
		var ids []int
		for id, f := range forms {
			if keep(f) {
				ids = append(ids, id)
			}
		}
		slices.SortFunc(ids, func(a, b int) int {
			c := compareForms(forms[a], forms[b], byKind)
			if desc {
				c = -c
			}
			return cmp.Or(c, cmp.Compare(a, b))
		})
		var out []string
		for _, id := range ids {
			out = append(out, fmt.Sprint(id))
		}
		return out
	}
	all := func(numberForm) bool { return true }
	between := func(lo, hi float64) func(numberForm) bool {
		return func(f numberForm) bool { return f.class == 2 && lo <= f.num && f.num < hi }
	}
	equal := func(n float64) func(numberForm) bool {
		return func(f numberForm) bool { return f.class == 2 && f.num == n }
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--name", "up"}, want(false, false, all)},
		{[]string{"--name", "down"}, want(true, false, all)},
		{[]string{"--name", "up", "--from", "7", "--to", "10"}, want(false, false, between(7, 10))},
		{[]string{"--name", "up", "--from=-3", "--to", "0.5"}, want(false, false, between(-3, 0.5))},
		{[]string{"--name", "down", "--from", "10", "--to", "7"}, want(true, false, func(f numberForm) bool { return f.class == 2 && 7 < f.num && f.num <= 10 })},
		{[]string{"--name", "up", "7"}, want(false, false, equal(7))},
		{[]string{"--name", "down", "7.0"}, want(true, false, equal(7))},
		{[]string{"--name", "up", "0"}, want(false, false, equal(0))},
		{[]string{"--name", "up", "-0.0"}, want(false, false, equal(0))},
		{[]string{"--name", "up", "9007199254740992"}, want(false, false, equal(1<<53))},
		{[]string{"--name", "up", "1152921504606846976"}, want(false, false, func(f numberForm) bool { return f.class == 1 })},
	} {
		if len(c.want) == 0 {
			t.Fatalf("%q: the test wants no records", c.args)
		}
		for _, limit := range []int{0, 4} {
			if got := lookup(c.args, limit); !slices.Equal(got, c.want) {
				t.Errorf("index lookup %q --limit %d: %v, want %v", c.args, limit, got, c.want)
			}
		}
		reversed := slices.Clone(c.want)
		if slices.Contains(c.args, "up") && !slices.ContainsFunc(c.args, func(a string) bool { return strings.HasPrefix(a, "--") }) {
			slices.Reverse(reversed) // an ascending index's whole entries, read backwards
			if got := lookup(append(c.args, "--reverse"), 5); !slices.Equal(got, reversed) {
				t.Errorf("index lookup %q --reverse: %v, want %v", c.args, got, reversed)
			}
		}
	}
	// The value is printed as it was given: 7, not 7.0.
	if out := runOK(t, "", "--db", db, "-o", "json", "index", "lookup", "--table", "t", "--name", "up", "7", "--limit", "1"); !strings.Contains(out, `"value": "7",`) {
		t.Errorf("index lookup 7 prints %s", out)
	}

	// One number twice: a unique index refuses it, and leaves nothing.
	dup := filepath.Join(t.TempDir(), "dup.db")
	runOK(t, `{"id":1,"n":7}`+"\n"+`{"id":2,"n":"7.0"}`+"\n", "--db", dup, "-q", "table", "import", "--table", "t", "--key-cols", "id", "--format", "ndjson", "-")
	if _, stderr, code := run(t, "", "--db", dup, "-q", "index", "create", "--table", "t", "--name", "u", "--fields", "n", "--unique"); code == 0 || !strings.Contains(stderr, "not created") {
		t.Errorf("a unique index over 7 and \"7.0\": exit %d, %q", code, stderr)
	}

	// An index created before: whole numbers, then the others.
	s, err := keyspace.Open(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	key := composite.Tuple{"meta", "index", "t", "up"}.Pack()
	if err := s.Update(func(tx keyspace.Tx) error {
		b, err := tx.Get(key)
		if err != nil {
			return err
		}
		var def map[string]any
		if err := json.Unmarshal(b, &def); err != nil || def["numbers"] != "ordered" {
			return fmt.Errorf("the definition %s: %v", b, err)
		}
		delete(def, "numbers")
		b, _ = json.Marshal(def)
		return tx.Put(key, b)
	}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, _, code := run(t, "", "--db", db, "index", "verify", "--table", "t", "--name", "up"); code != 1 {
		t.Errorf("verify of the ordered entries as an older index's: exit %d, want 1", code)
	}
	runOK(t, "", "--db", db, "-q", "index", "repair", "--table", "t", "--name", "up")
	runOK(t, "", "--db", db, "index", "verify", "--table", "t", "--name", "up")
	if got, want := lookup([]string{"--name", "up"}, 6), want(false, true, all); !slices.Equal(got, want) {
		t.Errorf("an older index's order: %v, want %v", got, want)
	}
	// index list says which index orders its numbers.
	var list []struct{ Name, Numbers string }
	if out := runOK(t, "", "--db", db, "-o", "json", "index", "list", "--table", "t"); json.Unmarshal([]byte(out), &list) != nil ||
		!slices.Equal(list, []struct{ Name, Numbers string }{{"down", "ordered"}, {"up", "by kind"}}) {
		t.Errorf("index list: %s", out)
	}
	if out := runOK(t, "", "--db", db, "index", "list", "--table", "t"); !strings.Contains(out, "built; whole numbers before the others") {
		t.Errorf("index list: %s", out)
	}
}
