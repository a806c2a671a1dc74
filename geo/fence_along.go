package geo

import (
	"errors"
	"fmt"
	"math"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/internal/errctx"
	"github.com/keyspacedb/keyspace/internal/expiry"
	"github.com/paulmach/orb"
)

// Fences along a line: the fences within a distance of a route, Tile38's
// INTERSECTS … BUFFER radius OBJECT {LineString} asked of a fence set
// ("which restricted zones does this flight plan pass within 5 km of?",
// "which toll zones does this route enter?", the latter with a radius of
// 0).
//
// The area is Along's corridor (along.go): the points within radius of
// the line. Its candidates are found as Intersecting finds an area's,
// from a covering of alongFenceCells cells, and each is tested exactly. A
// fence F lies within radius of the line L exactly when
//
//   - F is a circle of radius ρ round f: L comes within radius + ρ of f
//     (on the sphere the distance from a point x to the cap is
//     max(0, d(x, f) − ρ), so some point of L is within radius of F
//     exactly when one is within radius + ρ of f);
//   - otherwise: F holds the first position of one of L's lines, or F's
//     boundary comes within radius of L. For if F holds no line's first
//     position but a point x of F lies within radius of a point y of L, then
//     either y is outside F, and the shortest arc from y to x enters F
//     through a boundary point b with d(b, y) ≤ d(x, y) ≤ radius, or y is
//     inside F, and the line, starting outside F, crosses its boundary
//     on its way to y (distance 0). A line that starts inside F is
//     caught by its first position.
//
// A boundary is curves: a box's or polygon's edges (straight in
// longitude and latitude, shape.edges), a sector's two sides and its
// arc (sectorFrame.curves, each a sinusoid with a known speed). Each
// curve is searched by branch and bound (corridor.reachesCurve) on the
// triangle inequality alone, as path.within proves a cell outside: the
// distance to L changes along the curve by at most the ground covered,
// so on a piece of ground length ℓ between points at distances a and b
// from L no point is nearer than (a + b − ℓ)/2. A piece whose bound
// exceeds the radius is dropped, the others halved, nearer half first,
// until a point within the radius is found (the fence counts) or none is
// left (it does not). A piece still undecided at alongFloor (a
// millimetre long) lies within half a millimetre of the radius and
// counts; so does the rest of a curve once alongBudget pieces of it have
// been tested. A piece lying ε beyond the radius is dropped once it is
// shorter than 2ε, so only a boundary that runs alongside the corridor's
// edge, ε beyond it, for more than 2ε·alongBudget (131 km at ε = 1 m, 1.3
// km at 1 cm) can reach the budget. An edge that crosses the line is
// found by a crossing test before any halving (corridor.crosses), which
// the halving would take some 25 steps to reach.
//
// A polygon fence stored with band indexes is read in place, on the
// edges of the bands near each piece of the line
// (corridor.reachesStoredPolygon).

// alongFloor is the ground length in metres below which a piece of a
// fence's boundary not yet proved beyond the radius counts as within it.
const alongFloor = 1e-3

// alongBudget bounds the pieces reachesCurve tests on one curve.
const alongBudget = 1 << 16

// alongFenceCells is the covering budget of a corridor among fences: as
// a path's (pathCells), 4 cells and one more for each 100 km of the
// line, at most 32; a fence's cells are coarse, and more cells would
// only add key ranges.
func alongFenceCells(c *corridor) int {
	return min(32, 4+int(c.length/100_000))
}

// Along returns the ids of the fences that come within radius metres of
// a line, in order: an orb.LineString or orb.MultiLineString of GeoJSON
// [lon, lat] positions, its edges straight in longitude and latitude as
// Index.Along takes it. A fence counts when some point of it (its edges
// included) lies within radius of some point of the line, so a radius of
// 0 asks which fences the line meets; a fence whose boundary passes within
// half a millimetre beyond the radius may count too. Fences that have
// expired are left out. A bad line or radius is an error wrapping
// ErrBadQuery that reads nothing.
func (fs *Fences) Along(tx keyspace.Tx, line orb.Geometry, radius float64) ([]string, error) {
	c, err := newCorridor(line, radius)
	if err != nil {
		return nil, fs.wrap(err)
	}
	var out []string
	err = fs.eachAlong(tx, c, func(id string, _ shape) error {
		out = append(out, id)
		return nil
	})
	return out, err
}

// eachAlong calls fn with each fence, in id order, that comes within
// the radius of c's line (Along's answer).
func (fs *Fences) eachAlong(tx keyspace.Tx, c *corridor, fn func(id string, f shape) error) error {
	return fs.eachCandidate(tx, c, alongFenceCells(c), new(expiry.Clock), func(id string, f shape) error {
		near, err := c.reaches(f)
		if err != nil {
			return fs.wrap(fmt.Errorf("%w: fence %s: %v", keyspace.ErrCorrupt, errctx.Quote(id), err))
		}
		if near {
			return fn(id, f)
		}
		return nil
	})
}

// reaches reports whether some point of the fence f lies within the
// corridor's radius of its line (see the top of this file).
func (c *corridor) reaches(f shape) (bool, error) {
	if f.corr != nil {
		return c.reachesCorridor(f.corr), nil
	}
	if f.circle != nil {
		limit := c.reach + f.circle.radius
		return c.distance(f.circle.lat, f.circle.lon, limit) <= limit, nil
	}
	if f.rings != nil {
		return c.reachesStoredPolygon(f.rings)
	}
	for _, s := range c.starts {
		if f.reg.contains(s.Lat, s.Lon) {
			return true, nil
		}
	}
	if f.sector != nil {
		for _, cv := range f.sector.curves() {
			if c.reachesCurve(cv.at, cv.groundLength, cv.lo, cv.hi, nil) {
				return true, nil
			}
		}
		return false, nil
	}
	for _, e := range f.edges() {
		if c.reachesEdge(e) {
			return true, nil
		}
	}
	return false, nil
}

// reachesStoredPolygon is reaches for the polygon fence whose rings are
// stored in b, read in place: a line's first position held
// (storedPolygonContains), or an edge within the radius, searched among
// the edges of the bands near each piece of the line. Every point of a
// piece lies within half its ground length h of its midpoint m, so an
// edge point within the radius of the piece lies within radius + h of m
// (storedPolygonEdgesNear reads those edges). Each edge is searched once,
// however many pieces it is near. A polygon that must be read whole
// (errWideRing) is decoded.
func (c *corridor) reachesStoredPolygon(b []byte) (bool, error) {
	for _, s := range c.starts {
		if held, err := storedPolygonContains(b, s.Lat, s.Lon); err != nil || held {
			return held, err
		}
	}
	seen := map[path]bool{}
	for i := range c.pieces {
		pc := &c.pieces[i]
		lat, lon := pc.at(0.5) // a piece may run past ±180°: its midpoint wrapped back
		lon = wrap(lon)
		θ := (c.reach + pc.groundLength(0, 1)/2) / EarthRadius
		found, err := storedPolygonEdgesNear(b, newRef(lat, lon), func() float64 { return θ }, func(e path) bool {
			if seen[e] {
				return false
			}
			seen[e] = true
			return c.reachesEdge(e)
		})
		if errors.Is(err, errWideRing) {
			pr, err := decodePolygon(b)
			if err != nil {
				return false, err
			}
			return c.reaches(shapeOf(pr))
		}
		if err != nil || found {
			return found, err
		}
	}
	return false, nil
}

// reachesCurve reports whether some point of a curve, at(t) for t from
// lo to hi, lies within the corridor's radius of its line, by the branch
// and bound at the top of this file; length(t0, t1) bounds the ground
// length of the curve between t0 and t1.
func (c *corridor) reachesCurve(at func(t float64) (lat, lon float64), length func(t0, t1 float64) float64, lo, hi float64, crosses func() bool) bool {
	// Distances are measured up to limit, and taken as limit beyond it
	// (a lower bound, which is all the pruning needs): a piece between
	// two such points is dropped, as limit exceeds the reach by more
	// than half any piece's length.
	limit := c.reach + length(lo, hi) + 1
	dist := func(t float64) float64 {
		lat, lon := at(t)
		return min(c.distance(lat, lon, limit), limit)
	}
	type piece struct{ t0, t1, d0, d1 float64 }
	d0, d1 := dist(lo), dist(hi)
	switch {
	case d0 <= c.reach || d1 <= c.reach:
		return true
	case (d0+d1-length(lo, hi))/2 > c.reach:
		return false
	case crosses != nil && crosses():
		return true
	}
	stack := []piece{{lo, hi, d0, d1}}
	for tested := 0; len(stack) > 0; tested++ {
		pc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		ℓ := length(pc.t0, pc.t1)
		switch {
		case (pc.d0+pc.d1-ℓ)/2 > c.reach:
			continue
		case ℓ <= alongFloor || pc.t1-pc.t0 <= 1e-15 || tested >= alongBudget:
			return true
		}
		m := (pc.t0 + pc.t1) / 2
		dm := dist(m)
		if dm <= c.reach {
			return true
		}
		near, far := piece{pc.t0, m, pc.d0, dm}, piece{m, pc.t1, dm, pc.d1}
		if pc.d1 < pc.d0 {
			near, far = far, near
		}
		stack = append(stack, far, near) // the nearer half first
	}
	return false
}

// reachesEdge is reachesCurve for an edge of a box or a polygon, which
// looks for a crossing of the line before it halves: where the edge
// crosses it, the distance is 0 at a point the halving would take some
// 25 steps to reach (a millimetre of a 10 km edge). Among 1,000 circles
// and boxes, routes of 40 km at radius 0 took 31–37 µs with it and
// 72–76 µs without (BenchmarkFencesAlong).
func (c *corridor) reachesEdge(e path) bool {
	return c.reachesCurve(e.at, e.groundLength, 0, 1, func() bool { return c.crosses(e) })
}

// crosses reports whether the edge e crosses or touches a piece of the
// line, straight lines in longitude and latitude both (crossings): a
// piece that does lies within half e's ground length of e's midpoint,
// as the crossing does, so only those are tried, at e's longitudes and
// a turn either way (a piece keeps its edge's direction round the globe,
// and may run past ±180°).
func (c *corridor) crosses(e path) bool {
	lat, lon := e.at(0.5)
	mid := newRef(lat, lon)
	cut := havAbove(e.groundLength(0, 1) / 2 / EarthRadius)
	var ts [2]float64
	return !c.nearPieces(&mid, &cut, math.Inf(-1), math.Inf(1), func(pc *corridorPiece) bool {
		for _, shift := range [3]float64{0, -360, 360} {
			f := pc.path
			f.lon0, f.lon1 = f.lon0+shift, f.lon1+shift
			if len(crossings(e, f, ts[:0])) > 0 {
				return false
			}
		}
		return true
	})
}

// at is the point of the curve at x.
func (cv *curve) at(x float64) (lat, lon float64) {
	s, co := math.Sincos(x)
	var p [3]float64
	for i := range 3 {
		p[i] = cv.k[i] + cv.u[i]*co + cv.v[i]*s
	}
	return math.Atan2(p[2], math.Hypot(p[0], p[1])) * 180 / math.Pi, math.Atan2(p[1], p[0]) * 180 / math.Pi
}

// groundLength is the length on the ground of the curve from x0 to x1:
// U and V are perpendicular and of one length |U| (a side's A and t_b,
// an arc's sin θ·N and sin θ·E), so P moves at |U| radians a radian.
func (cv *curve) groundLength(x0, x1 float64) float64 {
	return EarthRadius * math.Sqrt(dot(cv.u, cv.u)) * math.Abs(x1-x0) * (1 + 1e-12)
}

// NearPolygon returns the ids of the fences that come within radius
// metres of a polygon, in order: an orb.Polygon or orb.MultiPolygon as
// Index.Within takes it (Tile38's INTERSECTS … BUFFER radius OBJECT
// {Polygon}: the zones that touch a district or lie within 500 m of
// it). A fence counts when it shares a point with the polygon, as
// Intersecting decides, or comes within radius of its boundary, as Along
// decides for the polygon's rings as lines (a fence apart from the
// polygon is as far from it as from its boundary); with a radius of 0 the
// answer is Intersecting's. Fences that have expired are left out. A bad
// polygon is an error wrapping ErrBadPolygon, a bad radius one wrapping
// ErrBadQuery, and either reads nothing.
func (fs *Fences) NearPolygon(tx keyspace.Tx, polygon orb.Geometry, radius float64) ([]string, error) {
	n, err := newNearPolygon(polygon, radius)
	if err != nil {
		return nil, fs.wrap(err)
	}
	area := shapeOf(n.poly)
	var out []string
	err = fs.eachCandidate(tx, n, alongFenceCells(n.edge), new(expiry.Clock), func(id string, f shape) error {
		var near bool
		var err error
		if f.rings != nil {
			near, err = area.meetsStoredPolygon(f.rings)
		} else {
			near = area.intersects(f)
		}
		if err == nil && !near {
			near, err = n.edge.reaches(f)
		}
		if err != nil {
			return fs.wrap(fmt.Errorf("%w: fence %s: %v", keyspace.ErrCorrupt, errctx.Quote(id), err))
		}
		if near {
			out = append(out, id)
		}
		return nil
	})
	return out, err
}
