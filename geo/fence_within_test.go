package geo

import (
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
	"github.com/paulmach/orb/planar"
)

// TestFenceWithin: areas of every shape at the poles, on ±180° and in
// Europe, and fences of every shape around points inside them, on both
// backends. Within must report exactly the fences the sampling oracle
// finds inside (withinOracle), be a part of Intersecting's answer, leave
// out expired fences, and both answers must occur often enough to mean
// something.
func TestFenceWithin(t *testing.T) {
	r := rand.New(rand.NewPCG(91, 92))
	hot := [][2]float64{{89.5, 0}, {0, 180}, {45, 10}, {-89.9, 100}}
	areas := make([]Fence, 80)
	var fences []Fence
	for i := range areas {
		h := hot[i%len(hot)]
		lat, lon := destination(h[0], h[1], r.Float64()*300_000, r.Float64()*2*math.Pi)
		areas[i] = randomFence(r, "", lat, lon)
		for areas[i].Corridor != nil { // TestFenceWithinCorridor's
			areas[i] = randomFence(r, "", lat, lon)
		}
		if i%3 == 0 { // bigger areas, to hold more fences
			switch {
			case areas[i].Circle != nil:
				areas[i].Circle.Radius *= 10
			case areas[i].Polygon != nil:
				areas[i].Polygon = star(r, lat, lon, 3+r.Float64()*5, r.IntN(2) == 0)
			}
		}
		// A polygon round the middle of a polygon area, where its hole is
		// when it has one: within only if the area has none.
		if p, ok := areas[i].Polygon.(orb.Polygon); ok && i%3 == 0 {
			c := p[0].Bound().Center()
			size := p[0].Bound().Right() - c[0]
			fences = append(fences, Fence{ID: fmt.Sprintf("f%03d", len(fences)), Polygon: star(r, c[1], c[0], size*0.3, false)})
		}
		// Fences around points of the area's own neighbourhood.
		for range 2 {
			flat, flon := destination(lat, lon, r.ExpFloat64()*100_000, r.Float64()*2*math.Pi)
			fences = append(fences, smallFence(r, fmt.Sprintf("f%03d", len(fences)), flat, flon))
		}
	}
	// Each area's polygon or box as a fence too: the area itself is
	// within itself.
	for i, a := range areas[:12] {
		a.ID = fmt.Sprintf("a%02d", i)
		fences = append(fences, a)
	}
	verdicts := make([][]int, len(areas))
	count := map[int]int{}
	for i, a := range areas {
		for _, f := range fences {
			v := withinOracle(a, f)
			verdicts[i] = append(verdicts[i], v)
			count[v]++
		}
	}
	t.Logf("%d pairs within, %d not, %d graze", count[through], count[misses], count[grazes])
	if count[through] < 100 || count[misses] < 1000 {
		t.Fatalf("too few of one answer to mean much: %d pairs within, %d not, %d graze", count[through], count[misses], count[grazes])
	}
	checkWithin(t, areas, fences, verdicts)
}

// checkWithin stores fences, and one that has expired, on both backends
// and asks Within of each area: its answer must be a part of
// Intersecting's, leave the expired fence out, and hold each fence the
// oracle's verdict for the pair (verdicts[area][fence]) says is within
// and no fence it says is not; a graze may go either way.
func checkWithin(t *testing.T, areas, fences []Fence, verdicts [][]int) {
	t.Helper()
	stored := slices.Clone(fences)
	stored = append(stored, Fence{ID: "expired", Circle: &Circle{Lat: 45, Lon: 10, Radius: 1}, Expires: time.Now().Add(-time.Hour)})
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		fs := NewFences("zones")
		if err := s.Update(func(tx keyspace.Tx) error { return fs.PutAll(tx, stored) }); err != nil {
			t.Fatal(err)
		}
		s.View(func(tx keyspace.Tx) error {
			for i, a := range areas {
				got, err := fs.Within(tx, a)
				if err != nil {
					t.Fatal(err)
				}
				meeting, err := fs.Intersecting(tx, a)
				if err != nil {
					t.Fatal(err)
				}
				for _, id := range got {
					if !slices.Contains(meeting, id) || strings.HasPrefix(id, "expired") {
						t.Fatalf("area %d: Within reports %s, which Intersecting does not or which has expired", i, id)
					}
				}
				for j, f := range fences {
					if v := verdicts[i][j]; v != grazes && slices.Contains(got, f.ID) != (v == through) {
						t.Fatalf("area %d (%s) and fence %s (%s): Within says %v, the oracle %v", i, describeFence(a), f.ID, describeFence(f), v != through, v == through)
					}
				}
			}
			return nil
		})
	})
}

// describeFence is f's region, for a test's failure.
func describeFence(f Fence) string {
	switch {
	case f.Circle != nil:
		return fmt.Sprintf("circle %+v", *f.Circle)
	case f.Box != nil:
		return fmt.Sprintf("box %+v", *f.Box)
	case f.Sector != nil:
		return fmt.Sprintf("sector %+v", *f.Sector)
	case f.Corridor != nil:
		return fmt.Sprintf("corridor %v radius %g", f.Corridor.Line, f.Corridor.Radius)
	}
	return fmt.Sprintf("polygon %v", f.Polygon)
}

// smallFence is a circle, a box, a sector, a corridor or a polygon of up
// to tens of kilometres around (lat, lon); a box across ±180° where it lies by it, a polygon
// sometimes stored with band indexes.
func smallFence(r *rand.Rand, id string, lat, lon float64) Fence {
	f := Fence{ID: id}
	size := r.ExpFloat64() * 0.2
	switch r.IntN(5) {
	case 4: // a route of up to five legs, its radius up to a third of its size
		ls := orb.LineString{{lon, lat}}
		for range 1 + r.IntN(4) {
			lat, lon = destination(lat, lon, size*111_000*r.Float64(), r.Float64()*2*math.Pi)
			ls = append(ls, orb.Point{lon, lat})
		}
		f.Corridor = &Corridor{Line: ls, Radius: size * 111_000 * r.Float64() / 3}
		if r.IntN(4) == 0 {
			f.Corridor.Radius = 0
		}
	case 0:
		f.Circle = &Circle{Lat: lat, Lon: lon, Radius: size * 111_000}
	case 3:
		from := r.Float64() * 360
		f.Sector = &Sector{Lat: lat, Lon: lon, Radius: size * 111_000, From: from, To: from + 5 + r.Float64()*350}
	case 1:
		b := Box{MinLat: max(-90, lat-size), MaxLat: min(90, lat+size/2), MinLon: wrap(lon - size), MaxLon: wrap(lon + size*2)}
		f.Box = &b
	default:
		if r.IntN(3) == 0 {
			f.Polygon = jaggedStar(r, lat, lon, size, indexFrom+1+r.IntN(40), r.IntN(3) == 0)
		} else {
			f.Polygon = star(r, lat, lon, size, r.IntN(3) == 0)
		}
	}
	return f
}

// withinOracle says whether the fence f lies within the area a, written
// apart from fence_within.go: two circles by their centres' distance and
// radii; otherwise by sampling f (its outline, 100 samples an edge, or a
// circle's edge at 360 points, and its inside on a grid) against a
// (fenceHolds), and a's vertices against f. A sample outside a, or a
// vertex of a inside f and clear of f's edges (a sector's, with a point
// round it outside a by more than a centimetre), says f is not within
// (misses); when neither turns up, f is within (through) unless its
// outline comes within two samples' spacing of a's, where sampling cannot
// tell (grazes). A sample outside a by less than 1 cm is a graze too.
func withinOracle(a, f Fence) int {
	if a.Circle != nil && f.Circle != nil {
		switch d := Distance(a.Circle.Lat, a.Circle.Lon, f.Circle.Lat, f.Circle.Lon) + f.Circle.Radius - a.Circle.Radius; {
		case d < -0.01:
			return through
		case d > 0.01:
			return misses
		}
		return grazes
	}
	outside := func(p Point) int {
		switch {
		case fenceHolds(a, p.Lat, p.Lon):
			return through
		case boundaryGap(a, p) < 0.01:
			return grazes
		}
		return misses
	}
	// A point of f first: most pairs end here.
	first := fenceSamples(f, true)
	for _, p := range first {
		if v := outside(p); v != through {
			return v
		}
	}
	edge := fenceSamples(f, false)
	verdict := through
	for _, p := range edge {
		switch outside(p) {
		case misses:
			return misses
		case grazes:
			verdict = grazes
		}
	}
	switch {
	case a.Sector != nil:
		// A sector's corner inside f: f holds the points round it out to
		// its clearance, and misses if one lies outside the sector by
		// more than a centimetre (the slice beyond a sector's apex may be
		// too thin for that).
		for _, v := range corners(a) {
			clear := boundaryGap(f, v)
			if !fenceHolds(f, v.Lat, v.Lon) || clear <= 0.01 {
				continue
			}
			for i := range 360 {
				lat, lon := destination(v.Lat, v.Lon, clear*0.9, float64(i)*math.Pi/180)
				q := Point{Lat: lat, Lon: lon}
				if !fenceHolds(a, lat, lon) && boundaryGap(a, q) > 0.01 && fenceHolds(f, lat, lon) {
					return misses
				}
			}
		}
	case a.Circle == nil:
		for _, v := range corners(a) {
			if fenceHolds(f, v.Lat, v.Lon) && boundaryGap(f, v) > 0.01 {
				return misses
			}
		}
	}
	if verdict == through {
		spacing := 0.0
		for i := 1; i < len(edge); i++ {
			spacing = max(spacing, Distance(edge[i-1].Lat, edge[i-1].Lon, edge[i].Lat, edge[i].Lon))
		}
		for _, p := range edge {
			if boundaryGap(a, p) <= 2*spacing {
				return grazes
			}
		}
	}
	return verdict
}

// fenceSamples returns points of f: with first, its centre or first
// vertices; else its outline and a grid of points inside it.
func fenceSamples(f Fence, first bool) []Point {
	var out []Point
	switch {
	case f.Corridor != nil:
		return corridorSamples(f.Corridor, first)
	case f.Sector != nil:
		s := f.Sector
		if first {
			return []Point{{Lat: s.Lat, Lon: s.Lon}}
		}
		return append(sectorBoundary(s, 100), sectorSamples(s)...)
	case f.Circle != nil:
		c := f.Circle
		if first {
			return []Point{{Lat: c.Lat, Lon: c.Lon}}
		}
		for i := range 360 {
			for _, d := range []float64{c.Radius, c.Radius / 2} {
				lat, lon := destination(c.Lat, c.Lon, d, float64(i)*math.Pi/180)
				out = append(out, Point{Lat: lat, Lon: lon})
			}
		}
		return out
	case first && f.Box != nil:
		return []Point{{Lat: f.Box.MinLat, Lon: f.Box.MinLon}}
	case first:
		for _, poly := range toMulti(f.Polygon) {
			out = append(out, Point{Lat: poly[0][0].Lat(), Lon: poly[0][0].Lon()})
		}
		return out
	}
	for _, e := range outline(f) {
		for i := range 100 {
			dLon := e[1].Lon - e[0].Lon
			if dLon > 180 {
				dLon -= 360
			} else if dLon < -180 {
				dLon += 360
			}
			t := float64(i) / 100
			out = append(out, Point{Lat: e[0].Lat + t*(e[1].Lat-e[0].Lat), Lon: wrapLon(e[0].Lon + t*dLon)})
		}
	}
	// The inside, on a grid over the bounding box.
	var minLat, maxLat, west, span float64
	if b := f.Box; b != nil {
		minLat, maxLat, west, span = b.MinLat, b.MaxLat, b.MinLon, b.MaxLon-b.MinLon
		if span < 0 {
			span += 360
		}
	} else {
		bd := f.Polygon.Bound()
		minLat, maxLat, west, span = bd.Min[1], bd.Max[1], bd.Min[0], bd.Max[0]-bd.Min[0]
	}
	for i := range 21 {
		for j := range 21 {
			p := Point{Lat: minLat + (maxLat-minLat)*float64(i)/20, Lon: wrapLon(west + span*float64(j)/20)}
			if fenceHolds(f, p.Lat, p.Lon) {
				out = append(out, p)
			}
		}
	}
	return out
}

// corners are a box's or a polygon's vertices, or a sector's apex and
// the ends of its sides (none for a whole circle): points on a's
// boundary.
func corners(a Fence) []Point {
	if s := a.Sector; s != nil {
		if clockwise(s.From, s.To) == 0 {
			return nil
		}
		out := []Point{{Lat: s.Lat, Lon: s.Lon}}
		if !math.IsInf(s.Radius, 1) {
			for _, b := range []float64{s.From, s.To} {
				lat, lon := towards(s.Lat, s.Lon, s.Radius, b)
				out = append(out, Point{Lat: lat, Lon: lon})
			}
		}
		return out
	}
	var out []Point
	for _, e := range outline(a) {
		out = append(out, e[0])
	}
	return out
}

// boundaryGap is how far p lies from a's boundary, in metres: from a
// circle's edge or a sector's (sectorGap), or in the plane of longitude
// and latitude from a box's or polygon's outline, a degree taken as 111
// km.
func boundaryGap(a Fence, p Point) float64 {
	if c := a.Circle; c != nil {
		return math.Abs(Distance(c.Lat, c.Lon, p.Lat, p.Lon) - c.Radius)
	}
	if a.Sector != nil {
		return sectorGap(a.Sector, p)
	}
	if a.Corridor != nil {
		return corridorGap(a.Corridor, p.Lat, p.Lon)
	}
	best := math.Inf(1)
	for _, e := range outline(a) {
		b := orb.Point{e[1].Lon, e[1].Lat}
		if d := e[1].Lon - e[0].Lon; d > 180 {
			b[0] -= 360
		} else if d < -180 {
			b[0] += 360
		}
		for _, s := range []float64{-360, 0, 360} {
			best = min(best, planar.DistanceFromSegment(orb.Point{e[0].Lon, e[0].Lat}, b, orb.Point{p.Lon + s, p.Lat}))
		}
	}
	return best * 111_000
}

// TestFenceWithinCases: the cases the definition decides, each against
// what it implies: edges that touch, holes, ±180° and the poles.
func TestFenceWithinCases(t *testing.T) {
	square := squareRing
	fences := []Fence{
		{ID: "circle", Circle: &Circle{Lat: 10, Lon: 20, Radius: 10_000}},
		{ID: "box", Box: &Box{MinLat: 0, MinLon: 0, MaxLat: 1, MaxLon: 1}},
		{ID: "dateline", Box: &Box{MinLat: -5, MinLon: 175, MaxLat: 5, MaxLon: -175}},
		{ID: "on-dateline", Circle: &Circle{Lat: 0, Lon: 180, Radius: 50_000}},
		{ID: "ring", Polygon: square(40, -100, 2, true)},
		{ID: "in-hole", Polygon: square(40, -100, 0.5, false)},
		{ID: "pole", Circle: &Circle{Lat: 90, Lon: 0, Radius: 100_000}},
		{ID: "round-hole", Polygon: square(40, -100, 1.8, false)},
		{ID: "dateline-point", Circle: &Circle{Lat: 1, Lon: 180, Radius: 0}},
		{ID: "dateline-point2", Circle: &Circle{Lat: -1, Lon: -180, Radius: 0}},
	}
	// Two halves of a square split at ±180°, as GeoJSON spells one.
	split := orb.MultiPolygon{
		{{{170, -10}, {180, -10}, {180, 10}, {170, 10}, {170, -10}}},
		{{{-180, -10}, {-170, -10}, {-170, 10}, {-180, 10}, {-180, -10}}},
	}
	for _, c := range []struct {
		name string
		area Fence
		want []string
	}{
		{"a circle round a circle, touching it", Fence{Circle: &Circle{Lat: 10, Lon: 20, Radius: 10_000}}, []string{"circle"}},
		{"a circle 1 m short of one", Fence{Circle: &Circle{Lat: 10, Lon: 20, Radius: 9_999}}, nil},
		{"a circle round a box", Fence{Circle: &Circle{Lat: 0.5, Lon: 0.5, Radius: 80_000}}, []string{"box"}},
		{"a circle short of a box's corners", Fence{Circle: &Circle{Lat: 0.5, Lon: 0.5, Radius: 75_000}}, nil},
		{"the box itself", Fence{Box: &Box{MinLat: 0, MinLon: 0, MaxLat: 1, MaxLon: 1}}, []string{"box"}},
		{"a box 0.001° short", Fence{Box: &Box{MinLat: 0, MinLon: 0, MaxLat: 1, MaxLon: 0.999}}, nil},
		{"a box round the dateline box", Fence{Box: &Box{MinLat: -6, MinLon: 170, MaxLat: 6, MaxLon: -170}}, []string{"dateline", "dateline-point", "dateline-point2", "on-dateline"}},
		{"a box east of ±180° only", Fence{Box: &Box{MinLat: -6, MinLon: -180, MaxLat: 6, MaxLon: -170}}, []string{"dateline-point", "dateline-point2"}},
		{"a box west of ±180° only", Fence{Box: &Box{MinLat: -6, MinLon: 170, MaxLat: 6, MaxLon: 180}}, []string{"dateline-point", "dateline-point2"}},
		{"the square split at ±180°", Fence{Polygon: split}, []string{"dateline", "dateline-point", "dateline-point2", "on-dateline"}},
		{"its west half", Fence{Polygon: split[0]}, []string{"dateline-point", "dateline-point2"}},
		{"its east half", Fence{Polygon: split[1]}, []string{"dateline-point", "dateline-point2"}},
		{"the ring's outer square", Fence{Polygon: square(40, -100, 2, false)}, []string{"in-hole", "ring", "round-hole"}},
		{"the ring itself, hole and all", Fence{Polygon: square(40, -100, 2, true)}, []string{"ring"}},
		{"a circle in the ring's hole", Fence{Circle: &Circle{Lat: 40, Lon: -100, Radius: 80_000}}, []string{"in-hole"}},
		{"the polar cap", Fence{Box: &Box{MinLat: 88, MinLon: -180, MaxLat: 90, MaxLon: 180}}, []string{"pole"}},
		{"half the polar cap", Fence{Box: &Box{MinLat: 88, MinLon: 0, MaxLat: 90, MaxLon: 180}}, nil},
		{"a circle round the pole", Fence{Circle: &Circle{Lat: 89.5, Lon: 45, Radius: 160_000}}, []string{"pole"}},
		{"the world", Fence{Box: &Box{MinLat: -90, MinLon: -180, MaxLat: 90, MaxLon: 180}}, []string{"box", "circle", "dateline", "dateline-point", "dateline-point2", "in-hole", "on-dateline", "pole", "ring", "round-hole"}},
	} {
		askCase(t, fences, c.name, c.area, c.want, (*Fences).Within)
	}
	// A bad area is an error.
	keyspace.NewMemory().View(func(tx keyspace.Tx) error {
		fs := NewFences("cases")
		if _, err := fs.Within(tx, Fence{Circle: &Circle{Lat: 91, Lon: 0, Radius: 1}}); err == nil || !strings.Contains(err.Error(), "latitude") {
			t.Errorf("an area at latitude 91: %v", err)
		}
		if _, err := fs.Within(tx, Fence{}); err == nil {
			t.Error("an area with no region: no error")
		}
		return nil
	})
}

// FuzzShapeWithin: a random area (circle, box, polygon) round a fuzzed
// centre and a small fence a fuzzed distance and bearing from it, tested
// with no store in between, the fence's polygon both decoded and as its
// stored rings read in place, against the sampling oracle.
func FuzzShapeWithin(f *testing.F) {
	f.Add(uint64(1), 10.0, 20.0, 0.0, 0.0)
	f.Add(uint64(2), 89.9, 0.0, 50_000.0, 1.0)
	f.Add(uint64(3), 0.0, 179.9, 20_000.0, 1.57)
	f.Add(uint64(4), -89.99, 50.0, 0.0, 0.0)
	f.Add(uint64(5), 45.0, 10.0, 100_000.0, 4.0)
	f.Fuzz(func(t *testing.T, seed uint64, lat, lon, d, β float64) {
		if validate(lat, lon) != nil || !(d >= 0 && d <= 1e6) || math.IsNaN(β) || math.IsInf(β, 0) {
			return
		}
		r := rand.New(rand.NewPCG(seed, 5))
		a := randomFence(r, "a", lat, lon)
		flat, flon := destination(lat, lon, d, β)
		fence := smallFence(r, "f", flat, flon)
		ra, err := a.region()
		if err != nil {
			t.Fatal(err)
		}
		rf, err := fence.region()
		if err != nil {
			t.Fatal(err)
		}
		var v int
		if a.Corridor != nil {
			v = corridorWithinOracle(corridorLines(a.Corridor.Line), a.Corridor.Radius, fence)
		} else {
			v = withinOracle(a, fence)
		}
		shapes := []shape{shapeOf(rf)}
		if pr, ok := rf.(polygonRegion); ok {
			shapes = append(shapes, shape{rings: appendPolygon(nil, pr)})
		}
		inside := holder(shapeOf(ra))
		for _, s := range shapes {
			got, err := inside(s)
			if err != nil {
				t.Fatal(err)
			}
			if v != grazes && got != (v == through) {
				t.Fatalf("area (circle %+v, box %+v, polygon %v, sector %+v, corridor %+v) and fence (circle %+v, box %+v, polygon %v, sector %+v, corridor %+v, in place %v): Within says %v, the oracle %v",
					a.Circle, a.Box, a.Polygon, a.Sector, a.Corridor, fence.Circle, fence.Box, fence.Polygon, fence.Sector, fence.Corridor, s.rings != nil, got, v == through)
			}
		}
	})
}
