package geo

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/internal/errctx"
	"github.com/keyspacedb/keyspace/internal/expiry"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"
)

// Geofences: regions stored in the keyspace that points are tested
// against, the other way round from a query. A query asks which points lie
// in a region; Fences.Containing asks which regions hold a point ("which
// delivery zone is this address in?"), and Fences.Crossings which fences a
// moving point entered, left, stayed in or passed through, as Tile38's
// geofences report enter, exit, inside and cross. Both run in the caller's transaction, so a point
// moved with Index.Put and the crossings it makes are one atomic step,
// which a geofence server's notifications are not.
//
// Key layout, under ("f", name):
//
//	("f", name, "d", id)                      → the fence: its region and cells, JSON
//	("f", name, "c", grid, bits, hash, id)    → what a point in the cell needs (cellValue)
//	("f", name, "l")                          → the levels that hold cells (levelMask)
//	("f", name, "p", id)                      → a polygon fence's rings and band indexes, for points on its edges (fence_polygon.go)
//	("f", name, "r", id)                      → a circle's or a box's region, as its edge cells carry it, or a sector's or a corridor's (regionValue)
//	("f", name, "e", expires, id)             → nothing: a fence that expires, by when (fence_expiry.go)
//
// The files: fence.go the fences and their writes, fence_cells.go the
// cells they are stored under and what a cell holds, fence_lookup.go
// Containing and Crossings, fence_polygon.go a polygon's rings as a
// lookup reads them, fence_cross.go and path.go the fences a move passes
// through, fence_intersect.go the fences that share a point with an
// area, fence_within.go those wholly inside one, fence_sector.go both
// of those for a sector area, fence_corridor.go corridors as fences,
// fence_near.go those within a distance of a point, fence_expiry.go
// fences that expire, fence_verify.go Verify and Repair.

// fenceFormat is the keyspace.FormatVersion of the fence layout above.
// It changed at versions 2, 3 and 4 (the keyspace package's format.go),
// each time in ways an older build reads as damage, so every write to a
// fence set raises the file to it (keyspace.RequireFormat): a build that
// predates it refuses the file rather than reading this build's fences
// as corrupt, and its Repair never deletes them.
const fenceFormat = 4

// sectorFenceFormat is the keyspace.FormatVersion of a fence set that
// holds sectors (their definitions and region keys): only a write of a
// sector fence raises a file to it, so files with none stay readable by
// builds that know no sectors.
const sectorFenceFormat = 5

// corridorFenceFormat is the keyspace.FormatVersion of a fence set that
// holds corridors (fence_corridor.go): only a write of a corridor fence
// raises a file to it.
const corridorFenceFormat = 6

// ErrBadFence: a fence with no region, or more than one.
var ErrBadFence = errors.New("geo: invalid fence")

// A Fence is a region with an id: a circle, a latitude/longitude box, or
// a GeoJSON polygon or multipolygon (as Within takes), or a sector of a
// circle (Tile38's SECTOR: a camera's field of view), or a corridor, the
// ground within a distance of a line (a route a vehicle must keep to, or
// with no distance a road itself). Exactly one of Circle, Box, Polygon,
// Sector and Corridor is set.
type Fence struct {
	ID       string
	Circle   *Circle
	Box      *Box
	Polygon  orb.Geometry // orb.Polygon or orb.MultiPolygon
	Sector   *Sector      // fence_sector.go
	Corridor *Corridor    // fence_corridor.go
	Payload  []byte       // stored with the fence and returned by Get: a zone's name, a tariff
	// Expires, if not zero, is when the fence expires, as a Tile38 hook
	// set with EX does: from then on no lookup, Get or IDs finds it
	// (fence_expiry.go).
	Expires time.Time
}

// Circle is the region within Radius metres of (Lat, Lon).
type Circle struct {
	Lat, Lon, Radius float64
}

// Fences is a named set of fences.
type Fences struct {
	name       string
	defs       composite.Subspace
	cells      composite.Subspace
	polygons   composite.Subspace   // ("f", name, "p"): polygon fences' rings (fence_polygon.go)
	regions    composite.Subspace   // ("f", name, "r"): circles', boxes' and sectors' regions (regionValue)
	expiry     composite.Subspace   // ("f", name, "e"): the fences that expire, by when
	cellPrefix [southCap + 1][]byte // ("f", name, "c", grid) of each grid, packed
	levelsKey  []byte               // ("f", name, "l"): the levels in use (levelMask)
}

// NewFences returns the set of fences called name.
func NewFences(name string) *Fences {
	fs := &Fences{name: name, defs: composite.NewSubspace("f", name, "d"), cells: composite.NewSubspace("f", name, "c"), polygons: composite.NewSubspace("f", name, "p"), regions: composite.NewSubspace("f", name, "r"), expiry: composite.NewSubspace("f", name, "e")}
	for g := range fs.cellPrefix {
		fs.cellPrefix[g] = fs.cells.Sub(uint64(g)).Bytes()
	}
	fs.levelsKey = composite.NewSubspace("f", name).Pack(composite.Tuple{"l"})
	return fs
}

// Empty reports whether the set holds no fences.
func (fs *Fences) Empty(tx keyspace.Tx) (bool, error) {
	defs := fs.defs.Range()
	defs.Limit = 1
	for range tx.Scan(defs) {
		return false, fs.wrap(tx.Err())
	}
	return true, fs.wrap(tx.Err())
}

// Name returns the set's name.
func (fs *Fences) Name() string { return fs.name }

func (fs *Fences) wrap(err error) error { return errctx.Wrap("geo", "fences "+fs.name, err) }

// storedFence is a fence's definition as stored: its region and the cells
// it is stored under, so Delete removes exactly those.
type storedFence struct {
	Circle   *Circle           `json:"circle,omitempty"`
	Box      *Box              `json:"box,omitempty"`
	Sector   *Sector           `json:"sector,omitempty"`
	Polygon  *geojson.Geometry `json:"polygon,omitempty"`
	Corridor *storedCorridor   `json:"corridor,omitempty"`
	Payload  []byte            `json:"payload,omitempty"` // base64 in the JSON
	Cells    [][4]uint64       `json:"cells"`             // grid, bits, hash, inside (1) or not (0)
	Expires  int64             `json:"expires,omitempty"` // nanoseconds since 1970; none when 0
}

// Validate says what is wrong with f, if anything: no id, no region or
// more than one, a point out of range, a negative radius, a box whose
// south lies north of its north, a polygon that is not a polygon, an
// expiry not after 1970 (ErrBadExpiry). Put and PutAll check the same; an
// import can check its fences first to name the bad one by its place in
// the input.
func (f Fence) Validate() error {
	if f.ID == "" {
		return fmt.Errorf("%w: a fence needs an id", ErrBadFence)
	}
	if _, err := f.expires(); err != nil {
		return err
	}
	_, err := f.region()
	return err
}

// expires is f's expiry in nanoseconds since 1970, 0 for none.
func (f Fence) expires() (int64, error) {
	n, err := expiryOf(f.Expires)
	if err != nil {
		return 0, fmt.Errorf("fence %q: %w", f.ID, err)
	}
	return n, nil
}

// region validates f and returns its region.
func (f Fence) region() (region, error) {
	return f.regionAs(newPolygonRegion)
}

// storedRegion is region for a fence read back from a file: a polygon
// is checked as storedPolygonRegion checks it.
func (f Fence) storedRegion() (region, error) {
	return f.regionAs(storedPolygonRegion)
}

// regionAs is region, with polygons made by newPolygon.
func (f Fence) regionAs(newPolygon func(orb.Geometry) (polygonRegion, error)) (region, error) {
	if set := f.kinds(); set != 1 {
		return nil, fmt.Errorf("%w %q: give one of a circle, a box, a polygon, a sector or a corridor, not %d", ErrBadFence, f.ID, set)
	}
	switch {
	case f.Corridor != nil:
		return f.Corridor.region(f.ID)
	case f.Sector != nil:
		s := f.Sector
		if err := s.check(f.ID); err != nil {
			return nil, err
		}
		return newSector(s.Lat, s.Lon, s.Radius, s.From, s.To)
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
			return nil, fmt.Errorf("%w %q: %w", ErrBadFence, f.ID, errctx.Bare("geo", err))
		}
		return new(boxRegion).init(*f.Box), nil
	}
	reg, err := newPolygon(f.Polygon)
	if err != nil {
		return nil, fmt.Errorf("fence %q: %w", f.ID, errctx.Bare("geo", err))
	}
	return reg, nil
}

// kinds is how many of f's regions are set: 1 for a good fence.
func (f Fence) kinds() int {
	set := 0
	for _, ok := range []bool{f.Circle != nil, f.Box != nil, f.Polygon != nil, f.Sector != nil, f.Corridor != nil} {
		if ok {
			set++
		}
	}
	return set
}

// format is the keyspace.FormatVersion that storing f needs.
func (f Fence) format() uint64 {
	switch {
	case f.Corridor != nil:
		return corridorFenceFormat
	case f.Sector != nil:
		return sectorFenceFormat
	}
	return fenceFormat
}

// Put stores f, replacing the fence with its id if there is one. A bad
// fence is an error that writes nothing. A file that records an older
// format than the fence layout's records that layout's from then on
// (fenceFormat).
func (fs *Fences) Put(tx keyspace.Tx, f Fence) error {
	return fs.putAs(tx, f, Fence.region)
}

// putAs is Put with f's region made by check: a test puts with
// Fence.storedRegion what builds before session 37 let by.
func (fs *Fences) putAs(tx keyspace.Tx, f Fence, check func(Fence) (region, error)) error {
	pairs, levels, err := fs.pairs(f, check)
	if err != nil {
		return err
	}
	if err := keyspace.RequireFormat(tx, f.format()); err != nil {
		return fs.wrap(err)
	}
	if err := fs.Delete(tx, f.ID); err != nil && !errors.Is(err, keyspace.ErrNotFound) {
		return err
	}
	writeLevels, err := fs.addLevels(tx, levels)
	if err != nil {
		return err
	}
	if err := writeLevels(); err != nil {
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
	n, format := 0, uint64(fenceFormat)
	var levels levelMask
	for i, f := range fences {
		if last[f.ID] != i {
			continue
		}
		pairs, l, err := fs.pairs(f, Fence.region)
		if err != nil {
			return fmt.Errorf("%w (fence %d of %d)", err, i+1, len(fences))
		}
		each[i] = pairs
		n += len(pairs)
		levels |= l
		format = max(format, f.format())
	}
	all := make([]pair, 0, n)
	for _, pairs := range each {
		all = append(all, pairs...)
	}
	if len(all) == 0 {
		return nil
	}
	if err := keyspace.RequireFormat(tx, format); err != nil {
		return fs.wrap(err)
	}
	empty, err := fs.Empty(tx)
	if err != nil {
		return err
	}
	if !empty {
		for i, f := range fences {
			if last[f.ID] != i {
				continue
			}
			if err := fs.Delete(tx, f.ID); err != nil && !errors.Is(err, keyspace.ErrNotFound) {
				return err
			}
		}
	}
	writeLevels, err := fs.addLevels(tx, levels)
	if err != nil {
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
	return writeLevels()
}

// pairs checks f and returns the pairs that store it, a key for each of
// its cells and its definition, and the levels of its cells; check
// validates f and makes its region. An id too long for the keys
// (keyspace.ErrKeyTooLarge) is found here, before Put or PutAll writes
// anything.
func (fs *Fences) pairs(f Fence, check func(Fence) (region, error)) ([]pair, levelMask, error) {
	if f.ID == "" {
		return nil, 0, fs.wrap(f.Validate())
	}
	expires, err := f.expires()
	if err != nil {
		return nil, 0, fs.wrap(err)
	}
	reg, err := check(f)
	if err != nil {
		return nil, 0, fs.wrap(err)
	}
	budget := fenceCellsInline
	if f.testedStored() {
		budget = fenceCellsPolygon
	}
	def := storedFence{Circle: f.Circle, Box: f.Box, Sector: f.Sector, Payload: f.Payload, Cells: fenceCover(reg, budget), Expires: expires}
	if f.Polygon != nil {
		def.Polygon = geojson.NewGeometry(f.Polygon)
	}
	if f.Corridor != nil {
		def.Corridor = &storedCorridor{Line: geojson.NewGeometry(f.Corridor.Line), Radius: f.Corridor.Radius}
	}
	v, err := json.Marshal(def)
	if err != nil {
		return nil, 0, fs.wrap(fmt.Errorf("fence %q: %w", f.ID, err))
	}
	pairs := make([]pair, 0, len(def.Cells)+4)
	var levels levelMask
	for _, c := range def.Cells {
		pairs = append(pairs, pair{fs.cellKey(c, f.ID), f.cellValue(c[3] == 1)})
		levels |= levelOf(c[1])
	}
	if f.Polygon != nil {
		pairs = append(pairs, pair{fs.polygons.Pack(composite.Tuple{f.ID}), appendPolygon(nil, reg.(polygonRegion))})
	} else {
		pairs = append(pairs, pair{fs.regions.Pack(composite.Tuple{f.ID}), f.regionValue()})
	}
	if expires != 0 {
		pairs = append(pairs, pair{fs.expiryKey(expires, f.ID), nil})
	}
	pairs = append(pairs, pair{fs.defs.Pack(composite.Tuple{f.ID}), v})
	for _, p := range pairs {
		if len(p.key) > keyspace.MaxKeySize {
			return nil, 0, fs.wrap(fmt.Errorf("fence %s: %w: a key of it is %d bytes (the most is %d)",
				errctx.Quote(f.ID), errctx.Bare("keyspace", keyspace.ErrKeyTooLarge), len(p.key), keyspace.MaxKeySize))
		}
	}
	return pairs, levels, nil
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
	f := Fence{ID: id, Circle: def.Circle, Box: def.Box, Sector: def.Sector, Payload: def.Payload, Expires: expiry.Time(def.Expires)}
	if def.Polygon != nil {
		f.Polygon = def.Polygon.Geometry()
	}
	f.Corridor = def.Corridor.corridor()
	return f
}

// Get returns the fence id, or an error wrapping keyspace.ErrNotFound
// when there is none or it has expired.
func (fs *Fences) Get(tx keyspace.Tx, id string) (Fence, error) {
	def, err := fs.get(tx, id)
	if err != nil {
		return Fence{}, err
	}
	if def.Expires != 0 && def.Expires <= time.Now().UnixNano() {
		return Fence{}, fs.wrap(fmt.Errorf("fence %s: %w (expired)", errctx.Quote(id), errctx.Bare("keyspace", keyspace.ErrNotFound)))
	}
	return def.fence(id), nil
}

// Delete removes the fence id, its cells and its expiry entry, or returns
// an error wrapping keyspace.ErrNotFound. A fence that has expired and
// not been deleted yet is deleted like any other.
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
	} else if err := tx.Delete(fs.regions.Pack(composite.Tuple{id})); err != nil {
		return fs.wrap(err)
	}
	if def.Expires != 0 {
		if err := tx.Delete(fs.expiryKey(def.Expires, id)); err != nil {
			return fs.wrap(err)
		}
	}
	if err := tx.Delete(fs.defs.Pack(composite.Tuple{id})); err != nil {
		return fs.wrap(err)
	}
	return nil
}

// Rename moves the whole set, every fence with its cells, rings and
// expiry entries, to the name to in the caller's transaction, and
// returns the set under that name (Tile38's RENAME of a collection): its
// keys all lie under ("f", name), so this is composite.Move. A name that
// holds fences, or the set's own, is refused (wrapping
// composite.ErrNotEmpty).
func (fs *Fences) Rename(tx keyspace.Tx, to string) (*Fences, error) {
	if to == fs.name {
		return nil, fs.wrap(fmt.Errorf("rename to %q: %w", to, composite.ErrNotEmpty))
	}
	if _, err := composite.Move(tx, composite.NewSubspace("f", fs.name), composite.NewSubspace("f", to)); err != nil {
		return nil, fs.wrap(fmt.Errorf("rename to %q: %w", to, err))
	}
	return NewFences(to), nil
}

// Drop deletes every fence of the set and returns how many there were.
func (fs *Fences) Drop(tx keyspace.Tx) (int, error) {
	counts, err := composite.Clear(tx, fs.defs, fs.cells, fs.polygons, fs.regions, fs.expiry)
	if err == nil {
		err = tx.Delete(fs.levelsKey)
	}
	if err != nil {
		return 0, fs.wrap(err)
	}
	return counts[0], nil
}

// IDs lists the ids of the fences that have not expired, in order.
func (fs *Fences) IDs(tx keyspace.Tx) ([]string, error) {
	expired, err := fs.expiredIDs(tx, time.Now())
	if err != nil {
		return nil, err
	}
	var ids []string
	for k := range tx.Scan(fs.defs.Range()) {
		t, err := fs.defs.Unpack(k)
		if err != nil || len(t) != 1 {
			return nil, fs.wrap(fmt.Errorf("%w: fence key %s", keyspace.ErrCorrupt, errctx.Quote(string(k))))
		}
		id, _ := t[0].(string)
		if _, gone := expired[id]; !gone {
			ids = append(ids, id)
		}
	}
	return ids, fs.wrap(tx.Err())
}

// InFence returns the points of the index inside a fence's region, as
// Tile38's WITHIN … GET asks with a stored object as the area: Radius for
// a circle, Box for a box, Within for a polygon, Sector for a sector,
// Along for a corridor, in their orders (nearest the centre, or the
// corridor's line, first). The fence needs no id; a fence of Fences.Get
// is one.
func (ix *Index) InFence(tx keyspace.Tx, f Fence, opts *QueryOptions) ([]Result, Stats, error) {
	switch {
	case f.kinds() != 1:
	case f.Circle != nil:
		return ix.Radius(tx, f.Circle.Lat, f.Circle.Lon, f.Circle.Radius, opts)
	case f.Box != nil:
		return ix.Box(tx, *f.Box, opts)
	case f.Polygon != nil:
		return ix.Within(tx, f.Polygon, opts)
	case f.Sector != nil:
		s := f.Sector
		return ix.Sector(tx, s.Lat, s.Lon, s.Radius, s.From, s.To, opts)
	case f.Corridor != nil:
		return ix.Along(tx, f.Corridor.Line, f.Corridor.Radius, opts)
	}
	return nil, Stats{}, ix.wrap(fmt.Errorf("%w %q: give one of a circle, a box, a polygon, a sector or a corridor", ErrBadFence, f.ID))
}
