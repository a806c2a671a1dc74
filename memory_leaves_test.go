package keyspace_test

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/storetest"
)

// longKey is a key past the fence words the tree of leaves compares
// (fenceRef), or one that differs from others only in zero bytes, which
// the words pad with: "k5", some zero bytes, and a number or nothing.
func longKey(r *rand.Rand) string {
	k := "k5" + strings.Repeat("\x00", r.IntN(40))
	if r.IntN(4) > 0 {
		k += fmt.Sprint(r.IntN(30))
	}
	return k
}

// TestMemoryLeavesAgainstModel mixes the writes that take each path
// through the leaves (random puts that split leaves, ascending runs past
// the last key that fill them through the tail, ascending runs into the
// middle, deletes that empty leaves, rolled-back Updates) on leaves of 4
// pairs, and after every Update checks the leaf invariants and every pair
// against a map.
//
// With a directory (memory_directory.go), every snapshot builds one after
// its first View, and a second View's gets and short scans, which seek
// through it, are checked against the map too.
func TestMemoryLeavesAgainstModel(t *testing.T) {
	t.Run("tree", func(t *testing.T) { leavesAgainstModel(t, keyspace.NewMemoryWithLeaves(4), false) })
	t.Run("directory", func(t *testing.T) { leavesAgainstModel(t, keyspace.NewMemoryWithDirectory(4), true) })
}

func leavesAgainstModel(t *testing.T, s *keyspace.MemoryStore, directory bool) {
	r := rand.New(rand.NewPCG(7, 8))
	model := storetest.Model{}
	next := 0 // ascending keys past every other: "k9xxxxxx"
	for txn := range 300 {
		m := model.Clone()
		abort := r.IntN(6) == 0
		err := s.Update(func(tx keyspace.Tx) error {
			for range 1 + r.IntN(40) {
				var err error
				switch op := r.IntN(10); {
				case op < 3:
					k := fmt.Sprintf("k%d", r.IntN(500))
					if r.IntN(3) == 0 {
						k = longKey(r)
					}
					m[k] = fmt.Sprint(txn)
					err = tx.Put([]byte(k), []byte(m[k]))
				case op < 5: // an ascending run after every key
					for range r.IntN(12) {
						next++
						k := fmt.Sprintf("k9%07d", next)
						m[k] = "tail"
						err = keyspace.WriteSorted(tx, func(yield func([]byte, []byte) bool) { yield([]byte(k), []byte("tail")) })
					}
				case op < 6: // an ascending run somewhere in the middle
					base := r.IntN(400)
					for i := range r.IntN(12) {
						k := fmt.Sprintf("k%d_%02d", base, i)
						m[k] = "mid"
						err = tx.Put([]byte(k), []byte("mid"))
					}
				default: // a key of any of the three kinds, present or not
					k := []string{
						fmt.Sprintf("k%d", r.IntN(500)),
						fmt.Sprintf("k9%07d", 1+r.IntN(next+1)),
						fmt.Sprintf("k%d_%02d", r.IntN(400), r.IntN(12)),
						longKey(r),
					}[r.IntN(4)]
					delete(m, k)
					err = tx.Delete([]byte(k))
				}
				if err != nil {
					return err
				}
			}
			if abort {
				return fmt.Errorf("abort")
			}
			return nil
		})
		if abort != (err != nil) {
			t.Fatalf("txn %d: Update = %v", txn, err)
		}
		if !abort {
			model = m
		}
		if err := s.CheckLeaves(); err != nil {
			t.Fatalf("txn %d: %v", txn, err)
		}
		s.View(func(tx keyspace.Tx) error {
			got, err := storetest.Collect(tx, keyspace.Range{})
			if want := model.Scan(keyspace.Range{}); err != nil || !slices.Equal(got, want) {
				t.Fatalf("txn %d: %d pairs (%v), want %d", txn, len(got), err, len(want))
			}
			return nil
		})
		if directory != s.HasDirectory() {
			t.Fatalf("txn %d: directory %v after a View", txn, s.HasDirectory())
		}
		s.View(func(tx keyspace.Tx) error {
			for range 20 {
				k := fmt.Sprintf("k%d", r.IntN(1000))
				if r.IntN(4) == 0 {
					k = longKey(r)
				}
				v, err := tx.Get([]byte(k))
				if want, ok := model[k]; ok != (err == nil) || ok && string(v) != want {
					t.Fatalf("txn %d: Get(%q) = %q, %v; want %q, %v", txn, k, v, err, want, ok)
				}
				rg := keyspace.Range{Start: []byte(k), End: []byte(k + "5")}
				got, err := storetest.Collect(tx, rg)
				if want := model.Scan(rg); err != nil || !slices.Equal(got, want) {
					t.Fatalf("txn %d: scan from %q: %v (%v), want %v", txn, k, got, err, want)
				}
			}
			return nil
		})
		if s.Len() != len(model) {
			t.Fatalf("txn %d: Len %d, want %d", txn, s.Len(), len(model))
		}
	}
}

// TestMemorySplitsShare: leaves made by splitting, in a store filled by
// Puts in no order, know the prefix their keys share, as leaves filled in
// order do. A leaf whose prefix is too short compares every key in full
// on a seek (out of line, the bytes elsewhere in memory); one too long
// breaks CheckLeaves.
func TestMemorySplitsShare(t *testing.T) {
	const prefix = "\x02points\x00\x01fleet\x00" // as a geo index's keys begin
	s := keyspace.NewMemoryWithLeaves(16)
	eachInBatches(t, s, randomKeys(rand.New(rand.NewPCG(1, 2)), prefix, 4000), 100, putV)
	shared := s.SharedPrefixes()
	if len(shared) < 200 {
		t.Fatalf("%d leaves after the first, want splits", len(shared))
	}
	for i, n := range shared {
		if n < len(prefix) {
			t.Fatalf("leaf %d of %d shares %d bytes, fewer than the %d every key begins with", i+1, len(shared), n, len(prefix))
		}
	}
}

// TestMemoryDeletesMerge: deleting most of a store's keys at random joins
// the leaves they leave behind, so the rest fill about as many leaves as
// writing them alone would, not the leaves the whole store filled; and
// every leaf stays sound (CheckLeaves) on the way.
func TestMemoryDeletesMerge(t *testing.T) {
	const leafMax, n = 16, 20_000
	s := keyspace.NewMemoryWithLeaves(leafMax)
	r := rand.New(rand.NewPCG(3, 4))
	keys := randomKeys(r, "\x02points\x00", n)
	eachInBatches(t, s, keys, 500, putV)
	full := s.Leaves()
	r.Shuffle(n, func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	kept := keys[:n/10]
	eachInBatches(t, s, keys[n/10:], 500, func(tx keyspace.Tx, k []byte) error { return tx.Delete(k) })
	model := storetest.Model{}
	for _, k := range kept {
		model[string(k)] = "v"
	}
	s.View(func(tx keyspace.Tx) error {
		got, err := storetest.Collect(tx, keyspace.Range{})
		if want := model.Scan(keyspace.Range{}); err != nil || !slices.Equal(got, want) {
			t.Fatalf("%d pairs (%v), want %d", len(got), err, len(want))
		}
		return nil
	})
	sparse := s.Leaves()

	// The same keys kept, written alone into a new store.
	s = keyspace.NewMemoryWithLeaves(leafMax)
	eachInBatches(t, s, kept, 500, putV)
	alone := s.Leaves()
	t.Logf("%d leaves for %d keys; %d after deleting all but %d; %d for those alone", full, n, sparse, len(kept), alone)
	// Without merging, about 1,200 leaves; with, about 300 (a leaf joins
	// once, as it falls to a quarter full, a neighbour that leaves the two
	// at most three quarters full together); alone, about 190.
	if sparse > alone*2 {
		t.Errorf("%d leaves after the deletes, against %d for the same keys written alone", sparse, alone)
	}
}

// randomKeys returns n keys: prefix, then eight random bytes.
func randomKeys(r *rand.Rand, prefix string, n int) [][]byte {
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = binary.BigEndian.AppendUint64([]byte(prefix), r.Uint64())
	}
	return keys
}

// putV puts key with the value "v".
func putV(tx keyspace.Tx, key []byte) error { return tx.Put(key, []byte("v")) }

// eachInBatches calls op on each key, batch keys to an Update, and checks
// s's leaves after each Update.
func eachInBatches(t *testing.T, s *keyspace.MemoryStore, keys [][]byte, batch int, op func(tx keyspace.Tx, key []byte) error) {
	t.Helper()
	for keys := range slices.Chunk(keys, batch) {
		err := s.Update(func(tx keyspace.Tx) error {
			for _, k := range keys {
				if err := op(tx, k); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.CheckLeaves(); err != nil {
			t.Fatal(err)
		}
	}
}
