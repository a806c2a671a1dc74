package keyspace

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"
)

// TestBatchRunsFailuresAlone: in a shared transaction, a call that
// returns an error and one that panics are each told to run alone, and
// the others run again without them, so the transaction that commits
// holds exactly the calls that succeed, each run once more for every
// failure before it.
func TestBatchRunsFailuresAlone(t *testing.T) {
	s := NewMemory()
	runs := map[string]int{}
	put := func(key string) func(Tx) error {
		return func(tx Tx) error {
			runs[key]++
			return tx.Put([]byte(key), []byte("v"))
		}
	}
	failing := func(key string, fail func() error) func(Tx) error {
		return func(tx Tx) error {
			runs[key]++
			if err := tx.Put([]byte(key), []byte("v")); err != nil {
				return err
			}
			return fail()
		}
	}
	boom := errors.New("boom")
	fns := []func(Tx) error{
		put("a"),
		failing("x", func() error { return boom }),
		put("b"),
		failing("y", func() error { panic("y") }),
		put("c"),
	}
	var calls []*batchCall
	for _, fn := range fns {
		calls = append(calls, &batchCall{ctx: context.Background(), fn: fn, done: make(chan error, 1)})
	}
	runTogether(s.UpdateContext, calls)
	for i, want := range []error{nil, errRunAlone, nil, errRunAlone, nil} {
		if got := <-calls[i].done; got != want {
			t.Errorf("call %d: %v, want %v", i, got, want)
		}
	}
	if fmt.Sprint(runs) != "map[a:3 b:2 c:1 x:1 y:1]" {
		t.Errorf("runs %v, want a three times, b twice, the rest once", runs)
	}
	checkKeys(t, s, []string{"a", "b", "c"}, []string{"x", "y"})
}

// checkKeys fails the test unless s holds every key of kept and none of
// gone.
func checkKeys(t *testing.T, s Store, kept, gone []string) {
	t.Helper()
	s.View(func(tx Tx) error {
		for _, key := range kept {
			if _, err := tx.Get([]byte(key)); err != nil {
				t.Errorf("%s: %v, want it kept", key, err)
			}
		}
		for _, key := range gone {
			if _, err := tx.Get([]byte(key)); !errors.Is(err, ErrNotFound) {
				t.Errorf("%s: %v, want ErrNotFound", key, err)
			}
		}
		return nil
	})
}

// TestBatchSharesTransactions: calls that arrive while a transaction
// runs go into the next one together. The first call holds its
// transaction open until 49 more are waiting; those 49 then commit in
// one transaction, so two in all.
func TestBatchSharesTransactions(t *testing.T) {
	bolt := openTemp(t)
	memory, memoryBatch := NewMemory(), &batcher{} // MemoryStore.Batch is Update: its batcher is the test's
	for _, c := range []struct {
		s     Store
		b     *batcher
		batch func(fn func(Tx) error) error
	}{
		{bolt, &bolt.batch, bolt.Batch},
		{memory, memoryBatch, func(fn func(Tx) error) error {
			return memoryBatch.batch(memory.UpdateContext, context.Background(), fn)
		}},
	} {
		s := c.s
		const n = 50
		started := make(chan struct{})
		waiting := func() int {
			c.b.mu.Lock()
			defer c.b.mu.Unlock()
			return len(c.b.pending)
		}
		var wg sync.WaitGroup
		errs := make(chan error, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- c.batch(func(tx Tx) error {
				close(started)
				for deadline := time.Now().Add(10 * time.Second); waiting() < n-1; runtime.Gosched() {
					if time.Now().After(deadline) {
						return errors.New("the other calls never came")
					}
				}
				return tx.Put([]byte("k00"), nil)
			})
		}()
		<-started
		for i := 1; i < n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs <- c.batch(func(tx Tx) error { return tx.Put(fmt.Appendf(nil, "k%02d", i), nil) })
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		c.b.mu.Lock()
		runs := c.b.runs
		c.b.mu.Unlock()
		if runs != 2 {
			t.Errorf("%T: %d transactions for %d calls, want 2", s, runs, n)
		}
		keys := 0
		s.View(func(tx Tx) error {
			for range tx.Scan(Range{}) {
				keys++
			}
			return tx.Err()
		})
		if keys != n {
			t.Errorf("%T: %d keys, want %d", s, keys, n)
		}
		s.Close()
	}
}

// openTemp opens a bbolt store in a temporary directory.
func openTemp(t *testing.T) *BoltStore {
	t.Helper()
	s, err := Open(t.TempDir()+"/batch.db", &Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestBatchSurvivesGoexit: a function that ends the goroutine it runs on
// (runtime.Goexit, as t.FailNow does) ends its caller's, as in Update,
// and Batch calls after it still run.
func TestBatchSurvivesGoexit(t *testing.T) {
	s := openTemp(t)
	defer s.Close()
	var wg sync.WaitGroup
	wg.Add(1)
	returned := false
	go func() {
		defer wg.Done()
		s.Batch(func(tx Tx) error {
			tx.Put([]byte("gone"), nil)
			runtime.Goexit()
			return nil
		})
		returned = true
	}()
	ended := make(chan struct{})
	go func() { wg.Wait(); close(ended) }()
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("Batch hung when its function called runtime.Goexit")
	}
	if returned {
		t.Fatal("Batch returned to a caller whose function called runtime.Goexit")
	}
	done := make(chan error, 1)
	go func() { done <- s.Batch(func(tx Tx) error { return tx.Put([]byte("next"), nil) }) }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Batch hung after a function called runtime.Goexit")
	}
	checkKeys(t, s, []string{"next"}, []string{"gone"})
}

// TestBatchContext: a call whose context is done before its shared
// transaction runs it, or while its function runs, commits nothing and
// gets its context's error; the calls beside it commit.
func TestBatchContext(t *testing.T) {
	s := NewMemory()
	gone, cancelGone := context.WithCancel(context.Background())
	cancelGone()
	during, cancelDuring := context.WithCancel(context.Background())
	calls := []*batchCall{
		{ctx: context.Background(), fn: func(tx Tx) error { return tx.Put([]byte("a"), nil) }},
		{ctx: gone, fn: func(tx Tx) error { return tx.Put([]byte("x"), nil) }},
		{ctx: during, fn: func(tx Tx) error { cancelDuring(); return tx.Put([]byte("y"), nil) }},
		{ctx: context.Background(), fn: func(tx Tx) error { return tx.Put([]byte("b"), nil) }},
	}
	for _, c := range calls {
		c.done = make(chan error, 1)
	}
	runTogether(s.UpdateContext, calls)
	for i, want := range []error{nil, errRunAlone, errRunAlone, nil} {
		if got := <-calls[i].done; got != want {
			t.Errorf("call %d: %v, want %v", i, got, want)
		}
	}
	// Run alone, as batch runs them, they return their contexts' errors.
	var b batcher
	for _, ctx := range []context.Context{gone, during} {
		if err := b.batch(s.UpdateContext, ctx, func(tx Tx) error { return tx.Put([]byte("z"), nil) }); !errors.Is(err, context.Canceled) {
			t.Errorf("a call with its context done: %v, want context.Canceled", err)
		}
	}
	checkKeys(t, s, []string{"a", "b"}, []string{"x", "y", "z"})
}
