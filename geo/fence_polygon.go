package geo

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/paulmach/orb"
)

// A polygon fence's rings are kept apart from its definition, under
// ("f", name, "p", id), in a form a lookup reads without parsing JSON
// or checking the polygon again (Put checked it). Formats 2 and 3 wrote:
//
//	uint32 polygons, then for each: uint32 rings, then for each ring:
//	its bounding box (min lon, min lat, max lon, max lat) and uint32
//	positions, then the positions (lon, lat), every number big-endian,
//	float64s by their bits.
//
// A point on a polygon's edge is tested with the ray casting a query's
// polygon runs (ringContains), so the answer is the one the fence itself
// gives. Before session 24 such a point read the definition's GeoJSON,
// its cells and all, and checked the polygon's edges for crossings
// again: among 100 polygons of 40 vertices a lookup took 42 µs, of 1,000
// vertices 1.1 ms (BenchmarkFencePolygons, memory). Decoding the rings
// took that to 2.5 µs and 7.7–8.3 µs (bbolt 2.5 and 9.5–9.7); reading
// them in place with their band indexes (below) to 1.8 and 2.3 µs (bbolt
// 2.1 and 3.0), where an R-tree of the polygons' boxes with orb's planar
// test takes 0.9 µs and 19 µs: orb finds a ring's box for every test,
// and the R-tree tests a point deep inside a polygon, which a cell inside
// it answers here with no test at all.

// The form written since format 4 (session 35) begins with a mark and
// gives each ring its band index, so that a lookup tests a point in place,
// reading the bytes of the point's band and nothing else
// (storedPolygonContains), and a move's path the edges of the bands its
// longitudes reach (storedPolygonMeetsPath):
//
//	uint32 0, the mark (the earlier form begins with its polygon count,
//	never 0), then the earlier form with each ring's positions followed
//	by its band index: uint32 bands (0 for a ring of indexFrom positions
//	or fewer, or none that pays), then for a ring with bands the index's
//	first longitude and band width (float64s), bands+1 uint32 starts and
//	starts[bands] uint32 edges, as ringIndex holds them.
//
// The earlier form (formats 2 and 3) is still read, by decoding it whole
// for each lookup as before; a fence gets the new form when it is put
// again, and Verify accepts either. A lookup near the border of a polygon
// of 50,000 positions took 190 µs in memory (bbolt 262), decoding it;
// read in place, 2.1–2.3 µs (bbolt 2.4–2.6), and at 5,000 positions 31
// → 1.8–2.0 µs, where orb's planar test of the polygon takes 1.1 ms and
// 85 µs; the crossings of a 1 km move near that border 285 µs → 7.5 µs
// in memory (bbolt 474 → 8 µs), at 5,000 positions 29 → 5.4 µs
// (BenchmarkFenceBorder). Near and a circle's Intersecting read the
// edges of the bands within reach of the point in place
// (storedPolygonEdgesNear): the fences within 100 km of a point 30 km
// outside that border 20 ms → 0.35 ms, a 5 km circle's 2.7 ms → 23 µs;
// a box's or a polygon's Intersecting meets it by its own edges' bands,
// a box 10 km square 570 → 20 µs (fence_polygon_inplace.go has the
// questions asked in place). The index
// adds 4 bytes a band (a band for every four edges) and 4 for each edge
// in each band it reaches: for a border's ring, 46–48% more bytes than
// its positions alone.

// appendPolygon appends the encoding of pr's rings, their boxes and
// their band indexes to b.
func appendPolygon(b []byte, pr polygonRegion) []byte {
	return appendPolygonForm(b, pr, true)
}

// appendPolygonForm appends pr's encoding to b: with the mark and the
// band indexes when indexed, else in the form of formats 2 and 3. The
// band indexes are pr's, or built as newPolygonRegion builds them when pr
// has none, so the encoding depends on the rings alone.
func appendPolygonForm(b []byte, pr polygonRegion, indexed bool) []byte {
	if indexed {
		b = binary.BigEndian.AppendUint32(b, 0)
	}
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
			if !indexed {
				continue
			}
			ix := pr.index(pi, ri)
			if pr.indexes == nil {
				ix = ringIndexOf(ring, bound)
			}
			if ix == nil {
				b = binary.BigEndian.AppendUint32(b, 0)
				continue
			}
			b = binary.BigEndian.AppendUint32(b, uint32(len(ix.starts)-1))
			b = appendFloats(b, ix.minLon, ix.width)
			for _, v := range ix.starts {
				b = binary.BigEndian.AppendUint32(b, uint32(v))
			}
			for _, v := range ix.edges {
				b = binary.BigEndian.AppendUint32(b, uint32(v))
			}
		}
	}
	return b
}

var errShortPolygon = errors.New("polygon encoding ends early")

// polygonReader reads an encoding in place; its first error stops it,
// and every read after that returns zeros.
type polygonReader struct {
	b   []byte
	err error
}

func (r *polygonReader) fail(err error) {
	if r.err == nil {
		r.err = err
	}
	r.b = nil
}

// take returns the next n bytes.
func (r *polygonReader) take(n int) []byte {
	if n < 0 || n > len(r.b) {
		r.fail(errShortPolygon)
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

// count reads a uint32 count of items of at least size bytes each, which
// the bytes left must be able to hold.
func (r *polygonReader) count(size int) int {
	b := r.take(4)
	if b == nil {
		return 0
	}
	n := int64(binary.BigEndian.Uint32(b))
	if n*int64(size) > int64(len(r.b)) {
		r.fail(fmt.Errorf("a count of %d in %d bytes", n, len(r.b)))
		return 0
	}
	return int(n)
}

func (r *polygonReader) f64() float64 {
	b := r.take(8)
	if b == nil {
		return 0
	}
	return math.Float64frombits(binary.BigEndian.Uint64(b))
}

// storedRing is a ring as its encoding holds it, read in place.
type storedRing struct {
	bound         orb.Bound
	positions     []byte // (lon, lat) float64 pairs
	bands         int    // 0 for no band index
	minLon, width float64
	starts, edges []byte // uint32s
}

// ring reads the next ring, with its band index when indexed. It checks
// the sizes of what it reads, not the values: a band's edges are checked
// as contains reads them.
func (r *polygonReader) ring(indexed bool) storedRing {
	var sr storedRing
	sr.bound = orb.Bound{Min: orb.Point{r.f64(), r.f64()}, Max: orb.Point{r.f64(), r.f64()}}
	n := r.count(16)
	if r.err == nil && n < 4 {
		r.fail(fmt.Errorf("a ring of %d positions", n))
	}
	sr.positions = r.take(16 * n)
	if !indexed || r.err != nil {
		return sr
	}
	if sr.bands = r.count(4); sr.bands == 0 {
		return sr
	}
	sr.minLon, sr.width = r.f64(), r.f64()
	sr.starts = r.take(4 * (sr.bands + 1))
	if r.err != nil {
		return sr
	}
	total := int(binary.BigEndian.Uint32(sr.starts[4*sr.bands:]))
	sr.edges = r.take(4 * total)
	return sr
}

// len is the number of the ring's positions.
func (sr storedRing) len() int { return len(sr.positions) / 16 }

// at is the ring's position i.
func (sr storedRing) at(i int) orb.Point {
	b := sr.positions[16*i:]
	return orb.Point{math.Float64frombits(binary.BigEndian.Uint64(b)), math.Float64frombits(binary.BigEndian.Uint64(b[8:]))}
}

// band is ringIndex.band, on the stored index.
func (sr storedRing) band(lon float64) int {
	j := int((lon - sr.minLon) / sr.width)
	return min(max(j, 0), sr.bands-1)
}

// indexedForm reports whether b, a polygon fence's stored rings, is in
// the form with band indexes.
func indexedForm(b []byte) bool { return len(b) >= 4 && binary.BigEndian.Uint32(b) == 0 }

// decodePolygon decodes an encoding in either form into a region that can
// test points (contains), not classify cells: with its rings' band
// indexes when the encoding holds them. Every band's edges are checked.
func decodePolygon(b []byte) (polygonRegion, error) {
	var pr polygonRegion
	r := &polygonReader{b: b}
	indexed := indexedForm(b)
	if indexed {
		r.take(4)
	}
	polys := r.count(4)
	pr.mp = make(orb.MultiPolygon, polys)
	pr.bounds = make([][]orb.Bound, polys)
	if indexed {
		pr.indexes = make([][]*ringIndex, polys)
	}
	for pi := range polys {
		rings := r.count(4)
		if r.err == nil && rings == 0 {
			return pr, fmt.Errorf("polygon %d has no rings", pi)
		}
		pr.mp[pi] = make(orb.Polygon, rings)
		pr.bounds[pi] = make([]orb.Bound, rings)
		if indexed {
			pr.indexes[pi] = make([]*ringIndex, rings)
		}
		for ri := range rings {
			sr := r.ring(indexed)
			if r.err != nil {
				return pr, r.err
			}
			ring := make(orb.Ring, sr.len())
			for i := range ring {
				ring[i] = sr.at(i)
			}
			pr.mp[pi][ri], pr.bounds[pi][ri] = ring, sr.bound
			if sr.bands == 0 {
				continue
			}
			ix, err := sr.index()
			if err != nil {
				return pr, fmt.Errorf("polygon %d ring %d: %w", pi, ri, err)
			}
			pr.indexes[pi][ri] = ix
		}
	}
	if r.err != nil {
		return pr, r.err
	}
	if len(r.b) != 0 {
		return pr, fmt.Errorf("%d bytes after the polygon", len(r.b))
	}
	return pr, nil
}

// index is the stored band index as a ringIndex, once every band's run of
// edges is checked: runs that follow one another from 0, and edges the
// ring has.
func (sr storedRing) index() (*ringIndex, error) {
	ix := &ringIndex{minLon: sr.minLon, width: sr.width, starts: make([]int32, sr.bands+1), edges: make([]int32, len(sr.edges)/4)}
	for j := range ix.starts {
		v := binary.BigEndian.Uint32(sr.starts[4*j:])
		if j == 0 && v != 0 || j > 0 && int32(v) < ix.starts[j-1] || v > math.MaxInt32 {
			return nil, fmt.Errorf("band %d starts at edge %d", j, v)
		}
		ix.starts[j] = int32(v)
	}
	for k := range ix.edges {
		v := binary.BigEndian.Uint32(sr.edges[4*k:])
		if int64(v) >= int64(sr.len()-1) {
			return nil, fmt.Errorf("the band index names edge %d of a ring of %d positions", v, sr.len())
		}
		ix.edges[k] = int32(v)
	}
	return ix, nil
}
