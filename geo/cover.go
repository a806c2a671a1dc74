package geo

import (
	"math"
	mathbits "math/bits"
	"slices"
)

// DefaultMaxCells bounds the cells of a covering, and so the key ranges a
// query scans (adjacent cells merge into one range). S2 publishes an area
// over-scan of 1.98× at 8 cells and 1.42× at 20. Measured here on 300,000
// clustered points at 1 km: 8 cells read 2.9 candidates per result, 16 read
// 1.9 and 24 read 1.6, but each cell costs trigonometry, and 16 was the
// fastest. A circle of up to about 110 km (blockCover) is covered by cells
// of one precision that cost far less each, and gets half as many again;
// one of WideRadius or more gets twice as many (defaultMaxCells).
const DefaultMaxCells = 16

// WideRadius is the radius from which a circle's covering, unless the
// query sets MaxCells, may hold 2·DefaultMaxCells cells. Such a circle
// holds thousands of points in populated places, and a few more key
// ranges cost little next to the points that cells too coarse read for
// nothing. On the 153,728 cities of ../shared/data, 300 circles of each
// radius (a third of them centred at random, the rest on cities) took
// 0.91, 0.63 and 0.96 of their time at 16 cells with 32 at radii of 500,
// 800 and 1,500 km, and a 2,127 km circle at (82.23, 22.38), whose
// covering must reach round the north polar cap, read 3,935 cities
// instead of 50,780 (0.28 ms instead of 2.7). Below 500 km the measure
// was mixed.
const WideRadius = 500_000

// defaultMaxCells is the covering budget for a circle of radius metres
// when the query does not set one.
func defaultMaxCells(radius float64) int {
	if radius >= WideRadius {
		return 2 * DefaultMaxCells
	}
	return DefaultMaxCells
}

// coveredCell is one cell of a covering.
type coveredCell struct {
	cell
	inside bool
}

// cover returns cells whose union contains every point of the region,
// sorted: for a near circle (up to about 110 km, between the caps and off
// ±180°), the cells of one precision that meet it, from a block of at most
// 3/2·maxCells (blockCover), and for a sector of one, from a block of at
// most 2·maxCells around the sector's box (sectorBlockCover); for any
// other region, cells of mixed precision, at most maxCells of them, as
// follows.
//
// It starts from a block of at most maxCells geohash cells around the
// region's bounding box when that box stays between the caps and off ±180°
// (startBlock), else from the roots of the three grids (the whole geohash
// world and the two polar caps; see polar.go). It repeatedly splits the
// largest cell that crosses the region's boundary (the widest on the
// ground, where cells of more than one grid cross it) into its two halves,
// dropping halves outside the region and keeping halves inside it whole,
// until one more split would exceed maxCells or the crossing cells reach
// full precision. Geohash cells in the cap rows hold no points (those are
// in the caps) and are dropped. Starting from the roots where a block
// cannot be had makes the antimeridian no special case: a circle across
// ±180° is simply met by cells on both sides of it; a circle around a pole
// is met by the cap's cells.
func cover(reg region, maxCells int) []coveredCell {
	return new(coverer).cover(reg, maxCells)
}

// A coverer builds coverings in slices it keeps: a query's covering,
// spans and the descent's queue are built in the buffers of the last
// query that used the coverer (hits.cover, pooled), not in new ones. What
// cover and spans return is good until the coverer's next use.
type coverer struct {
	done  []coveredCell
	seeds []framed
	runs  []span
	// sortByWord's scratch: the words it sorts, and the cells' old order.
	words  [64]uint64
	sorted []coveredCell
	// blockCover's rows, columns and cells, and a sector's terms of its
	// rows and columns (sectorBlockCover).
	rows, cols []blockLine
	wrows      []wedgeRow
	wcols      []wedgeCol
	blockWords []uint64
	// cover's queues of cells to split, one per grid.
	queues [3][]framed
}

// cover is the package's cover, built in c's buffers.
//
// Cells wait to be split in a first-in first-out queue per grid. In one
// grid a cell of fewer bits is the larger (children have one bit more
// than their parent, and a block's cells or a grid's root have as many as
// each other), so each queue's head is its largest cell without a heap;
// when more than one grid has cells waiting, the head that is widest on
// the ground is split first (widestHead). Splitting by bits alone would
// spend the cells evenly between grids whose roots differ a
// hundredfold: a 1,500 km circle around the north pole got twelve cap
// cells and four geohash cells of 90° by 45°, and read every point north
// of 45° (54,078 of 153,728 cities, to find one).
func (cv *coverer) cover(reg region, maxCells int) []coveredCell {
	if c, ok := reg.(*circle); ok && c.near {
		return cv.blockCover(c, maxCells*3/2)
	}
	if s, ok := reg.(*sector); ok && s.circle.near { // a sector of such a circle: its own block
		return cv.sectorBlockCover(s, maxCells*2)
	}
	done, queues := cv.done[:0], cv.queues
	for g := range queues {
		queues[g] = queues[g][:0]
	}
	var heads [3]int
	queued := 0
	defer func() { cv.done, cv.queues = done[:0], queues }()
	// add classifies c: inside, it is done; crossing the boundary, it
	// waits in its grid's queue. Cells are passed by pointer: copies of
	// their 56 bytes were most of the samples in a profile of the
	// descent's own code.
	add := func(c *framed) {
		if inCapRows(c.cell) {
			return // it holds no points: they are in a cap
		}
		outside, inside := c.classify(reg)
		switch {
		case outside:
		case inside:
			done = append(done, coveredCell{cell: c.cell, inside: true})
		default:
			queues[c.grid] = append(queues[c.grid], *c)
			queued++
		}
	}
	var ok bool
	if cv.seeds, ok = startBlock(cv.seeds[:0], reg, maxCells); ok {
		for i := range cv.seeds {
			add(&cv.seeds[i])
		}
	} else {
		for _, g := range []grid{geohashGrid, northCap, southCap} {
			root := frame(cell{grid: g})
			add(&root)
		}
	}
	var kids [2]framed
	g := geohashGrid
	for queued > 0 {
		if len(queues[g])-heads[g] < queued { // more than one grid waiting, or none of g
			g = widestHead(&queues, &heads)
		}
		c := &queues[g][heads[g]] // good until add appends to queues[g]
		heads[g]++
		queued--
		if c.bits >= MaxBits || len(done)+queued+2 > maxCells {
			done = append(done, coveredCell{cell: c.cell})
			continue
		}
		c.split(&kids)
		add(&kids[0])
		add(&kids[1])
	}
	cv.sortCells(done)
	return done
}

// widestHead returns the grid whose queue's head is to be split next: of
// the grids with cells waiting, the one whose head is widest on the
// ground.
func widestHead(queues *[3][]framed, heads *[3]int) grid {
	best, bestWidth := grid(0), -1.0
	for g := range queues {
		if heads[g] < len(queues[g]) {
			if w := queues[g][heads[g]].width(); w > bestWidth {
				best, bestWidth = grid(g), w
			}
		}
	}
	return best
}

// width is the cell's larger side in metres: a geohash cell's measured
// on its rectangle clipped to the latitudes between the caps.
func (f *framed) width() float64 {
	if f.grid != geohashGrid {
		return f.capWidth()
	}
	return cellWidth(clipToCaps(f.box))
}

// sortCells orders cells by grid, then by where their hash ranges start
// (cells of a covering never overlap). A covering holds a few dozen cells
// unless asked for more, and an insertion sort with the comparison inline
// costs less than a general sort calling back to compare, which was 8% of
// a 1 km radius query on 100,000 points.
//
// A covering of one grid whose cells have at most 58 bits, as a circle's
// or box's from a start block is, sorts one word per cell instead: where
// the cell's range starts, whose low bits are then zero, with the cell's
// index in them. Sorting those and then moving each cell once moves far
// fewer bytes than sorting the 32-byte cells themselves; with the
// descent's pointers (cover), `-bench Cover` ran 23% fewer instructions.
func sortCells(cells []coveredCell) {
	new(coverer).sortCells(cells)
}

// sortCells is the package's sortCells, with cv's scratch buffers.
func (cv *coverer) sortCells(cells []coveredCell) {
	if cv.sortByWord(cells) {
		return
	}
	less := func(a, b *coveredCell) bool {
		if a.grid != b.grid {
			return a.grid < b.grid
		}
		// Where the range starts: hash << (MaxBits-bits), which Go makes
		// 0 for the 0-bit cell.
		return a.hash<<(MaxBits-a.bits) < b.hash<<(MaxBits-b.bits)
	}
	if len(cells) > 64 {
		slices.SortFunc(cells, func(a, b coveredCell) int {
			switch {
			case less(&a, &b):
				return -1
			case less(&b, &a):
				return 1
			}
			return 0
		})
		return
	}
	for i := 1; i < len(cells); i++ {
		for j := i; j > 0 && less(&cells[j], &cells[j-1]); j-- {
			cells[j], cells[j-1] = cells[j-1], cells[j]
		}
	}
}

// sortByWord is sortCells for up to 64 cells of one grid of at most 58
// bits each, and reports false, leaving cells as they were, for any other
// covering.
func (cv *coverer) sortByWord(cells []coveredCell) bool {
	const indexBits = 6
	n := len(cells)
	if n > 1<<indexBits {
		return false
	}
	words := cv.words[:n]
	for i := range cells {
		c := &cells[i]
		if c.grid != cells[0].grid || c.bits > MaxBits-indexBits {
			return false
		}
		words[i] = c.hash<<(MaxBits-c.bits) | uint64(i)
	}
	sortFewWords(words)
	sorted := append(cv.sorted[:0], cells...)
	for i, w := range words {
		cells[i] = sorted[w&(1<<indexBits-1)]
	}
	cv.sorted = sorted[:0]
	return true
}

// sortFewWords sorts a few dozen words: by insertion, which for so few
// costs less than slices.Sort's quicksort, shifting the larger words up one
// by one and writing the one being placed once (swapping it down wrote two
// words per step).
func sortFewWords(words []uint64) {
	for i := 1; i < len(words); i++ {
		w, j := words[i], i
		for ; j > 0 && words[j-1] > w; j-- {
			words[j] = words[j-1]
		}
		words[j] = w
	}
}

// classifyCell classifies a cell by its rectangles: outside if all of
// them are, inside if all of them are.
func classifyCell(reg region, c cell) (outside, inside bool) {
	rs, n := c.rects()
	outside, inside = true, true
	for _, r := range rs[:n] {
		o, i := reg.classify(r)
		outside, inside = outside && o, inside && i
	}
	return outside, inside
}

// span is a merged run of adjacent covering cells: one key range.
type span struct {
	grid   grid
	lo, hi uint64 // inclusive hash bounds
	inside bool   // every cell of the run lies inside the region
}

// spans merges adjacent cells of a sorted covering into ranges, and leaves
// out each pole unless the region reaches it.
//
// Every point exactly on a pole (any longitude) projects to the same cap
// cell, the leaf poleHash, so such points are one run of keys; datasets
// that park unknown positions at a pole make that run long. A covering
// cell holding the pole would read the whole run for any region near the
// pole, so the run is cut out of the span that holds it when the leaf is
// outside the region.
func spans(reg region, cells []coveredCell) []span {
	return new(coverer).spans(reg, cells)
}

// spans is the package's spans, built in c's buffers.
func (cv *coverer) spans(reg region, cells []coveredCell) []span {
	out := cv.runs[:0]
	defer func() { cv.runs = out[:0] }()
	for _, c := range cells {
		lo, hi := c.span()
		if n := len(out); n > 0 && out[n-1].grid == c.grid && out[n-1].hi != ^uint64(0) && out[n-1].hi+1 == lo {
			out[n-1].hi = hi
			out[n-1].inside = out[n-1].inside && c.inside
			continue
		}
		out = append(out, span{grid: c.grid, lo: lo, hi: hi, inside: c.inside})
	}
	for i := 0; i < len(out); i++ {
		s := out[i]
		if s.grid == geohashGrid || s.inside || poleHash < s.lo || poleHash > s.hi {
			continue
		}
		if outside, _ := classifyCell(reg, cell{hash: poleHash, bits: MaxBits, grid: s.grid}); !outside {
			continue
		}
		var parts []span
		for _, part := range subtract(s.lo, s.hi, poleHash, poleHash) {
			parts = append(parts, span{grid: s.grid, lo: part[0], hi: part[1]})
		}
		out = slices.Replace(out, i, i+1, parts...)
		i += len(parts) - 1
	}
	return out
}

// startBlock is where the descent starts for a region whose bounding box
// stays between the caps and off ±180°: the block of geohash cells of the
// finest precision at which the box meets at most n of them. No cell above
// the block is classified: a 1 km circle's covering classified 60 to 100
// cells on the way down from the smallest cell holding its box, and 30 or
// so from the block. The covering can differ a little from the one that
// descent finds, since no cell of it is coarser than the block's; on
// 1,000,000 clustered points it reads 1.88 candidates per result at 1 km
// instead of 1.87, and 1.50 at 10 km instead of 1.47.
//
// Every point of a box [minLat, maxLat] × [minLon, maxLon] quantizes
// between the box's corners on each axis (encode is monotone in each), so
// the block is the cells whose latitude and longitude indexes lie between
// the corners' at that precision: a geohash interleaves the two, longitude
// first, so a 64-bit hash is spread(lon32)<<1 | spread(lat32), and a cell
// of b bits has ⌈b/2⌉ bits of longitude and ⌊b/2⌋ of latitude. There is no
// geohash block for a box that reaches a polar cap's rows, or crosses or
// touches ±180° (where a point may be stored on either side).
//
// A circle whose box lies wholly in a cap's rows starts from a block of the
// cap's grid instead, around a square on the cap's projection that holds
// the circle (circle.capSquare): otherwise its descent starts at the cap's
// root, and at 1 km it classified some 40 cap cells on the way down, each
// with five arctangents (capRects). Any other region near a pole, or one
// that reaches across a cap's edge, has no block (ok is false).
//
// The cells are appended to out, framed: the cell of latitude index i
// and longitude index j spans −90 + 180·i/2^latBits to the next index's
// edge, and so on, which is how the geohash library decodes it, operation
// for operation (TestFramedBounds).
func startBlock(out []framed, reg region, n int) ([]framed, bool) {
	box := reg.boundingBox()
	if g := capHolding(box); g != geohashGrid {
		c, isCircle := reg.(*circle)
		if !isCircle {
			return out, false
		}
		x0, x1, y0, y1 := c.capSquare(g)
		return appendBlock(out, g, capQuantize(x0), capQuantize(x1), capQuantize(y0), capQuantize(y1), n), true
	}
	if box.MinLon > box.MaxLon || box.MinLon <= -180 || box.MaxLon >= 180 {
		return out, false
	}
	lo, hi := encode(box.MinLat, box.MinLon), encode(box.MaxLat, box.MaxLon)
	if gridOf(lo) != geohashGrid || gridOf(hi) != geohashGrid {
		return out, false
	}
	return appendBlock(out, geohashGrid, squash(lo>>1), squash(hi>>1), squash(lo), squash(hi), n), true
}

// appendBlock appends to out the block of cells of grid g at the finest
// precision where the cells whose first (x: longitude, or a cap's x) and
// second (y: latitude, or a cap's y) quantized coordinates lie in [xLo,
// xHi] × [yLo, yHi] number at most n (or one cell, if even that is more),
// framed. A cell of b bits has ⌈b/2⌉ bits of x and ⌊b/2⌋ of y.
func appendBlock(out []framed, g grid, xLo, xHi, yLo, yHi uint32, n int) []framed {
	bits := blockBits(xLo, xHi, yLo, yHi, n)
	xBits, yBits := (bits+1)/2, bits/2
	yStep, xStep := math.Ldexp(1, -int(yBits)), math.Ldexp(1, -int(xBits))
	latErr, lonErr := 180*yStep, 360*xStep
	for i := uint64(yLo >> (32 - yBits)); i <= uint64(yHi>>(32-yBits)); i++ {
		minLat := 180*(float64(i)*yStep) - 90
		for j := uint64(xLo >> (32 - xBits)); j <= uint64(xHi>>(32-xBits)); j++ {
			f := framed{cell: cell{hash: (spread(uint32(j<<(32-xBits)))<<1 | spread(uint32(i<<(32-yBits)))) >> (64 - bits), bits: bits, grid: g}}
			if g == geohashGrid {
				minLon := 360*(float64(j)*xStep) - 180
				f.box = rect{MinLat: minLat, MaxLat: minLat + latErr, MinLon: minLon, MaxLon: minLon + lonErr}
			}
			out = append(out, f)
		}
	}
	return out
}

// blockBits is the finest precision up to 63 bits at which the cells of
// [xLo, xHi] × [yLo, yHi] number at most n (or one cell, if even that is
// more): appendBlock's precision. Not 64, so that blockCover's words hold
// a hash and a flag: a circle of a few millimetres, or of none, starts
// from a cell of 63 bits.
func blockBits(xLo, xHi, yLo, yHi uint32, n int) uint {
	count := func(bits uint) uint64 {
		xBits, yBits := (bits+1)/2, bits/2
		xs := uint64(xHi>>(32-xBits)) - uint64(xLo>>(32-xBits)) + 1
		ys := uint64(yHi>>(32-yBits)) - uint64(yLo>>(32-yBits)) + 1
		return xs * ys // no overflow: each extra bit at most doubles it, and the loop stops past n
	}
	// count is 1 while both corners' indexes agree on each axis, as far as
	// their common leading bits go, and it never falls as bits grow: start
	// from there.
	bits := min(2*commonBits(xLo, xHi), 2*commonBits(yLo, yHi)+1, MaxBits-1)
	for bits < MaxBits-1 && count(bits+1) <= uint64(n) {
		bits++
	}
	return bits
}

// commonBits is how many leading bits a and b share.
func commonBits(a, b uint32) uint { return uint(mathbits.LeadingZeros32(a ^ b)) }
