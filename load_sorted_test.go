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

// joinedPairs yields n pairs built back to back in one buffer, each key's
// capacity reaching over its value, as geo's PutAll builds them. With
// reuse, each batch of batch pairs is built over the last one's bytes.
func joinedPairs(n, batch int, reuse bool) iter.Seq2[[]byte, []byte] {
	return func(yield func([]byte, []byte) bool) {
		buf := make([]byte, 0, 32*n)
		for i := 0; i < n; i++ {
			if reuse && i%batch == 0 {
				buf = buf[:0]
			}
			start := len(buf)
			buf = fmt.Appendf(buf, "k%06d", i)
			klen := len(buf) - start
			buf = fmt.Appendf(buf, "v%d", i)
			kv := buf[start:len(buf):len(buf)]
			if !yield(kv[:klen], kv[klen:]) {
				return
			}
		}
	}
}

// checkJoined: the store holds the n pairs joinedPairs makes, and what a
// scan yields can be appended to without changing them.
func checkJoined(t *testing.T, s keyspace.Store, n int) {
	t.Helper()
	s.View(func(tx keyspace.Tx) error {
		i := 0
		for k, v := range tx.Scan(keyspace.Range{}) {
			if want, wantV := fmt.Sprintf("k%06d", i), fmt.Sprintf("v%d", i); string(k) != want || string(v) != wantV {
				t.Fatalf("pair %d is %q=%q, want %q=%q", i, k, v, want, wantV)
			}
			_ = append(k, "XX"...)
			_ = append(v, "YY"...)
			i++
		}
		if i != n {
			t.Errorf("%d pairs, want %d", i, n)
		}
		for i := range n {
			if v, err := tx.Get(fmt.Appendf(nil, "k%06d", i)); err != nil || string(v) != fmt.Sprintf("v%d", i) {
				t.Fatalf("Get pair %d: %q, %v", i, v, err)
			}
		}
		return nil
	})
}

// TestWriteSortedJoined: pairs built in one piece, which the memory
// backend keeps without copying, read back as they were written, and
// appending to what a scan yields does not reach the pair after it.
func TestWriteSortedJoined(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		if err := s.Update(func(tx keyspace.Tx) error { return keyspace.WriteSorted(tx, joinedPairs(3000, 1, false)) }); err != nil {
			t.Fatal(err)
		}
		checkJoined(t, s, 3000)
	})
}

// TestBulkLoadReusedBuffers: BulkLoad's src may reuse its buffers once
// their batch is written, so no backend may keep them.
func TestBulkLoadReusedBuffers(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		if _, err := keyspace.BulkLoad(s, joinedPairs(3000, 500, true), &keyspace.BulkOptions{BatchSize: 500}); err != nil {
			t.Fatal(err)
		}
		checkJoined(t, s, 3000)
	})
}
