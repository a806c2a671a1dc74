package geo

import "math"

// A corridor as Within's area: the fences that lie wholly within a
// distance of a line ("which delivery zones does this route serve
// end to end, every address within 2 km of it?", "which parcels lie
// inside the pipeline's 50 m easement?").
//
// A region F lies within the corridor K of radius R about the line L
// when no point of F is farther than R from L. The distance from L is
// not convex (a ring road's middle is farther from it than the road's
// own ground), so F's farthest point from L need not lie on F's
// boundary, and the test has two parts:
//
//  1. F's boundary lies in K. Each boundary curve (a box's or polygon's
//     edges, a sector's sides and arc, a circle's edge, a line fence's
//     own pieces) is searched for its farthest point from L by branch
//     and bound on the triangle inequality, as reachesCurve searches for
//     the nearest (fence_along.go): the distance changes along the curve
//     by at most the ground covered, so on a piece of ground length ℓ
//     between points at distances a and b from L no point is farther
//     than (a + b + ℓ)/2. A piece whose bound is within R is dropped, the
//     others halved, farther half first, until a point beyond R is found
//     (F is not within) or none is left.
//  2. No ground beyond R that K encloses lies inside F. If ∂F ⊂ K and a
//     point y of F lay outside K, the part of the outside of K holding y
//     could not reach F's outside (it would cross ∂F on the way, outside
//     K), so a whole hole of K, ground the line surrounds farther than R
//     from it, would lie in F. Such ground is searched for by branch and
//     bound over cells of F's bounding box (holdsArea): a cell outside F,
//     or inside K (corridor.classify), is dropped; a cell inside F and
//     outside K, or whose centre F holds and K does not, is a witness;
//     the others are split in four, breadth first.
//
// A corridor fence F of radius ρ about a line M lies within K when every
// point of M lies within R − ρ of L (enough, by the triangle
// inequality, and the usual case, decided by part 1 on M's pieces);
// otherwise its boundary, the ground at exactly ρ from M, is no curve
// with a known speed, and part 2 alone decides, over F's whole area.
//
// A fence within withinTolerance of lying within counts as within, as
// for every area: the search is of the corridor widened by it. A piece
// of boundary not proved either way at alongFloor (a millimetre) counts
// as held, within half a millimetre beyond the tolerance; so does the
// rest of a curve once alongBudget pieces of it have been tested, which
// takes a boundary running alongside K's edge, ε inside it, for more
// than 2ε·alongBudget (131 km at ε = 1 m), as for Along. Part 2 stops
// at cells of a millimetre and after corridorAreaCells cells, counting
// what is left as held: holes nearer F's boundary than the cells then
// reached can be missed, which takes K's edge to run alongside F's
// boundary for thousands of cells.

// corridorAreaCells bounds the cells holdsArea tests for one fence.
const corridorAreaCells = 1 << 12

// holdsShape reports whether every point of f lies within c's radius of
// its line, withinTolerance allowed (see the top of this file).
func (c *corridor) holdsShape(f shape) (bool, error) {
	if f.rings != nil {
		// Decoded, and built whole: decodePolygon leaves out the box and
		// the edges that classify needs.
		pr, err := decodePolygon(f.rings)
		if err == nil {
			pr, err = storedPolygonRegion(pr.mp)
		}
		if err != nil {
			return false, err
		}
		f = shapeOf(pr)
	}
	wide := c.withRadius(c.radius + withinTolerance)
	if lat, lon := somePoint(f); !wide.contains(lat, lon) {
		return false, nil // most fences that are not within end here
	}
	if k := f.corr; k != nil {
		if wide.radius >= k.radius && wide.withRadius(wide.radius-k.radius).holdsLine(k) {
			return true, nil
		}
		if k.radius == 0 {
			return false, nil // a line is its own boundary
		}
		return wide.holdsArea(f), nil
	}
	if f.circle != nil && wide.distance(f.circle.lat, f.circle.lon, math.Inf(1))+f.circle.radius <= wide.radius {
		return true, nil // the circle's centre deep enough inside
	}
	for _, b := range shapeBoundary(f) {
		if !wide.holdsCurve(b.at, b.length, b.lo, b.hi) {
			return false, nil
		}
	}
	return wide.holdsArea(f), nil
}

// holdsLine reports whether every point of k's line lies within c.
func (c *corridor) holdsLine(k *corridor) bool {
	for i := range k.pieces {
		p := &k.pieces[i].path
		if !c.holdsCurve(p.at, p.groundLength, 0, 1) {
			return false
		}
	}
	return true
}

// somePoint is a point of the shape f: a circle's or a sector's centre,
// a box's corner, a polygon's first vertex, a corridor's first position.
func somePoint(f shape) (lat, lon float64) {
	switch {
	case f.circle != nil:
		return f.circle.lat, f.circle.lon
	case f.sector != nil:
		return f.sector.circle.lat, f.sector.circle.lon
	case f.box != nil:
		return f.box.minLat, f.box.lons()[0][0]
	case f.corr != nil:
		return f.corr.lat0, f.corr.lon0
	}
	p := f.poly.mp[0][0][0]
	return p.Lat(), p.Lon()
}

// A boundaryCurve is a curve at(t), lo ≤ t ≤ hi, with length(t0, t1) an
// upper bound on its ground length between t0 and t1.
type boundaryCurve struct {
	at     func(t float64) (lat, lon float64)
	length func(t0, t1 float64) float64
	lo, hi float64
}

// shapeBoundary returns the boundary of f, a circle, a box, a polygon
// or a sector, as curves: a box's or polygon's edges, a sector's sides
// and arc, a circle's edge (none for a circle that is the whole sphere).
func shapeBoundary(f shape) []boundaryCurve {
	var out []boundaryCurve
	switch {
	case f.sector != nil:
		for _, cv := range f.sector.curves() {
			out = append(out, boundaryCurve{cv.at, cv.groundLength, cv.lo, cv.hi})
		}
	case f.circle != nil:
		if cv, ok := circleEdge(f.circle); ok {
			out = append(out, boundaryCurve{cv.at, cv.groundLength, cv.lo, cv.hi})
		}
	default:
		for _, e := range f.edges() {
			out = append(out, boundaryCurve{e.at, e.groundLength, 0, 1})
		}
	}
	return out
}

// circleEdge is the edge of the circle c as a curve: the points
// cos θ·A + sin θ·(cos x·N + sin x·E) for x from 0 to 2π, A the centre
// and N and E the unit vectors north and east there (the arc of a sector
// of every bearing, sectorFrame.curves). ok is false when c is the whole
// sphere, which has no edge.
func circleEdge(c *circle) (cv curve, ok bool) {
	if c.θ >= math.Pi {
		return cv, false
	}
	a := unitVector(c.lat, c.lon)
	east, north := eastNorth(c.centre.sinφ, c.centre.cosφ, c.lon)
	sθ, cθ := math.Sincos(c.θ)
	cv.hi = 2 * math.Pi
	for i := range 3 {
		cv.k[i], cv.u[i], cv.v[i] = cθ*a[i], sθ*north[i], sθ*east[i]
	}
	return cv, true
}

// holdsCurve reports whether every point of a curve, at(t) for t from lo
// to hi, lies within c's radius of its line, by the branch and bound at
// the top of this file; length(t0, t1) bounds the ground length of the
// curve between t0 and t1.
func (c *corridor) holdsCurve(at func(t float64) (lat, lon float64), length func(t0, t1 float64) float64, lo, hi float64) bool {
	// Distances beyond the reach are +Inf: such a point is a witness. A
	// corridor's piece may run past ±180°: its points are wrapped back.
	dist := func(t float64) float64 {
		lat, lon := at(t)
		return c.distance(lat, wrap(lon), c.reach)
	}
	type piece struct{ t0, t1, d0, d1 float64 }
	d0, d1 := dist(lo), dist(hi)
	if d0 > c.reach || d1 > c.reach {
		return false
	}
	stack := []piece{{lo, hi, d0, d1}}
	for tested := 0; len(stack) > 0; tested++ {
		pc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		ℓ := length(pc.t0, pc.t1)
		switch {
		case (pc.d0+pc.d1+ℓ)/2 <= c.radius:
			continue
		case ℓ <= alongFloor || pc.t1-pc.t0 <= 1e-15:
			continue // within half a millimetre of the radius: counts
		case tested >= alongBudget:
			return true // the rest counts
		}
		m := (pc.t0 + pc.t1) / 2
		dm := dist(m)
		if dm > c.reach {
			return false
		}
		near, far := piece{pc.t0, m, pc.d0, dm}, piece{m, pc.t1, dm, pc.d1}
		if pc.d1 < pc.d0 {
			near, far = far, near
		}
		stack = append(stack, near, far) // the farther half first
	}
	return true
}

// holdsArea reports whether no ground inside f lies beyond c's radius of
// its line, by the breadth-first search over cells of f's bounding box
// at the top of this file.
func (c *corridor) holdsArea(f shape) bool {
	var cells []rect
	b := f.reg.boundingBox()
	for _, iv := range b.lonIntervals() {
		// Cells of at most 90° of longitude: the corridor's classify
		// bounds a cell by a circle round its centre.
		n := max(1, int(math.Ceil((iv[1]-iv[0])/90)))
		w := (iv[1] - iv[0]) / float64(n)
		for i := range n {
			cells = append(cells, rect{MinLat: b.MinLat, MaxLat: b.MaxLat, MinLon: iv[0] + float64(i)*w, MaxLon: iv[0] + float64(i+1)*w})
		}
	}
	for tested := 0; tested < len(cells); tested++ {
		if tested >= corridorAreaCells {
			return true // the rest counts
		}
		r := cells[tested]
		fOut, fIn := f.reg.classify(r)
		if fOut {
			continue
		}
		kOut, kIn := c.classify(r)
		switch {
		case kIn:
			continue
		case kOut && fIn:
			return false
		}
		lat, lon := (r.MinLat+r.MaxLat)/2, (r.MinLon+r.MaxLon)/2
		if f.reg.contains(lat, lon) && !c.contains(lat, lon) {
			return false
		}
		if max(Distance(r.MinLat, r.MinLon, r.MaxLat, r.MaxLon), Distance(r.MinLat, r.MaxLon, r.MaxLat, r.MinLon)) <= alongFloor {
			continue
		}
		cells = append(cells,
			rect{MinLat: r.MinLat, MaxLat: lat, MinLon: r.MinLon, MaxLon: lon},
			rect{MinLat: r.MinLat, MaxLat: lat, MinLon: lon, MaxLon: r.MaxLon},
			rect{MinLat: lat, MaxLat: r.MaxLat, MinLon: r.MinLon, MaxLon: lon},
			rect{MinLat: lat, MaxLat: r.MaxLat, MinLon: lon, MaxLon: r.MaxLon})
	}
	return true
}
