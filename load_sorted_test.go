package keyspace_test

import (
	"errors"
	"fmt"
	"iter"
	"maps"
	"path/filepath"
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

// FuzzWriteSorted: WriteSorted's pairs "should" ascend, but any order is
// correct, only slower. Fuzzed pairs (unsorted, repeated keys, keys that
// are prefixes of others, built back to back in one buffer as PutAll
// builds them) are written over existing pairs, with Puts and Deletes
// after them in the same transaction, on memory stores with tiny leaves
// and on bbolt, and the result is compared with a map in which a later
// pair wins. Every other input rolls back and must leave no trace.
func FuzzWriteSorted(f *testing.F) {
	f.Add([]byte("\x03abc\x01x\x02ab\x00\x03abc"), uint8(0))
	f.Add([]byte("\x01z\x01a\x01m\x02zz\x01a"), uint8(3))
	f.Add([]byte{2, 0, 0, 1, 0xff, 2, 0xff, 0}, uint8(5))
	f.Fuzz(func(t *testing.T, data []byte, backend uint8) {
		var s keyspace.Store
		switch b := backend % 5; {
		case b < 3:
			m := keyspace.NewMemoryWithLeaves(1 + int(b))
			s = checkedLeaves(t, m)
		case b == 3:
			s = keyspace.NewMemory()
		default:
			var err error
			if s, err = keyspace.Open(filepath.Join(t.TempDir(), "f.db"), &keyspace.Options{NoSync: true}); err != nil {
				t.Fatal(err)
			}
		}
		defer s.Close()
		// The input is a run of (length byte, key bytes); values count up.
		// Pairs are joined in one buffer, each key's capacity reaching
		// over its value.
		type kv struct{ k, v []byte }
		var batch []kv
		buf := make([]byte, 0, 2*len(data)+16)
		for i := 0; i < len(data) && len(batch) < 64; {
			n := 1 + int(data[i]%4)
			i++
			if i+n > len(data) {
				break
			}
			start := len(buf)
			buf = append(buf, data[i:i+n]...)
			buf = fmt.Appendf(buf, "%d", len(batch))
			joined := buf[start:len(buf):len(buf)]
			batch = append(batch, kv{joined[:n], joined[n:]})
			i += n
		}
		model := map[string]string{}
		err := s.Update(func(tx keyspace.Tx) error { // existing pairs, some of which the batch overwrites
			for i, p := range batch {
				if i%3 == 0 {
					k := append([]byte{}, p.k...)
					k[len(k)-1] ^= 1
					if err := tx.Put(k, []byte("old")); err != nil {
						return err
					}
					model[string(k)] = "old"
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		rollback := len(data)%2 == 1
		want := maps.Clone(model)
		errRollback := errors.New("roll back")
		err = s.Update(func(tx keyspace.Tx) error {
			err := keyspace.WriteSorted(tx, func(yield func([]byte, []byte) bool) {
				for _, p := range batch {
					if !yield(p.k, p.v) {
						return
					}
				}
			})
			if err != nil {
				return err
			}
			for _, p := range batch {
				want[string(p.k)] = string(p.v)
			}
			for i, p := range batch { // later writes in the same transaction
				switch i % 4 {
				case 1:
					if err := tx.Delete(p.k); err != nil {
						return err
					}
					delete(want, string(p.k))
				case 2:
					if err := tx.Put(p.k, []byte("new")); err != nil {
						return err
					}
					want[string(p.k)] = "new"
				}
			}
			if rollback {
				return errRollback
			}
			return nil
		})
		if rollback {
			if !errors.Is(err, errRollback) {
				t.Fatalf("Update = %v, want the rollback", err)
			}
			want = model
		} else if err != nil {
			t.Fatal(err)
		}
		got := storetest.Contents(t, s)
		if !maps.Equal(map[string]string(got), want) {
			t.Fatalf("after WriteSorted of %q: store %q, model %q", batch, got, want)
		}
	})
}
