package geo

import (
	"math"
)

// CapLatitude is where the polar caps begin: points with |latitude| of
// about 78.75° or more are stored in a cap grid, not under geohashes. It is
// the edge of the geohash rows of 4 latitude bits (90 − 180/16), so a
// geohash cell lies wholly in a cap row or wholly out of it, and a point's
// grid is decided by its geohash alone, with no rounding at the seam.
const CapLatitude = 90 - 180.0/16

// grid is one of the three key domains a point can be stored in.
type grid uint8

const (
	geohashGrid grid = iota // geohash cells, between the caps
	northCap                // the azimuthal grid around the north pole
	southCap                // and around the south pole
)

// name is the grid's key element and its name in Explain.
func (g grid) name() string {
	switch g {
	case northCap:
		return "north"
	case southCap:
		return "south"
	}
	return "geohash"
}

// capRowBits are the geohash's first four latitude bits (of its first
// eight): all ones in the northmost row of 16, all zeros in the southmost.
const capRowBits = 0x55 << 56

// gridOf returns the grid a point with this 64-bit geohash is stored in.
func gridOf(h uint64) grid {
	switch h & capRowBits {
	case capRowBits:
		return northCap
	case 0:
		return southCap
	}
	return geohashGrid
}

// inCapRows reports whether a geohash cell lies wholly in a cap row (its
// points are stored in a cap grid, so it holds no geohash keys).
func inCapRows(c cell) bool {
	return c.grid == geohashGrid && c.bits >= 8 && gridOf(c.hash<<(MaxBits-c.bits)) != geohashGrid
}

// A cap grid is a quadtree over the azimuthal equidistant projection of the
// cap around its pole: a point at angular distance ρ from the pole (radians)
// and longitude λ maps to
//
//	x = ρ·sin λ,  y = ρ·cos λ
//
// so distances from the pole are exact and a cell of the grid is close to
// square on the ground: along a parallel the projection stretches by
// ρ/sin ρ, at most 1.0065 at the cap's edge (ρ = 11.25°). Where geohash
// cells near a pole are slivers (a cell at 89.9° is 570 times taller than
// wide), a cap cell is as wide as it is tall, so a small circle needs few
// cells and reads few points outside itself. x and y span [−capRho, capRho],
// quantized to 32 bits each and interleaved (x first) into a Morton code,
// which orders the cells as a geohash does: a cell of any size is one
// contiguous range of codes.
//
// capRho is the cap's angular radius with a margin, so that a point the
// geohash puts in a cap row by rounding still projects inside the square.
const capRho = (180.0/16 + 1e-6) * math.Pi / 180

// capProject returns the projection of (lat, lon), in degrees, on the cap
// grid g.
func capProject(g grid, lat, lon float64) (x, y float64) {
	ρ := rad(90 - lat)
	if g == southCap {
		ρ = rad(90 + lat)
	}
	s, c := math.Sincos(rad(lon))
	return ρ * s, ρ * c
}

// capHash is the 64-bit Morton code of a point on cap grid g.
func capHash(g grid, lat, lon float64) uint64 {
	x, y := capProject(g, lat, lon)
	return spread(capQuantize(x))<<1 | spread(capQuantize(y))
}

// poleHash is the cap cell (a leaf) of every point exactly on the pole:
// x = y = 0 quantizes to 2^31 on both axes, spread(1<<31)<<1 | spread(1<<31).
const poleHash uint64 = 0xc000_0000_0000_0000

// capQuantize maps [−capRho, capRho] to 32 bits.
func capQuantize(v float64) uint32 {
	q := math.Floor((v + capRho) / (2 * capRho) * (1 << 32))
	return uint32(max(0, min(q, 1<<32-1)))
}

// spread moves the 32 bits of v to the even bit positions of a uint64.
func spread(v uint32) uint64 {
	x := uint64(v)
	x = (x | x<<16) & 0x0000ffff0000ffff
	x = (x | x<<8) & 0x00ff00ff00ff00ff
	x = (x | x<<4) & 0x0f0f0f0f0f0f0f0f
	x = (x | x<<2) & 0x3333333333333333
	x = (x | x<<1) & 0x5555555555555555
	return x
}

// squash is spread's inverse: the even bits of x.
func squash(x uint64) uint32 {
	x &= 0x5555555555555555
	x = (x | x>>1) & 0x3333333333333333
	x = (x | x>>2) & 0x0f0f0f0f0f0f0f0f
	x = (x | x>>4) & 0x00ff00ff00ff00ff
	x = (x | x>>8) & 0x0000ffff0000ffff
	x = (x | x>>16) & 0x00000000ffffffff
	return uint32(x)
}

// capSquare returns a cap cell's square in projected coordinates.
func (c cell) capSquare() (x0, x1, y0, y1 float64) {
	lo, _ := c.span()
	xBits, yBits := (c.bits+1)/2, c.bits/2
	step := 2 * capRho / (1 << 32)
	ix, iy := float64(squash(lo>>1)), float64(squash(lo))
	x0, y0 = -capRho+ix*step, -capRho+iy*step
	return x0, x0 + math.Ldexp(step, 32-int(xBits)), y0, y0 + math.Ldexp(step, 32-int(yBits))
}

// capRects returns latitude/longitude rectangles whose union holds every
// point of a cap cell: up to three.
//
// The latitudes come from the square's nearest and farthest points from the
// pole (the origin). Seen from the pole, a square spans the longitudes
// between its corners: a convex polygon's directions from a point outside
// it or on its boundary are the cone of its vertices, which spans less than
// 180° (exactly 180° with the pole on an edge). The root square, which
// holds the pole inside, spans every longitude. A span across ±180° gives
// two rectangles.
//
// A square with the pole on its boundary also gets the disk within two grid
// steps of the pole, at every longitude: a point that close to the pole
// (including every point on it, whatever its longitude) is quantized by its
// rounded coordinates, not its direction. Farther out, rounding turns a
// point's direction by at most ulp(capRho)/ρ, about 3e-17/ρ radians, which
// the longitude margin covers; 1e-12 rad on ρ covers the latitudes. So the
// rectangles can only be larger than exact.
func (c cell) capRects() ([3]rect, int) {
	x0, x1, y0, y1 := c.capSquare()
	gap := func(lo, hi float64) float64 { return max(0, max(lo, -hi)) }
	ρMin := math.Hypot(gap(x0, x1), gap(y0, y1))
	ρMax := math.Hypot(max(-x0, x1), max(-y0, y1)) + 1e-12
	deg := func(r float64) float64 { return r * 180 / math.Pi }
	// lats maps [ρa, ρb] from the pole to a latitude interval.
	lats := func(ρa, ρb float64) (float64, float64) {
		ρa = max(0, ρa-1e-12)
		if c.grid == southCap {
			return -90 + deg(ρa), min(90, -90+deg(ρb))
		}
		return max(-90, 90-deg(ρb)), 90 - deg(ρa)
	}
	lat0, lat1 := lats(ρMin, ρMax)
	if x0 < 0 && x1 > 0 && y0 < 0 && y1 > 0 {
		return [3]rect{{MinLat: lat0, MaxLat: lat1, MinLon: -180, MaxLon: 180}}, 1
	}
	var out [3]rect
	n := 0
	ρRef := ρMin
	if x0 <= 0 && x1 >= 0 && y0 <= 0 && y1 >= 0 { // the pole on the boundary
		const step = 2 * capRho / (1 << 32)
		ρRef = 2 * step
		d0, d1 := lats(0, ρRef+1e-12)
		out[n] = rect{MinLat: d0, MaxLat: d1, MinLon: -180, MaxLon: 180}
		n++
	}
	// Directions are measured from the square's centre's, which lies
	// strictly inside the cone, so every corner is less than 180° from it
	// and the wrap to (−180°, 180°] is never ambiguous.
	ref := deg(math.Atan2((x0+x1)/2, (y0+y1)/2))
	var dMin, dMax float64
	for _, p := range [4][2]float64{{x0, y0}, {x0, y1}, {x1, y0}, {x1, y1}} {
		if p[0] == 0 && p[1] == 0 {
			continue // the pole itself: no direction
		}
		d := deg(math.Atan2(p[0], p[1])) - ref
		if d > 180 {
			d -= 360
		} else if d <= -180 {
			d += 360
		}
		dMin, dMax = min(dMin, d), max(dMax, d)
	}
	margin := 1e-9 + deg(3e-17/ρRef)
	lo, hi := ref+dMin-margin, ref+dMax+margin
	switch {
	case lo < -180:
		out[n], out[n+1] = rect{lat0, lat1, lo + 360, 180}, rect{lat0, lat1, -180, hi}
		return out, n + 2
	case hi > 180:
		out[n], out[n+1] = rect{lat0, lat1, lo, 180}, rect{lat0, lat1, -180, hi - 360}
		return out, n + 2
	}
	out[n] = rect{lat0, lat1, lo, hi}
	return out, n + 1
}

// capHolding returns the cap grid every point of box is stored in, or
// geohashGrid when there is none: when box's nearest latitude to the
// equator already lies in a cap row, so does all of it (the geohash is
// monotone in latitude, and gridOf decides by its latitude bits alone).
func capHolding(box Box) grid {
	switch {
	case gridOf(encode(box.MinLat, 0)) == northCap:
		return northCap
	case gridOf(encode(box.MaxLat, 0)) == southCap:
		return southCap
	}
	return geohashGrid
}

// capSquare returns a square on cap grid g's projection that holds the
// projection of every point of the circle, which must lie in the cap (so
// that its centre is within capRho of the pole).
//
// The projection is exact along meridians and stretches along parallels
// by ρ/sin ρ, which grows with ρ, the distance from the pole; so a path
// whose points stay within ρ of the pole is at most ρ/sin ρ times longer
// projected, and two points at angle d apart project at most (ρ/sin ρ)·d
// apart, measured along the projection of the great circle between them.
// On that arc from the centre C to a point P of the circle, the distance
// from the pole is greatest at an end (along a great circle cos ρ is a
// sinusoid, and this arc is far too short to reach its other extreme,
// ρ ≥ 90°): at most ρ_C + θ. So every point of the circle projects within
// k·θ of C's projection, k = (ρ_C + θ)/sin(ρ_C + θ). The margin covers
// rounding in the projection of C and of each point (a few ulps of capRho,
// some 1e-17 radians).
func (c *circle) capSquare(g grid) (x0, x1, y0, y1 float64) {
	cx, cy := capProject(g, c.lat, c.lon)
	ρ := rad(90-math.Abs(c.lat)) + c.θ // ρ_C + θ: the centre is in g's hemisphere
	k := 1.0
	if ρ > 0 {
		k = ρ / math.Sin(ρ)
	}
	half := k*c.θ*(1+1e-12) + 1e-12
	return cx - half, cx + half, cy - half, cy + half
}

// capWidth is a cap cell's side on the ground, in metres (at most 0.7%
// longer along a parallel).
func (c cell) capWidth() float64 {
	x0, x1, _, _ := c.capSquare()
	return (x1 - x0) * EarthRadius * 1.0065
}
