package geo

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/paulmach/orb"
)

// A polygon fence's rings are kept apart from its definition, under
// ("f", name, "p", id), in a form a lookup decodes without parsing JSON
// or checking the polygon again (Put checked it):
//
//	uint32 polygons, then for each: uint32 rings, then for each ring:
//	its bounding box (min lon, min lat, max lon, max lat) and uint32
//	positions, then the positions (lon, lat), every number big-endian,
//	float64s by their bits.
//
// A point on a polygon's edge is tested by polygonRegion.contains with
// the rings and boxes decoded, the code a query's polygon runs, so the
// answer is the one the fence itself gives. Before session 24 such a point
// read the definition's GeoJSON, its cells and all, and checked the
// polygon's edges for crossings again: among 100 polygons of 40 vertices
// a lookup took 42 µs, of 1,000 vertices 1.1 ms (BenchmarkFencePolygons,
// memory). Now 2.5 µs and 7.7–8.3 µs (bbolt 2.5 and 9.5–9.7), where an
// R-tree of the polygons' boxes with orb's planar test takes 0.9–1.0 µs
// and 19 µs: orb finds a ring's box for every test, and the R-tree tests
// a point deep inside a polygon, which a cell inside it answers here
// with no test at all.

// appendPolygon appends the encoding of pr's rings and their boxes, as
// newPolygonRegion found them, to b.
func appendPolygon(b []byte, pr polygonRegion) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(pr.mp)))
	for pi, poly := range pr.mp {
		b = binary.BigEndian.AppendUint32(b, uint32(len(poly)))
		for ri, ring := range poly {
			bound := pr.bounds[pi][ri]
			b = appendFloats(b, bound.Min[0], bound.Min[1], bound.Max[0], bound.Max[1])
			b = binary.BigEndian.AppendUint32(b, uint32(len(ring)))
			for _, p := range ring {
				b = appendFloats(b, p[0], p[1])
			}
		}
	}
	return b
}

var errShortPolygon = errors.New("polygon encoding ends early")

// decodePolygon decodes what appendPolygon wrote into a region that can
// test points (contains), not classify cells.
func decodePolygon(b []byte) (polygonRegion, error) {
	var pr polygonRegion
	u32 := func() (int, error) {
		if len(b) < 4 {
			return 0, errShortPolygon
		}
		n := binary.BigEndian.Uint32(b)
		b = b[4:]
		if int64(n) > int64(len(b)) { // each item takes at least a byte
			return 0, fmt.Errorf("a count of %d in %d bytes", n, len(b))
		}
		return int(n), nil
	}
	f64 := func() float64 {
		v := math.Float64frombits(binary.BigEndian.Uint64(b))
		b = b[8:]
		return v
	}
	polys, err := u32()
	if err != nil {
		return pr, err
	}
	pr.mp = make(orb.MultiPolygon, polys)
	pr.bounds = make([][]orb.Bound, polys)
	for pi := range polys {
		rings, err := u32()
		if err != nil {
			return pr, err
		}
		if rings == 0 {
			return pr, fmt.Errorf("polygon %d has no rings", pi)
		}
		pr.mp[pi] = make(orb.Polygon, rings)
		pr.bounds[pi] = make([]orb.Bound, rings)
		for ri := range rings {
			if len(b) < 4*8 {
				return pr, errShortPolygon
			}
			pr.bounds[pi][ri] = orb.Bound{Min: orb.Point{f64(), f64()}, Max: orb.Point{f64(), f64()}}
			n, err := u32()
			if err != nil {
				return pr, err
			}
			if n < 4 {
				return pr, fmt.Errorf("a ring of %d positions", n)
			}
			if len(b) < n*16 {
				return pr, errShortPolygon
			}
			ring := make(orb.Ring, n)
			for i := range ring {
				ring[i] = orb.Point{f64(), f64()}
			}
			pr.mp[pi][ri] = ring
		}
	}
	if len(b) != 0 {
		return pr, fmt.Errorf("%d bytes after the polygon", len(b))
	}
	return pr, nil
}
