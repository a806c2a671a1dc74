package storetest

import (
	"testing"

	"github.com/keyspacedb/keyspace"
)

// Contents returns every key and value in s, for a test that checks what
// an operation left behind.
func Contents(t testing.TB, s keyspace.Store) Model {
	t.Helper()
	m := Model{}
	err := s.View(func(tx keyspace.Tx) error {
		for k, v := range tx.Scan(keyspace.Range{}) {
			m[string(k)] = string(v)
		}
		return tx.Err()
	})
	if err != nil {
		t.Fatalf("reading the store's contents: %v", err)
	}
	return m
}

// CheckDeleted checks that after is before less exactly the keys gone
// reports, with every other value unchanged, and that gone reported at
// least one key (a check of a deletion that deleted nothing proves
// little).
func CheckDeleted(t testing.TB, before, after Model, gone func(key string) bool) {
	t.Helper()
	deleted := 0
	for k, v := range before {
		got, kept := after[k]
		switch {
		case gone(k):
			deleted++
			if kept {
				t.Errorf("key %q is still there", k)
			}
		case !kept:
			t.Errorf("key %q was deleted, and should not have been", k)
		case got != v:
			t.Errorf("key %q changed from %q to %q", k, v, got)
		}
	}
	for k := range after {
		if _, was := before[k]; !was {
			t.Errorf("key %q appeared", k)
		}
	}
	if deleted == 0 {
		t.Error("nothing was to be deleted")
	}
}
