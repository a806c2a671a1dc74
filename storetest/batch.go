package storetest

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/keyspacedb/keyspace"
)

// errRefused is what testBatch's refused calls return.
var errRefused = errors.New("refused")

// testBatch: many goroutines' Batch calls, each counting itself in a
// shared counter (read, add one, write) and writing a key of its own. A
// call that returns an error or panics, after writing, gets its own error
// or panic back and leaves no trace; every other call is committed once:
// the counter ends equal to the calls committed, whatever transactions
// they shared and however often the failures sent them round again.
func testBatch(t *testing.T, newStore NewStore) {
	s := open(t, newStore)
	const goroutines, each = 16, 40
	want := Model{}
	var mu sync.Mutex // guards want
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				key := fmt.Sprintf("k%02d-%02d", g, i)
				refuse, panics := (g+i)%7 == 0, (g*each+i)%23 == 5
				raised, err := batchCall(s, func(tx keyspace.Tx) error {
					v, err := tx.Get([]byte("count"))
					if err != nil && !errors.Is(err, keyspace.ErrNotFound) {
						return err
					}
					n, _ := strconv.Atoi(string(v))
					if err := tx.Put([]byte("count"), []byte(strconv.Itoa(n+1))); err != nil {
						return err
					}
					if err := tx.Put([]byte(key), nil); err != nil {
						return err
					}
					switch {
					case panics:
						panic(key)
					case refuse:
						return fmt.Errorf("%s: %w", key, errRefused)
					}
					return nil
				})
				switch {
				case panics:
					if raised != key {
						t.Errorf("%s: Batch raised %v, want the function's panic", key, raised)
					}
				case refuse:
					if !errors.Is(err, errRefused) || raised != nil {
						t.Errorf("%s: Batch = %v, %v; want the function's error", key, err, raised)
					}
				case err != nil || raised != nil:
					t.Errorf("%s: Batch = %v, %v", key, err, raised)
				default:
					mu.Lock()
					want[key] = ""
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	want["count"] = strconv.Itoa(len(want))
	checkContents(t, s, want)
}

// batchCall calls s.Batch(fn) and returns what it panicked with, or its
// error.
func batchCall(s keyspace.Store, fn func(tx keyspace.Tx) error) (raised any, err error) {
	defer func() { raised = recover() }()
	return nil, s.Batch(fn)
}
