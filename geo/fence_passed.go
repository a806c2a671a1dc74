package geo

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/internal/errctx"
	"github.com/paulmach/orb"
)

// Passed: Along's fences in the order a route reaches them, each with how
// far along the route it first comes within the radius ("the toll zones
// of this drive, in order, and at which kilometre each begins"; "the
// restricted airspace of this flight plan, in the order it is met").
//
// The fences are Along's. For each, the route's pieces are searched in
// their order for the first point within the radius of the fence (its
// distance as Near measures it, shape.distance), depth first and the
// earlier half of a piece first, by the same triangle inequality as
// Along's search: between points a and b from the fence, ℓ apart along
// the route, no point is nearer than (a + b − ℓ)/2. A piece whose bound
// exceeds the radius is passed over; a piece whose start is within it,
// or which is shorter than alongFloor (a millimetre) while its bound is
// not, ends the search at its start. So the distance given is where the
// route first comes within the radius, a point within half a millimetre
// beyond it counting, as for Along: exact to a millimetre where the
// route crosses into the radius, and where it only grazes it up to
// √(2ρ·0.5 mm) early, ρ the radius plus the fence's own radius of
// curvature where grazed (about a metre for ρ of a kilometre, ten
// metres for 100 km: the distance exceeds its least by x²/2ρ at x
// along the route from where it is least). A fence Along counts but no
// point of the route is
// found within the radius of is given the place of the nearest point
// the search measured.
//
// Distances along the route are ground lengths of its edges, straight in
// longitude and latitude as Along takes them, a MultiLineString's lines
// one after another.
//
// Among 1,000 circles and boxes, routes of 20 positions with a radius of
// 1 km took 37 µs in memory, against 30 µs for Along (-bench
// 'FencesAlong/memory/(in-order|radius=1000m)'): the candidates are
// Along's, measured as they are read.

// A PassedFence is a fence a route passes and where it first reaches it.
type PassedFence struct {
	ID string
	// At is the distance in metres along the route to its first point
	// within the radius of the fence: 0 for a fence that holds the
	// route's start or lies within the radius of it.
	At float64
}

// Passed returns the fences that come within radius metres of a line, as
// Along does, in the order the line reaches them: by PassedFence.At,
// ties by id. A bad line or radius is an error wrapping ErrBadQuery that
// reads nothing.
func (fs *Fences) Passed(tx keyspace.Tx, line orb.Geometry, radius float64) ([]PassedFence, error) {
	c, err := newCorridor(line, radius)
	if err != nil {
		return nil, fs.wrap(err)
	}
	route := routeOf(c)
	var out []PassedFence
	err = fs.eachAlong(tx, c, func(id string, f shape) error {
		f, err := decodeRings(f) // a polygon's distance is measured on its edges
		if err != nil {
			return fs.wrap(fmt.Errorf("%w: fence %s: %v", keyspace.ErrCorrupt, errctx.Quote(id), err))
		}
		i, t := firstReach(c, f, radius)
		out = append(out, PassedFence{ID: id, At: route.at(i, t)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b PassedFence) int { return cmp.Compare(a.At, b.At) })
	return out, nil
}

// firstReach returns the first place along c's pieces, piece i at t,
// within radius of f, by the search at the top of this file; or, if the
// search finds none, the place of the nearest point it measured.
func firstReach(c *corridor, f shape, radius float64) (piece int, at float64) {
	type span struct{ t0, t1, d0, d1 float64 }
	bestD, bestI, bestT := math.Inf(1), 0, 0.0
	for i := range c.pieces {
		p := c.pieces[i].path
		dist := func(t float64) float64 {
			lat, lon := p.at(t)
			d := f.distance(newRef(lat, wrap(lon)))
			if d < bestD {
				bestD, bestI, bestT = d, i, t
			}
			return d
		}
		stack := []span{{0, 1, dist(0), dist(1)}}
		for len(stack) > 0 {
			s := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			ℓ := p.groundLength(s.t0, s.t1) * (1 + 1e-9)
			switch {
			case s.d0 <= radius:
				return i, s.t0
			case (s.d0+s.d1-ℓ)/2 > radius:
				continue
			case ℓ <= alongFloor:
				return i, s.t0 // within half a millimetre beyond the radius
			}
			m := (s.t0 + s.t1) / 2
			dm := dist(m)
			stack = append(stack, span{m, s.t1, dm, s.d1}, span{s.t0, m, s.d0, dm}) // the earlier half on top
		}
	}
	return bestI, bestT
}
