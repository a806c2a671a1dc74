package geo

import (
	"math"

	"github.com/paulmach/orb"
)

// A path is the way a point is taken to have gone between two places it
// was seen at: the straight line in longitude and latitude, as GeoJSON
// draws a LineString (RFC 7946) and as polygon edges are drawn here, the
// shorter way round in longitude (across ±180° when that is shorter,
// eastward when both ways are 180°). Fences.Crossings reports a fence the
// path passes through, though neither end lies in it, as Cross (Tile38's
// "cross" detection).
//
// The line is kept unwrapped: lon1 is lon0 + Δλ with |Δλ| ≤ 180, so it
// may lie past ±180, and the point at t ∈ [0, 1] is
//
//	(lat0 + t·(lat1 − lat0), lon0 + t·(lon1 − lon0)).
//
// A rectangle, box or edge given in [−180, 180] is met by the path when
// it, or its copy shifted by ±360°, is met by that line.
type path struct {
	lat0, lon0, lat1, lon1 float64
}

// newPath returns the path from a to b.
func newPath(a, b Point) path {
	d := b.Lon - a.Lon // in [-360, 360]
	switch {
	case d > 180:
		d -= 360
	case d <= -180:
		d += 360 // -180 becomes 180: eastward
	}
	return path{lat0: a.Lat, lon0: a.Lon, lat1: b.Lat, lon1: a.Lon + d}
}

// at returns the point of the path at t, its longitude unwrapped: the
// path's ends themselves at 0 and 1. (The form a + t·(b − a) misses b by
// rounding: from 33.74999999999999° to −45° it ends at
// −45.00000000000001°, a cell south of the path's end; FuzzPathCovering
// found it.) Each coordinate is held between the ends' own: rounding
// took a path along latitude −56.25°, a cell's edge, to
// −56.25000000000001° a third of the way, in the cell south of it, which
// the covering does not hold (FuzzPathCovering again).
func (p path) at(t float64) (lat, lon float64) {
	lat = min(max((1-t)*p.lat0+t*p.lat1, min(p.lat0, p.lat1)), max(p.lat0, p.lat1))
	lon = min(max((1-t)*p.lon0+t*p.lon1, min(p.lon0, p.lon1)), max(p.lon0, p.lon1))
	return lat, lon
}

// shifts returns the copies of the world, shifted by a multiple of 360°,
// that the path's unwrapped longitudes reach (|lon0| ≤ 180 and
// |lon1 − lon0| ≤ 180, so at most two): a longitude in [−180, 180]
// shifted by −360 meets the path only if the path reaches −180, by 360
// only if it reaches 180.
func (p path) shifts() []float64 {
	lo, hi := min(p.lon0, p.lon1), max(p.lon0, p.lon1)
	switch {
	case lo <= -180:
		return []float64{0, -360}
	case hi >= 180:
		return []float64{0, 360}
	}
	return []float64{0}
}

// meetsRect reports whether the path meets the rectangle [minLat, maxLat]
// × [minLon, maxLon] (unwrapped longitudes, edges included). It clips the
// line to the rectangle (Liang–Barsky): each of the four edges bounds the
// parameter t of the points on the rectangle's side of it, from below
// where the line enters that side, from above where it leaves, and the
// path meets the rectangle when the bounds leave some t in [0, 1].
func (p path) meetsRect(minLat, maxLat, minLon, maxLon float64) bool {
	dLon, dLat := p.lon1-p.lon0, p.lat1-p.lat0
	t0, t1 := 0.0, 1.0
	for _, e := range [4][2]float64{
		{-dLon, p.lon0 - minLon}, {dLon, maxLon - p.lon0},
		{-dLat, p.lat0 - minLat}, {dLat, maxLat - p.lat0},
	} {
		// The side of this edge is e[0]·t ≤ e[1].
		switch {
		case e[0] == 0:
			if e[1] < 0 {
				return false // parallel to the edge, on its far side
			}
		case e[0] < 0:
			t0 = max(t0, e[1]/e[0])
		default:
			t1 = min(t1, e[1]/e[0])
		}
		if t0 > t1 {
			return false
		}
	}
	return true
}

// meetsBox reports whether the path meets the box (edges included).
func (p path) meetsBox(b *boxRegion) bool {
	for _, iv := range b.lons() {
		for _, s := range p.shifts() {
			if p.meetsRect(b.minLat, b.maxLat, iv[0]+s, iv[1]+s) {
				return true
			}
		}
	}
	return false
}

// meetsPolygon reports whether the path meets an edge of any ring of the
// polygon. With both ends of the path outside the polygon (boundary
// included), that is whether it passes through it: a line leaving the
// outside must cross the boundary to reach the inside. It reads the
// rings (pr.mp), which a polygon decoded from its stored rings has, and
// not pr.edges, which only a polygon built for classifying cells has.
func (p path) meetsPolygon(pr *polygonRegion) bool {
	lo := orb.Point{min(p.lon0, p.lon1), min(p.lat0, p.lat1)}
	hi := orb.Point{max(p.lon0, p.lon1), max(p.lat0, p.lat1)}
	a, b := orb.Point{p.lon0, p.lat0}, orb.Point{p.lon1, p.lat1}
	for _, s := range p.shifts() {
		for _, poly := range pr.mp {
			for _, ring := range poly {
				for i := 1; i < len(ring); i++ {
					c, d := orb.Point{ring[i-1][0] + s, ring[i-1][1]}, orb.Point{ring[i][0] + s, ring[i][1]}
					if max(c[0], d[0]) < lo[0] || min(c[0], d[0]) > hi[0] || max(c[1], d[1]) < lo[1] || min(c[1], d[1]) > hi[1] {
						continue // their boxes are apart
					}
					if segmentsMeet(a, b, c, d) { // polygon.go
						return true
					}
				}
			}
		}
	}
	return false
}

// closest returns the point of the path nearest (cLat, cLon) on the
// sphere, and its distance in metres. The haversine of the distance from
// the centre to the point at t,
//
//	h(t) = sin²(Δφ(t)/2) + cos φc · cos φ(t) · sin²(Δλ(t)/2),
//
// has no closed-form minimum over a line in latitude and longitude, so it
// is sampled at pathSamples + 1 evenly spaced t (pathSamplesShort + 1 on
// a path of up to 100 km) and the lowest sample is refined by
// golden-section search over the samples either side of it, to about
// 1e-15 of the path: on a path of up to a few hundred kilometres h has
// one minimum, and the refined point is within 20 nm of it even on a
// path half round the world. (To 1e-10, 2 mm on such a path, a move from
// pole to pole missed a circle fence of 0.16 mm round a point it passed
// through; FuzzFencesAgainstBruteForce found it. The search is bounded
// in steps too, as near t = 1 the last steps are a few units in the last
// place.)
func (p path) closest(cLat, cLon float64) (lat, lon, metres float64) {
	t := p.closestAt(cLat, cLon)
	lat, lon = p.at(t)
	lon = wrap(lon)
	return lat, lon, Distance(cLat, cLon, lat, lon)
}

// closestAt is where along the path, as t, closest finds its point
// nearest (cLat, cLon).
func (p path) closestAt(cLat, cLon float64) float64 {
	o := newOrigin(cLat, cLon)
	h := func(t float64) float64 {
		lat, lon := p.at(t)
		return o.hav(rad(lat), rad(lon))
	}
	n := pathSamples
	if p.length() <= 100_000 {
		n = pathSamplesShort
	}
	best, bestH := 0.0, math.Inf(1)
	for i := range n + 1 {
		t := float64(i) / float64(n)
		if v := h(t); v < bestH {
			best, bestH = t, v
		}
	}
	// Golden-section search of [a, b] for the minimum of h.
	a, b, _, _ := goldenSection(h, max(0, best-1/float64(n)), min(1, best+1/float64(n)), func(a, b float64) bool { return b-a > 1e-15 })
	if t := (a + b) / 2; h(t) < bestH {
		best = t
	}
	return best
}

// distanceTo is the distance in metres from (lat, lon) to the nearest
// point of the path, as closest measures it: by distanceFrom's parabolic
// steps on a path of up to pieceMetres, whose distance from a point has
// one minimum (the corridor's pieces are cut to that length for it), and
// by closest on a longer one.
func (p path) distanceTo(lat, lon float64) float64 {
	if p.length() <= pieceMetres {
		return p.distanceFrom(newOrigin(lat, lon))
	}
	_, _, d := p.closest(lat, lon)
	return d
}

// goldenSection narrows [a, b] about a minimum of h by golden section
// while more(a, b) holds, for at most goldenSteps steps, and returns the
// last bracket and the better of its two inner points, x, with h(x).
// Each step keeps the part of the bracket on the lower inner point's
// side and probes one new point: the old inner point that remains divides
// the new bracket in the golden ratio too.
func goldenSection(h func(float64) float64, a, b float64, more func(a, b float64) bool) (aOut, bOut, x, hx float64) {
	const φ = 0.6180339887498949 // (√5 − 1)/2
	x1, x2 := b-φ*(b-a), a+φ*(b-a)
	h1, h2 := h(x1), h(x2)
	for step := 0; more(a, b) && step < goldenSteps; step++ {
		if h1 <= h2 {
			b, x2, h2 = x2, x1, h1
			x1 = b - φ*(b-a)
			h1 = h(x1)
		} else {
			a, x1, h1 = x1, x2, h2
			x2 = a + φ*(b-a)
			h2 = h(x2)
		}
	}
	if h2 < h1 {
		return a, b, x2, h2
	}
	return a, b, x1, h1
}

// goldenSteps bounds goldenSection (for closest: 0.618⁸⁰ of the
// widest bracket, 2/16 of the path, is under 1e-17).
const goldenSteps = 80

// pathSamples is how many pieces closest samples a path in, and
// pathSamplesShort a path of up to 100 km.
const (
	pathSamples      = 64
	pathSamplesShort = 16
)

// length is an upper bound on the path's length on the ground, in
// metres: its length in degrees, each taken as long as a degree of
// latitude (a degree of longitude is never longer).
func (p path) length() float64 {
	return math.Hypot(p.lat1-p.lat0, p.lon1-p.lon0) * math.Pi / 180 * EarthRadius
}

// meetsCircle reports whether the path comes within radius metres of
// (lat, lon), as a circle's contains measures it. A circle farther from
// the path's start than the path is long, plus its radius, is missed
// without a search.
func (p path) meetsCircle(lat, lon, radius float64) bool {
	if Distance(lat, lon, p.lat0, p.lon0) > radius+p.length()+1e-3 {
		return false
	}
	_, _, d := p.closest(lat, lon)
	return d <= radius
}

// The path as a region, for the covering of the cells it passes through:
// a cell is outside when the path misses its rectangle (grown by a hair,
// so that rounding errs towards keeping it), and never inside, as a line
// holds no area.

func (p path) classify(r rect) (outside, inside bool) {
	const m = 1e-9
	for _, s := range p.shifts() {
		if p.meetsRect(r.MinLat-m, r.MaxLat+m, r.MinLon+s-m, r.MaxLon+s+m) {
			return false, false
		}
	}
	return true, false
}

func (p path) contains(lat, lon float64) bool { return false }

// rect is the path's box in longitude and latitude as it is drawn,
// its longitudes unwrapped: the least rectangle that holds its straight
// line, which no point of the path is nearer to a point than.
func (p path) rect() rect {
	return rect{MinLat: min(p.lat0, p.lat1), MaxLat: max(p.lat0, p.lat1), MinLon: min(p.lon0, p.lon1), MaxLon: max(p.lon0, p.lon1)}
}

func (p path) boundingBox() Box {
	// Across ±180°, wrapping leaves MinLon > MaxLon, as a Box crossing
	// it has.
	lo, hi := min(p.lon0, p.lon1), max(p.lon0, p.lon1)
	return Box{MinLat: min(p.lat0, p.lat1), MaxLat: max(p.lat0, p.lat1), MinLon: wrap(lo), MaxLon: wrap(hi)}
}
