package geo

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/internal/errctx"
	"github.com/keyspacedb/keyspace/internal/expiry"
)

// Cross detection: the fences a move passes through with neither of its
// ends inside (Crossings' Cross), along the move's path (path.go).
//
// A fence the path meets has a cell the path meets, as its cells cover
// it. So the path is covered with a few cells (pathCells), and every
// fence with a cell that meets one of them is a candidate: at each level
// in the set's mask, the fence cell holding a covering cell (one key
// prefix, as Containing reads) or lying inside it (a range of hashes).
// Each candidate is then tested exactly against its stored definition:
// the path's closest approach to a circle's centre, the path clipped to a
// box, the path against a polygon's edges.

// pathCells is the covering budget of a move's path: 4 cells for a move
// of up to 100 km, one more for each 100 km beyond, up to 32. A short
// path's 4 cells are already finer than the fences' cells (more only add
// key ranges: 16 took a 1 km move's crossings from 9–12 µs to 11–16 among
// 1,000 fences); a long path covered by 4 cells as wide as itself would
// read every fence in a square around it.
func pathCells(p path) int {
	return min(32, 4+int(p.length()/100_000))
}

// passedThrough returns, sorted, the ids of the fences the path p meets,
// of those held is false for (the fences holding neither end). A circle
// or box met on one of its edge cells is tested against the region the
// cell's value carries; any other candidate against its stored
// definition. Fences expired by clk are left out.
func (fs *Fences) passedThrough(tx keyspace.Tx, p path, held func(id string) bool, clk *expiry.Clock) ([]string, error) {
	v, err := fs.meeting(tx, p, pathCells(p), clk)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, c := range v.candidates() {
		if held(c.id) {
			continue
		}
		var meets bool
		switch {
		case c.circle != nil:
			meets = p.meetsCircle(c.circle[0], c.circle[1], c.circle[2])
		case c.box != nil:
			meets = p.meetsBox(new(boxRegion).init(*c.box))
		default:
			if meets, err = fs.pathMeets(tx, p, c.id); err != nil {
				return nil, err
			}
		}
		if meets {
			out = append(out, c.id)
		}
	}
	return out, nil
}

// meeting reads the cells of the fences that have a cell meeting a cell
// of reg's covering of at most budget cells (a path's, or an area's for
// Intersecting): every fence reg meets, and some near it. The covering's
// cells share their coarser levels' cells: the key ranges are built in
// key order, overlapping ones merged, and read in one VisitRanges. The
// cells of fences expired by clk are skipped.
func (fs *Fences) meeting(tx keyspace.Tx, reg region, budget int, clk *expiry.Clock) (*meetingVisitor, error) {
	mask, _, err := fs.levels(tx)
	if err != nil {
		return nil, err
	}
	// Keys sort by grid, then level, then hash, and the covering's cells
	// by grid, then hash: taken in that order, the ranges ascend, and a
	// range that overlaps the one before (the cells' common coarser
	// cell, most often) merges into it.
	cells := cover(reg, budget)
	var ranges []keyspace.Range
	var buf []byte
	for g := range fs.cellPrefix {
		prefix := fs.cellPrefix[g]
		for level := uint(0); level <= MaxBits; level += fenceStep {
			if mask&levelOf(uint64(level)) == 0 {
				continue
			}
			for _, c := range cells {
				if c.grid != grid(g) {
					continue
				}
				// The hashes at this level of the cells that hold c (one)
				// or lie inside it (a shift of 64 is 0 in Go, so the
				// cell of 0 bits spans every hash).
				var lo, hi uint64
				if level <= c.bits {
					lo = c.hash >> (c.bits - level)
					hi = lo
				} else {
					lo = c.hash << (level - c.bits)
					hi = lo | (1<<(level-c.bits) - 1)
				}
				start := len(buf)
				buf = composite.AppendUint(composite.AppendUint(append(buf, prefix...), uint64(level)), lo)
				mid := len(buf)
				buf = append(composite.AppendUint(composite.AppendUint(append(buf, prefix...), uint64(level)), hi), 0xff)
				r := keyspace.Range{Start: buf[start:mid:mid], End: buf[mid:len(buf):len(buf)]}
				if n := len(ranges); n > 0 && bytes.Compare(r.Start, ranges[n-1].End) <= 0 {
					if bytes.Compare(r.End, ranges[n-1].End) > 0 {
						ranges[n-1].End = r.End // which stays in buf
					} else {
						buf = buf[:start] // r is inside the range before: its bytes can go
					}
					continue
				}
				ranges = append(ranges, r)
			}
		}
	}
	v := &meetingVisitor{fs: fs, clock: clk, prefix: fs.cells.Bytes()}
	if err := keyspace.VisitRanges(tx, ranges, v); err != nil {
		return nil, fs.wrap(err)
	}
	if v.bad != nil {
		return nil, fs.wrap(fmt.Errorf("%w: fence cell key %s", keyspace.ErrCorrupt, errctx.Quote(string(v.bad))))
	}
	return v, nil
}

// meetingVisitor gathers the fences of the cell keys meeting reads, with
// the circle or box an edge cell carries: each fence once, however many
// of its cells are read (a 100 km area reads dozens of each fence's), so
// a cell of a fence already found, with its region if any cell carries
// it, costs a map lookup and no allocation.
type meetingVisitor struct {
	fs     *Fences
	clock  *expiry.Clock
	found  []candidate
	index  map[string]int // found's index by id
	prefix []byte         // the cells' subspace, which every key begins with
	id     []byte         // the id being read
	bad    []byte         // a damaged key or value met
}

// A candidate is a fence a path may pass through, with its circle or
// box when one of its cells carried it.
type candidate struct {
	id     string
	circle *[3]float64 // lat, lon, radius
	box    *Box
}

func (v *meetingVisitor) VisitIn(_ int, k, val []byte) bool {
	// The key is the cells' subspace, then grid, bits, hash and id.
	rest, err := k[min(len(k), len(v.prefix)):], error(nil)
	for range 3 {
		if err == nil {
			_, rest, err = composite.NextElement(rest)
		}
	}
	if err == nil {
		v.id, rest, err = composite.AppendUnpackedString(v.id[:0], rest)
	}
	kind, expires, body, valid := cellParts(val)
	if err != nil || len(rest) > 0 || !valid || !bytes.HasPrefix(k, v.prefix) {
		v.bad = bytes.Clone(k)
		return false
	}
	if v.clock.Expired(expires) {
		return true
	}
	i, seen := v.index[string(v.id)]
	if seen && (v.found[i].circle != nil || v.found[i].box != nil) {
		return true // its region is carried already
	}
	var c candidate
	ok := true
	switch kind {
	case cellCircle:
		c.circle = new([3]float64)
		ok = readFloats(body, c.circle[:])
	case cellBox:
		var f [4]float64
		ok = readFloats(body, f[:])
		c.box = &Box{MinLat: f[0], MinLon: f[1], MaxLat: f[2], MaxLon: f[3]}
	}
	switch {
	case !ok:
		v.bad = bytes.Clone(k)
		return false
	case seen:
		v.found[i].circle, v.found[i].box = c.circle, c.box
	default:
		c.id = string(v.id)
		if v.index == nil {
			v.index = map[string]int{}
		}
		v.index[c.id] = len(v.found)
		v.found = append(v.found, c)
	}
	return true
}

// candidates returns the fences found, one for each id in order, with
// its region when any of its cells carried it.
func (v *meetingVisitor) candidates() []candidate {
	slices.SortFunc(v.found, func(a, b candidate) int { return strings.Compare(a.id, b.id) })
	return v.found
}

// pathMeets tests the path against the fence id's region: a polygon's
// stored rings, read in place (storedPolygonMeetsPath), or as
// Fences.regionOf reads it, a circle's or a box's region key, or for a
// fence stored before those, its definition.
func (fs *Fences) pathMeets(tx keyspace.Tx, p path, id string) (bool, error) {
	switch v, err := tx.Get(fs.polygons.Pack(composite.Tuple{id})); {
	case err == nil:
		meets, err := storedPolygonMeetsPath(v, p) // in place, by bands
		if err != nil {
			return false, fs.wrap(fmt.Errorf("%w: fence %s: %v", keyspace.ErrCorrupt, errctx.Quote(id), err))
		}
		return meets, nil
	case !errors.Is(err, keyspace.ErrNotFound):
		return false, fs.wrap(err)
	}
	reg, err := fs.regionOf(tx, id)
	if err != nil {
		return false, err
	}
	switch reg := reg.(type) {
	case polygonRegion:
		return p.meetsPolygon(&reg), nil
	case *circle:
		return p.meetsCircle(reg.lat, reg.lon, reg.radius), nil
	case *boxRegion:
		return p.meetsBox(reg), nil
	case *sector:
		f := newSectorFrame(reg)
		return f.meetsPath(p), nil
	case *corridor:
		return reg.reachesEdge(p), nil
	}
	return false, fs.wrap(fmt.Errorf("%w: fence %s is none of a circle, a box, a polygon, a sector and a corridor", keyspace.ErrCorrupt, errctx.Quote(id)))
}
