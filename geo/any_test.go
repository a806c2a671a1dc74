package geo

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/storetest"
)

// TestAnyAgainstBruteForce: a query with Any and a Limit of n returns
// min(n, all) points that brute force finds in the region, each at the
// distance brute force measures, nearest first among themselves, and
// reads no more candidates than the same query without Any (over all the
// queries, far fewer). With a filter and a cursor, the points are ones
// the filter keeps, after the cursor.
func TestAnyAgainstBruteForce(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(91, 92))
		set := syntheticSets(r, 3000)[1] // clustered
		ix := NewIndex("any")
		load(t, s, ix, set.points)
		model := map[string]Point{}
		for _, p := range set.points {
			model[p.ID] = p
		}
		var anyRead, allRead, short int
		s.View(func(tx keyspace.Tx) error {
			var queries []pagedQuery
			for range 4 {
				queries = append(queries, randomPagedQueries(r, ix, set.points)...)
			}
			for qi, q := range queries {
				if q.match == nil {
					continue // Nearest ignores Any
				}
				var keep func(Point) bool
				var after *Cursor
				if qi%2 == 0 {
					keep = func(p Point) bool { return len(p.ID)%2 == 1 }
					if first, _, _ := q.ask(tx, &QueryOptions{}, 5); len(first) == 5 {
						after = CursorAfter(first, nil)
					}
				}
				all := pageOracle(model, q, time.Now(), keep, after, len(model))
				for _, n := range []int{1, 3, 20} {
					got, st, err := q.ask(tx, &QueryOptions{Any: true, Filter: keep, After: after}, n)
					if err != nil {
						t.Fatal(err)
					}
					_, full, _ := q.ask(tx, &QueryOptions{Filter: keep, After: after}, n)
					what := fmt.Sprintf("%s, any %d (filter %v, after %+v)", q.name, n, keep != nil, after)
					if len(got) != min(n, len(all)) {
						t.Fatalf("%s: %d results of %d", what, len(got), len(all))
					}
					for i, g := range got {
						j := slices.IndexFunc(all, func(w Result) bool { return w.ID == g.ID })
						if j < 0 || all[j].Distance != g.Distance {
							t.Fatalf("%s: %s at %v m is not a result brute force finds", what, g.ID, g.Distance)
						}
						if i > 0 && cmp.Or(cmp.Compare(got[i-1].Distance, g.Distance), cmp.Compare(got[i-1].ID, g.ID)) >= 0 {
							t.Fatalf("%s: results out of order at %d", what, i)
						}
					}
					if st.Candidates > full.Candidates {
						t.Fatalf("%s: read %d candidates, %d without Any", what, st.Candidates, full.Candidates)
					}
					if n < len(all) {
						short++
						anyRead += st.Candidates
						allRead += full.Candidates
					}
				}
			}
			return nil
		})
		if short < 40 || anyRead*3 > allRead {
			t.Fatalf("%d queries with more results than asked read %d candidates with Any against %d without", short, anyRead, allRead)
		}
	})
}
