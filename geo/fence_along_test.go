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

// fenceAlongOracle says whether the fence f comes within radius metres
// of lines, written apart from fence_along.go: through when f holds a
// position of a line (fenceHolds; for a sector, not within a millimetre
// of its edge), when pathOracle says an edge of a line passes through f,
// or when a point of f's boundary (or a circle's centre, less its
// radius) lies surely within radius of the lines by bruteLineDistance;
// misses when a branch and bound over f's boundary, on nothing but the
// triangle inequality and Vincenty distances, proves every point of it
// farther than radius and a millimetre; grazes otherwise.
func fenceAlongOracle(f Fence, lines orb.MultiLineString, radius float64) int {
	const tol = 1e-3
	if f.Corridor != nil {
		return corridorMeetsOracle(f.Corridor, lines, radius)
	}
	// Far apart: every point of f lies within extent of c, and every
	// point of the lines within their length of their first position.
	c, extent := fenceExtent(f)
	reach := 0.0
	for _, ls := range lines {
		length := 0.0
		for i := 1; i < len(ls); i++ {
			_, l := oracleEdge(ls[i-1].Lat(), ls[i-1].Lon(), ls[i].Lat(), ls[i].Lon())
			length += l(0, 1)
		}
		if vincenty(c.Lat, c.Lon, ls[0].Lat(), ls[0].Lon())-extent-length*(1+1e-9) > radius+tol {
			continue
		}
		reach = math.Inf(1)
	}
	if reach == 0 {
		return misses
	}
	verdict := misses
	for _, ls := range lines {
		for i, p := range ls {
			pt := Point{Lat: p.Lat(), Lon: p.Lon()}
			if fenceHolds(f, pt.Lat, pt.Lon) {
				if s := f.Sector; s != nil {
					if _, unsure := sectorOracle(s.Lat, s.Lon, s.Radius, s.From, s.To, pt); unsure {
						verdict = grazes
						continue
					}
				}
				return through
			}
			// A line through f meets its boundary, which the search
			// below finds within any radius past a centimetre; at less,
			// the crossing is pathOracle's to find.
			if i > 0 && radius < 10*tol && !edgeFarFrom(c, extent, ls[i-1], ls[i], tol) {
				switch pathOracle(f, Point{Lat: ls[i-1].Lat(), Lon: ls[i-1].Lon()}, pt) {
				case through:
					return through
				case grazes:
					verdict = grazes // a line that may only touch f: the distance decides below
				}
			}
		}
	}
	if c := f.Circle; c != nil {
		lo, hi := bruteLineDistance(lines, c.Lat, c.Lon, tol/10, radius+c.Radius+1)
		switch {
		case hi-c.Radius <= radius-tol:
			return through
		case lo-c.Radius > radius+tol:
			return misses
		}
		return grazes
	}
	// Past pathOracle's sampling, "misses" is the boundary's to prove
	// (pathOracle measures its gaps in degrees, which at a pole, where
	// a line's position is every longitude at once, are no distance).
	verdict = misses
	for _, cv := range boundaryCurves(f) {
		switch curveAlongOracle(lines, cv.at, cv.length, radius, tol) {
		case through:
			return through
		case grazes:
			verdict = grazes
		}
	}
	return verdict
}

// edgeFarFrom reports whether every point of the edge from a to b lies
// farther than extent + tol from c.
func edgeFarFrom(c Point, extent float64, a, b orb.Point, tol float64) bool {
	_, length := oracleEdge(a.Lat(), a.Lon(), b.Lat(), b.Lon())
	return vincenty(c.Lat, c.Lon, a.Lat(), a.Lon())-length(0, 1)*(1+1e-9)-extent > tol
}

// fenceExtent returns a point c of f and a distance every point of f
// lies within of c: a circle's centre and radius, a sector's apex and
// radius, or a box's or polygon's first vertex and the most any edge's
// start lies from it plus that edge's ground length (a point of an edge
// is no farther from its start than the edge is long).
func fenceExtent(f Fence) (Point, float64) {
	switch {
	case f.Circle != nil:
		return Point{Lat: f.Circle.Lat, Lon: f.Circle.Lon}, f.Circle.Radius
	case f.Sector != nil:
		return Point{Lat: f.Sector.Lat, Lon: f.Sector.Lon}, math.Min(f.Sector.Radius, math.Pi*EarthRadius)
	case f.Corridor != nil: // each line's start, its length and the radius
		lines := corridorLines(f.Corridor.Line)
		c, extent := Point{Lat: lines[0][0].Lat(), Lon: lines[0][0].Lon()}, 0.0
		for _, ls := range lines {
			reach := vincenty(c.Lat, c.Lon, ls[0].Lat(), ls[0].Lon())
			for i := 1; i < len(ls); i++ {
				_, length := oracleEdge(ls[i-1].Lat(), ls[i-1].Lon(), ls[i].Lat(), ls[i].Lon())
				reach += length(0, 1) * (1 + 1e-9)
			}
			extent = math.Max(extent, reach)
		}
		return c, extent + f.Corridor.Radius + 1e-6
	}
	edges := outline(f)
	c, extent := edges[0][0], 0.0
	for _, e := range edges {
		_, length := oracleEdge(e[0].Lat, e[0].Lon, e[1].Lat, e[1].Lon)
		extent = math.Max(extent, vincenty(c.Lat, c.Lon, e[0].Lat, e[0].Lon)+length(0, 1)*(1+1e-9))
	}
	return c, extent + 1e-6
}

// oracleCurve is a piece of a fence's boundary for the oracle: its point
// at t in [0, 1], and a bound on its ground length from t0 to t1.
type oracleCurve struct {
	at     func(t float64) (lat, lon float64)
	length func(t0, t1 float64) float64
}

// boundaryCurves is f's boundary: a box's or a polygon's outline
// (outline), each piece straight in longitude and latitude, or a
// sector's sides and arc (towards), each at a constant speed.
func boundaryCurves(f Fence) []oracleCurve {
	var out []oracleCurve
	if s := f.Sector; s != nil {
		span := clockwise(s.From, s.To)
		if span == 0 {
			span = 360
		}
		reach := math.Min(s.Radius, math.Pi*EarthRadius)
		for _, b := range []float64{s.From, s.From + span} {
			out = append(out, oracleCurve{
				at:     func(t float64) (float64, float64) { return towards(s.Lat, s.Lon, t*reach, b) },
				length: func(t0, t1 float64) float64 { return (t1 - t0) * reach * (1 + 1e-9) },
			})
		}
		arc := math.Sin(reach/EarthRadius) * EarthRadius * rad(span) * (1 + 1e-9)
		return append(out, oracleCurve{
			at:     func(t float64) (float64, float64) { return towards(s.Lat, s.Lon, reach, s.From+t*span) },
			length: func(t0, t1 float64) float64 { return (t1 - t0) * arc },
		})
	}
	for _, e := range outline(f) {
		at, length := oracleEdge(e[0].Lat, e[0].Lon, e[1].Lat, e[1].Lon)
		out = append(out, oracleCurve{at: at, length: func(t0, t1 float64) float64 { return length(t0, t1) * (1 + 1e-9) }})
	}
	return out
}

// curveAlongOracle is the branch and bound of fenceAlongOracle over one
// curve: through when a point is surely within radius, misses when every
// piece's bound, (a + b − ℓ)/2 from its ends' lower bounds a and b and its
// length ℓ, exceeds radius + tol; a piece still undecided at a tenth of
// tol, or past 200,000 pieces, grazes.
func curveAlongOracle(lines orb.MultiLineString, at func(float64) (float64, float64), length func(t0, t1 float64) float64, radius, tol float64) int {
	// A point that ends pieces of length ℓ is measured to within ℓ/64
	// (no finer than tol/10), and only as far as radius + ℓ: a bound
	// looser by that much still drops every piece a precise one would,
	// but for those it then halves.
	eval := func(t, ℓ float64) (lo, hi float64) {
		lat, lon := at(t)
		return bruteLineDistance(lines, lat, lon, max(tol/10, ℓ/64), radius+ℓ+1)
	}
	type piece struct{ t0, t1, lo0, lo1 float64 }
	whole := length(0, 1)
	lo0, hi0 := eval(0, whole)
	lo1, hi1 := eval(1, whole)
	if min(hi0, hi1) <= radius-tol {
		return through
	}
	verdict := misses
	stack := []piece{{0, 1, lo0, lo1}}
	for n := 0; len(stack) > 0; n++ {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		ℓ := length(p.t0, p.t1)
		switch {
		case (p.lo0+p.lo1-ℓ)/2 > radius+tol:
			continue
		case ℓ < tol/10 || n > 200_000:
			verdict = grazes
			continue
		}
		m := (p.t0 + p.t1) / 2
		lo, hi := eval(m, ℓ)
		if hi <= radius-tol {
			return through
		}
		stack = append(stack, piece{p.t0, m, p.lo0, lo}, piece{m, p.t1, lo, p.lo1})
	}
	return verdict
}

// TestFencesAlong: fences of every shape round four places (near the
// north pole, on ±180° at the equator, in Europe, at the south pole),
// and lines of 2 to 6 positions from 10 m to 2,000 km a step round the
// same places, at radii from 0 to 300 km, on both backends. Along must
// report exactly the fences fenceAlongOracle says come within the
// radius, either answer for those it grazes; enough of both answers
// must occur; expired fences are never reported.
func TestFencesAlong(t *testing.T) {
	r := rand.New(rand.NewPCG(91, 92))
	near, fences := hotFences(r, 30)
	// Lines start at the places the fences are round, or within some
	// tens of kilometres of a fence's own.
	start := func() Point {
		if r.IntN(2) == 0 {
			return near[r.IntN(len(near))]
		}
		f := fences[r.IntN(len(fences))]
		lat, lon := fenceSamples(f, true)[0].Lat, fenceSamples(f, true)[0].Lon
		lat, lon = destination(lat, lon, r.ExpFloat64()*30_000, r.Float64()*2*math.Pi)
		return Point{Lat: lat, Lon: lon}
	}
	type ask struct {
		lines  orb.MultiLineString
		radius float64
	}
	asks := make([]ask, 300)
	verdicts := make([][]int, len(asks))
	count := map[int]int{}
	kinds := map[string]*[3]int{} // the count of each verdict by the fence's kind
	for i := range asks {
		c := start()
		lines := orb.MultiLineString{randomLine(r, c.Lat, c.Lon)}
		if r.IntN(4) == 0 {
			c := start()
			lines = append(lines, randomLine(r, c.Lat, c.Lon))
		}
		radius := 0.0
		if r.IntN(5) > 0 {
			radius = math.Exp(r.Float64() * math.Log(300_000))
		}
		asks[i] = ask{lines, radius}
		for _, f := range fences {
			v := fenceAlongOracle(f, lines, radius)
			verdicts[i] = append(verdicts[i], v)
			count[v]++
			kind := fenceKind(f)
			if kinds[kind] == nil {
				kinds[kind] = new([3]int)
			}
			kinds[kind][v]++
		}
	}
	t.Logf("%d pairs near, %d far, %d graze", count[through], count[misses], count[grazes])
	for kind, n := range kinds {
		t.Logf("%s: %d near, %d far, %d graze", kind, n[through], n[misses], n[grazes])
		if n[through] < 20 || n[misses] < 20 {
			t.Errorf("too few of one answer for %ss to mean much: %d near, %d far", kind, n[through], n[misses])
		}
	}
	stored := slices.Clone(fences)
	for i, p := range near[:2] {
		stored = append(stored, Fence{ID: fmt.Sprint("expired", i), Circle: &Circle{Lat: p.Lat, Lon: p.Lon, Radius: 5e6}, Expires: time.Now().Add(-time.Hour)})
	}
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		fs := NewFences("zones")
		if err := s.Update(func(tx keyspace.Tx) error { return fs.PutAll(tx, stored) }); err != nil {
			t.Fatal(err)
		}
		s.View(func(tx keyspace.Tx) error {
			for i, a := range asks {
				got, err := fs.Along(tx, a.lines, a.radius)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.IsSorted(got) {
					t.Fatalf("ask %d: not in order: %v", i, got)
				}
				for j, f := range fences {
					if v := verdicts[i][j]; v != grazes && slices.Contains(got, f.ID) != (v == through) {
						t.Fatalf("line %v, radius %v m, and fence %s (circle %+v, box %+v, sector %+v, polygon %v): Along says %v, the oracle %v",
							a.lines, a.radius, f.ID, f.Circle, f.Box, f.Sector, f.Polygon, !(v == through), v == through)
					}
				}
				for _, id := range got {
					if strings.HasPrefix(id, "expired") {
						t.Fatalf("ask %d: Along reports %s, which has expired", i, id)
					}
				}
			}
			return nil
		})
	})
}

// TestFencesNearPolygon: fences of every shape round the four places of
// hotFences, and polygons (stars, some with holes) round the same places
// at radii from 0 to 300 km, on both backends. NearPolygon must report
// exactly the fences that share a point with the polygon
// (intersectOracle) or come within the radius of its rings
// (fenceAlongOracle), either answer for those either grazes.
func TestFencesNearPolygon(t *testing.T) {
	r := rand.New(rand.NewPCG(95, 96))
	near, fences := hotFences(r, 30)
	type ask struct {
		poly   orb.Polygon
		radius float64
	}
	asks := make([]ask, 100)
	verdicts := make([][]int, len(asks))
	count := map[int]int{}
	for i := range asks {
		c := near[r.IntN(len(near))]
		if i%2 == 0 { // round a fence's own place
			c = fenceSamples(fences[r.IntN(len(fences))], true)[0]
		}
		poly := star(r, c.Lat, c.Lon, r.ExpFloat64(), i%3 == 0)
		radius := 0.0
		if i%4 > 0 {
			radius = math.Exp(r.Float64() * math.Log(300_000))
		}
		asks[i] = ask{poly, radius}
		var rings orb.MultiLineString
		for _, ring := range poly {
			rings = append(rings, orb.LineString(ring))
		}
		area := Fence{Polygon: poly}
		ac, aExtent := fenceExtent(area)
		for _, f := range fences {
			v := misses
			if fc, fExtent := fenceExtent(f); vincenty(ac.Lat, ac.Lon, fc.Lat, fc.Lon)-aExtent-fExtent <= 1e-3 {
				v = intersectOracle(area, f)
			}
			if v != through {
				switch w := fenceAlongOracle(f, rings, radius); {
				case w == through:
					v = through
				case w == grazes:
					v = grazes
				}
			}
			verdicts[i] = append(verdicts[i], v)
			count[v]++
		}
	}
	t.Logf("%d pairs near, %d far, %d graze", count[through], count[misses], count[grazes])
	if count[through] < 100 || count[misses] < 100 {
		t.Fatalf("too few of one answer to mean much: %d near, %d far", count[through], count[misses])
	}
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		fs := NewFences("zones")
		if err := s.Update(func(tx keyspace.Tx) error { return fs.PutAll(tx, fences) }); err != nil {
			t.Fatal(err)
		}
		s.View(func(tx keyspace.Tx) error {
			for i, a := range asks {
				got, err := fs.NearPolygon(tx, a.poly, a.radius)
				if err != nil {
					t.Fatal(err)
				}
				if a.radius == 0 {
					want, err := fs.Intersecting(tx, Fence{Polygon: a.poly})
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(got, want) {
						t.Fatalf("polygon %v at radius 0: %v, Intersecting %v", a.poly, got, want)
					}
				}
				for j, f := range fences {
					if v := verdicts[i][j]; v != grazes && slices.Contains(got, f.ID) != (v == through) {
						t.Fatalf("polygon %v, radius %v m, and fence %s (circle %+v, box %+v, sector %+v, polygon %v): NearPolygon says %v, the oracle %v",
							a.poly, a.radius, f.ID, f.Circle, f.Box, f.Sector, f.Polygon, !(v == through), v == through)
					}
				}
			}
			if _, err := fs.NearPolygon(tx, asks[0].poly, -1); !errors.Is(err, ErrBadQuery) {
				t.Errorf("radius -1: %v, want ErrBadQuery", err)
			}
			if _, err := fs.NearPolygon(tx, orb.Polygon{{{0, 0}, {1, 0}, {0, 0}}}, 10); !errors.Is(err, ErrBadPolygon) {
				t.Errorf("a ring of three positions: %v, want ErrBadPolygon", err)
			}
			return nil
		})
	})
}

// fenceKind names f's shape.
func fenceKind(f Fence) string {
	switch {
	case f.Circle != nil:
		return "circle"
	case f.Box != nil:
		return "box"
	case f.Sector != nil:
		return "sector"
	case f.Corridor != nil:
		return "corridor"
	}
	return "polygon"
}

// TestFencesAlongCases: cases the definition decides, each against what
// it implies: a route through a zone at radius 0 without a position in
// it, one that starts inside, one passing beside a zone just within and
// just beyond the radius, across ±180° and up to a pole.
func TestFencesAlongCases(t *testing.T) {
	degree := EarthRadius * math.Pi / 180 // metres in a degree of latitude
	fences := []Fence{
		{ID: "square", Polygon: squareRing(10, 10, 1, false)},                    // 9–11° N, 9–11° E
		{ID: "box", Box: &Box{MinLat: -1, MinLon: 179, MaxLat: 1, MaxLon: -179}}, // across ±180°
		{ID: "circle", Circle: &Circle{Lat: 30, Lon: 30, Radius: 10_000}},
		{ID: "cap", Box: &Box{MinLat: 89, MinLon: -180, MaxLat: 90, MaxLon: 180}},
		{ID: "slice", Box: &Box{MinLat: 80, MinLon: -150, MaxLat: 90, MaxLon: -120}}, // its top edge is the pole
		{ID: "wedge", Sector: &Sector{Lat: -30, Lon: -60, Radius: 50_000, From: 0, To: 90}},
	}
	line := func(pts ...[2]float64) orb.LineString {
		var ls orb.LineString
		for _, p := range pts {
			ls = append(ls, orb.Point{p[1], p[0]})
		}
		return ls
	}
	cases := []struct {
		name   string
		line   orb.Geometry
		radius float64
		want   []string
	}{
		{"through the square, no position in it", line([2]float64{10, 8}, [2]float64{10, 12}), 0, []string{"square"}},
		{"starts in the square", line([2]float64{10, 10}, [2]float64{10, 10.5}), 0, []string{"square"}},
		{"ends on its edge", line([2]float64{10, 8}, [2]float64{10, 9}), 0, []string{"square"}},
		{"beside the square, radius short", line([2]float64{12, 8}, [2]float64{12, 12}), degree - 10, nil},
		{"beside the square, radius long", line([2]float64{12, 8}, [2]float64{12, 12}), degree + 10, []string{"square"}},
		{"across ±180° through the box", line([2]float64{0, 178}, [2]float64{0, -178}), 0, []string{"box"}},
		{"along ±180° beside the box", line([2]float64{2.5, 179.5}, [2]float64{2.5, -179.5}), 1.4 * degree, nil},
		{"along ±180° reaching the box", line([2]float64{2.5, 179.5}, [2]float64{2.5, -179.5}), 1.6 * degree, []string{"box"}},
		// The meridian 0.3° west of the circle's centre passes it at
		// a hair less than the distance along the parallel (0.13 m).
		{"past the circle, short", line([2]float64{29, 29.7}, [2]float64{31, 29.7}), Distance(30, 30, 30, 29.7) - 10_010, nil},
		{"past the circle, long", line([2]float64{29, 29.7}, [2]float64{31, 29.7}), Distance(30, 30, 30, 29.7) - 9_990, []string{"circle"}},
		{"up to the pole", line([2]float64{88, 0}, [2]float64{90, 0}), 0, []string{"cap", "slice"}},
		// The pole is every longitude: a line reaching it at 176° meets
		// the slice of 150° to 120° W (FuzzFenceAlong found an oracle that
		// took it as the point at 176°).
		{"to the pole at another longitude", line([2]float64{89.5, 175}, [2]float64{90, 176}), 0, []string{"cap", "slice"}},
		{"near the pole", line([2]float64{88.5, 175}, [2]float64{88.5, 176}), 0, nil},
		{"along a parallel beside the cap", line([2]float64{88, 0}, [2]float64{88, 90}), degree - 100, nil},
		{"along a parallel reaching the cap", line([2]float64{88, 0}, [2]float64{88, 90}), degree + 100, []string{"cap"}},
		{"behind the wedge", line([2]float64{-30.1, -60.5}, [2]float64{-29.9, -60.5}), 0, nil},
		{"behind the wedge, short", line([2]float64{-30.1, -60.5}, [2]float64{-29.9, -60.5}), Distance(-30, -60, -30, -60.5) - 100, nil},
		{"behind the wedge, long", line([2]float64{-30.1, -60.5}, [2]float64{-29.9, -60.5}), Distance(-30, -60, -30, -60.5) + 100, []string{"wedge"}},
		{"two lines, the second through the circle", orb.MultiLineString{line([2]float64{50, 50}, [2]float64{51, 50}), line([2]float64{29, 30}, [2]float64{31, 30})}, 0, []string{"circle"}},
	}
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		fs := NewFences("zones")
		if err := s.Update(func(tx keyspace.Tx) error { return fs.PutAll(tx, fences) }); err != nil {
			t.Fatal(err)
		}
		s.View(func(tx keyspace.Tx) error {
			for _, c := range cases {
				got, err := fs.Along(tx, c.line, c.radius)
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				if !slices.Equal(got, c.want) {
					t.Errorf("%s: %v, want %v", c.name, got, c.want)
				}
			}
			// Bad lines and radii are refused, naming what was wrong.
			for _, c := range []struct {
				line   orb.Geometry
				radius float64
				says   string
			}{
				{line([2]float64{0, 0}), 10, "1 positions"},
				{line([2]float64{0, 0}, [2]float64{91, 0}), 10, "position 1"},
				{line([2]float64{0, 0}, [2]float64{1, 0}), -1, "radius -1"},
				{line([2]float64{0, 0}, [2]float64{1, 0}), math.NaN(), "radius NaN"},
				{orb.Point{0, 0}, 10, "Point"},
			} {
				_, err := fs.Along(tx, c.line, c.radius)
				if !errors.Is(err, ErrBadQuery) || !strings.Contains(err.Error(), c.says) {
					t.Errorf("line %v, radius %v: %v, want ErrBadQuery saying %q", c.line, c.radius, err, c.says)
				}
			}
			return nil
		})
	})
}

// FuzzFenceAlong: a random fence (circle, box, sector or polygon) round
// a fuzzed centre and a random line from a fuzzed start, at a fuzzed
// radius, tested with no store in between (corridor.reaches) against
// fenceAlongOracle; a polygon's stored rings too, in place and decoded.
func FuzzFenceAlong(f *testing.F) {
	f.Add(uint64(1), 10.0, 20.0, 10.0, 20.1, 100.0)
	f.Add(uint64(2), 89.9, 0.0, 89.0, 180.0, 0.0)
	f.Add(uint64(3), 0.0, 179.9, 0.5, -179.9, 5000.0)
	f.Add(uint64(4), -89.99, 50.0, -88.0, -130.0, 20000.0)
	f.Add(uint64(5), 45.0, 10.0, 45.2, 10.3, 1.0)
	f.Fuzz(func(t *testing.T, seed uint64, lat, lon, lineLat, lineLon, radius float64) {
		if validate(lat, lon) != nil || validate(lineLat, lineLon) != nil || !(radius >= 0 && radius <= 1e6) {
			return
		}
		r := rand.New(rand.NewPCG(seed, 5))
		fence := randomFence(r, "f", lat, lon)
		lines := orb.MultiLineString{randomLine(r, lineLat, lineLon)}
		reg, err := fence.region()
		if err != nil {
			t.Fatal(err)
		}
		c, err := newCorridor(lines, radius)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.reaches(shapeOf(reg))
		if err != nil {
			t.Fatal(err)
		}
		// A polygon's rings as stored, read in place, and in the earlier
		// form, decoded: the same answer.
		if pr, ok := reg.(polygonRegion); ok {
			for _, indexed := range []bool{true, false} {
				stored, err := c.reaches(shape{rings: appendPolygonForm(nil, pr, indexed)})
				if err != nil {
					t.Fatal(err)
				}
				if stored != got {
					t.Fatalf("line %v, radius %v m, and polygon %v: the stored rings (indexed %v) say %v, the region %v", lines, radius, fence.Polygon, indexed, stored, got)
				}
			}
		}
		if v := fenceAlongOracle(fence, lines, radius); v != grazes && got != (v == through) {
			t.Fatalf("line %v, radius %v m, and fence (circle %+v, box %+v, sector %+v, polygon %v): reaches says %v, the oracle %v",
				lines, radius, fence.Circle, fence.Box, fence.Sector, fence.Polygon, got, v == through)
		}
		if got && len(c.pieces) <= 10 {
			checkFirstReach(t, c, fence, shapeOf(reg), radius)
		}
	})
}

// checkFirstReach: where Passed puts the line's first point within
// radius of the fence (firstReach) lies within radius of it (a
// millimetre allowed, and distanceOracle's own tolerance), and no point
// of the line before it, of 16 a piece, lies surely within radius less a
// millimetre.
func checkFirstReach(t *testing.T, c *corridor, fence Fence, f shape, radius float64) {
	t.Helper()
	i, at := firstReach(c, f, radius)
	dist := func(pc path, t float64) (float64, float64) {
		lat, lon := pc.at(t)
		return distanceOracle(fence, Point{Lat: lat, Lon: wrap(lon)})
	}
	if d, tol := dist(c.pieces[i].path, at); d > radius+tol+1e-3 {
		t.Fatalf("fence %s, radius %v m: the first point within it, piece %d at %v, lies %v m from the fence", describeFence(fence), radius, i, at, d)
	}
	for j := 0; j <= i; j++ {
		for k := range 16 {
			u := float64(k) / 16
			if j == i && u >= at {
				break
			}
			if d, tol := dist(c.pieces[j].path, u); d+tol < radius-1e-3 {
				t.Fatalf("fence %s, radius %v m: piece %d at %v (%v m from it) comes before the first point within it, piece %d at %v", describeFence(fence), radius, j, u, d, i, at)
			}
		}
	}
}
