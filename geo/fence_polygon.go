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
// outside that border 20 ms → 0.35 ms, a 5 km circle's 2.7 ms → 23 µs.
// A box's or a polygon's Intersecting still decodes the fence whole. The
// index adds 4 bytes a band (a band
// for every four edges) and 4 for each edge in each band it reaches: for
// a border's ring, 46–48% more bytes than its positions alone.

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

// contains is ringContains on the stored ring: the same ray casting, cast
// against the edges of the point's band when the ring has bands. A band
// that names an edge the ring does not have is an error.
func (sr storedRing) contains(p orb.Point) (bool, error) {
	if !sr.bound.Contains(p) {
		return false, nil
	}
	n := sr.len()
	c, on := rayIntersect(p, sr.at(0), sr.at(n-1))
	if on {
		return true, nil
	}
	if sr.bands == 0 {
		for i := 0; i < n-1; i++ {
			if sr.cast(p, i, &c) {
				return true, nil
			}
		}
		return c, nil
	}
	j := sr.band(p[0])
	from, to, err := sr.run(j)
	if err != nil {
		return false, err
	}
	for k := from; k < to; k++ {
		i, err := sr.edge(j, k)
		if err != nil {
			return false, err
		}
		if sr.cast(p, i, &c) {
			return true, nil
		}
	}
	return c, nil
}

// cast casts the ray from p against the edge from position i to i+1, as
// ringContains does: it reports whether p lies on the edge, and flips c
// when the ray crosses it.
func (sr storedRing) cast(p orb.Point, i int, c *bool) (on bool) {
	s, e := sr.at(i), sr.at(i+1)
	if passesBy(p, s, e) {
		return false
	}
	inter, on := rayIntersect(p, s, e)
	if inter {
		*c = !*c
	}
	return on
}

// run returns the run of band j's edges in the index, edges[from:to].
func (sr storedRing) run(j int) (from, to int, err error) {
	from, to = int(binary.BigEndian.Uint32(sr.starts[4*j:])), int(binary.BigEndian.Uint32(sr.starts[4*j+4:]))
	if from > to || 4*to > len(sr.edges) {
		return 0, 0, fmt.Errorf("band %d holds edges %d to %d of %d", j, from, to, len(sr.edges)/4)
	}
	return from, to, nil
}

// edge returns the edge the index lists k-th, in band j: the edge from
// position i to i+1, which the ring must have.
func (sr storedRing) edge(j, k int) (i int, err error) {
	i = int(binary.BigEndian.Uint32(sr.edges[4*k:]))
	if n := sr.len(); i >= n-1 {
		return 0, fmt.Errorf("band %d names edge %d of a ring of %d positions", j, i, n)
	}
	return i, nil
}

// storedPolygonContains reports whether the polygon fence whose rings
// are encoded in b holds (lat, lon), as polygonRegion.contains would on
// them decoded: in one of the polygons, which is in its outer ring and in
// none of its holes. A ring in the new form is read in place (only its
// box, and the positions of the point's band); one in the earlier form is
// decoded whole.
func storedPolygonContains(b []byte, lat, lon float64) (bool, error) {
	r := &polygonReader{b: b}
	if mark := r.count(0); mark != 0 || r.err != nil {
		pr, err := decodePolygon(b)
		if err != nil {
			return false, err
		}
		return pr.contains(lat, lon), nil
	}
	pt := orb.Point{lon, lat}
	polys := r.count(4)
	for range polys {
		rings := r.count(4)
		if r.err == nil && rings == 0 {
			return false, errors.New("a polygon has no rings")
		}
		in := false // in the outer ring, and in no hole yet
		for ri := range rings {
			sr := r.ring(true)
			if r.err != nil {
				return false, r.err
			}
			if ri > 0 && !in {
				continue // outside the outer ring: the holes are skipped
			}
			held, err := sr.contains(pt)
			switch {
			case err != nil:
				return false, err
			case ri == 0:
				in = held
			case held:
				in = false // in a hole
			}
		}
		if in {
			return true, nil
		}
	}
	return false, r.err
}

// storedPolygonMeetsPath reports whether the path meets an edge of the
// polygon fence whose rings are encoded in b, as path.meetsPolygon would
// on them decoded. A ring in the new form is read in place: its box, and
// the edges of the bands the path's longitudes reach; one in the earlier
// form is decoded whole.
func storedPolygonMeetsPath(b []byte, p path) (bool, error) {
	r := &polygonReader{b: b}
	if mark := r.count(0); mark != 0 || r.err != nil {
		pr, err := decodePolygon(b)
		if err != nil {
			return false, err
		}
		return p.meetsPolygon(&pr), nil
	}
	shifts := p.shifts()
	polys := r.count(4)
	for range polys {
		rings := r.count(4)
		if r.err == nil && rings == 0 {
			return false, errors.New("a polygon has no rings")
		}
		for range rings {
			sr := r.ring(true)
			if r.err != nil {
				return false, r.err
			}
			if meets, err := sr.meetsPath(p, shifts); err != nil || meets {
				return meets, err
			}
		}
	}
	return false, r.err
}

// bandMargin widens the longitudes whose bands meetsPath and bandsNear
// read, in degrees: far above the rounding of lon - shift and of a band's
// ends, so that every edge a whole-ring test could pass is read.
const bandMargin = 1e-9

// meetsPath reports whether the path meets an edge of the ring shifted
// by one of shifts (path.shifts), testing each edge as path.meetsPolygon
// does: the edge's box against the path's, then segmentsMeet. With bands,
// only the edges of the bands of the path's longitudes less the shift are
// tested, each once (in the first of those bands that holds it).
func (sr storedRing) meetsPath(p path, shifts []float64) (bool, error) {
	lo := orb.Point{min(p.lon0, p.lon1), min(p.lat0, p.lat1)}
	hi := orb.Point{max(p.lon0, p.lon1), max(p.lat0, p.lat1)}
	a, b := orb.Point{p.lon0, p.lat0}, orb.Point{p.lon1, p.lat1}
	n := sr.len()
	meets := func(i int, s float64) bool {
		c, d := sr.at(i), sr.at(i+1)
		c[0], d[0] = c[0]+s, d[0]+s
		if max(c[0], d[0]) < lo[0] || min(c[0], d[0]) > hi[0] || max(c[1], d[1]) < lo[1] || min(c[1], d[1]) > hi[1] {
			return false // their boxes are apart
		}
		return segmentsMeet(a, b, c, d) // polygon.go
	}
	for _, s := range shifts {
		// Rounding never reverses an order, so a box apart when shifted
		// holds no edge that is not.
		if sr.bound.Max[0]+s < lo[0] || sr.bound.Min[0]+s > hi[0] || sr.bound.Max[1] < lo[1] || sr.bound.Min[1] > hi[1] {
			continue
		}
		if sr.bands == 0 {
			for i := 0; i < n-1; i++ {
				if meets(i, s) {
					return true, nil
				}
			}
			continue
		}
		first, last := sr.band(lo[0]-s-bandMargin), sr.band(hi[0]-s+bandMargin)
		for j := first; j <= last; j++ {
			from, to, err := sr.run(j)
			if err != nil {
				return false, err
			}
			for k := from; k < to; k++ {
				i, err := sr.edge(j, k)
				if err != nil {
					return false, err
				}
				if j > first && sr.band(min(sr.at(i)[0], sr.at(i + 1)[0])) < j {
					continue // tested in an earlier band
				}
				if meets(i, s) {
					return true, nil
				}
			}
		}
	}
	return false, nil
}

// errWideRing says a stored polygon must be decoded whole for a question
// storedPolygonEdgesNear does not answer in place.
var errWideRing = errors.New("a ring in the earlier form, or 180° of longitude wide or more")

// indexedForm reports whether b, a polygon fence's stored rings, is in
// the form with band indexes.
func indexedForm(b []byte) bool { return len(b) >= 4 && binary.BigEndian.Uint32(b) == 0 }

// storedPolygonEdgesNear calls fn with the edges of the polygon encoded
// in b (as shape.edges gives them: paths of at most 90° of longitude)
// whose boxes lie within cutoff() radians of p (rect.minAngle), and
// perhaps others, until fn returns true; it reports whether fn did. Every
// edge with a point within cutoff() is among them, as long as cutoff()
// never grows. Only the edges of the bands whose longitudes lie within
// cutoff of p's are read, each once: a point at longitude gap Δλ from p
// is at least the angle d from it with sin d = cos φ·sin Δλ (the
// distance to the meridian; for Δλ of 90° or more, to the nearer pole),
// so for sin θ < cos φ the bands within Δλ = asin(sin θ / cos φ) of p's
// longitude are all that can hold such a point, and otherwise every band
// can. The bands are read nearest first, so that the window narrows as
// fn finds nearer edges and cutoff() shrinks (bandsNear). A ring without
// bands is read whole. It returns errWideRing when b
// is in the earlier form, or a ring is 180° of longitude wide or more
// (its bands' longitudes would not say how far they are): the caller
// decodes the polygon and tests every edge.
func storedPolygonEdgesNear(b []byte, p ref, cutoff func() float64, fn func(e path) bool) (bool, error) {
	if !indexedForm(b) {
		return false, errWideRing
	}
	r := &polygonReader{b: b[4:]}
	polys := r.count(4)
	var pieces []path
	test := func(sr storedRing, i int) bool {
		a, c := sr.at(i), sr.at(i+1)
		pieces = appendEdge(pieces[:0], a.Lat(), a.Lon(), c.Lat(), c.Lon())
		for _, e := range pieces {
			box := rect{MinLat: min(e.lat0, e.lat1), MaxLat: max(e.lat0, e.lat1), MinLon: min(e.lon0, e.lon1), MaxLon: max(e.lon0, e.lon1)}
			θ := cutoff()
			// The latitude gap first: no point of the box is nearer than
			// it, and it costs no trigonometry (shaded, so that it never
			// passes over a box minAngle would keep).
			if rad(max(box.MinLat-p.lat, p.lat-box.MaxLat)) > θ*(1+1e-9)+1e-12 {
				continue
			}
			if p.minAngle(box) <= θ && fn(e) {
				return true
			}
		}
		return false
	}
	for range polys {
		rings := r.count(4)
		if r.err == nil && rings == 0 {
			return false, errors.New("a polygon has no rings")
		}
		for range rings {
			sr := r.ring(true)
			if r.err != nil {
				return false, r.err
			}
			if !(sr.bound.Max[0]-sr.bound.Min[0] < 180) {
				return false, errWideRing
			}
			if p.minAngle(rect{MinLat: sr.bound.Min[1], MaxLat: sr.bound.Max[1], MinLon: sr.bound.Min[0], MaxLon: sr.bound.Max[0]}) > cutoff() {
				continue // the whole ring is farther
			}
			n := sr.len()
			if sr.bands > 0 {
				// The ring's side of ±180° and the other.
				for _, shift := range [3]float64{0, -360, 360} {
					if met, err := sr.bandsNear(p, p.lon+shift, cutoff, func(i int) bool { return test(sr, i) }); err != nil || met {
						return met, err
					}
				}
				continue
			}
			for i := 0; i < n-1; i++ {
				if test(sr, i) {
					return true, nil
				}
			}
		}
	}
	return false, r.err
}

// window is how far, in degrees of longitude, a point within θ radians
// of p can lie from p's meridian (storedPolygonEdgesNear), a little more
// for rounding; +Inf when every longitude can.
func (p ref) window(θ float64) float64 {
	sin := math.Sin(min(θ, math.Pi/2))
	if θ >= math.Pi/2 || sin >= p.cosφ {
		return math.Inf(1)
	}
	return math.Asin(sin/p.cosφ)*180/math.Pi*(1+1e-9) + bandMargin
}

// bandsNear calls fn with each edge of the bands within the window of
// cutoff() of the longitude q (p's, or p's shifted by 360°), nearest
// band first, until fn returns true, and reports whether it did. Bands
// are read outwards from q's, and the window narrows as cutoff() does.
// An edge listed in several bands is read in the one nearest q's.
func (sr storedRing) bandsNear(p ref, q float64, cutoff func() float64, fn func(i int) bool) (bool, error) {
	gap := func(j int) float64 { // degrees of longitude from q to band j
		l, u := sr.minLon+float64(j)*sr.width, sr.minLon+float64(j+1)*sr.width
		switch {
		case q < l:
			return l - q
		case q > u:
			return q - u
		}
		return 0
	}
	home := sr.band(min(max(q, sr.bound.Min[0]), sr.bound.Max[0]))
	left, right := home, home+1 // the next bands to read on either side
	for {
		Δ := p.window(cutoff())
		toLeft, toRight := left >= 0 && gap(left) <= Δ, right < sr.bands && gap(right) <= Δ
		var j int
		switch {
		case toLeft && (!toRight || gap(left) <= gap(right)):
			j, left = left, left-1
		case toRight:
			j, right = right, right+1
		default:
			return false, nil
		}
		from, to, err := sr.run(j)
		if err != nil {
			return false, err
		}
		for k := from; k < to; k++ {
			i, err := sr.edge(j, k)
			if err != nil {
				return false, err
			}
			a, b := sr.at(i)[0], sr.at(i + 1)[0]
			if min(max(home, sr.band(min(a, b))), sr.band(max(a, b))) != j {
				continue // read in a band nearer q's
			}
			if fn(i) {
				return true, nil
			}
		}
	}
}

// decodePolygon decodes an encoding in either form into a region that can
// test points (contains), not classify cells: with its rings' band
// indexes when the encoding holds them. Every band's edges are checked.
func decodePolygon(b []byte) (polygonRegion, error) {
	var pr polygonRegion
	r := &polygonReader{b: b}
	indexed := len(b) >= 4 && binary.BigEndian.Uint32(b) == 0
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
