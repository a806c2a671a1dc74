package geo

import (
	"math"

	"github.com/mmcloughlin/geohash"
)

// MaxBits is the precision of stored cells: 64-bit integer geohashes (32
// bits of latitude, 32 of longitude: about 4.7 mm by 9.3 mm at the equator).
const MaxBits = 64

// cell is a geohash cell of bits bits: every point whose 64-bit geohash
// starts with hash is inside it. Cells with more bits are smaller; the cell
// of 0 bits is the whole world. A cell is one contiguous range of 64-bit
// geohashes, [lo, hi), hence of keys.
//
// A cell belongs to a grid: geohash cells between the polar caps, or cells
// of a cap grid (see polar.go), whose hashes are Morton codes.
type cell struct {
	hash uint64
	bits uint
	grid grid
}

// locate returns the grid a point is stored in and its 64-bit hash there.
func locate(lat, lon float64) (grid, uint64) {
	h := encode(lat, lon)
	if g := gridOf(h); g != geohashGrid {
		return g, capHash(g, lat, lon)
	}
	return geohashGrid, h
}

// encode returns the 64-bit geohash of a valid point. The library maps
// latitude 90 to the south pole row and longitude 180 out of range (its
// 32-bit scaling overflows), so both are pulled in by 1e-9° (0.1 mm) first:
// the point is stored in the northmost row or eastmost column, where it
// belongs, and its exact coordinates are kept in the value.
//
// The library scales (lat + 90) / 180 to 32 bits, and the addition can
// round a point within an ulp of a cell's edge across it:
// 39.37499999999999 + 90 is 129.375 in float64, so the point lands in the
// cell whose rectangle starts at 39.375, which does not hold it. A
// covering tests regions against those rectangles, so a region ending
// between the point and the edge would miss it. encode therefore checks
// the point against its 64-bit cell's rectangle, computed as every cell's
// is (bounds), and steps back across an edge it was rounded over. A
// coarser cell's rectangle starts at the same computed edge (its lower
// bits are zeros), so it holds the point too (FuzzCellsHoldTheirPoints).
func encode(lat, lon float64) uint64 {
	const edge = 1e-9
	lat = min(lat, 90-edge)
	lon = min(lon, 180-edge)
	h := geohash.EncodeInt(lat, lon)
	b := geohash.BoundingBoxInt(h)
	switch {
	case lat < b.MinLat:
		h = geohash.NeighborIntWithPrecision(h, 64, geohash.South)
	case lat > b.MaxLat:
		h = geohash.NeighborIntWithPrecision(h, 64, geohash.North)
	}
	switch {
	case lon < b.MinLng:
		h = geohash.NeighborIntWithPrecision(h, 64, geohash.West)
	case lon > b.MaxLng:
		h = geohash.NeighborIntWithPrecision(h, 64, geohash.East)
	}
	return h
}

// rects returns latitude/longitude rectangles whose union holds the
// cell's points: a cap cell's bounding rectangles, or a geohash cell's own
// rectangle clipped to the latitudes between the caps (points above
// CapLatitude are stored in the caps, so a geohash cell that reaches into a
// cap row holds none of them; clipping keeps such cells out of coverings
// near a pole).
func (c cell) rects() ([3]rect, int) {
	if c.grid != geohashGrid {
		return c.capRects()
	}
	return [3]rect{clipToCaps(c.bounds())}, 1
}

// clipToCaps is a geohash cell's one rect from its rectangle r.
func clipToCaps(r rect) rect {
	r.MinLat, r.MaxLat = max(r.MinLat, -CapLatitude), min(r.MaxLat, CapLatitude)
	if r.MinLat > r.MaxLat { // wholly in a cap row: an empty cell
		r.MinLat, r.MaxLat = r.MaxLat, r.MinLat
	}
	return r
}

// width is the cell's larger side in metres.
func (c cell) width() float64 {
	if c.grid != geohashGrid {
		return c.capWidth()
	}
	return cellWidth(c.bounds())
}

// bounds returns a geohash cell's rectangle.
func (c cell) bounds() rect {
	b := geohash.BoundingBoxIntWithPrecision(c.hash, c.bits)
	return rect{MinLat: b.MinLat, MaxLat: b.MaxLat, MinLon: b.MinLng, MaxLon: b.MaxLng}
}

// children splits c in two by its next bit (geohash alternates longitude
// and latitude bits, so cells halve along one axis at a time).
func (c cell) children() [2]cell {
	return [2]cell{{c.hash << 1, c.bits + 1, c.grid}, {c.hash<<1 | 1, c.bits + 1, c.grid}}
}

// span returns the cell's range of 64-bit geohashes [lo, hi]; hi is
// inclusive so that the last cell needs no 2^64.
func (c cell) span() (lo, hi uint64) {
	if c.bits == 0 {
		return 0, math.MaxUint64
	}
	shift := MaxBits - c.bits
	lo = c.hash << shift
	return lo, lo | (1<<shift - 1)
}

// framed is a cell with its rectangle, for a descent that splits cells
// over and over: a child's rectangle is half its parent's, which costs an
// addition, where decoding the child's hash (bounds) costs a
// deinterleave and two scalings. The halves are exactly the rectangles
// bounds returns: a geohash cell's edges are −90 + 180·i/2^k and
// −180 + 360·j/2^k, dyadic multiples of 45 below 180 in magnitude, which
// a float64 holds exactly (45 needs 6 of its 53 bits, i and j at most
// 32), and so does their midpoint. TestFramedBounds checks it.
type framed struct {
	cell
	box rect // a geohash cell's own rectangle, unclipped; unused for a cap cell
}

// frame returns c with its rectangle.
func frame(c cell) framed {
	if c.grid != geohashGrid {
		return framed{cell: c}
	}
	return framed{cell: c, box: c.bounds()}
}

// classify classifies f for reg as classifyCell does, without decoding a
// geohash cell's hash.
func (f *framed) classify(reg region) (outside, inside bool) {
	if f.grid != geohashGrid {
		return classifyCell(reg, f.cell)
	}
	return reg.classify(clipToCaps(f.box))
}

// split writes f's children (cell.children's cells) into kids, each with
// its half of f's rectangle. A geohash interleaves longitude first, so a
// cell of even bits splits at its middle meridian (the child with bit 0 is
// the western half) and a cell of odd bits at its middle parallel (bit 0
// is the southern half).
func (f *framed) split(kids *[2]framed) {
	lo, hi := &kids[0], &kids[1]
	lo.hash, lo.bits, lo.grid = f.hash<<1, f.bits+1, f.grid
	hi.hash, hi.bits, hi.grid = f.hash<<1|1, f.bits+1, f.grid
	lo.box, hi.box = f.box, f.box
	if f.grid != geohashGrid {
		return
	}
	if f.bits%2 == 0 {
		mid := (f.box.MinLon + f.box.MaxLon) / 2
		lo.box.MaxLon, hi.box.MinLon = mid, mid
	} else {
		mid := (f.box.MinLat + f.box.MaxLat) / 2
		lo.box.MaxLat, hi.box.MinLat = mid, mid
	}
}
