package geo

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/storetest"
)

// TestScopesAgainstModel: after random puts, moves (across scopes and
// grids) and deletes, ScopeCounts lists exactly the scopes a map of the
// live points holds, with their counts, and Scopes those of the stored
// points (an expired point's key is there until it is swept), in the
// order of their packed keys. Some points are put to expire an hour ago,
// some in an hour. The scopes include none, one scope that is a prefix of
// another, an integer, zero bytes and separators; points lie in both polar
// caps and between them, so one scope can be under several grids.
func TestScopesAgainstModel(t *testing.T) {
	scopes := []composite.Tuple{nil, {"CA"}, {"CA", "San Francisco"}, {"CA", int64(7)}, {"x\x00y:z"}, {int64(-3)}, {nil}}
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(41, 42))
		ix := NewIndex("scopes")
		live := map[string]Point{} // every point stored, expired or not
		expiredSeen := 0
		countsOf := func(expired bool) []ScopeCount {
			counts := map[string]int{}
			byKey := map[string]composite.Tuple{}
			for _, p := range live {
				if !expired && !p.Expires.IsZero() && p.Expires.Before(time.Now()) {
					expiredSeen++
					continue
				}
				k := string(composite.Tuple{scopeTuple(p.Scope)}.Pack())
				counts[k]++
				byKey[k] = p.Scope
			}
			keys := make([]string, 0, len(counts))
			for k := range counts {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			var want []ScopeCount
			for _, k := range keys {
				sc := byKey[k]
				if len(sc) == 0 {
					sc = nil
				}
				want = append(want, ScopeCount{Scope: sc, Points: counts[k]})
			}
			return want
		}
		check := func(round int) {
			t.Helper()
			err := s.View(func(tx keyspace.Tx) error {
				got, err := ix.ScopeCounts(tx)
				if err != nil {
					return err
				}
				if want := countsOf(false); fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("round %d: ScopeCounts = %v, want %v", round, got, want)
				}
				want := countsOf(true)
				// Every limit gives the first scopes in order; 0 all.
				for limit := range len(want) + 2 {
					list, err := ix.Scopes(tx, limit)
					if err != nil {
						return err
					}
					n := len(want)
					if limit > 0 {
						n = min(limit, n)
					}
					if len(list) != n {
						t.Fatalf("round %d: Scopes(%d) = %v, want the first %d scopes of %v", round, limit, list, n, want)
					}
					for i := range list {
						if fmt.Sprint(list[i]) != fmt.Sprint(want[i].Scope) || (list[i] == nil) != (want[i].Scope == nil) {
							t.Fatalf("round %d: Scopes(%d)[%d] = %#v, want %#v", round, limit, i, list[i], want[i].Scope)
						}
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		check(-1) // an empty index has no scopes
		for round := range 30 {
			err := s.Update(func(tx keyspace.Tx) error {
				for range 20 {
					id := fmt.Sprintf("p:%d\x00", r.IntN(60))
					if r.IntN(4) == 0 {
						delete(live, id)
						if err := ix.Delete(tx, id); err != nil {
							return err
						}
						continue
					}
					lat := r.Float64()*180 - 90
					if r.IntN(3) == 0 {
						lat = 80 + r.Float64()*10
						if r.IntN(2) == 0 {
							lat = -lat
						}
					}
					p := Point{ID: id, Lat: lat, Lon: r.Float64()*360 - 180, Scope: scopes[r.IntN(len(scopes))]}
					switch r.IntN(4) {
					case 0:
						p.Expires = time.Now().Add(-time.Hour)
					case 1:
						p.Expires = time.Now().Add(time.Hour)
					}
					live[id] = p
					if err := ix.Put(tx, p); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			check(round)
		}
		// A stray expiry entry, due, of a point that does not expire: it
		// subtracts nothing (Verify reports it).
		err := s.Update(func(tx keyspace.Tx) error {
			p := Point{ID: "stray", Lat: 1, Lon: 2, Scope: composite.Tuple{"CA"}}
			live[p.ID] = p
			if err := ix.Put(tx, p); err != nil {
				return err
			}
			return tx.Put(ix.expiryKey(time.Now().Add(-time.Minute).UnixNano(), p.ID), nil)
		})
		if err != nil {
			t.Fatal(err)
		}
		check(30)
		if expiredSeen < 100 {
			t.Fatalf("only %d expired points were left out of counts", expiredSeen)
		}
	})
}

// TestScopesOfACorruptKey: a point key whose scope element is not a tuple
// is an error naming the index, not a panic.
func TestScopesOfACorruptKey(t *testing.T) {
	s := keyspace.NewMemory()
	ix := NewIndex("bad")
	err := s.Update(func(tx keyspace.Tx) error {
		return tx.Put(ix.points[geohashGrid].Pack(composite.Tuple{"not a tuple", uint64(1), "id"}), make([]byte, 16))
	})
	if err != nil {
		t.Fatal(err)
	}
	s.View(func(tx keyspace.Tx) error {
		if _, err := ix.Scopes(tx, 0); err == nil || !strings.Contains(err.Error(), "index bad") {
			t.Errorf("Scopes = %v, want an error naming the index", err)
		}
		if _, err := ix.ScopeCounts(tx); err == nil || !strings.Contains(err.Error(), "index bad") {
			t.Errorf("ScopeCounts = %v, want an error naming the index", err)
		}
		return nil
	})
}
