package indextable

import (
	"bytes"
	"errors"
	"fmt"
	"slices"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/internal/expiry"
)

// GroupCounts counts the table's records under prefix by the first depth
// elements of their keys, as composite.GroupCounts counts keys (users per
// state; under ("CA"), per city), leaving out the records that have
// expired by the table's clock, as Get and Scan do. Groups come in key
// order; a group whose records have all expired is left out.
//
// It reads every key under prefix, not the records, and then the records
// of the expiry entries due (expiry.DueBy): an expired record costs one
// read until DeleteExpired deletes it, and a table with none due costs
// one empty seek more than counting keys. An entry whose record does not
// expire then (which Verify reports) subtracts nothing.
func (t *Table[R]) GroupCounts(tx keyspace.Tx, prefix composite.Tuple, depth int) ([]composite.GroupCount, error) {
	groups, err := composite.GroupCounts(tx, t.records, prefix, depth)
	if err != nil {
		return nil, t.wrap(err)
	}
	base, err := t.records.TryPack(prefix)
	if err != nil {
		return nil, t.wrap(err)
	}
	clock := t.clock()
	removed := false
	for k := range tx.Scan(expiry.DueBy(t.expiry, expiry.Time(clock.Nanos()))) {
		expires, pk, err := t.parseExpiryKey(k)
		if err != nil {
			return nil, t.wrap(err)
		}
		key, err := t.recordKey(pk)
		if err != nil {
			return nil, err
		}
		if !bytes.HasPrefix(key, base) {
			continue
		}
		v, err := tx.Get(key)
		if errors.Is(err, keyspace.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, t.wrap(err)
		}
		_, e, _, err := splitRecordValue(v)
		if err != nil {
			return nil, t.wrap(fmt.Errorf("%w: record %v: %v", keyspace.ErrCorrupt, pk, err))
		}
		if e != expires {
			continue // a stale entry: Verify's to report
		}
		group := pk[:min(depth, len(pk))]
		i, found := slices.BinarySearchFunc(groups, group, func(g composite.GroupCount, want composite.Tuple) int {
			return bytes.Compare(g.Group.Pack(), want.Pack())
		})
		if found {
			groups[i].Count--
			removed = removed || groups[i].Count == 0
		}
	}
	if err := tx.Err(); err != nil {
		return nil, t.wrap(err)
	}
	if removed {
		groups = slices.DeleteFunc(groups, func(g composite.GroupCount) bool { return g.Count <= 0 })
	}
	return groups, nil
}
