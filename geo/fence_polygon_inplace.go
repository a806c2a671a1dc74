package geo

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/paulmach/orb"
)

// Questions asked of a polygon fence's stored rings in place, reading the
// bytes of the bands they reach (fence_polygon.go has the encoding): does
// it hold a point (storedPolygonContains, for Containing and Crossings),
// does a move's path meet an edge (storedPolygonMeetsPath, for a Cross),
// and which edges lie within a distance of a point
// (storedPolygonEdgesNear, for Near and a circle's Intersecting; a box's
// or a polygon's edges are paths, shape.meetsStoredPolygon). Each
// gives the answer the whole polygon decoded gives (FuzzPolygonEncoding),
// and decodes a polygon in the earlier form to give it.

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
	on, err := sr.eachInBand(sr.band(p[0]), func(i int) bool { return sr.cast(p, i, &c) })
	return on || c, err
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

// eachInBand calls fn with each edge band j lists, by i for the edge
// from position i to i+1, until fn returns true, which it returns. A band
// whose run of edges, or an edge, the stored ring does not have is an
// error.
func (sr storedRing) eachInBand(j int, fn func(i int) bool) (bool, error) {
	from, to := int(binary.BigEndian.Uint32(sr.starts[4*j:])), int(binary.BigEndian.Uint32(sr.starts[4*j+4:]))
	if from > to || 4*to > len(sr.edges) {
		return false, fmt.Errorf("band %d holds edges %d to %d of %d", j, from, to, len(sr.edges)/4)
	}
	n := sr.len()
	for k := from; k < to; k++ {
		i := int(binary.BigEndian.Uint32(sr.edges[4*k:]))
		if i >= n-1 {
			return false, fmt.Errorf("band %d names edge %d of a ring of %d positions", j, i, n)
		}
		if fn(i) {
			return true, nil
		}
	}
	return false, nil
}

// storedPolygonContains reports whether the polygon fence whose rings
// are encoded in b holds (lat, lon), as polygonRegion.contains would on
// them decoded: in one of the polygons, which is in its outer ring and in
// none of its holes. A ring in the new form is read in place (only its
// box, and the positions of the point's band); one in the earlier form is
// decoded whole.
func storedPolygonContains(b []byte, lat, lon float64) (bool, error) {
	if !indexedForm(b) {
		pr, err := decodePolygon(b)
		if err != nil {
			return false, err
		}
		return pr.contains(lat, lon), nil
	}
	pt := orb.Point{lon, lat}
	in := false // in the current polygon's outer ring, and in no hole yet
	_, err := eachStoredRing(b, func(sr storedRing, outer bool) (bool, error) {
		switch {
		case outer && in:
			return true, nil // the polygon before holds it
		case !outer && !in:
			return false, nil // outside the outer ring: the holes are skipped
		}
		held, err := sr.contains(pt)
		switch {
		case err != nil:
			return false, err
		case outer:
			in = held
		case held:
			in = false // in a hole
		}
		return false, nil
	})
	return in && err == nil, err
}

// eachStoredRing calls fn with each ring of the polygons encoded in b, in
// the indexed form, in order, and whether it is a polygon's outer ring,
// until fn returns true or an error, which it returns.
func eachStoredRing(b []byte, fn func(sr storedRing, outer bool) (bool, error)) (bool, error) {
	r := &polygonReader{b: b[4:]}
	polys := r.count(4)
	for range polys {
		rings := r.count(4)
		if r.err == nil && rings == 0 {
			return false, errors.New("a polygon has no rings")
		}
		for ri := range rings {
			sr := r.ring(true)
			if r.err != nil {
				return false, r.err
			}
			if done, err := fn(sr, ri == 0); err != nil || done {
				return done, err
			}
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
	if !indexedForm(b) {
		pr, err := decodePolygon(b)
		if err != nil {
			return false, err
		}
		return p.meetsPolygon(&pr), nil
	}
	shifts := p.shifts()
	return eachStoredRing(b, func(sr storedRing, _ bool) (bool, error) { return sr.meetsPath(p, shifts) })
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
			met, err := sr.eachInBand(j, func(i int) bool {
				if j > first && sr.band(min(sr.at(i)[0], sr.at(i + 1)[0])) < j {
					return false // tested in an earlier band
				}
				return meets(i, s)
			})
			if err != nil || met {
				return met, err
			}
		}
	}
	return false, nil
}

// errWideRing says a stored polygon must be decoded whole for a question
// storedPolygonEdgesNear does not answer in place.
var errWideRing = errors.New("a ring in the earlier form, or 180° of longitude wide or more")

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
// bands is read whole. It returns errWideRing when b is in the earlier
// form, or a ring is 180° of longitude wide or more (its bands'
// longitudes would not say how far they are): the caller decodes the
// polygon and tests every edge.
func storedPolygonEdgesNear(b []byte, p ref, cutoff func() float64, fn func(e path) bool) (bool, error) {
	if !indexedForm(b) {
		return false, errWideRing
	}
	var pieces []path
	test := func(sr storedRing, i int) bool {
		a, c := sr.at(i), sr.at(i+1)
		pieces = appendEdge(pieces[:0], a.Lat(), a.Lon(), c.Lat(), c.Lon())
		for _, e := range pieces {
			box := e.rect()
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
	return eachStoredRing(b, func(sr storedRing, _ bool) (bool, error) {
		if !(sr.bound.Max[0]-sr.bound.Min[0] < 180) {
			return false, errWideRing
		}
		if p.minAngle(rect{MinLat: sr.bound.Min[1], MaxLat: sr.bound.Max[1], MinLon: sr.bound.Min[0], MaxLon: sr.bound.Max[0]}) > cutoff() {
			return false, nil // the whole ring is farther
		}
		if sr.bands == 0 {
			for i := 0; i < sr.len()-1; i++ {
				if test(sr, i) {
					return true, nil
				}
			}
			return false, nil
		}
		for _, shift := range [3]float64{0, -360, 360} { // the ring's side of ±180° and the other
			if shift != 0 && math.IsInf(p.window(cutoff()), 1) {
				// Every band is still within reach, so the first pass
				// read them all: the other sides would read them again
				// (a 750 km circle's Within took 27 ms doing so, where
				// one pass takes 9).
				break
			}
			if met, err := sr.bandsNear(p, p.lon+shift, cutoff, func(i int) bool { return test(sr, i) }); err != nil || met {
				return met, err
			}
		}
		return false, nil
	})
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
		met, err := sr.eachInBand(j, func(i int) bool {
			a, b := sr.at(i)[0], sr.at(i + 1)[0]
			if min(max(home, sr.band(min(a, b))), sr.band(max(a, b))) != j {
				return false // read in a band nearer q's
			}
			return fn(i)
		})
		if err != nil || met {
			return met, err
		}
	}
}

// storedFirstVertices returns the first vertex of each polygon encoded in
// b (the first position of its outer ring), in the indexed form.
func storedFirstVertices(b []byte) ([]orb.Point, error) {
	var out []orb.Point
	_, err := eachStoredRing(b, func(sr storedRing, outer bool) (bool, error) {
		if outer {
			out = append(out, sr.at(0))
		}
		return false, nil
	})
	return out, err
}
