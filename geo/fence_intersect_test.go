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

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/storetest"
	"github.com/paulmach/orb"
)

// TestFenceIntersecting: areas of every shape (circles, boxes, polygons
// with holes, multipolygons), near fences of every shape at the poles and
// across ±180°, on both backends. Intersecting must report exactly the
// fences the sampled oracle says share a point with the area
// (intersectOracle), either answer for those it grazes; enough of both
// answers must occur; expired fences are never reported.
func TestFenceIntersecting(t *testing.T) {
	r := rand.New(rand.NewPCG(81, 82))
	near, fences := hotFences(r, 40)
	// The oracle's verdict on each area and fence, asked once for both
	// backends.
	areas := make([]Fence, 120)
	verdicts := make([][]int, len(areas))
	count := map[int]int{}
	for i := range areas {
		c := near[r.IntN(len(near))]
		areas[i] = randomFence(r, "", c.Lat, c.Lon)
		for _, f := range fences {
			v := intersectOracle(areas[i], f)
			verdicts[i] = append(verdicts[i], v)
			count[v]++
		}
	}
	t.Logf("%d pairs meet, %d miss, %d graze", count[through], count[misses], count[grazes])
	if count[through] < 100 || count[misses] < 100 {
		t.Fatalf("too few of one answer to mean much: %d pairs meet, %d miss, %d graze", count[through], count[misses], count[grazes])
	}
	// Two more fences that have expired, wherever the areas are.
	stored := slices.Clone(fences)
	for i, p := range near[:2] {
		stored = append(stored, Fence{ID: fmt.Sprint("expired", i), Circle: &Circle{Lat: p.Lat, Lon: p.Lon, Radius: 5e6}, Expires: time.Now().Add(-time.Hour)})
	}
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		fs := NewFences("zones")
		if err := s.Update(func(tx keyspace.Tx) error { return fs.PutAll(tx, stored) }); err != nil {
			t.Fatal(err)
		}
		// Asked twice: then again with the circles' and boxes' region
		// keys gone, as in a file written before they were kept, where
		// regions are read from the definitions.
		for pass := range 2 {
			if pass == 1 {
				if err := s.Update(func(tx keyspace.Tx) error {
					_, err := tx.DeleteRange(fs.regions.Range())
					return err
				}); err != nil {
					t.Fatal(err)
				}
			}
			s.View(func(tx keyspace.Tx) error {
				for i, area := range areas {
					got, err := fs.Intersecting(tx, area)
					if err != nil {
						t.Fatal(err)
					}
					for j, f := range fences {
						if v := verdicts[i][j]; v != grazes && slices.Contains(got, f.ID) != (v == through) {
							t.Fatalf("area %d (circle %+v, box %+v, polygon %v) and fence %s (circle %+v, box %+v, polygon %v): Intersecting says %v, the oracle %v",
								i, area.Circle, area.Box, area.Polygon, f.ID, f.Circle, f.Box, f.Polygon, v != through, v == through)
						}
					}
					for _, id := range got {
						if strings.HasPrefix(id, "expired") {
							t.Fatalf("area %d: Intersecting reports %s, which has expired", i, id)
						}
					}
				}
				return nil
			})
		}
	})
}

// hotFences returns 200 points round four places (near the north pole,
// on ±180° at the equator, in Europe, at the south pole), within 500 km
// of one, and n random fences (randomFence) f00, f01, … round some of
// them, for tests to put areas and lines among.
func hotFences(r *rand.Rand, n int) ([]Point, []Fence) {
	hot := [][2]float64{{89.5, 0}, {0, 180}, {45, 10}, {-89.9, 100}}
	var near []Point
	for range 200 {
		h := hot[r.IntN(len(hot))]
		lat, lon := destination(h[0], h[1], r.Float64()*500_000, r.Float64()*2*math.Pi)
		near = append(near, Point{Lat: lat, Lon: lon})
	}
	var fences []Fence
	for i := range n {
		c := near[r.IntN(len(near))]
		fences = append(fences, randomFence(r, fmt.Sprintf("f%02d", i), c.Lat, c.Lon))
	}
	return near, fences
}

// intersectOracle says whether the area a and the fence f share a point,
// written apart from fence_intersect.go: two circles by the distance of
// their centres; otherwise by sampling the outline of one that is not a
// circle against the other (pathOracle, 600 samples an edge), and then
// whether either holds a point of the other (fenceHolds).
func intersectOracle(a, f Fence) int {
	switch {
	case a.Corridor != nil && f.Corridor != nil:
		return corridorMeetsOracle(f.Corridor, corridorLines(a.Corridor.Line), a.Corridor.Radius)
	case a.Corridor != nil:
		return fenceAlongOracle(f, corridorLines(a.Corridor.Line), a.Corridor.Radius)
	case f.Corridor != nil:
		return fenceAlongOracle(a, corridorLines(f.Corridor.Line), f.Corridor.Radius)
	case a.Sector != nil:
		return sectorMeetsOracle(a.Sector, sectorSamples(a.Sector), sampleFence(f))
	case f.Sector != nil:
		return sectorMeetsOracle(f.Sector, sectorSamples(f.Sector), sampleFence(a))
	}
	if a.Circle != nil && f.Circle != nil {
		switch d := Distance(a.Circle.Lat, a.Circle.Lon, f.Circle.Lat, f.Circle.Lon) - a.Circle.Radius - f.Circle.Radius; {
		case d < -0.01:
			return through
		case d > 0.01:
			return misses
		}
		return grazes
	}
	if a.Circle != nil {
		a, f = f, a
	}
	verdict := misses
	for _, e := range outline(a) {
		switch pathOracle(f, e[0], e[1]) {
		case through:
			return through
		case grazes:
			verdict = grazes
		}
	}
	if verdict == misses && (holdsPointOf(a, f) || holdsPointOf(f, a)) {
		return through
	}
	return verdict
}

// holdsPointOf reports whether f holds a point of g: a circle's centre, a
// box's south-west corner, the first vertex of one of a multipolygon's
// polygons.
func holdsPointOf(f, g Fence) bool {
	switch {
	case g.Circle != nil:
		return fenceHolds(f, g.Circle.Lat, g.Circle.Lon)
	case g.Box != nil:
		return fenceHolds(f, g.Box.MinLat, g.Box.MinLon)
	}
	for _, poly := range toMulti(g.Polygon) {
		if p := poly[0][0]; fenceHolds(f, p.Lat(), p.Lon()) {
			return true
		}
	}
	return false
}

// outline is a box's or a polygon's boundary as pairs of points at most
// 90° of longitude apart, so that a path between them (the shorter way
// round) follows it: a box's outline goes east from its west edge to its
// east edge, across ±180° when it does.
func outline(f Fence) [][2]Point {
	var out [][2]Point
	add := func(a, b orb.Point) {
		n := max(1, int(math.Ceil(math.Abs(b[0]-a[0])/90)))
		for i := range n {
			t0, t1 := float64(i)/float64(n), float64(i+1)/float64(n)
			out = append(out, [2]Point{
				{Lat: a[1] + t0*(b[1]-a[1]), Lon: wrapLon(a[0] + t0*(b[0]-a[0]))},
				{Lat: a[1] + t1*(b[1]-a[1]), Lon: wrapLon(a[0] + t1*(b[0]-a[0]))},
			})
		}
	}
	if b := f.Box; b != nil {
		east := b.MaxLon
		if b.MinLon > b.MaxLon {
			east += 360
		}
		corners := []orb.Point{{b.MinLon, b.MinLat}, {east, b.MinLat}, {east, b.MaxLat}, {b.MinLon, b.MaxLat}, {b.MinLon, b.MinLat}}
		for i := 1; i < len(corners); i++ {
			add(corners[i-1], corners[i])
		}
		return out
	}
	for _, poly := range toMulti(f.Polygon) {
		for _, ring := range poly {
			for i := 1; i < len(ring); i++ {
				add(ring[i-1], ring[i])
			}
		}
	}
	return out
}

// TestFenceIntersectingCases: the cases the definition decides, each
// against what it implies.
func TestFenceIntersectingCases(t *testing.T) {
	square := squareRing
	fences := []Fence{
		{ID: "circle", Circle: &Circle{Lat: 10, Lon: 20, Radius: 10_000}},
		{ID: "box", Box: &Box{MinLat: 0, MinLon: 0, MaxLat: 1, MaxLon: 1}},
		{ID: "dateline", Box: &Box{MinLat: -5, MinLon: 175, MaxLat: 5, MaxLon: -175}},
		{ID: "ring", Polygon: square(40, -100, 2, true)},
		{ID: "pole", Circle: &Circle{Lat: 90, Lon: 0, Radius: 100_000}},
	}
	for _, c := range []struct {
		name string
		area Fence
		want []string
	}{
		{"circles 1 m apart", Fence{Circle: circleEast(10, 20, 20_001, 10_000)}, nil},
		{"circles overlapping by 1 m", Fence{Circle: circleEast(10, 20, 19_999, 10_000)}, []string{"circle"}},
		{"a circle inside a circle", Fence{Circle: &Circle{Lat: 10, Lon: 20, Radius: 10}}, []string{"circle"}},
		{"a box touching a box at its corner", Fence{Box: &Box{MinLat: 1, MinLon: 1, MaxLat: 2, MaxLon: 2}}, []string{"box"}},
		{"a box beside a box", Fence{Box: &Box{MinLat: 0, MinLon: 1.000001, MaxLat: 1, MaxLon: 2}}, nil},
		{"a box around a box", Fence{Box: &Box{MinLat: -1, MinLon: -1, MaxLat: 2, MaxLon: 2}}, []string{"box"}},
		{"a box inside a box", Fence{Box: &Box{MinLat: 0.4, MinLon: 0.4, MaxLat: 0.6, MaxLon: 0.6}}, []string{"box"}},
		{"a circle on ±180°", Fence{Circle: &Circle{Lat: 0, Lon: 180, Radius: 1000}}, []string{"dateline"}},
		{"a circle west of ±180°, reaching the box", Fence{Circle: &Circle{Lat: 0, Lon: 174.99, Radius: 2000}}, []string{"dateline"}},
		{"a circle west of ±180°, short of it", Fence{Circle: &Circle{Lat: 0, Lon: 174.9, Radius: 2000}}, nil},
		{"a box across ±180°", Fence{Box: &Box{MinLat: 4, MinLon: 179, MaxLat: 6, MaxLon: -179}}, []string{"dateline"}},
		{"a polygon in the hole", Fence{Polygon: square(40, -100, 0.5, false)}, nil},
		{"a circle in the hole", Fence{Circle: &Circle{Lat: 40, Lon: -100, Radius: 50_000}}, nil},
		{"a circle over the hole's edge", Fence{Circle: &Circle{Lat: 40, Lon: -100, Radius: 120_000}}, []string{"ring"}},
		{"a polygon round the ring", Fence{Polygon: square(40, -100, 3, false)}, []string{"ring"}},
		{"a box across the pole's circle", Fence{Box: &Box{MinLat: 89.5, MinLon: 10, MaxLat: 89.6, MaxLon: 11}}, []string{"pole"}},
		{"a box under the pole's circle", Fence{Box: &Box{MinLat: 88, MinLon: -180, MaxLat: 89, MaxLon: 180}}, nil},
		{"a box round the world", Fence{Box: &Box{MinLat: -90, MinLon: -180, MaxLat: 90, MaxLon: 180}}, []string{"box", "circle", "dateline", "pole", "ring"}},
	} {
		askCase(t, fences, c.name, c.area, c.want, (*Fences).Intersecting)
	}
	// A bad area is an error.
	s := keyspace.NewMemory()
	s.View(func(tx keyspace.Tx) error {
		fs := NewFences("cases")
		for _, bad := range []Fence{{}, {Circle: &Circle{Lat: 91, Radius: 1}}, {Circle: &Circle{Radius: -1}}, {Box: &Box{MinLat: 2, MaxLat: 1}}} {
			if _, err := fs.Intersecting(tx, bad); !errors.Is(err, ErrBadFence) && !errors.Is(err, ErrInvalidPoint) {
				t.Errorf("Intersecting(%+v): %v", bad, err)
			}
		}
		return nil
	})
}

// squareRing is the square 2d degrees wide round (lat, lon), with a
// hole d wide in its middle when hole is set.
func squareRing(lat, lon, d float64, hole bool) orb.Polygon {
	p := orb.Polygon{{{lon - d, lat - d}, {lon + d, lat - d}, {lon + d, lat + d}, {lon - d, lat + d}, {lon - d, lat - d}}}
	if hole {
		h := d / 2
		p = append(p, orb.Ring{{lon - h, lat - h}, {lon + h, lat - h}, {lon + h, lat + h}, {lon - h, lat + h}, {lon - h, lat - h}})
	}
	return p
}

// askCase puts fences in a set on both backends and checks that query
// of area finds want, in order.
func askCase(t *testing.T, fences []Fence, name string, area Fence, want []string, query func(*Fences, keyspace.Tx, Fence) ([]string, error)) {
	t.Helper()
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		fs := NewFences("cases")
		if err := s.Update(func(tx keyspace.Tx) error { return fs.PutAll(tx, fences) }); err != nil {
			t.Fatal(err)
		}
		s.View(func(tx keyspace.Tx) error {
			got, err := query(fs, tx, area)
			if err != nil || !slices.Equal(got, want) {
				t.Errorf("%s: %v, %v; want %v", name, got, err, want)
			}
			return nil
		})
	})
}

// circleEast is the circle of radius metres whose centre is d metres east of
// (lat, lon) along a great circle.
func circleEast(lat, lon, d, radius float64) *Circle {
	clat, clon := destination(lat, lon, d, math.Pi/2)
	return &Circle{Lat: clat, Lon: clon, Radius: radius}
}

// FuzzShapesIntersect: two random regions (circles, boxes, polygons)
// around fuzzed centres, tested for a shared point with no store in
// between, against the sampled oracle.
func FuzzShapesIntersect(f *testing.F) {
	f.Add(uint64(1), 10.0, 20.0, 10.0, 20.1)
	f.Add(uint64(2), 89.9, 0.0, 89.0, 180.0)
	f.Add(uint64(3), 0.0, 179.9, 0.5, -179.9)
	f.Add(uint64(4), -89.99, 50.0, -88.0, -130.0)
	f.Fuzz(func(t *testing.T, seed uint64, lat1, lon1, lat2, lon2 float64) {
		if validate(lat1, lon1) != nil || validate(lat2, lon2) != nil {
			return
		}
		r := rand.New(rand.NewPCG(seed, 3))
		a, b := randomFence(r, "a", lat1, lon1), randomFence(r, "b", lat2, lon2)
		ra, err := a.region()
		if err != nil {
			t.Fatal(err)
		}
		rb, err := b.region()
		if err != nil {
			t.Fatal(err)
		}
		v := intersectOracle(a, b)
		for _, got := range []bool{shapeOf(ra).intersects(shapeOf(rb)), shapeOf(rb).intersects(shapeOf(ra))} {
			if v != grazes && got != (v == through) {
				t.Fatalf("a (circle %+v, box %+v, polygon %v) and b (circle %+v, box %+v, polygon %v): intersects says %v, the oracle %v",
					a.Circle, a.Box, a.Polygon, b.Circle, b.Box, b.Polygon, got, v == through)
			}
		}
	})
}
