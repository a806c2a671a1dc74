package geo

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
)

// A fence is stored under the cells of its region's covering (the cover
// queries use), each refined to a multiple of fenceStep bits: a cell of 13
// bits becomes its eight children of 16, less those outside the region.
// A point then lies in a fence's cell exactly when its hash at one of the
// 17 levels 0, 4, …, 64 is that cell's, so Containing reads 17 short key
// ranges, one per level, whatever the number of fences (fewer: a set
// keeps a mask of the levels its cells use, levelMask).
//
// A cell's value says what a point in it needs. A cell inside the region
// needs no test (1). A point in a cell on a circle's or a box's edge is
// tested against the circle or box the value carries (2 and three
// float64s, 3 and four), so a lookup reads nothing but its ranges; on a
// polygon's edge (0) it is tested against the polygon's rings, read and
// decoded once per lookup (fence_polygon.go), and on a sector's (0)
// against its region key. Session 24 put circles and boxes in their
// cells. Before, every edge read and decoded the fence's JSON, and a
// lookup among 1,000 fences (circles of 1 to 20 km and boxes, around
// clustered points; BenchmarkFences) took 20.6 µs in memory, half as
// long as testing every fence one by one (42 µs); among 10,000, 168 µs
// against 430. With the values in the cells it took 5–6 µs and 10 µs;
// with the ranges built in one buffer rather than through Subspace.Sub,
// and only the levels in use read (levelMask), 2.1–2.4 µs and 5.3–7.3 µs
// (bbolt 2.6–2.7 and 6.9–7.8): 18 and 60 times faster than testing every
// fence. An R-tree of the fences' boxes in memory (tidwall/rtree, as
// Tile38 keeps fences) takes 0.12 and 0.83 µs: it reads a few nodes where
// a lookup here seeks a handful of key ranges, which is the price of
// fences that live in the same file and transaction as everything else.
// Files written before hold 0 on every edge, which still works
// (TestFenceCellValues).

// fenceStep is the bits between the levels fence cells are kept at: a
// point's lookup reads 64/fenceStep + 1 ranges, and a covering cell
// becomes at most 2^(fenceStep−1) cells.
const fenceStep = 4

// The covering budgets of fences before their cells are refined to
// levels of fenceStep bits. A point in an edge cell of a circle or a box
// costs a test from the cell's value, so their coverings can be coarse: 8
// cells become 25 stored on average for circles of 2 to 30 km, where 24
// became 77, and a lookup among 1,000 such fences took as long (session
// 24, BenchmarkFences). A point on a polygon's edge costs a read and a
// decode of its rings, so polygons keep the finer covering.
const (
	fenceCellsInline  = 8
	fenceCellsPolygon = 24
)

// The first byte of a cell's value (cellValue): its kind, with
// cellExpires set when the fence expires.
const (
	cellEdge   = 0 // on the region's edge: test the stored fence
	cellInside = 1 // inside the region: no test
	cellCircle = 2 // on a circle's edge; lat, lon, radius follow
	cellBox    = 3 // on a box's edge; min lat, min lon, max lat, max lon follow
	// cellSector is the kind of a sector's region key (regionValue): lat,
	// lon, radius, from and to follow. A sector's edge cells are
	// cellEdge: a point on them is tested against that key.
	cellSector = 4
	// cellCorridor is the kind of a corridor's region key: its radius
	// and its lines follow (fence_corridor.go). Its edge cells are
	// cellEdge, as a sector's are.
	cellCorridor = 5
	// cellExpires flags a fence that expires: its expiry, nanoseconds
	// since 1970 as a big-endian uint64, follows the first byte, before
	// what the kind carries, so a lookup leaves an expired fence out from
	// the cell it reads anyway (fence_expiry.go).
	cellExpires = 0x80
)

// cellValue is the value of f's cell, inside the region or not: its
// kind, the expiry if f expires, and on a circle's or a box's edge its
// region (regionValue). f has been validated: its expiry is in range.
func (f Fence) cellValue(inside bool) []byte {
	var v, carried []byte
	switch {
	case inside:
		v = []byte{cellInside}
	case f.testedStored():
		v = []byte{cellEdge}
	default:
		r := f.regionValue()
		v, carried = r[:1:1], r[1:]
	}
	if !f.Expires.IsZero() {
		v[0] |= cellExpires
		v = binary.BigEndian.AppendUint64(v, uint64(f.Expires.UnixNano()))
	}
	return append(v, carried...)
}

// regionValue is the value of a circle's or a box's region key ("f",
// name, "r", id): what its edge cells carry, less any expiry. A lookup
// that meets the fence only on cells inside it (which carry nothing) and
// must test its region reads it there, not from the JSON definition,
// whose cells are most of its bytes: an Intersecting query for a 1 km
// circle among 1,000 circles and boxes spent a third of its time decoding
// definitions. A sector's (cellSector) and a corridor's (cellCorridor)
// are where their edge cells, which carry nothing, send a point.
func (f Fence) regionValue() []byte {
	switch {
	case f.Circle != nil:
		return appendFloats([]byte{cellCircle}, f.Circle.Lat, f.Circle.Lon, f.Circle.Radius)
	case f.Sector != nil:
		s := f.Sector
		return appendFloats([]byte{cellSector}, s.Lat, s.Lon, s.Radius, s.From, s.To)
	case f.Corridor != nil:
		return f.Corridor.regionValue()
	}
	return appendFloats([]byte{cellBox}, f.Box.MinLat, f.Box.MinLon, f.Box.MaxLat, f.Box.MaxLon)
}

// decodeRegion reads a regionValue.
func decodeRegion(v []byte) (region, bool) {
	if len(v) > 0 && v[0] == cellCorridor {
		c, err := decodeCorridor(v)
		if err != nil {
			return nil, false
		}
		return c, true
	}
	if s, ok := sectorValue(v); ok {
		reg, err := newSector(s.Lat, s.Lon, s.Radius, s.From, s.To)
		return reg, err == nil
	}
	var f [4]float64
	switch {
	case len(v) == 0:
	case v[0] == cellCircle && readFloats(v[1:], f[:3]):
		return newCircle(f[0], f[1], f[2]), true
	case v[0] == cellBox && readFloats(v[1:], f[:]):
		return new(boxRegion).init(Box{MinLat: f[0], MinLon: f[1], MaxLat: f[2], MaxLon: f[3]}), true
	}
	return nil, false
}

// sectorHolds is decodeRegion(v).contains(lat, lon) for v a sector's
// region value, without building the region (see sectorTest); ok is
// false when v is no sector's, or a bad one.
func sectorHolds(v []byte, lat, lon float64) (held, ok bool) {
	s, ok := sectorValue(v)
	switch {
	case !ok:
		return false, false
	case sectorSpan(s.From, s.To) == 0: // every bearing: newSector's circle
		return Distance(s.Lat, s.Lon, lat, lon) <= s.Radius, true
	}
	t := newSectorTest(newRef(s.Lat, s.Lon), s.Radius, s.From, s.To)
	return t.contains(lat, lon), true
}

// sectorValue reads a sector's region value; ok is false when v is no
// sector's, or a bad one (Sector.check).
func sectorValue(v []byte) (s Sector, ok bool) {
	var f [5]float64
	if len(v) == 0 || v[0] != cellSector || !readFloats(v[1:], f[:]) {
		return s, false
	}
	s = Sector{Lat: f[0], Lon: f[1], Radius: f[2], From: f[3], To: f[4]}
	return s, s.check("") == nil
}

// cellParts splits a cell's value into its kind, its fence's expiry (0
// for none) and what the kind carries; ok is false when the value is
// empty or its expiry cut short or not after 1970.
func cellParts(v []byte) (kind byte, expires int64, body []byte, ok bool) {
	if len(v) == 0 {
		return 0, 0, nil, false
	}
	kind, body = v[0], v[1:]
	if kind&cellExpires != 0 {
		if len(body) < 8 {
			return 0, 0, nil, false
		}
		expires, body, kind = int64(binary.BigEndian.Uint64(body)), body[8:], kind&^cellExpires
		if expires <= 0 {
			return 0, 0, nil, false
		}
	}
	return kind, expires, body, true
}

func appendFloats(b []byte, fs ...float64) []byte {
	for _, f := range fs {
		b = binary.BigEndian.AppendUint64(b, math.Float64bits(f))
	}
	return b
}

// readFloats decodes n float64s that appendFloats wrote into out; false
// if v holds some other number of bytes.
func readFloats(v []byte, out []float64) bool {
	if len(v) != 8*len(out) {
		return false
	}
	for i := range out {
		out[i] = math.Float64frombits(binary.BigEndian.Uint64(v[8*i:]))
	}
	return true
}

// cellHolds says, from a cell's kind and what it carries (cellParts),
// whether a point in the cell at (lat, lon) lies in its fence; test is
// false when the value leaves the question to the stored fence
// (cellEdge), and ok false when the value is none of these. A circle and
// a box are tested by the same code as their regions (circle.contains,
// boxRegion.contains), so the answer is the one the fence itself gives.
func cellHolds(kind byte, body []byte, lat, lon float64) (holds, test, ok bool) {
	var f [4]float64
	switch kind {
	case cellInside:
		return true, true, len(body) == 0
	case cellEdge:
		return false, false, len(body) == 0
	case cellCircle:
		if !readFloats(body, f[:3]) {
			return false, false, false
		}
		return Distance(f[0], f[1], lat, lon) <= f[2], true, true
	case cellBox:
		if !readFloats(body, f[:]) {
			return false, false, false
		}
		var b boxRegion
		return b.init(Box{MinLat: f[0], MinLon: f[1], MaxLat: f[2], MaxLon: f[3]}).contains(lat, lon), true, true
	}
	return false, false, false
}

// A levelMask says which levels of fenceStep bits hold cells: bit i the
// level of i·fenceStep bits. A set keeps one under ("f", name, "l"), a
// superset of the levels its cells use (Put adds levels, Delete takes none
// away, Repair makes it exact), and Containing reads only those levels: a
// set of fences of like size uses three or four of the 17. A set written
// before session 24 has none, and every level is read.
type levelMask uint32

const allLevels = levelMask(1)<<(MaxBits/fenceStep+1) - 1

func levelOf(bits uint64) levelMask { return 1 << (bits / fenceStep) }

// levels reads the set's level mask; known is false when it has none.
func (fs *Fences) levels(tx keyspace.Tx) (mask levelMask, known bool, err error) {
	v, err := tx.Get(fs.levelsKey)
	switch {
	case errors.Is(err, keyspace.ErrNotFound):
		return allLevels, false, nil
	case err != nil:
		return 0, false, fs.wrap(err)
	case len(v) != 4:
		return 0, false, fs.wrap(fmt.Errorf("%w: fence level mask %x", keyspace.ErrCorrupt, v))
	}
	return levelMask(binary.BigEndian.Uint32(v)), true, nil
}

// addLevels returns the write that adds the levels of new cells to the
// set's mask (one that writes nothing when the mask names them already).
// It must be asked
// before the cells are written: a set with fences but no mask (written
// before masks) is given every level, which is true of it. PutAll writes
// it after its sorted run, which then lands after every key of an empty
// set, as bbolt fills its pages best.
func (fs *Fences) addLevels(tx keyspace.Tx, add levelMask) (write func() error, err error) {
	mask, known, err := fs.levels(tx)
	if err != nil {
		return nil, err
	}
	if !known {
		mask = 0
		if empty, err := fs.Empty(tx); err != nil {
			return nil, err
		} else if !empty {
			mask = allLevels
		}
	}
	if mask|add == mask && known {
		return func() error { return nil }, nil
	}
	v := binary.BigEndian.AppendUint32(nil, uint32(mask|add))
	return func() error { return fs.wrap(tx.Put(fs.levelsKey, v)) }, nil
}

// fenceCover is the cells a fence with region reg is stored under: its
// covering, each cell refined to the next level of fenceStep bits and the
// children outside the region dropped.
func fenceCover(reg region, budget int) [][4]uint64 {
	var out [][4]uint64
	var refine func(c cell, inside bool)
	refine = func(c cell, inside bool) {
		if c.bits%fenceStep == 0 {
			in := uint64(0)
			if inside {
				in = 1
			}
			out = append(out, [4]uint64{uint64(c.grid), uint64(c.bits), c.hash, in})
			return
		}
		for _, child := range c.children() {
			if inside {
				refine(child, true)
				continue
			}
			outside, in := classifyCell(reg, child)
			if !outside {
				refine(child, in)
			}
		}
	}
	for _, c := range cover(reg, budget) {
		refine(c.cell, c.inside)
	}
	return out
}

func (fs *Fences) cellKey(c [4]uint64, id string) []byte {
	return fs.cells.Pack(composite.Tuple{c[0], c[1], c[2], id})
}
