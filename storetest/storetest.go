// Package storetest is the conformance suite every keyspace backend passes:
// the same operations must give the same results on bbolt, on the in-memory
// B-tree, and on any backend written later.
//
// Use it from a backend's tests:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t testing.TB) keyspace.Store { return keyspace.NewMemory() })
//	}
//
// The suite holds table tests for every operation and bound, a randomized
// model test against a sorted reference map (seeded and reproducible),
// snapshot isolation, rollback on error and on panic, transactions
// whose context is done, writes inside a scan
// loop, bulk loads, concurrent readers beside a writer, and many
// goroutines' Batch calls sharing transactions (run it with -race).
package storetest

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/keyspacedb/keyspace"
)

// NewStore returns a fresh, empty store; the suite closes it.
type NewStore func(t testing.TB) keyspace.Store

// Run runs the whole suite against stores made by newStore.
func Run(t *testing.T, newStore NewStore) {
	tests := []struct {
		name string
		fn   func(*testing.T, NewStore)
	}{
		{"Basics", testBasics},
		{"Errors", testErrors},
		{"ScanBounds", testScanBounds},
		{"Model", testModel},
		{"Rollback", testRollback},
		{"SnapshotIsolation", testSnapshotIsolation},
		{"ConcurrentReaders", testConcurrentReaders},
		{"WritesDuringScan", testWritesDuringScan},
		{"BulkLoad", testBulkLoad},
		{"Context", testContext},
		{"Batch", testBatch},
		{"EmptiedPages", testEmptiedPages},
		{"EmptiedPagesRandomly", testEmptiedPagesRandomly},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStore) })
	}
}

// open makes a store and closes it when the test ends.
func open(t *testing.T, newStore NewStore) keyspace.Store {
	t.Helper()
	s := newStore(t)
	t.Cleanup(func() { s.Close() })
	return s
}

// fill writes m into s in one transaction.
func fill(t *testing.T, s keyspace.Store, m Model) {
	t.Helper()
	err := s.Update(func(tx keyspace.Tx) error {
		for k, v := range m {
			if err := tx.Put([]byte(k), []byte(v)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("fill: %v", err)
	}
}

// contents returns every pair of s, in order.
func contents(t *testing.T, s keyspace.Store) []Pair {
	t.Helper()
	var out []Pair
	err := s.View(func(tx keyspace.Tx) (err error) {
		out, err = Collect(tx, keyspace.Range{})
		return err
	})
	if err != nil {
		t.Fatalf("contents: %v", err)
	}
	return out
}

// checkContents fails the test unless s holds exactly m.
func checkContents(t *testing.T, s keyspace.Store, m Model) {
	t.Helper()
	got, want := contents(t, s), m.Scan(keyspace.Range{})
	if !slices.Equal(got, want) {
		t.Fatalf("store holds %d pairs, model %d\n got: %s\nwant: %s", len(got), len(want), show(got), show(want))
	}
}

func show(ps []Pair) string {
	if len(ps) > 20 {
		return fmt.Sprintf("%q ... (%d more)", ps[:20], len(ps)-20)
	}
	return fmt.Sprintf("%q", ps)
}

func testBasics(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	keys := []string{"a", "\x00", "\xff", "a\x00b", "\xff\xff\x00", "日本"}
	err := s.Update(func(tx keyspace.Tx) error {
		if !tx.Writable() {
			t.Error("Update tx is not writable")
		}
		for _, k := range keys {
			if err := tx.Put([]byte(k), []byte("v:"+k)); err != nil {
				return err
			}
		}
		// A put is visible to the same transaction at once.
		if v, err := tx.Get([]byte("a")); err != nil || string(v) != "v:a" {
			t.Errorf("Get(a) inside Update = %q, %v", v, err)
		}
		return tx.Put([]byte("empty"), nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	// The caller may reuse the slices it passed to Put.
	buf := []byte("reused")
	if err := s.Update(func(tx keyspace.Tx) error { return tx.Put(buf, buf) }); err != nil {
		t.Fatal(err)
	}
	copy(buf, "XXXXXX")
	err = s.View(func(tx keyspace.Tx) error {
		if tx.Writable() {
			t.Error("View tx is writable")
		}
		for _, k := range keys {
			if v, err := tx.Get([]byte(k)); err != nil || string(v) != "v:"+k {
				t.Errorf("Get(%q) = %q, %v", k, v, err)
			}
		}
		if v, err := tx.Get([]byte("empty")); err != nil || v == nil || len(v) != 0 {
			t.Errorf("Get(empty) = %#v, %v; want non-nil empty value", v, err)
		}
		if v, err := tx.Get([]byte("reused")); err != nil || string(v) != "reused" {
			t.Errorf("Get(reused) = %q, %v; Put kept the caller's slice", v, err)
		}
		if _, err := tx.Get([]byte("missing")); !errors.Is(err, keyspace.ErrNotFound) {
			t.Errorf("Get(missing) error = %v, want ErrNotFound", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Update(func(tx keyspace.Tx) error {
		if err := tx.Put([]byte("a"), []byte("second")); err != nil {
			return err
		}
		if err := tx.Delete([]byte("\x00")); err != nil {
			return err
		}
		return tx.Delete([]byte("never-there"))
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.View(func(tx keyspace.Tx) error {
		if v, err := tx.Get([]byte("a")); err != nil || string(v) != "second" {
			t.Errorf("Get(a) after overwrite = %q, %v", v, err)
		}
		if _, err := tx.Get([]byte("\x00")); !errors.Is(err, keyspace.ErrNotFound) {
			t.Errorf("Get of deleted key: %v, want ErrNotFound", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func testErrors(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	long := make([]byte, keyspace.MaxKeySize+1)
	for i := range long {
		long[i] = 'k'
	}
	var leaked keyspace.Tx
	err := s.Update(func(tx keyspace.Tx) error {
		leaked = tx
		for name, err := range map[string]error{
			"Put(empty)":    tx.Put(nil, []byte("v")),
			"Delete(empty)": tx.Delete([]byte{}),
		} {
			if !errors.Is(err, keyspace.ErrEmptyKey) {
				t.Errorf("%s = %v, want ErrEmptyKey", name, err)
			}
		}
		if _, err := tx.Get(nil); !errors.Is(err, keyspace.ErrEmptyKey) {
			t.Errorf("Get(empty) = %v, want ErrEmptyKey", err)
		}
		if err := tx.Put(long, nil); !errors.Is(err, keyspace.ErrKeyTooLarge) {
			t.Errorf("Put(%d-byte key) = %v, want ErrKeyTooLarge", len(long), err)
		}
		if err := tx.Put(long[:keyspace.MaxKeySize], []byte("max")); err != nil {
			t.Errorf("Put(key of MaxKeySize) = %v, want success", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.View(func(tx keyspace.Tx) error {
		if err := tx.Put([]byte("k"), nil); !errors.Is(err, keyspace.ErrReadOnly) {
			t.Errorf("Put in View = %v, want ErrReadOnly", err)
		}
		if err := tx.Delete([]byte("k")); !errors.Is(err, keyspace.ErrReadOnly) {
			t.Errorf("Delete in View = %v, want ErrReadOnly", err)
		}
		if _, err := tx.DeleteRange(keyspace.Range{}); !errors.Is(err, keyspace.ErrReadOnly) {
			t.Errorf("DeleteRange in View = %v, want ErrReadOnly", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A transaction used after its function returned.
	if err := leaked.Put([]byte("late"), nil); !errors.Is(err, keyspace.ErrTxClosed) {
		t.Errorf("Put on a finished tx = %v, want ErrTxClosed", err)
	}
	if _, err := leaked.Get([]byte("late")); !errors.Is(err, keyspace.ErrTxClosed) {
		t.Errorf("Get on a finished tx = %v, want ErrTxClosed", err)
	}
	for range leaked.Scan(keyspace.Range{}) {
		t.Error("Scan on a finished tx yielded a pair")
	}
	if !errors.Is(leaked.Err(), keyspace.ErrTxClosed) {
		t.Errorf("Err after Scan on a finished tx = %v, want ErrTxClosed", leaked.Err())
	}
	// A View's transaction used after its function returned: the visits
	// that read a View's snapshot directly must refuse too.
	var leakedView keyspace.Tx
	if err := s.View(func(tx keyspace.Tx) error { leakedView = tx; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := CollectVisited(leakedView, keyspace.Range{}, 0); !errors.Is(err, keyspace.ErrTxClosed) {
		t.Errorf("VisitRange on a finished View = %v, want ErrTxClosed", err)
	}
	if got, err := CollectVisitedRanges(leakedView, []keyspace.Range{{End: []byte("m")}, {Start: []byte("m")}}, 0); len(got) > 0 || !errors.Is(err, keyspace.ErrTxClosed) {
		t.Errorf("VisitRanges on a finished View = %v, %v, want nothing and ErrTxClosed", got, err)
	}
	// The error a function returns comes back as is.
	sentinel := errors.New("mine")
	if err := s.View(func(keyspace.Tx) error { return sentinel }); err != sentinel {
		t.Errorf("View returned %v, want the function's error", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.View(func(keyspace.Tx) error { return nil }); !errors.Is(err, keyspace.ErrClosed) {
		t.Errorf("View after Close = %v, want ErrClosed", err)
	}
	if err := s.Update(func(keyspace.Tx) error { return nil }); !errors.Is(err, keyspace.ErrClosed) {
		t.Errorf("Update after Close = %v, want ErrClosed", err)
	}
}

// boundsKeys are chosen around the awkward bytes: 0x00 right after a
// prefix, 0xFF at the end, and keys that are prefixes of each other.
var boundsKeys = []string{"a", "ab", "abc", "ab\xff", "b", "b\x00", "b\xff", "c", "\xff", "\xff\xff"}

func testScanBounds(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	m := Model{}
	for _, k := range boundsKeys {
		m[k] = "v" + k
	}
	fill(t, s, m)
	b := func(s string) []byte { return []byte(s) }
	ranges := map[string]keyspace.Range{
		"all":               {},
		"start only":        {Start: b("ab")},
		"end only":          {End: b("b")},
		"start and end":     {Start: b("ab"), End: b("b\xff")},
		"start between":     {Start: b("aa"), End: b("bb")},
		"start equals end":  {Start: b("b"), End: b("b")},
		"start after end":   {Start: b("c"), End: b("a")},
		"past the last":     {Start: b("\xff\xff\xff")},
		"before the first":  {End: b("a")},
		"empty start":       {Start: b(""), End: b("ab")},
		"limit 1":           {Limit: 1},
		"limit 3 bounded":   {Start: b("ab"), Limit: 3},
		"limit over count":  {Limit: 100},
		"prefix a":          keyspace.Prefix(b("a")),
		"prefix ab":         keyspace.Prefix(b("ab")),
		"prefix b":          keyspace.Prefix(b("b")),
		"prefix ff":         keyspace.Prefix(b("\xff")),
		"prefix ffff":       keyspace.Prefix(b("\xff\xff")),
		"prefix nil":        keyspace.Prefix(nil),
		"prefix of nothing": keyspace.Prefix(b("zz")),
	}
	for name, r := range ranges {
		for _, reverse := range []bool{false, true} {
			r.Reverse = reverse
			want := m.Scan(r)
			err := s.View(func(tx keyspace.Tx) error {
				got, err := Collect(tx, r)
				if err != nil {
					return err
				}
				if !slices.Equal(got, want) {
					t.Errorf("%s (reverse %v): got %s, want %s", name, reverse, show(got), show(want))
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	// Runs of ranges for VisitRanges: each must visit every range's pairs
	// in turn, whether or not the run is one a backend walks in one pass
	// (forward, unlimited, each starting at or after every bound before).
	runs := map[string][]keyspace.Range{
		"ascending":                 {{Start: b("a"), End: b("ab")}, {Start: b("abc"), End: b("b\x00")}, {Start: b("c")}},
		"touching":                  {{End: b("ab")}, {Start: b("ab"), End: b("b")}, {Start: b("b"), End: b("c")}},
		"overlapping":               {{Start: b("a"), End: b("b")}, {Start: b("ab"), End: b("c")}},
		"descending":                {{Start: b("c")}, {Start: b("a"), End: b("b")}},
		"empty range between":       {{Start: b("a"), End: b("ab")}, {Start: b("b"), End: b("b")}, {Start: b("b"), End: b("c")}},
		"inverted range then below": {{Start: b("a"), End: b("ab")}, {Start: b("b\xff"), End: b("\x00")}, {Start: b("a"), End: b("c")}},
		"inverted range then above": {{Start: b("c"), End: b("a")}, {Start: b("c")}},
		"open end before others":    {{Start: b("b")}, {Start: b("c")}},
		"limited":                   {{Start: b("a"), Limit: 2}, {Start: b("b"), Limit: 1}},
		"reverse":                   {{Start: b("a"), End: b("b"), Reverse: true}, {Start: b("b")}},
	}
	for name, rs := range runs {
		err := s.View(func(tx keyspace.Tx) error {
			got, err := CollectVisitedRanges(tx, rs, 0)
			if want := m.ScanRanges(rs); !slices.Equal(got, want) {
				t.Errorf("VisitRanges %s: got %v, want %v", name, got, want)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// Breaking out of the loop early is allowed and leaves the tx usable.
	err := s.View(func(tx keyspace.Tx) error {
		for range tx.Scan(keyspace.Range{}) {
			break
		}
		_, err := tx.Get([]byte("a"))
		return err
	})
	if err != nil {
		t.Errorf("Get after an early break: %v", err)
	}
}

func testRollback(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	m := Model{"keep": "1", "change": "old"}
	fill(t, s, m)
	write := func(tx keyspace.Tx) {
		tx.Put([]byte("change"), []byte("new"))
		tx.Put([]byte("added"), []byte("x"))
		tx.Delete([]byte("keep"))
	}
	failure := errors.New("rollback please")
	if err := s.Update(func(tx keyspace.Tx) error { write(tx); return failure }); err != failure {
		t.Fatalf("Update returned %v, want the function's error", err)
	}
	checkContents(t, s, m)

	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Fatalf("recovered %v, want the function's panic re-raised", r)
			}
		}()
		s.Update(func(tx keyspace.Tx) error { write(tx); panic("boom") })
	}()
	checkContents(t, s, m)

	// The store still works after both.
	m["after"] = "ok"
	fill(t, s, Model{"after": "ok"})
	checkContents(t, s, m)
}
