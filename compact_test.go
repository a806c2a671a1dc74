package keyspace_test

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/storetest"
)

// TestCompact: memory stores of tiny and of full leaves, filled and
// thinned by random Puts and Deletes (keys with zero bytes and long shared
// prefixes among them), hold after Compact exactly what a reference map
// holds, with their leaves' invariants, Len and a directory intact; a View
// begun before Compact reads what it read, and Views running beside it
// read whole contents, old or new (the same pairs); writes and Compacts
// after it go on as before; an empty store compacts to nothing.
func TestCompact(t *testing.T) {
	for _, c := range []struct {
		name string
		s    *keyspace.MemoryStore
	}{
		{"tiny leaves", keyspace.NewMemoryWithLeaves(4)},
		{"directory", keyspace.NewMemoryWithDirectory(16)},
		{"default", keyspace.NewMemory()},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := c.s
			if n, err := s.Compact(); n != 0 || err != nil {
				t.Fatalf("Compact of an empty store: %d, %v", n, err)
			}
			r := rand.New(rand.NewPCG(31, 7))
			model := storetest.Model{}
			write := func(rounds int) {
				for range rounds {
					err := s.Update(func(tx keyspace.Tx) error {
						for range 50 {
							k := fmt.Sprintf("k%03d", r.IntN(600))
							if r.IntN(3) == 0 {
								k = longKey(r)
							}
							if r.IntN(4) == 0 {
								delete(model, k)
								if err := tx.Delete([]byte(k)); err != nil {
									return err
								}
								continue
							}
							v := fmt.Sprint(r.Int64())
							model[k] = v
							if err := tx.Put([]byte(k), []byte(v)); err != nil {
								return err
							}
						}
						return nil
					})
					if err != nil {
						t.Fatal(err)
					}
				}
			}
			write(40)
			check := func(when string) {
				t.Helper()
				if got := storetest.Contents(t, s); !maps.Equal(map[string]string(got), map[string]string(model)) {
					t.Fatalf("%s: the store holds %d pairs, the model %d (or values differ)", when, len(got), len(model))
				}
				if err := s.CheckLeaves(); err != nil {
					t.Fatalf("%s: %v", when, err)
				}
				if s.Len() != len(model) {
					t.Fatalf("%s: Len %d, the model %d", when, s.Len(), len(model))
				}
			}
			before := storetest.Model(maps.Clone(model))
			var wg sync.WaitGroup
			started := make(chan struct{})
			// A View open across Compact keeps its snapshot.
			wg.Go(func() {
				s.View(func(tx keyspace.Tx) error {
					close(started)
					for range 3 {
						got := storetest.Model{}
						for k, v := range tx.Scan(keyspace.Range{}) {
							got[string(k)] = string(v)
						}
						if !maps.Equal(got, before) {
							t.Errorf("a View begun before Compact reads %d pairs, had %d", len(got), len(before))
						}
					}
					return nil
				})
			})
			// Views beside it read whole contents.
			for range 2 {
				wg.Go(func() {
					for range 20 {
						if got := storetest.Contents(t, s); !maps.Equal(got, before) {
							t.Errorf("a View beside Compact reads %d pairs, not the %d there are", len(got), len(before))
						}
					}
				})
			}
			<-started
			n, err := s.Compact()
			wg.Wait()
			if err != nil || n != len(model) {
				t.Fatalf("Compact: %d, %v; the model has %d pairs", n, err, len(model))
			}
			check("after Compact")
			write(20)
			check("after writes")
			if _, err := s.Compact(); err != nil {
				t.Fatal(err)
			}
			check("after a second Compact")
		})
	}
}
