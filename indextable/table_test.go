package indextable

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/storetest"
)

type user struct {
	Name    string   `json:"name"`
	City    string   `json:"city"`
	Email   string   `json:"email"`
	Status  string   `json:"status"`
	Created int64    `json:"created"`
	Tags    []string `json:"tags"`
	Count   int      `json:"count"`
}

type indexes struct {
	city, email, tags, status *Index[user]
}

func usersTable(t testing.TB) (*Table[user], indexes) {
	tb := New[user]("users", nil)
	var ix indexes
	must := func(i *Index[user], e error) *Index[user] {
		if e != nil {
			t.Fatal(e)
		}
		return i
	}
	ix.city = must(tb.AddIndex(IndexSpec[user]{Name: "by_city",
		Values: func(u user) []composite.Tuple { return []composite.Tuple{{u.City}} },
		Cover:  func(u user) any { return map[string]string{"name": u.Name} }}))
	ix.email = must(tb.AddIndex(IndexSpec[user]{Name: "by_email", Unique: true,
		Values: func(u user) []composite.Tuple {
			if u.Email == "" {
				return nil
			}
			return []composite.Tuple{{u.Email}}
		}}))
	ix.tags = must(tb.AddIndex(IndexSpec[user]{Name: "by_tag", Values: func(u user) []composite.Tuple {
		var out []composite.Tuple
		for _, tag := range u.Tags {
			out = append(out, composite.Tuple{tag})
		}
		return out
	}}))
	ix.status = must(tb.AddIndex(IndexSpec[user]{Name: "by_status_created", Values: func(u user) []composite.Tuple {
		return []composite.Tuple{{u.Status, composite.Desc{V: u.Created}}}
	}}))
	return tb, ix
}

// recompute is the oracle: index entries (value, key) from the model.
func recompute(model map[int64]user, values func(user) []composite.Tuple) [][2]string {
	var out [][2]string
	for id, u := range model {
		seen := map[string]bool{}
		for _, v := range values(u) {
			k := fmt.Sprint(v)
			if !seen[k] {
				seen[k] = true
				out = append(out, [2]string{k, fmt.Sprint(composite.Tuple{id})})
			}
		}
	}
	slices.SortFunc(out, func(a, b [2]string) int { return cmp.Or(strings.Compare(a[0], b[0]), strings.Compare(a[1], b[1])) })
	return out
}

func scanned(t *testing.T, s keyspace.Store, r keyspace.Range, ix *Index[user]) [][2]string {
	var out [][2]string
	s.View(func(tx keyspace.Tx) error {
		p, err := ix.Scan(tx, r, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range p.Entries {
			out = append(out, [2]string{fmt.Sprint(e.Value), fmt.Sprint(e.Key)})
		}
		return nil
	})
	slices.SortFunc(out, func(a, b [2]string) int { return cmp.Or(strings.Compare(a[0], b[0]), strings.Compare(a[1], b[1])) })
	return out
}

// checkMatches compares Index.Match, for prefix queries on the city and
// status indexes (a city holds a separator and a zero byte), with the
// model's entries filtered by the query's meaning.
func checkMatches(t *testing.T, s keyspace.Store, model map[int64]user, ix indexes) {
	t.Helper()
	str := func(s string) *string { return &s }
	for _, tc := range []struct {
		ix *Index[user]
		q  composite.Query
	}{
		{ix.city, composite.Query{Partial: str("")}},
		{ix.city, composite.Query{Partial: str("O")}},
		{ix.city, composite.Query{Partial: str("Lima")}},
		{ix.city, composite.Query{Partial: str("Limas")}},
		{ix.city, composite.Query{Partial: str("a:b\x00")}},
		{ix.city, composite.Query{Partial: str("a:b\x00c")}},
		{ix.city, composite.Query{Partial: str("a:")}},
		{ix.city, composite.Query{Prefix: composite.Tuple{"Oslo"}, Exact: true}},
		{ix.status, composite.Query{Prefix: composite.Tuple{"open"}}},
		{ix.status, composite.Query{Partial: str("comp")}},
		{ix.status, composite.Query{Partial: str("x")}},
	} {
		matches := func(v composite.Tuple) bool {
			if len(v) < len(tc.q.Prefix) || fmt.Sprint(v[:len(tc.q.Prefix)]) != fmt.Sprint(tc.q.Prefix) {
				return false
			}
			if tc.q.Partial == nil {
				return true
			}
			next, ok := v[len(tc.q.Prefix)].(string)
			return ok && strings.HasPrefix(next, *tc.q.Partial)
		}
		want := recompute(model, func(u user) []composite.Tuple {
			var kept []composite.Tuple
			for _, v := range tc.ix.spec.Values(u) {
				if matches(v) {
					kept = append(kept, v)
				}
			}
			return kept
		})
		if got := scanned(t, s, tc.ix.Match(tc.q), tc.ix); !slices.Equal(got, want) {
			t.Fatalf("%s Match(%+v):\n got %v\nwant %v", tc.ix.Name(), tc.q, got, want)
		}
	}
}

func TestIndexesAgainstRecomputation(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) { indexesAgainstRecomputation(t, s, 1, 500, 50) })
}

// FuzzIndexesAgainstRecomputation runs indexesAgainstRecomputation from
// fuzzed seeds on a fuzzed backend, checking every ten steps.
func FuzzIndexesAgainstRecomputation(f *testing.F) {
	storetest.FuzzEachBackend(f, func(t *testing.T, s keyspace.Store, seed uint64) { indexesAgainstRecomputation(t, s, seed, 60, 10) })
}

// indexesAgainstRecomputation runs steps random transactions of puts and
// deletes (some violating a unique index, some failing after their
// writes, both rolling back whole) and, every every steps, compares each
// index (its entries, Verify and GroupCounts) with a recomputation from
// a model of the committed records, and the table with the model.
func indexesAgainstRecomputation(t *testing.T, s keyspace.Store, seed uint64, steps, every int) {
	tb, ix := usersTable(t)
	r := rand.New(rand.NewPCG(seed, 2))
	model := map[int64]user{}
	cities := []string{"Oslo", "Lima", "Pune", "a:b\x00c"}
	randomUser := func() user {
		u := user{Name: fmt.Sprint("n", r.IntN(100)), City: cities[r.IntN(len(cities))], Status: []string{"open", "completed"}[r.IntN(2)],
			Created: r.Int64N(1000)}
		if r.IntN(3) > 0 {
			u.Email = fmt.Sprintf("u%d@x", r.IntN(40))
		}
		for range r.IntN(4) { // duplicates and empty arrays
			u.Tags = append(u.Tags, []string{"go", "geo", "db"}[r.IntN(3)])
		}
		return u
	}
	for step := 0; step < steps; step++ {
		id := int64(r.IntN(60))
		u := randomUser()
		failHalfWay := r.IntN(10) == 0
		pending := map[int64]*user{}
		err := s.Update(func(tx keyspace.Tx) error {
			for j := 0; j < 1+r.IntN(3); j++ {
				if r.IntN(4) == 0 {
					if err := tb.Delete(tx, composite.Tuple{id}); err != nil {
						return err
					}
					pending[id] = nil
				} else {
					if _, err := tb.Put(tx, composite.Tuple{id}, u); err != nil {
						return err
					}
					uu := u
					pending[id] = &uu
				}
				id, u = int64(r.IntN(60)), randomUser()
			}
			if failHalfWay {
				return errors.New("fail after writing")
			}
			return nil
		})
		switch {
		case errors.Is(err, ErrUnique):
			// rolled back whole: the model stays
		case err != nil && !failHalfWay:
			t.Fatal(err)
		case err == nil:
			for id, u := range pending {
				if u == nil {
					delete(model, id)
				} else {
					model[id] = *u
				}
			}
		}
		if step%every != every-1 {
			continue
		}
		checkTable(t, s, tb, model)
		checkMatches(t, s, model, ix)
		for _, x := range []*Index[user]{ix.city, ix.email, ix.tags, ix.status} {
			want := recompute(model, x.spec.Values)
			if got := scanned(t, s, x.All(), x); !slices.Equal(got, want) {
				t.Fatalf("step %d: index %s:\n got %v\nwant %v", step, x.Name(), got, want)
			}
			s.View(func(tx keyspace.Tx) error {
				problems, err := x.Verify(tx)
				if err != nil || len(problems) != 0 {
					t.Fatalf("verify %s: %v %v", x.Name(), problems, err)
				}
				// GroupCounts by the first component: each record once
				// under each distinct value it has.
				wantGroups := map[string]int{}
				for _, u := range model {
					seen := map[string]bool{}
					for _, v := range x.spec.Values(u) {
						if p := string(v.Pack()); !seen[p] {
							seen[p] = true
							wantGroups[fmt.Sprint(v[:1])]++
						}
					}
				}
				groups, err := x.GroupCounts(tx, nil, 1)
				gotGroups := map[string]int{}
				for _, g := range groups {
					gotGroups[fmt.Sprint(g.Group)] = g.Count
				}
				if err != nil || fmt.Sprint(gotGroups) != fmt.Sprint(wantGroups) {
					t.Fatalf("step %d: index %s's groups %v (%v), recomputed %v", step, x.Name(), gotGroups, err, wantGroups)
				}
				return nil
			})
		}
	}
}

func TestQueriesAndCovering(t *testing.T) {
	s := keyspace.NewMemory()
	tb, ix := usersTable(t)
	users := map[int64]user{
		1: {Name: "ann", City: "Oslo", Status: "completed", Created: 10, Email: "ann@x"},
		2: {Name: "bob", City: "Oslo", Status: "completed", Created: 30},
		3: {Name: "cai", City: "Lima", Status: "open", Created: 20},
		4: {Name: "dee", City: "Oslo", Status: "completed", Created: 20, Tags: []string{"go", "go"}},
	}
	s.Update(func(tx keyspace.Tx) error {
		for id, u := range users {
			if _, err := tb.Put(tx, composite.Tuple{id}, u); err != nil {
				return err
			}
		}
		return nil
	})
	s.View(func(tx keyspace.Tx) error {
		// status = completed, newest createTime first, paged two at a time.
		var order []int64
		cursor := ""
		for {
			p, err := ix.status.Scan(tx, ix.status.Equal("completed"), &ListOptions{Limit: 2, Cursor: cursor})
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range p.Entries {
				order = append(order, e.Key[0].(int64))
			}
			if cursor = p.Next; cursor == "" {
				break
			}
		}
		if !slices.Equal(order, []int64{2, 4, 1}) {
			t.Errorf("completed, newest first: %v, want [2 4 1]", order)
		}
		// Covering: names of Oslo users without reading a record.
		p, _ := ix.city.Scan(tx, ix.city.Equal("Oslo"), nil)
		var names []string
		for _, e := range p.Entries {
			var c map[string]string
			if err := (JSON{}).Unmarshal(e.Covered, &c); err != nil {
				t.Fatal(err)
			}
			names = append(names, c["name"])
		}
		if !slices.Equal(names, []string{"ann", "bob", "dee"}) {
			t.Errorf("covered names in Oslo: %v", names)
		}
		// Multikey with a duplicate: one entry.
		p, _ = ix.tags.Scan(tx, ix.tags.Equal("go"), nil)
		if len(p.Entries) != 1 {
			t.Errorf("tag go: %d entries, want 1", len(p.Entries))
		}
		// Records for entries, and a range on the compound index.
		p, _ = ix.status.Scan(tx, ix.status.Between(composite.Tuple{"completed"}, composite.Tuple{composite.Desc{V: int64(25)}}, nil), nil)
		recs, err := ix.status.Records(tx, p.Entries)
		if err != nil || len(recs) != 2 || recs[0].Value.Name != "dee" || recs[1].Value.Name != "ann" {
			t.Errorf("completed with createTime ≤ 25: %+v %v", recs, err)
		}
		return nil
	})
	// A unique violation names the index and value and writes nothing.
	err := s.Update(func(tx keyspace.Tx) error {
		_, err := tb.Put(tx, composite.Tuple{int64(9)}, user{Name: "eve", Email: "ann@x"})
		return err
	})
	if !errors.Is(err, ErrUnique) || !strings.Contains(err.Error(), "by_email") || !strings.Contains(err.Error(), "ann@x") {
		t.Errorf("unique violation: %v", err)
	}
	s.View(func(tx keyspace.Tx) error {
		if _, err := tb.Get(tx, composite.Tuple{int64(9)}); !errors.Is(err, keyspace.ErrNotFound) {
			t.Errorf("the refused record exists: %v", err)
		}
		return nil
	})
}

func TestBuildResumeVerifyRepairDrop(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		tb := New[user]("people", nil)
		s.Update(func(tx keyspace.Tx) error {
			for i := 0; i < 2500; i++ {
				if _, err := tb.Put(tx, composite.Tuple{int64(i)}, user{City: fmt.Sprint("c", i%7), Name: fmt.Sprint(i)}); err != nil {
					return err
				}
			}
			return nil
		})
		ix, _ := tb.AddIndex(IndexSpec[user]{Name: "by_city", Values: func(u user) []composite.Tuple { return []composite.Tuple{{u.City}} }})
		pending := func(when string, want bool) {
			t.Helper()
			s.View(func(tx keyspace.Tx) error {
				if got, err := ix.BuildPending(tx); err != nil || got != want {
					t.Errorf("%s: BuildPending = %v, %v; want %v", when, got, err, want)
				}
				return nil
			})
		}
		pending("declared", false)
		if err := s.Update(ix.MarkUnbuilt); err != nil {
			t.Fatal(err)
		}
		pending("marked unbuilt", true)
		s.View(func(tx keyspace.Tx) error {
			if p, _ := ix.Verify(tx); len(p) != 2500 {
				t.Errorf("unbuilt index: %d problems, want 2500 missing", len(p))
			}
			return nil
		})
		// A build that stops after two batches (a crash), then resumes.
		crash := errors.New("crash")
		done, err := ix.Build(s, &BuildOptions{BatchSize: 500, Progress: func(n int) error {
			if n >= 1000 {
				return crash
			}
			return nil
		}})
		if !errors.Is(err, crash) || done != 1000 {
			t.Fatalf("interrupted build: %d, %v", done, err)
		}
		pending("interrupted", true)
		if err := s.Update(ix.MarkUnbuilt); err != nil { // keeps the progress
			t.Fatal(err)
		}
		var progress []int
		done, err = ix.Build(s, &BuildOptions{BatchSize: 500, Progress: func(n int) error { progress = append(progress, n); return nil }})
		if err != nil || done != 1500 {
			t.Fatalf("resumed build visited %d records (%v), want the remaining 1500", done, err)
		}
		if !slices.Equal(progress, []int{500, 1000, 1500}) {
			t.Errorf("progress %v", progress)
		}
		pending("built", false)
		s.Update(func(tx keyspace.Tx) error {
			if p, _ := ix.Verify(tx); len(p) != 0 {
				t.Errorf("after build: %v", p[:min(3, len(p))])
			}
			// Damage it: a stale entry and a missing one; Repair fixes both.
			tx.Put(ix.sub.Pack(composite.Tuple{"nowhere", int64(99999)}), []byte{1})
			tx.Delete(ix.sub.Pack(composite.Tuple{"c1", int64(1)}))
			p, _ := ix.Verify(tx)
			if len(p) != 2 {
				t.Errorf("damaged: %v", p)
			}
			if err := ix.MarkUnbuilt(tx); err != nil {
				t.Fatal(err)
			}
			if _, err := ix.Repair(tx); err != nil {
				t.Fatal(err)
			}
			if p, _ := ix.Verify(tx); len(p) != 0 {
				t.Errorf("after repair: %v", p)
			}
			if got, _ := ix.BuildPending(tx); got {
				t.Error("a build pending after Repair")
			}
			return ix.Drop(tx)
		})
		tb.RemoveIndex(ix)
		s.View(func(tx keyspace.Tx) error {
			n := 0
			for range tx.Scan(ix.sub.Range()) {
				n++
			}
			if n != 0 {
				t.Errorf("%d entries after drop", n)
			}
			return nil
		})
	})
}

func TestConcurrentUpdatesLoseNothing(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		tb := New[user]("counters", nil)
		key := composite.Tuple{"page"}
		var wg sync.WaitGroup
		var conflicts sync.Map
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 50; i++ {
					// Read-modify-write in one transaction.
					if err := s.Update(func(tx keyspace.Tx) error {
						_, err := tb.Update(tx, key, func(u *user) error { u.Count++; u.Tags = append(u.Tags, "x"); return nil })
						return err
					}); err != nil {
						t.Error(err)
					}
					// Compare-and-set across transactions: retry on conflict.
					for {
						var rec Record[user]
						s.View(func(tx keyspace.Tx) error { rec, _ = tb.Get(tx, key); return nil })
						rec.Value.Created++
						err := s.Update(func(tx keyspace.Tx) error {
							_, err := tb.CompareAndSet(tx, key, rec.Version, rec.Value)
							return err
						})
						if err == nil {
							break
						}
						if !errors.Is(err, ErrVersion) {
							t.Error(err)
							return
						}
						conflicts.Store(g, true)
					}
				}
			}()
		}
		wg.Wait()
		s.View(func(tx keyspace.Tx) error {
			rec, err := tb.Get(tx, key)
			if err != nil || rec.Value.Count != 400 || len(rec.Value.Tags) != 400 || rec.Value.Created != 400 || rec.Version != 800 {
				t.Errorf("after 400 increments and 400 CAS: count %d tags %d created %d version %d (%v)",
					rec.Value.Count, len(rec.Value.Tags), rec.Value.Created, rec.Version, err)
			}
			return nil
		})
	})
}

// TestPutAllMatchesPut: a bulk write leaves the same records and indexes
// as one Put per row, and refuses a unique value given to two rows.
func TestPutAllMatchesPut(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		tb, ix := usersTable(t)
		r := rand.New(rand.NewPCG(5, 6))
		model := map[int64]user{}
		for round := 0; round < 3; round++ { // later rounds overwrite earlier records
			var rows []Row[user]
			for i := 0; i < 300; i++ {
				id := int64(r.IntN(400))
				u := user{Name: fmt.Sprint(i), City: fmt.Sprint("c", r.IntN(9)), Status: "open", Created: int64(i), Tags: []string{"x", fmt.Sprint(r.IntN(3))}}
				rows = append(rows, Row[user]{Key: composite.Tuple{id}, Value: u})
				model[id] = u
			}
			if err := s.Update(func(tx keyspace.Tx) error { return tb.PutAll(tx, rows) }); err != nil {
				t.Fatal(err)
			}
		}
		for _, x := range []*Index[user]{ix.city, ix.tags, ix.status, ix.email} {
			if got, want := scanned(t, s, x.All(), x), recompute(model, x.spec.Values); !slices.Equal(got, want) {
				t.Fatalf("index %s after PutAll differs from recomputation", x.Name())
			}
		}
		err := s.Update(func(tx keyspace.Tx) error {
			return tb.PutAll(tx, []Row[user]{{Key: composite.Tuple{int64(1000)}, Value: user{Email: "same@x"}}, {Key: composite.Tuple{int64(1001)}, Value: user{Email: "same@x"}}})
		})
		if !errors.Is(err, ErrUnique) {
			t.Errorf("two rows with one unique value: %v", err)
		}
	})
}

// checkTable compares the table's records, in key order, with the model.
func checkTable(t *testing.T, s keyspace.Store, tb *Table[user], model map[int64]user) {
	t.Helper()
	var got []int64
	err := s.View(func(tx keyspace.Tx) error {
		return tb.Scan(tx, tb.Range(), func(rec Record[user]) bool {
			id, _ := rec.Key[0].(int64)
			if want, ok := model[id]; !ok || !reflect.DeepEqual(rec.Value, want) {
				t.Fatalf("record %v is %+v, model %+v (present %v)", rec.Key, rec.Value, want, ok)
			}
			got = append(got, id)
			return true
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Sorted(maps.Keys(model))
	if !slices.Equal(got, want) {
		t.Fatalf("table holds %v, model %v", got, want)
	}
}

// FuzzIndexRepair: after random puts and deletes of users (every index
// kind: covering, unique, multikey, descending compound), entries of the
// indexes are damaged at random: deleted, their covered fields or value
// lengths changed, stray entries added, some with bytes no decoder reads.
// Verify must find a problem exactly when an index changed, and Repair
// must put every key back as Put and Delete left it. Unique duplicates
// never arise (a stray entry names no record), so Repair fixes all.
func FuzzIndexRepair(f *testing.F) {
	storetest.FuzzEachBackend(f, func(t *testing.T, s keyspace.Store, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 43))
		tb, ix := usersTable(t)
		every := []*Index[user]{ix.city, ix.email, ix.tags, ix.status}
		if err := s.Update(func(tx keyspace.Tx) error {
			for i := range 80 {
				pk := composite.Tuple{int64(r.IntN(30))}
				if r.IntN(5) == 0 {
					if err := tb.Delete(tx, pk); err != nil {
						return err
					}
					continue
				}
				u := user{Name: fmt.Sprint("n", i), City: fmt.Sprint("c", r.IntN(4)), Status: []string{"open", "done"}[r.IntN(2)],
					Created: int64(r.IntN(10)), Tags: []string{"a", "b", "c"}[:r.IntN(4)]}
				if r.IntN(2) == 0 {
					u.Email = fmt.Sprint(pk[0], "@x") // unique by construction
				}
				if _, err := tb.Put(tx, pk, u); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		sound := storetest.Contents(t, s)
		if err := s.Update(func(tx keyspace.Tx) error {
			for range 1 + r.IntN(4) {
				x := every[r.IntN(len(every))]
				var keys [][]byte
				for k := range tx.Scan(x.sub.Range()) {
					keys = append(keys, bytes.Clone(k))
				}
				var err error
				switch {
				case r.IntN(3) == 0 && len(keys) > 0:
					err = tx.Delete(keys[r.IntN(len(keys))])
				case r.IntN(2) == 0 && len(keys) > 0:
					err = tx.Put(keys[r.IntN(len(keys))], []byte{byte(r.IntN(3)), '{', '}'}) // a value length, covered fields
				case r.IntN(2) == 0:
					err = tx.Put(append(x.sub.Bytes(), byte(r.IntN(255)), 0xff), []byte{1}) // no decoder reads it
				default:
					err = tx.Put(x.sub.Pack(composite.Tuple{"nowhere", int64(r.IntN(40))}), []byte{1})
				}
				if err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		// Every index at once: the problems of each, in turn.
		each := func(do func(*Index[user], keyspace.Tx) ([]Problem, error)) func(keyspace.Tx) ([]string, error) {
			return func(tx keyspace.Tx) ([]string, error) {
				var all []string
				for _, x := range every {
					problems, err := do(x, tx)
					if err != nil {
						return nil, err
					}
					for _, p := range problems {
						all = append(all, x.Name()+": "+p.String())
					}
				}
				return all, nil
			}
		}
		storetest.CheckRepair(t, s, sound, each((*Index[user]).Verify), each((*Index[user]).Repair))

	})
}

// TestBuildWritesWhatWritesKeep: the indexes of usersTable (covering,
// unique, multikey, descending) built over existing records, some of
// which expire, in batches of 7, hold exactly the keys and values that
// the same indexes kept by the writes themselves hold, on both backends.
func TestBuildWritesWhatWritesKeep(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, built keyspace.Store) {
		kept := keyspace.NewMemory()
		defer kept.Close()
		r := rand.New(rand.NewPCG(31, 32))
		now := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
		var rows []Row[user]
		for i := range 200 {
			u := user{Name: fmt.Sprint("n", i), City: fmt.Sprint("c", r.IntN(9)), Status: []string{"open", "done"}[r.IntN(2)],
				Created: int64(r.IntN(1000))}
			if r.IntN(3) > 0 {
				u.Email = fmt.Sprint("u", i, "@x")
			}
			for range r.IntN(4) {
				u.Tags = append(u.Tags, fmt.Sprint("t", r.IntN(6)))
			}
			row := Row[user]{Key: composite.Tuple{int64(i)}, Value: u}
			if r.IntN(4) == 0 {
				row.Expires = now.Add(time.Duration(r.IntN(100)-50) * time.Hour) // some past, some to come
			}
			rows = append(rows, row)
		}
		withIndexes, _ := usersTable(t)
		if err := kept.Update(func(tx keyspace.Tx) error { return withIndexes.PutAll(tx, rows) }); err != nil {
			t.Fatal(err)
		}
		bare := New[user]("users", nil)
		if err := built.Update(func(tx keyspace.Tx) error { return bare.PutAll(tx, rows) }); err != nil {
			t.Fatal(err)
		}
		_, ix := usersTable(t) // the same table, declaring its indexes over the records
		for _, index := range []*Index[user]{ix.city, ix.email, ix.tags, ix.status} {
			if _, err := index.Build(built, &BuildOptions{BatchSize: 7}); err != nil {
				t.Fatal(err)
			}
		}
		if a, b := storetest.Contents(t, built), storetest.Contents(t, kept); !maps.Equal(a, b) {
			t.Errorf("built indexes: %d keys, kept by the writes: %d, or other values", len(a), len(b))
		}
	})
}

// TestScanKeep: ListOptions.Keep keeps the entries it accepts, here by
// their records (Records in the same transaction), and pages of a few
// kept entries at a time, forward and reversed, read back exactly the
// kept entries of one full scan, in its order.
func TestScanKeep(t *testing.T) {
	s := keyspace.NewMemory()
	tb, ix := usersTable(t)
	r := rand.New(rand.NewPCG(7, 8))
	if err := s.Update(func(tx keyspace.Tx) error {
		for id := range int64(300) {
			u := user{Name: fmt.Sprint("u", id), City: []string{"Oslo", "Lima", "Rome"}[r.IntN(3)], Status: "open", Count: r.IntN(10)}
			if _, err := tb.Put(tx, composite.Tuple{id}, u); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	s.View(func(tx keyspace.Tx) error {
		keep := func(e Entry) bool {
			recs, err := ix.city.Records(tx, []Entry{e})
			if err != nil {
				t.Fatal(err)
			}
			return len(recs) == 1 && recs[0].Value.Count >= 7
		}
		for _, reverse := range []bool{false, true} {
			all, err := ix.city.Scan(tx, ix.city.All(), &ListOptions{Reverse: reverse})
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, e := range all.Entries {
				if keep(e) {
					want = append(want, fmt.Sprint(e.Value, e.Key))
				}
			}
			var got []string
			for cursor, pages := "", 0; ; pages++ {
				p, err := ix.city.Scan(tx, ix.city.All(), &ListOptions{Reverse: reverse, Limit: 4, Cursor: cursor, Keep: keep})
				if err != nil {
					t.Fatal(err)
				}
				if len(p.Entries) > 4 || pages > 100 {
					t.Fatalf("a page of %d entries, page %d", len(p.Entries), pages)
				}
				for _, e := range p.Entries {
					got = append(got, fmt.Sprint(e.Value, e.Key))
				}
				if cursor = p.Next; cursor == "" {
					break
				}
			}
			if len(want) < 30 || !slices.Equal(got, want) {
				t.Errorf("reverse %v: kept %d entries %v, want %d %v", reverse, len(got), got, len(want), want)
			}
		}
		return nil
	})
}

// TestUpdateRefusedWritesNothing: an Update whose function fails, or
// whose result takes a unique value another record holds, returns that
// error and leaves every key as it was, even in a transaction that then
// commits; one that succeeds on a key with
// no record is given the zero record and writes its result with its
// index entries.
func TestUpdateRefusedWritesNothing(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		tb, ix := usersTable(t)
		if err := s.Update(func(tx keyspace.Tx) error {
			if _, err := tb.Put(tx, composite.Tuple{int64(1)}, user{Name: "ann", City: "Oslo", Email: "a@x"}); err != nil {
				return err
			}
			_, err := tb.Put(tx, composite.Tuple{int64(2)}, user{Name: "bob", City: "Lima", Email: "b@x"})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		before := storetest.Contents(t, s)
		stop := errors.New("stop")
		for name, fn := range map[string]func(u *user) error{
			"a failing function": func(u *user) error { u.City = "Rome"; return stop },
			"a taken email":      func(u *user) error { u.City = "Rome"; u.Email = "a@x"; return nil },
		} {
			var err error
			if err := s.Update(func(tx keyspace.Tx) error { // committed: the refused Update must itself have written nothing
				_, err = tb.Update(tx, composite.Tuple{int64(2)}, fn)
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if err == nil || name == "a failing function" && !errors.Is(err, stop) || name == "a taken email" && !errors.Is(err, ErrUnique) {
				t.Errorf("%s: %v", name, err)
			}
			if after := storetest.Contents(t, s); !maps.Equal(after, before) {
				t.Errorf("%s changed the store", name)
			}
		}
		var given user
		if err := s.Update(func(tx keyspace.Tx) error {
			_, err := tb.Update(tx, composite.Tuple{int64(3)}, func(u *user) error {
				given = *u
				u.Name, u.City = "cy", "Rome"
				return nil
			})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(given, user{}) {
			t.Errorf("Update of a key with no record was given %+v, want the zero user", given)
		}
		s.View(func(tx keyspace.Tx) error {
			var keys []string
			page, err := ix.city.Scan(tx, ix.city.Equal("Rome"), nil)
			for _, e := range page.Entries {
				keys = append(keys, fmt.Sprint(e.Key))
			}
			if err != nil || !slices.Equal(keys, []string{"[3]"}) {
				t.Errorf("by_city Rome after Update: %v, %v; want [[3]]", keys, err)
			}
			return nil
		})
	})
}
