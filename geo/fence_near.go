package geo

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/internal/errctx"
	"github.com/keyspacedb/keyspace/internal/expiry"
)

// Near: the fences within a distance of a point, nearest first, each with
// its distance, as Tile38's NEARBY … POINT lat lon meters asks of a fence
// set ("the delivery zones within 5 km of this address, nearest first").
//
// A fence's distance from a point is the great-circle distance to the
// fence's nearest point, 0 when it holds the point: for a circle, the
// distance to its centre less its radius; for a box, the distance to its
// nearest point (rect.minAngle, exact on the sphere); for a polygon, the
// least distance to one of its edges (path.distanceTo), the edges taken
// nearest box first so that most are passed over, or for one stored with
// band indexes, read in place from the bands within reach, nearest band
// first, passing over an edge whose box is farther than the nearest edge
// yet measured (storedPolygonDistance).
//
// A fence within radius of the point shares a point with the circle of
// that radius around it, so the candidates are Intersecting's for that
// circle, and each is measured. Without a radius the search would have to
// widen until k fences were found, reading every cell of every fence in
// the widening circle (about 25 a fence): among 1,000 circles and boxes
// round clustered points, the 10 nearest took 260–530 µs that way, where
// an R-tree of their boxes takes 12–18 µs. So Near asks for a radius, as
// Redis's GEOSEARCH does, and costs about what Intersecting does for it
// (bench/NOTES.md, session 26).

// A NearFence is a fence and how far a point lies from it.
type NearFence struct {
	ID       string
	Distance float64 // metres from the point to the fence's nearest point; 0 inside it
}

// Near returns the fences at most radius metres from (lat, lon), nearest
// first, ties by id, each with its distance (0 for a fence that holds the
// point); the first k of them, or all when k is 0. Fences that have
// expired are left out. A bad point, a negative or not-a-number radius or
// a negative k is an error that reads nothing.
func (fs *Fences) Near(tx keyspace.Tx, lat, lon, radius float64, k int) ([]NearFence, error) {
	if err := validate(lat, lon); err != nil {
		return nil, fs.wrap(err)
	}
	if math.IsNaN(radius) || radius < 0 || math.IsInf(radius, 0) {
		return nil, fs.wrap(fmt.Errorf("%w: radius %v must be a non-negative number of metres", ErrBadQuery, radius))
	}
	if k < 0 {
		return nil, fs.wrap(fmt.Errorf("%w: negative k %d", ErrBadQuery, k))
	}
	p := newRef(lat, lon)
	var near []NearFence
	err := fs.eachCandidate(tx, newCircle(lat, lon, radius), intersectCells, new(expiry.Clock), func(id string, f shape) error {
		d := 0.0
		if f.rings != nil {
			var err error
			if d, err = storedPolygonDistance(f.rings, p, radius); err != nil {
				return fs.wrap(fmt.Errorf("%w: fence %s: %v", keyspace.ErrCorrupt, errctx.Quote(id), err))
			}
		} else {
			d = f.distance(p)
		}
		if d <= radius {
			near = append(near, NearFence{id, d})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(near, func(a, b NearFence) int {
		return cmp.Or(cmp.Compare(a.Distance, b.Distance), strings.Compare(a.ID, b.ID))
	})
	if k > 0 && len(near) > k {
		near = near[:k]
	}
	return near, nil
}

// distance is how far p lies from s, in metres: 0 when s holds it.
func (s shape) distance(p ref) float64 {
	switch {
	case s.corr != nil:
		return s.corr.distanceFrom(p)
	case s.sector != nil:
		return s.sector.distance(p)
	case s.circle != nil:
		return max(0, Distance(s.circle.lat, s.circle.lon, p.lat, p.lon)-s.circle.radius)
	case s.box != nil:
		best := math.Inf(1)
		for _, iv := range s.box.lons() {
			best = min(best, p.minAngle(rect{MinLat: s.box.minLat, MaxLat: s.box.maxLat, MinLon: iv[0], MaxLon: iv[1]}))
		}
		return best * EarthRadius
	}
	if s.poly.contains(p.lat, p.lon) {
		return 0
	}
	// The edges nearest box first: no point of an edge is nearer than its
	// box, so once that bound passes the best distance found, no edge
	// left can beat it.
	type bounded struct {
		e     path
		lower float64
	}
	var edges []bounded
	for _, e := range s.edges() {
		box := e.rect()
		edges = append(edges, bounded{e, p.minAngle(box) * EarthRadius})
	}
	slices.SortFunc(edges, func(a, b bounded) int { return cmp.Compare(a.lower, b.lower) })
	best := math.Inf(1)
	for _, b := range edges {
		if b.lower >= best {
			break
		}
		best = min(best, b.e.distanceTo(p.lat, p.lon))
	}
	return best
}

// storedPolygonDistance is shape.distance for the polygon fence whose
// rings are stored in b, when it is within radius metres of p: 0 when it
// holds p, else the least distance to one of its edges (path.distanceTo),
// measured in place on the edges of the bands within radius of p, or
// within the best distance found so far once that is less
// (storedPolygonEdgesNear). A polygon farther than radius may come back
// as any distance greater than radius (+Inf when no edge was measured).
func storedPolygonDistance(b []byte, p ref, radius float64) (float64, error) {
	held, err := storedPolygonContains(b, p.lat, p.lon)
	if err != nil || held {
		return 0, err
	}
	best := math.Inf(1)
	_, err = storedPolygonEdgesNear(b, p, func() float64 { return min(radius, best) / EarthRadius }, func(e path) bool {
		best = min(best, e.distanceTo(p.lat, p.lon))
		return false
	})
	if errors.Is(err, errWideRing) {
		pr, err := decodePolygon(b)
		if err != nil {
			return 0, err
		}
		return shapeOf(pr).distance(p), nil
	}
	return best, err
}
