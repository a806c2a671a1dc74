package geo

import (
	"fmt"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
)

// Scan calls fn with the index's points in id order, starting after the
// id after ("" for the first), until fn returns false or the points run
// out: the listing that Tile38's SCAN and Redis's ZRANGE over a GEO key
// give. To page through an index, pass the last id a call gave as the
// next call's after; ids need not exist to be passed.
//
// It walks the reverse entries, ("g", name, "i", id), which sort by id,
// and reads each point's key from there, so a point costs two reads, as
// Get does. Points are copied out of the transaction; fn may write to tx
// (the walk resumes after the id it last gave).
func (ix *Index) Scan(tx keyspace.Tx, after string, fn func(Point) bool) error {
	r := ix.ids.Range()
	if after != "" {
		// The key of after followed by a zero byte is the least key past
		// it, so no other id's entry lies between.
		r.Start = append(ix.ids.Pack(composite.Tuple{after}), 0)
	}
	for k, where := range tx.Scan(r) {
		t, err := ix.ids.Unpack(k)
		id, ok := "", len(t) == 1
		if ok {
			id, ok = t[0].(string)
		}
		if err != nil || !ok {
			return ix.wrap(fmt.Errorf("corrupt reverse entry key %q: %v", k, err))
		}
		g, key, err := ix.keyOf(id, where)
		if err != nil {
			return err
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
