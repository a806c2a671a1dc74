package geo

import (
	"math"

	"github.com/keyspacedb/keyspace/internal/errctx"
	"github.com/paulmach/orb"
)

// A Route measures places along a line, as Along and Fences.Passed take
// lines (edges straight in longitude and latitude, a MultiLineString's
// lines one after another): its length, and how far along it the point
// of the line nearest a given place lies (linear referencing, PostGIS's
// ST_LineLocatePoint in metres rather than a fraction). With Index.Along
// it puts the points near a route in the order a drive along it passes
// them: sort the Results by Locate's distance along.
//
// Lengths are ground lengths summed over chords along each edge, of at
// most 2 km and shorter towards the poles (pieceLength: within a part in
// a million). The nearest point is found on each piece of
// the line whose box could hold a nearer point than the nearest yet
// found, by path.closest's search (to about 1e-15 of the piece).
type Route struct {
	c      *corridor
	starts []float64 // where each piece starts along the route, in metres
	length float64
}

// NewRoute returns the route along line, an orb.LineString or
// orb.MultiLineString of GeoJSON [lon, lat] positions. A bad line is an
// error wrapping ErrBadQuery.
func NewRoute(line orb.Geometry) (*Route, error) {
	c, err := newCorridor(line, 0)
	if err != nil {
		return nil, errctx.Wrap("geo", "route", err)
	}
	r := &Route{c: c, starts: make([]float64, len(c.pieces))}
	for i := range c.pieces {
		r.starts[i] = r.length
		r.length += pieceLength(c.pieces[i].path, 1)
	}
	return r, nil
}

// Length is the route's length in metres.
func (r *Route) Length() float64 { return r.length }

// Locate returns how far along the route, in metres, its point nearest
// (lat, lon) lies, and how far that point lies from (lat, lon); of
// points equally near, the first. A bad point is an error wrapping
// ErrInvalidPoint.
func (r *Route) Locate(lat, lon float64) (along, off float64, err error) {
	if err := validate(lat, lon); err != nil {
		return 0, 0, errctx.Wrap("geo", "route", err)
	}
	p := newRef(lat, lon)
	o := p.origin()
	best, at := math.Inf(1), 0
	for i := range r.c.pieces {
		pc := &r.c.pieces[i]
		if pc.bound.havLower(&p) > havAbove(best/EarthRadius) {
			continue // its box lies farther than the nearest yet
		}
		if d := pc.distanceFrom(o); d < best {
			best, at = d, i
		}
	}
	pc := r.c.pieces[at].path
	t := pc.closestAt(lat, lon)
	return r.starts[at] + pieceLength(pc, t), best, nil
}

// at is the place along the route of piece i's point at t, in metres.
func (r *Route) at(i int, t float64) float64 {
	return r.starts[i] + pieceLength(r.c.pieces[i].path, t)
}
