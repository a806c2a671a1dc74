package geo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/internal/errctx"
)

// Errors callers can test with errors.Is.
var (
	// ErrEmptyID: a point needs an id.
	ErrEmptyID = errors.New("geo: empty point id")
	// ErrBadQuery: a query argument is out of range (radius, k, limit…).
	ErrBadQuery = errors.New("geo: invalid query")
	// ErrBadPolygon: a polygon that is unclosed, too short, self-crossing
	// or has positions out of range.
	ErrBadPolygon = errors.New("geo: invalid polygon")
	// ErrBadExpiry: a Point.Expires that is not after 1970 or not before
	// 2262 (int64 nanoseconds since 1970 hold it).
	ErrBadExpiry = errors.New("geo: expiry out of range")
)

// Point is one indexed point.
type Point struct {
	ID       string
	Lat, Lon float64         // degrees
	Scope    composite.Tuple // optional partition, e.g. {"US", "CA"}
	Payload  []byte          // stored with the point, returned by queries
	// Expires, if not zero, is when the point expires, as Tile38's
	// SET … EX and BuntDB's TTL: from then on no query, Get or Scan
	// returns it, and DeleteExpired deletes it (expiry.go).
	Expires time.Time
}

// Index is a named geo index. Key layout (composite tuples):
//
//	("g", name, "p", (scope…), geohash uint64, id) → lat | lon | flags | [expires] | payload
//	("g", name, "n", (scope…), morton uint64, id)  → the same, north polar cap
//	("g", name, "s", (scope…), morton uint64, id)  → the same, south polar cap
//	("g", name, "i", id)                           → where the point's key is
//	("g", name, "e", expires uint64, id)           → nothing: the points that expire, soonest first
//
// The first three are what queries scan: a point between the caps is keyed
// by its 64-bit geohash, so a geohash cell of any precision under one
// scope is one contiguous key range; a point in a polar cap (|lat| above
// about 78.75°, CapLatitude) is keyed by its cell in the cap's own square
// grid (polar.go), whose cells are contiguous ranges too. The last finds a
// point's current key by id, so Put can move a point and Delete remove it
// in the same transaction: its value is the packed tuple ((scope…), hash),
// preceded by the byte 'n' or 's' for a cap (no packed tuple starts with
// either), and followed by the point's expiry when it has one. Ids are
// unique per index, across scopes.
//
// A point's value is its latitude and longitude as float64 bits, a flags
// byte, the expiry as int64 nanoseconds since 1970 when the flags say so,
// then the payload (appendValue). The expiry is in the value so that a
// query leaves an expired point out from what it reads anyway, and in the
// reverse entry so that Put and Delete find the point's expiry entry
// ("e") without reading the point.
//
// The scope is one nested tuple, not spliced in element by element: the
// nesting ends it, so no point of a longer scope such as ("CA", 7) can fall
// inside the hash ranges of ("CA"), where its 7 would sort among the
// hashes.
type Index struct {
	name     string
	points   [3]composite.Subspace // by grid
	ids      composite.Subspace
	expiry   composite.Subspace // the points that expire, by expiry
	unscoped scoped             // the key prefixes of points put under no scope
	buffers  sync.Pool          // *hits whose buffers queries reuse
}

// NewIndex returns the geo index called name.
func NewIndex(name string) *Index {
	ix := &Index{name: name, ids: composite.NewSubspace("g", name, "i"), expiry: composite.NewSubspace("g", name, "e")}
	for g, tag := range [3]string{geohashGrid: "p", northCap: "n", southCap: "s"} {
		ix.points[g] = composite.NewSubspace("g", name, tag)
	}
	ix.unscoped, _ = ix.packScope(nil) // the empty scope always packs
	return ix
}

// keyOrder ranks the grids as their subspaces sort: "n" < "p" < "s".
var keyOrder = [3]int{geohashGrid: 1, northCap: 0, southCap: 2}

// placeOf is the part of a point's key between its grid's subspace and its
// id: the scope as one nested tuple, then the hash.
func placeOf(scope composite.Tuple, h uint64) composite.Tuple {
	return composite.Tuple{scopeTuple(scope), h}
}

// scopeTuple is scope as a nested tuple element (an empty one for none).
func scopeTuple(scope composite.Tuple) composite.Tuple {
	if scope == nil {
		return composite.Tuple{}
	}
	return scope
}

// whereValue is a reverse entry's value: the packed ((scope…), hash), after
// a grid marker for the caps, then the expiry (nanoseconds since 1970) if
// the point has one.
func whereValue(g grid, packed []byte, expires int64) []byte {
	v := append(gridMarker(g), packed...)
	if expires != 0 {
		v = composite.AppendUint(v, uint64(expires))
	}
	return v
}

// gridMarker is the byte that starts a cap point's reverse entry; a
// geohash point's has none.
func gridMarker(g grid) []byte {
	switch g {
	case northCap:
		return []byte{'n'}
	case southCap:
		return []byte{'s'}
	}
	return nil
}

// parseWhere splits a reverse entry's value into its grid and the packed
// ((scope…), hash[, expires]).
func parseWhere(v []byte) (grid, []byte) {
	if len(v) > 0 {
		switch v[0] {
		case 'n':
			return northCap, v[1:]
		case 's':
			return southCap, v[1:]
		}
	}
	return geohashGrid, v
}

// Drop deletes every point of the index, under every scope, with its
// reverse entry, and returns how many points it deleted (Redis's DEL of a
// GEO key, Tile38's DROP). Other indexes, including ones whose names
// start with this one's, are untouched.
func (ix *Index) Drop(tx keyspace.Tx) (int, error) {
	counts, err := composite.Clear(tx, ix.ids, ix.points[0], ix.points[1], ix.points[2], ix.expiry)
	if err != nil {
		return 0, ix.wrap(err)
	}
	return counts[0], nil
}

// Name returns the index's name.
func (ix *Index) Name() string { return ix.name }

// Rename moves the whole index, every point under every scope with its
// reverse and expiry entries, to the name to in the caller's
// transaction, and returns the index under that name (Tile38's RENAME,
// Redis's RENAMENX of a GEO key): its keys all lie under ("g", name), so
// this is composite.Move, a write a key. A name that holds points is
// refused (wrapping composite.ErrNotEmpty), and so is one the index
// already has.
func (ix *Index) Rename(tx keyspace.Tx, to string) (*Index, error) {
	if to == ix.name {
		return nil, ix.wrap(fmt.Errorf("rename to %q: %w", to, composite.ErrNotEmpty))
	}
	if _, err := composite.Move(tx, composite.NewSubspace("g", ix.name), composite.NewSubspace("g", to)); err != nil {
		return nil, ix.wrap(fmt.Errorf("rename to %q: %w", to, err))
	}
	return NewIndex(to), nil
}

func (ix *Index) wrap(err error) error { return errctx.Wrap("geo", "index "+ix.name, err) }

// Put adds or moves a point. A point that moves (or changes scope) loses its
// old key in the same transaction.
func (ix *Index) Put(tx keyspace.Tx, p Point) error {
	scope, expires, err := ix.validate(&p)
	if err != nil {
		return err
	}
	g, h := locate(p.Lat, p.Lon)
	where := composite.AppendUint(scope, h) // placeOf(p.Scope, h), packed
	if err := ix.deleteKey(tx, p.ID); err != nil {
		return err
	}
	key := composite.AppendString(append(bytes.Clone(ix.points[g].Bytes()), where...), p.ID)
	if err := tx.Put(key, appendValue(make([]byte, 0, valueSize(&p, expires)), &p, expires)); err != nil {
		return ix.wrap(err)
	}
	if expires != 0 {
		if err := tx.Put(ix.expiryKey(expires, p.ID), nil); err != nil {
			return ix.wrap(err)
		}
	}
	return tx.Put(ix.ids.Pack(composite.Tuple{p.ID}), whereValue(g, where, expires))
}

// Validate reports what Put and PutAll would refuse p for, without a
// transaction: an empty id (ErrEmptyID), coordinates out of range
// (ErrInvalidPoint), an expiry out of range (ErrBadExpiry), a scope no
// key can hold, or an id so long that a key of the point would pass
// keyspace.MaxKeySize (keyspace.ErrKeyTooLarge). An import checks each
// row with it, to name a bad row (or skip it) before writing any.
func (ix *Index) Validate(p Point) error {
	_, _, err := ix.validate(&p)
	return err
}

// validate is Validate for Put, which keeps what it works out: the
// point's scope packed as one nested element, and its expiry as stored.
func (ix *Index) validate(p *Point) (scope []byte, expires int64, err error) {
	if p.ID == "" {
		return nil, 0, ix.wrap(ErrEmptyID)
	}
	scope, err = composite.Tuple{scopeTuple(p.Scope)}.TryPack()
	if err != nil {
		return nil, 0, ix.wrap(fmt.Errorf("point %s: scope: %w", errctx.Quote(p.ID), err))
	}
	if expires, err = ix.checkPoint(p, len(scope)+maxHashBytes); err != nil {
		return nil, 0, ix.wrap(err)
	}
	return scope, expires, nil
}

// maxHashBytes is the most bytes a packed hash (a uint64) takes.
const maxHashBytes = 9

// checkPoint is what Put and PutAll refuse a point with an id for,
// before they write anything: coordinates out of range, an expiry out of
// range, or an id that could take a key of the point past
// keyspace.MaxKeySize, where whereLen is the length of its packed scope
// (one nested element) and maxHashBytes for its hash, the most a hash
// takes. It returns the expiry as stored (0 for none). Its errors name
// the point.
//
// The longest key of a point is its key, (grid subspace, (scope…), hash,
// id): the reverse entry, (ids subspace, id), is shorter by whereLen, and
// the expiry entry, (expiry subspace, expiry, id), by at least the
// nested scope's two bytes, as the three subspaces are of one length.
func (ix *Index) checkPoint(p *Point, whereLen int) (int64, error) {
	if err := validate(p.Lat, p.Lon); err != nil {
		return 0, fmt.Errorf("point %s: %w", errctx.Quote(p.ID), errctx.Bare("geo", err))
	}
	expires, err := expiryOf(p.Expires)
	if err != nil {
		return 0, fmt.Errorf("point %s: %w", errctx.Quote(p.ID), errctx.Bare("geo", err))
	}
	fixed := len(ix.points[geohashGrid].Bytes()) + whereLen
	// A string packs into at most two bytes a byte and two more (each
	// zero byte escaped, a code and a terminator): pack only a long id.
	if fixed+2*len(p.ID)+2 > keyspace.MaxKeySize {
		if n := fixed + len(composite.Tuple{p.ID}.Pack()); n > keyspace.MaxKeySize {
			return 0, fmt.Errorf("point %s: %w: its key takes up to %d bytes (the most is %d)",
				errctx.Quote(p.ID), errctx.Bare("keyspace", keyspace.ErrKeyTooLarge), n, keyspace.MaxKeySize)
		}
	}
	return expires, nil
}

// Get returns the point with the given id, or an error wrapping
// keyspace.ErrNotFound (also once the point has expired).
func (ix *Index) Get(tx keyspace.Tx, id string) (Point, error) {
	g, key, expires, err := ix.pointKey(tx, id)
	if err != nil {
		return Point{}, err
	}
	if expires != 0 && expires <= time.Now().UnixNano() {
		return Point{}, ix.wrap(fmt.Errorf("point %s: %w (expired)", errctx.Quote(id), errctx.Bare("keyspace", keyspace.ErrNotFound)))
	}
	return ix.read(tx, id, g, key)
}

// read returns the point id whose key in grid g its reverse entry gave.
func (ix *Index) read(tx keyspace.Tx, id string, g grid, key []byte) (Point, error) {
	v, err := tx.Get(key)
	if err != nil {
		return Point{}, ix.wrap(fmt.Errorf("point %s: %w (index out of step)", errctx.Quote(id), err))
	}
	return ix.decode(g, key, v)
}

// Update is read-modify-write of the point id: fn changes a copy of it
// (its payload's fields, as Tile38's FSET and JSET do, or its place, its
// scope or its expiry) and the result is put back in the caller's
// transaction, keeping whatever fn leaves as it was: a point that expires
// still does, at the same instant. A point that does not exist, or has
// expired, is an error wrapping keyspace.ErrNotFound and fn is not
// called. An error from fn, or a point Put refuses (ErrInvalidPoint, say),
// writes nothing and is returned; fn must leave the id as it is. It
// returns the point as written.
func (ix *Index) Update(tx keyspace.Tx, id string, fn func(p *Point) error) (Point, error) {
	p, err := ix.Get(tx, id)
	if err != nil {
		return Point{}, err
	}
	if err := fn(&p); err != nil {
		return Point{}, err
	}
	if p.ID != id {
		return Point{}, ix.wrap(fmt.Errorf("point %s: Update may not change its id (to %s)", errctx.Quote(id), errctx.Quote(p.ID)))
	}
	if err := ix.Put(tx, p); err != nil {
		return Point{}, err
	}
	return p, nil
}

// Delete removes the point with the given id; a missing id is not an error.
func (ix *Index) Delete(tx keyspace.Tx, id string) error {
	if id == "" {
		return ix.wrap(ErrEmptyID)
	}
	return ix.deleteKey(tx, id)
}

// pointKey reads the reverse entry of id and returns the point's grid, key
// and expiry (0 for none).
func (ix *Index) pointKey(tx keyspace.Tx, id string) (grid, []byte, int64, error) {
	if id == "" {
		return 0, nil, 0, ix.wrap(ErrEmptyID)
	}
	v, err := tx.Get(ix.ids.Pack(composite.Tuple{id}))
	if err != nil {
		return 0, nil, 0, ix.wrap(fmt.Errorf("point %s: %w", errctx.Quote(id), err))
	}
	return ix.keyOf(id, v)
}

// keyOf returns the grid, key and expiry (0 for none) of the point id,
// from its reverse entry's value.
func (ix *Index) keyOf(id string, where []byte) (grid, []byte, int64, error) {
	g, packed := parseWhere(where)
	t, err := composite.Unpack(packed)
	if err == nil && len(t) != 2 && len(t) != 3 {
		err = fmt.Errorf("%d elements", len(t))
	}
	var expires int64
	if err == nil && len(t) == 3 {
		if expires, err = expiryElement(t[2]); err == nil {
			t = t[:2]
		}
	}
	if err != nil {
		return 0, nil, 0, ix.wrap(fmt.Errorf("point %s: corrupt reverse entry: %w", errctx.Quote(id), err))
	}
	return g, ix.points[g].Pack(append(t, id)), expires, nil
}

func (ix *Index) deleteKey(tx keyspace.Tx, id string) error {
	_, key, expires, err := ix.pointKey(tx, id)
	if errors.Is(err, keyspace.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	return ix.deletePoint(tx, id, key, expires)
}

// deletePoint deletes the point id, whose key and expiry its reverse entry
// gave, with its reverse and expiry entries.
func (ix *Index) deletePoint(tx keyspace.Tx, id string, key []byte, expires int64) error {
	if err := tx.Delete(key); err != nil {
		return ix.wrap(err)
	}
	if expires != 0 {
		if err := tx.Delete(ix.expiryKey(expires, id)); err != nil {
			return ix.wrap(err)
		}
	}
	return tx.Delete(ix.ids.Pack(composite.Tuple{id}))
}

// The value's flags byte, after the coordinates.
const (
	valueExpires byte = 1 << iota // an expiry follows the flags
	valueFlags                    // the first flag no value has: a flags byte at or above it is damage (or a newer format)
)

// appendValue appends a point's value to dst: lat and lon as IEEE bits,
// the flags byte, the expiry (nanoseconds since 1970) if not 0, then the
// payload.
func appendValue(dst []byte, p *Point, expires int64) []byte {
	dst = binary.BigEndian.AppendUint64(dst, math.Float64bits(p.Lat))
	dst = binary.BigEndian.AppendUint64(dst, math.Float64bits(p.Lon))
	if expires != 0 {
		dst = binary.BigEndian.AppendUint64(append(dst, valueExpires), uint64(expires))
	} else {
		dst = append(dst, 0)
	}
	return append(dst, p.Payload...)
}

// valueSize is the length of p's value.
func valueSize(p *Point, expires int64) int {
	if expires != 0 {
		return 25 + len(p.Payload)
	}
	return 17 + len(p.Payload)
}

// valueCoords reads the coordinates from a point's value (at least 16
// bytes).
func valueCoords(v []byte) (lat, lon float64) {
	return math.Float64frombits(binary.BigEndian.Uint64(v)), math.Float64frombits(binary.BigEndian.Uint64(v[8:]))
}

// valueRest reads what follows the coordinates in a point's value: its
// expiry (0 for none) and its payload.
func valueRest(v []byte) (expires int64, payload []byte, err error) {
	switch {
	case len(v) < 17:
		return 0, nil, fmt.Errorf("%d bytes, fewer than a point's 17", len(v))
	case v[16] >= valueFlags:
		return 0, nil, fmt.Errorf("unknown flags %#x", v[16])
	case v[16]&valueExpires == 0:
		return 0, v[17:], nil
	case len(v) < 25:
		return 0, nil, fmt.Errorf("%d bytes, fewer than an expiring point's 25", len(v))
	}
	expires = int64(binary.BigEndian.Uint64(v[17:]))
	if expires <= 0 {
		return 0, nil, fmt.Errorf("expiry %d is not after 1970", expires)
	}
	return expires, v[25:], nil
}

// decode rebuilds a point from its key in grid g and its value, copying
// out of the transaction.
func (ix *Index) decode(g grid, key, v []byte) (Point, error) {
	t, err := ix.points[g].Unpack(key)
	if err != nil || len(t) != 3 {
		return Point{}, ix.wrap(fmt.Errorf("corrupt point key %q: %v", key, err))
	}
	expires, payload, err := valueRest(v)
	if err != nil {
		return Point{}, ix.wrap(fmt.Errorf("corrupt point value under key %q: %w", key, err))
	}
	scope, okScope := t[0].(composite.Tuple)
	id, ok := t[2].(string)
	if !ok || !okScope {
		return Point{}, ix.wrap(fmt.Errorf("corrupt point key %q: scope is %T, id is %T", key, t[0], t[2]))
	}
	p := Point{ID: id}
	p.Lat, p.Lon = valueCoords(v)
	if len(scope) > 0 {
		p.Scope = scope
	}
	if len(payload) > 0 {
		p.Payload = bytes.Clone(payload)
	}
	if expires != 0 {
		p.Expires = time.Unix(0, expires)
	}
	return p, nil
}

// Empty reports whether the index holds no points.
func (ix *Index) Empty(tx keyspace.Tx) (bool, error) {
	r := ix.ids.Range()
	r.Limit = 1
	for range tx.Scan(r) {
		return false, nil
	}
	if err := tx.Err(); err != nil {
		return false, ix.wrap(err)
	}
	return true, nil
}
