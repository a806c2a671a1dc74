package geo_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/geo"
	"github.com/keyspacedb/keyspace/internal/workload"
	"github.com/keyspacedb/keyspace/storetest"
)

// BenchmarkNearestPages: the page after p pages of 10 nearest (p = 1, 10,
// 100) on clustered points, asked with the cursor of the page before
// (cursor), against asking for the (p+1)·10 nearest and keeping the last
// 10 (offset, as a cursor that is an offset does), on both backends.
// candidates/result counts the 10 results of the page.
func BenchmarkNearestPages(b *testing.B) {
	const k = 10
	pts := benchPoints(b)
	r := rand.New(rand.NewPCG(4, 5))
	centres := make([]workload.Point, 100)
	for i := range centres {
		centres[i] = pts[r.IntN(len(pts))]
	}
	for _, be := range storetest.Backends() {
		b.Run(be.Name, func(b *testing.B) {
			s := be.Open(b)
			ix := geo.NewIndex("bench")
			loadBench(b, s, ix, pts)
			// cursors[p][i] is the cursor after p pages at centres[i].
			cursors := map[int][]*geo.Cursor{}
			s.View(func(tx keyspace.Tx) error {
				for i, c := range centres {
					var after *geo.Cursor
					for p := 1; p <= 100; p++ {
						rs, _, err := ix.Nearest(tx, c.Lat, c.Lon, k, &geo.QueryOptions{After: after})
						if err != nil {
							b.Fatal(err)
						}
						after = geo.CursorAfter(rs, after)
						if p == 1 || p == 10 || p == 100 {
							if cursors[p] == nil {
								cursors[p] = make([]*geo.Cursor, len(centres))
							}
							cursors[p][i] = after
						}
					}
				}
				return nil
			})
			for _, p := range []int{1, 10, 100} {
				b.Run(fmt.Sprintf("page=%d/cursor", p+1), func(b *testing.B) {
					runPages(b, s, func(tx keyspace.Tx, i int) (int, error) {
						c := centres[i]
						rs, st, err := ix.Nearest(tx, c.Lat, c.Lon, k, &geo.QueryOptions{After: cursors[p][i]})
						if len(rs) != k {
							b.Fatalf("a page of %d", len(rs))
						}
						return st.Candidates, err
					})
				})
				b.Run(fmt.Sprintf("page=%d/offset", p+1), func(b *testing.B) {
					runPages(b, s, func(tx keyspace.Tx, i int) (int, error) {
						c := centres[i]
						rs, st, err := ix.Nearest(tx, c.Lat, c.Lon, (p+1)*k, nil)
						if rs = rs[p*k:]; len(rs) != k {
							b.Fatalf("a page of %d", len(rs))
						}
						return st.Candidates, err
					})
				})
			}
		})
	}
}

// runPages times page over the centres, a page of 10 each, and reports
// candidates read per result.
func runPages(b *testing.B, s keyspace.Store, page func(tx keyspace.Tx, i int) (int, error)) {
	cand, n := 0, 0
	for i := 0; b.Loop(); i++ {
		s.View(func(tx keyspace.Tx) error {
			c, err := page(tx, i%100)
			if err != nil {
				b.Fatal(err)
			}
			cand += c
			n++
			return nil
		})
	}
	b.ReportMetric(float64(cand)/float64(10*n), "candidates/result")
}
