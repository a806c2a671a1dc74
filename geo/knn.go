package geo

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/keyspacedb/keyspace"
)

// Nearest returns the k points nearest (lat, lon), nearest first, ties by
// id. It is exact and needs no radius. opts.Limit is ignored (k is the
// limit) and so is opts.MaxCells.
//
// The search is best-first over the cells of all three grids (geohash and
// the two polar caps), a branch and bound that keeps the k best points
// read so far:
//
//  1. Seed: read the k points on each side of the query's own hash in key
//     order (its geohash, or its cell in a polar cap's grid). Hash order
//     keeps most neighbours close, so the k-th smallest distance among
//     them, D, is a fair first bound on the answer. The hashes they span are
//     remembered as already read. If the query's grid holds fewer than k
//     points (a polar cap may hold none), the k points on each side of
//     the hash in each other grid of that grid's point nearest the query
//     (nearestIn: the query moved along its meridian to the grid's edge)
//     give D.
//  2. A priority queue holds cells, keyed by their minimum distance to the
//     query (rect.minAngle over the cell's rectangles). It starts with a
//     covering of the circle of radius D (start). (With no D, the index
//     holds fewer than k points and the seed has read them all.) Popping
//     a cell either splits it in two (if it is wider than D, or than D/2
//     when D is WideRadius or more; see scanNow) or scans its
//     unread key ranges.
//  3. Every point read that is no farther than D joins the k best, and D
//     shrinks to the k-th best distance. A cell whose minimum distance
//     exceeds D is never queued, and once the nearest cell left is
//     farther than D, the k best are the answer.
//
// Stats.Cells counts the cells scanned, Ranges the key ranges read
// (including the two seed reads).
func (ix *Index) Nearest(tx keyspace.Tx, lat, lon float64, k int, opts *QueryOptions) ([]Result, Stats, error) {
	var o QueryOptions
	if opts != nil {
		o = *opts
	}
	if err := validate(lat, lon); err != nil {
		return nil, Stats{}, ix.wrap(err)
	}
	if k < 1 {
		return nil, Stats{}, ix.wrap(fmt.Errorf("%w: k = %d; ask for at least one neighbour", ErrBadQuery, k))
	}
	if o.FarthestFirst {
		return nil, Stats{}, ix.wrap(fmt.Errorf("%w: Nearest finds the nearest points; ask a region query (Radius, Box, BoxAround, Within) for the farthest first", ErrBadQuery))
	}
	if err := o.checkAfter(); err != nil {
		return nil, Stats{}, ix.wrap(err)
	}
	if o.After != nil {
		return ix.nearestAfter(tx, lat, lon, k, whole, o)
	}
	return ix.nearest(tx, lat, lon, k, math.Inf(1), o)
}

// nearest is Nearest's search (its arguments checked) for the k nearest
// points within within metres (+Inf for anywhere): Radius with a limit
// is this search with within its radius.
func (ix *Index) nearest(tx keyspace.Tx, lat, lon float64, k int, within float64, o QueryOptions) ([]Result, Stats, error) {
	points, err := ix.scoped(o.Scope)
	if err != nil {
		return nil, Stats{}, ix.wrap(err)
	}
	ref := newRef(lat, lon)
	s := &nearestSearch{ix: ix, tx: tx, points: points, lat: lat, lon: lon, ref: ref, from: ref.origin(), k: k, within: within, heldIn: o.heldIn, explain: o.Explain}
	s.found = ix.newHits(s.points.scope, &o)
	defer ix.release(s.found)
	s.all.init(lat, lon, math.Inf(1))
	s.queue.less = func(a, b nearItem) bool { return a.key < b.key }
	s.best.items = make([]int32, 0, min(k, 1024)) // k may be far more than the index holds
	s.best.less = s.after
	if err := s.seed(); err != nil {
		return nil, s.st, err
	}
	if math.IsInf(s.bound(), 1) {
		// Fewer than k points in the query's grid (a polar cap holds few
		// cities): read the k on each side of the hash, in each other
		// grid, of that grid's point nearest the query (nearestIn). The
		// k-th distance among them bounds the answer about as closely as
		// the query's own neighbours would have.
		for _, g := range []grid{geohashGrid, northCap, southCap} {
			if g == s.readGrid {
				continue
			}
			if _, _, err := s.seedAround(g, nearestIn(g, lat, lon)); err != nil {
				return nil, s.st, err
			}
		}
	}
	// The seed kept fewer than k: the index holds fewer than k points,
	// all now read; or expiries, a filter or the region the search is
	// held within left out all but fewer than k of those read. With no
	// radius, there is no bound to begin from, and the search widens
	// (nearestWidening). With one, it widens too, to that radius at most,
	// when it would begin well inside it (widenBelow): a branch and bound
	// begun from the radius as D scans whole every cell as wide as D, and
	// the 10 nearest in a 90° sector of 100 km read 3,700 candidates so.
	var r0 float64 // where nearestWidening would begin
	if s.best.len() < k && s.found.rejected > 0 {
		r0 = s.firstRadius()
	}
	if D := s.bound(); !math.IsInf(D, 1) && (r0 == 0 || r0 >= D*widenBelow) {
		s.start(D)
	} else if s.found.rejected > 0 {
		if s.found.now != 0 {
			o.Now = time.Unix(0, s.found.now) // the instant the seed's points expired by
		}
		return ix.nearestWidening(tx, lat, lon, k, min(s.within, whole), o, r0, s.st)
	}
	// A cell farther than D holds no answer, and the cells left are all
	// at least as far as the one popped.
	for s.queue.len() > 0 && s.queue.items[0].key <= s.bound() {
		if err := s.visit(s.queue.pop()); err != nil {
			return nil, s.st, err
		}
	}
	// The answer is the k best read: nearest first, ties by id.
	out := s.found.resultsOf(s.best.items, o.Into)
	s.st.Results = len(out)
	return out, s.st, nil
}

// widenBelow is when a search held within a radius (Radius with a Limit,
// or a sector, box or polygon handing over to the search), whose seed
// kept fewer than k of the points it read, widens (nearestWidening): when
// the radius the widening would begin from (firstRadius) is below this
// share of the radius the search is held within. Otherwise it begins its
// branch and bound from that radius, which reads most of the region.
//
// On 1,000,000 clustered points in memory, the 10 nearest within 100 km
// under a filter keeping 1 point in 10 took 154–162 µs beginning from
// the radius and 61–71 µs widening; in a sector of 100 km (30° or 90°)
// 297–354 µs and 36–43 µs. Widening reads each radius whole and reads
// the last one's points again, so it loses where the answer needs most
// of the region: within 10 km, keeping 1 point in 100, a circle's 91 µs
// became 95–97 µs at a share of 0.25 (104–110 at 0.5 and 1), and a
// box's 92–94 µs 99–102 µs (117–132). At 0.1 the sectors took 49–66 µs.
const widenBelow = 0.25

// nearestSearch is the state of one Nearest call.
type nearestSearch struct {
	ix       *Index
	tx       keyspace.Tx
	points   scoped // the scope's key prefixes
	lat, lon float64
	ref      ref    // the query point, trigonometry done
	from     origin // the same, for distances to candidates
	k        int
	st       Stats

	// queue holds the cells yet to visit, nearest first.
	queue binaryHeap[nearItem]
	// found holds the points kept, as records (distance, coordinates,
	// where the id and payload lie in its buffers): a point read costs a
	// few appends, and only the k answered become Results. Building a
	// Result per point read (its id a new string) was half of a 100
	// nearest search.
	found *hits
	// best holds the k best points read so far (indexes of found.recs),
	// the worst on top: farthest, and of those the greatest id.
	//
	// Points used to go into queue beside the cells and be answered as
	// they popped (Hjaltason and Samet's order); but a 100 nearest search
	// reads some 260 points, and heaping each of them among the cells was
	// a seventh of its time. The k best are the answer as soon as no cell
	// left is nearer than the k-th of them.
	best    binaryHeap[int32]
	explain *Explain
	// read is the interval [readLo, readHi] of hashes in readGrid (the
	// query point's grid) whose points the seed has all read; empty when
	// readLo > readHi. The hashes at the seed's two ends are left out:
	// more points may share them.
	readGrid       grid
	readLo, readHi uint64
	// seen holds the interval of keys, [lo, hi], that each of the seed's
	// scans read. A cell holding the hashes at the ends of read reads
	// some of the seed's points again; a point whose key lies in one of
	// these intervals was read already (and kept or ruled out), and is
	// skipped.
	seen []keySpan
	// The seed's scan being read: all is its test (every point), and
	// scanning, read, first, last and lastAt what it has read.
	all         radiusTest
	scanning    bool
	read        int
	first, last []byte
	lastAt      [2]float64 // the last point's latitude and longitude
	seedFar     float64    // the farthest point the seed read, kept or not
	seedLeft    []float64  // the distance of every point the seed read and expiries or the filter left out
	within      float64    // the search's radius: +Inf, or Radius's
	heldIn      region     // the region the search is held within, or nil (QueryOptions.heldIn)
}

// nearestWidening is Nearest where expiries, a filter or the region the
// search is held within kept fewer than k of the points the seed read,
// so that there is no bound to begin the branch and bound from, or only
// the search's radius, far beyond where its k are likely to lie
// (widenBelow): radius queries of a growing radius, from r (metres),
// until one finds k points kept, or the radius reaches until (whole for
// the whole sphere, or the radius the search is held within). Every
// point within a radius is read, so the k nearest kept points within it
// are the k nearest kept within until.
//
// The points kept within a radius grow with its area, so a radius that
// kept m < k of them wants about √(k/m) times its length: the next is
// that, a little more, and at least 1.5 and at most 4 times the last (4
// when it kept none). Doubling from the farthest point the seed read, as
// this did before, read all of 1,000,000 points to find the 10 nearest
// that a filter keeping 1% of them kept: the seed's neighbours in key
// order reach across the curve's jumps, so the first radius held
// thousands of kilometres.
func (ix *Index) nearestWidening(tx keyspace.Tx, lat, lon float64, k int, until float64, o QueryOptions, r float64, st Stats) ([]Result, Stats, error) {
	r = min(max(r, 100), until)
	first := true
	return ix.growRadius(tx, lat, lon, k, until, o, st, func(kept int) (float64, int) {
		if !first {
			grow := 1.15 * math.Sqrt(float64(k)/max(float64(kept), 0.5))
			r = min(r*min(max(grow, 1.5), 4), until)
		}
		first = false
		return r, 0
	})
}

// firstRadius is the first radius of nearestWidening: where k points the
// query keeps are likely to be found, from what the seed read. Of its n
// points, the k-th nearest lies at d_k and m were kept, so about k·m/n
// kept points lie within d_k, and k of them within d_k·√(n/m) (m taken
// as ½ when none was kept). A seed that read fewer than k points read
// every point its grids hold: then twice the farthest of them. The points
// kept are all in best (fewer than k were), and the rest are seedLeft:
// a seed that keeps k, as most do, records no distance.
func (s *nearestSearch) firstRadius() float64 {
	dists := s.seedLeft
	for _, i := range s.best.items {
		dists = append(dists, s.found.recs[i].distance)
	}
	n := len(dists)
	if n < s.k {
		return 2 * s.seedFar
	}
	slices.Sort(dists)
	kept := max(float64(s.best.len()), 0.5)
	return dists[s.k-1] * math.Sqrt(float64(n)/kept)
}

// whole is half the circumference: a radius that holds every point.
const whole = math.Pi * EarthRadius

// growRadius asks radius queries of the radii (and covering budgets) that
// next returns, each for the k nearest points that o keeps, until one
// finds k or its radius reaches until (whole: the sphere), and returns
// its results with st plus what every query cost. next is told how many
// points the last query kept (0 before the first). Each query reads its
// whole circle (readBudget -1): the growing is this loop's.
func (ix *Index) growRadius(tx keyspace.Tx, lat, lon float64, k int, until float64, o QueryOptions, st Stats, next func(kept int) (radius float64, maxCells int)) ([]Result, Stats, error) {
	kept := 0
	for {
		r, maxCells := next(kept)
		ro := QueryOptions{Scope: o.Scope, Filter: o.Filter, Now: o.Now, Limit: k, Explain: o.Explain, Into: o.Into, After: o.After, MaxCells: maxCells, readBudget: -1}
		var rs []Result
		var rst Stats
		var err error
		if sec, ok := o.heldIn.(*sector); ok { // the sector of radius r, not the whole circle
			rs, rst, err = ix.Sector(tx, lat, lon, min(r, sec.radius), sec.from, sec.to, &ro)
		} else {
			rs, rst, err = ix.Radius(tx, lat, lon, r, &ro)
		}
		st.Cells += rst.Cells
		st.Ranges += rst.Ranges
		st.Candidates += rst.Candidates
		if err != nil {
			return nil, st, err
		}
		if len(rs) >= k || r >= until {
			st.Results = len(rs)
			return rs, st, nil
		}
		kept = len(rs)
	}
}

// keySpan is an interval of keys, both ends included.
type keySpan struct{ lo, hi []byte }

// id is the id of the point found.recs[i], unescaped.
func (s *nearestSearch) id(i int32) []byte {
	r := &s.found.recs[i]
	return s.found.ids[r.id[0]:r.id[1]]
}

// after reports whether point i comes after point j in the answer: it is
// farther, or as far with a greater id.
func (s *nearestSearch) after(i, j int32) bool {
	di, dj := s.found.recs[i].distance, s.found.recs[j].distance
	if di != dj {
		return di > dj
	}
	return bytes.Compare(s.id(i), s.id(j)) > 0
}

// bound is D: the k-th smallest distance read so far, or until k are
// read the search's radius (+Inf for none). A point farther than D is no
// answer, so the k-th is never beyond the radius.
func (s *nearestSearch) bound() float64 {
	if s.best.len() < s.k {
		return s.within
	}
	return s.found.recs[s.best.items[0]].distance
}

// test is the candidate test: could a point at these coordinates be an
// answer?
func (s *nearestSearch) test(lat, lon float64) (float64, bool) {
	d := s.from.distance(lat, lon)
	return d, d <= s.bound()
}

// keep is the keeper of every scan: it adds a point read to the k best,
// unless a seed's scan read it already or it is no better than the k-th.
func (s *nearestSearch) keep(r pointRange, key, v []byte, d float64) error {
	if s.scanning {
		s.seedFar = max(s.seedFar, d)
		s.read++
		if s.read == 1 {
			s.first = append(s.first[:0], key...)
		}
		s.last = append(s.last[:0], key...)
		s.lastAt[0], s.lastAt[1] = valueCoords(v)
	} else {
		for i := range s.seen {
			if sp := &s.seen[i]; bytes.Compare(key, sp.lo) >= 0 && bytes.Compare(key, sp.hi) <= 0 {
				return nil
			}
		}
	}
	if d > s.bound() {
		return nil
	}
	i := int32(len(s.found.recs))
	if err := s.found.add(key, r.prefix, v, d); err != nil {
		return err
	}
	if !s.found.admit() {
		if s.scanning {
			s.seedLeft = append(s.seedLeft, d) // for firstRadius, should k not be kept
		}
		return nil // QueryOptions.Filter's
	}
	switch {
	case s.best.len() < s.k:
		s.best.push(i)
	case s.after(s.best.items[0], i):
		s.best.replaceTop(i)
	default: // as far as the k-th with a greater id: not an answer
		s.found.drop()
	}
	return nil
}

// seedScan reads the first k points of grid g's hashes lo…hi (the last k
// when reverse), every one of them going to keep, and records the keys it
// read in seen. It reports how many points it read and the last one's
// coordinates. An Explain gets the hashes it read as a range: lo…hi, cut
// at the last point's hash when it stopped at k.
func (s *nearestSearch) seedScan(g grid, lo, hi uint64, reverse bool) (int, [2]float64, error) {
	r := s.points.hashRange(g, lo, hi)
	r.Reverse, r.Limit = reverse, s.k
	s.st.Ranges++
	s.scanning, s.read = true, 0
	err := s.ix.scanWith(s.tx, &s.found.visit, r, &s.st, &s.all, s)
	s.scanning = false
	if err == nil && s.explain != nil {
		if s.read == s.k {
			if _, lastHash := locate(s.lastAt[0], s.lastAt[1]); reverse {
				lo = lastHash
			} else {
				hi = lastHash
			}
		}
		s.explain.addRange(g, lo, hi)
	}
	if err != nil || s.read == 0 {
		return s.read, s.lastAt, err
	}
	first, last := s.first, s.last
	if reverse {
		first, last = last, first
	}
	s.seen = append(s.seen, keySpan{bytes.Clone(first), bytes.Clone(last)})
	return s.read, s.lastAt, nil
}

// seed reads k points on each side of the query's hash in its own grid,
// and remembers which hashes it has read all the points of.
func (s *nearestSearch) seed() error {
	g, h := locate(s.lat, s.lon)
	s.readGrid, s.readLo, s.readHi = g, 1, 0
	lo, hi, err := s.seedAround(g, h)
	if err == nil {
		s.readLo, s.readHi = lo, hi
	}
	return err
}

// seedAround reads the k points from hash h on in grid g and the k before
// it, and returns the interval [lo, hi] of hashes whose points it has all
// read (empty, lo > hi, when it cannot tell).
func (s *nearestSearch) seedAround(g grid, h uint64) (lo, hi uint64, err error) {
	n, last, err := s.seedScan(g, h, math.MaxUint64, false)
	if err != nil {
		return 1, 0, err
	}
	hi = math.MaxUint64
	if n == s.k { // more may share the last point's hash
		_, lastHash := locate(last[0], last[1])
		if lastHash == 0 {
			return 1, 0, nil
		}
		hi = lastHash - 1
	}
	if h > 0 {
		if n, last, err = s.seedScan(g, 0, h-1, true); err != nil {
			return 1, 0, err
		}
		if n == s.k {
			_, lastHash := locate(last[0], last[1])
			if lastHash == math.MaxUint64 {
				return 1, 0, nil
			}
			return lastHash + 1, hi, nil
		}
	}
	return 0, hi, nil
}

// nearestIn is the hash in grid g of the point of g's latitudes nearest
// (lat, lon): the query itself moved along its meridian to the edge of
// the band g covers (|latitude| below CapLatitude for the geohash grid,
// above it for a cap). No point of g is nearer the query than that band's
// edge, and the points keyed near it in hash order are mostly near it.
func nearestIn(g grid, lat, lon float64) uint64 {
	const inside = 1e-9 // degrees: keeps the point off the seam, in g
	switch g {
	case northCap:
		return capHash(g, max(lat, CapLatitude+inside), lon)
	case southCap:
		return capHash(g, min(lat, -CapLatitude-inside), lon)
	}
	return encode(max(-CapLatitude+inside, min(lat, CapLatitude-inside)), lon)
}

// start queues the cells the best-first search begins from: a covering
// of the circle of radius D around the query, D being the k-th smallest
// distance read so far. Every answer lies in that circle (k points are
// already no farther than D, and a point at exactly D may still win its
// tie by id), so the covering's cells hold them all.
//
// Starting from the three grids' roots instead, as Hjaltason and Samet's
// search does, costs a pop and two minimum distances per bit of the cells
// the search reaches: about 35 levels of splitting before a 1 nearest
// search on 1,000,000 clustered points scans a cell. The covering gets
// there in one step, with the radius query's own block covering.
func (s *nearestSearch) start(D float64) {
	found := s.found
	// A hair wider than D, so that rounding in the covering cannot drop
	// a point at D itself.
	circ := found.circle.init(s.lat, s.lon, D*(1+1e-9)+1e-6)
	for _, c := range found.cover.cover(circ, defaultMaxCells(D)) {
		s.push(c.cell)
	}
}

// push queues a cell unless it is empty by construction (a geohash cell in
// a cap's rows), outside the region the search is held within, or
// farther than D.
func (s *nearestSearch) push(c cell) {
	if inCapRows(c) {
		return
	}
	if s.heldIn != nil {
		if outside, _ := classifyCell(s.heldIn, c); outside {
			return
		}
	}
	if d := s.minDistance(c); d <= s.bound() {
		s.queue.push(nearItem{key: d, cell: c})
	}
}

// minDistance is a lower bound in metres on the distance from the query to
// any point of c, shaded for rounding.
func (s *nearestSearch) minDistance(c cell) float64 {
	rs, n := c.rects()
	d := math.Inf(1)
	for _, r := range rs[:n] {
		d = min(d, s.ref.minAngle(r))
	}
	return lowerBound(d * EarthRadius)
}

// visit handles a cell popped from the queue: skip, split or scan.
func (s *nearestSearch) visit(it nearItem) error {
	c, D := it.cell, s.bound()
	lo, hi := c.span()
	read := c.grid == s.readGrid && s.readLo <= s.readHi
	if it.key > D || read && lo >= s.readLo && hi <= s.readHi {
		return nil // too far now that D has shrunk, or every point of it was read
	}
	if !s.scanNow(c, D) {
		for _, child := range c.children() {
			s.push(child)
		}
		return nil
	}
	s.st.Cells++
	if s.explain != nil {
		s.explain.addCell(c, false)
	}
	parts := [][2]uint64{{lo, hi}}
	if read {
		parts = subtract(lo, hi, s.readLo, s.readHi)
	}
	// The run of points exactly on the pole (see spans) is read only if
	// the pole could hold an answer.
	if c.grid != geohashGrid && poleHash >= lo && poleHash <= hi && s.minDistance(cell{hash: poleHash, bits: MaxBits, grid: c.grid}) > D {
		var cut [][2]uint64
		for _, part := range parts {
			cut = append(cut, subtract(part[0], part[1], poleHash, poleHash)...)
		}
		parts = cut
	}
	for _, part := range parts {
		s.st.Ranges++
		if s.explain != nil {
			s.explain.addRange(c.grid, part[0], part[1])
		}
		r := s.points.hashRange(c.grid, part[0], part[1])
		var test candidateTest = s
		if s.explain != nil {
			test = &explainTest{s, &s.explain.Rejected}
		}
		if err := s.ix.scanWith(s.tx, &s.found.visit, r, &s.st, test, s); err != nil {
			return err
		}
	}
	return nil
}

// scanNow decides between scanning a cell and splitting it: scan once the
// cell is no wider than D, or when it is a leaf. Scanning at D/2 read fewer
// candidates (2.6·k against 3.1·k for k = 10 on 1,000,000 clustered
// points) but twice the key ranges (13 against 6.8), and a range's seek
// costs more than a few candidates: 10 nearest took 78 µs at D against
// 133 µs at D/2 in memory, 100 nearest 258 against 395 µs. Where D is
// WideRadius or more (a query far from any point: at sea, near an empty
// pole), a cell as wide as D can hold a city's worth of points beyond D,
// and the search scans at D/2: on the 153,728 cities, 400 k-nearest
// queries centred at random (most at sea) read 181, 35 and 10 candidates
// per result for k = 1, 10 and 100 instead of 328, 56 and 17, and took
// 44, 64 and 153 µs instead of 50, 73 and 208; queries centred on cities
// did not change. Cells near the poles need no floor: the cap grids'
// cells are square, so halving them does rule points out.
func (s *nearestSearch) scanNow(c cell, D float64) bool {
	if c.bits >= MaxBits {
		return true
	}
	if math.IsInf(D, 1) {
		return false
	}
	if D >= WideRadius {
		return c.width() <= D/2
	}
	return c.width() <= D
}

// lowerBound shades a cell's minimum distance down by a rounding margin, so
// that a point on the cell's edge never pops before the cell holding a
// point at the same distance.
func lowerBound(d float64) float64 { return d*(1-1e-12) - 1e-9 }

// cellWidth is the larger side of a rectangle in metres (the east-west side
// measured on its parallel nearest the equator).
func cellWidth(r rect) float64 {
	eq := 0.0
	if r.MinLat > 0 || r.MaxLat < 0 {
		eq = min(math.Abs(r.MinLat), math.Abs(r.MaxLat))
	}
	ew := rad(r.MaxLon-r.MinLon) * math.Cos(rad(eq))
	return EarthRadius * max(ew, rad(r.MaxLat-r.MinLat))
}

// subtract returns [lo, hi] minus [rlo, rhi] as at most two intervals;
// rlo > rhi is the empty interval.
func subtract(lo, hi, rlo, rhi uint64) [][2]uint64 {
	if rlo > rhi || hi < rlo || lo > rhi {
		return [][2]uint64{{lo, hi}}
	}
	var out [][2]uint64
	if lo < rlo {
		out = append(out, [2]uint64{lo, rlo - 1})
	}
	if hi > rhi {
		out = append(out, [2]uint64{rhi + 1, hi})
	}
	return out
}

// nearItem is a cell in the best-first queue.
type nearItem struct {
	key  float64 // metres: the cell's minimum distance
	cell cell
}

// binaryHeap is a binary heap whose top is the item less puts first,
// typed so that pushing does not box its items (container/heap takes any).
type binaryHeap[T any] struct {
	items []T
	less  func(a, b T) bool
}

func (h *binaryHeap[T]) len() int { return len(h.items) }

func (h *binaryHeap[T]) push(x T) {
	h.items = append(h.items, x)
	h.up(len(h.items) - 1)
}

func (h *binaryHeap[T]) pop() T {
	top, n := h.items[0], len(h.items)-1
	h.items[0] = h.items[n]
	h.items = h.items[:n]
	h.down(0)
	return top
}

// replaceTop replaces the top item with x.
func (h *binaryHeap[T]) replaceTop(x T) {
	h.items[0] = x
	h.down(0)
}

func (h *binaryHeap[T]) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !h.less(h.items[i], h.items[parent]) {
			return
		}
		h.items[i], h.items[parent] = h.items[parent], h.items[i]
		i = parent
	}
}

func (h *binaryHeap[T]) down(i int) {
	for {
		smallest, l, r := i, 2*i+1, 2*i+2
		if l < len(h.items) && h.less(h.items[l], h.items[smallest]) {
			smallest = l
		}
		if r < len(h.items) && h.less(h.items[r], h.items[smallest]) {
			smallest = r
		}
		if smallest == i {
			return
		}
		h.items[i], h.items[smallest] = h.items[smallest], h.items[i]
		i = smallest
	}
}
