package keyspace_test

import (
	"errors"
	"fmt"
	"iter"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/storetest"
)

func pairs(n int, prefix string) iter.Seq2[[]byte, []byte] {
	return func(yield func([]byte, []byte) bool) {
		for i := 0; i < n; i++ {
			if !yield([]byte(fmt.Sprintf("%s%06d", prefix, i)), []byte(fmt.Sprint(i))) {
				return
			}
		}
	}
}

// TestWriteSorted: the pairs land as Put would put them, in a transaction
// that can still roll back, and bad pairs or read-only transactions are
// refused.
func TestWriteSorted(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		if err := s.Update(func(tx keyspace.Tx) error { return keyspace.WriteSorted(tx, pairs(5000, "a")) }); err != nil {
			t.Fatal(err)
		}
		err := s.Update(func(tx keyspace.Tx) error {
			if err := keyspace.WriteSorted(tx, pairs(100, "b")); err != nil {
				return err
			}
			return errors.New("roll back")
		})
		if err == nil {
			t.Fatal("expected the rollback error")
		}
		s.View(func(tx keyspace.Tx) error {
			n := 0
			for k, v := range tx.Scan(keyspace.Range{}) {
				if want := fmt.Sprintf("a%06d", n); string(k) != want || string(v) != fmt.Sprint(n) {
					t.Fatalf("pair %d is %q=%q", n, k, v)
				}
				n++
			}
			if n != 5000 {
				t.Errorf("%d pairs, want 5000 (the rolled-back ones gone)", n)
			}
			if err := keyspace.WriteSorted(tx, pairs(1, "c")); !errors.Is(err, keyspace.ErrReadOnly) {
				t.Errorf("WriteSorted in a read transaction: %v", err)
			}
			return nil
		})
		bad := func(yield func([]byte, []byte) bool) { yield(nil, []byte("x")) }
		if err := s.Update(func(tx keyspace.Tx) error { return keyspace.WriteSorted(tx, bad) }); !errors.Is(err, keyspace.ErrEmptyKey) {
			t.Errorf("empty key: %v", err)
		}
	})
}
