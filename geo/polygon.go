package geo

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/keyspacedb/keyspace/internal/errctx"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"
)

// polygonRegion is a polygon or multipolygon in GeoJSON's sense (RFC 7946):
// rings of [lon, lat] positions joined by straight lines in longitude and
// latitude, the first ring the outer boundary and the rest holes, boundary
// included. So an edge from longitude 170° to −170° runs 340° west through
// 0°, not 20° across ±180°: an area across ±180° is written cut in two
// there (RFC 7946 §3.1.9), or as a Box. Point tests are orb's ray casting (planar.MultiPolygonContains),
// with each ring's bounding box found once (ringContains).
//
// A cell is classified by the polygon's edges: if no edge meets the cell's
// rectangle (grown by a hair, so that rounding errs towards "crossing"),
// the rectangle lies wholly on one side of the boundary and its centre
// tells which. Otherwise the cell crosses the boundary.
type polygonRegion struct {
	mp      orb.MultiPolygon
	bound   orb.Bound
	bounds  [][]orb.Bound  // each ring's bounding box, by polygon and ring
	indexes [][]*ringIndex // each ring's edges by longitude (index)
	edges   []edge
}

// An edge is a ring's segment from a to b, with the box around it (lo:
// the smaller longitude and latitude, hi: the larger), which settles
// most edges' tests against a cell with four comparisons.
type edge struct{ a, b, lo, hi orb.Point }

// newEdge returns the edge from a to b.
func newEdge(a, b orb.Point) edge {
	return edge{a: a, b: b, lo: orb.Point{min(a[0], b[0]), min(a[1], b[1])}, hi: orb.Point{max(a[0], b[0]), max(a[1], b[1])}}
}

// edgeMargin widens a cell before it is tested against the polygon's
// edges: about 0.1 mm, far above float rounding of degrees.
const edgeMargin = 1e-9

// newPolygonRegion validates a polygon given as input (a query's area, a
// fence put) and returns its region. Rings that cross at a vertex they
// share are refused (crossingAtVertex), as edges that cross between
// vertices are.
func newPolygonRegion(g orb.Geometry) (polygonRegion, error) {
	return polygonRegionOf(g, true)
}

// storedPolygonRegion is newPolygonRegion for a fence read back from a
// file, which builds before session 37 may have stored with rings that
// cross at a shared vertex: those are read as stored, by the even-odd
// rule, not taken for damage that Repair would delete.
func storedPolygonRegion(g orb.Geometry) (polygonRegion, error) {
	return polygonRegionOf(g, false)
}

// polygonRegionOf validates g and returns its region; vertexCrossings
// refuses rings that cross at a shared vertex.
func polygonRegionOf(g orb.Geometry, vertexCrossings bool) (polygonRegion, error) {
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
	var rings [][2]int // each ring's edges, as a span of pr.edges
	for pi, poly := range mp {
		if len(poly) == 0 {
			return polygonRegion{}, fmt.Errorf("%w: polygon %d has no rings", ErrBadPolygon, pi)
		}
		pr.bounds = append(pr.bounds, make([]orb.Bound, len(poly)))
		pr.indexes = append(pr.indexes, make([]*ringIndex, len(poly)))
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
					return polygonRegion{}, fmt.Errorf("%w: %s position %d: %w", ErrBadPolygon, where(), i, errctx.Bare("geo", err))
				}
			}
			if n := distinctUpTo3(ring); n < 3 {
				return polygonRegion{}, fmt.Errorf("%w: %s has %d distinct positions; a ring needs 3", ErrBadPolygon, where(), n)
			}
			start := len(pr.edges)
			for i := 0; i+1 < len(ring); i++ {
				if ring[i] != ring[i+1] { // repeated positions are harmless
					pr.edges = append(pr.edges, newEdge(ring[i], ring[i+1]))
				}
			}
			rings = append(rings, [2]int{start, len(pr.edges)})
			pr.indexes[pi][ri] = ringIndexOf(ring, pr.bounds[pi][ri])
		}
	}
	pr.bound = pr.bounds[0][0] // the outer rings' boxes hold the holes'
	for _, b := range pr.bounds[1:] {
		pr.bound = pr.bound.Union(b[0])
	}
	i, j, shared, ok := crossingEdges(pr.edges, rings)
	if ok {
		return polygonRegion{}, fmt.Errorf("%w: edges %v–%v and %v–%v cross or overlap", ErrBadPolygon, pr.edges[i].a, pr.edges[i].b, pr.edges[j].a, pr.edges[j].b)
	}
	if !vertexCrossings || len(shared) == 0 {
		return pr, nil
	}
	if v, ok := crossingAtVertex(pr.edges, rings, shared); ok {
		return polygonRegion{}, fmt.Errorf("%w: the rings cross at %v, a vertex they pass through twice (a ring may touch itself or another ring at a vertex, not cross there)", ErrBadPolygon, v)
	}
	return pr, nil
}

// A pass is a ring's way through one of its vertices v: from the
// position before it to the one after, as directions from v.
type pass struct{ in, out orb.Point }

// crossingAtVertex finds a vertex, of the shared ones crossingEdges
// found, where two rings, or one ring twice, pass through each other:
// crossingEdges lets such a vertex by, since there the edges only meet
// at their ends. Two passes through v cross when the second's directions
// lie on opposite sides of the first's path (one in each of the two
// angles the first's directions make at v); two squares meeting at a
// corner, or a hole touching its ring, pass on one side of each other.
// Directions in line with the first's belong to edges that overlap,
// which crossingEdges has refused.
func crossingAtVertex(edges []edge, rings [][2]int, shared []orb.Point) (orb.Point, bool) {
	passes := make(map[orb.Point][]pass, len(shared))
	for _, v := range shared {
		passes[v] = nil
	}
	for _, span := range rings {
		for i := span[0]; i < span[1]; i++ {
			v := edges[i].a
			if ps, ok := passes[v]; ok {
				prev := i - 1
				if i == span[0] {
					prev = span[1] - 1
				}
				passes[v] = append(ps, pass{in: sub(edges[prev].a, v), out: sub(edges[i].b, v)})
			}
		}
	}
	for _, v := range shared { // in the sweep's order, so the same vertex is named each time
		ps := passes[v]
		delete(passes, v) // a vertex shared by three passes is listed more than once
		for i := range ps {
			for j := i + 1; j < len(ps); j++ {
				a, b := ps[i], ps[j]
				if inAngle(a.out, a.in, b.in) != inAngle(a.out, a.in, b.out) {
					return v, true
				}
			}
		}
	}
	return orb.Point{}, false
}

func sub(a, b orb.Point) orb.Point { return orb.Point{a[0] - b[0], a[1] - b[1]} }

func cross(a, b orb.Point) float64 { return a[0]*b[1] - a[1]*b[0] }

// inAngle reports whether direction x lies strictly inside the angle
// swept counter-clockwise from direction from to direction to.
func inAngle(from, to, x orb.Point) bool {
	switch c := cross(from, to); {
	case c > 0: // under half a turn
		return cross(from, x) > 0 && cross(x, to) > 0
	case c < 0: // over half a turn: outside the closed angle from to to from
		return cross(from, x) > 0 || cross(x, to) > 0
	}
	return cross(from, x) > 0 // half a turn, or a ring doubling back (refused as an overlap)
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
		if !ringContains(poly[0], p.bounds[pi][0], p.index(pi, 0), pt) {
			continue
		}
		inHole := false
		for ri := 1; ri < len(poly) && !inHole; ri++ {
			inHole = ringContains(poly[ri], p.bounds[pi][ri], p.index(pi, ri), pt)
		}
		if !inHole {
			return true
		}
	}
	return false
}

// index is ring ri of polygon pi's ringIndex, or nil: a small ring has
// none, and nor does a fence's polygon stored in the form of formats 2
// and 3 and decoded to test one point (decodePolygon), where building it
// would cost what it saves.
func (p polygonRegion) index(pi, ri int) *ringIndex {
	if p.indexes == nil {
		return nil
	}
	return p.indexes[pi][ri]
}

// ringContains is planar.RingContains (orb v0.14.0, MIT licence) given the
// ring's bounding box b: the same ray casting, boundary included, without
// finding the box again for every point. orb's RingContains spends three
// quarters of its time on the box (Ring.Bound), which for a polygon
// query's candidates is always the same one. With the ring's index (ix,
// nil for none), it casts the ray against only the edges of the point's
// longitude band. FuzzRingContains checks it agrees with orb's.
func ringContains(r orb.Ring, b orb.Bound, ix *ringIndex, p orb.Point) bool {
	if !b.Contains(p) {
		return false
	}
	c, on := rayIntersect(p, r[0], r[len(r)-1])
	if on {
		return true
	}
	// The loop is written out twice, for the band's edges and for all of
	// them: a function for its body is not inlined (rayIntersect is too
	// large), and a call an edge would slow every small polygon's test.
	if ix != nil {
		j := ix.band(p[0])
		for _, i := range ix.edges[ix.starts[j]:ix.starts[j+1]] {
			if passesBy(p, r[i], r[i+1]) {
				continue
			}
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
	for i := 0; i < len(r)-1; i++ {
		if passesBy(p, r[i], r[i+1]) {
			continue
		}
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

// passesBy reports whether the edge s–e lies wholly east or west of p's
// meridian, which rayIntersect answers (false, false) for: most of a
// ring's edges, settled by comparisons instead of a call. A NaN passes by
// nothing and goes to rayIntersect as before.
func passesBy(p, s, e orb.Point) bool {
	return p[0] < s[0] && p[0] < e[0] || p[0] > s[0] && p[0] > e[0]
}

// indexFrom is the most positions a ring has and is cast against whole;
// a larger ring gets a ringIndex.
const indexFrom = 32

// ringIndexOf is the ringIndex of the ring r, whose bounding box is b: a
// band for every four edges, or nil for a ring of indexFrom positions or
// fewer (or one newRingIndex finds an index does not pay for). A polygon
// fence stores it (appendPolygon), so it must stay a function of the ring
// alone.
func ringIndexOf(r orb.Ring, b orb.Bound) *ringIndex {
	if len(r) <= indexFrom {
		return nil
	}
	return newRingIndex(r, b, (len(r)-1)/4)
}

// A ringIndex lists, for each of equal bands across a ring's longitudes,
// the ring's edges whose longitudes reach into the band, in the order of
// the ring (by their first position's index). The ray ringContains casts
// from a point runs along the point's meridian, and an edge it can cross
// or the point can lie on spans the point's longitude (rayIntersect
// answers false for any other), so only the point's band needs casting
// against: a country's border of 100,000 positions in 25,000 bands holds
// a few edges a band. The bands are the starts..starts+1 runs of edges.
//
// A point's band is found by the same arithmetic as an edge's ends', and
// that arithmetic never decreases with the longitude, so an edge whose
// longitudes hold the point's lies in every band between its ends' and
// so in the point's.
type ringIndex struct {
	minLon, width float64
	starts        []int32 // band j's edges are edges[starts[j]:starts[j+1]]
	edges         []int32 // an edge r[i]–r[i+1] by i
}

// newRingIndex indexes the ring r, whose bounding box is b, in bands
// bands (at least 1), or returns nil when an index would not pay: a ring
// of one longitude, or edges so long that a band holds most of them.
func newRingIndex(r orb.Ring, b orb.Bound, bands int) *ringIndex {
	n := len(r) - 1 // edges
	bands = min(max(bands, 1), 1<<16)
	if n < 1 || !(b.Max[0] > b.Min[0]) {
		return nil
	}
	ix := &ringIndex{minLon: b.Min[0], width: (b.Max[0] - b.Min[0]) / float64(bands), starts: make([]int32, bands+1)}
	span := func(i int) (int, int) {
		return ix.band(min(r[i][0], r[i+1][0])), ix.band(max(r[i][0], r[i+1][0]))
	}
	total := 0
	for i := range n { // count each band's edges
		lo, hi := span(i)
		for j := lo; j <= hi; j++ {
			ix.starts[j+1]++
		}
		if total += hi - lo + 1; total > 8*n+bands {
			return nil // long edges across many bands: casting against all is as good
		}
	}
	for j := range bands {
		ix.starts[j+1] += ix.starts[j]
	}
	ix.edges = make([]int32, total)
	next := slices.Clone(ix.starts[:bands])
	for i := range n {
		lo, hi := span(i)
		for j := lo; j <= hi; j++ {
			ix.edges[next[j]] = int32(i)
			next[j]++
		}
	}
	return ix
}

// band is the band of the longitude lon, which lies in the ring's box.
func (ix *ringIndex) band(lon float64) int {
	j := int((lon - ix.minLon) / ix.width)
	return min(max(j, 0), len(ix.starts)-2)
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
	if !boxesMeet(b.Min, b.Max, p.bound.Min, p.bound.Max) {
		return true, false
	}
	for i := range p.edges {
		if edgeMeetsBound(&p.edges[i], b) {
			return false, false
		}
	}
	in := p.contains((r.MinLat+r.MaxLat)/2, (r.MinLon+r.MaxLon)/2)
	return !in, in
}

// centre is the area-weighted centroid, the point results are measured
// from. A MultiPolygon cut at ±180° (as RFC 7946 §3.1.9 asks of an area
// across it) has parts at both ends of the longitudes, and their planar
// centroid lies half a world away from all of them, near 0°: when moving
// the parts whose centroids are west of 0° by 360° east brings the parts
// within 180° of longitude of each other (a span they did not fit in
// before), the centroid is taken with them moved, and wrapped back into
// [−180°, 180°]. Parts that fit in neither way, half a world apart, keep
// their planar centroid.
func (p polygonRegion) centre() (lat, lon float64) {
	c, _ := planar.CentroidArea(p.mp)
	if len(p.mp) < 2 || p.bound.Max[0]-p.bound.Min[0] <= 180 {
		return c.Lat(), c.Lon()
	}
	var area, sumLat, sumLon float64
	west, east := math.Inf(1), math.Inf(-1) // the moved parts' span
	for _, poly := range p.mp {
		pc, a := planar.CentroidArea(poly)
		b := poly.Bound()
		shift := 0.0
		if pc.Lon() < 0 {
			shift = 360
		}
		west, east = min(west, b.Min[0]+shift), max(east, b.Max[0]+shift)
		area += a
		sumLat += a * pc.Lat()
		sumLon += a * (pc.Lon() + shift)
	}
	if area == 0 || east-west > 180 {
		return c.Lat(), c.Lon()
	}
	lon = sumLon / area
	if lon > 180 {
		lon -= 360
	}
	return sumLat / area, lon
}

// edgeMeetsBound reports whether a segment touches a closed rectangle.
// By the separating axis theorem, a segment and a rectangle are apart
// exactly when one of three axes separates them: longitude, latitude (the
// boxes do not meet) or the normal to the segment (all four corners lie
// strictly on one side of its line). Testing the corners so costs four
// cross products, where testing the segment against each side of the
// rectangle cost sixteen (FuzzEdgeMeetsBound compares the two). Covering a
// 20 km hexagon took 2.2 µs instead of 4.0 (BenchmarkCover).
func edgeMeetsBound(e *edge, b orb.Bound) bool {
	if !boxesMeet(e.lo, e.hi, b.Min, b.Max) {
		return false // most edges of a polygon pass a small cell by
	}
	dx, dy := e.b[0]-e.a[0], e.b[1]-e.a[1]
	side := func(x, y float64) float64 { return dx*(y-e.a[1]) - dy*(x-e.a[0]) }
	s1, s2 := side(b.Min[0], b.Min[1]), side(b.Max[0], b.Min[1])
	s3, s4 := side(b.Max[0], b.Max[1]), side(b.Min[0], b.Max[1])
	return !(s1 > 0 && s2 > 0 && s3 > 0 && s4 > 0 || s1 < 0 && s2 < 0 && s3 < 0 && s4 < 0)
}

// boxesMeet reports whether the closed boxes [lo1, hi1] and [lo2, hi2]
// share a point (orb's Bound.Intersects, for boxes known not empty).
func boxesMeet(lo1, hi1, lo2, hi2 orb.Point) bool {
	return hi1[0] >= lo2[0] && lo1[0] <= hi2[0] && hi1[1] >= lo2[1] && lo1[1] <= hi2[1]
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

// crossingEdges finds two edges of the polygon's rings, whose edges are
// the spans rings of edges, that cross or overlap: that meet anywhere but
// at a shared end (meetOnlyAtEnd) or where a ring touches an edge without
// passing through it (touchesOnly). Edges are swept in order of their
// west end, so only edges overlapping in longitude are compared. When
// none cross, it returns the vertices where edges that are not
// neighbours on a ring share an end (a vertex may be listed more than
// once), for crossingAtVertex: none, for most polygons, so that check
// costs them nothing.
func crossingEdges(edges []edge, rings [][2]int) (i, j int, shared []orb.Point, crossing bool) {
	ringOf := make([]int32, len(edges))
	for r, span := range rings {
		for i := span[0]; i < span[1]; i++ {
			ringOf[i] = int32(r)
		}
	}
	// neighbour is the edge of i's ring that meets it at its end b, or
	// at its end a.
	neighbour := func(i int, atB bool) int {
		span := rings[ringOf[i]]
		switch {
		case atB && i+1 == span[1]:
			return span[0]
		case atB:
			return i + 1
		case i == span[0]:
			return span[1] - 1
		}
		return i - 1
	}
	// The sweep reads the edges' boxes in order of their west ends, from
	// a sorted copy of them side by side, and passes over those apart in
	// latitude before testing them: on a ring of 50,000 positions
	// (BenchmarkPolygonCheck) it took 20.5 ms reading each edge through
	// an index and testing every pair it met, 12.8 ms with the latitude
	// test, 10.7 ms with both.
	type west struct {
		lon float64
		i   int32
	}
	wests := make([]west, len(edges))
	for i, e := range edges {
		wests[i] = west{e.lo[0], int32(i)}
	}
	slices.SortFunc(wests, func(a, b west) int {
		if a.lon != b.lon {
			return cmp.Compare(a.lon, b.lon)
		}
		return cmp.Compare(a.i, b.i)
	})
	order := make([]sweepBox, len(edges))
	for x, w := range wests {
		e := &edges[w.i]
		order[x] = sweepBox{lo: e.lo, hi: e.hi, i: w.i}
	}
	for x := range order {
		bi := &order[x]
		i := int(bi.i)
		for y := x + 1; y < len(order); y++ {
			bj := &order[y]
			if bj.lo[0] > bi.hi[0] {
				break
			}
			if bj.lo[1] > bi.hi[1] || bj.hi[1] < bi.lo[1] {
				continue // apart in latitude, as most of the edges a sweep by longitude meets are
			}
			j := int(bj.i)
			ei, ej := edges[i], edges[j]
			if !segmentsMeet(ei.a, ei.b, ej.a, ej.b) {
				continue
			}
			// Edges that share one endpoint and meet nowhere else (as
			// neighbours on a ring do) are no crossing, in line or not: a
			// ring may pass straight through a vertex, as real borders do
			// (three positions in a line were refused as crossing until
			// session 36). Edges in line that go the same way from the
			// shared end overlap, and a ring that doubles back on itself,
			// or two that share an edge, are refused.
			if end, ok := meetOnlyAtEnd(ei, ej); ok {
				if neighbour(i, true) != j && neighbour(i, false) != j {
					shared = append(shared, end)
				}
				continue
			}
			if touchesOnly(edges, i, j, neighbour) || touchesOnly(edges, j, i, neighbour) {
				continue
			}
			return min(i, j), max(i, j), nil, true
		}
	}
	return 0, 0, shared, false
}

// sweepBox is an edge's box in crossingEdges's sweep, with the edge's
// index.
type sweepBox struct {
	lo, hi orb.Point
	i      int32
}

// touchesOnly reports whether edge i meets edge j only where an end v of
// i lies inside j, its ring touching j there without passing through it:
// i is not in line with j, and the edge of i's ring on v's other side
// leaves v on the same side of j's line as i does. A hole may touch its
// ring at a point, as OGC's simple features allow; a ring that comes to
// j from one side and leaves on the other crosses it, as a proper
// crossing would (TestPolygonsThroughVertices).
func touchesOnly(edges []edge, i, j int, neighbour func(int, bool) int) bool {
	e, f := edges[i], edges[j]
	for _, atB := range [2]bool{false, true} {
		v, u := e.a, e.b
		if atB {
			v, u = e.b, e.a
		}
		if v == f.a || v == f.b || orient(f.a, f.b, v) != 0 || !onSegment(f.a, f.b, v) {
			continue // v is not inside j
		}
		n := edges[neighbour(i, atB)]
		w := n.a
		if w == v {
			w = n.b
		}
		side, other := orient(f.a, f.b, u), orient(f.a, f.b, w)
		return side != 0 && (side > 0) == (other > 0) && other != 0
	}
	return false
}

// meetOnlyAtEnd reports whether edges e and f, which meet, share an
// endpoint s and meet nowhere else, and returns s: their other ends p and
// q do not lie on one line through s, or do but on opposite sides of s
// (the projection (p − s)·(q − s) is negative).
func meetOnlyAtEnd(e, f edge) (orb.Point, bool) {
	var s, p, q orb.Point
	switch {
	case e.a == f.a:
		s, p, q = e.a, e.b, f.b
	case e.a == f.b:
		s, p, q = e.a, e.b, f.a
	case e.b == f.a:
		s, p, q = e.b, e.a, f.b
	case e.b == f.b:
		s, p, q = e.b, e.a, f.a
	default:
		return s, false
	}
	if orient(s, p, q) != 0 {
		return s, true
	}
	return s, (p[0]-s[0])*(q[0]-s[0])+(p[1]-s[1])*(q[1]-s[1]) < 0
}
