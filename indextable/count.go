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

// GroupCounts counts the index's entries under prefix (leading components
// of their values) by the first depth components of their keys, value
// first: depth 1 over an index on (timezone) gives records per timezone,
// SQL's GROUP BY read from the index, without reading a record. It
// leaves out the entries of records that have expired by the table's
// clock, as Scan does; a group whose entries have all expired is left
// out. Groups come in index order (a composite.Desc component's in
// descending order).
//
// A record counts once under each value it has: twice under a multikey
// index over an array of two elements, and not at all where Values gives
// it none (a record without the field, or left out of a partial index).
// An index whose Build is pending counts only the records built so far.
//
// It reads every entry under prefix, key and value (an entry's value
// holds its record's expiry), and decodes one key per group.
func (ix *Index[R]) GroupCounts(tx keyspace.Tx, prefix composite.Tuple, depth int) ([]composite.GroupCount, error) {
	if depth < len(prefix) {
		return nil, ix.wrap(fmt.Errorf("group depth %d is shallower than the prefix %v", depth, prefix))
	}
	if _, err := ix.sub.TryPack(prefix); err != nil {
		return nil, ix.wrap(err)
	}
	clock := ix.t.clock()
	skip := len(ix.sub.Bytes())
	var out []composite.GroupCount
	var group []byte // the packed group of the last entry counted, subspace left out
	for k, v := range tx.Scan(ix.sub.RangeOf(prefix)) {
		n, live, err := ix.entryGroup(k, v, skip, depth, &clock)
		if err != nil {
			return nil, err
		}
		if !live {
			continue
		}
		rest := k[skip:]
		if len(out) > 0 && bytes.Equal(rest[:n], group) {
			out[len(out)-1].Count++
			continue
		}
		t, err := composite.Unpack(rest[:n])
		if err != nil {
			return nil, ix.wrap(fmt.Errorf("%w: entry %q: %v", keyspace.ErrCorrupt, k, err))
		}
		group = append(group[:0], rest[:n]...)
		out = append(out, composite.GroupCount{Group: t, Count: 1})
	}
	if err := tx.Err(); err != nil {
		return nil, ix.wrap(err)
	}
	return out, nil
}

// Distinct lists the distinct groups of the first depth components of
// the index's entries under prefix (leading components of their values),
// in index order, at most limit of them (0: all): SELECT DISTINCT, read
// as MongoDB's DISTINCT_SCAN reads it. Past a group's first entries it
// seeks to the next group rather than reading on, so a group costs a
// seek and a few entries however many it holds (a group of few entries
// is read through, cheaper than a seek). Entries of records that have
// expired are left out, as Scan leaves them out, and so is a group that
// holds only such entries, which are read one by one (until DeleteExpired
// deletes them) until a live one is found.
func (ix *Index[R]) Distinct(tx keyspace.Tx, prefix composite.Tuple, depth, limit int) ([]composite.Tuple, error) {
	if depth < len(prefix) {
		return nil, ix.wrap(fmt.Errorf("distinct depth %d is shallower than the prefix %v", depth, prefix))
	}
	if limit < 0 {
		return nil, ix.wrap(fmt.Errorf("negative limit %d", limit))
	}
	if _, err := ix.sub.TryPack(prefix); err != nil {
		return nil, ix.wrap(err)
	}
	// readOn is how many entries of a group are read through before
	// seeking past it: a seek costs what 20 to 30 entries read do
	// (BenchmarkDistinct: past 16, groups of 20 took 1.4 times as long
	// in memory and 2 times on bbolt as past 32).
	const readOn = 32
	clock := ix.t.clock()
	skip := len(ix.sub.Bytes())
	r := ix.sub.RangeOf(prefix)
	var out []composite.Tuple
	var group []byte // the last group's packed components, subspace included
	for {
		seek := false
		steps := 0
		for k, v := range tx.Scan(r) {
			// A key goes on from its group's bytes with another component,
			// never with 0xff, which continues a longer text (composite's
			// escape): another group.
			if group != nil && bytes.HasPrefix(k, group) && (len(k) == len(group) || k[len(group)] != 0xff) {
				if steps++; steps > readOn {
					seek = true
					break
				}
				continue
			}
			n, live, err := ix.entryGroup(k, v, skip, depth, &clock)
			if err != nil {
				return nil, err
			}
			if !live {
				continue
			}
			g, err := composite.Unpack(k[skip : skip+n])
			if err != nil {
				return nil, ix.wrap(fmt.Errorf("%w: entry %q: %v", keyspace.ErrCorrupt, k, err))
			}
			if out = append(out, g); limit > 0 && len(out) == limit {
				break
			}
			group, steps = bytes.Clone(k[:skip+n]), 0
		}
		if err := tx.Err(); err != nil {
			return nil, ix.wrap(err)
		}
		if !seek {
			return out, nil
		}
		// Past the group's entries: the first key after them that goes on
		// from its bytes is a longer text's, with 0xff.
		r.Start = append(bytes.Clone(group), 0xff)
		if r.End != nil && bytes.Compare(r.Start, r.End) >= 0 {
			return out, nil
		}
	}
}

// entryGroup reads the entry k, v for GroupCounts and Distinct: the
// length of its key's first depth components after the index's subspace,
// skip bytes long (fewer components when the key has fewer), and whether
// its record is live by clock (an entry holds its record's expiry).
func (ix *Index[R]) entryGroup(k, v []byte, skip, depth int, clock *expiry.Clock) (n int, live bool, err error) {
	_, expires, _, err := splitEntry(v)
	if err != nil {
		return 0, false, ix.wrap(fmt.Errorf("%w: entry %q: %v", keyspace.ErrCorrupt, k, err))
	}
	rest := k[skip:]
	for i := 0; i < depth && n < len(rest); i++ {
		elem, _, err := composite.NextElement(rest[n:])
		if err != nil {
			return 0, false, ix.wrap(fmt.Errorf("%w: entry %q: %v", keyspace.ErrCorrupt, k, err))
		}
		n += len(elem)
	}
	return n, !clock.Expired(expires), nil
}
