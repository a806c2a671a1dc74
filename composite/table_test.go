package composite

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/internal/dataset"
	"github.com/keyspacedb/keyspace/storetest"
)

var userSchema = Schema{{Name: "state", Kind: KindString}, {Name: "city", Kind: KindString}, {Name: "id", Kind: KindInt}}

// userRows is the oracle's data: awkward names included (separators, stars,
// zero bytes, prefixes of each other).
func userRows(r *rand.Rand, n int) []Tuple {
	states := []string{"CA", "NY", "C", "CA\x00", "C:A", "TX*"}
	cities := []string{"San Francisco", "San Fran", "San", "Los Angeles", "", "A:B", "a*b", "Z\x00z", "Sa", "Zürich", "東京"}
	var rows []Tuple
	for i := 0; i < n; i++ {
		rows = append(rows, Tuple{states[r.IntN(len(states))], cities[r.IntN(len(cities))], int64(r.IntN(1000) - 100)})
	}
	return rows
}

// TestQueriesAgainstBruteForce compares every kind of text query with a
// filter over the decoded rows.
func TestQueriesAgainstBruteForce(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		tbl := NewTable("users", userSchema)
		rows := userRows(rand.New(rand.NewPCG(1, 1)), 400)
		err := s.Update(func(tx keyspace.Tx) error {
			for _, row := range rows {
				if err := tbl.Put(tx, row, []byte(fmt.Sprint(row))); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		unique := map[string]Tuple{}
		for _, row := range rows {
			unique[string(row.Pack())] = row
		}
		all := make([]Tuple, 0, len(unique))
		for _, row := range unique {
			all = append(all, row)
		}
		slices.SortFunc(all, func(a, b Tuple) int { return compareTuples(a, b) })

		type q struct {
			text  string
			match func(Tuple) bool
		}
		queries := []q{
			{"*", func(Tuple) bool { return true }},
			{"CA:*", func(r Tuple) bool { return r[0] == "CA" }},
			{"C*", func(r Tuple) bool { return strings.HasPrefix(r[0].(string), "C") }},
			{`C\:A:*`, func(r Tuple) bool { return r[0] == "C:A" }},
			{`TX\**`, func(r Tuple) bool { return strings.HasPrefix(r[0].(string), "TX*") }},
			{"CA:San Fran*", func(r Tuple) bool { return r[0] == "CA" && strings.HasPrefix(r[1].(string), "San Fran") }},
			{"CA:San*", func(r Tuple) bool { return r[0] == "CA" && strings.HasPrefix(r[1].(string), "San") }},
			{`NY:A\:B:*`, func(r Tuple) bool { return r[0] == "NY" && r[1] == "A:B" }},
			{`NY:a\*b*`, func(r Tuple) bool { return r[0] == "NY" && strings.HasPrefix(r[1].(string), "a*b") }},
			{"CA::*", func(r Tuple) bool { return r[0] == "CA" && r[1] == "" }},
			{"NY:Zü*", func(r Tuple) bool { return r[0] == "NY" && strings.HasPrefix(r[1].(string), "Zü") }},
			{"CA:San:5", func(r Tuple) bool { return r[0] == "CA" && r[1] == "San" && r[2] == int64(5) }},
		}
		for _, query := range queries {
			rng, err := tbl.Query(query.text)
			if err != nil {
				t.Fatalf("%q: %v", query.text, err)
			}
			var want []Tuple
			for _, row := range all {
				if query.match(row) {
					want = append(want, row)
				}
			}
			for _, reverse := range []bool{false, true} {
				for _, limit := range []int{0, 1, 7} {
					got := scanAllPages(t, s, tbl, rng, reverse, limit)
					w := slices.Clone(want)
					if reverse {
						slices.Reverse(w)
					}
					if len(got) != len(w) || (len(w) > 0 && !equalTuples(flatten(got), flatten(w))) {
						t.Errorf("%q reverse=%v limit=%d: got %d rows %v\nwant %d rows %v", query.text, reverse, limit, len(got), got, len(w), w)
					}
				}
			}
		}
		// Range within one level: cities from "S" up to (not incl.) "Z" in CA.
		got := scanAllPages(t, s, tbl, tbl.Subspace().Between(Tuple{"CA"}, Tuple{"S"}, Tuple{"Z"}), false, 5)
		var want []Tuple
		for _, row := range all {
			if c := row[1].(string); row[0] == "CA" && c >= "S" && c < "Z" {
				want = append(want, row)
			}
		}
		if !equalTuples(flatten(got), flatten(want)) {
			t.Errorf("Between CA S..Z: got %v, want %v", got, want)
		}
	})
}

func flatten(ts []Tuple) Tuple {
	var out Tuple
	for _, t := range ts {
		out = append(out, t)
	}
	return out
}

// scanAllPages pages through r, each page in its own transaction.
func scanAllPages(t *testing.T, s keyspace.Store, tbl *Table, r keyspace.Range, reverse bool, limit int) []Tuple {
	t.Helper()
	var out []Tuple
	cursor := ""
	for pages := 0; ; pages++ {
		var page Page
		err := s.View(func(tx keyspace.Tx) (err error) {
			page, err = tbl.Scan(tx, r, ScanOptions{Reverse: reverse, Limit: limit, Cursor: cursor})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if limit > 0 && len(page.Rows) > limit {
			t.Fatalf("page of %d rows with limit %d", len(page.Rows), limit)
		}
		for _, row := range page.Rows {
			if !bytes.Equal(row.Record, []byte(fmt.Sprint(row.Key))) {
				t.Fatalf("record of %v is %q", row.Key, row.Record)
			}
			out = append(out, row.Key)
		}
		if page.Next == "" {
			return out
		}
		cursor = page.Next
	}
}

func TestTableKeyShape(t *testing.T) {
	tbl := NewTable("users", userSchema)
	s := keyspace.NewMemory()
	for _, bad := range []Tuple{{"CA", "SF"}, {"CA", "SF", "42"}, {"CA", int64(1), int64(2)}, {"CA", "SF", int64(1), "extra"}} {
		err := s.Update(func(tx keyspace.Tx) error { return tbl.Put(tx, bad, nil) })
		if !errors.Is(err, ErrKeyShape) {
			t.Errorf("Put(%v) = %v, want ErrKeyShape", bad, err)
		}
	}
	if s.Len() != 0 {
		t.Errorf("rejected puts left %d keys", s.Len())
	}
}

// TestGroupsOfABadPrefix: a prefix no key can hold is an error from the
// functions that return one (they panicked).
func TestGroupsOfABadPrefix(t *testing.T) {
	s := keyspace.NewMemory()
	sub := NewSubspace("t")
	s.View(func(tx keyspace.Tx) error {
		for _, prefix := range []Tuple{{struct{}{}}, {time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)}} {
			if _, err := GroupCounts(tx, sub, prefix, 2); !errors.Is(err, ErrUnsupportedType) && !errors.Is(err, ErrIntegerRange) {
				t.Errorf("GroupCounts(%v) = %v", prefix, err)
			}
			if _, err := Groups(tx, sub, prefix, 2); !errors.Is(err, ErrUnsupportedType) && !errors.Is(err, ErrIntegerRange) {
				t.Errorf("Groups(%v) = %v", prefix, err)
			}
		}
		return nil
	})
}

// TestTableEveryKind: a table takes a key column of every kind (a time
// column refused every key until this test), and the key's text form,
// written with the table's schema, is a query that finds its row alone.
func TestTableEveryKind(t *testing.T) {
	schema := Schema{{Name: "s", Kind: KindString}, {Name: "b", Kind: KindBytes}, {Name: "i", Kind: KindInt},
		{Name: "u", Kind: KindUint}, {Name: "f32", Kind: KindFloat32}, {Name: "f", Kind: KindFloat64}, {Name: "ok", Kind: KindBool},
		{Name: "id", Kind: KindUUID}, {Name: "at", Kind: KindTime}, {Name: "when", Kind: KindTime, Desc: true}, {Name: "x", Kind: KindAny}}
	tbl := NewTable("kinds", schema)
	at := time.Date(2026, 11, 23, 9, 30, 0, 5, time.UTC)
	keys := []Tuple{
		{"11", []byte{0, 1}, int64(-3), uint64(7), float32(1.5), 2.25, true, UUID{1}, at, Desc{at}, nil},
		{"11", []byte{0, 1}, int64(-3), uint64(7), float32(1.5), 2.25, true, UUID{1}, at, Desc{at.Add(time.Second)}, "null"},
		{"a:b*", []byte{}, int64(0), uint64(0), float32(0), -1.0, false, UUID{}, at.Add(-time.Hour), Desc{at}, int64(4)},
	}
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		if err := s.Update(func(tx keyspace.Tx) error {
			for i, k := range keys {
				if err := tbl.Put(tx, k, []byte{byte(i)}); err != nil {
					return fmt.Errorf("put %#v: %w", k, err)
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		s.View(func(tx keyspace.Tx) error {
			for i, k := range keys {
				text, err := schema.Format(k)
				if err != nil {
					t.Fatalf("Format(%#v): %v", k, err)
				}
				r, err := tbl.Query(text)
				if err != nil {
					t.Fatalf("Query(%q): %v", text, err)
				}
				page, err := tbl.Scan(tx, r, ScanOptions{})
				if err != nil || len(page.Rows) != 1 || !bytes.Equal(page.Rows[0].Record, []byte{byte(i)}) {
					t.Errorf("Query(%q) found %+v, %v; want row %d alone", text, page.Rows, err, i)
				}
			}
			return nil
		})
	})
}

func TestGroupCountsAgainstRecount(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		tbl := NewTable("users", userSchema)
		rows := userRows(rand.New(rand.NewPCG(2, 2)), 600)
		unique := map[string]Tuple{}
		s.Update(func(tx keyspace.Tx) error {
			for _, row := range rows {
				unique[string(row.Pack())] = row
				if err := tbl.Put(tx, row, nil); err != nil {
					return err
				}
			}
			return nil
		})
		for _, tc := range []struct {
			prefix Tuple
			depth  int
		}{{nil, 1}, {nil, 2}, {Tuple{"CA"}, 2}, {Tuple{"CA", "San"}, 2}, {Tuple{"CA", "San"}, 3}, {nil, 0}, {Tuple{"none"}, 2}} {
			want := map[string]int{}
			for _, row := range unique {
				if len(tc.prefix) > 0 && !equalTuples(row[:len(tc.prefix)], tc.prefix) {
					continue
				}
				want[string(row[:tc.depth].Pack())]++
			}
			var got []GroupCount
			var groups []Tuple
			s.View(func(tx keyspace.Tx) (err error) {
				if got, err = tbl.Count(tx, tc.prefix, tc.depth); err != nil {
					return err
				}
				groups, err = Groups(tx, tbl.Subspace(), tc.prefix, tc.depth)
				return err
			})
			if len(got) != len(want) || len(groups) != len(want) {
				t.Fatalf("prefix %v depth %d: %d counts, %d groups, want %d", tc.prefix, tc.depth, len(got), len(groups), len(want))
			}
			for i, g := range got {
				if want[string(g.Group.Pack())] != g.Count {
					t.Errorf("prefix %v depth %d: group %v has %d, want %d", tc.prefix, tc.depth, g.Group, g.Count, want[string(g.Group.Pack())])
				}
				if !equalTuples(groups[i], g.Group) {
					t.Errorf("Groups[%d] = %v, GroupCounts has %v", i, groups[i], g.Group)
				}
			}
		}
	})
}

// TestCitiesDataset loads the real cities as Country:State:City:ID keys and
// checks group counts and one state's prefix scan against the CSV itself.
func TestCitiesDataset(t *testing.T) {
	cities := dataset.Cities(t)
	schema := Schema{{Name: "country", Kind: KindString}, {Name: "state", Kind: KindString}, {Name: "city", Kind: KindString}, {Name: "id", Kind: KindInt}}
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		tbl := NewTable("cities", schema)
		_, err := keyspace.BulkLoad(s, func(yield func([]byte, []byte) bool) {
			for _, c := range cities {
				k, err := tbl.Key(Tuple{c.Country, c.StateCode, c.Name, c.ID})
				if err != nil {
					t.Fatal(err)
				}
				if !yield(k, nil) {
					return
				}
			}
		}, nil)
		if err != nil {
			t.Fatal(err)
		}
		perCountry, perState := map[string]int{}, map[[2]string]int{}
		for _, c := range cities {
			perCountry[c.Country]++
			perState[[2]string{c.Country, c.StateCode}]++
		}
		s.View(func(tx keyspace.Tx) error {
			got, err := tbl.Count(tx, nil, 1)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(perCountry) {
				t.Errorf("%d country groups, CSV has %d", len(got), len(perCountry))
			}
			for _, g := range got {
				if n := perCountry[g.Group[0].(string)]; n != g.Count {
					t.Errorf("country %v: %d keys, CSV %d", g.Group, g.Count, n)
				}
			}
			got, err = tbl.Count(tx, nil, 2)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(perState) {
				t.Errorf("%d state groups, CSV has %d", len(got), len(perState))
			}
			for _, g := range got {
				if n := perState[[2]string{g.Group[0].(string), g.Group[1].(string)}]; n != g.Count {
					t.Errorf("state %v: %d keys, CSV %d", g.Group, g.Count, n)
				}
			}
			return nil
		})
		// One state's scan: exactly its cities, in (name bytes, id) order.
		var want []Tuple
		for _, c := range cities {
			if c.Country == "US" && c.StateCode == "CA" {
				want = append(want, Tuple{"US", "CA", c.Name, c.ID})
			}
		}
		slices.SortFunc(want, func(a, b Tuple) int {
			return cmp.Or(strings.Compare(a[2].(string), b[2].(string)), cmp.Compare(a[3].(int64), b[3].(int64)))
		})
		rng, err := tbl.Query("US:CA:*")
		if err != nil {
			t.Fatal(err)
		}
		got := scanAllPages0(t, s, tbl, rng)
		if len(want) == 0 || !equalTuples(flatten(got), flatten(want)) {
			t.Errorf("US:CA:* returned %d cities, CSV has %d", len(got), len(want))
		}
	})
}

// scanAllPages0 scans r in one page (records are empty in this table).
func scanAllPages0(t *testing.T, s keyspace.Store, tbl *Table, r keyspace.Range) []Tuple {
	var out []Tuple
	s.View(func(tx keyspace.Tx) error {
		page, err := tbl.Scan(tx, r, ScanOptions{})
		for _, row := range page.Rows {
			out = append(out, row.Key)
		}
		return err
	})
	return out
}

// TestTableGetDeleteAgainstModel: Put, Get and Delete, in random order
// over keys with separators, stars and zero bytes, agree with a map of
// the records; an absent key is keyspace.ErrNotFound; a key of the wrong
// shape is ErrKeyShape from each and changes nothing.
func TestTableGetDeleteAgainstModel(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		tbl := NewTable("users", userSchema)
		if tbl.Name() != "users" || len(tbl.Schema()) != len(userSchema) {
			t.Fatalf("Name %q, Schema %v", tbl.Name(), tbl.Schema())
		}
		r := rand.New(rand.NewPCG(7, 8))
		keys := userRows(r, 60)
		model := map[string][]byte{} // by the key's fmt form
		for step := 0; step < 600; step++ {
			key := keys[r.IntN(len(keys))]
			err := s.Update(func(tx keyspace.Tx) error {
				switch r.IntN(3) {
				case 0:
					rec := []byte(fmt.Sprint(step))
					model[fmt.Sprint(key)] = rec
					return tbl.Put(tx, key, rec)
				case 1:
					delete(model, fmt.Sprint(key))
					return tbl.Delete(tx, key)
				}
				got, err := tbl.Get(tx, key)
				want, ok := model[fmt.Sprint(key)]
				switch {
				case !ok && !errors.Is(err, keyspace.ErrNotFound):
					t.Errorf("Get(%q) of a deleted or absent key = %q, %v; want ErrNotFound", key, got, err)
				case ok && (err != nil || !bytes.Equal(got, want)):
					t.Errorf("Get(%q) = %q, %v; want %q", key, got, err, want)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		before := tableRows(t, s, tbl)
		if len(before) != len(model) {
			t.Fatalf("the table holds %d records, the model %d", len(before), len(model))
		}
		for _, row := range before {
			if want, ok := model[fmt.Sprint(row.Key)]; !ok || !bytes.Equal(row.Record, want) {
				t.Errorf("the table holds %q under %q, the model %q", row.Record, row.Key, want)
			}
		}
		bad := Tuple{"CA", "SF", "42"} // a string where the id is an integer
		s.Update(func(tx keyspace.Tx) error {
			if _, err := tbl.Get(tx, bad); !errors.Is(err, ErrKeyShape) {
				t.Errorf("Get(%q) = %v, want ErrKeyShape", bad, err)
			}
			if err := tbl.Delete(tx, bad); !errors.Is(err, ErrKeyShape) {
				t.Errorf("Delete(%q) = %v, want ErrKeyShape", bad, err)
			}
			return nil
		})
		if after := tableRows(t, s, tbl); !slices.EqualFunc(before, after, func(a, b Row) bool { return bytes.Equal(a.Record, b.Record) }) {
			t.Errorf("a refused Get or Delete changed the table")
		}
	})
}

// tableRows is every row of tbl, in key order.
func tableRows(t *testing.T, s keyspace.Store, tbl *Table) []Row {
	t.Helper()
	var rows []Row
	err := s.View(func(tx keyspace.Tx) error {
		for k, v := range tx.Scan(tbl.Subspace().Range()) {
			key, err := tbl.Subspace().Unpack(k)
			if err != nil {
				return err
			}
			rows = append(rows, Row{Key: key, Record: bytes.Clone(v)})
		}
		return tx.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
