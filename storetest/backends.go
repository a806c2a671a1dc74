package storetest

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/keyspacedb/keyspace"
)

// Backend names a way to open a fresh, empty store for a test or benchmark.
type Backend struct {
	Name string
	// Open returns an empty store, closed when tb ends.
	Open func(tb testing.TB) keyspace.Store
}

// Backends lists every backend, so that technique packages run their tests
// and benchmarks on each: the memory B-tree and a bbolt file (without fsync)
// in a temporary directory.
func Backends() []Backend {
	return []Backend{
		{"memory", func(tb testing.TB) keyspace.Store {
			s := keyspace.NewMemory()
			tb.Cleanup(func() { s.Close() })
			return s
		}},
		{"bbolt", func(tb testing.TB) keyspace.Store {
			s, err := keyspace.Open(filepath.Join(tb.TempDir(), "test.db"), &keyspace.Options{NoSync: true})
			if err != nil {
				tb.Fatal(err)
			}
			tb.Cleanup(func() { s.Close() })
			return s
		}},
	}
}

// EachBackend runs fn as a subtest on a fresh store of every backend.
func EachBackend(t *testing.T, fn func(t *testing.T, s keyspace.Store)) {
	for _, b := range Backends() {
		t.Run(b.Name, func(t *testing.T) { fn(t, b.Open(t)) })
	}
}

// FuzzEachBackend runs a seeded model test as a fuzz target: the fuzzer
// picks the seed and the backend (memory or bbolt), and the seed corpus
// is seeds 0 to 3, on both. run must be a function of its seed alone, so
// that a failure is reproduced by its corpus entry.
func FuzzEachBackend(f *testing.F, run func(t *testing.T, s keyspace.Store, seed uint64)) {
	for seed := range uint64(4) {
		f.Add(seed, uint8(seed))
	}
	f.Fuzz(func(t *testing.T, seed uint64, backend uint8) {
		backends := Backends()
		run(t, backends[int(backend)%len(backends)].Open(t), seed)
	})
}

// UpdateOrAbort runs fn in an Update of s that, when abort is set, rolls
// back after fn returns nil, and fails t unless the Update ends as it
// should (nil, or that rollback). It reports whether fn's writes were
// committed, so that a model test keeps its model in step:
//
//	if storetest.UpdateOrAbort(t, s, r.IntN(5) == 0, func(tx keyspace.Tx) error { … }) {
//		committed = pending
//	}
func UpdateOrAbort(t testing.TB, s keyspace.Store, abort bool, fn func(tx keyspace.Tx) error) bool {
	t.Helper()
	err := s.Update(func(tx keyspace.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		if abort {
			return errAbort
		}
		return nil
	})
	if abort && !errors.Is(err, errAbort) || !abort && err != nil {
		t.Fatalf("Update (abort %v) = %v", abort, err)
	}
	return !abort
}
