package keyspace_test

import (
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
