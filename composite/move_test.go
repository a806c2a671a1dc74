package composite

import (
	"errors"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/storetest"
)

// TestMoveAgainstModel fills a store with keys under names that share
// bytes but not elements ("a", "a\x00", "ab", "b") and moves one name's
// keys to another, empty or not, checking the whole store against a map
// moved alike: every key of the source under the destination with its
// value, every other key as it was. A destination that holds keys, and a
// subspace within the other, are refused and change nothing.
func TestMoveAgainstModel(t *testing.T) {
	names := []string{"a", "a\x00", "ab", "b", ""}
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(3, 4))
		model := map[string]string{}
		if err := s.Update(func(tx keyspace.Tx) error {
			for range 400 {
				name := names[r.IntN(len(names)-1)] // "" stays empty
				k := NewSubspace("g", name).Pack(Tuple{r.IntN(3), r.Uint64N(1000), "id\x00" + string(rune('a'+r.IntN(26)))})
				v := []byte{byte(r.IntN(256)), 0}
				model[string(k)] = string(v)
				if err := tx.Put(k, v); err != nil {
					return err
				}
			}
			return tx.Put([]byte("unrelated"), []byte("x"))
		}); err != nil {
			t.Fatal(err)
		}
		model["unrelated"] = "x"
		check := func(when string) {
			t.Helper()
			got := map[string]string{}
			s.View(func(tx keyspace.Tx) error {
				for k, v := range tx.Scan(keyspace.Range{}) {
					got[string(k)] = string(v)
				}
				return tx.Err()
			})
			if !maps.Equal(got, model) {
				t.Fatalf("%s: the store holds %d keys, the model %d, and they differ", when, len(got), len(model))
			}
		}
		for _, tc := range []struct {
			from, to string
			err      bool // refused: the destination holds keys
		}{
			{"a", "b", true},
			{"a", "", false},
			{"a\x00", "a", false},
			{"ab", "a\x00", false},
			{"b", "b", false}, // to itself: nothing moves
		} {
			from, to := NewSubspace("g", tc.from), NewSubspace("g", tc.to)
			err := s.Update(func(tx keyspace.Tx) error {
				n, err := Move(tx, from, to)
				if err == nil && tc.from != tc.to {
					want := 0
					for k := range model {
						if hasTuplePrefix([]byte(k), from.prefix) {
							want++
						}
					}
					if n != want {
						t.Errorf("Move(%q, %q) moved %d keys, want %d", tc.from, tc.to, n, want)
					}
				}
				return err
			})
			if tc.err != errors.Is(err, ErrNotEmpty) || !tc.err && err != nil {
				t.Fatalf("Move(%q, %q): %v, want refused %v", tc.from, tc.to, err, tc.err)
			}
			if !tc.err && tc.from != tc.to {
				for _, k := range slices.Collect(maps.Keys(model)) {
					if hasTuplePrefix([]byte(k), from.prefix) {
						model[string(to.prefix)+k[len(from.prefix):]] = model[k]
						delete(model, k)
					}
				}
			}
			check(tc.from + " to " + tc.to)
		}
		// A subspace within the other is refused, and nothing changes.
		if err := s.Update(func(tx keyspace.Tx) error {
			_, err := Move(tx, NewSubspace("g"), NewSubspace("g", "b"))
			return err
		}); err == nil {
			t.Error("moving a subspace into its own child was not refused")
		}
		check("refused overlap")
	})
}
