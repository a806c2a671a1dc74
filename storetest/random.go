package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/keyspacedb/keyspace"
)

// modelSeeds make the randomized test reproducible: a failure names its seed.
var modelSeeds = []uint64{1, 2, 3, 42, 20261122}

// randomKey draws from a small alphabet that includes 0x00 and 0xFF, so that
// keys collide, share prefixes and sit on the awkward bytes.
func randomKey(r *rand.Rand) []byte {
	const alphabet = "\x00ab\xff"
	n := 1 + r.IntN(4)
	k := make([]byte, n)
	for i := range k {
		k[i] = alphabet[r.IntN(len(alphabet))]
	}
	return k
}

// randomRange draws bounds (sometimes nil, sometimes inverted), a direction
// and a limit.
func randomRange(r *rand.Rand) keyspace.Range {
	var rg keyspace.Range
	switch r.IntN(4) {
	case 0:
		k := randomKey(r)
		rg = keyspace.Prefix(k[:1+r.IntN(len(k))])
	default:
		if r.IntN(3) > 0 {
			rg.Start = randomKey(r)
		}
		if r.IntN(3) > 0 {
			rg.End = randomKey(r)
		}
	}
	rg.Reverse = r.IntN(2) == 0
	if r.IntN(3) == 0 {
		rg.Limit = 1 + r.IntN(10)
	}
	return rg
}

var errAbort = errors.New("storetest: abort this transaction")

// testModel runs thousands of random operations in random transactions, some
// of which roll back, and compares every read with the reference model.
func testModel(t *testing.T, newStore NewStore) {
	for _, seed := range modelSeeds {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) { RandomModel(t, newStore, seed, 200) })
	}
}

// RandomModel runs txns random transactions of 20 random operations each
// (puts, deletes, range deletes, gets and scans of keys drawn to collide
// and to hold 0x00 and 0xFF) against a fresh store and a sorted reference
// map. A fifth of the transactions roll back. Every read inside a
// transaction, the committed contents after each, and a read-only scan,
// visit and multi-range visit of them are compared with the model. The
// run is a function of seed alone, so a failure is reproduced by its seed:
// a fuzz target can drive it (keyspace's FuzzModel).
func RandomModel(t *testing.T, newStore NewStore, seed uint64, txns int) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, seed))
	s := open(t, newStore)
	committed := Model{}
	for txn := 0; txn < txns; txn++ {
		m := committed.Clone()
		abort := r.IntN(5) == 0
		err := s.Update(func(tx keyspace.Tx) error {
			for op := 0; op < 20; op++ {
				if err := randomOp(t, r, tx, m); err != nil {
					return err
				}
			}
			if abort {
				return errAbort
			}
			return nil
		})
		if abort && err != errAbort || !abort && err != nil {
			t.Fatalf("seed %d txn %d: Update = %v", seed, txn, err)
		}
		if !abort {
			committed = m
		}
		checkContents(t, s, committed)
		// A random read-only scan of the committed state.
		rg := randomRange(r)
		err = s.View(func(tx keyspace.Tx) error {
			got, err := Collect(tx, rg)
			if want := committed.Scan(rg); !slices.Equal(got, want) {
				t.Fatalf("seed %d txn %d: View Scan(%q..%q rev=%v lim=%d) = %s, want %s",
					seed, txn, rg.Start, rg.End, rg.Reverse, rg.Limit, show(got), show(want))
			}
			if err != nil {
				return err
			}
			// VisitRange visits what Scan yields, and stops when
			// told to.
			stop := r.IntN(4)
			got, err = CollectVisited(tx, rg, stop)
			want := committed.Scan(rg)
			if stop > 0 && len(want) > stop {
				want = want[:stop]
			}
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d txn %d: View VisitRange(%q..%q rev=%v lim=%d) stopping after %d = %s, want %s",
					seed, txn, rg.Start, rg.End, rg.Reverse, rg.Limit, stop, show(got), show(want))
			}
			if err != nil {
				return err
			}
			// Several forward ranges in a row, in key order as a
			// geo query visits them, and then in any order: a
			// store may start each visit from where the last
			// one ended, and must not miss or repeat a pair.
			runs := make([]keyspace.Range, 1+r.IntN(6))
			for i := range runs {
				runs[i] = randomRange(r)
				runs[i].Reverse = false
			}
			if r.IntN(3) > 0 {
				slices.SortFunc(runs, func(a, b keyspace.Range) int { return bytes.Compare(a.Start, b.Start) })
			}
			for _, rg := range runs {
				got, err := CollectVisited(tx, rg, 0)
				if want := committed.Scan(rg); !slices.Equal(got, want) {
					t.Fatalf("seed %d txn %d: View VisitRange(%q..%q lim=%d) after others = %s, want %s",
						seed, txn, rg.Start, rg.End, rg.Limit, show(got), show(want))
				}
				if err != nil {
					return err
				}
			}
			// VisitRanges over the same ranges, and over ascending
			// disjoint ones as a geo query's covering is: each
			// range's pairs in turn, with its index.
			return checkVisitRanges(t, r, tx, committed, runs, fmt.Sprintf("seed %d txn %d", seed, txn))
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// checkVisitRanges compares VisitRanges over runs, and over ascending
// disjoint ranges cut from random keys, with the model, sometimes
// stopping the visit early.
func checkVisitRanges(t *testing.T, r *rand.Rand, tx keyspace.Tx, m Model, runs []keyspace.Range, where string) error {
	bounds := make([][]byte, 2*(1+r.IntN(6)))
	for i := range bounds {
		bounds[i] = randomKey(r)
	}
	slices.SortFunc(bounds, bytes.Compare)
	var sorted []keyspace.Range
	for i := 0; i < len(bounds); i += 2 {
		// Adjacent ranges may touch (End == next Start) or be empty.
		sorted = append(sorted, keyspace.Range{Start: bounds[i], End: bounds[i+1]})
	}
	if r.IntN(2) == 0 {
		sorted[0].Start = nil
	}
	if r.IntN(2) == 0 {
		sorted[len(sorted)-1].End = nil
	}
	for _, rs := range [][]keyspace.Range{runs, sorted} {
		stop := r.IntN(3) * r.IntN(6)
		got, err := CollectVisitedRanges(tx, rs, stop)
		want := m.ScanRanges(rs)
		if stop > 0 && len(want) > stop {
			want = want[:stop]
		}
		if !slices.Equal(got, want) {
			t.Fatalf("%s: VisitRanges(%s) stopping after %d = %v, want %v", where, showRanges(rs), stop, got, want)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// showRanges prints ranges for a failure message.
func showRanges(rs []keyspace.Range) string {
	var b strings.Builder
	for _, rg := range rs {
		fmt.Fprintf(&b, "[%q..%q rev=%v lim=%d] ", rg.Start, rg.End, rg.Reverse, rg.Limit)
	}
	return b.String()
}

// randomOp applies one random operation to tx and m and checks reads.
func randomOp(t *testing.T, r *rand.Rand, tx keyspace.Tx, m Model) error {
	k := randomKey(r)
	switch op := r.IntN(10); {
	case op < 4:
		v := fmt.Sprint(r.IntN(1000))
		m[string(k)] = v
		return tx.Put(k, []byte(v))
	case op < 6:
		delete(m, string(k))
		return tx.Delete(k)
	case op < 7:
		rg := randomRange(r)
		n, err := tx.DeleteRange(rg)
		if want := m.DeleteRange(rg); n != want {
			t.Fatalf("DeleteRange(%q..%q lim=%d) removed %d, model %d", rg.Start, rg.End, rg.Limit, n, want)
		}
		return err
	case op < 8:
		v, err := tx.Get(k)
		want, ok := m[string(k)]
		switch {
		case ok && (err != nil || string(v) != want):
			t.Fatalf("Get(%q) = %q, %v; want %q", k, v, err, want)
		case !ok && !errors.Is(err, keyspace.ErrNotFound):
			t.Fatalf("Get(%q) = %q, %v; want ErrNotFound", k, v, err)
		}
		return nil
	default:
		rg := randomRange(r)
		collect, name := Collect, "Scan"
		if r.IntN(2) == 0 {
			collect = func(tx keyspace.Tx, rg keyspace.Range) ([]Pair, error) { return CollectVisited(tx, rg, 0) }
			name = "VisitRange"
		}
		got, err := collect(tx, rg)
		if want := m.Scan(rg); !slices.Equal(got, want) {
			t.Fatalf("%s(%q..%q rev=%v lim=%d) inside Update = %s, want %s",
				name, rg.Start, rg.End, rg.Reverse, rg.Limit, show(got), show(want))
		}
		return err
	}
}

// testBulkLoad loads unsorted pairs with duplicate keys, in batches and all
// at once, overwrites the source's slices, and compares the result with
// the model.
func testBulkLoad(t *testing.T, newStore NewStore) {
	for _, batch := range []int{0, 1, 7, 1000} {
		t.Run(fmt.Sprint("batch=", batch), func(t *testing.T) {
			s := open(t, newStore)
			m := Model{"pre-existing": "x"}
			fill(t, s, m)
			r := rand.New(rand.NewPCG(7, uint64(batch)))
			type kv struct{ k, v []byte }
			var src []kv
			for i := 0; i < 500; i++ {
				k := []byte(fmt.Sprintf("k%03d", r.IntN(300)))
				v := []byte(fmt.Sprint(i))
				src = append(src, kv{k, v})
				m[string(k)] = string(v) // later values win
			}
			progressCalls, lastProgress := 0, 0
			n, err := keyspace.BulkLoad(s, func(yield func([]byte, []byte) bool) {
				for _, p := range src {
					if !yield(p.k, p.v) {
						return
					}
				}
			}, &keyspace.BulkOptions{BatchSize: batch, Progress: func(w int) { progressCalls++; lastProgress = w }})
			if err != nil {
				t.Fatal(err)
			}
			if n != lastProgress || progressCalls == 0 {
				t.Errorf("BulkLoad wrote %d, last progress %d after %d calls", n, lastProgress, progressCalls)
			}
			// The source may reuse its slices once their batch is written.
			for _, p := range src {
				for i := range p.k {
					p.k[i] = 'X'
				}
				for i := range p.v {
					p.v[i] = 'X'
				}
			}
			checkContents(t, s, m)
		})
	}
	t.Run("a cancelled load keeps the batches committed before", func(t *testing.T) {
		s := open(t, newStore)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		m := Model{}
		n, err := keyspace.BulkLoadContext(ctx, s, func(yield func([]byte, []byte) bool) {
			for i := range 100 {
				k, v := fmt.Appendf(nil, "k%03d", i), fmt.Appendf(nil, "%d", i)
				if i < 10 {
					m[string(k)] = string(v)
				}
				if !yield(k, v) {
					return
				}
			}
		}, &keyspace.BulkOptions{BatchSize: 10, Progress: func(int) { cancel() }})
		if !errors.Is(err, context.Canceled) || n != 10 {
			t.Fatalf("BulkLoadContext cancelled after its first batch: %d, %v; want 10 and context.Canceled", n, err)
		}
		checkContents(t, s, m)
	})
	t.Run("bad key rolls back the batch", func(t *testing.T) {
		s := open(t, newStore)
		_, err := keyspace.BulkLoad(s, func(yield func([]byte, []byte) bool) {
			_ = yield([]byte("good"), []byte("1")) && yield([]byte{}, []byte("2"))
		}, nil)
		if !errors.Is(err, keyspace.ErrEmptyKey) {
			t.Fatalf("BulkLoad with an empty key = %v, want ErrEmptyKey", err)
		}
		checkContents(t, s, Model{})
	})
}
