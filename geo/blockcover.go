package geo

import (
	"math"
	"slices"
)

// blockCover is the covering of a near circle (circle.near: its box spans
// at most 2° of latitude and less than 180° of longitude, between the caps
// and off ±180°, so a radius up to about 110 km): the cells of one
// precision that meet it. The precision is the finest at which the
// circle's bounding box meets at most n cells (blockBits, as startBlock
// chooses), and every cell of that block is classified: those outside are
// dropped, those inside marked. The cells come back sorted.
//
// A block's cells share rows and columns, and the bounds on the haversine
// that classify uses for such a circle,
//
//	h = sin²(Δφ/2) + cos φc·cos φ·sin²(Δλ/2)
//
// with cos φ bounded by the box's cosines (see circle.classify), are each
// a row's term plus a column's term:
//
//	lower = sin²(gφ/2) + cos φc·cosMin·sin²(gλ/2)
//	upper = sin²(fφ/2) + cos φc·cosMax·sin²(fλ/2)
//
// where g is the gap from the centre to the row's (column's) nearest
// latitude (longitude) and f to its farthest. So classifying the block
// costs a few multiplications per row and per column and an addition per
// cell, where the adaptive descent (cover) classified some 30 cells one by
// one for a 1 km circle. The half-angle sines are bounded on the safe
// side by their Taylor polynomials rather than computed: for t ≥ 0
//
//	t − t³/6  ≤  sin t  ≤  t − t³/6 + t⁵/120
//
// (the series alternates and its terms shrink for t < √20), the first for
// the lower bound, which decides "outside", and the second for the upper,
// which decides "inside". Rounding moves either by a few ulps, far inside
// the thresholds' shading (circle.init).
//
// The box's cosines bound cos φ over the box, and that is enough. The
// lower bound is about the cell's points in the circle, which lie in the
// box. A cell whose upper bound says "inside" lies within the box's
// latitudes, since one reaching past them has a far latitude gap beyond
// the radius, whose term alone exceeds the threshold; and within the box
// a longitude differs from the centre's by less than 180° without
// wrapping round, so the far gaps are plain subtraction. Nor do the polar
// caps need a case: the box lies between them, and the geohash grid holds
// no keys in their rows.
//
// Since its cells cost so little, a block affords more of them than the
// descent: Index.search asks for 3/2·MaxCells. On 1,000,000 clustered
// points a 1 km query over a block of 24 cells read 1.87 candidates per
// result in 6.2 ranges, as the descent to 16 cells did; on 100,000 points
// it ran 21% fewer instructions (29,300 → 23,100 per query, perf stat). A
// block of 16 read 2.13 candidates per result, and one of 32 read 1.71 in
// 7.1 ranges but took longer.
func (cv *coverer) blockCover(c *circle, n int) []coveredCell {
	return cv.block(c, c.box, nil, n)
}

// sectorBlockCover is blockCover for a sector of a near circle: the block
// around the sector's own box, its cells classified by the circle's rows
// and columns as blockCover's are, and by the sector's two half-spheres
// the same way. The dot product u·P = cos φ·X(λ) + uz·sin φ, with
// X(λ) = ux cos λ + uy sin λ, is a row's cos φ times a column's X plus a
// row's term: each is bounded over its row or column exactly (half.bounds
// has the maths), cos φ ≥ 0 so the product's bounds are those of its
// factors' ends, and the sum of two terms' bounds bounds the sum. So a
// cell costs a few multiplications, where the descent computed four
// sines and cosines for every cell it classified. Index.search asks for a
// block of twice the sector's budget (64 cells by default): on 1,000,000
// clustered points (BenchmarkSector) a 90° sector of 1 km took 6.7–7.2
// µs and a 30° one 5.2–5.4, where the descent took 12–13 µs and the
// whole circle takes 7.7–8.0, reading as many candidates a result as the
// descent did (1.66 and 2.03; 1.56 and 2.06 at 10 km, 2.31 and 4.47 at
// 100 km). A block of 48 cells read 1.76 and 2.24 at 1 km, one of 96
// 1.48 and 1.85 in 8.7 and 6.8 µs.
func (cv *coverer) sectorBlockCover(s *sector, n int) []coveredCell {
	return cv.block(&s.circle, s.box, s, n)
}

// block is blockCover over box (the circle's, or a sector's within it),
// also classifying by the sector s when it is not nil.
func (cv *coverer) block(c *circle, box Box, s *sector, n int) []coveredCell {
	lo, hi := encode(box.MinLat, box.MinLon), encode(box.MaxLat, box.MaxLon)
	xLo, xHi, yLo, yHi := squash(lo>>1), squash(hi>>1), squash(lo), squash(hi)
	bits := blockBits(xLo, xHi, yLo, yHi, n)
	xBits, yBits := (bits+1)/2, bits/2
	// The cell of latitude index i and longitude index j: edges as
	// appendBlock computes them, exactly the geohash library's.
	yStep, xStep := math.Ldexp(1, -int(yBits)), math.Ldexp(1, -int(xBits))
	const half = math.Pi / 360 // degrees to a half-angle in radians
	rows, wrows := cv.rows[:0], cv.wrows[:0]
	for i := uint64(yLo >> (32 - yBits)); i <= uint64(yHi>>(32-yBits)); i++ {
		minLat := 180*(float64(i)*yStep) - 90
		maxLat := minLat + 180*yStep
		g := max(0, minLat-c.lat, c.lat-maxLat) * half
		f := max(c.lat-minLat, maxLat-c.lat) * half
		rows = append(rows, blockLine{
			lo:     sinBelow(g) * sinBelow(g),
			hi:     sinAbove(f) * sinAbove(f),
			spread: spread(uint32(i << (32 - yBits))),
		})
		if s != nil {
			wrows = append(wrows, newWedgeRow(minLat, maxLat))
		}
	}
	cols, wcols := cv.cols[:0], cv.wcols[:0]
	for j := uint64(xLo >> (32 - xBits)); j <= uint64(xHi>>(32-xBits)); j++ {
		minLon := 360*(float64(j)*xStep) - 180
		maxLon := minLon + 360*xStep
		g := lonGap(c.lon, minLon, maxLon) * half
		f := max(c.lon-minLon, maxLon-c.lon) * half
		cols = append(cols, blockLine{
			lo:     c.kMin * sinBelow(g) * sinBelow(g),
			hi:     c.kMax * sinAbove(f) * sinAbove(f),
			spread: spread(uint32(j<<(32-xBits))) << 1,
		})
		if s != nil {
			wcols = append(wcols, newWedgeCol(s, minLon, maxLon))
		}
	}
	// One word per cell kept: its hash, shifted past a bit for "inside".
	// The hashes are of one precision, so sorting the words sorts the
	// cells by where their ranges start.
	words := cv.blockWords[:0]
	for i, row := range rows {
		for j, col := range cols {
			if row.lo+col.lo > c.hOut {
				continue
			}
			inside := row.hi+col.hi < c.hIn
			if s != nil {
				lo1, hi1 := wrows[i].bounds(s.h1.u[2], wcols[j][0])
				lo2, hi2 := wrows[i].bounds(s.h2.u[2], wcols[j][1])
				out, in := s.classifyBounds(lo1, hi1, lo2, hi2)
				if out {
					continue
				}
				inside = inside && in
			}
			w := (row.spread | col.spread) >> (MaxBits - bits) << 1
			if inside {
				w |= 1
			}
			words = append(words, w)
		}
	}
	// A block is two dozen words at the default MaxCells, and for so few
	// an insertion sort costs less than slices.Sort's quicksort (covering
	// a 1 km circle took 16% fewer instructions).
	if len(words) > 32 {
		slices.Sort(words)
	} else {
		sortFewWords(words)
	}
	done := cv.done[:0]
	for _, w := range words {
		done = append(done, coveredCell{cell: cell{hash: w >> 1, bits: bits, grid: geohashGrid}, inside: w&1 == 1})
	}
	cv.rows, cv.cols, cv.blockWords, cv.done = rows, cols, words, done[:0]
	cv.wrows, cv.wcols = wrows, wcols
	return done
}

// wedgeRow is a block row's latitudes for a sector's half-spheres: the
// range of cos φ, and of sin φ (its values at the row's south and north
// edges).
type wedgeRow struct {
	cosMin, cosMax, sinMin, sinMax float64
}

// newWedgeRow is the row of latitudes [minLat, maxLat] (degrees).
func newWedgeRow(minLat, maxLat float64) wedgeRow {
	var w wedgeRow
	var cosA, cosB float64
	w.sinMin, cosA = math.Sincos(rad(minLat))
	w.sinMax, cosB = math.Sincos(rad(maxLat))
	w.cosMin, w.cosMax = min(cosA, cosB), max(cosA, cosB)
	if minLat <= 0 && maxLat >= 0 {
		w.cosMax = 1 // at the equator
	}
	return w
}

// wedgeCol is a block column's range of X(λ) = ux cos λ + uy sin λ for
// each of a sector's two half-spheres.
type wedgeCol [2][2]float64

// newWedgeCol is the column of longitudes [minLon, maxLon] (degrees) for
// the sector s.
func newWedgeCol(s *sector, minLon, maxLon float64) wedgeCol {
	λa, λb := rad(minLon), rad(maxLon)
	sa, ca := math.Sincos(λa)
	sb, cb := math.Sincos(λb)
	return wedgeCol{s.h1.xRange(λa, λb, sa, ca, sb, cb), s.h2.xRange(λa, λb, sa, ca, sb, cb)}
}

// bounds is the least and greatest of u·P over the cell of this row and
// a column whose X ranges over x, for a half-sphere whose u has z
// component uz.
func (w *wedgeRow) bounds(uz float64, x [2]float64) (lo, hi float64) {
	lo, hi = x[0]*w.cosMax, x[1]*w.cosMax
	if x[0] >= 0 {
		lo = x[0] * w.cosMin
	}
	if x[1] < 0 {
		hi = x[1] * w.cosMin
	}
	if uz >= 0 {
		return lo + uz*w.sinMin, hi + uz*w.sinMax
	}
	return lo + uz*w.sinMax, hi + uz*w.sinMin
}

// blockLine is a row or a column of a block (blockCover): its terms of
// the haversine's lower and upper bounds, and its index spread into a
// hash's bits.
type blockLine struct {
	lo, hi float64
	spread uint64
}

// sinBelow is a lower bound on sin t for t ≥ 0 (blockCover).
func sinBelow(t float64) float64 { return t * (1 - t*t*(1.0/6)) }

// sinAbove is an upper bound on sin t for t ≥ 0 (blockCover).
func sinAbove(t float64) float64 { return t * (1 - t*t*(1.0/6)*(1-t*t*(1.0/20))) }
