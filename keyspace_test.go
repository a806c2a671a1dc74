package keyspace_test

import (
	"fmt"
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
			storetest.Run(t, func(t testing.TB) keyspace.Store {
				s := newStore(max)
				t.Cleanup(func() {
					if err := s.CheckLeaves(); err != nil {
						t.Error(err)
					}
				})
				return s
			})
		})
	}
}
