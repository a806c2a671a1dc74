package geo

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/keyspacedb/keyspace/internal/errctx"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"
)

// Corridors as fences: the ground within a distance of a line, Along's
// region (along.go) stored as a fence. A truck's route with 500 m either
// side is a corridor it must keep to (it "exits" the fence when it strays
// from the route); a road or a river stored with no distance is a line
// that moves cross and that Intersecting, Along and Near find (Tile38
// keeps LineStrings in a collection for the same questions).
//
// As a fence, a corridor is stored as a sector is: its cells are its
// covering's, each inside it (no test) or on its edge (cellEdge), which
// sends a point to its region key ("f", name, "r", id), holding its radius
// and lines (regionValue), where the point is measured against the line's
// pieces in place (corridorValueHolds). A move passes through it when the move's path comes
// within the radius of the line (corridor.reachesEdge, fence_along.go), and
// a point's distance from it, for Near, is its distance from the line
// less the radius.
//
// # Meeting
//
// A corridor K of radius R about the line L shares a point with a
// region F exactly when some point of F lies within R of L, which is
// what Fences.Along asks of a fence (corridor.reaches): F holds a first
// position of L, or F's boundary comes within R of L. Two corridors meet
// when their lines come within the sum of their radii: each piece of one
// line is searched against the other's corridor so widened.
//
// # Within
//
// K lies within an area A (a circle, a box, a polygon or a sector) exactly
// when L does and A's boundary comes no nearer L than R. If a point y of
// K lay outside A, the shortest way from y to the point x of L within R
// of it would cross A's boundary at some z no farther than R from x.
// Conversely a boundary point z nearer L than R has points just outside
// A nearer L than R too. So (withinTolerance allowed, as for other
// fences): every piece of L, cut where A's boundary crosses it, lies in
// A; and when R exceeds the tolerance, no boundary curve of A comes
// within R less the tolerance of L (corridor.reachesCurve): a box's or
// a polygon's edges, a sector's two sides taken whole, from its apex to
// its antipode (a side's part beyond the circle is farther than R from
// L when K lies within the circle, which circle.holdsShape decides
// first). A circle area is decided by the distance from its antipode to
// K, as for every fence. A corridor as Within's area, the fences wholly
// within a distance of a line, is fence_corridor_within.go's.

// Corridor is the region within Radius metres of Line, an orb.LineString
// or orb.MultiLineString of GeoJSON [lon, lat] positions whose edges are
// straight in longitude and latitude, as Index.Along takes them. A Radius
// of 0 is the line itself: a road that moves cross and queries meet.
type Corridor struct {
	Line   orb.Geometry
	Radius float64
}

// storedCorridor is a Corridor in a fence's JSON definition.
type storedCorridor struct {
	Line   *geojson.Geometry `json:"line"`
	Radius float64           `json:"radius"`
}

// corridor returns sc as a Corridor: nil for nil.
func (sc *storedCorridor) corridor() *Corridor {
	if sc == nil {
		return nil
	}
	c := &Corridor{Radius: sc.Radius}
	if sc.Line != nil {
		c.Line = sc.Line.Geometry()
	}
	return c
}

// region validates c, the corridor of the fence id, and returns its
// region.
func (c *Corridor) region(id string) (*corridor, error) {
	reg, err := newCorridor(c.Line, c.Radius)
	if err != nil {
		// The line's fault, said as a fence's: "line has 1 positions",
		// not "invalid query: …" (the error still wraps ErrBadQuery).
		return nil, fmt.Errorf("%w %q: %w", ErrBadFence, id, errctx.Bare(ErrBadQuery.Error(), err))
	}
	return reg, nil
}

// regionValue is c's region key: cellCorridor, its radius, the number of
// its lines, and each line's number of positions and their latitudes and
// longitudes, big-endian. c has been validated.
func (c *Corridor) regionValue() []byte {
	lines := corridorLines(c.Line)
	v := appendFloats([]byte{cellCorridor}, c.Radius)
	v = binary.BigEndian.AppendUint32(v, uint32(len(lines)))
	for _, ls := range lines {
		v = binary.BigEndian.AppendUint32(v, uint32(len(ls)))
		for _, p := range ls {
			v = appendFloats(v, p.Lat(), p.Lon())
		}
	}
	return v
}

var errCorridorValue = errors.New("not a corridor's region")

// decodeCorridor reads a corridor's regionValue back into its region.
func decodeCorridor(v []byte) (*corridor, error) {
	if len(v) < 13 || v[0] != cellCorridor {
		return nil, errCorridorValue
	}
	radius := readFloat(v[1:])
	n := binary.BigEndian.Uint32(v[9:])
	rest := v[13:]
	var lines orb.MultiLineString
	for range n {
		if len(rest) < 4 {
			return nil, errCorridorValue
		}
		m := uint64(binary.BigEndian.Uint32(rest))
		rest = rest[4:]
		if uint64(len(rest)) < 16*m {
			return nil, errCorridorValue
		}
		ls := make(orb.LineString, m)
		for i := range ls {
			ls[i] = orb.Point{readFloat(rest[16*i+8:]), readFloat(rest[16*i:])}
		}
		rest = rest[16*m:]
		lines = append(lines, ls)
	}
	if len(rest) != 0 {
		return nil, errCorridorValue
	}
	return newCorridor(lines, radius)
}

// testedStored reports whether a point on f's edge is tested on its
// stored region (a polygon's rings, a sector's or a corridor's region
// key) rather than on what its edge cells carry.
func (f Fence) testedStored() bool {
	return f.Polygon != nil || f.Sector != nil || f.Corridor != nil
}

// withRadius returns a copy of c whose radius is radius: its pieces
// shared, its thresholds and box its own.
func (c *corridor) withRadius(radius float64) *corridor {
	w := *c
	w.setRadius(radius)
	return &w
}

// reachesCorridor reports whether the line of the corridor k comes
// within c's radius and k's of c's line: whether the two corridors share
// a point.
func (c *corridor) reachesCorridor(k *corridor) bool {
	wide := c.withRadius(c.radius + k.radius)
	for i := range k.pieces {
		if wide.reachesEdge(k.pieces[i].path) {
			return true
		}
	}
	return false
}

// distanceFrom is how far p lies from c, in metres: 0 inside it.
func (c *corridor) distanceFrom(p ref) float64 {
	return max(0, c.distance(p.lat, p.lon, math.Inf(1))-c.radius)
}

// heldBy reports whether an area holds every point of c (see the top of
// this file): pieceIn says whether a piece of c's line (not across ±180°)
// lies in the area, and boundary returns the area's boundary as edges and
// curves, searched for a point within c's radius less withinTolerance of
// c's line.
func (c *corridor) heldBy(pieceIn func(e path) bool, boundary func() ([]path, []curve)) bool {
	for i := range c.pieces {
		for _, e := range splitAt180(c.pieces[i].path) {
			if !pieceIn(e) {
				return false
			}
		}
	}
	if c.radius <= withinTolerance {
		return true
	}
	inner := c.withRadius(c.radius - withinTolerance)
	edges, curves := boundary()
	for _, e := range edges {
		if inner.reachesEdge(e) {
			return false
		}
	}
	for _, cv := range curves {
		if inner.reachesCurve(cv.at, cv.groundLength, cv.lo, cv.hi, nil) {
			return false
		}
	}
	return true
}

// holdsCorridor reports whether the area b bounds holds every point of
// c: each piece of c's line, cut where the boundary crosses it, lies in
// the area, and no piece of the boundary near c's box (one with the
// outside on a side of it) comes within the radius (corridor.heldBy).
func (b *boundary) holdsCorridor(c *corridor) bool {
	var ts []float64
	var cuts []path
	pieceIn := func(e path) bool {
		if !b.contains(e.lat0, e.lon0) {
			return false
		}
		ts = append(ts[:0], 0, 1)
		b.pieces.each(e, func(_ int, p path) bool { ts = crossings(e, p, ts); return true })
		cuts = cut(cuts[:0], e, ts)
		for _, p := range cuts {
			if !b.contains(p.at(0.5)) {
				return false
			}
		}
		return true
	}
	return c.heldBy(pieceIn, func() ([]path, []curve) {
		var edges []path
		for _, iv := range c.box.lonIntervals() {
			b.pieces.each(path{lat0: c.box.MinLat, lon0: iv[0], lat1: c.box.MaxLat, lon1: iv[1]}, func(i int, p path) bool {
				if b.side(i)&(outLeft|outRight) != 0 {
					edges = append(edges, p)
				}
				return true
			})
		}
		return edges, nil
	})
}

// heldBySector reports whether the sector f holds every point of c, once
// f's circle holds c and c does not hold the middle of the rest of the
// sphere (sectorFrame.holdsShape): each piece of c's line stays out of
// that rest, and neither of f's sides, taken whole from its apex to its
// antipode, comes within the radius (corridor.heldBy).
func (c *corridor) heldBySector(f *sectorFrame) bool {
	return c.heldBy(func(e path) bool {
		return !searchEdge(e, f.classifyRest, f.restContains, false)
	}, func() ([]path, []curve) {
		from := rad(f.from)
		return nil, []curve{
			{u: f.a, v: f.direction(from), hi: math.Pi},
			{u: f.a, v: f.direction(from + f.span), hi: math.Pi},
		}
	})
}

// splitAt180 returns the piece e, which starts in [−180, 180] and may run
// past ±180°, as one or two paths within [−180, 180], cut at ±180°.
func splitAt180(e path) []path {
	var edge float64
	switch {
	case e.lon1 > 180:
		edge = 180
	case e.lon1 < -180:
		edge = -180
	default:
		return []path{e}
	}
	t := (edge - e.lon0) / (e.lon1 - e.lon0)
	lat := e.lat0 + t*(e.lat1-e.lat0)
	return []path{
		{lat0: e.lat0, lon0: e.lon0, lat1: lat, lon1: edge},
		{lat0: lat, lon0: -edge, lat1: e.lat1, lon1: e.lon1 - 2*edge},
	}
}

// corridorValueHolds is decodeCorridor(v).contains(lat, lon) read in
// place: the line's pieces (eachPiece, as the corridor cuts them) are
// measured one by one, those whose latitudes all lie farther than the
// radius from the point's skipped (no two points are nearer than their
// latitudes' difference), with no corridor built. ok is false when v is
// no corridor's, or one decodeCorridor refuses (whose checks it makes as
// it reads, so a damaged key is refused even where a piece before the
// damage held the point). Containing among 10,000
// fences, half of them routes of 200 positions 20 km long
// (BenchmarkFences, corridors=200), took 45–48 µs in memory when each
// route met was decoded into its corridor, and 22–24 µs read in place;
// with routes of 20 positions, 18–21 and 9 µs (circles: 5.6–5.8 µs).
func corridorValueHolds(v []byte, lat, lon float64) (held, ok bool) {
	if len(v) < 13 || v[0] != cellCorridor {
		return false, false
	}
	radius := readFloat(v[1:])
	if math.IsNaN(radius) || radius < 0 || math.IsInf(radius, 0) {
		return false, false
	}
	lines := binary.BigEndian.Uint32(v[9:])
	rest := v[13:]
	o := newRef(lat, lon).origin()
	dLat := (radius*(1+1e-9) + 1e-6) / EarthRadius * 180 / math.Pi
	// One pass: every position is checked as decodeCorridor checks it,
	// and the line's pieces are measured until one holds the point.
	for range lines {
		if len(rest) < 4 {
			return false, false
		}
		m := uint64(binary.BigEndian.Uint32(rest))
		rest = rest[4:]
		if m < 2 || uint64(len(rest)) < 16*m {
			return false, false
		}
		var prev Point
		for i := range m {
			next := Point{Lat: readFloat(rest[16*i:]), Lon: readFloat(rest[16*i+8:])}
			if validate(next.Lat, next.Lon) != nil {
				return false, false
			}
			if i > 0 && !held {
				eachPiece(newPath(prev, next), func(pc path) bool {
					if lat < min(pc.lat0, pc.lat1)-dLat || lat > max(pc.lat0, pc.lat1)+dLat {
						return true
					}
					held = pc.distanceFrom(o) <= radius
					return !held
				})
			}
			prev = next
		}
		rest = rest[16*m:]
	}
	if len(rest) != 0 || lines == 0 {
		return false, false
	}
	return held, true
}

// readFloat reads a big-endian float64 from b.
func readFloat(b []byte) float64 { return math.Float64frombits(binary.BigEndian.Uint64(b)) }
