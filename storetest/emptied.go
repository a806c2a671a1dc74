package storetest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
)

// testEmptiedPages deletes whole runs of pairs (the middle of the keys,
// all but the first or last few, every one) from a store of thousands
// and then, in the same transaction, reads it forwards and backwards and
// writes sorted pairs after it, comparing each read with the model.
//
// bbolt leaves the pages such deletes empty in place until the
// transaction commits, and its cursor trips on them: Prev stops at an
// empty page as if it were the first key (a reverse scan after it
// returns too few pairs), and Last, with every page empty, loops for
// ever (so a WriteSorted, which asks for the last key, hung after a
// delete of everything). Each transaction here runs under a watchdog
// that fails the test rather than hang it.
func testEmptiedPages(t *testing.T, newStore NewStore) {
	key := emptiedKey
	const n = 3000
	value := make([]byte, 100)
	all := Model{}
	for i := range n {
		all[string(key(i))] = string(value)
	}
	cases := []struct {
		name     string
		from, to int // the pairs deleted: [from, to)
	}{
		{"middle", 1000, 2000},
		{"all but the first", 10, n},
		{"all but the last", 0, n - 10},
		{"all but one in the middle", 0, n},
		{"every one", 0, n},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := open(t, newStore)
			fill(t, s, all)
			m := all.Clone()
			within(t, 30*time.Second, func() error {
				return s.Update(func(tx keyspace.Tx) error {
					deleted, err := tx.DeleteRange(keyspace.Range{Start: key(tc.from), End: key(tc.to)})
					if err != nil {
						return err
					}
					if want := m.DeleteRange(keyspace.Range{Start: key(tc.from), End: key(tc.to)}); deleted != want {
						return fmt.Errorf("DeleteRange deleted %d pairs, the model %d", deleted, want)
					}
					if tc.name == "all but one in the middle" {
						if err := tx.Put(key(n/2), []byte("kept")); err != nil {
							return err
						}
						m[string(key(n/2))] = "kept"
					}
					reads := []keyspace.Range{
						{}, {Reverse: true},
						{Start: key(500), End: key(2500)}, {Start: key(500), End: key(2500), Reverse: true},
						{End: key(1500), Reverse: true}, {Start: key(1500), Reverse: true},
						{Start: key(2990), Reverse: true, Limit: 3},
					}
					for _, r := range reads {
						got, err := Collect(tx, r)
						if err != nil {
							return err
						}
						if want := m.Scan(r); !slices.Equal(got, want) {
							return fmt.Errorf("Scan(%q..%q rev=%v lim=%d) = %d pairs, the model %d; %s",
								r.Start, r.End, r.Reverse, r.Limit, len(got), len(want), firstDifference(got, want))
						}
					}
					// Sorted pairs after every key left.
					pairs := func(yield func([]byte, []byte) bool) {
						for i := n; i < n+20; i++ {
							if !yield(key(i), []byte("new")) {
								return
							}
						}
					}
					if err := keyspace.WriteSorted(tx, pairs); err != nil {
						return err
					}
					for i := n; i < n+20; i++ {
						m[string(key(i))] = "new"
					}
					got, err := Collect(tx, keyspace.Range{Reverse: true})
					if want := m.Scan(keyspace.Range{Reverse: true}); err == nil && !slices.Equal(got, want) {
						return fmt.Errorf("after WriteSorted, a reverse scan = %d pairs, the model %d", len(got), len(want))
					}
					return err
				})
			})
			checkContents(t, s, m)
		})
	}
}

// testEmptiedPagesRandomly deletes random wide ranges of a store of
// thousands of pairs, puts a few back, and scans random ranges both ways
// in the same transaction, comparing each with the model: the deletes
// empty pages anywhere, for the scans to cross from either side.
func testEmptiedPagesRandomly(t *testing.T, newStore NewStore) {
	key := emptiedKey
	const n = 4000
	value := string(make([]byte, 100))
	for seed := range uint64(6) {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 99))
			s := open(t, newStore)
			m := Model{}
			for i := range n {
				m[string(key(i))] = value
			}
			fill(t, s, m)
			within(t, 30*time.Second, func() error {
				return s.Update(func(tx keyspace.Tx) error {
					for op := range 40 {
						a, b := r.IntN(n+1), r.IntN(n+1)
						rg := keyspace.Range{Start: key(min(a, b)), End: key(max(a, b))}
						switch r.IntN(4) {
						case 0:
							if _, err := tx.DeleteRange(rg); err != nil {
								return err
							}
							m.DeleteRange(rg)
						case 1:
							k := key(r.IntN(n))
							if err := tx.Put(k, []byte("back")); err != nil {
								return err
							}
							m[string(k)] = "back"
						default:
							rg.Reverse = r.IntN(3) > 0
							if r.IntN(4) == 0 {
								rg.Start = nil
							}
							if r.IntN(4) == 0 {
								rg.End = nil
							}
							if r.IntN(3) == 0 {
								rg.Limit = 1 + r.IntN(50)
							}
							got, err := Collect(tx, rg)
							if err != nil {
								return err
							}
							if want := m.Scan(rg); !slices.Equal(got, want) {
								return fmt.Errorf("op %d: Scan(%q..%q rev=%v lim=%d) = %d pairs, the model %d; %s",
									op, rg.Start, rg.End, rg.Reverse, rg.Limit, len(got), len(want), firstDifference(got, want))
							}
						}
					}
					return nil
				})
			})
			checkContents(t, s, m)
		})
	}
}

// emptiedKey is the i-th key of the EmptiedPages tests' stores: keys in
// the order of i.
func emptiedKey(i int) []byte { return fmt.Appendf(nil, "k%05d", i) }

// within runs fn and fails t with its error, or when it has not returned
// after d (it is left running: a hung store cannot be stopped).
func within(t *testing.T, d time.Duration, fn func() error) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(d):
		t.Fatalf("still running after %v: hung", d)
	}
}

// firstDifference says where got and want, pairs of a scan, part.
func firstDifference(got, want []Pair) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("pair %d is %q, the model's %q", i, got[i].Key, want[i].Key)
		}
	}
	if len(got) > len(want) {
		return fmt.Sprintf("then %q", got[len(want)].Key)
	}
	if len(want) > len(got) {
		return fmt.Sprintf("then the model's %q", want[len(got)].Key)
	}
	return "the same"
}
