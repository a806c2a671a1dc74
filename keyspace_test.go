package keyspace_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/storetest"
)

func TestMemoryConformance(t *testing.T) {
	storetest.Run(t, func(testing.TB) keyspace.Store { return keyspace.NewMemory() })
}

func TestBoltConformance(t *testing.T) {
	storetest.Run(t, func(t testing.TB) keyspace.Store {
		s, err := keyspace.Open(filepath.Join(t.TempDir(), "test.db"), &keyspace.Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestMemoryConformanceDirectory runs the suite on stores whose snapshots
// build their directory after the first View that seeks, on leaves of
// three pairs (many leaves to bisect) and of the default size, and checks
// each store's directory against its tree at the end.
func TestMemoryConformanceDirectory(t *testing.T) {
	memoryConformance(t, []int{3, 128}, keyspace.NewMemoryWithDirectory)
}

// TestMemoryConformanceSmallLeaves runs the suite on leaves of one to
// three pairs, where nearly every write splits, fills or empties a leaf
// and nearly every scan crosses leaves.
func TestMemoryConformanceSmallLeaves(t *testing.T) {
	memoryConformance(t, []int{1, 2, 3}, keyspace.NewMemoryWithLeaves)
}

// memoryConformance runs the suite on memory stores of each leaf size,
// checking their leaves (and any directory) when each test ends.
func memoryConformance(t *testing.T, leafSizes []int, newStore func(max int) *keyspace.MemoryStore) {
	for _, max := range leafSizes {
		t.Run(fmt.Sprint("leaf=", max), func(t *testing.T) {
			storetest.Run(t, func(t testing.TB) keyspace.Store { return checkedLeaves(t, newStore(max)) })
		})
	}
}

// TestDeleteRangeInBatches: deleting a range a few keys at a time, with
// and without a limit, removes what the model's DeleteRange removes, on
// both backends, whichever batch boundary the keys fall on.
func TestDeleteRangeInBatches(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(11, 12))
		m := storetest.Model{}
		key := func() []byte { // short keys of 0x00, a, b and 0xff: neighbours and shared prefixes
			k := make([]byte, 1+r.IntN(4))
			for i := range k {
				k[i] = "\x00ab\xff"[r.IntN(4)]
			}
			return k
		}
		for round := range 200 {
			err := s.Update(func(tx keyspace.Tx) error {
				for range r.IntN(40) {
					k := key()
					m[string(k)] = "v"
					if err := tx.Put(k, []byte("v")); err != nil {
						return err
					}
				}
				rg := keyspace.Range{Limit: r.IntN(3) * r.IntN(20)}
				if r.IntN(4) > 0 {
					rg.Start = key()
				}
				if r.IntN(4) > 0 {
					rg.End = key()
				}
				batch := 1 + r.IntN(5)
				n, err := keyspace.DeleteInBatches(tx, rg, batch)
				if want := m.DeleteRange(rg); err != nil || n != want {
					t.Fatalf("round %d: DeleteInBatches(%q..%q, limit %d, batch %d) = %d, %v; the model removed %d", round, rg.Start, rg.End, rg.Limit, batch, n, err, want)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := storetest.Contents(t, s); !maps.Equal(got, m) {
				t.Fatalf("round %d: the store holds %q, the model %q", round, got, m)
			}
		}
	})
}

// FuzzModel runs storetest's randomized model test from fuzzed seeds, on a
// backend the fuzzer picks: memory stores with leaves of one to four pairs
// (nearly every write splits or empties a leaf) or of 8 and 16 (whose
// leaves join at 2 and 4 pairs left, merge), with a directory, of the
// default size, and a bbolt file. The seed corpus is the suite's own
// seeds; the fuzzer goes on to others.
func FuzzModel(f *testing.F) {
	for i, seed := range []uint64{1, 2, 3, 42, 20261122} {
		f.Add(seed, uint8(i))
	}
	f.Add(uint64(7), uint8(5)) // leaves of 16
	f.Add(uint64(8), uint8(7)) // the default size
	f.Add(uint64(9), uint8(8)) // bbolt
	leafSizes := []int{1, 2, 3, 4, 8, 16}
	f.Fuzz(func(t *testing.T, seed uint64, backend uint8) {
		var newStore storetest.NewStore
		switch b := int(backend) % (len(leafSizes) + 3); {
		case b < len(leafSizes):
			newStore = func(t testing.TB) keyspace.Store { return checkedLeaves(t, keyspace.NewMemoryWithLeaves(leafSizes[b])) }
		case b == len(leafSizes):
			newStore = func(t testing.TB) keyspace.Store { return checkedLeaves(t, keyspace.NewMemoryWithDirectory(3)) }
		case b == len(leafSizes)+1:
			newStore = func(testing.TB) keyspace.Store { return keyspace.NewMemory() }
		default:
			newStore = func(t testing.TB) keyspace.Store {
				s, err := keyspace.Open(filepath.Join(t.TempDir(), "fuzz.db"), &keyspace.Options{NoSync: true})
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
		}
		storetest.RandomModel(t, newStore, seed, 25)
	})
}

// checkedLeaves checks s's leaves (and any directory) when the test ends.
func checkedLeaves(t testing.TB, s *keyspace.MemoryStore) keyspace.Store {
	t.Cleanup(func() {
		if err := s.CheckLeaves(); err != nil {
			t.Error(err)
		}
	})
	return s
}
