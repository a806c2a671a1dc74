package geo

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/storetest"
)

// TestGridOf: a point's grid follows its latitude, with the seam at
// CapLatitude, and the poles and both sides of ±180° land in the caps.
func TestGridOf(t *testing.T) {
	cases := []struct {
		lat, lon float64
		want     grid
	}{
		{90, 0, northCap}, {90, 180, northCap}, {-90, -180, southCap},
		{CapLatitude + 1e-6, 179.999, northCap}, {CapLatitude - 1e-6, 179.999, geohashGrid},
		{-CapLatitude - 1e-6, -180, southCap}, {-CapLatitude + 1e-6, -180, geohashGrid},
		{0, 0, geohashGrid}, {78, 45, geohashGrid}, {-80, 45, southCap},
	}
	for _, c := range cases {
		if g, _ := locate(c.lat, c.lon); g != c.want {
			t.Errorf("locate(%v, %v) is in the %s grid, want %s", c.lat, c.lon, g.name(), c.want.name())
		}
	}
}

// TestCapCellsHoldTheirPoints: every cap cell holding a point's hash, at
// every precision, has rectangles that hold the point; every point on a
// pole has poleHash.
func TestCapCellsHoldTheirPoints(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 5000; i++ {
		lat := 90 - r.Float64()*(90-CapLatitude)
		switch i % 5 {
		case 0:
			lat = 90 - math.Abs(r.NormFloat64())*1e-4 // metres from the pole
		case 1:
			lat = 90
		}
		lon := r.Float64()*360 - 180
		if i%7 == 0 {
			lon = []float64{180, -180, 0, 90, -90}[i%5]
		}
		if i%2 == 1 {
			lat = -lat
		}
		checkCellsHold(t, lat, lon)
	}
}

// checkCellsHold checks that every cell holding the point's hash, at every
// precision, in whichever grid the point lies, has rectangles that hold
// the point, and that a point on a pole has poleHash.
func checkCellsHold(t *testing.T, lat, lon float64) {
	t.Helper()
	g, h := locate(lat, lon)
	if g != geohashGrid && math.Abs(lat) == 90 && h != poleHash {
		t.Fatalf("(%v, %v): hash %x, want the pole's %x", lat, lon, h, poleHash)
	}
	for bits := uint(0); bits <= MaxBits; bits++ {
		c := cell{hash: h >> (MaxBits - bits), bits: bits, grid: g}
		if bits == 0 {
			c.hash = 0
		}
		rs, n := c.rects()
		held := false
		for _, rc := range rs[:n] {
			held = held || lat >= rc.MinLat && lat <= rc.MaxLat && lon >= rc.MinLon && lon <= rc.MaxLon ||
				math.Abs(lat) == 90 && lat >= rc.MinLat && lat <= rc.MaxLat // any longitude names the pole
		}
		if !held {
			t.Fatalf("(%v, %v) in %s cell %x/%d, whose rectangles %v do not hold it", lat, lon, g.name(), c.hash, bits, rs[:n])
		}
	}
}

// TestPoleRunIsSkipped: points stacked exactly on a pole are read only by
// queries that reach the pole. The counts come from Stats against the
// number of points put there.
func TestPoleRunIsSkipped(t *testing.T) {
	const onPole = 500
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		ix := NewIndex("poles")
		var pts []Point
		for i := 0; i < onPole; i++ {
			pts = append(pts, Point{ID: fmt.Sprintf("pole%03d", i), Lat: 90, Lon: float64(i%360) - 180})
		}
		for i := 0; i < 50; i++ { // a ring 2 km from the pole
			pts = append(pts, Point{ID: fmt.Sprintf("ring%02d", i), Lat: 90 - 2000/EarthRadius*180/math.Pi, Lon: float64(i*7) - 175})
		}
		if err := s.Update(func(tx keyspace.Tx) error { return ix.PutAll(tx, pts) }); err != nil {
			t.Fatal(err)
		}
		s.View(func(tx keyspace.Tx) error {
			ring := pts[onPole]
			// A 500 m circle on the ring, 1.5 km clear of the pole.
			res, st, err := ix.Radius(tx, ring.Lat, ring.Lon, 500, nil)
			if err != nil {
				t.Fatal(err)
			}
			if want := len(bruteRadius(pts, ring.Lat, ring.Lon, 500)); len(res) != want {
				t.Errorf("radius: %d results, brute force %d", len(res), want)
			}
			if st.Candidates >= onPole {
				t.Errorf("radius near the pole read %d candidates: the %d points on the pole were not skipped", st.Candidates, onPole)
			}
			// The 10 nearest to a ring point are ring points.
			if _, st, err = ix.Nearest(tx, ring.Lat, ring.Lon, 10, nil); err != nil {
				t.Fatal(err)
			}
			if st.Candidates >= onPole {
				t.Errorf("knn near the pole read %d candidates: the %d points on the pole were not skipped", st.Candidates, onPole)
			}
			// A circle holding the pole returns every point on it.
			res, _, err = ix.Radius(tx, 89.999, 0, 500, nil)
			if err != nil {
				t.Fatal(err)
			}
			if want := len(bruteRadius(pts, 89.999, 0, 500)); len(res) != want || want < onPole {
				t.Errorf("radius over the pole: %d results, brute force %d", len(res), want)
			}
			return nil
		})
	})
}

// destination is the point d metres from (lat, lon) on bearing β
// (radians clockwise from north), by the spherical direct formula.
func destination(lat, lon, d, β float64) (float64, float64) {
	φ, λ, δ := rad(lat), rad(lon), d/EarthRadius
	φ2 := math.Asin(math.Sin(φ)*math.Cos(δ) + math.Cos(φ)*math.Sin(δ)*math.Cos(β))
	λ2 := λ + math.Atan2(math.Sin(β)*math.Sin(δ)*math.Cos(φ), math.Cos(δ)-math.Sin(φ)*math.Sin(φ2))
	lon2 := math.Mod(λ2*180/math.Pi+540, 360) - 180
	return φ2 * 180 / math.Pi, lon2
}

// TestCapStartBlock: a circle in a cap starts from a block of at most n of
// the cap's cells, and every point of the circle stored in the cap lies in
// one of them: points drawn at random in the circle, on its edge and on
// the pole, for circles from a metre to a few hundred kilometres, some
// around the pole itself.
func TestCapStartBlock(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	blocks := 0
	for i := range 3000 {
		lat := 90 - r.Float64()*(90-CapLatitude)
		if i%4 == 0 {
			lat = 90 - math.Abs(r.NormFloat64())*0.01 // about a kilometre from the pole
		}
		if i%2 == 1 {
			lat = -lat
		}
		lon, radius := r.Float64()*360-180, math.Exp(r.Float64()*13)
		c := newCircle(lat, lon, radius)
		n := 1 + r.IntN(4*DefaultMaxCells)
		block, ok := startBlock(nil, c, n)
		if !ok || block[0].grid == geohashGrid {
			if g := capHolding(c.boundingBox()); g != geohashGrid {
				t.Fatalf("circle %v m around (%v, %v), in the %s cap: no cap block", radius, lat, lon, g.name())
			}
			continue
		}
		blocks++
		g := block[0].grid
		if len(block) > n {
			t.Fatalf("circle %v m around (%v, %v), n=%d: block of %d cells", radius, lat, lon, n, len(block))
		}
		holds := func(h uint64) bool {
			for _, f := range block {
				if lo, hi := f.span(); f.grid == g && lo <= h && h <= hi {
					return true
				}
			}
			return false
		}
		for j := range 200 {
			d := radius * math.Sqrt(r.Float64())
			if j%4 == 0 {
				d = radius // the edge
			}
			plat, plon := destination(lat, lon, d, r.Float64()*2*math.Pi)
			if j == 0 {
				plat = math.Copysign(90, lat) // the pole, if it is in the circle
			}
			pg, h := locate(plat, plon)
			if pg != g || Distance(lat, lon, plat, plon) > radius {
				continue
			}
			if !holds(h) {
				t.Fatalf("circle %v m around (%v, %v), n=%d: point (%v, %v) %v m away, hash %x, in no cell of the block", radius, lat, lon, n, plat, plon, Distance(lat, lon, plat, plon), h)
			}
		}
	}
	if blocks < 1500 {
		t.Fatalf("only %d of 3000 circles had a cap block", blocks)
	}
}
