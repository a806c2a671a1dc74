package geo

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/storetest"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"
)

// FuzzCovering checks the covering's two promises for a circle, a box, a
// sector and a corridor (along the line from the centre to the box's
// corner) against one point: a point in the region has its hash in some span of its
// grid (geohash or polar cap), and a point in an "inside" span is in the
// region.
func FuzzCovering(f *testing.F) {
	f.Add(37.7, -122.4, 100.0, 37.75, -122.35, 37.8, -122.3) // a corridor of 100 m
	f.Add(89.0, 0.0, 3000.0, 89.02, 179.0, 89.0, 170.0)      // a corridor round the pole
	f.Add(10.0, 179.9, 500.0, 10.001, -179.95, 10.0, -179.8) // a corridor across ±180
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
		if sec, err := newSector(lat, lon, radius, 4*lat2, lon2); err == nil { // bearings from the box's corner
			regions["sector"] = sec
		}
		// The corridor along the line from the centre to the box's corner.
		if c, err := newCorridor(orb.LineString{{lon, lat}, {lon2, lat2}}, radius); err == nil {
			regions["corridor"] = c
		}
		// The surroundings of the triangle of the centre, the box's
		// corner and the point between them (when that is a polygon).
		triangle := orb.Polygon{{{lon, lat}, {lon2, lat2}, {lon2, lat}, {lon, lat}}}
		if n, err := newNearPolygon(triangle, radius); err == nil {
			regions["near-polygon"] = n
		}
		g, h := locate(plat, plon)
		for name, reg := range regions {
			in := reg.contains(plat, plon)
			found := false
			maxCells := DefaultMaxCells
			switch c := reg.(type) {
			case *corridor:
				maxCells = min(corridorMaxCells(c), 32) // its cells split finer, and fuzzing stays quick
			case *nearPolygon:
				maxCells = min(nearPolygonMaxCells(c), 16)
			}
			for _, s := range spans(reg, cover(reg, maxCells)) {
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

// FuzzPathCovering: a move's path, covered as Crossings covers it
// (pathCells), has every point in a cell of its covering: the point
// at t, the ends, and where it crosses ±180°. A point the covering missed
// would hide the fences there from cross detection.
func FuzzPathCovering(f *testing.F) {
	f.Add(37.7, -122.4, 37.71, -122.39, 0.5)
	f.Add(0.0, 179.9, 0.1, -179.9, 0.5)     // across ±180
	f.Add(89.9, 0.0, 89.9, 179.0, 0.25)     // round the north pole, in the cap
	f.Add(-80.0, -100.0, 70.0, 80.0, 0.999) // half the world, through both grids
	f.Add(10.0, 0.0, 10.0, -180.0, 0.5)     // 180° apart: eastward
	f.Add(78.75, 10.0, 78.7, 10.0, 0.5)     // the cap's edge
	f.Fuzz(func(t *testing.T, lat0, lon0, lat1, lon1, at float64) {
		if validate(lat0, lon0) != nil || validate(lat1, lon1) != nil || !(at >= 0 && at <= 1) {
			return
		}
		p := newPath(Point{Lat: lat0, Lon: lon0}, Point{Lat: lat1, Lon: lon1})
		cells := cover(p, pathCells(p))
		check := func(t0 float64) {
			lat, lon := p.at(t0)
			lat, lon = min(90, max(-90, lat)), wrap(lon)
			g, h := locate(lat, lon)
			for _, c := range cells {
				if lo, hi := c.span(); c.grid == g && h >= lo && h <= hi {
					return
				}
			}
			t.Fatalf("the path from (%v, %v) to (%v, %v): its point at t = %v, (%v, %v), is in no cell of its covering %v", lat0, lon0, lat1, lon1, t0, lat, lon, cells)
		}
		check(0)
		check(1)
		check(at)
		for _, edge := range []float64{-180, 180} {
			if d := p.lon1 - p.lon0; d != 0 {
				if t0 := (edge - p.lon0) / d; t0 >= 0 && t0 <= 1 {
					check(t0)
				}
			}
		}
	})
}

// FuzzPathMeetsFence: the exact tests of cross detection against the
// sampled oracle (pathOracle), with no store between: a path whose ends
// both lie outside a circle, box, polygon or sector near its middle meets it
// when a sample of the path lies in it, and misses it when every sample
// lies more than a step and a half away.
func FuzzPathMeetsFence(f *testing.F) {
	f.Add(uint64(1), 0.0, -0.1, 0.0, 0.1, uint8(0), 100.0)
	f.Add(uint64(2), 10.0, 179.5, 10.0, -179.5, uint8(0), 5000.0) // across ±180
	f.Add(uint64(3), 0.0, 179.0, 0.0, -179.0, uint8(1), 0.1)
	f.Add(uint64(4), -1.0, 0.5, 2.0, 0.5, uint8(2), 0.5)
	f.Add(uint64(5), 89.5, 0.0, 89.5, 179.0, uint8(0), 50000.0) // round a pole
	f.Add(uint64(6), 0.0, 0.0, 0.0, -180.0, uint8(1), 1.0)      // 180° apart
	f.Add(uint64(7), 45.0, 9.9, 45.2, 10.3, uint8(3), 20000.0)  // a sector
	f.Fuzz(func(t *testing.T, seed uint64, lat0, lon0, lat1, lon1 float64, kind uint8, size float64) {
		if validate(lat0, lon0) != nil || validate(lat1, lon1) != nil || !(size > 0 && size < 1e6) {
			return
		}
		r := rand.New(rand.NewPCG(seed, 3))
		a, b := Point{Lat: lat0, Lon: lon0}, Point{Lat: lat1, Lon: lon1}
		p := newPath(a, b)
		// The fence sits near a point of the path.
		clat, clon := p.at(r.Float64())
		clon = wrap(clon)
		clat, clon = destination(clat, clon, r.ExpFloat64()*size*1.5, r.Float64()*2*math.Pi)
		fence := Fence{ID: "f"}
		deg := math.Min(size/111_000, 20)
		switch kind % 4 {
		case 0:
			fence.Circle = &Circle{Lat: clat, Lon: clon, Radius: size}
		case 3:
			from := r.Float64() * 360
			fence.Sector = &Sector{Lat: clat, Lon: clon, Radius: size, From: from, To: from + 5 + r.Float64()*350}
		case 1:
			bx := Box{MinLat: math.Max(clat-deg, -90), MaxLat: math.Min(clat+deg, 90), MinLon: wrap(clon - deg), MaxLon: wrap(clon + deg)}
			fence.Box = &bx
		default:
			fence.Polygon = star(r, clat, clon, math.Max(deg, 1e-4), r.IntN(2) == 0)
		}
		reg, err := fence.region()
		if err != nil || fenceHolds(fence, a.Lat, a.Lon) || fenceHolds(fence, b.Lat, b.Lon) {
			return // a bad fence, or an end inside: not a cross's question
		}
		var meets bool
		switch reg := reg.(type) {
		case *circle:
			meets = p.meetsCircle(reg.lat, reg.lon, reg.radius)
		case *boxRegion:
			meets = p.meetsBox(reg)
		case polygonRegion:
			meets = p.meetsPolygon(&reg)
		case *sector:
			f := newSectorFrame(reg)
			meets = f.meetsPath(p)
		}
		switch pathOracle(fence, a, b) {
		case through:
			if !meets {
				t.Fatalf("the path from %v to %v passes through %+v (%v), but the test says it misses", a, b, fence, fence.Polygon)
			}
		case misses:
			if meets {
				t.Fatalf("the path from %v to %v misses %+v (%v) by more than a sample step, but the test says it meets", a, b, fence, fence.Polygon)
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
		{math.Copysign(0, -1), math.Copysign(0, -1)}, {45, 180}, {-45, -180},
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
		want := planar.RingContains(ring, p)
		if got := ringContains(ring, ring.Bound(), nil, p); got != want {
			t.Fatalf("ring %v, point %v: ringContains %v, planar.RingContains %v", ring, p, got, want)
		}
		// Indexed in 1 to 8 longitude bands: the same answer.
		bands := 1 + int(seed%8)
		if got := ringContains(ring, ring.Bound(), newRingIndex(ring, ring.Bound(), bands), p); got != want {
			t.Fatalf("ring %v in %d bands, point %v: ringContains %v, planar.RingContains %v", ring, bands, p, got, want)
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

// FuzzQueriesAgainstBruteForce puts a few dozen points around a fuzzed
// centre (scattered within about twice the radius, on the centre itself,
// on the poles, on ±180° and on cell edges) and checks Radius, Box,
// Within and Nearest against brute force. A point within a billionth of the radius of the
// circle's edge may fall either way (the index measures with its own
// trigonometry); everything else must agree, with distances within a
// millionth.
func FuzzQueriesAgainstBruteForce(f *testing.F) {
	f.Add(uint64(1), 37.7749, -122.4194, 1000.0, uint8(10))
	f.Add(uint64(2), 90.0, 0.0, 50000.0, uint8(1))
	f.Add(uint64(3), -89.9, 179.9, 20000.0, uint8(30))
	f.Add(uint64(4), 0.0, 180.0, 500.0, uint8(3))
	f.Add(uint64(5), CapLatitude, -180.0, 300000.0, uint8(100))
	f.Add(uint64(6), 39.37499999999999, 45.0, 0.0, uint8(5))
	f.Fuzz(func(t *testing.T, seed uint64, lat, lon, radius float64, k uint8) {
		if validate(lat, lon) != nil || math.IsNaN(radius) || radius < 0 || radius > 2e7 || k == 0 {
			return
		}
		r := rand.New(rand.NewPCG(seed, 9))
		var points []Point
		add := func(plat, plon float64) {
			points = append(points, Point{ID: fmt.Sprint("p", len(points)), Lat: plat, Lon: plon})
		}
		for range 40 {
			add(destination(lat, lon, r.Float64()*2*radius+r.Float64()*10, r.Float64()*2*math.Pi))
		}
		add(lat, lon)
		add(90, r.Float64()*360-180)
		add(-90, 0)
		add(lat, 180)
		add(lat, -180)
		add(math.Nextafter(39.375, 0), lon)
		add(lat, math.Nextafter(45, -180))
		s := keyspace.NewMemory()
		ix := NewIndex("fuzz")
		if err := s.Update(func(tx keyspace.Tx) error { return ix.PutAll(tx, points) }); err != nil {
			t.Fatal(err)
		}
		s.View(func(tx keyspace.Tx) error {
			got, _, err := ix.Radius(tx, lat, lon, radius, nil)
			if err != nil {
				t.Fatal(err)
			}
			dist := map[string]float64{}
			for _, p := range points {
				dist[p.ID] = Distance(lat, lon, p.Lat, p.Lon)
			}
			found := map[string]bool{}
			for _, g := range got {
				found[g.ID] = true
				if d := dist[g.ID]; d > radius*(1+1e-9)+1e-9 || math.Abs(g.Distance-d) > 1e-6*math.Max(1, d) {
					t.Fatalf("Radius(%v, %v, %v) found %s at %v m; brute force measures %v m", lat, lon, radius, g.ID, g.Distance, d)
				}
			}
			for id, d := range dist {
				if d < radius*(1-1e-9) && !found[id] {
					t.Fatalf("Radius(%v, %v, %v) missed %s at %v m", lat, lon, radius, id, d)
				}
			}
			// The nearest k of them, whichever search answers (the circle
			// read whole, or the k-nearest search held within the radius
			// after a read budget of 1 to 64 candidates).
			limit := &QueryOptions{Limit: int(k), readBudget: 1 + int(seed%64)}
			limited, _, err := ix.Radius(tx, lat, lon, radius, limit)
			checkFirst(t, fmt.Sprintf("Radius(%v, %v, %v)", lat, lon, radius), got, limited, int(k), err)
			// And the farthest k: the circle read whole, or once the budget is
			// spent, the branch and bound over its cells (Index.farthest).
			far, _, err := ix.Radius(tx, lat, lon, radius, &QueryOptions{FarthestFirst: true})
			if err != nil {
				t.Fatal(err)
			}
			limited, _, err = ix.Radius(tx, lat, lon, radius, &QueryOptions{Limit: int(k), FarthestFirst: true, readBudget: 1 + int(seed%64)})
			checkFirst(t, fmt.Sprintf("Radius(%v, %v, %v) farthest first", lat, lon, radius), far, limited, int(k), err)
			// A sector of the circle, between bearings the seed picks, must
			// hold the points of the circle the bearing formula puts in it,
			// less those too near its sides to say.
			from, to := float64(seed%360), float64(seed/360%720)-180
			if sec, _, err := ix.Sector(tx, lat, lon, radius, from, to, nil); err == nil {
				var gotIDs, wantIDs []string
				for _, g := range sec {
					if _, unsure := sectorOracle(lat, lon, radius, from, to, g.Point); !unsure {
						gotIDs = append(gotIDs, g.ID)
					}
				}
				for _, g := range got {
					if in, unsure := sectorOracle(lat, lon, radius, from, to, g.Point); in && !unsure {
						wantIDs = append(wantIDs, g.ID)
					}
				}
				if !slices.Equal(gotIDs, wantIDs) {
					t.Fatalf("Sector(%v, %v, %v, %v to %v) = %v, brute force %v", lat, lon, radius, from, to, gotIDs, wantIDs)
				}
			} else if from != to {
				t.Fatalf("Sector(%v, %v, %v, %v to %v): %v", lat, lon, radius, from, to, err)
			}
			// A box about the circle's size, across ±180° where it reaches
			// over, must find exactly what plain comparisons find.
			deg := radius / 111_000
			b := Box{MinLat: math.Max(lat-deg, -90), MaxLat: math.Min(lat+deg, 90), MinLon: lon - 2*deg, MaxLon: lon + 2*deg}
			if b.MaxLon-b.MinLon >= 360 {
				b.MinLon, b.MaxLon = -180, 180
			} else if b.MinLon < -180 {
				b.MinLon += 360
			} else if b.MaxLon > 180 {
				b.MaxLon -= 360
			}
			inBox, _, err := ix.Box(tx, b, nil)
			if err != nil {
				t.Fatalf("Box(%+v): %v", b, err)
			}
			var gotIDs, wantIDs []string
			for _, g := range inBox {
				gotIDs = append(gotIDs, g.ID)
			}
			for _, p := range points {
				if bruteInBox(b, p) {
					wantIDs = append(wantIDs, p.ID)
				}
			}
			slices.Sort(gotIDs)
			slices.Sort(wantIDs)
			if !slices.Equal(gotIDs, wantIDs) {
				t.Fatalf("Box(%+v) = %v, brute force %v", b, gotIDs, wantIDs)
			}
			limited, _, err = ix.Box(tx, b, limit)
			checkFirst(t, fmt.Sprintf("Box(%+v)", b), inBox, limited, int(k), err)
			// An irregular hexagon about the circle's size, where it
			// neither crosses ±180° nor reaches a pole, must find what
			// orb's planar.PolygonContains finds. Its vertices come from
			// the seed, so its edges cross cells at every angle.
			if lat-deg > -90 && lat+deg < 90 && lon-2*deg > -180 && lon+2*deg < 180 && deg > 0 {
				var ring orb.Ring
				for i := range 6 {
					θ := float64(i)*math.Pi/3 + r.Float64()*0.5
					f := 0.3 + 0.7*r.Float64()
					ring = append(ring, orb.Point{lon + 2*deg*f*math.Cos(θ), lat + deg*f*math.Sin(θ)})
				}
				ring = append(ring, ring[0])
				poly := orb.Polygon{ring}
				if inPoly, _, err := ix.Within(tx, poly, nil); err == nil { // a fuzzed hexagon may cross itself: skip it
					gotIDs, wantIDs = gotIDs[:0], wantIDs[:0]
					for _, g := range inPoly {
						gotIDs = append(gotIDs, g.ID)
					}
					for _, p := range points {
						if planar.PolygonContains(poly, orb.Point{p.Lon, p.Lat}) {
							wantIDs = append(wantIDs, p.ID)
						}
					}
					slices.Sort(gotIDs)
					slices.Sort(wantIDs)
					if !slices.Equal(gotIDs, wantIDs) {
						t.Fatalf("Within(%v) = %v, brute force %v", poly, gotIDs, wantIDs)
					}
					limited, _, err = ix.Within(tx, poly, limit)
					checkFirst(t, fmt.Sprintf("Within(%v)", poly), inPoly, limited, int(k), err)
				} else if !errors.Is(err, ErrBadPolygon) {
					t.Fatalf("Within(%v): %v", poly, err)
				}
			}
			near, _, err := ix.Nearest(tx, lat, lon, int(k), nil)
			if err != nil {
				t.Fatal(err)
			}
			want := bruteRadius(points, lat, lon, math.Inf(1))
			if len(near) != min(int(k), len(points)) {
				t.Fatalf("Nearest(%v, %v, %d): %d results, want %d", lat, lon, k, len(near), min(int(k), len(points)))
			}
			for i, n := range near { // the i-th distance agrees; ties may name either point
				if w := want[i].Distance; math.Abs(n.Distance-w) > 1e-6*math.Max(1, w) {
					t.Fatalf("Nearest(%v, %v, %d): result %d is %s at %v m; brute force's is %s at %v m", lat, lon, k, i, n.ID, n.Distance, want[i].ID, w)
				}
			}
			// The k nearest of the points a filter keeps (a third of
			// them, or none for some seeds): the search reads past the
			// points it rejects, or widens from the seed when it has no
			// bound yet.
			keep := func(p Point) bool { return seed%7 != 0 && len(p.ID)%3 == int(seed%3) }
			near, _, err = ix.Nearest(tx, lat, lon, int(k), &QueryOptions{Filter: keep})
			if err != nil {
				t.Fatal(err)
			}
			var kept []Result
			for _, w := range want {
				if keep(w.Point) {
					kept = append(kept, w)
				}
			}
			if len(near) != min(int(k), len(kept)) {
				t.Fatalf("filtered Nearest(%v, %v, %d): %d results, want %d", lat, lon, k, len(near), min(int(k), len(kept)))
			}
			for i, n := range near {
				if w := kept[i].Distance; !keep(n.Point) || math.Abs(n.Distance-w) > 1e-6*math.Max(1, w) {
					t.Fatalf("filtered Nearest(%v, %v, %d): result %d is %s at %v m; brute force's is %s at %v m", lat, lon, k, i, n.ID, n.Distance, kept[i].ID, w)
				}
			}
			return nil
		})
	})
}

// FuzzWritesAgainstBruteForce runs random transactions of Put, Delete and
// PutAll (moves, scope changes, duplicate ids in a batch, a fifth of the
// transactions rolled back) on points around a fuzzed centre, a pole and
// ±180°, and checks every query against brute force over a model of what
// was committed: Radius inside the writing transaction (which must see its
// own writes), then Radius, Box, Nearest, Scan and Verify in a View. The
// backend (memory or bbolt) is fuzzed too.
func FuzzWritesAgainstBruteForce(f *testing.F) {
	f.Add(uint64(1), 37.7749, -122.4194, uint8(0))
	f.Add(uint64(2), 89.99, 10.0, uint8(1))
	f.Add(uint64(3), -33.0, 179.999, uint8(0))
	f.Add(uint64(4), 0.0, -180.0, uint8(1))
	f.Fuzz(func(t *testing.T, seed uint64, lat, lon float64, backend uint8) {
		if validate(lat, lon) != nil {
			return
		}
		r := rand.New(rand.NewPCG(seed, 17))
		s := storetest.Backends()[int(backend)%len(storetest.Backends())].Open(t)
		ix := NewIndex("fuzz")
		base := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC) // points expire within 10 s of it
		scopes := []composite.Tuple{nil, {"a"}, {"a", "b\x00:c"}}
		centres := [][2]float64{{lat, lon}, {90, 0}, {lat, 180}}
		randomPoint := func() Point {
			c := centres[r.IntN(len(centres))]
			plat, plon := destination(c[0], c[1], r.ExpFloat64()*3000, r.Float64()*2*math.Pi)
			p := Point{ID: fmt.Sprint("p", r.IntN(30)), Lat: plat, Lon: plon,
				Scope: scopes[r.IntN(len(scopes))], Payload: []byte{byte(r.IntN(256)), 0}}
			if r.IntN(2) == 0 {
				p.Expires = base.Add(time.Duration(1+r.IntN(10)) * time.Second)
			}
			return p
		}
		// An instant at which some of the points have expired.
		someTime := func() time.Time { return base.Add(time.Duration(r.IntN(12)) * time.Second) }
		values := func(m map[string]Point) []Point {
			ps := slices.Collect(maps.Values(m))
			slices.SortFunc(ps, func(a, b Point) int { return strings.Compare(a.ID, b.ID) })
			return ps
		}
		// check asks a radius, a box and k nearest around a random centre
		// under a random scope, and compares each with brute force over m.
		check := func(tx keyspace.Tx, m map[string]Point, where string, all bool) {
			t.Helper()
			points := values(m)
			c := centres[r.IntN(len(centres))]
			scope := scopes[r.IntN(len(scopes))]
			now := someTime()
			in := func(p Point) bool { return string(p.Scope.Pack()) == string(scope.Pack()) && live(p, now) }
			opts := &QueryOptions{Scope: scope, Now: now}
			radius := []float64{100, 2000, 20_000}[r.IntN(3)]
			got, _, err := ix.Radius(tx, c[0], c[1], radius, opts)
			if err != nil {
				t.Fatal(err)
			}
			checkResults(t, fmt.Sprintf("%s: radius %g m around %v under %v", where, radius, c, scope), got,
				brute(points, c[0], c[1], func(p Point) bool { return in(p) && Distance(c[0], c[1], p.Lat, p.Lon) <= radius }))
			if !all {
				return
			}
			deg := 0.05 + r.Float64()*0.5
			b := Box{MinLat: math.Max(c[0]-deg, -90), MaxLat: math.Min(c[0]+deg, 90), MinLon: wrap(c[1] - deg), MaxLon: wrap(c[1] + deg)}
			got, _, err = ix.Box(tx, b, opts)
			if err != nil {
				t.Fatal(err)
			}
			blat, blon := b.centre()
			checkResults(t, fmt.Sprintf("%s: box %+v under %v", where, b, scope), got,
				brute(points, blat, blon, func(p Point) bool { return in(p) && bruteInBox(b, p) }))
			precision := 1 + r.IntN(8)
			cells, st, err := ix.CellCounts(tx, b, precision, opts)
			if err != nil {
				t.Fatal(err)
			}
			checkCells(t, fmt.Sprintf("%s: cells of precision %d in box %+v under %v", where, precision, b, scope), cells, st, points, precision,
				func(p Point) bool { return in(p) && bruteInBox(b, p) })
			bounds, n, err := ix.Bounds(tx, opts)
			if err != nil {
				t.Fatal(err)
			}
			checkBounds(t, fmt.Sprintf("%s: bounds under %v", where, scope), bounds, n, points, in)
			k := 1 + r.IntN(12)
			got, _, err = ix.Nearest(tx, c[0], c[1], k, opts)
			if err != nil {
				t.Fatal(err)
			}
			want := brute(points, c[0], c[1], in)
			checkResults(t, fmt.Sprintf("%s: %d nearest to %v under %v", where, k, c, scope), got, want[:min(k, len(want))])
			var scanned []Point
			if err := ix.Scan(tx, "", func(p Point) bool { scanned = append(scanned, p); return true }); err != nil {
				t.Fatal(err)
			}
			if len(scanned) != len(points) {
				t.Fatalf("%s: Scan found %d points, model %d", where, len(scanned), len(points))
			}
			for i, p := range scanned {
				w := points[i]
				if p.ID != w.ID || p.Lat != w.Lat || p.Lon != w.Lon || string(p.Scope.Pack()) != string(w.Scope.Pack()) || string(p.Payload) != string(w.Payload) || !p.Expires.Equal(w.Expires) {
					t.Fatalf("%s: Scan's point %d is %+v, model %+v", where, i, p, w)
				}
			}
			if problems, err := ix.Verify(tx); err != nil || len(problems) > 0 {
				t.Fatalf("%s: Verify = %v, %v", where, problems, err)
			}
		}
		committed := map[string]Point{}
		for txn := range 12 {
			m := maps.Clone(committed)
			if storetest.UpdateOrAbort(t, s, r.IntN(5) == 0, func(tx keyspace.Tx) error {
				for range 1 + r.IntN(6) {
					switch op := r.IntN(11); {
					case op == 10: // Update: a move and a new payload, keeping the expiry
						id, np := fmt.Sprint("p", r.IntN(30)), randomPoint()
						old, exists := m[id]
						exists = exists && live(old, time.Now()) // Update, as Get, goes by the clock
						got, err := ix.Update(tx, id, func(p *Point) error {
							p.Lat, p.Lon, p.Payload = np.Lat, np.Lon, np.Payload
							return nil
						})
						switch {
						case !exists && !errors.Is(err, keyspace.ErrNotFound):
							t.Fatalf("txn %d: Update of %s, not there: %v", txn, id, err)
						case exists && err != nil:
							return err
						case exists:
							old.Lat, old.Lon, old.Payload = np.Lat, np.Lon, np.Payload
							if got.Lat != old.Lat || !got.Expires.Equal(old.Expires) {
								t.Fatalf("txn %d: Update of %s gave %+v, want %+v", txn, id, got, old)
							}
							m[id] = old
						}
					case op < 5:
						p := randomPoint()
						if err := ix.Put(tx, p); err != nil {
							return err
						}
						m[p.ID] = p
					case op < 7:
						id := fmt.Sprint("p", r.IntN(30))
						if err := ix.Delete(tx, id); err != nil {
							return err
						}
						delete(m, id)
					case op < 9:
						batch := make([]Point, 1+r.IntN(4))
						for i := range batch {
							batch[i] = randomPoint() // ids may repeat: the later wins
						}
						if err := ix.PutAll(tx, batch); err != nil {
							return err
						}
						for _, p := range batch {
							m[p.ID] = p
						}
					case op < 10 && r.IntN(2) == 0:
						now, limit := someTime(), r.IntN(3)
						n, err := ix.DeleteExpired(tx, now, limit)
						if err != nil {
							return err
						}
						var due []Point // soonest first, ties by id, as their keys sort
						for _, p := range m {
							if !live(p, now) {
								due = append(due, p)
							}
						}
						slices.SortFunc(due, func(a, b Point) int {
							return cmp.Or(a.Expires.Compare(b.Expires), strings.Compare(a.ID, b.ID))
						})
						if limit > 0 {
							due = due[:min(limit, len(due))]
						}
						if n != len(due) {
							t.Fatalf("txn %d: DeleteExpired(%v, limit %d) deleted %d points, %d were due", txn, now, limit, n, len(due))
						}
						for _, p := range due {
							delete(m, p.ID)
						}
					default:
						check(tx, m, fmt.Sprintf("txn %d, inside", txn), false)
					}
				}
				return nil
			}) {
				committed = m
			}
			s.View(func(tx keyspace.Tx) error {
				check(tx, committed, fmt.Sprintf("txn %d, after", txn), true)
				return nil
			})
		}
	})
}

// FuzzRepair: after random puts (in both caps, across ±180, under scopes,
// with payloads), moves and deletes, the index is damaged at random in
// ways Repair can undo: reverse entries deleted, pointed elsewhere, added
// for no point or undecodable; a point moved to a key its coordinates do
// not give; a stale copy of a point left under another key, which its
// reverse entry does not name. Verify must find a problem exactly when
// something changed, and Repair must put every key back as Put and Delete
// left it.
func FuzzRepair(f *testing.F) {
	storetest.FuzzEachBackend(f, func(t *testing.T, s keyspace.Store, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 53))
		ix := NewIndex("places")
		spots := [][2]float64{{59.9, 10.7}, {89.9, 0}, {-89.95, 120}, {0.5, 179.999}, {0.5, -179.999}, {-33.9, 151.2}}
		if err := s.Update(func(tx keyspace.Tx) error {
			for range 50 {
				id := fmt.Sprint("p", r.IntN(25))
				if r.IntN(6) == 0 {
					if err := ix.Delete(tx, id); err != nil {
						return err
					}
					continue
				}
				c := spots[r.IntN(len(spots))]
				p := Point{ID: id, Lat: c[0] + r.Float64()*0.01, Lon: math.Max(-180, math.Min(180, c[1]+r.Float64()*0.01-0.005)), Payload: []byte{byte(r.IntN(3))}}
				if r.IntN(3) == 0 {
					p.Scope = composite.Tuple{fmt.Sprint("s", r.IntN(2))}
				}
				if r.IntN(2) == 0 {
					p.Expires = time.Date(2030, 1, 1, 0, 0, r.IntN(4), 0, time.UTC)
				}
				if err := ix.Put(tx, p); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		sound := storetest.Contents(t, s)
		// Damage that leaves the truth findable: a point with a stale copy
		// keeps its reverse entry and its key, so Repair can tell the
		// copies apart; other points may lose either, not both.
		if err := s.Update(func(tx keyspace.Tx) error {
			type pointKey struct {
				key, value []byte
				p          Point
			}
			var points []pointKey
			for g, sub := range ix.points {
				for k, v := range tx.Scan(sub.Range()) {
					p, err := ix.decode(grid(g), k, v)
					if err != nil {
						return err
					}
					points = append(points, pointKey{slices.Clone(k), slices.Clone(v), p})
				}
			}
			copied, touched := map[string]bool{}, map[string]bool{} // ids with a stale copy; ids whose reverse entry or key changed
			for range 1 + r.IntN(3) {
				if len(points) == 0 {
					break
				}
				pk := points[r.IntN(len(points))]
				id, rev := pk.p.ID, ix.ids.Pack(composite.Tuple{pk.p.ID})
				var err error
				switch kind := r.IntN(8); {
				case kind == 6: // a point's expiry entry lost
					if !pk.p.Expires.IsZero() {
						err = tx.Delete(ix.expiryKey(pk.p.Expires.UnixNano(), id))
					}
				case kind == 7: // an expiry entry of no point, or of another time
					err = tx.Put(ix.expiryKey(time.Date(2031, 1, 1, 0, 0, r.IntN(2), 0, time.UTC).UnixNano(), fmt.Sprint("p", r.IntN(30))), nil)
				case kind == 2:
					err = tx.Put(ix.ids.Pack(composite.Tuple{fmt.Sprint("q", r.IntN(3))}), []byte{0x05, 0x00, 0x15, 0x01}) // names no point
				case kind == 3:
					err = tx.Put(append(ix.ids.Bytes(), byte(r.IntN(255)), 0xff), nil) // does not decode
				case kind == 4: // a stale copy at another place (a write that half happened)
					if touched[id] {
						continue
					}
					c := spots[r.IntN(len(spots))]
					stale := pk.p
					stale.Lat, stale.Lon = c[0], c[1]
					g, h := locate(stale.Lat, stale.Lon)
					err = tx.Put(ix.points[g].Pack(append(placeOf(stale.Scope, h), id)), appendValue(nil, &stale, 0))
					copied[id] = true
				case copied[id]:
					continue
				case kind == 0:
					err = tx.Delete(rev)
					touched[id] = true
				case kind == 1:
					err = tx.Put(rev, []byte("\x05\x00\x02nowhere\x00")) // names another place
					touched[id] = true
				default: // the point under another hash of its grid, which its coordinates do not give
					k := slices.Clone(pk.key)
					k[len(k)-len(id)-3] ^= 0x01 // the hash's last byte
					if err = tx.Delete(pk.key); err == nil {
						err = tx.Put(k, pk.value)
					}
					touched[id] = true
				}
				if err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		storetest.CheckRepair(t, s, sound, ix.Verify, ix.Repair)
	})
}

// checkFirst fails t unless limited, a query's answer with a limit of k,
// is the first k of all, its answer with none: the same points at the
// same distances, in the same order.
func checkFirst(t *testing.T, what string, all, limited []Result, k int, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s with limit %d: %v", what, k, err)
	}
	want := all[:min(k, len(all))]
	if len(limited) != len(want) {
		t.Fatalf("%s with limit %d: %d results, of %d without", what, k, len(limited), len(all))
	}
	for i := range want {
		if limited[i].ID != want[i].ID || limited[i].Distance != want[i].Distance {
			t.Fatalf("%s with limit %d: result %d is %s at %v m; without a limit %s at %v m", what, k, i, limited[i].ID, limited[i].Distance, want[i].ID, want[i].Distance)
		}
	}
}

// FuzzPieceDistance: a candidate's distance from a piece of a line
// (path.distanceFrom: samples, then parabolic steps) is no more than a
// micrometre above the nearest the oracle finds along the piece
// (bruteLineDistance, a branch and bound on the triangle inequality over
// Vincenty distances), and no less than the oracle's lower bound, for
// pieces of up to 100 km and points within 20 km of them.
func FuzzPieceDistance(f *testing.F) {
	f.Add(45.0, 10.0, 45.1, 10.2, 45.05, 10.1)
	f.Add(89.28270297723384, 39.41172901482682, 89.28294363442222, 39.390408501299866, 89.28287599511485, 39.39640086237377) // on the line, near the pole
	f.Add(-2.0, 179.9, -2.1, -179.9, -2.05, 180.0)                                                                           // across ±180
	f.Add(10.0, 20.0, 10.0, 20.0, 10.001, 20.0)                                                                              // a piece of one position
	f.Fuzz(func(t *testing.T, lat0, lon0, lat1, lon1, plat, plon float64) {
		if validate(lat0, lon0) != nil || validate(lat1, lon1) != nil || validate(plat, plon) != nil {
			return
		}
		p := newPath(Point{Lat: lat0, Lon: lon0}, Point{Lat: lat1, Lon: lon1})
		if p.length() > pieceMetres || Distance(lat0, lon0, plat, plon) > p.length()+20_000 {
			return
		}
		got := p.distanceFrom(newOrigin(plat, plon))
		lo, hi := bruteLineDistance(orb.MultiLineString{{{lon0, lat0}, {lon1, lat1}}}, plat, plon, 1e-8, math.Inf(1))
		if slack := 1e-6 + 1e-9*hi; got > hi+slack || got < lo-slack {
			t.Fatalf("(%v, %v) from the piece %+v: %v m, brute force between %v and %v", plat, plon, p, got, lo, hi)
		}
	})
}

// FuzzAlongAgainstBruteForce: Along over a random line from (lat, lon)
// finds the points the oracle puts within the radius (checkAlong), and
// NearestAlong's k the oracle's k nearest, over points placed about the
// line's positions, at the poles and on ±180°.
func FuzzAlongAgainstBruteForce(f *testing.F) {
	f.Add(uint64(1), 37.7749, -122.4194, 1000.0, uint8(5))
	f.Add(uint64(2), 89.9, 0.0, 50000.0, uint8(1))
	f.Add(uint64(3), -12.0, 179.95, 20000.0, uint8(12))
	f.Add(uint64(4), 0.0, 0.0, 0.0, uint8(3))
	f.Fuzz(func(t *testing.T, seed uint64, lat, lon, radius float64, k uint8) {
		if validate(lat, lon) != nil || math.IsNaN(radius) || radius < 0 || radius > 5e6 || k == 0 {
			return
		}
		r := rand.New(rand.NewPCG(seed, 13))
		line := randomLine(r, lat, lon)
		s, ix, points := fuzzPointsAbout(t, r, line, lat, 2*radius, 100)
		lines := orb.MultiLineString{line}
		s.View(func(tx keyspace.Tx) error {
			got, _, err := ix.Along(tx, line, radius, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkAlong(t, fmt.Sprintf("%v within %v m", line, radius), points, lines, radius, got)
			near, _, err := ix.NearestAlong(tx, line, int(k), nil)
			if err != nil {
				t.Fatal(err)
			}
			checkNearestAnswer(t, fmt.Sprintf("the %d nearest %v", k, line), points, int(k), near, func(p Point, dk float64) (lo, hi float64) {
				return bruteLineDistance(lines, p.Lat, p.Lon, 1e-3, dk+1)
			})
			return nil
		})
	})
}

// fuzzPointsAbout puts into a memory store 40 points, each a random
// distance of up to reach + spread in a random direction from a random
// position of about, and four at the poles and on ±180° at latitude lat.
func fuzzPointsAbout(t *testing.T, r *rand.Rand, about orb.LineString, lat, reach, spread float64) (keyspace.Store, *Index, []Point) {
	t.Helper()
	var points []Point
	for range 40 {
		v := about[r.IntN(len(about))]
		plat, plon := destination(v.Lat(), v.Lon(), r.Float64()*reach+r.Float64()*spread, r.Float64()*2*math.Pi)
		points = append(points, Point{ID: fmt.Sprint("p", len(points)), Lat: plat, Lon: plon})
	}
	for _, q := range [][2]float64{{90, 0}, {-90, 10}, {lat, 180}, {lat, -180}} {
		points = append(points, Point{ID: fmt.Sprint("p", len(points)), Lat: q[0], Lon: q[1]})
	}
	s := keyspace.NewMemory()
	ix := NewIndex("fuzz")
	if err := s.Update(func(tx keyspace.Tx) error { return ix.PutAll(tx, points) }); err != nil {
		t.Fatal(err)
	}
	return s, ix, points
}

// FuzzNearPolygonAgainstBruteForce: a random star (with a hole, or
// not) round a fuzzed centre, and 40 points about its vertices, inside
// and beyond it, and at the poles and on ±180°, asked for the points
// within a fuzzed distance of it (NearPolygon) and the k nearest it
// (NearestPolygon), against polygonDistanceOracle.
func FuzzNearPolygonAgainstBruteForce(f *testing.F) {
	f.Add(uint64(1), 37.7749, -122.4194, 1000.0, uint8(5))
	f.Add(uint64(2), 89.9, 0.0, 50000.0, uint8(1))
	f.Add(uint64(3), -12.0, 179.95, 20000.0, uint8(12))
	f.Add(uint64(4), 0.0, 0.0, 0.0, uint8(3))
	f.Fuzz(func(t *testing.T, seed uint64, lat, lon, radius float64, k uint8) {
		if validate(lat, lon) != nil || math.IsNaN(radius) || radius < 0 || radius > 5e6 || k == 0 {
			return
		}
		r := rand.New(rand.NewPCG(seed, 17))
		poly := star(r, lat, lon, r.ExpFloat64(), r.IntN(2) == 0)
		s, ix, points := fuzzPointsAbout(t, r, orb.LineString(poly[0]), lat, 2*radius, 100_000)
		mp := orb.MultiPolygon{poly}
		s.View(func(tx keyspace.Tx) error {
			got, _, err := ix.NearPolygon(tx, poly, radius, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkMeasured(t, fmt.Sprintf("within %v m of %v", radius, poly), points, radius, got, polygonDistanceOracle(mp, radius))
			near, _, err := ix.NearestPolygon(tx, poly, int(k), nil)
			if err != nil {
				t.Fatal(err)
			}
			checkNearestAnswer(t, fmt.Sprintf("the %d nearest %v", k, poly), points, int(k), near, func(p Point, dk float64) (lo, hi float64) {
				return polygonDistanceOracle(mp, dk)(p)
			})
			return nil
		})
	})
}
