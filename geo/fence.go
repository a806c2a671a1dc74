package geo

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/internal/errctx"
	"github.com/keyspacedb/keyspace/internal/fixes"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"
)

// Geofences: regions stored in the keyspace that points are tested
// against, the other way round from a query. A query asks which points lie
// in a region; Fences.Containing asks which regions hold a point ("which
// delivery zone is this address in?"), and Fences.Crossings which fences a
// moving point entered, left or stayed in, as Tile38's geofences report
// enter, exit and inside. Both run in the caller's transaction, so a point
// moved with Index.Put and the crossings it makes are one atomic step,
// which a geofence server's notifications are not.
//
// Key layout, under ("f", name):
//
//	("f", name, "d", id)                      → the fence: its region and cells, JSON
//	("f", name, "c", grid, bits, hash, id)    → what a point in the cell needs (cellValue)
//	("f", name, "l")                          → the levels that hold cells (levelMask)
//	("f", name, "p", id)                      → a polygon fence's rings, for points on its edges (fence_polygon.go)
//
// A fence is stored under the cells of its region's covering (the cover
// queries use), each refined to a multiple of fenceStep bits: a cell of 13
// bits becomes its eight children of 16, less those outside the region.
// A point then lies in a fence's cell exactly when its hash at one of the
// 17 levels 0, 4, …, 64 is that cell's, so Containing reads 17 short key
// ranges, one per level, whatever the number of fences.
//
// A cell's value says what a point in it needs. A cell inside the region
// needs no test (1). A point in a cell on a circle's or a box's edge is
// tested against the circle or box the value carries (2 and three
// float64s, 3 and four), so a lookup reads nothing but its 17 ranges; on
// a polygon's edge (0) it is tested against the fence's definition, read
// and decoded once per lookup. Session 24 put circles and boxes in their
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
// decode of the fence, so polygons keep the finer covering.
const (
	fenceCellsInline  = 8
	fenceCellsPolygon = 24
)

// The first byte of a cell's value (cellValue).
const (
	cellEdge   = 0 // on the region's edge: test the stored fence
	cellInside = 1 // inside the region: no test
	cellCircle = 2 // on a circle's edge; lat, lon, radius follow
	cellBox    = 3 // on a box's edge; min lat, min lon, max lat, max lon follow
)

// cellValue is the value of f's cell, inside the region or not.
func (f Fence) cellValue(inside bool) []byte {
	switch {
	case inside:
		return []byte{cellInside}
	case f.Circle != nil:
		return appendFloats([]byte{cellCircle}, f.Circle.Lat, f.Circle.Lon, f.Circle.Radius)
	case f.Box != nil:
		return appendFloats([]byte{cellBox}, f.Box.MinLat, f.Box.MinLon, f.Box.MaxLat, f.Box.MaxLon)
	}
	return []byte{cellEdge}
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

// cellHolds says, from a cell's value, whether a point in the cell at
// (lat, lon) lies in its fence; test is false when the value leaves the
// question to the stored fence (cellEdge), and ok false when the value is
// none of these. A circle and a box are tested by the same code as their
// regions (circle.contains, boxRegion.contains), so the answer is the one
// the fence itself gives.
func cellHolds(v []byte, lat, lon float64) (holds, test, ok bool) {
	if len(v) == 0 {
		return false, false, false
	}
	var f [4]float64
	switch v[0] {
	case cellInside:
		return true, true, len(v) == 1
	case cellEdge:
		return false, false, len(v) == 1
	case cellCircle:
		if !readFloats(v[1:], f[:3]) {
			return false, false, false
		}
		return Distance(f[0], f[1], lat, lon) <= f[2], true, true
	case cellBox:
		if !readFloats(v[1:], f[:]) {
			return false, false, false
		}
		var b boxRegion
		return b.init(Box{MinLat: f[0], MinLon: f[1], MaxLat: f[2], MaxLon: f[3]}).contains(lat, lon), true, true
	}
	return false, false, false
}

// ErrBadFence: a fence with no region, or more than one.
var ErrBadFence = errors.New("geo: invalid fence")

// A Fence is a region with an id: a circle, a latitude/longitude box, or
// a GeoJSON polygon or multipolygon (as Within takes). Exactly one of
// Circle, Box and Polygon is set.
type Fence struct {
	ID      string
	Circle  *Circle
	Box     *Box
	Polygon orb.Geometry // orb.Polygon or orb.MultiPolygon
}

// Circle is the region within Radius metres of (Lat, Lon).
type Circle struct {
	Lat, Lon, Radius float64
}

// CrossingKind says how a point's move relates to a fence.
type CrossingKind int

const (
	Enter  CrossingKind = iota + 1 // outside before (or new), inside after
	Exit                           // inside before, outside after (or deleted)
	Inside                         // inside before and after
)

func (k CrossingKind) String() string {
	switch k {
	case Enter:
		return "enter"
	case Exit:
		return "exit"
	case Inside:
		return "inside"
	}
	return fmt.Sprintf("CrossingKind(%d)", int(k))
}

// A Crossing is a fence a moving point entered, left or stayed in.
type Crossing struct {
	Fence string
	Kind  CrossingKind
}

// Fences is a named set of fences.
type Fences struct {
	name       string
	defs       composite.Subspace
	cells      composite.Subspace
	polygons   composite.Subspace   // ("f", name, "p"): polygon fences' rings (fence_polygon.go)
	cellPrefix [southCap + 1][]byte // ("f", name, "c", grid) of each grid, packed
	levelsKey  []byte               // ("f", name, "l"): the levels in use (levelMask)
}

// NewFences returns the set of fences called name.
func NewFences(name string) *Fences {
	fs := &Fences{name: name, defs: composite.NewSubspace("f", name, "d"), cells: composite.NewSubspace("f", name, "c"), polygons: composite.NewSubspace("f", name, "p")}
	for g := range fs.cellPrefix {
		fs.cellPrefix[g] = fs.cells.Sub(uint64(g)).Bytes()
	}
	fs.levelsKey = composite.NewSubspace("f", name).Pack(composite.Tuple{"l"})
	return fs
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

// addLevels adds the levels of new cells to the set's mask, before
// they are written. A set with fences but no mask (written before masks)
// is given every level, which is true of it.
func (fs *Fences) addLevels(tx keyspace.Tx, add levelMask) error {
	mask, known, err := fs.levels(tx)
	if err != nil {
		return err
	}
	if !known {
		mask = 0
		if n, err := fs.any(tx); err != nil {
			return err
		} else if n {
			mask = allLevels
		}
	}
	if mask|add == mask && known {
		return nil
	}
	return fs.wrap(tx.Put(fs.levelsKey, binary.BigEndian.AppendUint32(nil, uint32(mask|add))))
}

// Empty reports whether the set holds no fences.
func (fs *Fences) Empty(tx keyspace.Tx) (bool, error) {
	some, err := fs.any(tx)
	return !some, err
}

// Name returns the set's name.
func (fs *Fences) Name() string { return fs.name }

// any reports whether the set holds a fence.
func (fs *Fences) any(tx keyspace.Tx) (bool, error) {
	defs := fs.defs.Range()
	defs.Limit = 1
	found := false
	for range tx.Scan(defs) {
		found = true
	}
	return found, fs.wrap(tx.Err())
}

func (fs *Fences) wrap(err error) error { return errctx.Wrap("geo", "fences "+fs.name, err) }

// storedFence is a fence's definition as stored: its region and the cells
// it is stored under, so Delete removes exactly those.
type storedFence struct {
	Circle  *Circle           `json:"circle,omitempty"`
	Box     *Box              `json:"box,omitempty"`
	Polygon *geojson.Geometry `json:"polygon,omitempty"`
	Cells   [][4]uint64       `json:"cells"` // grid, bits, hash, inside (1) or not (0)
}

// Validate says what is wrong with f, if anything: no id, no region or
// more than one, a point out of range, a negative radius, a box whose
// south lies north of its north, a polygon that is not a polygon. Put
// and PutAll check the same; an import can check its fences first to
// name the bad one by its place in the input.
func (f Fence) Validate() error {
	if f.ID == "" {
		return fmt.Errorf("%w: a fence needs an id", ErrBadFence)
	}
	_, err := f.region()
	return err
}

// region validates f and returns its region.
func (f Fence) region() (region, error) {
	set := 0
	for _, ok := range []bool{f.Circle != nil, f.Box != nil, f.Polygon != nil} {
		if ok {
			set++
		}
	}
	if set != 1 {
		return nil, fmt.Errorf("%w %q: give one of a circle, a box or a polygon, not %d", ErrBadFence, f.ID, set)
	}
	switch {
	case f.Circle != nil:
		c := f.Circle
		if err := validate(c.Lat, c.Lon); err != nil {
			return nil, fmt.Errorf("fence %q: %w", f.ID, errctx.Bare("geo", err))
		}
		if math.IsNaN(c.Radius) || c.Radius < 0 || math.IsInf(c.Radius, 0) {
			return nil, fmt.Errorf("%w %q: radius %v must be a non-negative number of metres", ErrBadFence, f.ID, c.Radius)
		}
		return newCircle(c.Lat, c.Lon, c.Radius), nil
	case f.Box != nil:
		if err := f.Box.validate(); err != nil {
			return nil, fmt.Errorf("%w %q: %w", ErrBadFence, f.ID, err)
		}
		return new(boxRegion).init(*f.Box), nil
	}
	reg, err := newPolygonRegion(f.Polygon)
	if err != nil {
		return nil, fmt.Errorf("fence %q: %w", f.ID, errctx.Bare("geo", err))
	}
	return reg, nil
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

// Put stores f, replacing the fence with its id if there is one. A bad
// fence is an error that writes nothing.
func (fs *Fences) Put(tx keyspace.Tx, f Fence) error {
	pairs, levels, err := fs.pairs(f)
	if err != nil {
		return err
	}
	if err := fs.Delete(tx, f.ID); err != nil && !errors.Is(err, keyspace.ErrNotFound) {
		return err
	}
	if err := fs.addLevels(tx, levels); err != nil {
		return err
	}
	for _, p := range pairs {
		if err := tx.Put(p.key, p.value); err != nil {
			return fs.wrap(err)
		}
	}
	return nil
}

// PutAll stores many fences in one transaction, as an import does,
// replacing those with the same ids; a later fence of an id wins over an
// earlier one. Every fence is checked before anything is written, so a
// bad one changes nothing. The writes go in one sorted run of keys
// (keyspace.WriteSorted), which bbolt takes in linear time: 10,000 fences
// put one by one in one bbolt transaction wrote their 640,000 cell keys in
// random order, which bbolt's unsplit nodes take in quadratic time
// (minutes, where PutAll takes seconds; BenchmarkFencesPutAll).
func (fs *Fences) PutAll(tx keyspace.Tx, fences []Fence) error {
	last := make(map[string]int, len(fences))
	for i, f := range fences {
		last[f.ID] = i
	}
	each := make([][]pair, len(fences))
	n := 0
	var levels levelMask
	for i, f := range fences {
		if last[f.ID] != i {
			continue
		}
		pairs, l, err := fs.pairs(f)
		if err != nil {
			return fmt.Errorf("%w (fence %d of %d)", err, i+1, len(fences))
		}
		each[i] = pairs
		n += len(pairs)
		levels |= l
	}
	all := make([]pair, 0, n)
	for _, pairs := range each {
		all = append(all, pairs...)
	}
	some, err := fs.any(tx)
	if err != nil {
		return err
	}
	if some {
		for i, f := range fences {
			if last[f.ID] != i {
				continue
			}
			if err := fs.Delete(tx, f.ID); err != nil && !errors.Is(err, keyspace.ErrNotFound) {
				return err
			}
		}
	}
	if err := fs.addLevels(tx, levels); err != nil {
		return err
	}
	slices.SortFunc(all, func(a, b pair) int { return bytes.Compare(a.key, b.key) })
	if err := keyspace.WriteSorted(tx, func(yield func(k, v []byte) bool) {
		for _, p := range all {
			if !yield(p.key, p.value) {
				return
			}
		}
	}); err != nil {
		return fs.wrap(err)
	}
	return nil
}

// pairs checks f and returns the pairs that store it, a key for each of
// its cells and its definition, and the levels of its cells.
func (fs *Fences) pairs(f Fence) ([]pair, levelMask, error) {
	if f.ID == "" {
		return nil, 0, fs.wrap(f.Validate())
	}
	reg, err := f.region()
	if err != nil {
		return nil, 0, fs.wrap(err)
	}
	budget := fenceCellsInline
	if f.Polygon != nil {
		budget = fenceCellsPolygon
	}
	def := storedFence{Circle: f.Circle, Box: f.Box, Cells: fenceCover(reg, budget)}
	if f.Polygon != nil {
		def.Polygon = geojson.NewGeometry(f.Polygon)
	}
	v, err := json.Marshal(def)
	if err != nil {
		return nil, 0, fs.wrap(fmt.Errorf("fence %q: %w", f.ID, err))
	}
	pairs := make([]pair, 0, len(def.Cells)+2)
	var levels levelMask
	for _, c := range def.Cells {
		pairs = append(pairs, pair{fs.cellKey(c, f.ID), f.cellValue(c[3] == 1)})
		levels |= levelOf(c[1])
	}
	if f.Polygon != nil {
		pairs = append(pairs, pair{fs.polygons.Pack(composite.Tuple{f.ID}), appendPolygon(nil, toMultiPolygon(f.Polygon))})
	}
	return append(pairs, pair{fs.defs.Pack(composite.Tuple{f.ID}), v}), levels, nil
}

// get reads the stored fence id.
func (fs *Fences) get(tx keyspace.Tx, id string) (storedFence, error) {
	var def storedFence
	v, err := tx.Get(fs.defs.Pack(composite.Tuple{id}))
	if errors.Is(err, keyspace.ErrNotFound) {
		return def, fs.wrap(fmt.Errorf("no fence %s: %w", errctx.Quote(id), errctx.Bare("keyspace", err)))
	}
	if err != nil {
		return def, fs.wrap(fmt.Errorf("fence %s: %w", errctx.Quote(id), err))
	}
	if err := json.Unmarshal(v, &def); err != nil {
		return def, fs.wrap(fmt.Errorf("%w: fence %s: %v", keyspace.ErrCorrupt, errctx.Quote(id), err))
	}
	return def, nil
}

func (def storedFence) fence(id string) Fence {
	f := Fence{ID: id, Circle: def.Circle, Box: def.Box}
	if def.Polygon != nil {
		f.Polygon = def.Polygon.Geometry()
	}
	return f
}

// Get returns the fence id, or an error wrapping keyspace.ErrNotFound.
func (fs *Fences) Get(tx keyspace.Tx, id string) (Fence, error) {
	def, err := fs.get(tx, id)
	if err != nil {
		return Fence{}, err
	}
	return def.fence(id), nil
}

// Delete removes the fence id and its cells, or returns an error wrapping
// keyspace.ErrNotFound.
func (fs *Fences) Delete(tx keyspace.Tx, id string) error {
	def, err := fs.get(tx, id)
	if err != nil {
		return err
	}
	for _, c := range def.Cells {
		if err := tx.Delete(fs.cellKey(c, id)); err != nil {
			return fs.wrap(err)
		}
	}
	if def.Polygon != nil {
		if err := tx.Delete(fs.polygons.Pack(composite.Tuple{id})); err != nil {
			return fs.wrap(err)
		}
	}
	if err := tx.Delete(fs.defs.Pack(composite.Tuple{id})); err != nil {
		return fs.wrap(err)
	}
	return nil
}

// Drop deletes every fence of the set and returns how many there were.
func (fs *Fences) Drop(tx keyspace.Tx) (int, error) {
	counts, err := composite.Clear(tx, fs.defs, fs.cells, fs.polygons)
	if err == nil {
		err = tx.Delete(fs.levelsKey)
	}
	if err != nil {
		return 0, fs.wrap(err)
	}
	return counts[0], nil
}

// IDs lists the fences' ids in order.
func (fs *Fences) IDs(tx keyspace.Tx) ([]string, error) {
	var ids []string
	for k := range tx.Scan(fs.defs.Range()) {
		t, err := fs.defs.Unpack(k)
		if err != nil || len(t) != 1 {
			return nil, fs.wrap(fmt.Errorf("%w: fence key %s", keyspace.ErrCorrupt, errctx.Quote(string(k))))
		}
		id, _ := t[0].(string)
		ids = append(ids, id)
	}
	return ids, fs.wrap(tx.Err())
}

// Containing returns the ids of the fences that hold (lat, lon), in order:
// edges included, as queries include them.
func (fs *Fences) Containing(tx keyspace.Tx, lat, lon float64) ([]string, error) {
	if err := validate(lat, lon); err != nil {
		return nil, fs.wrap(err)
	}
	g, h := locate(lat, lon)
	v := containingVisitor{lat: lat, lon: lon}
	// The point's cell at each level (a shift of 64 is 0): its key
	// prefix, and the prefix and 0xff, past every element, as the end.
	// The ranges ascend, as VisitRanges walks them fastest. They are
	// built in one buffer, as a query's are (appendHashRange): building
	// them through Subspace.Sub was a quarter of a lookup.
	mask, _, err := fs.levels(tx)
	if err != nil {
		return nil, err
	}
	prefix := fs.cellPrefix[g]
	buf := make([]byte, 0, len(v.prefixLen)*2*(len(prefix)+2*9+1))
	var all [len(v.prefixLen)]keyspace.Range
	ranges := all[:0]
	for level := range len(v.prefixLen) {
		bits := uint64(level * fenceStep)
		if mask&levelOf(bits) == 0 {
			continue
		}
		i := len(ranges)
		start := len(buf)
		buf = composite.AppendUint(composite.AppendUint(append(buf, prefix...), bits), h>>(MaxBits-bits))
		n := len(buf)
		buf = append(append(buf, buf[start:n]...), 0xff)
		ranges = append(ranges, keyspace.Range{Start: buf[start:n:n], End: buf[n:len(buf):len(buf)]})
		v.prefixLen[i] = n - start
	}
	if err := keyspace.VisitRanges(tx, ranges, &v); err != nil {
		return nil, fs.wrap(err)
	}
	if v.bad != nil {
		return nil, fs.wrap(fmt.Errorf("%w: fence cell key %s", keyspace.ErrCorrupt, errctx.Quote(string(v.bad))))
	}
	slices.Sort(v.polygons)
	for _, id := range slices.Compact(v.polygons) {
		reg, err := fs.polygon(tx, id)
		if err != nil {
			return nil, err
		}
		if reg.contains(lat, lon) {
			v.ids = append(v.ids, id)
		}
	}
	slices.Sort(v.ids)
	return slices.Compact(v.ids), nil
}

// polygon is the region of the polygon fence id, for testing points: from
// its rings (fence_polygon.go), or for a fence stored before they were
// kept, from its definition.
func (fs *Fences) polygon(tx keyspace.Tx, id string) (region, error) {
	v, err := tx.Get(fs.polygons.Pack(composite.Tuple{id}))
	if err == nil {
		reg, err := decodePolygon(v)
		if err != nil {
			return nil, fs.wrap(fmt.Errorf("%w: fence %s: %v", keyspace.ErrCorrupt, errctx.Quote(id), err))
		}
		return reg, nil
	}
	if !errors.Is(err, keyspace.ErrNotFound) {
		return nil, fs.wrap(err)
	}
	def, err := fs.get(tx, id)
	if err != nil {
		return nil, err
	}
	reg, err := def.fence(id).region()
	if err != nil {
		return nil, fs.wrap(fmt.Errorf("%w: %w", keyspace.ErrCorrupt, err))
	}
	return reg, nil
}

// containingVisitor reads the cells holding a point for Containing: the
// fences that hold it by their cells' values into ids, those to test
// against their stored definitions into polygons.
type containingVisitor struct {
	lat, lon      float64
	prefixLen     [MaxBits/fenceStep + 1]int // the length of each range's cell prefix; the id follows
	ids, polygons []string
	bad           []byte // a damaged key or value met
}

func (v *containingVisitor) VisitIn(i int, k, val []byte) bool {
	var id []byte
	var rest []byte
	err := errors.New("short")
	if len(k) > v.prefixLen[i] {
		id, rest, err = composite.AppendUnpackedString(nil, k[v.prefixLen[i]:])
	}
	holds, test, valid := cellHolds(val, v.lat, v.lon)
	switch {
	case err != nil || len(rest) != 0 || !valid:
		v.bad = bytes.Clone(k)
		return false
	case !test:
		v.polygons = append(v.polygons, string(id))
	case holds:
		v.ids = append(v.ids, string(id))
	}
	return true
}

// Crossings compares the fences that hold a point before and after a
// move: Enter for those that hold it only after, Exit only before, Inside
// both, by fence id. A nil before is a point just added (every fence
// holding it is entered), a nil after a point deleted.
func (fs *Fences) Crossings(tx keyspace.Tx, before, after *Point) ([]Crossing, error) {
	var was, is []string
	var err error
	if before != nil {
		if was, err = fs.Containing(tx, before.Lat, before.Lon); err != nil {
			return nil, err
		}
	}
	if after != nil {
		if is, err = fs.Containing(tx, after.Lat, after.Lon); err != nil {
			return nil, err
		}
	}
	var out []Crossing
	for _, id := range was {
		kind := Exit
		if _, found := slices.BinarySearch(is, id); found {
			kind = Inside
		}
		out = append(out, Crossing{Fence: id, Kind: kind})
	}
	for _, id := range is {
		if _, found := slices.BinarySearch(was, id); !found {
			out = append(out, Crossing{Fence: id, Kind: Enter})
		}
	}
	slices.SortFunc(out, func(a, b Crossing) int { return strings.Compare(a.Fence, b.Fence) })
	return out, nil
}

// Verify checks the set's cells against its fences' definitions, which
// are the truth: each fence is stored under exactly the cells its
// definition lists, each holding the value its region gives it (an edge
// cell may hold 0, as the first build wrote every edge), and no cell
// names anything else. It returns a description of each problem.
func (fs *Fences) Verify(tx keyspace.Tx) ([]string, error) { return fs.check(tx, false) }

// Repair makes the set's cells what its definitions imply, in the
// caller's transaction, and returns the problems it fixed, as Verify
// describes them: missing cells are written, wrong values rewritten,
// stray cells deleted. A definition that does not decode is deleted with
// its cells: nothing else holds its region.
func (fs *Fences) Repair(tx keyspace.Tx) ([]string, error) { return fs.check(tx, true) }

// check is Verify, and with fix Repair.
func (fs *Fences) check(tx keyspace.Tx, fix bool) ([]string, error) {
	var problems []string
	var writes fixes.Set
	want := map[string][]byte{}  // every cell key the definitions list → its value
	rings := map[string][]byte{} // every polygon fence's rings key → its encoding
	owner := map[string]string{}
	var levels levelMask // of the cells the definitions list
	for k, v := range tx.Scan(fs.defs.Range()) {
		t, err := fs.defs.Unpack(k)
		id, ok := "", false
		if err == nil && len(t) == 1 {
			id, ok = t[0].(string)
		}
		var def storedFence
		if ok {
			err = json.Unmarshal(v, &def)
		}
		var f Fence
		if ok && err == nil {
			f = def.fence(id)
			err = f.Validate()
		}
		if !ok || err != nil {
			problems = append(problems, fmt.Sprintf("corrupt fence definition %s: %v", errctx.Quote(string(k)), err))
			writes.Delete(bytes.Clone(k))
			continue
		}
		for _, c := range def.Cells {
			key := string(fs.cellKey(c, id))
			want[key], owner[key] = f.cellValue(c[3] == 1), id
			levels |= levelOf(c[1])
		}
		if f.Polygon != nil {
			key := string(fs.polygons.Pack(composite.Tuple{id}))
			rings[key], owner[key] = appendPolygon(nil, toMultiPolygon(f.Polygon)), id
		}
	}
	if err := tx.Err(); err != nil {
		return nil, fs.wrap(err)
	}
	for k, v := range tx.Scan(fs.cells.Range()) {
		w, listed := want[string(k)]
		switch {
		case !listed:
			problems = append(problems, fmt.Sprintf("stray fence cell %s", errctx.Quote(string(k))))
			writes.Delete(bytes.Clone(k))
		case !bytes.Equal(v, w) && !(len(v) == 1 && v[0] == cellEdge && w[0] != cellInside):
			problems = append(problems, fmt.Sprintf("fence %s: cell %s holds %x, not %x", errctx.Quote(owner[string(k)]), errctx.Quote(string(k)), v, w))
			writes.Put(bytes.Clone(k), w)
		}
		delete(want, string(k))
	}
	if err := tx.Err(); err != nil {
		return nil, fs.wrap(err)
	}
	for k, v := range want {
		problems = append(problems, fmt.Sprintf("fence %s: cell %s missing", errctx.Quote(owner[k]), errctx.Quote(k)))
		writes.Put([]byte(k), v)
	}
	// A polygon's rings must be its definition's; a polygon with none
	// (stored before they were kept) is tested from its definition.
	for k, v := range tx.Scan(fs.polygons.Range()) {
		w, listed := rings[string(k)]
		switch {
		case !listed:
			problems = append(problems, fmt.Sprintf("stray fence polygon %s", errctx.Quote(string(k))))
			writes.Delete(bytes.Clone(k))
		case !bytes.Equal(v, w):
			problems = append(problems, fmt.Sprintf("fence %s: its stored rings are not its definition's", errctx.Quote(owner[string(k)])))
			writes.Put(bytes.Clone(k), w)
		}
	}
	if err := tx.Err(); err != nil {
		return nil, fs.wrap(err)
	}
	// The level mask must name every level in use; a set with none
	// (written before masks) is read at every level.
	exact := binary.BigEndian.AppendUint32(nil, uint32(levels))
	switch mask, err := tx.Get(fs.levelsKey); {
	case errors.Is(err, keyspace.ErrNotFound):
	case err != nil:
		return nil, fs.wrap(err)
	case len(mask) != 4:
		problems = append(problems, fmt.Sprintf("corrupt fence level mask %x", mask))
		writes.Put(bytes.Clone(fs.levelsKey), exact)
	case levelMask(binary.BigEndian.Uint32(mask))&levels != levels:
		problems = append(problems, fmt.Sprintf("the level mask %017b misses levels %017b", binary.BigEndian.Uint32(mask), levels&^levelMask(binary.BigEndian.Uint32(mask))))
		writes.Put(bytes.Clone(fs.levelsKey), exact)
	}
	problems, err := writes.Finish(tx, problems, fix)
	return problems, fs.wrap(err)
}

// InFence returns the points of the index inside a fence's region, as
// Tile38's WITHIN … GET asks with a stored object as the area: Radius for
// a circle, Box for a box, Within for a polygon, in their orders (nearest
// the centre first). The fence needs no id; a fence of Fences.Get is one.
func (ix *Index) InFence(tx keyspace.Tx, f Fence, opts *QueryOptions) ([]Result, Stats, error) {
	switch {
	case f.Circle != nil && f.Box == nil && f.Polygon == nil:
		return ix.Radius(tx, f.Circle.Lat, f.Circle.Lon, f.Circle.Radius, opts)
	case f.Box != nil && f.Circle == nil && f.Polygon == nil:
		return ix.Box(tx, *f.Box, opts)
	case f.Polygon != nil && f.Circle == nil && f.Box == nil:
		return ix.Within(tx, f.Polygon, opts)
	}
	return nil, Stats{}, ix.wrap(fmt.Errorf("%w %q: give one of a circle, a box or a polygon", ErrBadFence, f.ID))
}
