package geo

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/storetest"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"
)

// TestFilterAgainstBruteForce: every query with a Filter finds what brute
// force finds among the points the filter keeps: radius (with and without
// a limit), box, polygon, the fixed 3×3 block, and k nearest, which must
// read on past rejected points until it has k kept ones. The filter sees
// each point as it was put (id, coordinates, scope, payload), and a
// filter that keeps nothing gives no results and no error.
func TestFilterAgainstBruteForce(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(51, 52))
		scope := composite.Tuple{"fleet"}
		for _, set := range syntheticSets(r, 1500) {
			t.Run(set.name, func(t *testing.T) {
				ix := NewIndex("filter-" + set.name)
				stored := map[string]Point{}
				for i := range set.points {
					p := &set.points[i]
					p.Scope = scope
					p.Payload = []byte{byte(i % 7), 0, byte(i)}
					if i%11 == 0 {
						p.Payload = nil
					}
					stored[p.ID] = *p
				}
				load(t, s, ix, set.points)
				keep := func(p Point) bool { return len(p.Payload) > 0 && p.Payload[0] == 3 }
				seen := 0
				filter := func(p Point) bool {
					seen++
					w, ok := stored[p.ID]
					if !ok || w.Lat != p.Lat || w.Lon != p.Lon || string(w.Payload) != string(p.Payload) || fmt.Sprint(p.Scope) != fmt.Sprint(scope) {
						t.Fatalf("the filter saw %+v, stored %+v", p, w)
					}
					return keep(p)
				}
				opts := &QueryOptions{Scope: scope, Filter: filter}
				s.View(func(tx keyspace.Tx) error {
					for q := range 40 {
						c := set.points[r.IntN(len(set.points))]
						radius := []float64{1000, 30_000, 300_000, 3_000_000}[q%4]
						inRadius := func(p Point) bool { return keep(p) && Distance(c.Lat, c.Lon, p.Lat, p.Lon) <= radius }
						want := brute(set.points, c.Lat, c.Lon, inRadius)
						got, _, err := ix.Radius(tx, c.Lat, c.Lon, radius, opts)
						if err != nil {
							t.Fatal(err)
						}
						checkResults(t, fmt.Sprintf("radius %g m", radius), got, want)
						limited := *opts
						limited.Limit = 3
						got, _, err = ix.Radius(tx, c.Lat, c.Lon, radius, &limited)
						if err != nil {
							t.Fatal(err)
						}
						checkResults(t, fmt.Sprintf("radius %g m, limit 3", radius), got, want[:min(3, len(want))])
						got, _, err = ix.RadiusFixedGrid(tx, c.Lat, c.Lon, radius, opts)
						if err != nil {
							t.Fatal(err)
						}
						checkResults(t, fmt.Sprintf("3×3 block, radius %g m", radius), got, want)

						b := randomBox(r)
						got, _, err = ix.Box(tx, b, opts)
						if err != nil {
							t.Fatal(err)
						}
						lat, lon := b.centre()
						checkResults(t, fmt.Sprintf("box %+v", b), got, brute(set.points, lat, lon, func(p Point) bool { return keep(p) && bruteInBox(b, p) }))

						poly := star(r, c.Lat, c.Lon, r.ExpFloat64()*2, q%3 == 0)
						got, _, err = ix.Within(tx, poly, opts)
						if err != nil {
							t.Fatalf("%v: %v", poly, err)
						}
						cen, _ := planar.CentroidArea(poly)
						checkResults(t, fmt.Sprintf("polygon %v", poly), got, brute(set.points, cen.Lat(), cen.Lon(), func(p Point) bool {
							return keep(p) && planar.PolygonContains(poly, orb.Point{p.Lon, p.Lat})
						}))

						k := []int{1, 10, 100}[q%3]
						got, _, err = ix.Nearest(tx, c.Lat, c.Lon, k, opts)
						if err != nil {
							t.Fatal(err)
						}
						all := brute(set.points, c.Lat, c.Lon, keep)
						checkResults(t, fmt.Sprintf("%d nearest", k), got, all[:min(k, len(all))])
					}
					none := &QueryOptions{Scope: scope, Filter: func(Point) bool { return false }}
					c := set.points[0]
					if got, _, err := ix.Nearest(tx, c.Lat, c.Lon, 5, none); err != nil || len(got) != 0 {
						t.Errorf("a filter that keeps nothing: %d nearest, %v", len(got), err)
					}
					if got, _, err := ix.Radius(tx, c.Lat, c.Lon, 1e6, none); err != nil || len(got) != 0 {
						t.Errorf("a filter that keeps nothing: %d in the radius, %v", len(got), err)
					}
					return nil
				})
				if seen == 0 {
					t.Fatal("the filter was never called")
				}
			})
		}
	})
}

// TestFilteredNearestReadsLittle: k nearest under a filter that keeps few
// points finds them by brute force's answer and reads a small part of the
// index. Its first radius comes from how many of the seed's points the
// filter kept, and each next from how many the last radius kept; doubling
// from the farthest point the seed read, it read every point of a
// 1,000,000-point index to find ten that 1% of them passed.
func TestFilteredNearestReadsLittle(t *testing.T) {
	s := keyspace.NewMemory()
	r := rand.New(rand.NewPCG(53, 54))
	points := make([]Point, 50_000)
	for i := range points {
		points[i] = Point{ID: fmt.Sprint("p", i), Lat: r.Float64()*170 - 85, Lon: r.Float64()*360 - 180, Payload: []byte(strconv.Itoa(i % 1000))}
	}
	ix := NewIndex("rare")
	load(t, s, ix, points)
	for _, every := range []int{10, 100, 1000} {
		keep := func(p Point) bool { n, _ := strconv.Atoi(string(p.Payload)); return n%every == 0 }
		var reads []int
		s.View(func(tx keyspace.Tx) error {
			for range 20 {
				c := points[r.IntN(len(points))]
				got, st, err := ix.Nearest(tx, c.Lat, c.Lon, 10, &QueryOptions{Filter: keep})
				if err != nil {
					t.Fatal(err)
				}
				all := brute(points, c.Lat, c.Lon, keep)
				checkResults(t, fmt.Sprintf("k = 10 keeping 1 in %d", every), got, all[:min(10, len(all))])
				reads = append(reads, st.Candidates)
			}
			return nil
		})
		// About 10·every points hold ten kept ones: the median query may
		// read eight times that (the covering's cells read past the
		// circle, and each radius reads the last one's points again), and
		// no more than the index when that is less.
		slices.Sort(reads)
		if median, most := reads[len(reads)/2], min(80*every, len(points)); median > most {
			t.Errorf("1 in %d kept: the median query read %d points, over %d (of %d): %v", every, median, most, len(points), reads)
		}
	}
}
