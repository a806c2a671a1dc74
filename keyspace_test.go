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
	for _, max := range []int{3, 128} {
		t.Run(fmt.Sprint("leaf=", max), func(t *testing.T) {
			storetest.Run(t, func(t testing.TB) keyspace.Store {
				s := keyspace.NewMemoryWithDirectory(max)
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

// TestMemoryConformanceSmallLeaves runs the suite on leaves of one to
// three pairs, where nearly every write splits, fills or empties a leaf
// and nearly every scan crosses leaves.
func TestMemoryConformanceSmallLeaves(t *testing.T) {
	for _, max := range []int{1, 2, 3} {
		t.Run(fmt.Sprint("leaf=", max), func(t *testing.T) {
			storetest.Run(t, func(t testing.TB) keyspace.Store {
				s := keyspace.NewMemoryWithLeaves(max)
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
