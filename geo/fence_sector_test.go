package geo

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/storetest"
	"github.com/paulmach/orb"
)

// sectorGap is how far p lies from the boundary of the sector s, in
// metres, by the textbook cross-track and along-track distances, written
// apart from fence_sector.go's vectors: p at angle d from the apex and
// bearing β lies asin(sin d·sin(β − b)) across the great circle of a side
// of bearing b, and atan2(sin d·cos(β − b), cos d) along it. Off the
// side's length, its nearer end is nearest. The arc of the sector's
// circle is |d − θ| away when β is among the sector's bearings.
func sectorGap(s *Sector, p Point) float64 {
	d := Distance(s.Lat, s.Lon, p.Lat, p.Lon) / EarthRadius
	β := rad(bearing(s.Lat, s.Lon, p.Lat, p.Lon))
	θ := math.Min(s.Radius/EarthRadius, math.Pi)
	span := clockwise(s.From, s.To)
	best := math.Inf(1)
	if span != 0 { // a whole circle has no sides
		for _, b := range []float64{s.From, s.To} {
			across := math.Asin(math.Sin(d) * math.Sin(β-rad(b)))
			along := math.Atan2(math.Sin(d)*math.Cos(β-rad(b)), math.Cos(d))
			if along >= 0 && along <= θ {
				best = math.Min(best, math.Abs(across)*EarthRadius)
				continue
			}
			lat, lon := towards(s.Lat, s.Lon, θ*EarthRadius, b)
			best = math.Min(best, math.Min(d*EarthRadius, Distance(lat, lon, p.Lat, p.Lon)))
		}
	}
	if θ < math.Pi && (span == 0 || clockwise(s.From, β*180/math.Pi) <= span) {
		best = math.Min(best, math.Abs(d-θ)*EarthRadius)
	}
	return best
}

// sampledFence is a fence with its samples (fenceSamples), taken once
// for the many sectors a test asks about it.
type sampledFence struct {
	Fence
	first, edge []Point
	spacing     float64 // the greatest distance between neighbouring samples of edge
}

func sampleFence(f Fence) sampledFence {
	sf := sampledFence{Fence: f, first: fenceSamples(f, true), edge: fenceSamples(f, false)}
	for i := 1; i < len(sf.edge); i++ {
		sf.spacing = max(sf.spacing, Distance(sf.edge[i-1].Lat, sf.edge[i-1].Lon, sf.edge[i].Lat, sf.edge[i].Lon))
	}
	return sf
}

// sectorMeetsOracle says whether the sector s (inside, its samples
// sectorSamples) and the fence f share a point, by sampling, written
// apart from fence_sector.go: f's samples (its centre or first vertices,
// its outline at 100 points an edge and a grid inside) in s, or s's
// samples clear inside f, mean through; otherwise, if every sample of
// f's outline lies further from s than twice their spacing and f does
// not hold the apex, misses; else grazes. A circle is decided by its
// centre and its distance from s's boundary, beyond a centimetre.
func sectorMeetsOracle(s *Sector, inside []Point, f sampledFence) int {
	in := func(p Point) bool {
		ok, unsure := sectorOracle(s.Lat, s.Lon, s.Radius, s.From, s.To, p)
		return ok && !unsure
	}
	if c := f.Circle; c != nil {
		centre := Point{Lat: c.Lat, Lon: c.Lon}
		if in(centre) {
			return through
		}
		switch g := sectorGap(s, centre); {
		case g < c.Radius-0.01:
			return through
		case g > c.Radius+0.01 && !fenceHolds(Fence{Sector: s}, c.Lat, c.Lon):
			return misses
		}
		return grazes
	}
	// Samples outside the sector's circle by more than the margin are
	// clear of it, and of the test of each.
	margin := 2*f.spacing + 0.01
	clear := func(p Point) bool { return Distance(s.Lat, s.Lon, p.Lat, p.Lon) > s.Radius+margin }
	for _, p := range append(f.first, f.edge...) {
		if !clear(p) && in(p) {
			return through
		}
	}
	apex := Point{Lat: s.Lat, Lon: s.Lon}
	for _, q := range inside {
		if fenceHolds(f.Fence, q.Lat, q.Lon) && boundaryGap(f.Fence, q) > 0.01 {
			return through
		}
	}
	if boundaryGap(f.Fence, apex) <= 0.01 || fenceHolds(f.Fence, apex.Lat, apex.Lon) {
		return grazes
	}
	for _, p := range f.edge {
		if !clear(p) && (fenceHolds(Fence{Sector: s}, p.Lat, p.Lon) || sectorGap(s, p) <= margin) {
			return grazes
		}
	}
	return misses
}

// sectorBoundary is the sector's boundary, in order: out along its side
// from, round its arc and back along its side to, n points each, by
// destination (towards, at a pole) as the oracles sample it.
func sectorBoundary(s *Sector, n int) []Point {
	span := clockwise(s.From, s.To)
	if span == 0 {
		span = 360
	}
	reach := math.Min(s.Radius, math.Pi*EarthRadius)
	var out []Point
	add := func(d, b float64) {
		lat, lon := towards(s.Lat, s.Lon, d, b)
		out = append(out, Point{Lat: lat, Lon: lon})
	}
	for i := range n {
		add(reach*float64(i)/float64(n), s.From)
	}
	for i := range n {
		add(reach, s.From+span*float64(i)/float64(n))
	}
	for i := n; i > 0; i-- {
		add(reach*float64(i)/float64(n), s.To)
	}
	return out
}

// sectorSamples are points of the sector: its apex, and 24 distances
// by 24 bearings over it.
func sectorSamples(s *Sector) []Point {
	out := []Point{{Lat: s.Lat, Lon: s.Lon}}
	span := clockwise(s.From, s.To)
	if span == 0 {
		span = 360
	}
	reach := math.Min(s.Radius, math.Pi*EarthRadius)
	for i := 1; i <= 24; i++ {
		for j := range 24 {
			lat, lon := towards(s.Lat, s.Lon, reach*float64(i)/24, s.From+span*(float64(j)+0.5)/24)
			out = append(out, Point{Lat: lat, Lon: lon})
		}
	}
	return out
}

// randomSector is a sector round (lat, lon): one of sectorCases, or
// random bearings, of radius up to some hundreds of kilometres or none.
func randomSector(r *rand.Rand, lat, lon float64) *Sector {
	c := sectorCases[r.IntN(len(sectorCases))]
	if r.IntN(2) == 0 {
		from := r.Float64()*720 - 360
		c = sectorCase{from, from + 2 + r.Float64()*355}
	}
	radius := r.ExpFloat64() * 300_000
	if r.IntN(10) == 0 {
		radius = math.Inf(1)
	}
	return &Sector{Lat: lat, Lon: lon, Radius: radius, From: c.from, To: c.to}
}

// TestFenceSectorAreas: sectors round places at and near the poles,
// across ±180° and in Europe, asked for the fences they meet and hold
// among fences of every shape near them and inside them, on both
// backends. Intersecting and Within must say what the sampling oracles
// say (sectorMeetsOracle, withinOracle), Within's fences must be among
// Intersecting's, and both answers must occur often enough to mean
// something.
func TestFenceSectorAreas(t *testing.T) {
	r := rand.New(rand.NewPCG(101, 102))
	hot := [][2]float64{{89.5, 0}, {0, 180}, {45, 10}, {-89.9, 100}, {90, 30}, {0, -180}}
	areas := make([]*Sector, 36)
	var fences []Fence
	for i := range areas {
		h := hot[i%len(hot)]
		lat, lon := h[0], h[1]
		if i%4 != 0 {
			lat, lon = destination(h[0], h[1], r.Float64()*300_000, r.Float64()*2*math.Pi)
		}
		s := randomSector(r, lat, lon)
		areas[i] = s
		// Fences round points inside the sector, and anywhere near.
		span := clockwise(s.From, s.To)
		if span == 0 {
			span = 360
		}
		for range 2 {
			d := r.Float64() * math.Min(s.Radius, 2_000_000) * 0.8
			flat, flon := towards(lat, lon, d, s.From+span*r.Float64())
			fences = append(fences, smallFence(r, fmt.Sprintf("f%03d", len(fences)), flat, flon))
		}
		flat, flon := destination(lat, lon, r.Float64()*500_000, r.Float64()*2*math.Pi)
		fences = append(fences, randomFence(r, fmt.Sprintf("f%03d", len(fences)), flat, flon))
	}
	type verdict struct{ meets, within int }
	verdicts := make([][]verdict, len(areas))
	count := map[string]int{}
	sampled := make([]sampledFence, len(fences))
	for i, f := range fences {
		sampled[i] = sampleFence(f)
	}
	for i, s := range areas {
		inside := sectorSamples(s)
		for _, f := range sampled {
			v := verdict{sectorMeetsOracle(s, inside, f), withinOracle(Fence{Sector: s}, f.Fence)}
			verdicts[i] = append(verdicts[i], v)
			count[fmt.Sprint("meets ", v.meets)]++
			count[fmt.Sprint("within ", v.within)]++
		}
	}
	t.Logf("verdicts (%d through, %d misses, %d grazes): %v", through, misses, grazes, count)
	for _, k := range []string{"meets", "within"} {
		if count[fmt.Sprint(k, " ", through)] < 60 || count[fmt.Sprint(k, " ", misses)] < 60 {
			t.Fatalf("too few of one answer to mean much: %v", count)
		}
	}
	storetest.EachBackend(t, func(t *testing.T, st keyspace.Store) {
		fs := NewFences("zones")
		if err := st.Update(func(tx keyspace.Tx) error { return fs.PutAll(tx, fences) }); err != nil {
			t.Fatal(err)
		}
		st.View(func(tx keyspace.Tx) error {
			for i, s := range areas {
				area := Fence{Sector: s}
				meeting, err := fs.Intersecting(tx, area)
				if err != nil {
					t.Fatal(err)
				}
				within, err := fs.Within(tx, area)
				if err != nil {
					t.Fatal(err)
				}
				for _, id := range within {
					if !slices.Contains(meeting, id) {
						t.Fatalf("sector %d %+v: Within reports %s, which Intersecting does not", i, *s, id)
					}
				}
				for j, f := range fences {
					v := verdicts[i][j]
					if v.meets != grazes && slices.Contains(meeting, f.ID) != (v.meets == through) {
						t.Fatalf("sector %d %+v and fence %s (circle %+v, box %+v, polygon %v): Intersecting says %v, the oracle %v",
							i, *s, f.ID, f.Circle, f.Box, f.Polygon, v.meets != through, v.meets == through)
					}
					if v.within != grazes && slices.Contains(within, f.ID) != (v.within == through) {
						t.Fatalf("sector %d %+v and fence %s (circle %+v, box %+v, polygon %v): Within says %v, the oracle %v",
							i, *s, f.ID, f.Circle, f.Box, f.Polygon, v.within != through, v.within == through)
					}
				}
			}
			return nil
		})
	})
}

// TestFenceSectorCases: the cases the definitions decide, each against
// what it implies: a side along a box's edge, a fence round the apex, a
// hole round the sector, a vertex touching a side from outside, a
// sector fence, the whole world, ±180°, a pole, no radius.
func TestFenceSectorCases(t *testing.T) {
	fences := []Fence{
		// East of the meridian 10 from the equator north: the quarter
		// from bearing 0 to 90 at (0, 10) holds it; its west edge is the
		// sector's side.
		{ID: "on-side", Box: &Box{MinLat: 0.5, MinLon: 10, MaxLat: 1, MaxLon: 10.5}},
		// The same a hair west: across the side, so met but not within.
		{ID: "across-side", Box: &Box{MinLat: 0.5, MinLon: 9.99999, MaxLat: 1, MaxLon: 10.5}},
		// In the sector's circle, south-west of the apex: neither.
		{ID: "behind", Circle: &Circle{Lat: -0.5, Lon: 9.5, Radius: 10_000}},
		// Round the apex: met, not within.
		{ID: "round-apex", Circle: &Circle{Lat: 0, Lon: 10, Radius: 1_000}},
		// A square ring round the apex with a hole the sector's circle
		// fits in: the sector lies in the hole.
		{ID: "hole", Polygon: squareRing(0, 10, 4, true)},
		// Across ±180° at 60° north, inside the sector from (60, 179)
		// eastwards.
		{ID: "dateline", Box: &Box{MinLat: 59.9, MinLon: 179.5, MaxLat: 60.1, MaxLon: -179.5}},
		// At the north pole.
		{ID: "polar", Circle: &Circle{Lat: 89, Lon: 0, Radius: 10_000}},
		// A diamond west of the meridian 10 with its east vertex on it:
		// it touches the north-east quarter's side at that point.
		{ID: "diamond", Polygon: orb.Polygon{{{10, 0.5}, {9.8, 0.7}, {9.6, 0.5}, {9.8, 0.3}, {10, 0.5}}}},
		// A camera's view north-east of (0, 10), itself a sector.
		{ID: "cam", Sector: &Sector{Lat: 0.2, Lon: 10.2, Radius: 20_000, From: 0, To: 90}},
		// The whole world: it meets every sector and lies within none
		// that leaves a slice out, though its edges (the poles and ±180°)
		// meet no such slice from (0, 0) westwards.
		{ID: "world", Box: &Box{MinLat: -90, MinLon: -180, MaxLat: 90, MaxLon: 180}},
		// The world with a hole round (0, 90): it holds all of the last
		// case's slice, though not the middle of its sector.
		{ID: "world-but-east", Polygon: orb.Polygon{
			{{-180, -90}, {180, -90}, {180, 90}, {-180, 90}, {-180, -90}},
			{{85, -5}, {95, -5}, {95, 5}, {85, 5}, {85, -5}},
		}},
	}
	cases := []struct {
		name          string
		area          Sector
		meets, within []string
	}{
		{"north-east quarter", Sector{Lat: 0, Lon: 10, Radius: 200_000, From: 0, To: 90}, []string{"across-side", "cam", "diamond", "on-side", "round-apex", "world", "world-but-east"}, []string{"cam", "on-side"}},
		{"the same with no radius", Sector{Lat: 0, Lon: 10, Radius: math.Inf(1), From: 0, To: 90}, []string{"across-side", "cam", "dateline", "diamond", "hole", "on-side", "round-apex", "world", "world-but-east"}, []string{"cam", "dateline", "on-side"}},
		{"south-west quarter", Sector{Lat: 0, Lon: 10, Radius: 200_000, From: 180, To: 270}, []string{"behind", "round-apex", "world", "world-but-east"}, []string{"behind"}},
		{"all but the south-west", Sector{Lat: 0, Lon: 10, Radius: 200_000, From: 270, To: 180}, []string{"across-side", "cam", "diamond", "on-side", "round-apex", "world", "world-but-east"}, []string{"across-side", "cam", "diamond", "on-side"}},
		{"east across ±180°", Sector{Lat: 60, Lon: 179, Radius: 200_000, From: 45, To: 135}, []string{"dateline", "world", "world-but-east"}, []string{"dateline"}},
		{"from the north pole down the meridian 0", Sector{Lat: 90, Lon: 0, Radius: 300_000, From: 170, To: 190}, []string{"polar", "world", "world-but-east"}, []string{"polar"}},
		{"from the north pole down the meridian 180", Sector{Lat: 90, Lon: 0, Radius: 300_000, From: -10, To: 10}, []string{"world", "world-but-east"}, nil},
		{"all but a slice westwards, no radius", Sector{Lat: 0, Lon: 0, Radius: math.Inf(1), From: 280, To: 260}, []string{"across-side", "behind", "cam", "dateline", "diamond", "hole", "on-side", "polar", "round-apex", "world", "world-but-east"}, []string{"across-side", "behind", "cam", "dateline", "diamond", "hole", "on-side", "polar", "round-apex"}},
	}
	for _, c := range cases {
		area := Fence{Sector: &c.area}
		askCase(t, fences, c.name, area, c.meets, (*Fences).Intersecting)
		askCase(t, fences, c.name, area, c.within, (*Fences).Within)
		for _, f := range fences {
			if v := sectorMeetsOracle(&c.area, sectorSamples(&c.area), sampleFence(f)); v != grazes && slices.Contains(c.meets, f.ID) != (v == through) {
				t.Errorf("%s: the case says %s meets it %v, the oracle %v", c.name, f.ID, slices.Contains(c.meets, f.ID), v == through)
			}
			if v := withinOracle(area, f); v != grazes && slices.Contains(c.within, f.ID) != (v == through) {
				t.Errorf("%s: the case says %s is within it %v, the oracle %v", c.name, f.ID, slices.Contains(c.within, f.ID), v == through)
			}
		}
	}
}

// TestFenceSectorErrors: a bad sector, as a fence or an area, is
// ErrBadFence naming what is wrong, or ErrInvalidPoint, and Put and
// PutAll write nothing for it; a good one is stored as given (and
// raises the file's format: TestFenceWritesRaiseFormat).
func TestFenceSectorErrors(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		fs := NewFences("zones")
		circle := Fence{ID: "c", Circle: &Circle{Lat: 1, Lon: 2, Radius: 5}}
		if err := s.Update(func(tx keyspace.Tx) error { return fs.Put(tx, circle) }); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			sec  Sector
			want error
			says string
		}{
			{Sector{Lat: 91, Lon: 0, Radius: 1, From: 0, To: 90}, ErrInvalidPoint, "latitude"},
			{Sector{Lat: 0, Lon: 0, Radius: -1, From: 0, To: 90}, ErrBadFence, "radius -1"},
			{Sector{Lat: 0, Lon: 0, Radius: math.NaN(), From: 0, To: 90}, ErrBadFence, "radius NaN"},
			{Sector{Lat: 0, Lon: 0, Radius: 1, From: 30, To: 30}, ErrBadFence, "both 30"},
			{Sector{Lat: 0, Lon: 0, Radius: 1, From: math.NaN(), To: 30}, ErrBadFence, "bearing from"},
		} {
			f := Fence{ID: "s", Sector: &c.sec}
			if err := f.Validate(); !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) {
				t.Errorf("Validate %+v: %v, want %v saying %q", c.sec, err, c.want, c.says)
			}
			for name, put := range map[string]func(tx keyspace.Tx) error{
				"Put":    func(tx keyspace.Tx) error { return fs.Put(tx, f) },
				"PutAll": func(tx keyspace.Tx) error { return fs.PutAll(tx, []Fence{{ID: "c2", Circle: circle.Circle}, f}) },
			} {
				if err := s.Update(put); !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) {
					t.Errorf("%s %+v: %v, want %v saying %q", name, c.sec, err, c.want, c.says)
				}
			}
			area := Fence{Sector: &c.sec}
			for name, ask := range map[string]func(*Fences, keyspace.Tx, Fence) ([]string, error){"Intersecting": (*Fences).Intersecting, "Within": (*Fences).Within} {
				err := s.View(func(tx keyspace.Tx) error { _, err := ask(fs, tx, area); return err })
				if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) {
					t.Errorf("%s with %+v: %v, want %v saying %q", name, c.sec, err, c.want, c.says)
				}
			}
		}
		s.View(func(tx keyspace.Tx) error {
			if ids, err := fs.IDs(tx); err != nil || !slices.Equal(ids, []string{"c"}) {
				t.Errorf("after refused puts: %v, %v", ids, err)
			}
			return nil
		})
		both := Fence{Sector: &Sector{Lat: 1, Lon: 2, Radius: 1000, From: 0, To: 90}, Circle: &Circle{Lat: 1, Lon: 2, Radius: 5}}
		if err := s.View(func(tx keyspace.Tx) error { _, err := fs.Intersecting(tx, both); return err }); !errors.Is(err, ErrBadFence) {
			t.Errorf("a sector and a circle: %v", err)
		}
		// A good one: stored as given.
		good := Fence{ID: "s", Sector: &Sector{Lat: 1, Lon: 2, Radius: 1000, From: -30, To: 30}, Payload: []byte(`{"camera":7}`)}
		if err := s.Update(func(tx keyspace.Tx) error { return fs.Put(tx, good) }); err != nil {
			t.Fatal(err)
		}
		s.View(func(tx keyspace.Tx) error {
			got, err := fs.Get(tx, "s")
			if err != nil || got.Sector == nil || *got.Sector != *good.Sector || string(got.Payload) != string(good.Payload) {
				t.Errorf("Get: %+v, %v", got, err)
			}
			return nil
		})
	})
}

// TestSearchEdgeSeam: an edge across ±180° is searched on both sides of
// it, as two pieces in range.
func TestSearchEdgeSeam(t *testing.T) {
	for _, e := range []path{
		{lat0: 10, lon0: 170, lat1: 20, lon1: 190},
		{lat0: 10, lon0: -170, lat1: 20, lon1: -190},
		{lat0: 10, lon0: 185, lat1: 20, lon1: 190},
	} {
		pieces := seamPieces(e)
		for _, p := range pieces {
			if math.Abs(p.lon0) > 180 || math.Abs(p.lon1) > 180 {
				t.Errorf("%+v: piece %+v out of range", e, p)
			}
		}
		// Every point of e lies on a piece.
		for i := range 101 {
			lat, lon := e.at(float64(i) / 100)
			lon = wrap(lon)
			on := false
			for _, p := range pieces {
				if p.meetsRect(lat-1e-9, lat+1e-9, lon-1e-9, lon+1e-9) {
					on = true
				}
			}
			if !on {
				t.Errorf("%+v: (%v, %v) is on no piece of %+v", e, lat, lon, pieces)
			}
		}
	}
}

// FuzzSectorAreas: a random sector round a fuzzed centre and a fence a
// fuzzed distance and bearing from it, tested with no store in between
// (the fence's polygon both decoded and as its stored rings, read in
// place), against the sampling oracles.
func FuzzSectorAreas(f *testing.F) {
	f.Add(uint64(1), 10.0, 20.0, 0.0, 0.0)
	f.Add(uint64(2), 89.9, 0.0, 50_000.0, 1.0)
	f.Add(uint64(3), 0.0, 179.9, 20_000.0, 1.57)
	f.Add(uint64(4), -90.0, 50.0, 100_000.0, 0.0)
	f.Add(uint64(5), 45.0, 10.0, 100_000.0, 4.0)
	f.Fuzz(func(t *testing.T, seed uint64, lat, lon, d, β float64) {
		if validate(lat, lon) != nil || !(d >= 0 && d <= 1e6) || math.IsNaN(β) || math.IsInf(β, 0) {
			return
		}
		r := rand.New(rand.NewPCG(seed, 7))
		s := randomSector(r, lat, lon)
		flat, flon := destination(lat, lon, d, β)
		fence := smallFence(r, "f", flat, flon)
		if r.IntN(3) == 0 {
			fence = randomFence(r, "f", flat, flon)
		}
		area := Fence{Sector: s}
		ra, err := area.region()
		if err != nil {
			t.Fatal(err)
		}
		rf, err := fence.region()
		if err != nil {
			t.Fatal(err)
		}
		shapes := []shape{shapeOf(rf)}
		if pr, ok := rf.(polygonRegion); ok {
			shapes = append(shapes, shape{rings: appendPolygon(nil, pr)})
		}
		a := shapeOf(ra)
		meets, within := sectorMeetsOracle(s, sectorSamples(s), sampleFence(fence)), withinOracle(area, fence)
		for _, g := range shapes {
			got := false
			if g.rings != nil { // read in place
				if got, err = a.meetsStoredPolygon(g.rings); err != nil {
					t.Fatal(err)
				}
			} else {
				got = a.intersects(g)
			}
			if meets != grazes && got != (meets == through) {
				t.Fatalf("sector %+v and fence (circle %+v, box %+v, polygon %v): meets says %v, the oracle %v", *s, fence.Circle, fence.Box, fence.Polygon, got, meets == through)
			}
			in, err := holder(a)(g)
			if err != nil {
				t.Fatal(err)
			}
			if within != grazes && in != (within == through) {
				t.Fatalf("sector %+v and fence (circle %+v, box %+v, polygon %v): within says %v, the oracle %v", *s, fence.Circle, fence.Box, fence.Polygon, in, within == through)
			}
		}
	})
}

// BenchmarkSectorGrazingEdge: a polygon whose edge, 110 km long, runs
// along the arc of a 1,000 km quarter sector just outside it (the line
// in longitude and latitude tangent to the arc, moved out by the gap),
// and whether they meet. The pieces near the tangent point decide by
// their Taylor bounds (8, 14 and 19 µs for gaps of a metre, a
// millimetre and a micrometre); by their rectangles alone a metre took
// 1.3 ms, and a millimetre ran through the piece budget and was taken to
// meet.
func BenchmarkSectorGrazingEdge(b *testing.B) {
	const r = 1_000_000.0
	reg, err := newSector(0, 0, r, 0, 90)
	if err != nil {
		b.Fatal(err)
	}
	f := newSectorFrame(reg.(*sector))
	for _, gap := range []float64{1, 1e-3, 1e-6, 0} {
		tlat, tlon := destination(0, 0, r+gap, math.Pi/4)
		along := rad(bearing(tlat, tlon, 0, 0) + 270) // across the way back to the apex
		dlat, dlon := math.Cos(along)/2, math.Sin(along)/math.Cos(rad(tlat))/2
		pr, err := newPolygonRegion(orb.Polygon{{{tlon - dlon, tlat - dlat}, {tlon + dlon, tlat + dlat}, {tlon + 3, tlat + 3}, {tlon - dlon, tlat - dlat}}})
		if err != nil {
			b.Fatal(err)
		}
		g := shapeOf(pr)
		b.Run(fmt.Sprintf("gap=%gm", gap), func(b *testing.B) {
			met := false
			for b.Loop() {
				met = f.meetsShape(g)
			}
			if gap > 0 && met {
				b.Fatalf("a gap of %g m: met", gap)
			}
		})
	}
}

// TestSectorHolds: a lookup's test of a point against a sector's region
// value says what the region built from it says, bit for bit: for random
// sectors (whole circles, no radius, round the poles and ±180° among
// them) and points near and on their edges; and a value that is no
// sector's, or a bad one, is not ok.
func TestSectorHolds(t *testing.T) {
	r := rand.New(rand.NewPCG(103, 104))
	held := 0
	for i := range 3000 {
		lat, lon := r.Float64()*180-90, r.Float64()*360-180
		if i%5 == 0 {
			lat = []float64{90, -90, 89.99, 0}[i%4]
		}
		s := randomSector(r, lat, lon)
		if i%7 == 0 {
			s.To = s.From + 360
		}
		v := Fence{Sector: s}.regionValue()
		reg, ok := decodeRegion(v)
		if !ok {
			t.Fatalf("%+v: its region value does not decode", *s)
		}
		for range 5 {
			d := r.Float64() * math.Min(s.Radius*1.2, 3e6)
			plat, plon := towards(s.Lat, s.Lon, d, s.From+r.NormFloat64()*10)
			got, ok := sectorHolds(v, plat, plon)
			if want := reg.contains(plat, plon); !ok || got != want {
				t.Fatalf("%+v at (%v, %v): sectorHolds %v (ok %v), the region %v", *s, plat, plon, got, ok, want)
			}
			if got {
				held++
			}
		}
	}
	if held < 3000 {
		t.Fatalf("only %d points held: the test would not see much", held)
	}
	for _, v := range [][]byte{
		nil,
		Fence{Circle: &Circle{Lat: 1, Lon: 2, Radius: 3}}.regionValue(),
		Fence{Sector: &Sector{Lat: 91, Lon: 2, Radius: 3, From: 0, To: 90}}.regionValue(),
		Fence{Sector: &Sector{Lat: 1, Lon: 2, Radius: -3, From: 0, To: 90}}.regionValue(),
		Fence{Sector: &Sector{Lat: 1, Lon: 2, Radius: 3, From: 7, To: 7}}.regionValue(),
		Fence{Sector: &Sector{Lat: 1, Lon: 2, Radius: 3, From: 0, To: 90}}.regionValue()[:20],
	} {
		if _, ok := sectorHolds(v, 1, 2); ok {
			t.Errorf("%x: ok", v)
		}
	}
}
