package geo

import (
	"fmt"
	"math"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/internal/errctx"
	"github.com/paulmach/orb"
)

// Along returns the points within radius metres of a line, an
// orb.LineString or orb.MultiLineString of GeoJSON [lon, lat] positions
// (a route, a road, a river): PostGIS's ST_DWithin against a line, Tile38's
// INTERSECTS … BUFFER radius OBJECT {LineString}. Each Result's Distance
// is its distance from the line (from the nearest point of any of its
// lines), nearest first, ties by id; a Limit keeps the nearest Limit
// (FarthestFirst the farthest), Any the first found, and a page goes on
// after a cursor, as for Radius, though a Limit reads the whole corridor:
// the k-nearest search that answers a circle's Limit measures from a
// centre, and a line has none (NearestAlong finds the nearest a line). Edges are straight in longitude
// and latitude, as GeoJSON draws them and as polygon edges are here, the
// shorter way round in longitude (so an edge may cross ±180° and needs no
// split). A line of fewer than two positions, a position out of range, or
// a radius that is not a non-negative number are an error wrapping
// ErrBadQuery.
//
// The corridor is covered like any other region, with a budget of cells
// that grows with its length over its radius (corridorMaxCells); its
// lines are cut into pieces of at most 100 km, grouped sixteen to a
// chunk and sixteen chunks to a chunk above, so that a candidate, or a
// cell of the covering, is measured against the few pieces near it (see
// corridor).
func (ix *Index) Along(tx keyspace.Tx, line orb.Geometry, radius float64, opts *QueryOptions) ([]Result, Stats, error) {
	reg, err := newCorridor(line, radius)
	if err != nil {
		return nil, Stats{}, ix.wrap(err)
	}
	return ix.along(tx, reg, opts)
}

// along answers Along for the corridor c.
func (ix *Index) along(tx keyspace.Tx, c *corridor, opts *QueryOptions) ([]Result, Stats, error) {
	return ix.search(tx, c.lat0, c.lon0, opts, func(*hits) region { return c })
}

// NearestAlong returns the k points nearest a line (an orb.LineString or
// orb.MultiLineString, as Along takes it), nearest first, ties by id, each
// at its distance from the line: the charging stations nearest a route,
// with no radius to guess. It is exact. The k points nearest the line's
// first position (Nearest) lie within the k-th of their distances, D, of
// the line, so the corridor of radius D holds at least k points, and the
// k nearest the line are among them; corridors of D/16, D/4 and D are
// asked in turn (Along, with a Limit of k), and the first that holds k
// points answers, as nothing outside a corridor is nearer the line than
// what it holds. A page after a cursor (opts.After) grows corridors from
// twice the cursor's distance, four times wider each time, until one
// holds k points after the cursor or reaches round the sphere.
// opts.Limit and Any are ignored (k is the limit), as are FarthestFirst
// (an error, as for Nearest) and MaxCells; Stats counts every corridor
// read, and an Explain shows the last.
func (ix *Index) NearestAlong(tx keyspace.Tx, line orb.Geometry, k int, opts *QueryOptions) ([]Result, Stats, error) {
	c, err := newCorridor(line, 0) // its pieces, built once; each round sets its radius
	if err != nil {
		return nil, Stats{}, ix.wrap(err)
	}
	return ix.nearestMeasured(tx, "NearestAlong", "Along", c.lat0, c.lon0, k, opts, func(r float64, o *QueryOptions) ([]Result, Stats, error) {
		c.setRadius(r)
		return ix.along(tx, c, o)
	})
}

// nearestMeasured answers NearestAlong and NearestPolygon: the k points
// nearest a line or a polygon, asked of regions of growing radius about
// it by within (which sets the radius and searches, o's Limit being k)
// until one holds k points; (lat0, lon0) is a point of the line or the
// polygon, whose k nearest points bound the radius that holds k (see
// NearestAlong). name and whole name the method and the one that reads a
// whole region, for errors.
func (ix *Index) nearestMeasured(tx keyspace.Tx, name, whole string, lat0, lon0 float64, k int, opts *QueryOptions, within func(r float64, o *QueryOptions) ([]Result, Stats, error)) ([]Result, Stats, error) {
	var o QueryOptions
	if opts != nil {
		o = *opts
	}
	switch {
	case k < 1:
		return nil, Stats{}, ix.wrap(fmt.Errorf("%w: k = %d; ask for at least one neighbour", ErrBadQuery, k))
	case o.FarthestFirst:
		return nil, Stats{}, ix.wrap(fmt.Errorf("%w: %s finds the nearest points; ask %s for the farthest first", ErrBadQuery, name, whole))
	}
	if err := o.checkAfter(); err != nil {
		return nil, Stats{}, ix.wrap(err)
	}
	// Each round is covered with DefaultMaxCells cells, not the region's
	// own budget (up to 256 for a long line or ring and a small radius):
	// a round reads few points, and its covering was most of its time.
	// On 1,000,000 clustered points (BenchmarkAlong, BenchmarkNearPolygon)
	// the 1, 10 and 100 nearest a 40 km route took 0.68, 0.76 and 0.95 ms
	// with the regions' budgets, 0.24, 0.37 and 0.81 with 16 cells and
	// 0.22, 0.37 and 0.81 with 32; the 10 nearest a hexagon 200 m across
	// 0.19 ms, 0.10 and 0.18.
	o.Limit, o.Any, o.MaxCells = k, false, DefaultMaxCells
	sphere := math.Pi * EarthRadius
	reach, r := sphere, sphere
	var st Stats
	if o.After == nil {
		near, nst, err := ix.Nearest(tx, lat0, lon0, k, &QueryOptions{Scope: o.Scope, Filter: o.Filter, Now: o.Now})
		if err != nil {
			return nil, Stats{}, err
		}
		st = nst
		if len(near) == k {
			// Shaded up: the region's distance to a point and the
			// point's from (lat0, lon0) are computed apart.
			reach = min(sphere, near[k-1].Distance*(1+1e-9)+1e-6)
			r = reach / 16
		}
	} else {
		r = min(sphere, max(2*o.After.Distance, 1000))
	}
	for {
		if o.Explain != nil {
			*o.Explain = Explain{} // the last region's
		}
		rs, rst, err := within(r, &o)
		if err != nil {
			return nil, Stats{}, err
		}
		st.Cells, st.Ranges, st.Candidates, st.Results = st.Cells+rst.Cells, st.Ranges+rst.Ranges, st.Candidates+rst.Candidates, rst.Results
		if len(rs) >= k || r >= reach {
			return rs, st, nil
		}
		r = min(4*r, reach)
	}
}

// DistanceToLine returns the great-circle distance in metres from (lat,
// lon) to the nearest point of a line (an orb.LineString or
// orb.MultiLineString, its edges straight in longitude and latitude as
// Along takes them): the distance Along and NearestAlong report, to a
// micrometre. A line Along would refuse, or a point out of range, is an
// error wrapping ErrBadQuery or ErrInvalidPoint.
func DistanceToLine(line orb.Geometry, lat, lon float64) (float64, error) {
	if err := validate(lat, lon); err != nil {
		return 0, err
	}
	c, err := newCorridor(line, 0)
	if err != nil {
		return 0, err
	}
	return c.distance(lat, lon, math.Inf(1)), nil
}

// corridor is the region within radius metres of a line: the points whose
// great-circle distance from the nearest point of the line is at most
// radius, that distance being what the query reports.
//
// The line's edges are paths (path.go), cut into pieces of at most
// pieceMetres metres (path.length, an upper bound), each with its
// latitude/longitude box; pieces are grouped in chunks of chunkPieces
// consecutive pieces with the union of their boxes, and chunks in chunks
// of chunks, up to a level of at most chunkPieces (a GPS track of 5,000
// positions is 313 chunks, then 20, then 2). A point's distance is
// the least of its distances from the pieces (path.distanceFrom: sampled,
// then refined by parabolic steps to a micrometre), skipping every chunk
// and piece whose box lies farther than the nearest
// distance found so far (or than the radius): a box holds its piece, so
// a lower bound on the distance to the box (boxBound.havLower, no
// trigonometry past a sine) is one on the distance to the piece. Cutting
// edges to 100 km keeps each piece short enough that its distance from a
// point has one minimum, which distanceFrom relies on (as path.closest
// does for a fence's crossings).
//
// A cell of a covering, a rectangle r with centre c, is classified by the
// triangle inequality. Let ρ bound the distance from c to any point of r
// (the upper haversine bound of r from c). Every point x of r lies within
// ρ of c, so no nearer a piece than c's distance from it less ρ: r is
// outside the corridor when every piece lies farther than radius + ρ from
// c, which path.within proves by a branch and bound that needs no
// assumption about the shape of the distance along the piece (a wrong
// "outside" would lose points; a wrong "crosses" only costs candidate
// tests). r is inside when some point q of a piece has every point of r
// within radius (the upper haversine bound of r from q): q is a point
// near the piece's nearest to c, found by a short golden section. The
// test that decides each candidate is the same distance, in cells inside
// the corridor too, so that the distance reported is always the line's.
//
// On clustered points in memory (BenchmarkAlong: routes of 20 positions
// some 2 km apart), the points within 100 m, 1 km and 5 km of a route
// take 0.51, 0.10 and 0.14 ms among 100,000 points (2.3, 2.4 and 1.9
// candidates per result) and 0.54, 0.32 and 1.4 ms among 1,000,000 (22,
// 228 and 1,279 results); within 100 m of a GPS track of 5,000 positions
// 50 m apart, 1.1 and 1.3 ms (0.63, 0.58 and 2.0 ms among 1,000,000
// before parabolaMin settled within its function's noise). The covering budget is one cell for each
// radius of the line's length, at most 256: at 100 m on 100,000 points,
// before a cell wider than the corridor stopped at its first piece in
// reach, 2 or 4 cells a radius read 1.5 candidates a result but took 1.9
// and 2.2 ms against 0.6, and a cap of 1,024 cells 1.0 ms, as a cell
// costs about what a candidate does, each some dozens of haversines. The
// first build measured each cell's centre with closest (87 haversines)
// and took 4 ms at 100 m with 4 cells a radius.
type corridor struct {
	pieces     []corridorPiece
	levels     [][]corridorChunk // chunks of pieces, then chunks of chunks
	radius     float64
	reach      float64 // radius, shaded up a hair: farther than this is outside
	hIn        float64 // haversine of the radius, shaded down: below this is inside
	box        Box     // the corridor's latitude/longitude box
	length     float64 // the line's length, an upper bound in metres
	lat0, lon0 float64 // the line's first position
	starts     []Point // each line's first position
}

// corridorPiece is a piece of one of the line's edges, with its box.
type corridorPiece struct {
	path
	box   Box
	bound boxBound
}

// corridorChunk is the box of pieces[from:to], or of the chunks [from:to]
// of the level below.
type corridorChunk struct {
	from, to int
	box      Box
	bound    boxBound
}

const (
	pieceMetres = 100_000 // metres: the longest piece an edge is cut into
	chunkPieces = 16      // pieces to a chunk
)

// newCorridor validates line and radius and returns their corridor.
func newCorridor(line orb.Geometry, radius float64) (*corridor, error) {
	if math.IsNaN(radius) || radius < 0 || math.IsInf(radius, 0) {
		return nil, fmt.Errorf("%w: radius %v must be a non-negative number of metres", ErrBadQuery, radius)
	}
	lines := corridorLines(line)
	switch g := line.(type) {
	case nil:
		return nil, fmt.Errorf("%w: no line given", ErrBadQuery)
	case orb.LineString, orb.MultiLineString:
	default:
		return nil, fmt.Errorf("%w: a %s is not a LineString or MultiLineString", ErrBadQuery, g.GeoJSONType())
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("%w: a MultiLineString of no lines", ErrBadQuery)
	}
	c := new(corridor)
	for li, ls := range lines {
		where := "line"
		if len(lines) > 1 {
			where = fmt.Sprintf("line %d", li)
		}
		if len(ls) < 2 {
			return nil, fmt.Errorf("%w: %s has %d positions; a line needs at least 2", ErrBadQuery, where, len(ls))
		}
		for i, p := range ls {
			if err := validate(p.Lat(), p.Lon()); err != nil {
				return nil, fmt.Errorf("%w: %s position %d: %w", ErrBadQuery, where, i, errctx.Bare("geo", err))
			}
		}
		c.starts = append(c.starts, Point{Lat: ls[0].Lat(), Lon: ls[0].Lon()})
		for i := 1; i < len(ls); i++ {
			c.addEdge(newPath(Point{Lat: ls[i-1].Lat(), Lon: ls[i-1].Lon()}, Point{Lat: ls[i].Lat(), Lon: ls[i].Lon()}))
		}
	}
	c.lat0, c.lon0 = lines[0][0].Lat(), lines[0][0].Lon()
	// Chunks of pieces, chunks of those chunks, and so on up to a level
	// of at most chunkPieces.
	boxes := make([]Box, len(c.pieces))
	for i := range c.pieces {
		boxes[i] = c.pieces[i].box
	}
	for len(c.levels) == 0 || len(boxes) > chunkPieces {
		var level []corridorChunk
		for from := 0; from < len(boxes); from += chunkPieces {
			ch := corridorChunk{from: from, to: min(from+chunkPieces, len(boxes)), box: boxes[from]}
			for _, b := range boxes[ch.from+1 : ch.to] {
				ch.box = unionBox(ch.box, b)
			}
			ch.bound = newBoxBound(ch.box)
			level = append(level, ch)
		}
		c.levels = append(c.levels, level)
		boxes = boxes[:0]
		for _, ch := range level {
			boxes = append(boxes, ch.box)
		}
	}
	c.setRadius(radius)
	return c, nil
}

// corridorLines returns line, a LineString or a MultiLineString, as the
// latter; nil for anything else.
func corridorLines(line orb.Geometry) orb.MultiLineString {
	switch g := line.(type) {
	case orb.LineString:
		return orb.MultiLineString{g}
	case orb.MultiLineString:
		return g
	}
	return nil
}

// setRadius makes c the corridor of radius metres about its line: its
// thresholds and its box, the top chunks' boxes grown by the radius.
func (c *corridor) setRadius(radius float64) {
	θ := min(radius/EarthRadius, math.Pi)
	s := math.Sin(max(0, θ-1e-12) / 2)
	c.radius, c.reach, c.hIn = radius, radius*(1+1e-9)+1e-6, s*s*(1-1e-9)
	top := c.levels[len(c.levels)-1]
	c.box = growBox(top[0].box, θ)
	for _, ch := range top[1:] {
		c.box = unionBox(c.box, growBox(ch.box, θ))
	}
}

// nearPieces calls fn with each piece whose box, and every chunk's
// holding it, lies within latitudes [minLat, maxLat] and has a lower
// bound on its haversine from p of at most *cut (which fn may lower),
// until fn returns false. It reports whether fn never did.
func (c *corridor) nearPieces(p *ref, cut *float64, minLat, maxLat float64, fn func(*corridorPiece) bool) bool {
	top := len(c.levels) - 1
	return c.walk(top, 0, len(c.levels[top]), p, cut, minLat, maxLat, fn)
}

// walk is nearPieces over the chunks [from, to) of level (the pieces
// themselves at level −1).
func (c *corridor) walk(level, from, to int, p *ref, cut *float64, minLat, maxLat float64, fn func(*corridorPiece) bool) bool {
	for i := from; i < to; i++ {
		if level < 0 {
			piece := &c.pieces[i]
			if piece.box.MinLat > maxLat || piece.box.MaxLat < minLat || piece.bound.havLower(p) > *cut {
				continue
			}
			if !fn(piece) {
				return false
			}
			continue
		}
		ch := &c.levels[level][i]
		if ch.box.MinLat > maxLat || ch.box.MaxLat < minLat || ch.bound.havLower(p) > *cut {
			continue
		}
		if !c.walk(level-1, ch.from, ch.to, p, cut, minLat, maxLat, fn) {
			return false
		}
	}
	return true
}

// addEdge appends the edge p to c's pieces, cut into pieces of at most
// pieceMetres metres.
func (c *corridor) addEdge(p path) {
	c.length += eachPiece(p, func(piece path) bool {
		box := piece.boundingBox()
		c.pieces = append(c.pieces, corridorPiece{path: piece, box: box, bound: newBoxBound(box)})
		return true
	})
}

// eachPiece calls fn with each piece of the edge p, cut into pieces of at
// most pieceMetres metres, until fn returns false, and returns p's length
// (path.length, an upper bound).
func eachPiece(p path, fn func(piece path) bool) float64 {
	length := p.length()
	n := max(1, int(math.Ceil(length/pieceMetres)))
	lat, lon := p.lat0, p.lon0
	for i := 1; i <= n; i++ {
		nextLat, nextLon := p.lat1, p.lon1
		if i < n {
			nextLat, nextLon = p.at(float64(i) / float64(n))
		}
		// Each piece starts in [−180, 180], as a path does, and keeps
		// its edge's direction round the globe.
		start := wrap(lon)
		if !fn(path{lat0: lat, lon0: start, lat1: nextLat, lon1: start + (nextLon - lon)}) {
			break
		}
		lat, lon = nextLat, nextLon
	}
	return length
}

// distance returns the distance in metres from (lat, lon) to the nearest
// piece whose box lies within limit metres of it, or +Inf if none does.
func (c *corridor) distance(lat, lon, limit float64) float64 {
	p := newRef(lat, lon)
	from := p.origin()
	best := math.Inf(1)
	cut := havAbove(limit / EarthRadius) // a box farther than this is skipped
	c.nearPieces(&p, &cut, math.Inf(-1), math.Inf(1), func(piece *corridorPiece) bool {
		if d := piece.distanceFrom(from); d < best {
			best = d
			cut = havAbove(min(best, limit) / EarthRadius)
		}
		return true
	})
	return best
}

func (c *corridor) contains(lat, lon float64) bool {
	return c.distance(lat, lon, c.radius) <= c.radius
}

func (c *corridor) boundingBox() Box { return c.box }

// classify classifies r by the triangle inequality about its centre (see
// corridor).
func (c *corridor) classify(r rect) (outside, inside bool) {
	if r.MaxLon-r.MinLon > 180 {
		// Too wide for a centre to bound it usefully (the root cells):
		// by the corridor's box alone.
		var out boxRegion
		if o, _ := out.init(c.box).classify(r); o {
			return true, false
		}
		return false, false
	}
	centre := newRef((r.MinLat+r.MaxLat)/2, (r.MinLon+r.MaxLon)/2)
	_, hi := centre.havBounds(r)
	ρ := EarthRadius * angleOf(hi) * (1 + 1e-9)
	cut := havAbove((c.reach + ρ) / EarthRadius) // a box farther than this is skipped
	// Latitudes farther than reach + ρ from the centre's, in degrees (a
	// degree of latitude is the shortest way between two parallels): a
	// box beyond them is skipped without a haversine.
	dLat := (c.reach+ρ)/EarthRadius*180/math.Pi + 1e-9
	minLat, maxLat := centre.lat-dLat, centre.lat+dLat
	from := centre.origin()
	crosses, inside := false, false
	// Every point of the plane lies at least ρ from some corner of a
	// rectangle ρ round (in a half diagonal), and so, nearly, on the
	// sphere: a cell wider than the corridor cannot be inside it, and its
	// first piece in reach decides that it crosses (a track of 50 m
	// pieces in 1 km cells measured forty pieces a cell before).
	mayBeInside := ρ < c.radius
	c.nearPieces(&centre, &cut, minLat, maxLat, func(piece *corridorPiece) bool {
		near, q, d := piece.within(from, c.reach+ρ, ρ)
		if !near {
			return true
		}
		crosses = true
		if !mayBeInside {
			return false
		}
		if d <= c.radius {
			if _, hi := newRef(q.Lat, q.Lon).havBounds(r); hi < c.hIn {
				inside = true
				return false
			}
		}
		return true
	})
	if inside {
		return false, true
	}
	return !crosses, false
}

// within reports whether some point of the path may lie within limit
// metres of o; if so, it returns a point q of the path, at distance d
// from o, within about slack of the path's nearest.
//
// It proves "no" by branch and bound, on nothing but the triangle
// inequality: between two points of the path at distances a and b from
// o, ℓ apart along it on the ground, no point of the path is nearer o
// than (a + b − ℓ)/2 (the distance changes by at most the ground covered).
// ℓ is bounded by groundLength. Pieces of the path whose bound exceeds
// limit are dropped, the others halved, until a sample lies within limit
// (then the answer is yes) or none is left (no). A yes is then refined
// about the nearest sample, by golden section to slack, for a q near the
// nearest point: q is a point of the path whatever the refinement finds,
// which is all the caller's inside test needs.
func (p path) within(o origin, limit, slack float64) (near bool, q Point, d float64) {
	hav := func(t float64) float64 {
		lat, lon := p.at(t)
		return o.hav(rad(lat), rad(lon))
	}
	dist := func(t float64) float64 { return EarthRadius * angleOf(hav(t)) }
	type piece struct{ t0, t1, d0, d1 float64 }
	const samples = 4
	var stack [64]piece
	n := 0
	prev := dist(0)
	best, bestT := prev, 0.0
	for i := 1; i <= samples; i++ {
		t := float64(i) / samples
		d := dist(t)
		if d < best {
			best, bestT = d, t
		}
		stack[n] = piece{float64(i-1) / samples, t, prev, d}
		n++
		prev = d
	}
	step := 1.0 / samples
	for best > limit && n > 0 {
		n--
		pc := stack[n]
		if (pc.d0+pc.d1-p.groundLength(pc.t0, pc.t1))/2 > limit {
			continue
		}
		if n+2 > len(stack) || pc.t1-pc.t0 < 1e-15 {
			best, bestT = min(pc.d0, pc.d1), pc.t0 // not proved far: near
			break
		}
		m := (pc.t0 + pc.t1) / 2
		dm := dist(m)
		if dm < best {
			best, bestT, step = dm, m, (pc.t1-pc.t0)/2
		}
		stack[n], stack[n+1] = piece{pc.t0, m, pc.d0, dm}, piece{m, pc.t1, dm, pc.d1}
		n += 2
	}
	if best > limit {
		return false, Point{}, best
	}
	// Golden section of [a, b] about the nearest sample, to slack, by
	// haversines (monotone in the distance); the bracket's ground length
	// shrinks with its width.
	a, b := max(0, bestT-step), min(1, bestT+step)
	perT := p.groundLength(a, b) / (b - a)
	_, _, x, hx := goldenSection(hav, a, b, func(a, b float64) bool { return perT*(b-a) > slack })
	if d := EarthRadius * angleOf(hx); d < best {
		best, bestT = d, x
	}
	lat, lon := p.at(bestT)
	return true, Point{Lat: lat, Lon: wrap(lon)}, best
}

// groundLength bounds the length on the ground of the path from t0 to
// t1: ds² = R²(dφ² + cos²φ dλ²), and cos φ is at most its value at the
// latitude of that stretch nearest the equator. (path.length takes cos φ
// as 1, which near a pole is a thousand times too long.)
func (p path) groundLength(t0, t1 float64) float64 {
	a, b := p.lat0+t0*(p.lat1-p.lat0), p.lat0+t1*(p.lat1-p.lat0)
	nearest := min(math.Abs(a), math.Abs(b))
	if a*b <= 0 {
		nearest = 0
	}
	return math.Hypot(b-a, (t1-t0)*(p.lon1-p.lon0)*math.Cos(rad(nearest))) * math.Pi / 180 * EarthRadius
}

// distanceFrom is the distance in metres from o to the nearest point of
// the path, for a candidate's test. It samples as closest does
// (pathSamplesShort + 1 points; a piece of up to 100 km has one minimum),
// but refines the lowest sample by parabolic steps (parabolaMin) rather
// than golden section alone: along a short path the haversine is nearly
// a parabola in t (sin²(d/2) ≈ (d₀² + s²)/4 for a point d₀ from a straight
// line, s along it), so a vertex or two reach the minimum where golden
// section took some seventy evaluations to narrow the bracket to 1e-15.
// An end sample that is the lowest answers at once when the haversine
// rises from it into the path (havSlope). On 1,000,000 clustered points
// the points within 5 km of a 40 km route took 4.9 ms with closest and
// 1.9 with this; 100,000 pieces and points of TestPieceDistanceAgainstOracle
// agree with the oracle to a micrometre (closest, to some 1e-11 m).
func (p path) distanceFrom(o origin) float64 {
	h := func(t float64) float64 {
		lat, lon := p.at(t)
		return o.hav(rad(lat), rad(lon))
	}
	const n = pathSamplesShort
	var hs [n + 1]float64
	best := 0
	for i := range hs {
		if hs[i] = h(float64(i) / n); hs[i] < hs[best] {
			best = i
		}
	}
	a, b := float64(max(0, best-1))/n, float64(min(n, best+1))/n
	tol := distanceTol / max(p.groundLength(a, b)/(b-a), 1)
	x, hx := float64(best)/n, hs[best]
	if best == 0 || best == n {
		// At an end, the nearest point is most often the end itself (a
		// point past the line's end, or nearer the next piece): so it is
		// when the haversine does not fall into the path from there, by
		// the sign of its derivative (a difference of two samples a few
		// micrometres apart was lost in rounding 100 km away, where the
		// minimum was 36 m in).
		if best == 0 && p.havSlope(o, 0) >= 0 || best == n && p.havSlope(o, 1) <= 0 {
			return EarthRadius * angleOf(hx)
		}
		// Else the minimum lies within a sample of the end: the vertex of
		// the parabola through the three end samples, if it is lower than
		// both ends of that stretch, is a best point to start from.
		i := min(best, n-2)
		x = parabolaVertex(float64(i)/n, hs[i], float64(i+1)/n, hs[i+1], float64(i+2)/n, hs[i+2])
		if !(x > a && x < b) {
			return EarthRadius * angleOf(goldenFrom(h, a, b, tol, hs[best]))
		}
		inner := 1 // the sample next to the end
		if best == n {
			inner = n - 1
		}
		if hx = h(x); hx > hs[best] || hx > hs[inner] {
			return EarthRadius * angleOf(goldenFrom(h, a, b, tol, min(hx, hs[best])))
		}
	}
	if hm, ok := parabolaMin(h, a, x, b, hx, tol); ok {
		return EarthRadius * angleOf(min(hm, hx))
	}
	return EarthRadius * angleOf(goldenFrom(h, a, b, tol, hx))
}

// goldenFrom is the least of f over [a, b] by goldenSection, narrowed
// to tol, or found, if lower: distanceFrom's fallback where parabolic
// steps give up.
func goldenFrom(f func(float64) float64, a, b, tol, found float64) float64 {
	_, _, _, fx := goldenSection(f, a, b, func(a, b float64) bool { return b-a > tol })
	return min(fx, found)
}

// parabolaVertex is the abscissa of the vertex of the parabola through
// (a, fa), (x, fx) and (b, fb): NaN or ±Inf when they lie on a line.
func parabolaVertex(a, fa, x, fx, b, fb float64) float64 {
	p := (x-a)*(x-a)*(fx-fb) - (x-b)*(x-b)*(fx-fa)
	q := 2 * ((x-a)*(fx-fb) - (x-b)*(fx-fa))
	return x - p/q
}

// havSlope is the derivative in t of the haversine from o to the path's
// point at t:
//
//	h(t)  = sin²((φ − φo)/2) + cos φo · cos φ · sin²((λ − λo)/2)
//	h'(t) = ½ sin(φ − φo)·φ' + cos φo · (½ cos φ · sin(λ − λo)·λ' − sin φ · sin²((λ − λo)/2)·φ')
//
// with φ' and λ' the path's latitude and longitude spans in radians.
func (p path) havSlope(o origin, t float64) float64 {
	lat, lon := p.at(t)
	φ, λ := rad(lat), rad(lon)
	dφ, dλ := rad(p.lat1-p.lat0), rad(p.lon1-p.lon0)
	sinφ, cosφ := math.Sincos(φ)
	s := math.Sin((λ - o.λ) / 2)
	return math.Sin(φ-o.φ)/2*dφ + o.cosφ*(cosφ*math.Sin(λ-o.λ)/2*dλ-sinφ*s*s*dφ)
}

// parabolaMin is successive parabolic interpolation: given a < x < b
// with f(x) = fx no more than f at a or b, it steps to the vertex of the
// parabola through the bracket's ends and its best point, keeping the
// best point and a bracket about it, until a step moves less than tol
// (or than f's rounding lets it be placed), and returns the least f
// found. It gives up (ok false) when a vertex falls outside the bracket,
// the three points turn concave, or 8 steps do not settle, for golden
// section to answer instead (goldenFrom).
func parabolaMin(f func(float64) float64, a, x, b, fx, tol float64) (float64, bool) {
	fa, fb := f(a), f(b)
	for range 8 {
		u := parabolaVertex(a, fa, x, fx, b, fb)
		// c, the second divided difference, is the parabola's
		// curvature: f rises by c·δ² a distance δ from its vertex, which
		// f's noise hides within √(ε·f/c) for f's relative error ε; the
		// vertices of later steps wander within that. ε is taken as
		// 1e-13, not one rounding (1e-16): a haversine is sums and
		// products of differences of nearby latitudes and longitudes, and
		// vertices were seen to wander 7.5 times √(1e-16·f/c), which sent
		// 60% of the candidates of a 1 km corridor on to golden section
		// (0.54 ms a query; 0.32 with 1e-13). Stopping within √(1e-13·f/c)
		// leaves f within some 1e-13·f of its least, a distance within a
		// relative 1e-12 or so.
		c := ((fb-fx)/(b-x) - (fa-fx)/(a-x)) / (b - a)
		if !(u > a && u < b) || !(c > 0) {
			return 0, false
		}
		settled := max(tol, 4*math.Sqrt(1e-13*fx/c))
		fu := f(u)
		if math.Abs(u-x) <= settled {
			return polish(f, u, fu, x, fx, settled, b-a), true
		}
		switch {
		case fu <= fx && u < x:
			b, fb, x, fx = x, fx, u, fu
		case fu <= fx:
			a, fa, x, fx = x, fx, u, fu
		case u < x:
			a, fa = u, fu
		default:
			b, fb = u, fu
		}
	}
	return 0, false
}

// polish is parabolaMin's last step, from its two last abscissae u and
// x, which agree to settled, in a bracket width wide. The vertices agree,
// but they are vertices of parabolas through points of the bracket,
// which may lie kilometres apart on the ground, and there f is not quite
// a parabola: sin²(d/2) has a term in d⁴ (d² = d₀² + s² along a straight
// stretch), which moves the vertex by some centimetres along the path, a
// few micrometres of distance 350 m from a 60 km piece (FuzzPieceDistance
// found one, 3.7 µm over). One more parabola, through points 64·settled
// either side of the better one, where the d⁴ term is lost in rounding
// and f's noise is not, puts the vertex on the minimum. Its least value
// is returned.
func polish(f func(float64) float64, u, fu, x, fx, settled, width float64) float64 {
	if fu < fx {
		x, fx = u, fu
	}
	δ := 64 * settled
	if 4*δ >= width {
		return fx // the bracket is as narrow: nothing to gain
	}
	fl, fr := f(x-δ), f(x+δ)
	best := min(fx, fl, fr)
	if v := parabolaVertex(x-δ, fl, x, fx, x+δ, fr); v > x-δ && v < x+δ {
		best = min(best, f(v))
	}
	return best
}

// distanceTol is how near, in metres of ground, distanceFrom's steps
// close on the nearest point (a nanometre; rounding leaves them within a
// micrometre of it at worst).
const distanceTol = 1e-9

// boxBound is a box as havLower takes it: its longitudes as one or two
// rectangles (lonGap measures round ±180°, so no twin is needed), and the
// smallest cos φ over its latitudes.
type boxBound struct {
	rects  [2]rect
	n      int
	cosMin float64
}

func newBoxBound(b Box) boxBound {
	var bb boxBound
	if b.MinLon <= b.MaxLon {
		bb.rects[0], bb.n = rect{MinLat: b.MinLat, MaxLat: b.MaxLat, MinLon: b.MinLon, MaxLon: b.MaxLon}, 1
	} else {
		bb.rects[0] = rect{MinLat: b.MinLat, MaxLat: b.MaxLat, MinLon: b.MinLon, MaxLon: 180}
		bb.rects[1], bb.n = rect{MinLat: b.MinLat, MaxLat: b.MaxLat, MinLon: -180, MaxLon: b.MaxLon}, 2
	}
	bb.cosMin, _ = cosRange(b.MinLat, b.MaxLat)
	return bb
}

// havLower is a lower bound on the haversine from p to the box.
func (bb *boxBound) havLower(p *ref) float64 {
	h := p.havLower(&bb.rects[0], bb.cosMin)
	if bb.n == 2 {
		h = min(h, p.havLower(&bb.rects[1], bb.cosMin))
	}
	return h
}

// corridorMaxCells is the covering budget of a corridor when the query
// sets none: a circle's, and one more for each radius of its length, at
// most maxCorridorCells (see corridor for the measures).
func corridorMaxCells(c *corridor) int {
	n := float64(DefaultMaxCells)
	if c.radius > 0 {
		n += c.length / c.radius
	} else {
		n = maxCorridorCells
	}
	return int(min(n, maxCorridorCells))
}

const maxCorridorCells = 256

// measure is a corridor's candidate test: a candidate is kept when its
// distance from the line is at most the radius, at that distance.
func (c *corridor) measure(lat, lon float64) (float64, bool) {
	d := c.distance(lat, lon, c.radius)
	return d, d <= c.radius
}

// unionBox returns the least box holding a and b: their latitudes'
// span, and the shorter arc of longitude that holds both boxes'.
func unionBox(a, b Box) Box {
	out := Box{MinLat: min(a.MinLat, b.MinLat), MaxLat: max(a.MaxLat, b.MaxLat)}
	aw, bw := lonWidth(a), lonWidth(b)
	// The least arc holding both starts where one of them starts.
	w1 := max(aw, math.Mod(b.MinLon-a.MinLon+720, 360)+bw)
	w2 := max(bw, math.Mod(a.MinLon-b.MinLon+720, 360)+aw)
	start, w := a.MinLon, w1
	if w2 < w1 {
		start, w = b.MinLon, w2
	}
	if w >= 360 {
		out.MinLon, out.MaxLon = -180, 180
		return out
	}
	out.MinLon, out.MaxLon = start, wrap(start+w)
	return out
}

// lonWidth is the degrees of longitude b spans, 360 for every longitude.
func lonWidth(b Box) float64 {
	if b.MinLon <= b.MaxLon {
		if b.MinLon == -180 && b.MaxLon == 180 {
			return 360
		}
		return b.MaxLon - b.MinLon
	}
	return b.MaxLon - b.MinLon + 360
}

// growBox returns b grown by the angle θ: every point within θ of a point
// of b lies in it. Its latitudes grow by θ; its longitudes by the
// half-width of a circle of θ about b's latitude farthest from the
// equator (asin(sin θ / cos φ), the widest a circle about a point of b
// reaches), or to every longitude when such a circle holds a pole; and
// by a hair more (boxMargin), for the rounding of the boxes it is built
// from: with a radius of 0, the union of a line's boxes ended at
// 89.99999999999989 and its covering missed the line's end at 90
// (FuzzCovering).
func growBox(b Box, θ float64) Box {
	deg := θ*180/math.Pi + boxMargin
	out := Box{MinLat: max(-90, b.MinLat-deg), MaxLat: min(90, b.MaxLat+deg), MinLon: -180, MaxLon: 180}
	φ := rad(max(math.Abs(b.MinLat), math.Abs(b.MaxLat)))
	if out.MinLat <= -90 || out.MaxLat >= 90 || math.Sin(θ) >= math.Cos(φ) || θ >= math.Pi/2 {
		return out
	}
	dλ := math.Asin(math.Sin(θ)/math.Cos(φ))*180/math.Pi*(1+1e-9) + boxMargin
	if w := lonWidth(b) + 2*dλ; w >= 360 {
		return out
	}
	out.MinLon, out.MaxLon = wrap(b.MinLon-dλ), wrap(b.MaxLon+dλ)
	return out
}

// boxMargin is the degrees growBox adds for rounding: about 0.1 mm.
const boxMargin = 1e-9
