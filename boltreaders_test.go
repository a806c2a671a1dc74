package keyspace_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/storetest"
)

// TestBoltViewsSeeEveryCommit: a View that begins after an Update returned
// sees that Update, though Views keep their read transactions for the
// next: one writer counts up while readers, each View, check that the
// count is at least what had been committed when the View began, and
// never goes back.
func TestBoltViewsSeeEveryCommit(t *testing.T) {
	s := openBolt(t, filepath.Join(t.TempDir(), "k.db"), &keyspace.Options{NoSync: true})
	defer s.Close()
	key := []byte("count")
	read := func(tx keyspace.Tx) uint64 {
		v, err := tx.Get(key)
		if err != nil {
			return 0
		}
		return binary.BigEndian.Uint64(v)
	}
	var committed atomic.Uint64
	const writes = 300
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			last := uint64(0)
			for committed.Load() < writes {
				before := committed.Load()
				s.View(func(tx keyspace.Tx) error {
					n := read(tx)
					if n < before || n < last {
						t.Errorf("a View read %d after %d was committed (and %d read before)", n, before, last)
					}
					last = n
					return nil
				})
			}
		})
	}
	for i := uint64(1); i <= writes; i++ {
		if err := s.Update(func(tx keyspace.Tx) error { return tx.Put(key, binary.BigEndian.AppendUint64(nil, i)) }); err != nil {
			t.Fatal(err)
		}
		committed.Store(i)
		// The writer's own next View sees its write.
		s.View(func(tx keyspace.Tx) error {
			if n := read(tx); n != i {
				t.Errorf("wrote %d, then read %d", i, n)
			}
			return nil
		})
	}
	wg.Wait()
}

// TestBoltUpdateGrowsMapPastKeptViews: with read transactions kept from
// earlier Views, an Update that grows the file past its memory map (which
// waits for every read transaction) still finishes, and so does Close.
func TestBoltUpdateGrowsMapPastKeptViews(t *testing.T) {
	s := openBolt(t, filepath.Join(t.TempDir(), "k.db"), &keyspace.Options{NoSync: true, MmapSize: 1 << 16})
	done := make(chan error, 1)
	go func() {
		for round := range 8 {
			var wg sync.WaitGroup
			for range 4 { // several Views at once leave several kept
				wg.Go(func() { s.View(func(tx keyspace.Tx) error { _, _ = tx.Get([]byte("k")); return nil }) })
			}
			wg.Wait()
			err := s.Update(func(tx keyspace.Tx) error {
				for i := range 2000 {
					if err := tx.Put(fmt.Appendf(nil, "k%d-%05d", round, i), make([]byte, 100)); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				done <- err
				return
			}
		}
		s.View(func(tx keyspace.Tx) error { return nil })
		done <- s.Close()
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("an Update or Close waited on kept read transactions")
	}
	s = openBolt(t, s.Path(), nil)
	defer s.Close()
	s.View(func(tx keyspace.Tx) error {
		n := 0
		for range tx.Scan(keyspace.Range{}) {
			n++
		}
		if n != 8*2000 {
			t.Errorf("%d keys after the growing Updates, want %d", n, 8*2000)
		}
		return nil
	})
}

// TestBoltViewsReuseTheirCursor: a View that takes over an earlier View's
// read transaction takes over its cursor too, and must start its visits
// afresh. Views in a row (and, now and then, an Update between them) visit
// random ascending ranges, as a geo query's covering is, and a random
// range alone, and every visit is checked against a sorted model.
func TestBoltViewsReuseTheirCursor(t *testing.T) {
	s := openBolt(t, filepath.Join(t.TempDir(), "k.db"), &keyspace.Options{NoSync: true})
	defer s.Close()
	r := rand.New(rand.NewPCG(5, 6))
	model := storetest.Model{}
	put := func(n int) {
		err := s.Update(func(tx keyspace.Tx) error {
			for range n {
				k := fmt.Sprintf("k%04d", r.IntN(3000))
				model[k] = k
				if err := tx.Put([]byte(k), []byte(k)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	put(2000)
	for view := range 400 {
		if view%50 == 49 {
			put(20)
		}
		ranges := make([]keyspace.Range, 1+r.IntN(6))
		for i := range ranges {
			a, b := r.IntN(3000), r.IntN(40)
			ranges[i] = keyspace.Range{Start: fmt.Appendf(nil, "k%04d", a), End: fmt.Appendf(nil, "k%04d", a+b)}
		}
		slices.SortFunc(ranges, func(a, b keyspace.Range) int { return bytes.Compare(a.Start, b.Start) })
		err := s.View(func(tx keyspace.Tx) error {
			got, err := storetest.CollectVisitedRanges(tx, ranges, 0)
			if want := model.ScanRanges(ranges); err != nil || !slices.Equal(got, want) {
				t.Fatalf("view %d: VisitRanges = %d pairs (%v), want %d", view, len(got), err, len(want))
			}
			one := ranges[r.IntN(len(ranges))]
			visited, err := storetest.CollectVisited(tx, one, 0)
			if want := model.Scan(one); err != nil || !slices.Equal(visited, want) {
				t.Fatalf("view %d: VisitRange(%q..%q) = %d pairs (%v), want %d", view, one.Start, one.End, len(visited), err, len(want))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
