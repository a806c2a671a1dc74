package geo

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/paulmach/orb"
)

// Result is a point found by a query, with its distance from the query's
// centre in metres.
type Result struct {
	Point
	Distance float64
}

// Stats is what a query cost: the figure to drive towards one candidate per
// result.
type Stats struct {
	Cells      int // cells in the covering
	Ranges     int // key ranges scanned (adjacent cells merged)
	Candidates int // keys read
	Results    int // points returned
}

// QueryOptions are shared by every query.
type QueryOptions struct {
	Scope    composite.Tuple // the scope the points were put under
	Limit    int             // at most this many results, the first in the query's order (nearest first, or farthest with FarthestFirst); 0 for all
	MaxCells int             // covering budget in cells (3/2 of it for a circle up to about 110 km); 0 for DefaultMaxCells (twice that for a circle of WideRadius or more, and twice a circle's for a sector, whose block for a near circle is twice that again)
	// Explain, if set, is filled with the covering and the candidates the
	// query rejected (for `keyspace --explain` and `--svg`).
	Explain *Explain
	// Filter, if set, keeps only the points it returns true for, as
	// Tile38's WHERE does: Limit counts the points it kept, and Nearest
	// finds the k nearest points it keeps, reading further until it has
	// them (so a filter that few points pass makes Nearest read far). It
	// is called for each point inside the query's region; the Payload it
	// is given is valid only during the call (copy it to keep it).
	Filter func(p Point) bool
	// Now is the time the query leaves out the points that have expired
	// by (Point.Expires not after it); zero for the clock's time, read
	// once, when the query first reads a point with an expiry.
	Now time.Time
	// FarthestFirst orders the results farthest from the centre first
	// (ties still by id), as Redis's GEOSEARCH … DESC: with a Limit, the
	// Limit farthest points of the region, which a region holding many
	// more is answered by a branch and bound over its cells, greatest
	// distance first, reading a band along its far edge (farthest.go). A
	// cursor (After) then pages towards the centre, and the next page
	// reads only what lies nearer than it. Nearest refuses it
	// (ErrBadQuery): its k are the nearest.
	FarthestFirst bool
	// Any, with a Limit, stops reading as soon as Limit results are
	// found, as Redis's GEOSEARCH … COUNT n ANY does: the results are
	// Limit points of the region (in the query's order among
	// themselves), not the Limit nearest (or farthest), and a query that asks whether any point is near
	// reads only until it finds one. Ignored by Nearest (which must read
	// on to know its k are the nearest) and RadiusFixedGrid.
	Any bool
	// After, if set, leaves out the results up to and including it in
	// the query's order (distance, then id): the next page of a query
	// whose last page ended there (see Cursor, CursorAfter). Limit (and
	// Nearest's k) counts the results after it.
	After *Cursor
	// Into, if it has the capacity, is where the results are written, as
	// append(Into[:0], …) would: a loop of queries that passes each
	// query's results back as the next one's Into allocates no Result
	// arrays once one is large enough. The results' ids and payloads are
	// still new memory, never Into's.
	Into []Result
	// readBudget, when above 0, is the candidates a query with a Limit
	// reads before it asks the k-nearest search, in place of
	// readBudget(Limit): tests make it small, so that a few points take
	// either path. Below 0, the query reads its whole region (growRadius's
	// rings).
	readBudget int
	// heldIn, when set, is the region a k-nearest search is held within
	// (nearestIn, for a region other than a circle): cells outside it are
	// not searched, and a search that must widen (one held within a
	// sector with no radius: every other region bounds its distance)
	// reads sectors of growing radius rather than whole circles.
	heldIn region
}

// Explain is what a query did: its cells, its key ranges and the points it
// read and rejected. It holds as many cells and ranges as the query's
// Stats counts, but for a query with a Limit that a search of its own
// answered (the k nearest, or with FarthestFirst the k farthest), and for
// NearestAlong: their Explain shows only the search that answered, where
// Stats counts what every search read.
type Explain struct {
	Cells []CellInfo
	// Ranges are the key ranges scanned. A region query's are apart and
	// hold every hash of its cells; a k-nearest search's also hold the
	// hashes its seed read on either side of the query's own (as many
	// points as k each way), and a cell it scans later may read the
	// hashes at the seed's ends again.
	Ranges []RangeInfo
	// Rejected are the candidates read that a query's test rejected: a
	// region query's points outside the region (as many as the
	// candidates read, less the results), a k-nearest search's points
	// farther than the k-th nearest found before them. Only their
	// latitude and longitude are set.
	Rejected []Point
}

// CellInfo is one covering cell.
type CellInfo struct {
	Grid   string // "geohash", or "north" or "south" for a polar cap's grid
	Hash   uint64 // the cell's hash prefix, of Bits bits
	Bits   uint
	Box    Box  // the cell's rectangle (for a cap cell, a box around it)
	Inside bool // wholly inside the region: its points needed no test
}

// RangeInfo is one key range scanned: the hashes Lo…Hi (inclusive) of one
// grid.
type RangeInfo struct {
	Grid   string
	Lo, Hi uint64
}

func (e *Explain) addCell(c cell, inside bool) {
	rs, n := c.rects()
	e.Cells = append(e.Cells, CellInfo{Grid: c.grid.name(), Hash: c.hash, Bits: c.bits, Inside: inside, Box: boxAround(rs[:n])})
}

// boxAround is the smallest box around a cell's rectangles (cell.rects):
// one rectangle; or a cap cell's two that cross ±180°, the first ending
// at 180° and the second starting at -180°, which make a box from the
// first's west edge east to the second's east edge, or every longitude
// when they overlap; or either of those beside a disk of every longitude
// around the cap's pole, which makes the box span every longitude.
func boxAround(rs []rect) Box {
	b := Box{MinLat: rs[0].MinLat, MaxLat: rs[0].MaxLat, MinLon: rs[0].MinLon, MaxLon: rs[0].MaxLon}
	var pieces []rect // those of less than every longitude
	for _, r := range rs {
		b.MinLat, b.MaxLat = min(b.MinLat, r.MinLat), max(b.MaxLat, r.MaxLat)
		if r.MinLon > -180 || r.MaxLon < 180 {
			pieces = append(pieces, r)
		}
	}
	switch {
	case len(pieces) < len(rs): // a rectangle of every longitude
		b.MinLon, b.MaxLon = -180, 180
	case len(pieces) == 2:
		b.MinLon, b.MaxLon = pieces[0].MinLon, pieces[1].MaxLon
		if b.MinLon <= b.MaxLon { // they overlap: every longitude
			b.MinLon, b.MaxLon = -180, 180
		}
	}
	return b
}

func (e *Explain) addRange(g grid, lo, hi uint64) {
	e.Ranges = append(e.Ranges, RangeInfo{Grid: g.name(), Lo: lo, Hi: hi})
}

// Radius returns the points within radius metres of (lat, lon), nearest
// first, ties by id.
//
// With a Limit (and not Any), a region that holds many more points than
// the limit is answered by the k-nearest search held within it, which
// reads about the Limit nearest points rather than the region
// (nearestIn), or with FarthestFirst by the farthest-first branch and
// bound (farthest); so for Box, BoxAround and Within too. Stats then
// counts what both read, and an Explain shows the search that answered.
func (ix *Index) Radius(tx keyspace.Tx, lat, lon, radius float64, opts *QueryOptions) ([]Result, Stats, error) {
	if err := validate(lat, lon); err != nil {
		return nil, Stats{}, ix.wrap(err)
	}
	if math.IsNaN(radius) || radius < 0 || math.IsInf(radius, -1) {
		return nil, Stats{}, ix.wrap(fmt.Errorf("%w: radius %v must be a non-negative number of metres", ErrBadQuery, radius))
	}
	// The circle is made in the query's pooled hits, not allocated.
	return ix.search(tx, lat, lon, opts, func(h *hits) region { return h.circle.init(lat, lon, radius) })
}

// Box returns the points inside a latitude/longitude rectangle (edges
// included; MinLon > MaxLon crosses the antimeridian), nearest the box's
// centre first, ties by id. A Limit is met as Radius meets one. Distances
// are from the centre: the middle latitude and the middle of the box's
// longitude span.
func (ix *Index) Box(tx keyspace.Tx, b Box, opts *QueryOptions) ([]Result, Stats, error) {
	if err := b.validate(); err != nil {
		return nil, Stats{}, ix.wrap(err)
	}
	lat, lon := b.centre()
	return ix.search(tx, lat, lon, opts, func(h *hits) region { return h.box.init(b) })
}

// BoxAround answers Redis's GEOSEARCH … BYBOX width height: the points at
// most height/2 metres north or south of (lat, lon) along its meridian and
// at most width/2 metres east or west of that meridian along their own
// parallel, nearest first, ties by id. A Limit is met as Radius meets
// one.
func (ix *Index) BoxAround(tx keyspace.Tx, lat, lon, width, height float64, opts *QueryOptions) ([]Result, Stats, error) {
	if err := validate(lat, lon); err != nil {
		return nil, Stats{}, ix.wrap(err)
	}
	for _, v := range []struct {
		name string
		m    float64
	}{{"width", width}, {"height", height}} {
		if math.IsNaN(v.m) || v.m < 0 || math.IsInf(v.m, 0) {
			return nil, Stats{}, ix.wrap(fmt.Errorf("%w: box %s %v must be a non-negative number of metres", ErrBadQuery, v.name, v.m))
		}
	}
	reg := newAroundBox(lat, lon, width, height)
	return ix.search(tx, lat, lon, opts, func(*hits) region { return reg })
}

// Within returns the points inside an orb.Polygon or orb.MultiPolygon
// (GeoJSON rings of [lon, lat]; boundary included; holes excluded), nearest
// the polygon's centroid first, ties by id (a Limit met as Radius meets
// one). Edges are straight lines in longitude and latitude, as in
// GeoJSON; a polygon across the antimeridian must be split into a
// MultiPolygon (RFC 7946 §3.1.9), whose centroid is taken across the cut
// (polygonRegion.centre), not half a world away. An unclosed ring, a
// ring of fewer than four positions, crossing edges or positions out of
// range are an error wrapping ErrBadPolygon.
func (ix *Index) Within(tx keyspace.Tx, polygon orb.Geometry, opts *QueryOptions) ([]Result, Stats, error) {
	reg, err := newPolygonRegion(polygon)
	if err != nil {
		return nil, Stats{}, ix.wrap(err)
	}
	lat, lon := reg.centre()
	return ix.search(tx, lat, lon, opts, func(*hits) region { return reg })
}

// search covers the region prepare returns, scans the covering's ranges,
// keeps the points the region contains (all of them in cells wholly
// inside), and sorts them by distance from (lat, lon). prepare is handed
// the query's pooled hits, in which it may build the region.
func (ix *Index) search(tx keyspace.Tx, lat, lon float64, opts *QueryOptions, prepare func(*hits) region) ([]Result, Stats, error) {
	var o QueryOptions
	if opts != nil {
		o = *opts
	}
	if o.Limit < 0 {
		return nil, Stats{}, ix.wrap(fmt.Errorf("%w: negative limit %d", ErrBadQuery, o.Limit))
	}
	if err := o.checkAfter(); err != nil {
		return nil, Stats{}, ix.wrap(err)
	}
	points, err := ix.scoped(o.Scope)
	if err != nil {
		return nil, Stats{}, ix.wrap(err)
	}
	found := ix.newHits(points.scope, &o)
	defer ix.release(found)
	reg := prepare(found)
	_, isMeasured := reg.(measured) // measured from a line or polygon, not (lat, lon)
	if o.Limit > 0 && !o.Any && o.readBudget >= 0 && found.tally == nil && !isMeasured {
		// A sector with no radius (geo knn --sector) holds a slice of
		// every point there is: reading it first, as a region with a
		// Limit is read while cheap, would spend the budget on points in
		// key order, not near; the k-nearest search held within it
		// answers at once.
		if sec, ok := reg.(*sector); ok && sec.radius >= whole && !o.FarthestFirst {
			return ix.nearestIn(tx, lat, lon, reg, o, Stats{})
		}
		found.budget = readBudget(o.Limit)
		if o.FarthestFirst {
			found.budget = farthestBudget(o.Limit)
		}
		if o.readBudget > 0 {
			found.budget = o.readBudget
		}
	}
	covered := reg // what the covering covers: reg, less what lies before the cursor
	if o.After != nil && !isMeasured {
		covered = newBeyond(reg, lat, lon, o.After.Distance, o.FarthestFirst)
	}
	cells := found.cover.cover(covered, o.maxCells(covered))
	runs := found.cover.spans(covered, cells)
	st := Stats{Cells: len(cells), Ranges: len(runs)}
	if o.Explain != nil {
		for _, c := range cells {
			o.Explain.addCell(c.cell, c.inside)
		}
		for _, s := range runs {
			o.Explain.addRange(s.grid, s.lo, s.hi)
		}
	}
	test, inside := found.regionTests(reg, lat, lon, o.Explain)
	// The ranges, ascending, are visited in one call (keyspace.VisitRanges),
	// each with its run's test: a run of cells inside the region rejects
	// nothing, so it has nothing to explain either.
	rs, bounds := found.ranges[:0], found.bounds[:0]
	for _, s := range runs {
		var r keyspace.Range
		r, bounds = points.appendHashRange(bounds, s.grid, s.lo, s.hi)
		rs = append(rs, r)
	}
	found.ranges, found.bounds = rs, bounds
	if o.Any {
		found.enough = o.Limit
	}
	c := &found.visit
	*c = candidates{r: pointRange{scope: points.scope}, k: found, at: -1, runs: runs, edge: test, inside: inside, budget: found.budget}
	for g, p := range points.prefix {
		c.prefixes[g] = len(p)
	}
	err = keyspace.VisitRanges(tx, rs, c)
	if c.err != nil {
		err = c.err
	}
	if err == errOverBudget && o.FarthestFirst && float64(c.read)/readShare(runs, c.at) <= float64(2*c.budget) {
		// The region seems to hold twice the budget or fewer: reading
		// on to twice the budget costs less than the branch and bound
		// (resume).
		err = c.resume(tx, rs, 2*c.budget)
	}
	st.Candidates += c.read
	at := c.at
	*c = candidates{}
	if err == errOverBudget && o.FarthestFirst {
		return ix.farthest(tx, lat, lon, reg, covered, points, o, st, float64(st.Candidates)/readShare(runs, at))
	}
	if err == errOverBudget {
		return ix.nearestIn(tx, lat, lon, reg, o, st)
	}
	if err != nil {
		return nil, st, ix.wrap(err)
	}
	out := found.results(o.Limit, o.Into)
	st.Results = len(out)
	return out, st, nil
}

// regionTests makes h's candidate tests for reg, at distances from
// (lat, lon): the first it returns, for a cell across the region's edge,
// keeps those reg holds (a circle's by its radius), recording in explain
// those it rejects when explain is set; the second, for a cell inside the
// region, keeps every point (h.inside). Each candidate's distance is
// computed once: a circle's test is its distance from the centre, which
// is also the result's. A measured region (a corridor, a polygon's
// surroundings) measures its own distances, from its line or polygon, in
// every cell: its first test is its second.
func (h *hits) regionTests(reg region, lat, lon float64, explain *Explain) (edge, inside candidateTest) {
	if m, ok := reg.(measured); ok {
		var test candidateTest = measuredTest{m}
		if explain != nil {
			test = &explainTest{test, &explain.Rejected}
		}
		return test, test
	}
	circ, isCircle := reg.(*circle)
	var from origin
	if isCircle {
		from = circ.centre.origin() // (lat, lon), its trigonometry done
	} else {
		from = newOrigin(lat, lon)
	}
	// Every haversine is at most 1: 2 rejects none.
	h.inside = radiusTest{from: from, hOut: 2, radius: math.Inf(1)}
	var test candidateTest
	if isCircle {
		h.edge = radiusTest{from: from, hOut: circ.hOut, radius: circ.radius}
		test = &h.edge
	} else {
		test = &regionTest{reg: reg, from: from}
	}
	if explain != nil {
		test = &explainTest{test, &explain.Rejected}
	}
	return test, &h.inside
}

// checkAfter validates the cursor, if any.
func (o QueryOptions) checkAfter() error {
	if o.After == nil {
		return nil
	}
	return o.After.validate()
}

// maxCells is the covering budget for reg: MaxCells if set, else the
// default for reg (defaultMaxCells for a circle, twice that for a
// sector).
func (o QueryOptions) maxCells(reg region) int {
	if o.MaxCells > 0 {
		return o.MaxCells
	}
	switch c := reg.(type) {
	case *circle:
		return defaultMaxCells(c.radius)
	case *sector:
		// Two straight sides as well as an arc. On 1,000,000 clustered
		// points (BenchmarkSector), descending to twice a circle's cells
		// read 1.7 and 2.0 candidates a result for sectors of 90° and 30°
		// of 1 km, 1.5 and 1.9 at 10 km, 2.3 and 3.9 at 100 km, against
		// 2.2, 2.8, 2.0, 2.7, 2.8 and 5.6 with a circle's budget, in about
		// the same time. A sector of a near circle is covered by a block
		// of twice this (sectorBlockCover), and a wider near circle's
		// block has more when the sector is read whole, with no Limit
		// and from no cursor (sectorBlockScale; what lies beyond a
		// cursor is covered by the descent, whose cells cost more).
		n := defaultMaxCells(c.radius) * 2
		if c.circle.near && o.Limit == 0 && o.After == nil {
			n *= sectorBlockScale(c.radius)
		}
		return n
	case *beyond:
		return 2 * o.maxCells(c.reg) // see beyond
	case *corridor:
		return corridorMaxCells(c)
	case *nearPolygon:
		return nearPolygonMaxCells(c)
	}
	return DefaultMaxCells
}

// sectorBlockScale is how many times a sector's usual budget the block
// covering a sector of a near circle of radius metres gets: one for
// every whole 10 km of the radius, at least one and at most eight (from
// 80 km).
//
// A sector's two straight sides meet at the query's centre, and the
// centre is where a proximity query is asked, in the thick of the
// points: the block's cells along the sides near it hold many points
// the sector leaves out, and at one precision over a wide sector's box
// they are wide. On 1,000,000 clustered points in memory, sectors of 30°
// and 90° of 100 km read 4.48 and 2.36 candidates a result in a block of
// 64 cells, taking 184–188 and 343–389 µs, and 2.27 and 1.57 in a block
// of 512, taking 130–154 and 289–316 µs (a block of 1,024: 1.90 and
// 1.37, 130–135 and 280–303 µs); on bbolt 289 and 587 µs against 189 and
// 499 at 512. At 30 km a block of 256 read 1.65 and 1.30 against 2.40
// and 1.62, in 5–10% less time (the rule gives 30 km 192).
// BenchmarkSector's 100 km sectors went from 204 and 361 µs to 144 and
// 323. Up to 10 km the extra cells' ranges cost what the candidates
// save, and at 1 km more: a 30° sector of 1 km on bbolt took 5.5 µs
// with 64 cells and 8.3 with 256. A query with a Limit keeps its usual
// block: it reads a budget's worth and hands over to a search of its
// own (the 10 farthest of a 90° sector of 100 km took 200 µs in a block
// of 512 cells, against 110 µs in one of 64).
func sectorBlockScale(radius float64) int {
	return int(min(max(radius/10_000, 1), 8))
}

// A pointRange is a key range of the points under one scope in one grid.
// All its keys start with the same prefix (the grid's subspace, then the
// scope), so a scan decodes only what follows: the hash, stepped over, and
// the id.
type pointRange struct {
	keyspace.Range
	scope  composite.Tuple // the points' scope, shared by the results
	prefix int             // bytes of subspace and scope at the start of every key
}

// scoped holds the key prefixes of one scope's points in each grid,
// packed once for a query's many ranges.
type scoped struct {
	scope  composite.Tuple // nil for none; shared by the query's results
	prefix [3][]byte       // grid subspace, then the scope as a nested tuple
}

// scoped returns the prefixes of scope's points, or an error wrapping
// ErrBadQuery for a scope no key can hold (an element of an unsupported
// type, a time beyond composite.TimeBounds).
func (ix *Index) scoped(scope composite.Tuple) (scoped, error) {
	if len(scope) == 0 {
		return ix.unscoped, nil // packed once, by NewIndex
	}
	return ix.packScope(scope)
}

func (ix *Index) packScope(scope composite.Tuple) (scoped, error) {
	var s scoped
	if len(scope) > 0 {
		s.scope = slices.Clone(scope)
	}
	nested := composite.Tuple{scopeTuple(s.scope)}
	for g := range s.prefix {
		p, err := ix.points[g].TryPack(nested)
		if err != nil {
			return scoped{}, fmt.Errorf("%w: scope %v: %w", ErrBadQuery, scope, err)
		}
		s.prefix[g] = p
	}
	return s, nil
}

// hashRange is the range of the scope's points in grid g whose hash is in
// [lo, hi].
func (s scoped) hashRange(g grid, lo, hi uint64) pointRange {
	var buf []byte
	return s.hashRangeIn(&buf, g, lo, hi)
}

// hashRangeIn is hashRange with its bounds built in *buf, which it reuses:
// the range is good until the next call with the same buffer, which is
// enough for a query that scans its ranges one after another.
func (s scoped) hashRangeIn(buf *[]byte, g grid, lo, hi uint64) pointRange {
	var r pointRange
	r.Range, *buf = s.appendHashRange((*buf)[:0], g, lo, hi)
	r.scope, r.prefix = s.scope, len(s.prefix[g])
	return r
}

// appendHashRange is the key range of hashRange, its bounds appended to
// buf, which it returns. The range's bounds stay good when a later append
// moves buf: they keep the array they were built in.
func (s scoped) appendHashRange(buf []byte, g grid, lo, hi uint64) (keyspace.Range, []byte) {
	prefix := s.prefix[g]
	start := len(buf)
	b := composite.AppendUint(append(buf, prefix...), lo)
	n := len(b)
	b = append(b, prefix...)
	if hi == math.MaxUint64 {
		b = append(b, 0xff) // past every element (tuple codes end below 0xff)
	} else {
		b = composite.AppendUint(b, hi+1)
	}
	return keyspace.Range{Start: b[start:n:n], End: b[n:len(b):len(b)]}, b
}

// A candidateTest decides from a candidate's coordinates (read from the
// value, so a rejected candidate costs no key decoding) whether it is a
// result, and returns its distance from the query's centre.
type candidateTest interface {
	test(lat, lon float64) (distance float64, keep bool)
}

// A measured region measures its candidates' distances itself, from a
// line (corridor) or a polygon (nearPolygon) rather than from a centre:
// measure returns a point's distance and whether the region holds it.
// A Limit on such a region reads it whole, as the k-nearest search that
// answers a circle's measures from a centre, and a cursor's page is cut
// from the results, not the covering.
type measured interface {
	region
	measure(lat, lon float64) (distance float64, keep bool)
}

// measuredTest is a measured region's candidate test.
type measuredTest struct{ m measured }

func (t measuredTest) test(lat, lon float64) (float64, bool) { return t.m.measure(lat, lon) }

// radiusTest is the test for the points at most radius metres from a
// centre: exactly the distance reported. A scan calls it directly, not
// through the interface (candidates.Visit), and a query keeps its tests in
// its pooled hits: a test made per query as a closure was three
// allocations and an indirect call per candidate.
//
// A candidate whose haversine exceeds the radius's, shaded up
// (havAbove), is farther than radius, and is rejected before the square
// root and arcsine that turn a haversine into a distance are taken: about
// half the candidates of a small query.
type radiusTest struct {
	from   origin
	hOut   float64 // havAbove(radius)
	radius float64 // metres; +Inf keeps every candidate
}

// init makes t the test for the points at most radius metres from
// (lat, lon).
func (t *radiusTest) init(lat, lon, radius float64) {
	*t = radiusTest{from: newOrigin(lat, lon), hOut: havAbove(radius / EarthRadius), radius: radius}
}

func (t *radiusTest) test(lat, lon float64) (float64, bool) {
	h := t.from.hav(rad(lat), rad(lon))
	if h > t.hOut {
		return 0, false
	}
	d := EarthRadius * angleOf(h)
	return d, d <= t.radius
}

// regionTest keeps the points reg contains, at their distance from.
type regionTest struct {
	reg  region
	from origin
}

func (t *regionTest) test(lat, lon float64) (float64, bool) {
	if !t.reg.contains(lat, lon) {
		return 0, false
	}
	return t.from.distance(lat, lon), true
}

// explainTest is a test that records the candidates it rejects.
type explainTest struct {
	candidateTest
	rejected *[]Point
}

func (t *explainTest) test(lat, lon float64) (float64, bool) {
	d, ok := t.candidateTest.test(lat, lon)
	if !ok {
		*t.rejected = append(*t.rejected, Point{Lat: lat, Lon: lon})
	}
	return d, ok
}

// A keeper takes the candidates a scan keeps: the key and value of a point
// of r, and its distance.
type keeper interface {
	keep(r pointRange, key, v []byte, d float64) error
}

// scanWith reads every point of r, counting candidates, and passes those
// that test keeps to k, visiting with c, which it overwrites: a query that
// scans many ranges reuses one (hits.visit) rather than allocate one per
// range.
func (ix *Index) scanWith(tx keyspace.Tx, c *candidates, r pointRange, st *Stats, test candidateTest, k keeper) error {
	*c = candidates{r: r, test: test, k: k}
	err := keyspace.VisitRange(tx, r.Range, c)
	if c.err != nil {
		err = c.err
	}
	st.Candidates += c.read
	*c = candidates{}
	if err != nil {
		return ix.wrap(err)
	}
	return nil
}

// candidates is the keyspace.Visitor a scan hands the store: it counts the
// points of one range, tests each from the coordinates in its value and
// passes those kept to a keeper. (A range-over-func Scan loop costs a few
// closures per range; a 1 km radius query scans six or so ranges.)
//
// It is also the keyspace.RangesVisitor of a query's covering: the runs
// of cells its ranges were made from tell it which ranges are inside the
// region, to be tested with inside instead, and which grid's prefix each
// range's keys start with.
type candidates struct {
	r    pointRange
	read int           // candidates read, for the caller's Stats
	test candidateTest // the test of the range being visited
	k    keeper
	err  error // why the visit stopped early
	// budget, when not 0, is how many candidates the visit may read
	// before it stops with errOverBudget (a query with a limit).
	budget int
	// For VisitIn: the range being visited, and the tests and prefixes
	// that change from range to range.
	at           int
	runs         []span
	edge, inside candidateTest
	prefixes     [3]int // bytes of subspace and scope in each grid's keys
	// stop is the key of the candidate the budget stopped the visit at,
	// unread, and from is the index of runs whose range VisitIn's index
	// 0 is: what resume goes on from.
	stop []byte
	from int
}

// VisitIn visits a pair of the range made from runs[c.from+i].
func (c *candidates) VisitIn(i int, key, v []byte) bool {
	if i += c.from; i != c.at {
		c.enter(i)
	}
	return c.Visit(key, v)
}

// resume goes on with a visit of the ranges rs, made from c.runs, that
// its budget stopped, from the candidate it stopped at, under a budget
// of budget candidates in all. A query for the farthest few of a region
// does so when what the budget read (its share of the covering's
// hashes, readShare) says the region holds at most twice the budget: a
// region that size costs less read whole than by the branch and bound
// (farthest), which starts afresh.
//
// On 1,000,000 clustered points in memory, the 10 farthest within
// circles of 3–400 km round 150 centres, binned by the points each
// circle held (60 circles a bin, medians; a test's timings, not kept):
// circles of 854–1,084, 1,085–1,331 and 1,334–1,775 points took 115,
// 146 and 126 µs by the budget's 880 candidates and then the branch and
// bound, against 70, 87 and 99 µs read whole. Reading on to twice the
// budget when the estimate allows took them to 70, 83 and 107 µs; the
// circles it misjudged cost more, 1,777–2,682 points 145 µs against 129
// and 2,688–3,535 points 184 against 165, and larger ones, which the
// estimate tells apart, as before (124–134 µs up to 10,000 points). The
// estimate is rough: points cluster, hashes do not. Bolder rules (on to
// two and a half or three times the budget; or any region, to 1.6 times)
// gained as much on the small circles and lost up to 65 µs on those of
// 2,000–3,500 points. In the bench runner (50 circles of 100 km) the
// median of the 10 farthest went from 78 to 59–60 µs in memory and from
// 91–95 to 68–69 µs on bbolt, below the 3×3 block's 66–68 µs.
func (c *candidates) resume(tx keyspace.Tx, rs []keyspace.Range, budget int) error {
	at := c.at
	rest := slices.Clone(rs[at:])
	rest[0].Start = c.stop
	c.from, c.at, c.stop, c.err = at, -1, nil, nil
	c.read-- // the candidate it stopped at, read again
	c.budget = budget
	err := keyspace.VisitRanges(tx, rest, c)
	if c.err != nil {
		err = c.err
	}
	return err
}

// enter makes the range made from runs[i] the one being visited.
func (c *candidates) enter(i int) {
	s := &c.runs[i]
	c.at, c.r.prefix, c.test = i, c.prefixes[s.grid], c.edge
	if s.inside {
		c.test = c.inside
	}
}

func (c *candidates) Visit(key, v []byte) bool {
	if c.read++; c.read > c.budget && c.budget > 0 {
		c.err = errOverBudget
		c.stop = append(c.stop[:0], key...)
		return false
	}
	if len(v) < 16 {
		c.err = fmt.Errorf("corrupt point value under key %q", key)
		return false
	}
	var d float64
	var ok bool
	if t, isRadius := c.test.(*radiusTest); isRadius {
		d, ok = t.test(valueCoords(v)) // called directly: most scans' test
	} else {
		d, ok = c.test.test(valueCoords(v))
	}
	if !ok {
		return true
	}
	if err := c.k.keep(c.r, key, v, d); err != nil {
		if err != errEnough {
			c.err = err
		}
		return false
	}
	return true
}

// errEnough, from a keeper, stops a scan that has found all it wants
// (QueryOptions.Any): not an error.
var errEnough = errors.New("geo: enough results")

// errOverBudget stops a scan that has read its budget of candidates: the
// query asks the k-nearest search instead (nearestIn).
var errOverBudget = errors.New("geo: over the read budget")

// readBudget is how many candidates a query for the nearest limit points
// of a region reads before it asks the k-nearest search instead: about what
// that search costs on 1,000,000 clustered points, where it took 10, 14
// and 40 µs for 1, 10 and 100 points and reading a candidate about 58 ns.
func readBudget(limit int) int {
	return 160 + 6*min(limit, 1<<40)
}

// farthestBudget is how many candidates a query for the farthest limit
// points of a region reads before it asks the farthest-first branch and
// bound instead (farthest): four times readBudget, or eight when what it
// read says the region holds no more than that (candidates.resume). The
// branch and bound's cells cost more than the k-nearest search's to
// split (a greatest distance is an arcsine and more) and it reads a band
// along the region's whole far edge, so it gains on a region of a few
// thousand points and more. On 1,000,000 clustered points in memory (-bench
// RadiusFarthest), with the budget at readBudget the farthest 10 within
// 1 km took 42 µs against 14.5 µs for the circle read whole (a dense
// circle of a few thousand points, switched, took 120–170 µs), on a
// machine that a stray process kept busy; with this budget, unloaded,
// 8.2 µs against 7.9 µs, within 10 km 71 µs against 180 µs, within
// 100 km 121 µs against 714 µs and within 1000 km 0.26 ms against 1.5
// ms (bbolt: 81 against 173 µs, 139 against 670 µs, 0.29 against 1.4
// ms).
func farthestBudget(limit int) int {
	return 4 * readBudget(limit)
}

// keep gathers a kept point into h, if its filter keeps it too, and stops
// the scan once h has enough (QueryOptions.Any).
func (h *hits) keep(r pointRange, key, v []byte, d float64) error {
	if err := h.add(key, r.prefix, v, d); err != nil {
		return err
	}
	if !h.admit() {
		return nil
	}
	if h.tally != nil {
		rec := &h.recs[len(h.recs)-1]
		h.tally(rec.lat, rec.lon)
		h.drop()
		return nil
	}
	if h.enough > 0 && len(h.recs) >= h.enough {
		return errEnough
	}
	return nil
}

// nearestIn answers a query for the o.Limit points of reg nearest (lat,
// lon) with the k-nearest search, once reading reg has cost what that
// search would (search's budget, readBudget): a region that holds many
// more points than the limit costs about the limit nearest of them, not
// the region. The search is held within the region's farthest distance
// from (lat, lon) (a circle's radius, or a bound from any other region's
// bounding box), and a region other than a circle is its filter too
// and holds it (QueryOptions.heldIn): cells outside the region are not
// searched, and where the search widens (when the points it first read
// lay mostly outside the region, as a narrow sector's do: with no
// radius always, and within one when its k are likely to lie well
// inside it, widenBelow) a sector's reads sectors of growing radius,
// not circles, to its own radius at most.
// A page after a cursor (o.After) grows rings out from the
// cursor as Nearest's pages do (nearestAfter), up to that distance. st
// is what reading reg cost, added to the search's Stats; an Explain
// shows the search.
//
// The 10 nearest in a slice of directions with no radius (BenchmarkSector,
// 1,000,000 clustered points in memory), 90° and 30°: 252 and 1,168 µs
// (172 and 843 candidates a result) with the region only the search's
// filter, 149 and 333 µs once cells outside it were not searched and a
// widening search read its circles' parts in it (a circle classified
// with the sector), 107 and 265 µs once a
// sector with no radius skipped the first read, and 78 and 155 µs (36
// and 85 a result) once those parts were sectors, with a sector's
// bounding box and covering budget; the 10 nearest anywhere, 15 µs.
//
// On 1,000,000 clustered points in memory (BenchmarkRadiusLimit), the 10
// nearest within 100 km took 501 µs and 685 candidates a result reading
// the whole circle, and take 31 µs and 24 so (the k-nearest search
// alone, 16 µs and 3); within 1 km, where a circle holds some sixty
// points, reading it is the cheaper and is what happens, as fast as
// before (5.1–5.4 µs in alternated runs of both builds). On 1,000,000
// points spread over the sphere, the 10 nearest the centre of a box
// 4,000 km square read 276 candidates instead of 33,103, and of a 20°
// square polygon 276 instead of 8,262.
func (ix *Index) nearestIn(tx keyspace.Tx, lat, lon float64, reg region, o QueryOptions, st Stats) ([]Result, Stats, error) {
	var within float64
	if c, ok := reg.(*circle); ok {
		within = c.radius
	} else {
		within = min(farthestIn(reg.boundingBox(), lat, lon)*(1+1e-9)+1e-6, whole)
		if s, ok := reg.(*sector); ok {
			within = s.radius
		}
		filter := o.Filter
		o.Filter = func(p Point) bool { return reg.contains(p.Lat, p.Lon) && (filter == nil || filter(p)) }
		o.heldIn = reg
	}
	if o.Explain != nil {
		*o.Explain = Explain{} // what the search that answers reads
	}
	var rs []Result
	var nst Stats
	var err error
	if o.After != nil { // a page after the first: rings out from the cursor
		rs, nst, err = ix.nearestAfter(tx, lat, lon, o.Limit, within, o)
	} else {
		rs, nst, err = ix.nearest(tx, lat, lon, o.Limit, within, o)
	}
	nst.Cells, nst.Ranges, nst.Candidates = nst.Cells+st.Cells, nst.Ranges+st.Ranges, nst.Candidates+st.Candidates
	return rs, nst, err
}

// farthestIn is a bound in metres on the distance from (lat, lon) to any
// point of the box b. A point (φ, λ) of b is reached from the centre
// (φ₀, λ₀) along the meridian to φ, R·|φ − φ₀|, then along the parallel,
// R·cos φ·|λ − λ₀|; the great circle is no longer than that path, so
// R·(max |φ − φ₀| + max cos φ · max |λ − λ₀|) bounds it (cos φ greatest
// at the latitude of b nearest the equator, |λ − λ₀| at most π, and π
// when λ₀ lies outside b's longitudes or b crosses ±180°).
func farthestIn(b Box, lat, lon float64) float64 {
	dφ := rad(max(b.MaxLat-lat, lat-b.MinLat, 0))
	maxCos := 1.0
	if b.MinLat > 0 || b.MaxLat < 0 {
		maxCos = math.Cos(rad(min(math.Abs(b.MinLat), math.Abs(b.MaxLat))))
	}
	dλ := math.Pi // across ±180°, or from outside b's longitudes
	if b.MinLon <= lon && lon <= b.MaxLon {
		dλ = rad(min(max(lon-b.MinLon, b.MaxLon-lon), 180))
	}
	return EarthRadius * (dφ + maxCos*dλ)
}
