package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
)

// testContext checks ViewContext, UpdateContext and BatchContext: a transaction whose
// context is done fails its calls with an error wrapping the context's,
// commits nothing however its function returns, and stops a long scan or
// a bulk write partway; an undone context changes nothing.
func testContext(t *testing.T, newStore NewStore) {
	const n = 5000 // several times the pairs a scan yields between checks
	m := Model{}
	for i := range n {
		m[fmt.Sprintf("k%05d", i)] = fmt.Sprint(i)
	}
	stopped := func(t *testing.T, what string, err error, want error) {
		t.Helper()
		if !errors.Is(err, want) {
			t.Fatalf("%s returned %v, want an error wrapping %v", what, err, want)
		}
	}

	t.Run("done before it starts", func(t *testing.T) {
		s := open(t, newStore)
		fill(t, s, m)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		ran := false
		err := s.UpdateContext(ctx, func(tx keyspace.Tx) error { ran = true; return tx.Put([]byte("new"), nil) })
		stopped(t, "UpdateContext", err, context.Canceled)
		err = s.ViewContext(ctx, func(tx keyspace.Tx) error { ran = true; return nil })
		stopped(t, "ViewContext", err, context.Canceled)
		err = s.BatchContext(ctx, func(tx keyspace.Tx) error { ran = true; return tx.Put([]byte("new"), nil) })
		stopped(t, "BatchContext", err, context.Canceled)
		if ran {
			t.Error("a transaction ran under a context that was done")
		}
		checkContents(t, s, m)
	})

	t.Run("done during an update", func(t *testing.T) {
		s := open(t, newStore)
		fill(t, s, m)
		ctx, cancel := context.WithCancel(context.Background())
		var putErr, deleteErr, getErr error
		err := s.UpdateContext(ctx, func(tx keyspace.Tx) error {
			if err := tx.Put([]byte("before"), []byte("x")); err != nil {
				return fmt.Errorf("a write before the context was done failed: %w", err)
			}
			cancel()
			putErr = tx.Put([]byte("after"), []byte("x"))
			deleteErr = tx.Delete([]byte("k00001"))
			_, getErr = tx.Get([]byte("k00002"))
			return nil // drops the errors: the update must roll back all the same
		})
		stopped(t, "UpdateContext", err, context.Canceled)
		stopped(t, "Put", putErr, context.Canceled)
		stopped(t, "Delete", deleteErr, context.Canceled)
		stopped(t, "Get", getErr, context.Canceled)
		checkContents(t, s, m)
	})

	t.Run("done during a batch", func(t *testing.T) {
		s := open(t, newStore)
		fill(t, s, m)
		ctx, cancel := context.WithCancel(context.Background())
		err := s.BatchContext(ctx, func(tx keyspace.Tx) error {
			if err := tx.Put([]byte("before"), []byte("x")); err != nil {
				return err
			}
			cancel()
			tx.Put([]byte("after"), []byte("x"))
			return nil // commits nothing all the same
		})
		stopped(t, "BatchContext", err, context.Canceled)
		checkContents(t, s, m)
	})

	t.Run("done during a bulk write", func(t *testing.T) {
		s := open(t, newStore)
		fill(t, s, Model{"a": "1"})
		ctx, cancel := context.WithCancel(context.Background())
		written := 0
		err := s.UpdateContext(ctx, func(tx keyspace.Tx) error {
			return keyspace.WriteSorted(tx, func(yield func(k, v []byte) bool) {
				for i := range n {
					if i == n/2 {
						cancel()
					}
					if !yield(fmt.Appendf(nil, "w%05d", i), []byte("v")) {
						return
					}
					written++
				}
			})
		})
		stopped(t, "UpdateContext", err, context.Canceled)
		if written != n/2 {
			t.Errorf("WriteSorted took %d pairs, want it to stop at the first after the cancel (%d)", written, n/2)
		}
		checkContents(t, s, Model{"a": "1"})
	})

	t.Run("done during a scan", func(t *testing.T) {
		s := open(t, newStore)
		fill(t, s, m)
		for _, write := range []bool{false, true} {
			ctx, cancel := context.WithCancel(context.Background())
			seen := 0
			fn := func(tx keyspace.Tx) error {
				for range tx.Scan(keyspace.Range{}) {
					if seen++; seen == 10 {
						cancel()
					}
				}
				return tx.Err()
			}
			var err error
			if write {
				err = s.UpdateContext(ctx, fn)
			} else {
				err = s.ViewContext(ctx, fn)
			}
			stopped(t, fmt.Sprintf("a scan (writable %v)", write), err, context.Canceled)
			if seen >= n {
				t.Errorf("a scan (writable %v) yielded all %d pairs after its context was done", write, seen)
			}
			cancel()
		}
	})

	t.Run("deadline", func(t *testing.T) {
		s := open(t, newStore)
		ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		defer cancel()
		stopped(t, "UpdateContext", s.UpdateContext(ctx, func(keyspace.Tx) error { return nil }), context.DeadlineExceeded)
	})

	t.Run("undone context", func(t *testing.T) {
		s := open(t, newStore)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		if err := s.UpdateContext(ctx, func(tx keyspace.Tx) error {
			for k, v := range m {
				if err := tx.Put([]byte(k), []byte(v)); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		var got []Pair
		if err := s.ViewContext(ctx, func(tx keyspace.Tx) (err error) {
			got, err = Collect(tx, keyspace.Range{})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if want := m.Scan(keyspace.Range{}); show(got) != show(want) {
			t.Errorf("a ViewContext scan read %d pairs, want %d", len(got), len(want))
		}
	})
}
