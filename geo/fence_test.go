package geo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
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

// fenceHolds is the oracle: whether f holds (lat, lon), by plain formulas
// written apart from the regions (bruteInBox, orb's planar containment,
// the haversine distance).
func fenceHolds(f Fence, lat, lon float64) bool {
	p := Point{Lat: lat, Lon: lon}
	switch {
	case f.Corridor != nil:
		return corridorHolds(f.Corridor, lat, lon)
	case f.Circle != nil:
		return Distance(f.Circle.Lat, f.Circle.Lon, lat, lon) <= f.Circle.Radius
	case f.Box != nil:
		return bruteInBox(*f.Box, p)
	case f.Sector != nil:
		in, _ := sectorOracle(f.Sector.Lat, f.Sector.Lon, f.Sector.Radius, f.Sector.From, f.Sector.To, p)
		return in
	}
	return planar.MultiPolygonContains(toMulti(f.Polygon), orb.Point{lon, lat})
}

// randomFence is a circle, a box, a sector, a corridor or a polygon
// around (lat, lon), at the poles and across ±180° as often as the
// centres are; a third of the polygons have rings long enough for band
// indexes (fence_polygon.go).
func randomFence(r *rand.Rand, id string, lat, lon float64) Fence {
	f := Fence{ID: id}
	if r.IntN(2) == 0 {
		f.Payload = fmt.Appendf(nil, `{"zone":%q,"n":%d}`, id, r.IntN(1000))
	}
	switch r.IntN(5) {
	case 0:
		f.Circle = &Circle{Lat: lat, Lon: lon, Radius: r.ExpFloat64() * 200_000}
	case 1:
		b := randomBox(r)
		f.Box = &b
	case 2:
		from := r.Float64()*720 - 360
		f.Sector = &Sector{Lat: lat, Lon: lon, Radius: r.ExpFloat64() * 200_000, From: from, To: from + 2 + r.Float64()*355}
	case 3:
		f.Corridor = randomCorridor(r, lat, lon)
	default:
		var g orb.Geometry = star(r, lat, lon, r.ExpFloat64()*2, r.IntN(3) == 0)
		if r.IntN(3) == 0 { // more than indexFrom positions: its rings stored with band indexes
			g = jaggedStar(r, lat, lon, r.ExpFloat64()*2, indexFrom+1+r.IntN(60), r.IntN(3) == 0)
		}
		if r.IntN(4) == 0 {
			g = orb.MultiPolygon{g.(orb.Polygon), star(r, -lat, wrap(lon+180), 1, false)}
		}
		f.Polygon = g
	}
	return f
}

// TestFencesAgainstBruteForce: fences of every shape are put, replaced
// and deleted; at every step Containing, at points of every synthetic set
// and at the fences' own corners and centres, must give exactly the
// fences the oracle says hold the point, and Crossings between two of
// those points what the two answers imply. The cell keys stored must be
// exactly those the stored fences list.
func TestFencesAgainstBruteForce(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(101, 102))
		var probes []Point
		for _, set := range syntheticSets(r, 150) {
			probes = append(probes, set.points...)
		}
		fs := NewFences("zones")
		model := map[string]Fence{}
		held := 0
		for step := range 12 {
			// Odd steps put their fences with one PutAll, ids repeated
			// within it (the later wins), even steps one by one.
			var batch []Fence
			err := s.Update(func(tx keyspace.Tx) error {
				for range 8 {
					id := fmt.Sprintf("f%02d", r.IntN(30))
					if _, ok := model[id]; ok && r.IntN(4) == 0 && step%2 == 0 {
						delete(model, id)
						return fs.Delete(tx, id)
					}
					c := probes[r.IntN(len(probes))]
					f := randomFence(r, id, c.Lat, c.Lon)
					if step%2 == 1 {
						batch = append(batch, f)
					} else if err := fs.Put(tx, f); err != nil {
						return err
					}
					model[id] = f
					// Probe its edges: a box's corners, a circle's centre, a
					// sector's apex and beside its sides, a polygon's vertices.
					switch {
					case f.Box != nil:
						b := f.Box
						probes = append(probes, Point{Lat: b.MinLat, Lon: b.MinLon}, Point{Lat: b.MaxLat, Lon: b.MaxLon})
					case f.Circle != nil:
						probes = append(probes, Point{Lat: f.Circle.Lat, Lon: f.Circle.Lon})
					case f.Corridor != nil: // its line's positions
						for _, ls := range corridorLines(f.Corridor.Line) {
							for _, p := range ls {
								probes = append(probes, Point{Lat: p.Lat(), Lon: p.Lon()})
							}
						}
					case f.Sector != nil: // its apex, and points just either side of its sides
						sec := f.Sector
						probes = append(probes, Point{Lat: sec.Lat, Lon: sec.Lon})
						off := clockwise(sec.From, sec.To) / 100
						for _, b := range []float64{sec.From - off, sec.From + off, sec.To - off, sec.To + off} {
							lat, lon := towards(sec.Lat, sec.Lon, sec.Radius/2, b)
							probes = append(probes, Point{Lat: lat, Lon: lon})
						}
					default:
						for _, p := range toMulti(f.Polygon)[0][0][:3] {
							probes = append(probes, Point{Lat: p.Lat(), Lon: p.Lon()})
						}
					}
				}
				return fs.PutAll(tx, batch)
			})
			if err != nil {
				t.Fatal(err)
			}
			s.View(func(tx keyspace.Tx) error {
				for i, p := range probes {
					held += checkContaining(t, tx, fs, model, p, fmt.Sprint("step ", step))
					if i%14 == 0 {
						q := probes[r.IntN(len(probes))]
						cs, err := fs.Crossings(tx, &p, &q)
						if err != nil {
							t.Fatal(err)
						}
						checkCrossings(t, cs, model, &p, &q)
					}
				}
				ids, err := fs.IDs(tx)
				if err != nil || !slices.Equal(ids, slices.Sorted(mapKeys(model))) {
					t.Fatalf("IDs = %v, %v; want %v", ids, err, slices.Sorted(mapKeys(model)))
				}
				for id, want := range model {
					if got, err := fs.Get(tx, id); err != nil || !bytes.Equal(got.Payload, want.Payload) || (got.Circle == nil) != (want.Circle == nil) || (got.Box == nil) != (want.Box == nil) {
						t.Fatalf("Get(%s) = %+v, %v; want %+v", id, got, err, want)
					}
				}
				// The cell keys are exactly the stored fences' cells.
				want := 0
				for id := range model {
					def, err := fs.get(tx, id)
					if err != nil {
						t.Fatal(err)
					}
					want += len(def.Cells)
				}
				got := 0
				for range tx.Scan(composite.NewSubspace("f", "zones", "c").Range()) {
					got++
				}
				if got != want {
					t.Fatalf("step %d: %d cell keys, the fences list %d", step, got, want)
				}
				return nil
			})
		}
		if held < 500 {
			t.Fatalf("only %d fence holds a probe point in the run", held)
		}
	})
}

// wantContaining is the oracle's answer: the ids of model's fences that
// hold p, in order.
func wantContaining(model map[string]Fence, p Point) []string {
	var want []string
	for id, f := range model {
		if fenceHolds(f, p.Lat, p.Lon) {
			want = append(want, id)
		}
	}
	slices.Sort(want)
	return want
}

// checkContaining fails t unless Containing at p gives the oracle's
// answer, and returns how many fences hold p.
func checkContaining(t *testing.T, tx keyspace.Tx, fs *Fences, model map[string]Fence, p Point, when string) int {
	t.Helper()
	got, err := fs.Containing(tx, p.Lat, p.Lon)
	if err != nil {
		t.Fatal(err)
	}
	want := wantContaining(model, p)
	if !slices.Equal(got, want) {
		t.Fatalf("%s: fences holding (%v, %v): %v, brute force %v", when, p.Lat, p.Lon, got, want)
	}
	return len(want)
}

// fencesAround returns n random fences around random centres, in a
// model by id, and perFence probe points within about spread metres of
// each centre.
func fencesAround(r *rand.Rand, n, perFence int, spread float64) ([]Fence, map[string]Fence, []Point) {
	var fences []Fence
	model := map[string]Fence{}
	var probes []Point
	for i := range n {
		lat, lon := r.Float64()*178-89, r.Float64()*360-180
		f := randomFence(r, fmt.Sprintf("f%02d", i), lat, lon)
		fences = append(fences, f)
		model[f.ID] = f
		for range perFence {
			plat, plon := destination(lat, lon, r.ExpFloat64()*spread, r.Float64()*2*math.Pi)
			probes = append(probes, Point{Lat: plat, Lon: plon})
		}
	}
	return fences, model, probes
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// checkCrossings compares crossings from before to after with the
// oracle's fences holding each, and, for the fences holding neither,
// with pathOracle's verdict on the path between: a fence it is sure the
// path passes through must be a Cross, one it is sure the path misses
// must not be, and one the path grazes may be either.
func checkCrossings(t *testing.T, cs []Crossing, model map[string]Fence, before, after *Point) {
	t.Helper()
	var want []Crossing
	graze := map[string]bool{}
	for _, id := range slices.Sorted(mapKeys(model)) {
		f := model[id]
		was := before != nil && fenceHolds(f, before.Lat, before.Lon)
		is := after != nil && fenceHolds(f, after.Lat, after.Lon)
		switch {
		case was && is:
			want = append(want, Crossing{id, Inside})
		case was:
			want = append(want, Crossing{id, Exit})
		case is:
			want = append(want, Crossing{id, Enter})
		case before != nil && after != nil:
			switch pathOracle(f, *before, *after) {
			case through:
				want = append(want, Crossing{id, Cross})
			case grazes:
				graze[id] = true
			}
		}
	}
	got := slices.DeleteFunc(slices.Clone(cs), func(c Crossing) bool { return c.Kind == Cross && graze[c.Fence] })
	if !slices.Equal(got, want) {
		for _, w := range want {
			if w.Kind == Cross && !slices.Contains(cs, w) {
				f := model[w.Fence]
				t.Logf("a cross missed: fence %s: circle %+v, box %+v, polygon %v", w.Fence, f.Circle, f.Box, f.Polygon)
			}
		}
		t.Fatalf("crossings from %v to %v: %v, want %v (either way for %v)", before, after, cs, want, slices.Sorted(mapKeys(graze)))
	}
}

// The verdicts of pathOracle.
const (
	misses = iota
	grazes
	through
)

// pathOracle says whether the path from a to b (the straight line in
// longitude and latitude, the shorter way round) passes through f, by
// sampling it at 600 points, written apart from path.go: through when
// a sample lies in f (fenceHolds; in a sector, not within a millimetre of
// its edge), misses when every sample lies farther
// from f than a step and a half (so that no point between two samples
// can reach it), grazes otherwise.
func pathOracle(f Fence, a, b Point) int {
	if f.Corridor != nil {
		return corridorMeetsOracle(f.Corridor, orb.MultiLineString{{{a.Lon, a.Lat}, {b.Lon, b.Lat}}}, 0)
	}
	const n = 600
	// The shorter way round, eastward when both are 180°: in (-180, 180].
	dLon := b.Lon - a.Lon
	if dLon > 180 {
		dLon -= 360
	} else if dLon <= -180 {
		dLon += 360
	}
	dLat := b.Lat - a.Lat
	at := func(i int) (lat, lon float64) {
		return a.Lat + dLat*float64(i)/n, math.Mod(a.Lon+dLon*float64(i)/n+540, 360) - 180
	}
	// A step's length on the ground is at most its length in degrees of
	// latitude, as a degree of longitude is never longer than one of
	// latitude.
	step := math.Hypot(dLat, dLon) / n
	if f.Circle != nil || f.Sector != nil {
		step *= math.Pi / 180 * EarthRadius
	}
	// A circle farther from the path's start than the path's length (at
	// most its length in degrees of latitude) and its radius and a step
	// is missed: every point of the path is nearer the start than that.
	// So is a sector of that circle.
	if c := f.Circle; c != nil && Distance(c.Lat, c.Lon, a.Lat, a.Lon) > c.Radius+float64(n+2)*step {
		return misses
	}
	if s := f.Sector; s != nil && Distance(s.Lat, s.Lon, a.Lat, a.Lon) > s.Radius+float64(n+2)*step {
		return misses
	}
	// A polygon's samples far from its bounding box need neither test,
	// nor a sector's farther from its apex than its radius and a step
	// and a half.
	far := func(lat, lon float64) bool { return false }
	if sec := f.Sector; sec != nil {
		far = func(lat, lon float64) bool { return Distance(sec.Lat, sec.Lon, lat, lon) > sec.Radius+1.5*step }
	}
	if f.Polygon != nil {
		b := f.Polygon.Bound()
		far = func(lat, lon float64) bool {
			return lat < b.Min[1]-2*step || lat > b.Max[1]+2*step || lon < b.Min[0]-2*step || lon > b.Max[0]+2*step
		}
	}
	// A sample of a sector within a millimetre of its edge (sectorOracle's
	// unsure) is no proof either way: a path can clip a sector's corner
	// by less than a micrometre (FuzzFencesAgainstBruteForce found one).
	edgy := false
	for i := range n + 1 {
		lat, lon := at(i)
		if far(lat, lon) || !fenceHolds(f, lat, lon) {
			continue
		}
		if s := f.Sector; s != nil {
			if _, unsure := sectorOracle(s.Lat, s.Lon, s.Radius, s.From, s.To, Point{Lat: lat, Lon: lon}); unsure {
				edgy = true
				continue
			}
		}
		return through
	}
	if edgy {
		return grazes
	}
	for i := range n + 1 {
		if lat, lon := at(i); !far(lat, lon) && gap(f, lat, lon) <= 1.5*step {
			return grazes
		}
	}
	return misses
}

// gap is how far (lat, lon), outside f, lies from it: in metres from a
// circle or a sector (sectorGap), in degrees (in the plane of longitude
// and latitude) from a box or a polygon's edges.
func gap(f Fence, lat, lon float64) float64 {
	p := orb.Point{lon, lat}
	switch {
	case f.Corridor != nil:
		return corridorGap(f.Corridor, lat, lon)
	case f.Sector != nil:
		return sectorGap(f.Sector, Point{Lat: lat, Lon: lon})
	case f.Circle != nil:
		return Distance(f.Circle.Lat, f.Circle.Lon, lat, lon) - f.Circle.Radius
	case f.Box != nil:
		b := f.Box
		dLat := max(0, b.MinLat-lat, lat-b.MaxLat)
		lons := [][2]float64{{b.MinLon, b.MaxLon}}
		if b.MinLon > b.MaxLon {
			lons = [][2]float64{{b.MinLon, 180}, {-180, b.MaxLon}}
		}
		best := math.Inf(1)
		for _, iv := range lons {
			for _, s := range []float64{-360, 0, 360} {
				best = min(best, math.Hypot(dLat, max(0, iv[0]+s-lon, lon-iv[1]-s)))
			}
		}
		return best
	}
	best := math.Inf(1)
	for _, poly := range toMulti(f.Polygon) {
		for _, ring := range poly {
			for i := 1; i < len(ring); i++ {
				for _, s := range []float64{-360, 0, 360} {
					q := orb.Point{p[0] + s, p[1]}
					best = min(best, planar.DistanceFromSegment(ring[i-1], ring[i], q))
				}
			}
		}
	}
	return best
}

// TestFenceCross: moves between points near fences of every shape, at
// the poles and across ±180° as often as anywhere, on both backends.
// Crossings must report as Cross exactly the fences holding neither end
// that the sampled oracle says the path passes through (pathOracle), and
// enough of them must occur for the test to mean something. Then the
// cases the path's definition decides, each against what it implies.
func TestFenceCross(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(7, 8))
		fences, model, probes := fencesAround(r, 30, 10, 150_000)
		fs := NewFences("zones")
		if err := s.Update(func(tx keyspace.Tx) error { return fs.PutAll(tx, fences) }); err != nil {
			t.Fatal(err)
		}
		crosses := 0
		s.View(func(tx keyspace.Tx) error {
			for i := range probes {
				// The next probe of the same fence's cluster, and for
				// every fourth one of any cluster: short moves and long.
				moves := []int{i/10*10 + (i+1)%10}
				if i%4 == 0 {
					moves = append(moves, r.IntN(len(probes)))
				}
				for _, j := range moves {
					cs, err := fs.Crossings(tx, &probes[i], &probes[j])
					if err != nil {
						t.Fatal(err)
					}
					checkCrossings(t, cs, model, &probes[i], &probes[j])
					for _, c := range cs {
						if c.Kind == Cross {
							crosses++
						}
					}
				}
			}
			return nil
		})
		if crosses < 50 {
			t.Fatalf("only %d crosses among the moves", crosses)
		}
	})

	square := orb.Polygon{{{0, 0}, {1, 0}, {1, 1}, {0, 1}, {0, 0}}}
	cases := []struct {
		name          string
		fence         Fence
		before, after Point
		cross         bool
	}{
		{"through a small circle", Fence{Circle: &Circle{Lat: 0, Lon: 0, Radius: 100}}, Point{Lat: 0, Lon: -0.1}, Point{Lat: 0, Lon: 0.1}, true},
		{"past a small circle, 1 km off", Fence{Circle: &Circle{Lat: 0, Lon: 0, Radius: 100}}, Point{Lat: 0.01, Lon: -0.1}, Point{Lat: 0.01, Lon: 0.1}, false},
		{"across ±180° through a box across it", Fence{Box: &Box{MinLat: -1, MaxLat: 1, MinLon: 179.9, MaxLon: -179.9}}, Point{Lat: 0, Lon: 179}, Point{Lat: 0, Lon: -179}, true},
		{"across ±180° through a circle on it", Fence{Circle: &Circle{Lat: 10, Lon: 180, Radius: 5000}}, Point{Lat: 10, Lon: -179.5}, Point{Lat: 10, Lon: 179.5}, true},
		{"half the world apart: eastward", Fence{Box: &Box{MinLat: -1, MaxLat: 1, MinLon: 89, MaxLon: 91}}, Point{Lat: 0, Lon: 0}, Point{Lat: 0, Lon: -180}, true},
		{"half the world apart: not westward", Fence{Box: &Box{MinLat: -1, MaxLat: 1, MinLon: -91, MaxLon: -89}}, Point{Lat: 0, Lon: 0}, Point{Lat: 0, Lon: -180}, false},
		{"the long way round is not taken", Fence{Box: &Box{MinLat: -1, MaxLat: 1, MinLon: -10, MaxLon: 10}}, Point{Lat: 0, Lon: 179}, Point{Lat: 0, Lon: -179}, false},
		{"through a box", Fence{Box: &Box{MinLat: 0, MaxLat: 1, MinLon: 0, MaxLon: 1}}, Point{Lat: -1, Lon: 0.5}, Point{Lat: 2, Lon: 0.5}, true},
		{"along a box's edge", Fence{Box: &Box{MinLat: 0, MaxLat: 1, MinLon: 0, MaxLon: 1}}, Point{Lat: 0, Lon: -1}, Point{Lat: 0, Lon: 2}, true},
		{"past a box's corner", Fence{Box: &Box{MinLat: 0, MaxLat: 1, MinLon: 0, MaxLon: 1}}, Point{Lat: 1.5, Lon: -0.5}, Point{Lat: 2.5, Lon: 0.5}, false},
		{"along a polygon's edge", Fence{Polygon: square}, Point{Lat: 0, Lon: -1}, Point{Lat: 0, Lon: 2}, true},
		{"through a polygon's corner", Fence{Polygon: square}, Point{Lat: -1, Lon: 2}, Point{Lat: 2, Lon: -1}, true},
		{"past a polygon's corner", Fence{Polygon: square}, Point{Lat: -0.5, Lon: 2.6}, Point{Lat: 2.6, Lon: -0.5}, false},
		{"into a polygon's hole and out", Fence{Polygon: orb.Polygon{square[0], {{0.2, 0.2}, {0.8, 0.2}, {0.8, 0.8}, {0.2, 0.8}, {0.2, 0.2}}}}, Point{Lat: 0.5, Lon: 0.4}, Point{Lat: 0.5, Lon: 0.6}, false},
		{"from a polygon's hole out through it", Fence{Polygon: orb.Polygon{square[0], {{0.2, 0.2}, {0.8, 0.2}, {0.8, 0.8}, {0.2, 0.8}, {0.2, 0.2}}}}, Point{Lat: 0.5, Lon: 0.5}, Point{Lat: 0.5, Lon: 1.5}, true},
		// Along a parallel, not over the pole as a great circle would go:
		// 89.5° N stays 55.6 km from the pole all the way.
		{"round a pole, not over it", Fence{Circle: &Circle{Lat: 90, Lon: 0, Radius: 50_000}}, Point{Lat: 89.5, Lon: 0}, Point{Lat: 89.5, Lon: 179}, false},
		{"through a circle near a pole", Fence{Circle: &Circle{Lat: 89, Lon: 0, Radius: 20_000}}, Point{Lat: 89, Lon: -20}, Point{Lat: 89, Lon: 20}, true},
		{"a move that stays put", Fence{Circle: &Circle{Lat: 0, Lon: 0, Radius: 100}}, Point{Lat: 1, Lon: 1}, Point{Lat: 1, Lon: 1}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := keyspace.NewMemory()
			fs := NewFences("z")
			tc.fence.ID = "f"
			var cs []Crossing
			err := s.Update(func(tx keyspace.Tx) (err error) {
				if err := fs.Put(tx, tc.fence); err != nil {
					return err
				}
				cs, err = fs.Crossings(tx, &tc.before, &tc.after)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := slices.Contains(cs, Crossing{"f", Cross}); got != tc.cross || len(cs) > 1 {
				t.Errorf("crossings %v, want a cross: %v", cs, tc.cross)
			}
			if oracle := pathOracle(tc.fence, tc.before, tc.after); oracle != grazes && (oracle == through) != tc.cross {
				t.Errorf("the oracle says %d (0 misses, 2 through), the case %v", oracle, tc.cross)
			}
		})
	}
}

// TestFenceEdges: the poles, ±180°, a zero radius, a fence replaced by
// another of the same id, a new and a deleted point's crossings, and bad
// fences, which change nothing.
func TestFenceEdges(t *testing.T) {
	s := keyspace.NewMemory()
	fs := NewFences("edges")
	fences := []Fence{
		{ID: "north", Circle: &Circle{Lat: 90, Lon: 0, Radius: 100_000}},
		{ID: "dateline", Box: &Box{MinLat: -10, MinLon: 179, MaxLat: 10, MaxLon: -179}},
		{ID: "spot", Circle: &Circle{Lat: 10, Lon: 20, Radius: 0}},
		{ID: "south", Polygon: orb.Polygon{{{-180, -90}, {180, -90}, {180, -80}, {-180, -80}, {-180, -90}}}},
	}
	if err := s.Update(func(tx keyspace.Tx) error {
		for _, f := range fences {
			if err := fs.Put(tx, f); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	s.View(func(tx keyspace.Tx) error {
		for _, c := range []struct {
			lat, lon float64
			want     []string
		}{
			{90, 123, []string{"north"}}, {89.2, -180, []string{"north"}}, {89, 0, nil},
			{0, 180, []string{"dateline"}}, {0, -180, []string{"dateline"}}, {10, -179, []string{"dateline"}}, {0, 178.9, nil},
			{10, 20, []string{"spot"}}, {10, 20.000001, nil},
			{-90, 0, []string{"south"}}, {-80, 45, []string{"south"}}, {-79.9, 45, nil},
		} {
			got, err := fs.Containing(tx, c.lat, c.lon)
			if err != nil || !slices.Equal(got, c.want) {
				t.Errorf("Containing(%v, %v) = %v, %v; want %v", c.lat, c.lon, got, err, c.want)
			}
		}
		model := map[string]Fence{}
		for _, f := range fences {
			model[f.ID] = f
		}
		for _, move := range [][2]*Point{{nil, {Lat: 0, Lon: 180}}, {{Lat: 0, Lon: 180}, nil}, {{Lat: 90, Lon: 0}, {Lat: -90, Lon: 0}}} {
			cs, err := fs.Crossings(tx, move[0], move[1])
			if err != nil {
				t.Fatal(err)
			}
			checkCrossings(t, cs, model, move[0], move[1])
		}
		return nil
	})
	// Replacing "spot" by a box elsewhere moves it.
	s.Update(func(tx keyspace.Tx) error {
		return fs.Put(tx, Fence{ID: "spot", Box: &Box{MinLat: 0, MinLon: 0, MaxLat: 1, MaxLon: 1}})
	})
	s.View(func(tx keyspace.Tx) error {
		if got, _ := fs.Containing(tx, 10, 20); len(got) != 0 {
			t.Errorf("the replaced spot still holds its old place: %v", got)
		}
		if got, _ := fs.Containing(tx, 0.5, 0.5); !slices.Equal(got, []string{"spot"}) {
			t.Errorf("the replaced spot: %v", got)
		}
		if f, err := fs.Get(tx, "spot"); err != nil || f.Box == nil || f.Circle != nil {
			t.Errorf("Get(spot) = %+v, %v", f, err)
		}
		return nil
	})
	// Bad fences are errors that change nothing.
	for _, bad := range []struct {
		f    Fence
		want error
	}{
		{Fence{ID: "none"}, ErrBadFence},
		{Fence{ID: "two", Circle: &Circle{Radius: 1}, Box: &Box{}}, ErrBadFence},
		{Fence{Circle: &Circle{Radius: 1}}, ErrBadFence},
		{Fence{ID: "r", Circle: &Circle{Radius: math.NaN()}}, ErrBadFence},
		{Fence{ID: "lat", Circle: &Circle{Lat: 91}}, ErrInvalidPoint},
		{Fence{ID: "box", Box: &Box{MinLat: 5, MaxLat: 4}}, ErrBadFence},
		{Fence{ID: "poly", Polygon: orb.Polygon{{{0, 0}, {1, 1}, {0, 0}}}}, ErrBadPolygon},
		{Fence{ID: "spot", Circle: &Circle{Lat: 200}}, ErrInvalidPoint},
	} {
		err := s.Update(func(tx keyspace.Tx) error { return fs.Put(tx, bad.f) })
		if !errors.Is(err, bad.want) {
			t.Errorf("Put(%+v) = %v, want %v", bad.f, err, bad.want)
		}
		if err != nil && strings.Count(err.Error(), "geo: ") != 1 {
			t.Errorf("Put(%+v) = %q: want the package named once", bad.f, err)
		}
	}
	s.View(func(tx keyspace.Tx) error {
		ids, _ := fs.IDs(tx)
		if !slices.Equal(ids, []string{"dateline", "north", "south", "spot"}) {
			t.Errorf("after bad puts, fences %v", ids)
		}
		if _, err := fs.Containing(tx, 91, 0); !errors.Is(err, ErrInvalidPoint) {
			t.Errorf("Containing(91, 0): %v", err)
		}
		return nil
	})
}

// FuzzFencesAgainstBruteForce: a circle, a box and a polygon fence
// around a fuzzed centre, and points scattered around it and on the
// seams; Containing must agree with the oracle at every point (a circle
// tests a point by the distance the oracle measures, so even its edge
// agrees exactly), and Crossings between consecutive points too. One of
// the three, chosen by the seed, has expired, and must never be found.
func FuzzFencesAgainstBruteForce(f *testing.F) {
	f.Add(uint64(1), 37.7749, -122.4194, 1000.0)
	f.Add(uint64(2), 90.0, 0.0, 50000.0)
	f.Add(uint64(3), -89.9, 179.9, 20000.0)
	f.Add(uint64(4), 0.0, 180.0, 500.0)
	f.Add(uint64(5), CapLatitude, -180.0, 300000.0)
	f.Add(uint64(6), 39.37499999999999, 45.0, 0.0)
	f.Fuzz(func(t *testing.T, seed uint64, lat, lon, radius float64) {
		if validate(lat, lon) != nil || math.IsNaN(radius) || radius < 0 || radius > 2e7 {
			return
		}
		r := rand.New(rand.NewPCG(seed, 11))
		deg := radius / 111_000
		b := Box{MinLat: math.Max(lat-deg, -90), MaxLat: math.Min(lat+deg, 90), MinLon: wrap(lon - 2*deg), MaxLon: wrap(lon + 2*deg)}
		if 4*deg >= 360 {
			b.MinLon, b.MaxLon = -180, 180
		}
		from := r.Float64() * 360
		sector := &Sector{Lat: lat, Lon: lon, Radius: radius, From: from, To: from + 5 + r.Float64()*350}
		fences := []Fence{
			{ID: "circle", Circle: &Circle{Lat: lat, Lon: lon, Radius: radius}},
			{ID: "box", Box: &b},
			{ID: "poly", Polygon: star(r, lat, lon, math.Max(deg, 1e-3), r.IntN(2) == 0)},
			{ID: "sector", Sector: sector},
		}
		// One of them, chosen by the seed, expired an hour ago: no lookup
		// may find it (it stays out of the model below).
		expired := fences[seed%4].ID
		fences[seed%4].Expires = time.Now().Add(-time.Hour)
		s := keyspace.NewMemory()
		fs := NewFences("fuzz")
		if err := s.Update(func(tx keyspace.Tx) error {
			for _, f := range fences {
				if err := fs.Put(tx, f); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		var probes [][2]float64
		for range 40 {
			plat, plon := destination(lat, lon, r.Float64()*2*radius+r.Float64()*10, r.Float64()*2*math.Pi)
			probes = append(probes, [2]float64{plat, plon})
		}
		probes = append(probes, [2]float64{lat, lon}, [2]float64{90, lon}, [2]float64{-90, lon}, [2]float64{lat, 180}, [2]float64{lat, -180},
			[2]float64{b.MinLat, b.MinLon}, [2]float64{b.MaxLat, b.MaxLon})
		// Not a point within a millimetre of the sector's edge, where its
		// oracle and its dot products may round apart.
		probes = slices.DeleteFunc(probes, func(p [2]float64) bool {
			_, unsure := sectorOracle(lat, lon, radius, sector.From, sector.To, Point{Lat: p[0], Lon: p[1]})
			return unsure
		})
		model := map[string]Fence{}
		for _, f := range fences {
			if f.ID != expired {
				model[f.ID] = f
			}
		}
		s.View(func(tx keyspace.Tx) error {
			for i, p := range probes {
				got, err := fs.Containing(tx, p[0], p[1])
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range fences {
					want := f.ID != expired && fenceHolds(f, p[0], p[1])
					if slices.Contains(got, f.ID) != want {
						t.Fatalf("fence %s %+v at (%v, %v): Containing says %v, the oracle %v", f.ID, f, p[0], p[1], !want, want)
					}
				}
				// The move from the previous probe, its crosses included.
				if i > 0 {
					before, after := Point{Lat: probes[i-1][0], Lon: probes[i-1][1]}, Point{Lat: p[0], Lon: p[1]}
					cs, err := fs.Crossings(tx, &before, &after)
					if err != nil {
						t.Fatal(err)
					}
					checkCrossings(t, cs, model, &before, &after)
				}
			}
			return nil
		})
	})
}

// TestFenceCellValues: a file written before circles and boxes carried
// themselves in their edge cells (every edge cell 0) gives the same
// answers, read from the definitions; a cell value of the wrong length or
// kind is ErrCorrupt; and a PutAll with one bad fence among good ones
// writes nothing.
func TestFenceCellValues(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(7, 8))
		fs := NewFences("old")
		fences, model, probes := fencesAround(r, 40, 10, 150_000)
		if err := s.Update(func(tx keyspace.Tx) error { return fs.PutAll(tx, fences) }); err != nil {
			t.Fatal(err)
		}
		check := func(when string) (held int) {
			t.Helper()
			s.View(func(tx keyspace.Tx) error {
				for i, p := range probes {
					held += checkContaining(t, tx, fs, model, p, when)
					// A move to the next probe of the same cluster: its
					// crosses read the cells' values too.
					if i%5 == 0 {
						cs, err := fs.Crossings(tx, &p, &probes[i+1])
						if err != nil {
							t.Fatal(err)
						}
						checkCrossings(t, cs, model, &p, &probes[i+1])
					}
				}
				return nil
			})
			return held
		}
		if check("as written") < 50 {
			t.Fatal("too few probes lie in a fence to tell anything")
		}
		// Rewrite every edge cell as the first build wrote it.
		cells := composite.NewSubspace("f", "old", "c")
		edges := 0
		if err := s.Update(func(tx keyspace.Tx) error {
			for k, v := range tx.Scan(cells.Range()) {
				if v[0] != cellInside {
					edges++
					if err := tx.Put(k, []byte{cellEdge}); err != nil {
						return err
					}
				}
			}
			return tx.Err()
		}); err != nil || edges == 0 {
			t.Fatalf("rewriting %d edge cells: %v", edges, err)
		}
		check("every edge cell 0")

		// With no level mask either, as the first build wrote sets, every
		// level is read; a fence put then (at other levels than the
		// rest) must not hide the fences already there.
		if err := s.Update(func(tx keyspace.Tx) error { return tx.Delete(fs.levelsKey) }); err != nil {
			t.Fatal(err)
		}
		check("no level mask")
		big := Fence{ID: "big", Circle: &Circle{Lat: 10, Lon: 10, Radius: 3_000_000}}
		model[big.ID] = big
		if err := s.Update(func(tx keyspace.Tx) error { return fs.Put(tx, big) }); err != nil {
			t.Fatal(err)
		}
		check("a fence put into a set with no level mask")
		s.View(func(tx keyspace.Tx) error {
			if mask, known, err := fs.levels(tx); err != nil || !known || mask != allLevels {
				t.Errorf("a set with fences and no mask was given %017b (%v, %v), not every level", mask, known, err)
			}
			return nil
		})

		// A damaged value is ErrCorrupt, whichever kind it claims.
		var heldProbe Point
		for _, p := range probes {
			for _, f := range model {
				if fenceHolds(f, p.Lat, p.Lon) {
					heldProbe = p
				}
			}
		}
		for _, bad := range [][]byte{{}, {cellInside, 0}, {cellEdge, 1}, {cellCircle, 1, 2, 3}, {cellBox}, {9}} {
			err := s.Update(func(tx keyspace.Tx) error {
				for k := range tx.Scan(cells.Range()) {
					if err := tx.Put(k, bad); err != nil {
						return err
					}
				}
				_, err := fs.Containing(tx, heldProbe.Lat, heldProbe.Lon)
				if !errors.Is(err, keyspace.ErrCorrupt) {
					return fmt.Errorf("value %v: Containing gave %v, want ErrCorrupt", bad, err)
				}
				return errors.New("roll back")
			})
			if err == nil || err.Error() != "roll back" {
				t.Error(err)
			}
		}

		// One bad fence in a PutAll writes nothing, not even the good ones
		// before it.
		var before [][2][]byte
		s.View(func(tx keyspace.Tx) error {
			for k, v := range tx.Scan(keyspace.Range{}) {
				before = append(before, [2][]byte{k, v})
			}
			return nil
		})
		batch := []Fence{{ID: "new", Circle: &Circle{Lat: 1, Lon: 2, Radius: 3}}, {ID: "f1", Box: &Box{MinLat: 1, MaxLat: 2, MinLon: 3, MaxLon: 4}}, {ID: "bad", Circle: &Circle{Lat: 95}}}
		err := s.Update(func(tx keyspace.Tx) error { return fs.PutAll(tx, batch) })
		if !errors.Is(err, ErrInvalidPoint) || !strings.Contains(err.Error(), "fence 3 of 3") {
			t.Fatalf("PutAll with a bad fence: %v", err)
		}
		i := 0
		s.View(func(tx keyspace.Tx) error {
			for k, v := range tx.Scan(keyspace.Range{}) {
				if i >= len(before) || !bytes.Equal(k, before[i][0]) || !bytes.Equal(v, before[i][1]) {
					t.Fatalf("a failed PutAll changed the keyspace at %q", k)
				}
				i++
			}
			return nil
		})
		if i != len(before) {
			t.Fatalf("a failed PutAll left %d pairs of %d", i, len(before))
		}
	})
}

// TestFenceRepair: cells deleted, cells given wrong values, stray cells
// and a definition that no longer decodes are each one problem to Verify
// (an edge cell holding 0, as the first build wrote it, is none); Repair
// fixes exactly those, after which Verify finds nothing and Containing
// agrees with the oracle over the fences that survive.
func TestFenceRepair(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(21, 22))
		fs := NewFences("z")
		fences, model, probes := fencesAround(r, 30, 8, 100_000)
		if err := s.Update(func(tx keyspace.Tx) error { return fs.PutAll(tx, fences) }); err != nil {
			t.Fatal(err)
		}
		cells := composite.NewSubspace("f", "z", "c")
		want := 0
		if err := s.Update(func(tx keyspace.Tx) error {
			var keys, values [][]byte
			for k, v := range tx.Scan(cells.Range()) {
				keys, values = append(keys, bytes.Clone(k)), append(values, bytes.Clone(v))
			}
			owner := func(k []byte) string { tu, _ := cells.Unpack(k); return tu[3].(string) }
			// f00's definition no longer decodes: it and its cells go.
			if err := tx.Put(composite.NewSubspace("f", "z", "d").Pack(composite.Tuple{"f00"}), []byte("{not json")); err != nil {
				return err
			}
			want++ // its rings or its region, stray once it is gone
			delete(model, "f00")
			want++
			// Of the other polygons, one's rings are damaged (a problem)
			// and one's lost (none: it is tested from its definition, as a
			// fence stored before rings were kept); likewise one circle's or
			// box's region key, and another's.
			damageTwo := func(sub composite.Subspace, polygons bool, flip func(v []byte)) error {
				damaged := 0
				for _, f := range fences[1:] {
					if (f.Polygon != nil) != polygons {
						continue
					}
					key := sub.Pack(composite.Tuple{f.ID})
					v, err := tx.Get(key)
					if err != nil {
						return err
					}
					if damaged == 0 {
						v = bytes.Clone(v)
						flip(v)
						want++
						err = tx.Put(key, v)
					} else {
						err = tx.Delete(key)
					}
					if err != nil {
						return err
					}
					if damaged++; damaged == 2 {
						return nil
					}
				}
				return fmt.Errorf("too few fences to damage under %x", sub.Bytes())
			}
			if err := damageTwo(composite.NewSubspace("f", "z", "p"), true, func(v []byte) {
				v[len(v)-1] ^= 0x40 // the last position's latitude moves
			}); err != nil {
				return err
			}
			if err := damageTwo(composite.NewSubspace("f", "z", "r"), false, func(v []byte) {
				v[3] ^= 0x10 // its first float moves
			}); err != nil {
				return err
			}
			for i, k := range keys {
				if owner(k) == "f00" {
					want++ // a stray once its fence is gone
					continue
				}
				switch r.IntN(12) {
				case 0:
					want++
					if err := tx.Delete(k); err != nil {
						return err
					}
				case 1:
					bad := []byte{cellInside}
					if values[i][0] == cellInside {
						bad = []byte{cellBox, 1}
					}
					want++
					if err := tx.Put(k, bad); err != nil {
						return err
					}
				case 2:
					// An edge cell holding 0 is as the first build wrote
					// it: no problem. An inside cell holding 0 no build
					// wrote.
					if values[i][0] == cellInside {
						want++
					}
					if err := tx.Put(k, []byte{cellEdge}); err != nil {
						return err
					}
				}
			}
			for i := range 5 {
				want++
				if err := tx.Put(cells.Pack(composite.Tuple{uint64(geohashGrid), uint64(8), uint64(i), "ghost"}), []byte{cellInside}); err != nil {
					return err
				}
			}
			// A level mask that names no level hides every fence.
			want++
			return tx.Put(fs.levelsKey, []byte{0, 0, 0, 0})
		}); err != nil {
			t.Fatal(err)
		}
		var found, fixed []string
		s.View(func(tx keyspace.Tx) (err error) {
			found, err = fs.Verify(tx)
			return err
		})
		if len(found) != want {
			t.Fatalf("Verify found %d problems, %d were made: %v", len(found), want, found[:min(len(found), 5)])
		}
		if err := s.Update(func(tx keyspace.Tx) (err error) {
			fixed, err = fs.Repair(tx)
			return err
		}); err != nil || !slices.Equal(found, fixed) {
			t.Fatalf("Repair fixed %d problems (%v), Verify found %d", len(fixed), err, len(found))
		}
		s.View(func(tx keyspace.Tx) error {
			if again, err := fs.Verify(tx); err != nil || len(again) != 0 {
				t.Fatalf("after Repair, Verify: %v %v", again, err)
			}
			held := 0
			for _, p := range probes {
				held += checkContaining(t, tx, fs, model, p, "after Repair")
			}
			if ids, _ := fs.IDs(tx); len(ids) != 29 || held < 40 {
				t.Fatalf("after Repair, %d fences, %d held probes", len(ids), held)
			}
			return nil
		})
	})
}

// FuzzPolygonEncoding: any bytes decode to a polygon or an error, never a
// panic or a huge allocation, and a point tested on them in place
// (storedPolygonContains) gets the answer the decoded polygon gives, or
// for bytes that do not decode an error or an answer, never a panic; so
// does a path (storedPolygonMeetsPath), which for bytes a Put could have
// written gets the answer of testing every edge.
// Bytes that decode encode again as themselves. A polygon's encoding, in
// either form (with band indexes, and as formats 2 and 3 wrote it),
// decodes to its rings, boxes and band indexes exactly, a point in
// place, on a vertex, or at an edge's midpoint gets orb's answer, and
// a path tested in place by its bands (storedPolygonMeetsPath), a
// point's distance (storedPolygonDistance) and a circle, box or star met
// (shape.meetsStoredPolygon) get the answers of testing every edge.
func FuzzPolygonEncoding(f *testing.F) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 6 {
		poly := star(r, 10, 20, 1, i%2 == 0)
		if i >= 4 {
			poly = jaggedStar(r, 10, 20, 1, 10*i, i == 5)
		}
		pr, err := newPolygonRegion(poly)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(appendPolygon(nil, pr), uint64(i))
		f.Add(appendPolygonForm(nil, pr, false), uint64(i))
	}
	f.Add([]byte{0, 0, 0, 1, 0, 0, 0, 1}, uint64(9))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff}, uint64(10))
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1}, uint64(11))
	f.Fuzz(func(t *testing.T, b []byte, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 1))
		pr, err := decodePolygon(b)
		// Bytes a Put could have written: the rings' own boxes and band
		// indexes (any bytes that decode have some ring, box and index;
		// only a faithful encoding's index lists the edges a path meets).
		faithful := false
		if err == nil {
			var bounds [][]orb.Bound
			for _, poly := range pr.mp {
				var bs []orb.Bound
				for _, ring := range poly {
					bs = append(bs, ring.Bound())
				}
				bounds = append(bounds, bs)
			}
			faithful = bytes.Equal(b, appendPolygonForm(nil, polygonRegion{mp: pr.mp, bounds: bounds}, binary.BigEndian.Uint32(b) == 0))
		}
		for range 8 {
			lat, lon := r.Float64()*30-5, r.Float64()*30+5
			if err == nil && len(pr.mp) > 0 && len(pr.mp[0]) > 0 && len(pr.mp[0][0]) > 0 && r.IntN(2) == 0 {
				v := pr.mp[0][0][r.IntN(len(pr.mp[0][0]))] // a vertex
				lat, lon = v.Lat(), v.Lon()
			}
			held, serr := storedPolygonContains(b, lat, lon)
			if err == nil && (serr != nil || held != pr.contains(lat, lon)) {
				t.Fatalf("(%v, %v): in place %v, %v; decoded %v", lat, lon, held, serr, pr.contains(lat, lon))
			}
			p := newPath(Point{Lat: lat, Lon: lon}, Point{Lat: lat + r.NormFloat64(), Lon: lon + r.NormFloat64()})
			meets, serr := storedPolygonMeetsPath(b, p)
			if faithful && (serr != nil || meets != p.meetsPolygon(&pr)) {
				t.Fatalf("path %+v: in place %v, %v; decoded %v", p, meets, serr, p.meetsPolygon(&pr))
			}
		}
		if err == nil {
			indexed := binary.BigEndian.Uint32(b) == 0
			if again := appendPolygonForm(nil, pr, indexed); !bytes.Equal(again, b) {
				t.Fatalf("%x decodes, but encodes again as %x", b, again)
			}
		}
		lat, lon := r.Float64()*170-85, r.Float64()*350-175
		poly := star(r, lat, lon, r.Float64()*5, r.IntN(2) == 0)
		if r.IntN(2) == 0 {
			poly = jaggedStar(r, lat, lon, r.Float64()*5, 33+r.IntN(100), r.IntN(2) == 0)
		}
		mp := orb.MultiPolygon{poly}
		want, err := newPolygonRegion(mp)
		if err != nil {
			t.Fatal(err)
		}
		indexed := seed%3 != 0 // the earlier form a third of the time
		enc := appendPolygonForm(nil, want, indexed)
		pr, err = decodePolygon(enc)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(pr.mp, want.mp, func(a, b orb.Polygon) bool { return a.Equal(b) }) || !reflect.DeepEqual(pr.bounds, want.bounds) {
			t.Fatalf("%v decodes as %v", mp, pr.mp)
		}
		if indexed && !reflect.DeepEqual(pr.indexes, want.indexes) || !indexed && pr.indexes != nil {
			t.Fatalf("indexed %v: band indexes %v, want %v", indexed, pr.indexes, want.indexes)
		}
		var probes []orb.Point
		for _, ring := range poly {
			for i := 0; i+1 < len(ring); i += 1 + r.IntN(16) {
				probes = append(probes, ring[i], orb.Point{(ring[i][0] + ring[i+1][0]) / 2, (ring[i][1] + ring[i+1][1]) / 2})
			}
		}
		box := want.bound
		for range 20 {
			probes = append(probes, orb.Point{box.Min[0] + r.Float64()*(box.Max[0]-box.Min[0]), box.Min[1] + r.Float64()*(box.Max[1]-box.Min[1])})
		}
		for _, p := range probes {
			got, err := storedPolygonContains(enc, p.Lat(), p.Lon())
			if w := planar.MultiPolygonContains(mp, p); err != nil || got != w {
				t.Fatalf("indexed %v, %v in %v: %v, %v; orb says %v", indexed, p, mp, got, err, w)
			}
		}
		// Paths from probe to probe, and short ones from each, against
		// every edge tested (meetsPolygon on the polygon as given).
		for i, a := range probes {
			b := probes[r.IntN(len(probes))]
			if i%2 == 0 {
				b = orb.Point{a[0] + r.NormFloat64()*(box.Max[0]-box.Min[0])/50, a[1] + r.NormFloat64()*(box.Max[1]-box.Min[1])/50}
			}
			p := newPath(Point{Lat: a.Lat(), Lon: a.Lon()}, Point{Lat: clamp(b.Lat(), -90, 90), Lon: clamp(b.Lon(), -180, 180)})
			got, err := storedPolygonMeetsPath(enc, p)
			if w := p.meetsPolygon(&want); err != nil || got != w {
				t.Fatalf("indexed %v, path %+v and %v: %v, %v; every edge tested says %v", indexed, p, mp, got, err, w)
			}
		}
		// Distances (Near) and circles (Intersecting) round points near
		// and far, in place against every edge measured.
		for i, a := range probes[:min(len(probes), 12)] {
			c := newCircle(clamp(a.Lat()+r.NormFloat64()*(box.Max[1]-box.Min[1])/4, -90, 90), wrapLon(a.Lon()+r.NormFloat64()*(box.Max[0]-box.Min[0])/4), r.ExpFloat64()*50_000)
			ref := newRef(c.lat, c.lon)
			d, err := storedPolygonDistance(enc, ref, c.radius)
			if w := shapeOf(want).distance(ref); err != nil || (d <= c.radius || w <= c.radius) && d != w {
				t.Fatalf("indexed %v, %v from (%v, %v) within %v m: %v, %v; every edge measured says %v", indexed, mp, c.lat, c.lon, c.radius, d, err, w)
			}
			meets, err := c.meetsStoredPolygon(enc)
			if w := shapeOf(c).intersects(shapeOf(want)); err != nil || meets != w {
				t.Fatalf("indexed %v, %v and circle %+v: %v, %v; every edge tested says %v", indexed, mp, c, meets, err, w)
			}
			if i >= 3 {
				continue
			}
			// A box and a star about as big as the circle.
			size := c.radius / 111_000 // degrees
			bx := new(boxRegion).init(Box{MinLat: max(-90, c.lat-size), MinLon: wrapLon(c.lon - size), MaxLat: min(90, c.lat+size), MaxLon: wrapLon(c.lon + size)})
			areas := []shape{shapeOf(bx)}
			if st, err := newPolygonRegion(star(r, c.lat, c.lon, size, r.IntN(2) == 0)); err == nil {
				areas = append(areas, shapeOf(st))
			}
			for _, area := range areas {
				meets, err := area.meetsStoredPolygon(enc)
				if w := area.intersects(shapeOf(want)); err != nil || meets != w {
					t.Fatalf("indexed %v, %v and area %v: %v, %v; every edge tested says %v", indexed, mp, area.reg.boundingBox(), meets, err, w)
				}
			}
		}
	})
}

// jaggedStar is a polygon of n positions (with a hole of n/4 when hole)
// around (lat, lon), within size degrees of it, shaped as a border is: a
// star whose angles only grow, so that it never crosses itself, with
// lobes, and radii jagged by about the step between positions, so that
// its edges are short and its rings get band indexes (ringIndexOf).
func jaggedStar(r *rand.Rand, lat, lon, size float64, n int, hole bool) orb.Polygon {
	lat, lon = clamp(lat, -89.5, 89.5), clamp(lon, -179.5, 179.5)
	size = math.Min(size, 0.9*math.Min(90-math.Abs(lat), 180-math.Abs(lon)))
	ring := func(scale float64, n int) orb.Ring {
		var out orb.Ring
		lobes, phase := float64(1+r.IntN(7)), r.Float64()*2*math.Pi
		for i := range n {
			a := (float64(i) + 0.8*r.Float64()) / float64(n) * 2 * math.Pi
			d := size * scale * (0.75 + 0.2*math.Sin(lobes*a+phase) + 2*math.Pi/float64(n)*r.Float64())
			out = append(out, orb.Point{lon + d*math.Cos(a), lat + d*math.Sin(a)})
		}
		return append(out, out[0])
	}
	p := orb.Polygon{ring(1, n)}
	if hole {
		p = append(p, ring(0.2, max(n/4, 3)))
	}
	return p
}

// TestInFence: the points of an index inside each fence of a set, read
// back with Fences.Get, are exactly those the oracle says the fence
// holds, on both backends; a fence with no region is ErrBadFence.
func TestInFence(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(31, 32))
		fs := NewFences("zones")
		ix := NewIndex("pts")
		fences, _, probes := fencesAround(r, 30, 40, 150_000)
		for i := range probes {
			probes[i].ID = fmt.Sprint("p", i)
		}
		if err := s.Update(func(tx keyspace.Tx) error {
			if err := ix.PutAll(tx, probes); err != nil {
				return err
			}
			return fs.PutAll(tx, fences)
		}); err != nil {
			t.Fatal(err)
		}
		found := 0
		s.View(func(tx keyspace.Tx) error {
			for _, want := range fences {
				f, err := fs.Get(tx, want.ID)
				if err != nil {
					t.Fatal(err)
				}
				rs, _, err := ix.InFence(tx, f, nil)
				if err != nil {
					t.Fatal(err)
				}
				var got, held []string
				for _, r := range rs {
					got = append(got, r.ID)
				}
				for _, p := range probes {
					if fenceHolds(want, p.Lat, p.Lon) {
						held = append(held, p.ID)
					}
				}
				slices.Sort(got)
				slices.Sort(held)
				if !slices.Equal(got, held) {
					t.Fatalf("points in %+v: %v, brute force %v", want, got, held)
				}
				found += len(got)
			}
			if _, _, err := ix.InFence(tx, Fence{ID: "none"}, nil); !errors.Is(err, ErrBadFence) {
				t.Errorf("InFence of no region: %v", err)
			}
			return nil
		})
		if found < 100 {
			t.Fatalf("only %d points in all the fences", found)
		}
	})
}

// TestPutPoint: points moved with PutPoint and deleted with DeletePoint
// among random fences; each move's crossings are what the oracle says of
// where the model had the point and where it goes (a point that had
// expired is new again), and each delete's are the fences it left.
func TestPutPoint(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(41, 42))
		fs := NewFences("zones")
		ix := NewIndex("fleet")
		fences, model, probes := fencesAround(r, 20, 20, 150_000)
		if err := s.Update(func(tx keyspace.Tx) error { return fs.PutAll(tx, fences) }); err != nil {
			t.Fatal(err)
		}
		where := map[string]*Point{} // the oracle's points, live
		now := time.Now()
		kinds := map[CrossingKind]int{}
		for step := range 300 {
			id := fmt.Sprint("v", r.IntN(6))
			err := s.Update(func(tx keyspace.Tx) error {
				if where[id] != nil && r.IntN(5) == 0 {
					cs, err := fs.DeletePoint(tx, ix, id)
					if err != nil {
						return err
					}
					checkCrossings(t, cs, model, where[id], nil)
					delete(where, id)
					return nil
				}
				p := probes[r.IntN(len(probes))]
				p.ID = id
				if r.IntN(8) == 0 { // expired already: gone by the next move
					p.Expires = now.Add(-time.Hour)
				}
				cs, err := fs.PutPoint(tx, ix, p)
				if err != nil {
					return err
				}
				checkCrossings(t, cs, model, where[id], &p)
				for _, c := range cs {
					kinds[c.Kind]++
				}
				where[id] = &p
				if !p.Expires.IsZero() {
					delete(where, id)
				}
				return nil
			})
			if err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
		}
		if kinds[Enter] == 0 || kinds[Exit] == 0 || kinds[Inside] == 0 {
			t.Fatalf("the moves made too few kinds of crossing: %v", kinds)
		}
		s.Update(func(tx keyspace.Tx) error {
			if _, err := fs.DeletePoint(tx, ix, "nobody"); !errors.Is(err, keyspace.ErrNotFound) {
				t.Errorf("DeletePoint of no point: %v", err)
			}
			if _, err := fs.PutPoint(tx, ix, Point{ID: "bad", Lat: 95}); !errors.Is(err, ErrInvalidPoint) {
				t.Errorf("PutPoint of latitude 95: %v", err)
			}
			return nil
		})
	})
}

// TestFencesDrop drops one fence set among others whose names start with
// its name, on both backends: exactly its keys go (decided by unpacking
// every key, not by the subspaces Drop clears; its band levels key among
// them), it reports its fences, and it can be filled again, holding only
// the new fence.
func TestFencesDrop(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(21, 22))
		names := []string{"zone", "zones", "zones2", "zones\x00"}
		put := map[string]int{}
		err := s.Update(func(tx keyspace.Tx) error {
			for _, name := range names {
				fs := NewFences(name)
				if fs.Name() != name {
					t.Fatalf("NewFences(%q).Name() = %q", name, fs.Name())
				}
				ids := map[string]bool{}
				for range 40 {
					id := fmt.Sprint("f", r.IntN(30))
					f := randomFence(r, id, r.Float64()*180-90, r.Float64()*360-180)
					if r.IntN(4) == 0 {
						f.Expires = time.Now().Add(time.Hour)
					}
					ids[id] = true
					if err := fs.Put(tx, f); err != nil {
						return err
					}
				}
				put[name] = len(ids)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		fs := NewFences("zones")
		storetest.CheckDrop(t, s, fs.Drop, put["zones"], func(key string) bool {
			k, err := composite.Unpack([]byte(key))
			return err == nil && len(k) > 1 && k[0] == "f" && k[1] == "zones"
		})
		err = s.Update(func(tx keyspace.Tx) error {
			return fs.Put(tx, Fence{ID: "again", Circle: &Circle{Lat: 1, Lon: 2, Radius: 1000}})
		})
		if err != nil {
			t.Fatal(err)
		}
		s.View(func(tx keyspace.Tx) error {
			ids, err := fs.IDs(tx)
			if err != nil || !slices.Equal(ids, []string{"again"}) {
				t.Errorf("after Drop and a Put, IDs = %v, %v; want [again]", ids, err)
			}
			if in, err := fs.Containing(tx, 1, 2); err != nil || !slices.Equal(in, []string{"again"}) {
				t.Errorf("after Drop and a Put, Containing(1, 2) = %v, %v; want [again]", in, err)
			}
			return nil
		})
	})
}
