package storetest

import (
	"fmt"
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
	key := func(i int) []byte { return fmt.Appendf(nil, "k%05d", i) }
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
