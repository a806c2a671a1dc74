package geo

import (
	"bytes"
	"fmt"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
)

// Scan calls fn with the index's points in id order, starting after the
// id after ("" for the first), until fn returns false or the points run
// out: the listing that Tile38's SCAN gives (Redis's ZRANGE over a GEO
// key lists its members by geohash, not by name). To page through an
// index, pass the last id a call gave as the next call's after; ids need
// not exist to be passed.
//
// It walks the reverse entries, ("g", name, "i", id), which sort by id,
// and reads each point's key from there, so a point costs two reads, as
// Get does. Points that have expired are left out. Points are copied out
// of the transaction; fn may write to tx (the walk resumes after the id it
// last gave).
func (ix *Index) Scan(tx keyspace.Tx, after string, fn func(Point) bool) error {
	return ix.scan(tx, nil, after, false, fn)
}

// ScanReverse is Scan in descending id order, starting before the id
// before ("" for the last): Tile38's SCAN … DESC.
// To page backwards, pass the last id a call gave as the next call's
// before.
func (ix *Index) ScanReverse(tx keyspace.Tx, before string, fn func(Point) bool) error {
	return ix.scan(tx, nil, before, true, fn)
}

// ScanScope is Scan of the points under one scope (nil for the points put
// under none). It still walks every reverse entry, but a reverse entry
// names its point's scope, so a point of another scope costs one read,
// not two. (A scope's own key ranges hold its points in hash order, not
// id order.)
func (ix *Index) ScanScope(tx keyspace.Tx, scope composite.Tuple, after string, fn func(Point) bool) error {
	return ix.scanScope(tx, scope, after, false, fn)
}

// ScanScopeReverse is ScanScope in descending id order, starting before
// the id before ("" for the last).
func (ix *Index) ScanScopeReverse(tx keyspace.Tx, scope composite.Tuple, before string, fn func(Point) bool) error {
	return ix.scanScope(tx, scope, before, true, fn)
}

// scanScope is scan of the points under scope, packed as their reverse
// entries name it.
func (ix *Index) scanScope(tx keyspace.Tx, scope composite.Tuple, from string, reverse bool, fn func(Point) bool) error {
	elem, err := composite.Tuple{scopeTuple(scope)}.TryPack()
	if err != nil {
		return ix.wrap(fmt.Errorf("%w: scope %v: %w", ErrBadQuery, scope, err))
	}
	return ix.scan(tx, elem, from, reverse, fn)
}

// scan is Scan (or, reverse, ScanReverse) of the points whose reverse
// entries' packed ((scope…), hash) start with scope, the packed scope
// element (nil: every point), from the id from on ("" for the first, or
// the last).
func (ix *Index) scan(tx keyspace.Tx, scope []byte, from string, reverse bool, fn func(Point) bool) error {
	r := ix.ids.Range()
	r.Reverse = reverse
	switch {
	case from != "" && reverse:
		// The range's end is exclusive: from's own entry is left out.
		r.End = ix.ids.Pack(composite.Tuple{from})
	case from != "":
		// The key of from followed by a zero byte is the least key past
		// it, so no other id's entry lies between.
		r.Start = append(ix.ids.Pack(composite.Tuple{from}), 0)
	}
	var now int64 // read from the clock at the first point with an expiry
	for k, where := range tx.Scan(r) {
		if _, packed := parseWhere(where); scope != nil && !bytes.HasPrefix(packed, scope) {
			continue
		}
		t, err := ix.ids.Unpack(k)
		id, ok := "", len(t) == 1
		if ok {
			id, ok = t[0].(string)
		}
		if err != nil || !ok {
			return ix.wrap(fmt.Errorf("corrupt reverse entry key %q: %v", k, err))
		}
		g, key, expires, err := ix.keyOf(id, where)
		if err != nil {
			return err
		}
		if expires != 0 {
			if now == 0 {
				now = time.Now().UnixNano()
			}
			if expires <= now {
				continue // expired: Get would not find it either
			}
		}
		p, err := ix.read(tx, id, g, key)
		if err != nil {
			return err
		}
		if !fn(p) {
			return nil
		}
	}
	if err := tx.Err(); err != nil {
		return ix.wrap(err)
	}
	return nil
}
