package geo

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"
)

// FuzzCovering checks the covering's two promises for a circle and a box
// against one point: a point in the region has its hash in some span of its
// grid (geohash or polar cap), and a point in an "inside" span is in the
// region.
func FuzzCovering(f *testing.F) {
	f.Add(37.7, -122.4, 1000.0, 37.705, -122.4, 10.0, 20.0)
	f.Add(89.99, 0.0, 5000.0, 90.0, 123.0, -5.0, 170.0)    // the pole
	f.Add(0.0, 179.99, 20000.0, 0.0, -179.99, 5.0, -175.0) // across ±180
	f.Add(-90.0, 0.0, 1e7, -10.0, 180.0, -90.0, 0.0)
	f.Add(10.0, 10.0, 0.0, 10.0, 10.0, 10.0, 10.0)
	f.Add(78.75, 179.9, 3000.0, 78.7501, -179.99, 78.7, 10.0)  // the cap's edge, across ±180
	f.Add(-89.999, 45.0, 500.0, -89.9995, -135.0, -80.0, 90.0) // across the south pole
	f.Add(80.0, -90.0, 2e6, 60.0, 90.0, 85.0, -170.0)          // a cap and the geohash grid
	f.Fuzz(func(t *testing.T, lat, lon, radius, plat, plon, lat2, lon2 float64) {
		if validate(lat, lon) != nil || validate(plat, plon) != nil || validate(lat2, lon2) != nil ||
			math.IsNaN(radius) || math.IsInf(radius, 0) || radius < 0 {
			return
		}
		b := Box{MinLat: math.Min(lat, lat2), MaxLat: math.Max(lat, lat2), MinLon: lon, MaxLon: lon2}
		regions := map[string]region{"circle": newCircle(lat, lon, radius), "box": new(boxRegion).init(b),
			"around": newAroundBox(lat, lon, radius, radius/2)}
		g, h := locate(plat, plon)
		for name, reg := range regions {
			in := reg.contains(plat, plon)
			found := false
			for _, s := range spans(reg, cover(reg, DefaultMaxCells)) {
				if s.grid != g || h < s.lo || h > s.hi {
					continue
				}
				found = true
				if s.inside && !in {
					t.Fatalf("%s: (%v, %v) lies in an inside span but not in the region", name, plat, plon)
				}
			}
			if in && !found {
				t.Fatalf("%s: (%v, %v) is in the region but in no span of its covering", name, plat, plon)
			}
		}
	})
}

// FuzzCellsHoldTheirPoints: for any point, in the geohash grid or a polar
// cap's, every cell holding its hash, from the whole grid down to 64 bits,
// has rectangles that hold it. A covering's cells are these cells, so a
// cell that lost its point would lose a query's result.
func FuzzCellsHoldTheirPoints(f *testing.F) {
	for _, p := range [][2]float64{
		{0, 0}, {90, 0}, {-90, 180}, {CapLatitude, 179.99}, {-CapLatitude, -180},
		{math.Nextafter(CapLatitude, 0), 180}, {89.9999999, -45}, {37.7749, -122.4194},
		{-0.0, -0.0}, {45, 180}, {-45, -180},
	} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, lat, lon float64) {
		if validate(lat, lon) != nil {
			return
		}
		checkCellsHold(t, lat, lon)
	})
}

// FuzzRingContains checks ringContains, orb's ray casting given the ring's
// box, against orb's own planar.RingContains. Vertices and the point lie
// on a grid of quarter degrees, so that points on vertices, on edges and
// level with vertices (the ray casting's awkward cases) come up often.
func FuzzRingContains(f *testing.F) {
	f.Add(uint64(1), uint8(4), int8(0), int8(0))
	f.Add(uint64(7), uint8(6), int8(2), int8(-3))
	f.Add(uint64(42), uint8(9), int8(4), int8(4))
	f.Add(uint64(99), uint8(3), int8(-8), int8(8))
	f.Fuzz(func(t *testing.T, seed uint64, n uint8, px, py int8) {
		r := rand.New(rand.NewPCG(seed, 0))
		ring := make(orb.Ring, 0, int(n%10)+4)
		for range int(n%10) + 3 {
			ring = append(ring, orb.Point{float64(r.IntN(17)-8) / 4, float64(r.IntN(17)-8) / 4})
		}
		ring = append(ring, ring[0])
		p := orb.Point{float64(px%12) / 4, float64(py%12) / 4}
		if got, want := ringContains(ring, ring.Bound(), p), planar.RingContains(ring, p); got != want {
			t.Fatalf("ring %v, point %v: ringContains %v, planar.RingContains %v", ring, p, got, want)
		}
	})
}

// FuzzEdgeMeetsBound holds edgeMeetsBound (two boxes and the four corners'
// sides of the segment's line) to the textbook test it replaced: an end in
// the rectangle, or the segment meeting one of its four sides
// (segmentsMeet). Ends and corners lie on a grid of quarter degrees, so
// that segments through corners, along sides and ending on them come up
// often, as do segments of one point.
func FuzzEdgeMeetsBound(f *testing.F) {
	f.Add(int8(0), int8(0), int8(4), int8(4), int8(1), int8(1), uint8(2), uint8(2))
	f.Add(int8(-4), int8(2), int8(4), int8(2), int8(0), int8(2), uint8(3), uint8(1)) // along a side
	f.Add(int8(-3), int8(0), int8(0), int8(3), int8(0), int8(0), uint8(1), uint8(1)) // through a corner
	f.Add(int8(5), int8(5), int8(5), int8(5), int8(4), int8(4), uint8(1), uint8(1))  // a point on a corner
	f.Fuzz(func(t *testing.T, ax, ay, bx, by, x, y int8, w, h uint8) {
		q := func(v int8) float64 { return float64(v%16) / 4 }
		e := newEdge(orb.Point{q(ax), q(ay)}, orb.Point{q(bx), q(by)})
		b := orb.Bound{Min: orb.Point{q(x), q(y)}}
		b.Max = orb.Point{b.Min[0] + float64(w%12)/4, b.Min[1] + float64(h%12)/4}
		corners := [4]orb.Point{b.Min, {b.Max[0], b.Min[1]}, b.Max, {b.Min[0], b.Max[1]}}
		want := b.Contains(e.a) || b.Contains(e.b)
		for i := range corners {
			want = want || segmentsMeet(e.a, e.b, corners[i], corners[(i+1)%4])
		}
		if got := edgeMeetsBound(&e, b); got != want {
			t.Fatalf("edge %v–%v, box %v: edgeMeetsBound %v, by the sides %v", e.a, e.b, b, got, want)
		}
	})
}
