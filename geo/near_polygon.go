package geo

import (
	"fmt"
	"math"

	"github.com/keyspacedb/keyspace"
	"github.com/paulmach/orb"
)

// NearPolygon returns the points within radius metres of a polygon, an
// orb.Polygon or orb.MultiPolygon as Within takes it: those inside it
// and those within radius of its boundary (PostGIS's ST_DWithin against
// a polygon, Tile38's WITHIN … BUFFER radius OBJECT {Polygon}: the
// trucks at the depot or within 200 m of its fence). Each Result's
// Distance is its distance from the polygon, 0 inside it, and results
// come nearest first, ties by id; a Limit keeps the nearest Limit
// (FarthestFirst the farthest), Any the first found, and a page goes on
// after a cursor, as for Along, whose corridor measures the boundary
// here (the polygon's rings, holes among them, as lines). With a radius
// of 0 it finds what Within finds, each at 0. A bad polygon is an error
// wrapping ErrBadPolygon, a radius that is not a non-negative number
// one wrapping ErrBadQuery.
func (ix *Index) NearPolygon(tx keyspace.Tx, polygon orb.Geometry, radius float64, opts *QueryOptions) ([]Result, Stats, error) {
	reg, err := newNearPolygon(polygon, radius)
	if err != nil {
		return nil, Stats{}, ix.wrap(err)
	}
	lat, lon := reg.poly.centre()
	return ix.search(tx, lat, lon, opts, func(*hits) region { return reg })
}

// NearestPolygon returns the k points nearest a polygon (an orb.Polygon
// or orb.MultiPolygon as Within takes it), nearest first, ties by id,
// each at its distance from the polygon, 0 inside it: the stations
// nearest a park, with no radius to guess (PostGIS's ORDER BY geom <->
// polygon LIMIT k). It is exact, as NearestAlong is, by the same rounds:
// the k points nearest the polygon's first position lie within the k-th
// of their distances, D, of the polygon, and NearPolygon is asked with
// radii of D/16, D/4 and D until one holds k points. A polygon that
// holds k points or more answers with k of them at 0, in id order.
// opts as for NearestAlong.
func (ix *Index) NearestPolygon(tx keyspace.Tx, polygon orb.Geometry, k int, opts *QueryOptions) ([]Result, Stats, error) {
	n, err := newNearPolygon(polygon, 0)
	if err != nil {
		return nil, Stats{}, ix.wrap(err)
	}
	lat, lon := n.poly.centre()
	first := n.poly.mp[0][0][0]
	return ix.nearestMeasured(tx, "NearestPolygon", "NearPolygon", first.Lat(), first.Lon(), k, opts, func(r float64, o *QueryOptions) ([]Result, Stats, error) {
		n.setRadius(r)
		return ix.search(tx, lat, lon, o, func(*hits) region { return n })
	})
}

// DistanceToPolygon returns the great-circle distance in metres from
// (lat, lon) to the nearest point of a polygon (an orb.Polygon or
// orb.MultiPolygon as Within takes it): 0 inside it or on its boundary,
// else the distance to its boundary, to a micrometre: the distance
// NearPolygon reports. A bad polygon is an error wrapping ErrBadPolygon,
// a point out of range one wrapping ErrInvalidPoint.
func DistanceToPolygon(polygon orb.Geometry, lat, lon float64) (float64, error) {
	if err := validate(lat, lon); err != nil {
		return 0, err
	}
	n, err := newNearPolygon(polygon, 0)
	if err != nil {
		return 0, err
	}
	if n.poly.contains(lat, lon) {
		return 0, nil
	}
	return n.edge.distance(lat, lon, math.Inf(1)), nil
}

// nearPolygon is the region within radius of a polygon P: P itself, and
// the corridor of its boundary B (its rings as lines). A point outside P
// is as far from P as from B, as the shortest arc from it to P's nearest
// point meets P first on B; so a point lies within radius of P exactly
// when P holds it or the corridor does, and its distance is 0 or its
// distance from B.
//
// A cell is outside when it is outside both P and the corridor, inside
// when it is inside either; a candidate is measured by the same test in
// every cell (measure), as a corridor's are, so that the distance
// reported is always the polygon's.
type nearPolygon struct {
	poly polygonRegion
	edge *corridor
	box  Box
}

// newNearPolygon validates polygon and radius and returns their region.
func newNearPolygon(polygon orb.Geometry, radius float64) (*nearPolygon, error) {
	if math.IsNaN(radius) || radius < 0 || math.IsInf(radius, 0) {
		return nil, fmt.Errorf("%w: radius %v must be a non-negative number of metres", ErrBadQuery, radius)
	}
	pr, err := newPolygonRegion(polygon)
	if err != nil {
		return nil, err
	}
	var rings orb.MultiLineString
	for _, poly := range pr.mp {
		for _, ring := range poly {
			rings = append(rings, orb.LineString(ring))
		}
	}
	edge, err := newCorridor(rings, radius)
	if err != nil {
		return nil, err
	}
	n := &nearPolygon{poly: pr, edge: edge}
	n.setRadius(radius)
	return n, nil
}

// setRadius makes n the region within radius metres of its polygon.
func (n *nearPolygon) setRadius(radius float64) {
	n.edge.setRadius(radius)
	n.box = unionBox(n.poly.boundingBox(), n.edge.boundingBox())
}

func (n *nearPolygon) boundingBox() Box { return n.box }

func (n *nearPolygon) classify(r rect) (outside, inside bool) {
	po, pi := n.poly.classify(r)
	if pi {
		return false, true
	}
	co, ci := n.edge.classify(r)
	return po && co, ci
}

func (n *nearPolygon) contains(lat, lon float64) bool {
	return n.poly.contains(lat, lon) || n.edge.contains(lat, lon)
}

// measure is the candidate test: 0 inside the polygon, else the
// distance from its boundary, kept when at most the radius.
func (n *nearPolygon) measure(lat, lon float64) (float64, bool) {
	if n.poly.contains(lat, lon) {
		return 0, true
	}
	return n.edge.measure(lat, lon)
}

// nearPolygonMaxCells is the covering budget of a polygon's
// surroundings: the polygon's own (DefaultMaxCells), and its boundary's
// corridor's beyond that; with a radius of 0, the polygon's alone (a
// corridor of no width, which has no points of its own, would take the
// most cells a corridor may).
func nearPolygonMaxCells(n *nearPolygon) int {
	if n.edge.radius == 0 {
		return DefaultMaxCells
	}
	return min(maxCorridorCells, DefaultMaxCells+corridorMaxCells(n.edge))
}
