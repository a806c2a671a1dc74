package geo

import (
	"math/bits"
	"slices"
)

// DefaultMaxCells bounds the cells of a covering, and so the key ranges a
// query scans (adjacent cells merge into one range). S2 publishes an area
// over-scan of 1.98× at 8 cells and 1.42× at 20. Measured here on 300,000
// clustered points at 1 km: 8 cells read 2.9 candidates per result, 16 read
// 1.9 and 24 read 1.6, but each cell costs trigonometry, and 16 was the
// fastest.
const DefaultMaxCells = 16

// coveredCell is one cell of a covering.
type coveredCell struct {
	cell
	inside bool
}

// cover returns cells of mixed precision whose union contains every point
// of the region, at most maxCells of them.
//
// It starts from the whole world (the cell of 0 bits) and repeatedly splits
// the largest cell that crosses the region's boundary into its two halves,
// dropping halves outside the region and keeping halves inside it whole,
// until one more split would exceed maxCells or the crossing cells reach
// full precision. Starting from the world rather than from a fixed
// precision makes the antimeridian and the poles no special case: a circle
// across ±180° is simply met by cells on both sides of it.
func cover(reg region, maxCells int) []coveredCell {
	var done []coveredCell
	// Children have one bit more than their parent, so a first-in
	// first-out queue pops the largest cell first without a heap.
	queue := []cell{startCell(reg)}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c.bits >= MaxBits || len(done)+len(queue)+2 > maxCells {
			done = append(done, coveredCell{cell: c})
			continue
		}
		for _, child := range c.children() {
			outside, inside := reg.classify(child.bounds())
			switch {
			case outside:
			case inside:
				done = append(done, coveredCell{cell: child, inside: true})
			default:
				queue = append(queue, child)
			}
		}
	}
	slices.SortFunc(done, func(a, b coveredCell) int {
		alo, _ := a.span()
		blo, _ := b.span()
		switch {
		case alo < blo:
			return -1
		case alo > blo:
			return 1
		}
		return 0
	})
	return done
}

// span is a merged run of adjacent covering cells: one key range.
type span struct {
	lo, hi uint64 // inclusive geohash bounds
	inside bool   // every cell of the run lies inside the region
}

// spans merges adjacent cells of a sorted covering into ranges.
func spans(cells []coveredCell) []span {
	var out []span
	for _, c := range cells {
		lo, hi := c.span()
		if n := len(out); n > 0 && out[n-1].hi != ^uint64(0) && out[n-1].hi+1 == lo {
			out[n-1].hi = hi
			out[n-1].inside = out[n-1].inside && c.inside
			continue
		}
		out = append(out, span{lo: lo, hi: hi, inside: c.inside})
	}
	return out
}

// A bounded region knows a latitude/longitude box holding all of it.
type bounded interface {
	boundingBox() Box
}

// startCell is the smallest cell holding the region's bounding box, where
// the descent from the whole world would arrive anyway: every point of a
// box [minLat, maxLat] × [minLon, maxLon] quantizes between its corners on
// each axis, so its geohash shares the corners' common prefix. A box across
// the antimeridian, or touching ±180° (where a point may be stored on either
// side), starts from the world.
func startCell(reg region) cell {
	b, ok := reg.(bounded)
	if !ok {
		return cell{}
	}
	box := b.boundingBox()
	if box.MinLon > box.MaxLon || box.MinLon <= -180 || box.MaxLon >= 180 {
		return cell{}
	}
	lo, hi := encode(box.MinLat, box.MinLon), encode(box.MaxLat, box.MaxLon)
	differ := uint(bits.Len64(lo ^ hi)) // low bits where the corners differ
	if differ == MaxBits {
		return cell{}
	}
	return cell{hash: lo >> differ, bits: MaxBits - differ}
}
