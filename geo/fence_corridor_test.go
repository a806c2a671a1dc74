package geo

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/storetest"
	"github.com/paulmach/orb"
)

// randomCorridor is a corridor fence's region about (lat, lon): a line
// of randomLine's (steps from 10 m to 2,000 km, across ±180° and near the
// poles), a fifth of the time two of them, with no radius a quarter of
// the time (a road) and else up to tens of kilometres.
func randomCorridor(r *rand.Rand, lat, lon float64) *Corridor {
	var line orb.Geometry = randomLine(r, lat, lon)
	if r.IntN(5) == 0 {
		line = orb.MultiLineString{line.(orb.LineString), randomLine(r, lat, lon)}
	}
	c := &Corridor{Line: line}
	if r.IntN(4) != 0 {
		c.Radius = r.ExpFloat64() * 10_000
	}
	return c
}

// corridorHolds is the oracle for a point in a corridor, written apart
// from along.go: its distance from the line by bruteLineDistance (to a
// tenth of a micrometre) within the radius.
func corridorHolds(c *Corridor, lat, lon float64) bool {
	_, hi := bruteLineDistance(corridorLines(c.Line), lat, lon, 1e-7, c.Radius+1)
	return hi <= c.Radius
}

// corridorGap is how far (lat, lon) lies from c's edge, in metres, to a
// millimetre.
func corridorGap(c *Corridor, lat, lon float64) float64 {
	_, hi := bruteLineDistance(corridorLines(c.Line), lat, lon, 1e-4, math.Inf(1))
	return math.Abs(hi - c.Radius)
}

// corridorMeetsOracle says whether the corridor c comes within radius
// metres of lines: whether its line comes within c's radius and radius
// of them (curveAlongOracle along each edge of c's line), or, with no
// radius to speak of, crosses them (linesCross).
func corridorMeetsOracle(c *Corridor, lines orb.MultiLineString, radius float64) int {
	const tol = 1e-3
	own := corridorLines(c.Line)
	if c.Radius+radius < 10*tol && linesCross(own, lines) {
		return through
	}
	verdict := misses
	for _, ls := range own {
		for i := 1; i < len(ls); i++ {
			at, length := oracleEdge(ls[i-1].Lat(), ls[i-1].Lon(), ls[i].Lat(), ls[i].Lon())
			grown := func(t0, t1 float64) float64 { return length(t0, t1) * (1 + 1e-9) }
			switch curveAlongOracle(lines, at, grown, c.Radius+radius, tol) {
			case through:
				return through
			case grazes:
				verdict = grazes
			}
		}
	}
	return verdict
}

// linesCross reports whether an edge of a crosses an edge of b clearly,
// in the plane of longitude and latitude (each edge the shorter way
// round, b's tried a turn either way): each edge's ends strictly on
// either side of the other's line, by more than rounding.
func linesCross(a, b orb.MultiLineString) bool {
	side := func(p, q, x orb.Point) float64 { return (q[0]-p[0])*(x[1]-p[1]) - (q[1]-p[1])*(x[0]-p[0]) }
	unwrap := func(p, q orb.Point) orb.Point {
		d := q[0] - p[0]
		if d > 180 {
			d -= 360
		} else if d <= -180 {
			d += 360
		}
		return orb.Point{p[0] + d, q[1]}
	}
	const eps = 1e-9
	for _, la := range a {
		for i := 1; i < len(la); i++ {
			p0 := la[i-1]
			p1 := unwrap(p0, la[i])
			for _, lb := range b {
				for j := 1; j < len(lb); j++ {
					for _, shift := range []float64{-360, 0, 360} {
						q0 := orb.Point{lb[j-1][0] + shift, lb[j-1][1]}
						q1 := unwrap(q0, lb[j])
						s0, s1 := side(p0, p1, q0), side(p0, p1, q1)
						t0, t1 := side(q0, q1, p0), side(q0, q1, p1)
						if (s0 > eps && s1 < -eps || s0 < -eps && s1 > eps) && (t0 > eps && t1 < -eps || t0 < -eps && t1 > eps) {
							return true
						}
					}
				}
			}
		}
	}
	return false
}

// corridorSamples returns points of c: with first, its lines' first
// positions; else points along its lines (100 an edge) and, round each,
// the points at its radius on 16 bearings.
func corridorSamples(c *Corridor, first bool) []Point {
	var out []Point
	for _, ls := range corridorLines(c.Line) {
		if first {
			out = append(out, Point{Lat: ls[0].Lat(), Lon: ls[0].Lon()})
			continue
		}
		for i := 1; i < len(ls); i++ {
			at, _ := oracleEdge(ls[i-1].Lat(), ls[i-1].Lon(), ls[i].Lat(), ls[i].Lon())
			for k := range 101 {
				lat, lon := at(float64(k) / 100)
				out = append(out, Point{Lat: lat, Lon: lon})
				if c.Radius == 0 {
					continue
				}
				for b := range 16 {
					plat, plon := destination(lat, lon, c.Radius, float64(b)*math.Pi/8)
					out = append(out, Point{Lat: plat, Lon: plon})
				}
			}
		}
	}
	return out
}

// TestFenceCorridorCases: corridors as fences in the cases their
// definition decides, each against what it implies: a point just inside
// and just outside the radius, round a line's end, on ±180° and at a pole;
// a move across a road; areas that meet a corridor only by its radius, a
// road through a box with no position in it; routes within an area or
// leaving it across a notch, a hole or a sector's side.
func TestFenceCorridorCases(t *testing.T) {
	route := Fence{ID: "route", Corridor: &Corridor{Line: orb.LineString{{0.2, 0.5}, {0.8, 0.5}}, Radius: 5_000}}
	road := Fence{ID: "road", Corridor: &Corridor{Line: orb.LineString{{10, -1}, {10, 1}}}}
	dateline := Fence{ID: "dateline", Corridor: &Corridor{Line: orb.LineString{{179.5, 10}, {-179.5, 10}}, Radius: 1000}}
	polar := Fence{ID: "polar", Corridor: &Corridor{Line: orb.LineString{{0, 89.5}, {0, 90}}, Radius: 2000}}
	twin := Fence{ID: "twin", Corridor: &Corridor{Line: orb.MultiLineString{{{30, 0}, {30.1, 0}}, {{40, 0}, {40.1, 0}}}, Radius: 100}}
	fences := []Fence{route, road, dateline, polar, twin}
	at := func(lat, lon, d, bearing float64) Point {
		plat, plon := destination(lat, lon, d, bearing*math.Pi/180)
		return Point{Lat: plat, Lon: plon}
	}
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		fs := NewFences("corridors")
		if err := s.Update(func(tx keyspace.Tx) error { return fs.PutAll(tx, fences) }); err != nil {
			t.Fatal(err)
		}
		s.View(func(tx keyspace.Tx) error {
			for _, c := range []struct {
				name string
				p    Point
				want []string
			}{
				{"on the route", Point{Lat: 0.5, Lon: 0.5}, []string{"route"}},
				{"10 m inside the radius", at(0.5, 0.5, 4_990, 0), []string{"route"}},
				{"10 m outside the radius", at(0.5, 0.5, 5_010, 0), nil},
				{"past the route's end, inside", at(0.5, 0.8, 4_990, 45), []string{"route"}},
				{"past the route's end, outside", at(0.5, 0.8, 5_010, 90), nil},
				{"the road's end", Point{Lat: -1, Lon: 10}, []string{"road"}},
				{"beside the road", Point{Lat: 0, Lon: 10.001}, nil},
				{"on ±180°", Point{Lat: 10, Lon: 180}, []string{"dateline"}},
				{"on −180°", Point{Lat: 10.005, Lon: -180}, []string{"dateline"}},
				{"north of ±180°", Point{Lat: 10.02, Lon: 180}, nil},
				{"near the pole, the line's end", Point{Lat: 89.99, Lon: 120}, []string{"polar"}},
				{"farther from the pole", Point{Lat: 89.97, Lon: 180}, nil},
				{"the second line of two", Point{Lat: 0, Lon: 40.05}, []string{"twin"}},
			} {
				if got, err := fs.Containing(tx, c.p.Lat, c.p.Lon); err != nil || !slices.Equal(got, c.want) {
					t.Errorf("%s: Containing %v, %v; want %v", c.name, got, err, c.want)
				}
			}
			for _, c := range []struct {
				name          string
				before, after Point
				want          []Crossing
			}{
				{"across the road", Point{Lat: 0, Lon: 9}, Point{Lat: 0, Lon: 11}, []Crossing{{"road", Cross}}},
				{"beside the road", Point{Lat: 2, Lon: 9}, Point{Lat: 2, Lon: 11}, nil},
				{"off the route", Point{Lat: 0.5, Lon: 0.5}, Point{Lat: 2, Lon: 0.5}, []Crossing{{"route", Exit}}},
				{"onto the route", Point{Lat: 2, Lon: 0.5}, Point{Lat: 0.51, Lon: 0.6}, []Crossing{{"route", Enter}}},
				{"along the route", Point{Lat: 0.5, Lon: 0.3}, Point{Lat: 0.52, Lon: 0.7}, []Crossing{{"route", Inside}}},
			} {
				if got, err := fs.Crossings(tx, &c.before, &c.after); err != nil || !slices.Equal(got, c.want) {
					t.Errorf("%s: Crossings %v, %v; want %v", c.name, got, err, c.want)
				}
			}
			// Near: the line's distance less the radius.
			p := at(0.5, 0.5, 12_000, 0)
			near, err := fs.Near(tx, p.Lat, p.Lon, 10_000, 0)
			want := Distance(p.Lat, p.Lon, 0.5, 0.5) - 5_000
			if err != nil || len(near) != 1 || near[0].ID != "route" || math.Abs(near[0].Distance-want) > 1 {
				t.Errorf("Near: %+v, %v; want route at %.1f m", near, err, want)
			}
			return nil
		})
	})
	gap := Distance(0, 10, 0, 10.1) // from the road to a point 0.1° east of it
	for _, c := range []struct {
		name string
		area Fence
		want []string
	}{
		{"a box the route's radius reaches", Fence{Box: &Box{MinLat: 0.54, MinLon: 0.3, MaxLat: 0.7, MaxLon: 0.4}}, []string{"route"}},
		{"a box beyond its radius", Fence{Box: &Box{MinLat: 0.6, MinLon: 0.3, MaxLat: 0.7, MaxLon: 0.4}}, nil},
		{"a box the road passes through", Fence{Box: &Box{MinLat: -0.5, MinLon: 9, MaxLat: 0.5, MaxLon: 11}}, []string{"road"}},
		{"a circle reaching the road", Fence{Circle: &Circle{Lat: 0, Lon: 10.1, Radius: gap + 10}}, []string{"road"}},
		{"a circle short of it", Fence{Circle: &Circle{Lat: 0, Lon: 10.1, Radius: gap - 10}}, nil},
		{"a road across the road", Fence{Corridor: &Corridor{Line: orb.LineString{{9, 0}, {11, 0}}}}, []string{"road"}},
		{"a corridor beside it, short", Fence{Corridor: &Corridor{Line: orb.LineString{{10.1, -1}, {10.1, 1}}, Radius: gap - 10}}, nil},
		{"a corridor beside it, reaching", Fence{Corridor: &Corridor{Line: orb.LineString{{10.1, -1}, {10.1, 1}}, Radius: gap + 10}}, []string{"road"}},
		{"a box across ±180°", Fence{Box: &Box{MinLat: 10.005, MinLon: 179.99, MaxLat: 11, MaxLon: -179.99}}, []string{"dateline"}},
		{"a circle round the pole", Fence{Circle: &Circle{Lat: 90, Lon: 0, Radius: 100}}, []string{"polar"}},
	} {
		askCase(t, fences, c.name, c.area, c.want, (*Fences).Intersecting)
	}
	// Within: routes and roads in a U, a ring with a hole and a sector.
	u := orb.Polygon{{{0, 0}, {3, 0}, {3, 3}, {2, 3}, {2, 1}, {1, 1}, {1, 3}, {0, 3}, {0, 0}}}
	apex := Point{Lat: 20, Lon: 20}
	near, far := at(apex.Lat, apex.Lon, 60_000, 45), at(apex.Lat, apex.Lon, 100_000, 45)
	side := math.Sin(math.Pi/4) * 60_000 // the sides' distance from the nearer end, about
	held := []Fence{
		{ID: "bottom road", Corridor: &Corridor{Line: orb.LineString{{0.5, 0.5}, {2.5, 0.5}}}},
		{ID: "notch road", Corridor: &Corridor{Line: orb.LineString{{0.5, 2}, {2.5, 2}}}},
		{ID: "in the box", Corridor: &Corridor{Line: orb.LineString{{0.2, 0.5}, {0.8, 0.5}}, Radius: Distance(0.5, 0.2, 0.5, 0.1) - 10}},
		{ID: "past the box", Corridor: &Corridor{Line: orb.LineString{{0.2, 0.5}, {0.8, 0.5}}, Radius: Distance(0.5, 0.2, 0.5, 0.1) + 10}},
		{ID: "over the hole", Corridor: &Corridor{Line: orb.LineString{{-101.5, 40}, {-98.5, 40}}}},
		{ID: "round the hole", Corridor: &Corridor{Line: orb.LineString{{-101.5, 41.5}, {-98.5, 41.5}}, Radius: 1000}},
		{ID: "in the sector", Corridor: &Corridor{Line: orb.LineString{{near.Lon, near.Lat}, {far.Lon, far.Lat}}, Radius: side - 2_000}},
		{ID: "over its side", Corridor: &Corridor{Line: orb.LineString{{near.Lon, near.Lat}, {far.Lon, far.Lat}}, Radius: side + 2_000}},
	}
	for _, c := range []struct {
		name string
		area Fence
		want []string
	}{
		{"a U", Fence{Polygon: u}, []string{"bottom road", "in the box", "past the box"}},
		{"a box", Fence{Box: &Box{MinLat: 0, MinLon: 0.1, MaxLat: 1, MaxLon: 1}}, []string{"in the box"}},
		{"a ring", Fence{Polygon: squareRing(40, -100, 2, true)}, []string{"round the hole"}},
		{"a sector", Fence{Sector: &Sector{Lat: apex.Lat, Lon: apex.Lon, Radius: 200_000, From: 0, To: 90}}, []string{"in the sector"}},
	} {
		askCase(t, held, c.name, c.area, c.want, (*Fences).Within)
	}
	// A bad corridor is a bad fence, and a bad area for Within.
	s := keyspace.NewMemory()
	s.Update(func(tx keyspace.Tx) error {
		fs := NewFences("cases")
		if _, err := fs.Within(tx, Fence{Corridor: &Corridor{Line: orb.LineString{{0, 0}}}}); !errors.Is(err, ErrBadFence) {
			t.Errorf("Within a corridor of one position: %v", err)
		}
		for _, bad := range []*Corridor{
			{Line: orb.LineString{{0, 0}}},
			{Line: orb.LineString{{0, 0}, {0, 91}}},
			{Line: orb.LineString{{0, 0}, {1, 1}}, Radius: -1},
			{Line: orb.LineString{{0, 0}, {1, 1}}, Radius: math.NaN()},
			{Line: orb.Polygon{{{0, 0}, {1, 1}, {0, 1}, {0, 0}}}},
			{},
		} {
			if err := fs.Put(tx, Fence{ID: "bad", Corridor: bad}); !errors.Is(err, ErrBadFence) {
				t.Errorf("Put(%+v): %v", bad, err)
			}
		}
		if ids, err := fs.IDs(tx); err != nil || len(ids) != 0 {
			t.Errorf("bad corridors stored: %v, %v", ids, err)
		}
		return nil
	})
}

// TestCorridorValueHolds: a point tested on a corridor's region key in
// place (corridorValueHolds) gets the answer of the corridor decoded from
// it (decodeCorridor, corridor.contains), at points just inside and just
// outside the radius of random corridors (randomCorridor) and at random;
// and a damaged key is refused by both or by neither.
func TestCorridorValueHolds(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	inside, outside := 0, 0
	for range 300 {
		lat, lon := r.Float64()*180-90, r.Float64()*360-180
		c := randomCorridor(r, lat, lon)
		v := c.regionValue()
		reg, err := decodeCorridor(v)
		if err != nil {
			t.Fatal(err)
		}
		lines := corridorLines(c.Line)
		for range 40 {
			// A point of the line, moved the radius less or more a hair.
			ls := lines[r.IntN(len(lines))]
			i := r.IntN(len(ls) - 1)
			at, _ := oracleEdge(ls[i].Lat(), ls[i].Lon(), ls[i+1].Lat(), ls[i+1].Lon())
			plat, plon := at(r.Float64())
			plat, plon = destination(plat, plon, c.Radius*(1+(r.Float64()-0.5)*1e-3)+r.Float64()*r.Float64()*1e-3, r.Float64()*2*math.Pi)
			if r.IntN(5) == 0 {
				plat, plon = r.Float64()*180-90, r.Float64()*360-180
			}
			held, ok := corridorValueHolds(v, plat, plon)
			if want := reg.contains(plat, plon); !ok || held != want {
				t.Fatalf("corridor %+v at (%v, %v): in place %v (ok %v), decoded %v", c, plat, plon, held, ok, want)
			}
			if held {
				inside++
			} else {
				outside++
			}
		}
		checkDamagedCorridorValue(t, v, r)
	}
	if inside < 1000 || outside < 1000 {
		t.Fatalf("%d points inside, %d outside: too few of one to mean much", inside, outside)
	}
}

// checkDamagedCorridorValue cuts v short and flips bytes of it: each
// damaged value either both read (agreeing at a point) or neither.
func checkDamagedCorridorValue(t *testing.T, v []byte, r *rand.Rand) {
	t.Helper()
	for range 5 {
		bad := slices.Clone(v)
		if r.IntN(2) == 0 {
			bad = bad[:r.IntN(len(bad))]
		} else {
			bad[r.IntN(len(bad))] ^= byte(1 + r.IntN(255))
		}
		lat, lon := r.Float64()*180-90, r.Float64()*360-180
		held, ok := corridorValueHolds(bad, lat, lon)
		reg, err := decodeCorridor(bad)
		if ok != (err == nil) || ok && held != reg.contains(lat, lon) {
			t.Fatalf("damaged value %x: in place %v (ok %v), decoded %v", bad, held, ok, err)
		}
	}
}

// FuzzCorridorValue: any bytes as a corridor's region key are read alike
// in place and decoded: refused by both, or giving the same answer at
// the point.
func FuzzCorridorValue(f *testing.F) {
	r := rand.New(rand.NewPCG(53, 54))
	for range 6 {
		c := randomCorridor(r, r.Float64()*180-90, r.Float64()*360-180)
		f.Add(c.regionValue(), r.Float64()*180-90, r.Float64()*360-180)
	}
	f.Add([]byte{cellCorridor}, 0.0, 0.0)
	f.Fuzz(func(t *testing.T, v []byte, lat, lon float64) {
		if validate(lat, lon) != nil {
			return
		}
		held, ok := corridorValueHolds(v, lat, lon)
		reg, err := decodeCorridor(v)
		if ok != (err == nil) || ok && held != reg.contains(lat, lon) {
			t.Fatalf("value %x at (%v, %v): in place %v (ok %v), decoded %v", v, lat, lon, held, ok, err)
		}
	})
}
