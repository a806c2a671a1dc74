package geo

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/paulmach/orb"
)

// corridorWithinOracle says whether the fence f lies within radius
// metres of lines, written apart from fence_corridor_within.go, on
// Vincenty distances to the lines (bruteLineDistance):
//
//   - misses when a point of f (its first points, its boundary, a
//     corridor's samples, or a grid over the disc fenceExtent puts round
//     it) lies surely farther than radius and a centimetre;
//   - through when f's boundary lies surely within radius less the
//     grid's step h (farthestOracle), and so does every point of the
//     grid that f holds: a point of f beyond radius would have a grid
//     point within h of it, in f (and itself beyond radius − h), or
//     outside f, with f's boundary crossed on the way (a point of it
//     beyond radius − h). A corridor fence is through when its line
//     lies surely within radius less its own radius;
//   - grazes otherwise: too near the edge for sampling to tell.
func corridorWithinOracle(lines orb.MultiLineString, radius float64, f Fence) int {
	const tol = 1e-2
	dist := func(lat, lon float64) (lo, hi float64) {
		return bruteLineDistance(lines, lat, lon, 1e-3, radius+1)
	}
	c, extent := fenceExtent(f)
	lo, hi := dist(c.Lat, c.Lon)
	switch {
	case hi+extent <= radius-tol:
		return through // all of f within extent of c
	case lo-extent > radius+tol:
		return misses
	}
	for _, p := range fenceSamples(f, true) {
		if lo, _ := dist(p.Lat, p.Lon); lo > radius+tol {
			return misses
		}
	}
	if k := f.Corridor; k != nil {
		var curves []oracleCurve
		for _, ls := range corridorLines(k.Line) {
			for i := 1; i < len(ls); i++ {
				at, length := oracleEdge(ls[i-1].Lat(), ls[i-1].Lon(), ls[i].Lat(), ls[i].Lon())
				curves = append(curves, oracleCurve{at, func(t0, t1 float64) float64 { return length(t0, t1) * (1 + 1e-9) }})
			}
		}
		v := farthestOracle(lines, curves, radius-k.Radius-tol, radius+tol)
		if v != grazes || k.Radius == 0 {
			return v // a line is its own boundary
		}
		if _, v := farthestSample(lines, corridorSamples(k, false), radius, radius+tol); v == misses {
			return misses
		}
		return grazes
	}
	const rings = 12
	h := extent / rings
	var grid []Point
	for i := range rings + 1 {
		d := h * float64(i)
		n := max(1, int(math.Ceil(2*math.Pi*d/h)))
		for k := range n {
			lat, lon := destination(c.Lat, c.Lon, d, 2*math.Pi*float64(k)/float64(n))
			if fenceHolds(f, lat, lon) {
				grid = append(grid, Point{Lat: lat, Lon: lon})
			}
		}
	}
	var curves []oracleCurve
	if ci := f.Circle; ci != nil {
		arc := 2 * math.Pi * math.Sin(ci.Radius/EarthRadius) * EarthRadius * (1 + 1e-9)
		curves = []oracleCurve{{
			at:     func(t float64) (float64, float64) { return towards(ci.Lat, ci.Lon, ci.Radius, 360*t) },
			length: func(t0, t1 float64) float64 { return (t1 - t0) * arc },
		}}
	} else {
		curves = boundaryCurves(f)
	}
	edge := farthestOracle(lines, curves, radius-h, radius+tol)
	if edge == misses {
		return misses
	}
	if _, v := farthestSample(lines, grid, radius-h, radius+tol); v != through {
		return v
	}
	return edge
}

// farthestSample measures points against lines: misses if one lies
// surely beyond witness, through if every one lies surely within limit,
// grazes otherwise; and the farthest's upper bound. A point no farther
// from the last one measured than limit less that one's upper bound is
// not measured (the distance from the lines changes by at most the
// distance moved).
func farthestSample(lines orb.MultiLineString, points []Point, limit, witness float64) (float64, int) {
	farthest, last, lastHi := 0.0, Point{}, math.Inf(1)
	for _, p := range points {
		if bound := lastHi + vincenty(last.Lat, last.Lon, p.Lat, p.Lon); bound <= limit {
			farthest = max(farthest, bound)
			continue
		}
		lo, hi := bruteLineDistance(lines, p.Lat, p.Lon, 1e-3, witness+1)
		if lo > witness {
			return hi, misses
		}
		farthest, last, lastHi = max(farthest, hi), p, hi
	}
	if farthest <= limit {
		return farthest, through
	}
	return farthest, grazes
}

// farthestOracle searches curves, each at(t) for t in [0, 1], for their
// farthest points from lines, by branch and bound on the triangle
// inequality: a piece of ground length ℓ between points at most a and b
// from the lines has none farther than (a + b + ℓ)/2. It returns misses
// when a point lies surely beyond witness, through when every piece
// lies surely within limit, and grazes when neither is proved: a piece
// whose bound lies between the two, or is still undecided at a
// millimetre or past 100,000 pieces.
func farthestOracle(lines orb.MultiLineString, curves []oracleCurve, limit, witness float64) int {
	verdict := through
	for _, cv := range curves {
		eval := func(t float64) (lo, hi float64) {
			lat, lon := cv.at(t)
			return bruteLineDistance(lines, lat, lon, 1e-3, witness+1)
		}
		type piece struct{ t0, t1, h0, h1 float64 }
		lo0, h0 := eval(0)
		lo1, h1 := eval(1)
		if max(lo0, lo1) > witness {
			return misses
		}
		stack := []piece{{0, 1, h0, h1}}
		for n := 0; len(stack) > 0; n++ {
			p := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			ℓ := cv.length(p.t0, p.t1)
			bound := (p.h0 + p.h1 + ℓ) / 2
			switch {
			case bound <= limit:
				continue
			case bound <= witness || ℓ < 1e-3 || n > 100_000:
				verdict = grazes
				continue
			}
			m := (p.t0 + p.t1) / 2
			lo, hm := eval(m)
			if lo > witness {
				return misses
			}
			stack = append(stack, piece{p.t0, m, p.h0, hm}, piece{m, p.t1, hm, p.h1})
		}
	}
	return verdict
}

// corridorArea is a corridor area for the tests: a random line round
// (lat, lon) (randomLine, its steps up to 300 km) or, one time in four,
// a closed loop round it (a square of 50 to 300 km a side, whose middle
// is a hole of the corridor when the radius is under half its side), at
// a radius from 1 to 100 km.
func corridorArea(r *rand.Rand, lat, lon float64) *Corridor {
	radius := math.Exp(math.Log(1_000) + r.Float64()*math.Log(100))
	if r.IntN(4) == 0 {
		side := 50_000 + r.Float64()*250_000
		var ls orb.LineString
		for _, b := range []float64{45, 135, 225, 315, 45} {
			plat, plon := towards(lat, lon, side/math.Sqrt2, b)
			ls = append(ls, orb.Point{plon, plat})
		}
		return &Corridor{Line: ls, Radius: min(radius, side/3)}
	}
	ls := orb.LineString{{lon, lat}}
	for range 1 + r.IntN(4) {
		step := math.Exp(math.Log(1_000) + r.Float64()*math.Log(300))
		lat, lon = destination(lat, lon, step, r.Float64()*2*math.Pi)
		ls = append(ls, orb.Point{lon, lat})
	}
	return &Corridor{Line: ls, Radius: radius}
}

// TestFenceWithinCorridor: corridor areas (routes and closed loops, at
// the poles, on ±180° and in Europe) and fences of every shape round
// points near their lines, on both backends. Within must report exactly
// the fences corridorWithinOracle finds within the corridor, either
// answer for those it grazes, be a part of Intersecting's answer and
// leave out expired fences; enough of both answers must occur for each
// kind of fence.
func TestFenceWithinCorridor(t *testing.T) {
	r := rand.New(rand.NewPCG(93, 94))
	hot := [][2]float64{{89.5, 0}, {0, 180}, {45, 10}, {-89.9, 100}}
	areas := make([]Fence, 60)
	var fences []Fence
	for i := range areas {
		h := hot[i%len(hot)]
		lat, lon := destination(h[0], h[1], r.Float64()*300_000, r.Float64()*2*math.Pi)
		k := corridorArea(r, lat, lon)
		areas[i] = Fence{Corridor: k}
		if ls := k.Line.(orb.LineString); ls[0] == ls[len(ls)-1] {
			// A loop: fences round its middle, their edges in the
			// loop's corridor and its hole inside them.
			side := vincenty(ls[0].Lat(), ls[0].Lon(), ls[1].Lat(), ls[1].Lon())
			for _, kind := range []int{0, 1, 2} {
				f := Fence{ID: fmt.Sprintf("f%03d", len(fences))}
				switch size := side * (0.95 + 0.1*r.Float64()); kind {
				case 0:
					f.Circle = &Circle{Lat: lat, Lon: lon, Radius: size / 2}
				case 1:
					f.Sector = &Sector{Lat: lat, Lon: lon, Radius: size / 2, From: 0, To: 350}
				case 2: // the loop's square shrunk, where it makes a polygon
					var ring orb.Ring
					for _, b := range []float64{45, 135, 225, 315, 45} {
						plat, plon := towards(lat, lon, size*0.9/math.Sqrt2, b)
						ring = append(ring, orb.Point{plon, plat})
					}
					f.Polygon = orb.Polygon{ring}
					if _, err := f.region(); err != nil || ring.Bound().Right()-ring.Bound().Left() > 180 {
						continue
					}
				}
				fences = append(fences, f)
			}
		}
		// Fences round points of the line, some within the radius of
		// it and most of a size like it.
		lines := corridorLines(k.Line)
		for range 6 {
			ls := lines[0]
			j := r.IntN(len(ls) - 1)
			at, _ := oracleEdge(ls[j].Lat(), ls[j].Lon(), ls[j+1].Lat(), ls[j+1].Lon())
			flat, flon := at(r.Float64())
			flat, flon = destination(flat, flon, r.Float64()*k.Radius, r.Float64()*2*math.Pi)
			f := smallFence(r, fmt.Sprintf("f%03d", len(fences)), flat, flon)
			shrinkFence(&f, k.Radius*math.Exp(r.Float64()*math.Log(30))/10)
			fences = append(fences, f)
		}
	}
	verdicts := make([][]int, len(areas))
	kinds := map[string]*[3]int{}
	for i, a := range areas {
		lines := corridorLines(a.Corridor.Line)
		for _, f := range fences {
			v := corridorWithinOracle(lines, a.Corridor.Radius, f)
			verdicts[i] = append(verdicts[i], v)
			kind := fenceKind(f)
			if kinds[kind] == nil {
				kinds[kind] = new([3]int)
			}
			kinds[kind][v]++
		}
	}
	for kind, n := range kinds {
		t.Logf("%s: %d within, %d not, %d graze", kind, n[through], n[misses], n[grazes])
		if n[through] < 10 || n[misses] < 50 {
			t.Errorf("too few of one answer for %ss to mean much: %d within, %d not", kind, n[through], n[misses])
		}
	}
	checkWithin(t, areas, fences, verdicts)
}

// shrinkFence scales the fence f, one of smallFence's, to about size
// metres across, about the point it was drawn round.
func shrinkFence(f *Fence, size float64) {
	deg := size / 111_000
	switch {
	case f.Circle != nil:
		f.Circle.Radius = size / 2
	case f.Sector != nil:
		f.Sector.Radius = size / 2
	case f.Box != nil:
		b := f.Box
		lat, lon := (b.MinLat+b.MaxLat)/2, b.MinLon
		*b = Box{MinLat: max(-90, lat-deg/2), MaxLat: min(90, lat+deg/2), MinLon: lon, MaxLon: wrap(lon + deg)}
	case f.Corridor != nil:
		f.Corridor.Radius = min(f.Corridor.Radius, size/4)
	}
}

// TestFenceWithinCorridorCases: corridor areas in the cases the
// definition decides, each by what it implies: boxes, circles and roads
// inside the radius or past it by 10 m, a circle touching the edge from
// inside, a box whose edge runs along it, the ground a loop encloses, a
// corridor held by two lines together though by neither alone, ±180°
// and a pole.
func TestFenceWithinCorridorCases(t *testing.T) {
	deg := func(metres float64) float64 { return metres / EarthRadius * 180 / math.Pi }
	equator := Fence{Corridor: &Corridor{Line: orb.LineString{{0, 0}, {2, 0}}, Radius: 50_000}}
	fences := []Fence{
		{ID: "box inside", Box: &Box{MinLat: -deg(40_000), MinLon: 0.5, MaxLat: deg(40_000), MaxLon: 1.5}},
		{ID: "box 10 m past", Box: &Box{MinLat: -deg(40_000), MinLon: 0.5, MaxLat: deg(50_010), MaxLon: 1.5}},
		{ID: "box along the edge", Box: &Box{MinLat: 0, MinLon: 0.5, MaxLat: deg(50_000), MaxLon: 1.5}},
		{ID: "circle touching", Circle: &Circle{Lat: deg(20_000), Lon: 1, Radius: 30_000}},
		{ID: "circle 10 m past", Circle: &Circle{Lat: deg(20_000), Lon: 1, Radius: 30_010}},
		{ID: "circle round the end", Circle: &Circle{Lat: 0, Lon: 2, Radius: 50_000}},
		{ID: "circle past the end", Circle: &Circle{Lat: 0, Lon: 2, Radius: 50_010}},
		{ID: "narrower corridor", Corridor: &Corridor{Line: orb.LineString{{0, 0}, {2, 0}}, Radius: 30_000}},
		{ID: "the same corridor", Corridor: &Corridor{Line: orb.LineString{{0, 0}, {2, 0}}, Radius: 50_000}},
		{ID: "wider corridor", Corridor: &Corridor{Line: orb.LineString{{0, 0}, {2, 0}}, Radius: 50_010}},
		{ID: "road inside", Corridor: &Corridor{Line: orb.LineString{{0.5, deg(45_000)}, {1.5, deg(45_000)}}}},
		{ID: "road leaving", Corridor: &Corridor{Line: orb.LineString{{0.5, deg(45_000)}, {1.5, deg(55_000)}}}},
	}
	for _, c := range []struct {
		name string
		area Fence
		want []string
	}{
		{"along the equator", equator, []string{"box along the edge", "box inside", "circle round the end", "circle touching", "narrower corridor", "road inside", "the same corridor"}},
	} {
		askCase(t, fences, c.name, c.area, c.want, (*Fences).Within)
	}
	// A loop of 2° round (30, 30), 40 km wide: its middle is a hole.
	loop := Fence{Corridor: &Corridor{Line: orb.LineString{{29, 29}, {31, 29}, {31, 31}, {29, 31}, {29, 29}}, Radius: 40_000}}
	// Two lines 60 km apart, 40 km wide: between them every point is
	// within 30 km of one or the other.
	twin := Fence{Corridor: &Corridor{Line: orb.MultiLineString{{{10, 0}, {12, 0}}, {{10, deg(60_000)}, {12, deg(60_000)}}}, Radius: 40_000}}
	dateline := Fence{Corridor: &Corridor{Line: orb.LineString{{179, 10}, {-179, 10}}, Radius: 20_000}}
	polar := Fence{Corridor: &Corridor{Line: orb.LineString{{0, 89}, {0, 90}}, Radius: 20_000}}
	fences = []Fence{
		{ID: "loop's middle", Circle: &Circle{Lat: 30, Lon: 30, Radius: 100_000}},
		{ID: "loop's side", Circle: &Circle{Lat: 29, Lon: 30, Radius: 30_000}},
		{ID: "loop's inside", Polygon: squareRing(30, 30, 0.9, false)},
		{ID: "between the twins", Corridor: &Corridor{Line: orb.LineString{{10.5, deg(30_000)}, {11.5, deg(30_000)}}, Radius: 25_000}},
		{ID: "past the twins", Corridor: &Corridor{Line: orb.LineString{{10.5, deg(30_000)}, {11.5, deg(30_000)}}, Radius: 75_000}},
		{ID: "box over ±180°", Box: &Box{MinLat: 10 - deg(10_000), MinLon: 179.5, MaxLat: 10 + deg(10_000), MaxLon: -179.5}},
		{ID: "road over ±180°", Corridor: &Corridor{Line: orb.LineString{{179.5, 10}, {-179.5, 10}}}},
		{ID: "route over ±180°", Corridor: &Corridor{Line: orb.LineString{{179.5, 10}, {-179.5, 10}}, Radius: 15_000}},
		{ID: "box past it", Box: &Box{MinLat: 10 - deg(10_000), MinLon: 179.5, MaxLat: 10 + deg(25_000), MaxLon: -179.5}},
		{ID: "pole's circle", Circle: &Circle{Lat: 90, Lon: 0, Radius: 15_000}},
		{ID: "wider pole's circle", Circle: &Circle{Lat: 90, Lon: 0, Radius: 25_000}},
	}
	for _, c := range []struct {
		name string
		area Fence
		want []string
	}{
		{"a loop", loop, []string{"loop's side"}},
		{"twin lines", twin, []string{"between the twins"}},
		{"across ±180°", dateline, []string{"box over ±180°", "road over ±180°", "route over ±180°"}},
		{"to the pole", polar, []string{"pole's circle"}},
	} {
		askCase(t, fences, c.name, c.area, c.want, (*Fences).Within)
	}
}
