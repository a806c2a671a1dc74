package geo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/internal/errctx"
	"github.com/keyspacedb/keyspace/internal/expiry"
	"github.com/paulmach/orb/geojson"
)

// Lookups: which fences hold a point (Containing), and what a move
// crossed (Crossings). See fence_cells.go for what a lookup reads.

// CrossingKind says how a point's move relates to a fence.
type CrossingKind int

const (
	Enter  CrossingKind = iota + 1 // outside before (or new), inside after
	Exit                           // inside before, outside after (or deleted)
	Inside                         // inside before and after
	Cross                          // outside before and after, but the path between passed through it (fence_cross.go)
)

func (k CrossingKind) String() string {
	switch k {
	case Enter:
		return "enter"
	case Exit:
		return "exit"
	case Inside:
		return "inside"
	case Cross:
		return "cross"
	}
	return fmt.Sprintf("CrossingKind(%d)", int(k))
}

// A Crossing is a fence a moving point entered, left, stayed in or passed
// through.
type Crossing struct {
	Fence string
	Kind  CrossingKind
}

// Containing returns the ids of the fences that hold (lat, lon), in order:
// edges included, as queries include them. Fences that have expired hold
// nothing.
func (fs *Fences) Containing(tx keyspace.Tx, lat, lon float64) ([]string, error) {
	return fs.containing(tx, lat, lon, new(expiry.Clock))
}

// containing is Containing, judging expiry by clk.
func (fs *Fences) containing(tx keyspace.Tx, lat, lon float64, clk *expiry.Clock) ([]string, error) {
	if err := validate(lat, lon); err != nil {
		return nil, fs.wrap(err)
	}
	mask, _, err := fs.levels(tx) // the levels that hold cells
	if err != nil {
		return nil, err
	}
	g, h := locate(lat, lon)
	v := containingVisitor{lat: lat, lon: lon, clock: clk}
	// The point's cell at each level in the mask (a shift of 64 is 0):
	// its key prefix, and the prefix and 0xff, past every element, as the
	// end. The ranges ascend, as VisitRanges walks them fastest. They are
	// built in one buffer, as a query's are (appendHashRange): building
	// them through Subspace.Sub was a quarter of a lookup.
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
		held, err := fs.polygonContains(tx, id, lat, lon)
		if err != nil {
			return nil, err
		}
		if held {
			v.ids = append(v.ids, id)
		}
	}
	slices.Sort(v.ids)
	return slices.Compact(v.ids), nil
}

// polygonContains reports whether the fence id, a polygon, a sector or a
// corridor with a cell on its edge at (lat, lon), holds the point: tested on its
// stored rings in place (storedPolygonContains), on a sector's or a
// corridor's region key (sectorHolds, corridorValueHolds), or for a
// fence stored before rings were kept, on its region.
func (fs *Fences) polygonContains(tx keyspace.Tx, id string, lat, lon float64) (bool, error) {
	v, err := tx.Get(fs.polygons.Pack(composite.Tuple{id}))
	if errors.Is(err, keyspace.ErrNotFound) {
		// A sector's region key, tested without building the region.
		if rv, err := tx.Get(fs.regions.Pack(composite.Tuple{id})); err == nil {
			if held, ok := sectorHolds(rv, lat, lon); ok {
				return held, nil
			}
			if held, ok := corridorValueHolds(rv, lat, lon); ok {
				return held, nil
			}
		}
		reg, err := fs.regionOf(tx, id)
		if err != nil {
			return false, err
		}
		return reg.contains(lat, lon), nil
	}
	if err != nil {
		return false, fs.wrap(err)
	}
	held, err := storedPolygonContains(v, lat, lon)
	if err != nil {
		return false, fs.wrap(fmt.Errorf("%w: fence %s: %v", keyspace.ErrCorrupt, errctx.Quote(id), err))
	}
	return held, nil
}

// regionOf is the region of the fence id, for testing points and paths:
// a polygon's from its rings (fence_polygon.go), a circle's or a box's
// from its region key (regionValue), or, for a fence stored before they
// were kept, from its definition.
func (fs *Fences) regionOf(tx keyspace.Tx, id string) (region, error) {
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
	v, err = tx.Get(fs.regions.Pack(composite.Tuple{id}))
	if err == nil {
		reg, ok := decodeRegion(v)
		if !ok {
			return nil, fs.wrap(fmt.Errorf("%w: fence %s: region %x", keyspace.ErrCorrupt, errctx.Quote(id), v))
		}
		return reg, nil
	}
	if !errors.Is(err, keyspace.ErrNotFound) {
		return nil, fs.wrap(err)
	}
	v, err = tx.Get(fs.defs.Pack(composite.Tuple{id}))
	if errors.Is(err, keyspace.ErrNotFound) {
		return nil, fs.wrap(fmt.Errorf("no fence %s: %w", errctx.Quote(id), errctx.Bare("keyspace", err)))
	}
	if err != nil {
		return nil, fs.wrap(err)
	}
	// Only the region: a definition's cells are most of its JSON, and
	// decoding them was most of an Intersecting query among circles and
	// boxes (20 µs for a 1 km circle among 1,000).
	var def struct {
		Circle   *Circle           `json:"circle"`
		Box      *Box              `json:"box"`
		Sector   *Sector           `json:"sector"`
		Polygon  *geojson.Geometry `json:"polygon"`
		Corridor *storedCorridor   `json:"corridor"`
	}
	if err := json.Unmarshal(v, &def); err != nil {
		return nil, fs.wrap(fmt.Errorf("%w: fence %s: %v", keyspace.ErrCorrupt, errctx.Quote(id), err))
	}
	f := Fence{ID: id, Circle: def.Circle, Box: def.Box, Sector: def.Sector, Corridor: def.Corridor.corridor()}
	if def.Polygon != nil {
		f.Polygon = def.Polygon.Geometry()
	}
	reg, err := f.storedRegion()
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
	clock         *expiry.Clock
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
	kind, expires, body, valid := cellParts(val)
	var holds, test bool
	if valid {
		holds, test, valid = cellHolds(kind, body, v.lat, v.lon)
	}
	switch {
	case err != nil || len(rest) != 0 || !valid:
		v.bad = bytes.Clone(k)
		return false
	case v.clock.Expired(expires):
	case !test:
		v.polygons = append(v.polygons, string(id))
	case holds:
		v.ids = append(v.ids, string(id))
	}
	return true
}

// Crossings compares the fences that hold a point before and after a
// move: Enter for those that hold it only after, Exit only before, Inside
// both, by fence id. A fence that holds neither end but that the move's
// path passes through is a Cross: the path is the straight line in
// longitude and latitude between the two places, the shorter way round
// (path.go), as Tile38 draws it. A nil before is a point just added
// (every fence holding it is entered), a nil after a point deleted;
// neither has a path. Fences that have expired take no part: one reading
// of the clock judges them for the whole move.
func (fs *Fences) Crossings(tx keyspace.Tx, before, after *Point) ([]Crossing, error) {
	var was, is []string
	var err error
	clk := new(expiry.Clock)
	if before != nil {
		if was, err = fs.containing(tx, before.Lat, before.Lon, clk); err != nil {
			return nil, err
		}
	}
	if after != nil {
		if is, err = fs.containing(tx, after.Lat, after.Lon, clk); err != nil {
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
	if before != nil && after != nil && (before.Lat != after.Lat || before.Lon != after.Lon) {
		held := func(id string) bool {
			_, w := slices.BinarySearch(was, id)
			_, i := slices.BinarySearch(is, id)
			return w || i
		}
		crossed, err := fs.passedThrough(tx, newPath(*before, *after), held, clk)
		if err != nil {
			return nil, err
		}
		for _, id := range crossed {
			out = append(out, Crossing{Fence: id, Kind: Cross})
		}
	}
	slices.SortFunc(out, func(a, b Crossing) int { return strings.Compare(a.Fence, b.Fence) })
	return out, nil
}

// PutPoint puts p in the index ix, as ix.Put does, and returns the
// crossings of its move through the set's fences: from where ix held it
// (nowhere for a new point, or one that had expired) to p. One call in
// the caller's transaction, so the point and its crossings are written
// together or not at all.
func (fs *Fences) PutPoint(tx keyspace.Tx, ix *Index, p Point) ([]Crossing, error) {
	var from *Point // nil for a new point
	switch old, err := ix.Get(tx, p.ID); {
	case err == nil:
		from = &old
	case !errors.Is(err, keyspace.ErrNotFound):
		return nil, err
	}
	if err := ix.Put(tx, p); err != nil {
		return nil, err
	}
	return fs.Crossings(tx, from, &p)
}

// DeletePoint deletes the point id from the index ix, as ix.Delete does,
// and returns the fences it left (every crossing an Exit).
func (fs *Fences) DeletePoint(tx keyspace.Tx, ix *Index, id string) ([]Crossing, error) {
	before, err := ix.Get(tx, id)
	if err != nil {
		return nil, err
	}
	if err := ix.Delete(tx, id); err != nil {
		return nil, err
	}
	return fs.Crossings(tx, &before, nil)
}
