package fixes

import (
	"testing"

	"github.com/keyspacedb/keyspace"
)

// A set's deletes and puts land, and a key both deleted and put is put.
func TestApply(t *testing.T) {
	s := keyspace.NewMemory()
	s.Update(func(tx keyspace.Tx) error {
		for _, k := range []string{"a", "b", "c"} {
			tx.Put([]byte(k), []byte("old"))
		}
		return nil
	})
	var set Set
	set.Delete([]byte("a"))
	set.Delete([]byte("b"))
	set.Put([]byte("b"), []byte("new"))
	set.Put([]byte("d"), nil)
	if err := s.Update(set.Apply); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	s.View(func(tx keyspace.Tx) error {
		for k, v := range tx.Scan(keyspace.Range{}) {
			got[string(k)] = string(v)
		}
		return nil
	})
	want := map[string]string{"b": "new", "c": "old", "d": ""}
	if len(got) != len(want) || got["b"] != "new" || got["c"] != "old" || got["d"] != "" {
		t.Errorf("after Apply: %q, want %q", got, want)
	}
}
