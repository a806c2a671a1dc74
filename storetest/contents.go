package storetest

import (
	"maps"
	"slices"
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

// CheckDrop runs drop in an Update of s and checks that it reported want
// items and deleted exactly the keys gone reports (at least one), with
// every other key and value unchanged.
func CheckDrop(t testing.TB, s keyspace.Store, drop func(tx keyspace.Tx) (int, error), want int, gone func(key string) bool) {
	t.Helper()
	before := Contents(t, s)
	var n int
	if err := s.Update(func(tx keyspace.Tx) (err error) { n, err = drop(tx); return err }); err != nil {
		t.Fatalf("drop: %v", err)
	}
	if n != want {
		t.Errorf("drop reported %d items, want %d", n, want)
	}
	after := Contents(t, s)
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

// CheckRepair holds a structure's Verify and Repair to the store's
// contents before it was damaged (sound, from Contents): Verify must find
// a problem exactly when the contents now differ from sound, Repair must
// report what Verify found, and afterwards every key and value must be as
// in sound. Damage that destroys what the structure's truth holds (so that
// nothing could repair it) is the caller's to avoid.
func CheckRepair(t testing.TB, s keyspace.Store, sound Model, verify, repair func(tx keyspace.Tx) ([]string, error)) {
	t.Helper()
	damaged := !maps.Equal(Contents(t, s), sound)
	var problems, fixed []string
	if err := s.View(func(tx keyspace.Tx) (err error) { problems, err = verify(tx); return err }); err != nil {
		t.Fatalf("verify: %v", err)
	}
	if damaged != (len(problems) > 0) {
		t.Fatalf("damaged %v, but Verify found %q", damaged, problems)
	}
	if err := s.Update(func(tx keyspace.Tx) (err error) { fixed, err = repair(tx); return err }); err != nil {
		t.Fatalf("repair: %v", err)
	}
	if !slices.Equal(fixed, problems) {
		t.Errorf("Repair fixed %q; Verify found %q", fixed, problems)
	}
	after := Contents(t, s)
	if maps.Equal(after, sound) {
		return
	}
	for k, v := range after {
		if w, ok := sound[k]; !ok || w != v {
			t.Errorf("after Repair, %q = %q; before the damage, %q (there: %v)", k, v, w, ok)
		}
	}
	for k := range sound {
		if _, ok := after[k]; !ok {
			t.Errorf("after Repair, %q is gone", k)
		}
	}
	t.Fatalf("after Repair of %q, the keys differ from those before the damage", problems)
}

// RefusedChangesNothing runs write in an Update of s that commits
// whatever write returns, and fails t if the store's contents changed
// when write returned an error: a refusal must leave its transaction as
// it was, not only be rolled back by its caller. It returns write's
// error, for the caller to check that write refused as it should.
func RefusedChangesNothing(t testing.TB, s keyspace.Store, write func(tx keyspace.Tx) error) error {
	t.Helper()
	before := Contents(t, s)
	var werr error
	if err := s.Update(func(tx keyspace.Tx) error {
		werr = write(tx)
		return nil // commit: what a refused write left would stay
	}); err != nil {
		t.Fatalf("committing: %v", err)
	}
	if werr != nil && !maps.Equal(before, Contents(t, s)) {
		t.Errorf("a refused write (%v) changed the store", werr)
	}
	return werr
}
