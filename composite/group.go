package composite

import (
	"bytes"
	"fmt"

	"github.com/keyspacedb/keyspace"
)

// GroupCount is the number of keys that share one group prefix.
type GroupCount struct {
	Group Tuple // the first depth elements of the keys (after the subspace)
	Count int
}

// GroupCounts counts the keys of s under prefix by their first depth
// elements: depth 1 with an empty prefix gives users per state; depth 2
// under ("CA") gives users per city in CA. Groups come in key order.
//
// It decodes one key per group, not one per key: while keys share the
// current group's packed bytes, it only compares bytes. Keys shorter than
// depth form a group of their own.
func GroupCounts(tx keyspace.Tx, s Subspace, prefix Tuple, depth int) ([]GroupCount, error) {
	if depth < len(prefix) {
		return nil, fmt.Errorf("composite: group depth %d is shallower than the prefix %v", depth, prefix)
	}
	base, err := s.TryPack(prefix)
	if err != nil {
		return nil, fmt.Errorf("composite: group counts: prefix: %w", err)
	}
	var out []GroupCount
	var group []byte // packed group prefix, subspace included
	for k := range tx.Scan(tupleRange(base)) {
		if group != nil && hasTuplePrefix(k, group) {
			out[len(out)-1].Count++
			continue
		}
		t, n, err := decodePrefix(k[len(s.prefix):], depth)
		if err != nil {
			return nil, fmt.Errorf("composite: group counts: key %q: %w", k, err)
		}
		group = append(group[:0], k[:len(s.prefix)+n]...)
		out = append(out, GroupCount{Group: t, Count: 1})
	}
	return out, tx.Err()
}

// Groups lists the distinct groups of depth elements under prefix without
// counting them: after each group it seeks past the group's whole range, so
// it reads one key per group however many keys each holds.
func Groups(tx keyspace.Tx, s Subspace, prefix Tuple, depth int) ([]Tuple, error) {
	if depth < len(prefix) {
		return nil, fmt.Errorf("composite: group depth %d is shallower than the prefix %v", depth, prefix)
	}
	base, err := s.TryPack(prefix)
	if err != nil {
		return nil, fmt.Errorf("composite: groups: prefix: %w", err)
	}
	var out []Tuple
	r := tupleRange(base)
	for {
		r.Limit = 1
		var next []byte
		for k := range tx.Scan(r) {
			t, n, err := decodePrefix(k[len(s.prefix):], depth)
			if err != nil {
				return nil, fmt.Errorf("composite: groups: key %q: %w", k, err)
			}
			out = append(out, t)
			next = append(bytes.Clone(k[:len(s.prefix)+n]), escape) // past the group, not past its escaped continuations
		}
		if err := tx.Err(); err != nil || next == nil || (r.End != nil && bytes.Compare(next, r.End) >= 0) {
			return out, err
		}
		r.Start = next
	}
}

// decodePrefix decodes up to n elements from b and returns them with the
// number of bytes they took.
func decodePrefix(b []byte, n int) (Tuple, int, error) {
	t := make(Tuple, 0, n)
	pos := 0
	for len(t) < n && pos < len(b) {
		e, m, err := decodeElement(b[pos:], false, 0)
		if err != nil {
			return nil, 0, err
		}
		t = append(t, e)
		pos += m
	}
	return t, pos, nil
}
