package geo

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/storetest"
)

// TestFenceNear: the fences within radii of 0 to the whole sphere of
// points near 40 fences of every shape (near the north pole, on ±180°, in
// Europe, at the south pole) and anywhere, all of them or the first k, on
// both backends, against distanceOracle: every distance within the
// oracle's sampling error, every fence the oracle puts within the radius
// found (unless k cut it off, and then no nearer than the last found),
// nothing beyond it. Expired fences are never found.
func TestFenceNear(t *testing.T) {
	r := rand.New(rand.NewPCG(83, 84))
	hot := [][2]float64{{89.5, 0}, {0, 180}, {45, 10}, {-89.9, 100}}
	near := func() Point {
		h := hot[r.IntN(len(hot))]
		lat, lon := destination(h[0], h[1], r.Float64()*800_000, r.Float64()*2*math.Pi)
		return Point{Lat: lat, Lon: lon}
	}
	var fences []Fence
	var centres []Point
	for i := range 40 {
		c := near()
		fences = append(fences, randomFence(r, fmt.Sprintf("f%02d", i), c.Lat, c.Lon))
		centres = append(centres, c)
	}
	type query struct {
		p      Point
		radius float64
		k      int
		oracle map[string]oracleDistance
	}
	var queries []query
	found := 0
	for i := range 60 {
		p := near()
		switch i % 6 {
		case 0:
			p = Point{Lat: r.Float64()*180 - 90, Lon: r.Float64()*360 - 180}
		case 1, 2: // at a fence's centre, inside most of them
			p = centres[r.IntN(len(centres))]
		}
		q := query{p: p, radius: []float64{0, 50_000, 500_000, 3_000_000, 2e7}[i%5], k: []int{0, 0, 1, 5}[i%4], oracle: map[string]oracleDistance{}}
		for _, f := range fences {
			d, tol := distanceOracle(f, p)
			q.oracle[f.ID] = oracleDistance{d, tol}
			if d+tol < q.radius {
				found++
			}
		}
		queries = append(queries, q)
	}
	inside := 0
	for _, q := range queries {
		for _, o := range q.oracle {
			if o.d == 0 {
				inside++
			}
		}
	}
	if found < 200 || inside < 20 {
		t.Fatalf("only %d fences lie within the queries' radii, %d hold their points: the test would not see much", found, inside)
	}
	stored := slices.Clone(fences)
	for i, q := range queries[:3] {
		stored = append(stored, Fence{ID: fmt.Sprint("expired", i), Circle: &Circle{Lat: q.p.Lat, Lon: q.p.Lon, Radius: 10}, Expires: time.Now().Add(-time.Hour)})
	}
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		fs := NewFences("zones")
		if err := s.Update(func(tx keyspace.Tx) error { return fs.PutAll(tx, stored) }); err != nil {
			t.Fatal(err)
		}
		s.View(func(tx keyspace.Tx) error {
			for qi, q := range queries {
				got, err := fs.Near(tx, q.p.Lat, q.p.Lon, q.radius, q.k)
				if err != nil {
					t.Fatal(err)
				}
				if q.k > 0 && len(got) > q.k {
					t.Fatalf("query %d: %d fences, k %d", qi, len(got), q.k)
				}
				for i, g := range got {
					o, ok := q.oracle[g.ID]
					switch {
					case !ok:
						t.Fatalf("query %d: %s is no live fence", qi, g.ID)
					case math.Abs(g.Distance-o.d) > o.tol || g.Distance > q.radius:
						t.Fatalf("query %d at %v: fence %s at %.3f m (radius %v), the oracle %.3f ± %.3f", qi, q.p, g.ID, g.Distance, q.radius, o.d, o.tol)
					case i > 0 && (g.Distance < got[i-1].Distance || g.Distance == got[i-1].Distance && g.ID < got[i-1].ID):
						t.Fatalf("query %d: out of order: %v", qi, got)
					}
				}
				// With no k, Near's fences are Intersecting's for the circle,
				// which measure alike by other code.
				if q.k == 0 {
					meet, err := fs.Intersecting(tx, Fence{Circle: &Circle{Lat: q.p.Lat, Lon: q.p.Lon, Radius: q.radius}})
					if err != nil {
						t.Fatal(err)
					}
					var ids []string
					for _, g := range got {
						ids = append(ids, g.ID)
					}
					if slices.Sort(ids); !slices.Equal(ids, meet) {
						t.Fatalf("query %d at %v (radius %v): Near found %v, Intersecting %v", qi, q.p, q.radius, ids, meet)
					}
				}
				cut := q.k > 0 && len(got) == q.k
				for id, o := range q.oracle {
					if o.d+o.tol >= q.radius || slices.ContainsFunc(got, func(g NearFence) bool { return g.ID == id }) {
						continue
					}
					if !cut || o.d+o.tol < got[len(got)-1].Distance {
						t.Fatalf("query %d at %v (radius %v, k %d): %s at %.3f m left out; found %v", qi, q.p, q.radius, q.k, id, o.d, got)
					}
				}
			}
			for _, bad := range []struct {
				lat, lon, radius float64
				k                int
			}{{91, 0, 1, 0}, {0, 181, 1, 0}, {0, 0, -1, 0}, {0, 0, math.NaN(), 0}, {0, 0, math.Inf(1), 0}, {0, 0, 1, -1}} {
				if _, err := fs.Near(tx, bad.lat, bad.lon, bad.radius, bad.k); !errors.Is(err, ErrInvalidPoint) && !errors.Is(err, ErrBadQuery) {
					t.Errorf("Near(%v, %v, %v, %d): %v", bad.lat, bad.lon, bad.radius, bad.k, err)
				}
			}
			return nil
		})
	})
}

// oracleDistance is a fence's distance from a point by distanceOracle,
// and how far off it may be.
type oracleDistance struct{ d, tol float64 }

// distanceOracle is how far p lies from f, written apart from
// fence_near.go, and the most it may be off: 0 when f holds p
// (fenceHolds); from a circle, the haversine to its centre less its
// radius; from a box or polygon, the least haversine to 201 samples along
// each piece of its outline (outline), which is off by at most half the
// longest step between two of them.
func distanceOracle(f Fence, p Point) (d, tol float64) {
	if fenceHolds(f, p.Lat, p.Lon) {
		return 0, 1e-6
	}
	if c := f.Circle; c != nil {
		return Distance(c.Lat, c.Lon, p.Lat, p.Lon) - c.Radius, 1e-3
	}
	if c := f.Corridor; c != nil { // outside it, its line's distance less the radius
		lo, hi := bruteLineDistance(corridorLines(c.Line), p.Lat, p.Lon, 1e-4, math.Inf(1))
		return hi - c.Radius, hi - lo + 1e-3 + 1e-9*hi
	}
	if s := f.Sector; s != nil { // outside it, its distance is its boundary's
		d := sectorGap(s, p)
		return d, 1e-3 + 1e-9*d
	}
	const n = 200
	d, step := math.Inf(1), 0.0
	for _, e := range outline(f) {
		a, b := e[0], e[1]
		dLon := b.Lon - a.Lon
		if dLon > 180 {
			dLon -= 360
		} else if dLon < -180 {
			dLon += 360
		}
		var prevLat, prevLon float64
		for i := range n + 1 {
			t := float64(i) / n
			lat, lon := a.Lat+t*(b.Lat-a.Lat), wrapLon(a.Lon+t*dLon)
			d = min(d, Distance(p.Lat, p.Lon, lat, lon))
			if i > 0 {
				step = max(step, Distance(prevLat, prevLon, lat, lon))
			}
			prevLat, prevLon = lat, lon
		}
	}
	return d, step/2 + 1e-3
}
