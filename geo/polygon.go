package geo

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"
)

// polygonRegion is a polygon or multipolygon in GeoJSON's sense (RFC 7946):
// rings of [lon, lat] positions joined by straight lines in longitude and
// latitude, the first ring the outer boundary and the rest holes, boundary
// included. Point tests are orb's ray casting (planar.MultiPolygonContains),
// with each ring's bounding box found once (ringContains).
//
// A cell is classified by the polygon's edges: if no edge meets the cell's
// rectangle (grown by a hair, so that rounding errs towards "crossing"),
// the rectangle lies wholly on one side of the boundary and its centre
// tells which. Otherwise the cell crosses the boundary.
type polygonRegion struct {
	mp     orb.MultiPolygon
	bound  orb.Bound
	bounds [][]orb.Bound // each ring's bounding box, by polygon and ring
	edges  []edge
}

type edge struct{ a, b orb.Point }

// edgeMargin widens a cell before it is tested against the polygon's
// edges: about 0.1 mm, far above float rounding of degrees.
const edgeMargin = 1e-9

func newPolygonRegion(g orb.Geometry) (polygonRegion, error) {
	var mp orb.MultiPolygon
	switch g := g.(type) {
	case orb.Polygon:
		mp = orb.MultiPolygon{g}
	case orb.MultiPolygon:
		mp = g
	case nil:
		return polygonRegion{}, fmt.Errorf("%w: no polygon given", ErrBadPolygon)
	default:
		return polygonRegion{}, fmt.Errorf("%w: a %s is not a Polygon or MultiPolygon", ErrBadPolygon, g.GeoJSONType())
	}
	if len(mp) == 0 {
		return polygonRegion{}, fmt.Errorf("%w: empty multipolygon", ErrBadPolygon)
	}
	pr := polygonRegion{mp: mp}
	positions := 0
	for _, poly := range mp {
		for _, ring := range poly {
			positions += len(ring)
		}
	}
	pr.edges = make([]edge, 0, positions)
	for pi, poly := range mp {
		if len(poly) == 0 {
			return polygonRegion{}, fmt.Errorf("%w: polygon %d has no rings", ErrBadPolygon, pi)
		}
		pr.bounds = append(pr.bounds, make([]orb.Bound, len(poly)))
		for ri, ring := range poly {
			pr.bounds[pi][ri] = ring.Bound()
			where := func() string { return fmt.Sprintf("polygon %d ring %d", pi, ri) }
			if len(ring) < 4 {
				return polygonRegion{}, fmt.Errorf("%w: %s has %d positions; a closed ring needs at least 4", ErrBadPolygon, where(), len(ring))
			}
			if !ring.Closed() {
				return polygonRegion{}, fmt.Errorf("%w: %s is not closed: it starts at %v and ends at %v", ErrBadPolygon, where(), ring[0], ring[len(ring)-1])
			}
			for i, p := range ring {
				if err := validate(p.Lat(), p.Lon()); err != nil {
					return polygonRegion{}, fmt.Errorf("%w: %s position %d: %w", ErrBadPolygon, where(), i, err)
				}
			}
			if n := distinctUpTo3(ring); n < 3 {
				return polygonRegion{}, fmt.Errorf("%w: %s has %d distinct positions; a ring needs 3", ErrBadPolygon, where(), n)
			}
			for i := 0; i+1 < len(ring); i++ {
				if ring[i] != ring[i+1] { // repeated positions are harmless
					pr.edges = append(pr.edges, edge{ring[i], ring[i+1]})
				}
			}
		}
	}
	pr.bound = pr.bounds[0][0] // the outer rings' boxes hold the holes'
	for _, b := range pr.bounds[1:] {
		pr.bound = pr.bound.Union(b[0])
	}
	if i, j, ok := crossingEdges(pr.edges); ok {
		return polygonRegion{}, fmt.Errorf("%w: edges %v–%v and %v–%v cross", ErrBadPolygon, pr.edges[i].a, pr.edges[i].b, pr.edges[j].a, pr.edges[j].b)
	}
	return pr, nil
}

// distinctUpTo3 counts the ring's distinct positions, up to 3: all a ring
// must have. (A map of them was most of the cost of checking a hexagon.)
func distinctUpTo3(ring orb.Ring) int {
	var seen [2]orb.Point
	n := 0
	for _, p := range ring {
		switch {
		case n > 0 && p == seen[0], n > 1 && p == seen[1]:
		case n == 2:
			return 3
		default:
			seen[n] = p
			n++
		}
	}
	return n
}

// contains is planar.MultiPolygonContains: in one of the polygons, which
// is in its outer ring and in none of its holes.
func (p polygonRegion) contains(lat, lon float64) bool {
	pt := orb.Point{lon, lat}
	for pi, poly := range p.mp {
		if !ringContains(poly[0], p.bounds[pi][0], pt) {
			continue
		}
		inHole := false
		for ri := 1; ri < len(poly) && !inHole; ri++ {
			inHole = ringContains(poly[ri], p.bounds[pi][ri], pt)
		}
		if !inHole {
			return true
		}
	}
	return false
}

// ringContains is planar.RingContains (orb v0.14.0, MIT licence) given the
// ring's bounding box b: the same ray casting, boundary included, without
// finding the box again for every point. orb's RingContains spends three
// quarters of its time on the box (Ring.Bound), which for a polygon
// query's candidates is always the same one. FuzzRingContains checks the
// two agree.
func ringContains(r orb.Ring, b orb.Bound, p orb.Point) bool {
	if !b.Contains(p) {
		return false
	}
	c, on := rayIntersect(p, r[0], r[len(r)-1])
	if on {
		return true
	}
	for i := 0; i < len(r)-1; i++ {
		inter, on := rayIntersect(p, r[i], r[i+1])
		if on {
			return true
		}
		if inter {
			c = !c
		}
	}
	return c
}

// rayIntersect is orb's (planar, unexported; from
// http://rosettacode.org/wiki/Ray-casting_algorithm#Go): whether a ray
// from p crosses the segment s–e, and whether p lies on it.
func rayIntersect(p, s, e orb.Point) (intersects, on bool) {
	if s[0] > e[0] {
		s, e = e, s
	}
	switch p[0] {
	case s[0]:
		if p[1] == s[1] {
			return false, true // p is s
		} else if s[0] == e[0] {
			// A vertical segment: p is on it if between its ends.
			if s[1] > e[1] && s[1] >= p[1] && p[1] >= e[1] {
				return false, true
			}
			if e[1] > s[1] && e[1] >= p[1] && p[1] >= s[1] {
				return false, true
			}
		}
		p[0] = math.Nextafter(p[0], math.Inf(1)) // off the vertex: the degenerate case
	case e[0]:
		if p[1] == e[1] {
			return false, true // p is e
		}
		p[0] = math.Nextafter(p[0], math.Inf(1))
	}
	if p[0] < s[0] || p[0] > e[0] {
		return false, false
	}
	if s[1] > e[1] {
		if p[1] > s[1] {
			return false, false
		} else if p[1] < e[1] {
			return true, false
		}
	} else {
		if p[1] > e[1] {
			return false, false
		} else if p[1] < s[1] {
			return true, false
		}
	}
	rs := (p[1] - s[1]) / (p[0] - s[0])
	ds := (e[1] - s[1]) / (e[0] - s[0])
	if rs == ds {
		return false, true
	}
	return rs <= ds, false
}

// boundingBox is the box of the polygons' vertices, which holds them:
// their edges are straight in longitude and latitude.
func (p polygonRegion) boundingBox() Box {
	return Box{MinLat: p.bound.Min[1], MinLon: p.bound.Min[0], MaxLat: p.bound.Max[1], MaxLon: p.bound.Max[0]}
}

func (p polygonRegion) classify(r rect) (outside, inside bool) {
	b := orb.Bound{
		Min: orb.Point{r.MinLon - edgeMargin, r.MinLat - edgeMargin},
		Max: orb.Point{r.MaxLon + edgeMargin, r.MaxLat + edgeMargin},
	}
	if !b.Intersects(p.bound) {
		return true, false
	}
	for _, e := range p.edges {
		if edgeMeetsBound(e, b) {
			return false, false
		}
	}
	in := p.contains((r.MinLat+r.MaxLat)/2, (r.MinLon+r.MaxLon)/2)
	return !in, in
}

// centre is the area-weighted centroid, the point results are measured from.
func (p polygonRegion) centre() (lat, lon float64) {
	c, _ := planar.CentroidArea(p.mp)
	return c.Lat(), c.Lon()
}

// edgeMeetsBound reports whether a segment touches a closed rectangle: an
// endpoint inside it, or a crossing of one of its sides.
func edgeMeetsBound(e edge, b orb.Bound) bool {
	if b.Contains(e.a) || b.Contains(e.b) {
		return true
	}
	if !b.Intersects(orb.Bound{Min: orb.Point{min(e.a[0], e.b[0]), min(e.a[1], e.b[1])},
		Max: orb.Point{max(e.a[0], e.b[0]), max(e.a[1], e.b[1])}}) {
		return false
	}
	c := [4]orb.Point{b.Min, {b.Max[0], b.Min[1]}, b.Max, {b.Min[0], b.Max[1]}}
	for i := range c {
		if segmentsMeet(e.a, e.b, c[i], c[(i+1)%4]) {
			return true
		}
	}
	return false
}

// orient is the sign of the cross product (b−a)×(c−a): positive when a, b,
// c turn counter-clockwise, zero when collinear.
func orient(a, b, c orb.Point) float64 {
	return (b[0]-a[0])*(c[1]-a[1]) - (b[1]-a[1])*(c[0]-a[0])
}

// onSegment reports whether c, collinear with a and b, lies between them.
func onSegment(a, b, c orb.Point) bool {
	return min(a[0], b[0]) <= c[0] && c[0] <= max(a[0], b[0]) &&
		min(a[1], b[1]) <= c[1] && c[1] <= max(a[1], b[1])
}

// segmentsMeet reports whether closed segments pq and rs share a point (the
// textbook orientation test).
func segmentsMeet(p, q, r, s orb.Point) bool {
	d1, d2 := orient(r, s, p), orient(r, s, q)
	d3, d4 := orient(p, q, r), orient(p, q, s)
	if ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)) {
		return true
	}
	return d1 == 0 && onSegment(r, s, p) || d2 == 0 && onSegment(r, s, q) ||
		d3 == 0 && onSegment(p, q, r) || d4 == 0 && onSegment(p, q, s)
}

// crossingEdges finds two edges of the polygon's rings that meet anywhere
// other than the shared endpoint of neighbours on one ring. Edges are swept
// in order of their west end, so only edges overlapping in longitude are
// compared.
func crossingEdges(edges []edge) (int, int, bool) {
	order := make([]int, len(edges))
	for i := range order {
		order[i] = i
	}
	west := func(e edge) float64 { return min(e.a[0], e.b[0]) }
	east := func(e edge) float64 { return max(e.a[0], e.b[0]) }
	slices.SortFunc(order, func(i, j int) int {
		return cmp.Compare(west(edges[i]), west(edges[j]))
	})
	for x, i := range order {
		ei := edges[i]
		for _, j := range order[x+1:] {
			ej := edges[j]
			if west(ej) > east(ei) {
				break
			}
			if !segmentsMeet(ei.a, ei.b, ej.a, ej.b) {
				continue
			}
			// Neighbours on a ring share exactly one endpoint and are not
			// otherwise collinear-overlapping.
			if shared := sharedEnd(ei, ej); shared && orient(ei.a, ei.b, otherEnd(ej, ei)) != 0 {
				continue
			}
			return min(i, j), max(i, j), true
		}
	}
	return 0, 0, false
}

// sharedEnd reports whether two edges share an endpoint.
func sharedEnd(e, f edge) bool {
	return e.a == f.a || e.a == f.b || e.b == f.a || e.b == f.b
}

// otherEnd returns f's endpoint that is not shared with e.
func otherEnd(f, e edge) orb.Point {
	if f.a == e.a || f.a == e.b {
		return f.b
	}
	return f.a
}
