package geo

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/internal/errctx"
	"github.com/keyspacedb/keyspace/internal/expiry"
)

// Within: the fences wholly inside an area, Tile38's WITHIN asked of a
// collection of geofences ("which delivery zones lie inside this
// district?"). Edges count: a fence that runs along the area's edge from
// inside, or is the area itself, is within it.
//
// A fence inside the area shares a point with it, so the candidates are
// Intersecting's, and each is tested exactly. A region F lies within an
// area A when
//
//   - A is a circle of angular radius r round c: every point of F is
//     within r of c. A point's distance from c is π less its distance
//     from c's antipode c*, so F's farthest point from c is its nearest to
//     c*, and F lies within A exactly when F's distance from c* (as Near
//     measures it: 0 when F holds c*) is at least π − r. For a circle F
//     of radius ρ round f this is the triangle inequality's d(c, f) + ρ ≤
//     r, measured directly (c* is where distances lose their precision).
//   - A is a box, and F a box or a polygon: A holds each of F's boxes
//     (each of its polygons' outer rings' bounding boxes), as a box is
//     its own bounding box in longitude and latitude (boxHoldsBounds).
//   - A is a box or a polygon, and F a circle: A holds F's centre and no
//     point of A's boundary lies nearer to it than F's radius. The cap is
//     connected, so if it held a point outside A it would cross A's
//     boundary on its way there.
//   - A is a polygon, and F a box or a polygon: every piece of F's
//     edges, cut where they meet A's boundary, lies in A (its midpoint
//     does, and A's boundary does not cross it), and no point just
//     outside A's boundary lies in F. The first keeps F's boundary in A;
//     then F's inside could leave A only where A's boundary runs through
//     it or along its edge from outside, as round a hole of A, and the
//     second finds those: each piece of A's boundary near F, cut where
//     F's edges meet it, is tested a hair (withinNudge) to its outside
//     side at its midpoint.
//   - A or F is a sector: fence_sector.go.
//   - A is a corridor: fence_corridor_within.go; F a corridor:
//     fence_corridor.go.
//
// A's boundary on the sphere is not all of its edges in longitude and
// latitude: a box or multipolygon across ±180° has edges along the seam
// with A on both sides of it, and an edge along a pole is one point. So
// A's edges are cut where they meet each other, and a piece counts as
// boundary only where a point a hair to one side of it lies outside A
// (an edge along a pole never does: if the pole is on the boundary,
// other edges reach it), worked out for the pieces a fence comes near,
// once each (boundary.side).
// Points on the seam or at a pole are held when any of their spellings
// is (sphereContains).
//
// Measured (-bench 'FenceBorder/.*/within', memory): which of 200 small
// circles and boxes lie within a border of 50,000 positions took 4.5 s
// when every piece's sides were tested for every fence, and 70 ms once
// only the pieces near a fence were, their sides worked out once; most
// of what is left is building the area (its edges checked for
// crossings, as any query with that polygon does) and its pieces.
//
// Distances and crossings are those of Intersecting and Near: edges are
// straight lines in longitude and latitude (path.go), in pieces of at
// most 90° of longitude, and a fence within withinTolerance of being
// inside counts as inside.

// withinTolerance is how far, in metres, a fence may reach past a
// circle's edge, or a box's or polygon's edge reach into a circle fence,
// and still count as within: distances near c*, or from a path's nearest
// point, are good to well under a millimetre.
const withinTolerance = 1e-3

// withinNudge is how far, in degrees, a boundary's piece is stepped off
// to test its sides: about 0.1 mm, as edgeMargin.
const withinNudge = 1e-9

// Within returns the ids of the fences that lie wholly inside area, in
// order: a circle, a box, a polygon, a sector or a corridor (the fences
// wholly within a distance of a line), as a Fence describes one (its id
// and expiry are not needed). Edges count; fences that have expired are
// left out. A bad area is an error wrapping ErrBadFence or
// ErrInvalidPoint that reads nothing.
func (fs *Fences) Within(tx keyspace.Tx, area Fence) ([]string, error) {
	if area.ID == "" {
		area.ID = "area" // for the region's errors
	}
	reg, err := area.region()
	if err != nil {
		return nil, fs.wrap(err)
	}
	a := shapeOf(reg)
	inside := holder(a)
	var out []string
	err = fs.eachCandidate(tx, reg, areaCells(a), new(expiry.Clock), func(id string, f shape) error {
		in, err := inside(f)
		if err != nil {
			return fs.wrap(fmt.Errorf("%w: fence %s: %v", keyspace.ErrCorrupt, errctx.Quote(id), err))
		}
		if in {
			out = append(out, id)
		}
		return nil
	})
	return out, err
}

// holder returns the test of whether a holds every point of a shape:
// a's circle.holdsShape, or its boundary's.
func holder(a shape) func(f shape) (bool, error) {
	switch {
	case a.circle != nil:
		return a.circle.holdsShape
	case a.corr != nil:
		return a.corr.holdsShape
	case a.sector != nil:
		return func(f shape) (bool, error) {
			f, err := decodeRings(f)
			if err != nil {
				return false, err
			}
			return a.sector.holdsShape(f)
		}
	}
	return newBoundary(a).holdsShape
}

// holdsShape reports whether every point of f lies within c (see the top
// of this file): f's distance from c's antipode is at least π − r.
func (c *circle) holdsShape(f shape) (bool, error) {
	if f.circle != nil {
		return Distance(c.lat, c.lon, f.circle.lat, f.circle.lon)+f.circle.radius <= c.radius+withinTolerance, nil
	}
	anti := newRef(c.lat, c.lon).antipode()
	least := math.Pi*EarthRadius - c.radius - withinTolerance
	if f.rings != nil {
		// A polygon stored with band indexes: measured in place, exact
		// up to least (storedPolygonDistance).
		d, err := storedPolygonDistance(f.rings, anti, least)
		return d >= least, err
	}
	return f.distance(anti) >= least, nil
}

// A boundary is a box's or polygon's edges, cut where they meet each
// other, as Within tests fences against them. A piece is the area's
// boundary on the sphere when the area lies on one side of it only (see
// the top of this file); which sides lie outside is worked out for the
// pieces a fence comes near, the first time one does (side), as it takes
// two of the area's point tests.
type boundary struct {
	area   shape
	pieces edgeSet
	sides  []uint8 // each piece's side, by its place in pieces, once asked
	poles  [2]bool // the area holds the south pole, the north pole
}

// A piece's sides, as side reports them.
const (
	sideKnown uint8 = 1 << iota // worked out
	outLeft                     // the area's outside lies to the left of the piece
	outRight                    // and to its right
)

// newBoundary returns a's boundary, a a box or a polygon.
func newBoundary(a shape) *boundary {
	b := &boundary{area: a}
	edges := a.edges()
	for _, e := range edges {
		for _, lat := range [2]float64{e.lat0, e.lat1} {
			if math.Abs(lat) == 90 {
				b.poles[boolIndex(lat > 0)] = true
			}
		}
	}
	all := newEdgeSet(edges)
	var pieces []path
	for _, e := range edges {
		if e.lat0 == e.lat1 && math.Abs(e.lat0) == 90 {
			continue // along a pole: one point
		}
		ts := []float64{0, 1}
		all.each(e, func(_ int, f path) bool {
			if f != e { // itself, or an edge it runs along whole
				ts = crossings(e, f, ts)
			}
			return true
		})
		pieces = cut(pieces, e, ts)
	}
	b.pieces = newEdgeSet(pieces)
	b.sides = make([]uint8, len(pieces))
	return b
}

// side returns which sides of piece i (outLeft, outRight) lie outside
// the area: neither for a piece inside it, as along ±180° with the area
// on both sides.
func (b *boundary) side(i int) uint8 {
	if b.sides[i]&sideKnown == 0 {
		left, right := beside(b.pieces.edges[i])
		s := sideKnown
		if !left.off && !b.contains(left.lat, left.lon) {
			s |= outLeft
		}
		if !right.off && !b.contains(right.lat, right.lon) {
			s |= outRight
		}
		b.sides[i] = s
	}
	return b.sides[i]
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

// contains reports whether the area holds the point (lat, lon) on the
// sphere: by either spelling of a longitude of ±180°, and at a pole if
// any of its edges reaches that pole.
func (b *boundary) contains(lat, lon float64) bool {
	if math.Abs(lat) >= 90 {
		return b.poles[boolIndex(lat > 0)]
	}
	return sphereContains(b.area.reg, lat, lon)
}

// aSide is a point a hair to one side of a boundary's piece. Off is set
// when that side is past a pole, where it is no side at all.
type aSide struct {
	lat, lon float64
	off      bool
}

// beside returns the points withinNudge to the left and right of the
// piece p's midpoint (both off for a piece of no length).
func beside(p path) (left, right aSide) {
	lat, lon := p.at(0.5)
	dLat, dLon := p.lat1-p.lat0, p.lon1-p.lon0
	n := math.Hypot(dLat, dLon)
	if n == 0 {
		return aSide{off: true}, aSide{off: true}
	}
	nLat, nLon := dLon/n*withinNudge, -dLat/n*withinNudge // to the left of the direction of p
	side := func(lat, lon float64) aSide {
		if math.Abs(lat) > 90 {
			return aSide{off: true}
		}
		return aSide{lat: lat, lon: wrap(lon)}
	}
	return side(lat+nLat, lon+nLon), side(lat-nLat, lon-nLon)
}

// holdsShape reports whether every point of f lies in the area (see the
// top of this file).
func (b *boundary) holdsShape(f shape) (bool, error) {
	if f.circle != nil {
		return b.holdsCircle(f.circle), nil
	}
	if f.corr != nil {
		return b.holdsCorridor(f.corr), nil
	}
	if f.sector != nil {
		return f.sector.heldBy(b), nil
	}
	if b.area.box != nil {
		return boxHoldsBounds(b.area.box, f)
	}
	if f.rings != nil {
		// Each of the fence's polygons must start inside the area; a fence
		// that passes is decoded, since every edge of it is needed.
		firsts, err := storedFirstVertices(f.rings)
		if err != nil {
			return false, err
		}
		for _, v := range firsts {
			if !b.contains(v.Lat(), v.Lon()) {
				return false, nil
			}
		}
		pr, err := decodePolygon(f.rings)
		if err != nil {
			return false, err
		}
		f = shapeOf(pr)
	}
	edges := f.edges()
	// Every piece of the fence's edges, cut where the boundary meets
	// them, lies in the area, where the fence holds it (a hole's edge is
	// not the polygon's, as orb's ray casting has it).
	holds := func(lat, lon float64) bool { return b.contains(lat, lon) || !sphereContains(f.reg, lat, lon) }
	var ts []float64
	var pieces []path
	for _, e := range edges {
		if !holds(e.lat0, e.lon0) {
			return false, nil
		}
		ts = append(ts[:0], 0, 1)
		b.pieces.each(e, func(_ int, p path) bool { ts = crossings(e, p, ts); return true })
		pieces = cut(pieces[:0], e, ts)
		for _, p := range pieces {
			if !holds(p.at(0.5)) {
				return false, nil
			}
		}
	}
	// No point just outside the boundary lies in the fence: only the
	// boundary's pieces within the fence's bounding box can have such
	// points beside them. The fence's edges are sorted for the search
	// only when many pieces are: sorting 50,000 edges cost more than
	// testing each against a box's four sides.
	near := b.piecesNear(edges)
	fence := edgeSet{edges: edges}
	if len(near) > 16 {
		fence = newEdgeSet(edges)
	}
	for _, i := range near {
		out := b.side(i) & (outLeft | outRight)
		if out == 0 {
			continue
		}
		p := b.pieces.edges[i]
		ts = append(ts[:0], 0, 1)
		fence.each(p, func(_ int, e path) bool { ts = crossings(p, e, ts); return true })
		pieces = cut(pieces[:0], p, ts)
		for _, q := range pieces {
			left, right := beside(q)
			if out&outLeft != 0 && !left.off && sphereContains(f.reg, left.lat, left.lon) ||
				out&outRight != 0 && !right.off && sphereContains(f.reg, right.lat, right.lon) {
				return false, nil
			}
		}
	}
	return true, nil
}

// boxHoldsBounds reports whether the box bx holds every point of f, a
// box or a polygon: whether bx holds each of f's boxes (a box's, one for
// each side of ±180° it lies on; each of a polygon's polygons', its outer
// ring's, read in place from its stored rings when it comes as them).
// That is exact, as a box is its own bounding box in longitude and
// latitude and a polygon's straight edges lie in its vertices' box: a
// polygon's points lie in bx exactly when its box does, as long as that
// box lies within one of bx's longitude intervals (a polygon with
// vertices either side of ±180° is drawn the long way round, and is not
// within a box across ±180°). The 50,000-position border within a box
// that holds it took 4.0–4.8 ms by its edges (as for a polygon area), and
// takes 7–8 µs by its stored outer ring's box (-bench FenceBorder).
func boxHoldsBounds(bx *boxRegion, f shape) (bool, error) {
	holds := func(minLat, maxLat, minLon, maxLon float64) bool {
		if minLat < bx.minLat || maxLat > bx.maxLat {
			return false
		}
		for _, iv := range bx.lons() {
			if minLon >= iv[0] && maxLon <= iv[1] {
				return true
			}
		}
		return false
	}
	switch {
	case f.box != nil:
		for _, iv := range f.box.lons() {
			if !holds(f.box.minLat, f.box.maxLat, iv[0], iv[1]) {
				return false, nil
			}
		}
		return true, nil
	case f.rings != nil:
		out, err := eachStoredRing(f.rings, func(sr storedRing, outer bool) (bool, error) {
			return outer && !holds(sr.bound.Min[1], sr.bound.Max[1], sr.bound.Min[0], sr.bound.Max[0]), nil
		})
		return !out, err
	}
	for _, rings := range f.poly.bounds {
		if o := rings[0]; !holds(o.Min[1], o.Max[1], o.Min[0], o.Max[0]) {
			return false, nil
		}
	}
	return true, nil
}

// piecesNear returns the places of the boundary's pieces whose boxes
// meet the box of edges, grown by a nudge's width.
func (b *boundary) piecesNear(edges []path) []int {
	box := path{lat0: 90, lon0: 180, lat1: -90, lon1: -180}
	for _, e := range edges {
		box.lat0, box.lat1 = min(box.lat0, e.lat0, e.lat1), max(box.lat1, e.lat0, e.lat1)
		box.lon0, box.lon1 = min(box.lon0, e.lon0, e.lon1), max(box.lon1, e.lon0, e.lon1)
	}
	const m = 2 * withinNudge
	box.lat0, box.lon0, box.lat1, box.lon1 = box.lat0-m, box.lon0-m, box.lat1+m, box.lon1+m
	var out []int
	b.pieces.each(box, func(i int, _ path) bool { out = append(out, i); return true })
	return out
}

// holdsCircle reports whether the area holds every point of c: it holds
// c's centre, and no piece of its boundary comes nearer to the centre
// than c's radius.
func (b *boundary) holdsCircle(c *circle) bool {
	if !b.contains(c.lat, c.lon) {
		return false
	}
	centre := newRef(c.lat, c.lon)
	reach := c.radius - withinTolerance
	// Only pieces in the circle's bounding box can come within reach.
	bound := c.boundingBox()
	held := true
	for _, iv := range bound.lonIntervals() {
		b.pieces.each(path{lat0: bound.MinLat, lon0: iv[0], lat1: bound.MaxLat, lon1: iv[1]}, func(i int, p path) bool {
			box := p.rect()
			if centre.minAngle(box)*EarthRadius < reach {
				if _, _, d := p.closest(c.lat, c.lon); d < reach && b.side(i)&(outLeft|outRight) != 0 {
					held = false
				}
			}
			return held
		})
	}
	return held
}

// sphereContains is reg.contains on the sphere: a point on ±180° is held
// by either spelling of its longitude.
func sphereContains(reg region, lat, lon float64) bool {
	switch {
	case reg.contains(lat, lon):
		return true
	case lon == 180:
		return reg.contains(lat, -180)
	case lon == -180:
		return reg.contains(lat, 180)
	}
	return false
}

// crossings appends to ts the points of e, as fractions of its length,
// where the straight line f meets it in longitude and latitude: where
// they cross, or the ends of a stretch along which they run together.
//
// With e = P + t·r and f = Q + u·s, r × s ≠ 0 puts the crossing at t = (Q
// − P) × s / (r × s) and u = (Q − P) × r / (r × s), each in [0, 1] when
// it lies on both. Parallel lines meet only when Q lies on e's line,
// and then along the stretch between Q's and Q + s's projections onto
// e, t = (Q − P)·r / r·r.
func crossings(e, f path, ts []float64) []float64 {
	rx, ry := e.lon1-e.lon0, e.lat1-e.lat0
	sx, sy := f.lon1-f.lon0, f.lat1-f.lat0
	qx, qy := f.lon0-e.lon0, f.lat0-e.lat0
	den := rx*sy - ry*sx
	if den != 0 {
		t, u := (qx*sy-qy*sx)/den, (qx*ry-qy*rx)/den
		if t >= 0 && t <= 1 && u >= 0 && u <= 1 {
			ts = append(ts, t)
		}
		return ts
	}
	rr := rx*rx + ry*ry
	if rr == 0 || qx*ry-qy*rx != 0 {
		return ts
	}
	t0 := (qx*rx + qy*ry) / rr
	t1 := ((qx+sx)*rx + (qy+sy)*ry) / rr
	for _, t := range [2]float64{t0, t1} {
		if t > 0 && t < 1 {
			ts = append(ts, t)
		}
	}
	return ts
}

// cut appends to out the pieces of e between the fractions ts of its
// length (which hold 0 and 1), in order, and returns it. It sorts ts.
func cut(out []path, e path, ts []float64) []path {
	slices.Sort(ts)
	ts = slices.Compact(ts)
	for i := 1; i < len(ts); i++ {
		lat0, lon0 := e.at(ts[i-1])
		lat1, lon1 := e.at(ts[i])
		out = append(out, path{lat0: lat0, lon0: lon0, lat1: lat1, lon1: lon1})
	}
	return out
}

// An edgeSet is straight edges in longitude and latitude, sorted by their
// least longitude, to find those whose boxes meet a given edge's without
// testing every one.
type edgeSet struct {
	edges []path
	west  []float64 // each edge's least longitude, ascending
	span  float64   // the widest edge's span of longitude
}

func newEdgeSet(edges []path) edgeSet {
	edges = slices.Clone(edges)
	slices.SortFunc(edges, func(a, b path) int { return cmp.Compare(min(a.lon0, a.lon1), min(b.lon0, b.lon1)) })
	s := edgeSet{edges: edges, west: make([]float64, len(edges))}
	for i, e := range edges {
		s.west[i] = min(e.lon0, e.lon1)
		s.span = max(s.span, math.Abs(e.lon1-e.lon0))
	}
	return s
}

// each calls fn with every edge of s whose box meets e's, and its place
// in s.edges, until fn returns false. An edgeSet made without
// newEdgeSet (edges alone, unsorted) is searched whole.
func (s edgeSet) each(e path, fn func(i int, f path) bool) {
	box := e.rect()
	from, to := 0, len(s.edges)
	if s.west != nil {
		from, _ = slices.BinarySearch(s.west, box.MinLon-s.span)
		to, _ = slices.BinarySearch(s.west, math.Nextafter(box.MaxLon, math.Inf(1)))
	}
	for i := from; i < to; i++ {
		f := s.edges[i].rect()
		if f.MaxLon >= box.MinLon && f.MinLon <= box.MaxLon && f.MaxLat >= box.MinLat && f.MinLat <= box.MaxLat && !fn(i, s.edges[i]) {
			return
		}
	}
}
