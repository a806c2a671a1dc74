package geo

import (
	"bytes"
	"math"

	"github.com/keyspacedb/keyspace"
)

// farthest answers a region query asked farthest first with a Limit of
// k (QueryOptions.FarthestFirst; Redis's DESC COUNT k), not Any, whose
// region holds more points than search's read budget: the k points of
// reg farthest from (lat, lon), farthest first, ties by id; after a
// cursor, the k farthest of those nearer than it (covered, the part of
// reg the search covers, is then reg within the cursor's distance:
// newBeyond). st is what the budget's read cost, and held an estimate of
// the points covered holds.
//
// Reading the whole region and keeping the k farthest, as Redis does and
// as this did before, reads every point of a 500 km circle to answer
// three. This is a branch and bound over the region's covering, the
// mirror of Nearest's:
//
//  1. A priority queue holds cells keyed by an upper bound on the
//     distance from the centre to any of their points that the region
//     holds: the cell's greatest distance (rect.maxAngle, the least
//     distance from the centre's antipode), and no more than a circle's
//     radius (or the cursor's distance). It starts with the region's
//     covering.
//  2. Popping a cell wider than the floor splits it, its halves queued
//     unless the region leaves them out; a narrower cell (or one of a
//     single hash) is scanned, and every point of it the region holds
//     joins the k best if it is farther than the k-th.
//  3. Once k are kept, D is the k-th farthest distance; a cell whose
//     bound is below D holds no answer, and when the cell popped is one,
//     so are all left: the k best are the answer.
//
// The answer lies near the region's far edge, so the cells scanned lie
// along it, each as wide as the floor: about 2π·reach/floor of them, and
// the points of a band about floor wide, some 2·floor/reach of the
// region's held points. If a scan's seek and the cells split to reach it
// cost what reading c candidates does, the sum is least for floor =
// reach·√(cπ/held). c = 20 (reach·8/√held) took 92, 169 and 347 µs for
// the farthest 10 within 10, 100 and 1000 km of 1,000,000 clustered
// points in memory; c = 100 (reach·18/√held, used, and held between a
// 128th and a quarter of the reach) 69, 116 and 255 µs, with half the
// ranges; c = 300 and 600 no less. A 32nd of the reach, whatever the
// points, took 7 and 17 times as long as c = 20 at 10 and 100 km (351
// and 3,668 ranges, against 41 and 118).
func (ix *Index) farthest(tx keyspace.Tx, lat, lon float64, reg, covered region, points scoped, o QueryOptions, st Stats, held float64) ([]Result, Stats, error) {
	found := ix.newHits(points.scope, &o)
	defer ix.release(found)
	reach := farthestIn(reg.boundingBox(), lat, lon)
	circ, isCircle := reg.(*circle)
	if isCircle {
		reach = circ.radius
	}
	if s, ok := reg.(*sector); ok {
		reach = s.radius
	}
	if o.After != nil {
		reach = min(reach, o.After.Distance) // the points after the cursor are no farther
	}
	s := &farthestSearch{ix: ix, tx: tx, points: points, found: found, reg: covered, k: o.Limit, reach: reach, explain: o.Explain}
	s.floor = reach * min(max(18/math.Sqrt(max(held, 1)), 1.0/128), 1.0/4) // √(100π) ≈ 18
	s.anti = newRef(lat, lon).antipode()
	s.queue.less = func(a, b farItem) bool { return a.bound > b.bound }
	s.best.items = make([]int32, 0, min(o.Limit, 1024))
	s.best.less = s.worse
	if o.Explain != nil {
		*o.Explain = Explain{} // what the search that answers reads
	}
	s.edge, s.inside = found.regionTests(reg, lat, lon, o.Explain)
	for _, c := range found.cover.cover(covered, o.maxCells(covered)) {
		s.push(c.cell, c.inside)
	}
	for s.queue.len() > 0 {
		it := s.queue.pop()
		if s.best.len() == s.k && it.bound < s.bound() {
			break // this cell and every one left hold no point as far as the k-th
		}
		if err := s.visit(it); err != nil {
			return nil, s.st, err
		}
	}
	out := found.resultsOf(s.best.items, o.Into)
	s.st.Results = len(out)
	s.st.Cells, s.st.Ranges, s.st.Candidates = s.st.Cells+st.Cells, s.st.Ranges+st.Ranges, s.st.Candidates+st.Candidates
	return out, s.st, nil
}

// readShare is the share of the covering's hashes, whose runs are runs,
// that a read stopped in the run at has read: the runs before it, and
// half of it.
func readShare(runs []span, at int) float64 {
	var total, read float64
	for i, r := range runs {
		n := float64(r.hi-r.lo) + 1
		total += n
		switch {
		case i < at:
			read += n
		case i == at:
			read += n / 2
		}
	}
	if total == 0 || read == 0 {
		return 1
	}
	return read / total
}

// farthestSearch is the state of one farthest call.
type farthestSearch struct {
	ix           *Index
	tx           keyspace.Tx
	points       scoped
	found        *hits
	reg          region // what the search covers: the query's region, or its part after a cursor
	inside, edge candidateTest
	anti         ref     // the centre's antipode, for each cell's greatest distance
	k            int     // how many points are asked for
	reach        float64 // metres: no point of the region lies farther
	floor        float64 // metres: a cell no wider than this is scanned, not split
	st           Stats
	explain      *Explain
	queue        binaryHeap[farItem]
	// best holds the k farthest points read so far (indexes of
	// found.recs), the worst on top: nearest, and of those the greatest
	// id.
	best binaryHeap[int32]
}

// A farItem is a queued cell: its bound, and whether it lies inside the
// region (so that its points need no test but their distance).
type farItem struct {
	bound  float64
	cell   cell
	inside bool
}

// worse reports whether point i comes after point j farthest first: it
// is nearer, or as far with a greater id.
func (s *farthestSearch) worse(i, j int32) bool {
	ri, rj := &s.found.recs[i], &s.found.recs[j]
	if ri.distance != rj.distance {
		return ri.distance < rj.distance
	}
	h := s.found
	return bytes.Compare(h.ids[ri.id[0]:ri.id[1]], h.ids[rj.id[0]:rj.id[1]]) > 0
}

// bound is D: the k-th farthest distance read so far, or -Inf until k
// are read.
func (s *farthestSearch) bound() float64 {
	if s.best.len() < s.k {
		return math.Inf(-1)
	}
	return s.found.recs[s.best.items[0]].distance
}

// maxDistance is an upper bound in metres on the distance from the centre
// to any point of c that the region holds, shaded up for rounding.
func (s *farthestSearch) maxDistance(c cell) float64 {
	rs, n := c.rects()
	least := math.Inf(1) // the least angle from the antipode
	for _, r := range rs[:n] {
		least = min(least, s.anti.minAngle(r))
	}
	d := (math.Pi - least) * EarthRadius
	return min(d, s.reach)*(1+1e-12) + 1e-9
}

// push queues c (inside the region or not, as inside says) unless it can
// hold no answer: a geohash cell in a cap's rows, or one whose bound is
// below D.
func (s *farthestSearch) push(c cell, inside bool) {
	if inCapRows(c) {
		return
	}
	if d := s.maxDistance(c); d >= s.bound() {
		s.queue.push(farItem{bound: d, cell: c, inside: inside})
	}
}

// visit splits a cell wider than the floor into the halves the region
// meets, and scans one no wider.
func (s *farthestSearch) visit(it farItem) error {
	c := it.cell
	if c.bits < MaxBits && c.width() > s.floor {
		for _, child := range c.children() {
			if it.inside {
				s.push(child, true)
				continue
			}
			if outside, inside := classifyCell(s.reg, child); !outside {
				s.push(child, inside)
			}
		}
		return nil
	}
	s.st.Cells++
	s.st.Ranges++
	lo, hi := c.span()
	if s.explain != nil {
		s.explain.addCell(c, it.inside)
		s.explain.addRange(c.grid, lo, hi)
	}
	test := s.edge
	if it.inside {
		test = s.inside
	}
	return s.ix.scanWith(s.tx, &s.found.visit, s.points.hashRange(c.grid, lo, hi), &s.st, test, s)
}

// keep adds a point read to the k best unless it is no farther than the
// k-th (or as far with a greater id), or the query's expiry or filter
// leaves it out.
func (s *farthestSearch) keep(r pointRange, key, v []byte, d float64) error {
	if d < s.bound() {
		return nil
	}
	i := int32(len(s.found.recs))
	if err := s.found.add(key, r.prefix, v, d); err != nil {
		return err
	}
	if !s.found.admit() {
		return nil
	}
	switch {
	case s.best.len() < s.k:
		s.best.push(i)
	case s.worse(s.best.items[0], i):
		s.best.replaceTop(i)
	default:
		s.found.drop()
	}
	return nil
}
