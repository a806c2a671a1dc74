package geo

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mmcloughlin/geohash"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/storetest"
)

// TestCellCountsAgainstBruteForce: on clustered, polar and antimeridian
// point sets, CellCounts over random boxes (crossing ±180°, reaching the
// poles, the whole Earth) at random precisions gives, cell for cell, what
// a pass over every point gives: the points bruteInBox keeps, grouped by
// their geohash by its definition (bisectGeohash), counted and averaged; a filter and
// an expiry leave the same points out as they do of Box.
func TestCellCountsAgainstBruteForce(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(13, 14))
		now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
		for _, set := range syntheticSets(r, 800) {
			t.Run(set.name, func(t *testing.T) {
				ix := NewIndex(set.name)
				points := slices.Clone(set.points)
				for i := range points {
					if i%7 == 0 {
						points[i].Expires = now.Add(time.Duration(i%3-1) * time.Hour) // some expired at now
					}
				}
				load(t, s, ix, points)
				counted := 0 // points counted over all the queries, that the test is not empty
				s.View(func(tx keyspace.Tx) error {
					for q := range 120 {
						b := randomBox(r)
						if q%3 == 1 { // around a point, so that the poles' boxes hold points too
							c, deg := points[r.IntN(len(points))], r.ExpFloat64()
							b = Box{MinLat: math.Max(c.Lat-deg, -90), MaxLat: math.Min(c.Lat+deg, 90), MinLon: wrap(c.Lon - deg), MaxLon: wrap(c.Lon + deg)}
						}
						precision := 1 + r.IntN(7)
						opts := &QueryOptions{Now: now}
						keep := func(p Point) bool { return true }
						if q%4 == 0 {
							keep = func(p Point) bool { return strings.HasSuffix(p.ID, "3") }
							opts.Filter = keep
						}
						got, st, err := ix.CellCounts(tx, b, precision, opts)
						if err != nil {
							t.Fatal(err)
						}
						counted += checkCells(t, fmt.Sprintf("box %+v at precision %d", b, precision), got, st, points, precision,
							func(p Point) bool { return bruteInBox(b, p) && keep(p) && (p.Expires.IsZero() || p.Expires.After(now)) })
					}
					return nil
				})
				if counted < 100 {
					t.Errorf("the queries counted only %d points", counted)
				}
			})
		}
	})
}

// TestCellCountsAtEdges: points on and an ulp beside cells' edges, at the
// poles and on ±180°, are counted in the cells their geohashes name, at
// every precision: latitude 90 was counted in a cell at −90, and
// longitude 180 in one at −180 whose mean longitude it pulled to 0.
func TestCellCountsAtEdges(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(51, 2))
		var points []Point
		for i, p := range edgePoints(r) {
			points = append(points, Point{ID: fmt.Sprint("e", i), Lat: p[0], Lon: p[1]})
		}
		ix := NewIndex("edges")
		load(t, s, ix, points)
		world := Box{MinLat: -90, MinLon: -180, MaxLat: 90, MaxLon: 180}
		s.View(func(tx keyspace.Tx) error {
			for precision := 1; precision <= MaxCellPrecision; precision++ {
				got, st, err := ix.CellCounts(tx, world, precision, nil)
				if err != nil {
					t.Fatal(err)
				}
				checkCells(t, fmt.Sprintf("the world at precision %d", precision), got, st, points, precision, func(Point) bool { return true })
			}
			return nil
		})
	})
}

// TestCellCountsRefuses: precisions out of 1…12, a bad box, and options
// that order or cut results are ErrBadQuery (or the box's error); a scope
// counts only its points.
func TestCellCountsRefuses(t *testing.T) {
	s := keyspace.NewMemory()
	ix := NewIndex("p")
	if err := s.Update(func(tx keyspace.Tx) error {
		return ix.PutAll(tx, []Point{{ID: "a", Lat: 1, Lon: 1}, {ID: "b", Lat: 1, Lon: 1, Scope: composite.Tuple{"x"}}})
	}); err != nil {
		t.Fatal(err)
	}
	world := Box{MinLat: -90, MinLon: -180, MaxLat: 90, MaxLon: 180}
	s.View(func(tx keyspace.Tx) error {
		for _, c := range []struct {
			name      string
			b         Box
			precision int
			opts      *QueryOptions
			want      error
		}{
			{"precision 0", world, 0, nil, ErrBadQuery},
			{"precision 13", world, 13, nil, ErrBadQuery},
			{"latitude 91", Box{MinLat: 0, MaxLat: 91, MinLon: 0, MaxLon: 1}, 3, nil, ErrInvalidPoint},
			{"a limit", world, 3, &QueryOptions{Limit: 5}, ErrBadQuery},
			{"farthest first", world, 3, &QueryOptions{FarthestFirst: true}, ErrBadQuery},
		} {
			if _, _, err := ix.CellCounts(tx, c.b, c.precision, c.opts); !errors.Is(err, c.want) {
				t.Errorf("%s: %v, want %v", c.name, err, c.want)
			}
		}
		for _, scope := range []composite.Tuple{nil, {"x"}} {
			got, _, err := ix.CellCounts(tx, world, 12, &QueryOptions{Scope: scope})
			if err != nil || len(got) != 1 || got[0].Count != 1 {
				t.Errorf("scope %v: %+v, %v; want one cell of one point", scope, got, err)
			}
		}
		return nil
	})
}

// checkCells checks CellCounts' cells against brute force: the points in
// keeps, grouped by geohash.EncodeWithPrecision's string, counted and
// averaged, in geohash order, each with its geohash rectangle; st.Results
// must count them. It returns how many points that is.
func checkCells(t *testing.T, what string, got []CellCount, st Stats, points []Point, precision int, in func(Point) bool) int {
	t.Helper()
	type sum struct {
		n        int
		lat, lon float64
	}
	want := map[string]*sum{}
	total := 0
	for _, p := range points {
		if !in(p) {
			continue
		}
		h := bisectGeohash(p.Lat, p.Lon, precision)
		if want[h] == nil {
			want[h] = new(sum)
		}
		want[h].n++
		want[h].lat += p.Lat
		want[h].lon += p.Lon
		total++
	}
	if len(got) != len(want) || st.Results != total {
		t.Fatalf("%s: %d cells holding %d points; brute force %d cells, %d points", what, len(got), st.Results, len(want), total)
	}
	for i, c := range got {
		w := want[c.Hash]
		if w == nil || c.Count != w.n || math.Abs(c.Lat-w.lat/float64(w.n)) > 1e-9 || math.Abs(c.Lon-w.lon/float64(w.n)) > 1e-9 {
			t.Fatalf("%s: cell %+v; brute force %+v", what, c, w)
		}
		if i > 0 && got[i-1].Hash >= c.Hash {
			t.Fatalf("%s: cells out of order: %s then %s", what, got[i-1].Hash, c.Hash)
		}
		if bb := geohash.BoundingBox(c.Hash); c.Bounds != (Box{MinLat: bb.MinLat, MinLon: bb.MinLng, MaxLat: bb.MaxLat, MaxLon: bb.MaxLng}) {
			t.Fatalf("%s: cell %s bounds %+v, geohash says %+v", what, c.Hash, c.Bounds, bb)
		}
	}
	return total
}
