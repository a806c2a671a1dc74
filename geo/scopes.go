package geo

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/internal/expiry"
)

// ScopeCount is one scope of an index and the points under it.
type ScopeCount struct {
	Scope  composite.Tuple // nil for the points put under no scope
	Points int
}

// Scopes lists the scopes that the index's points are under, in key order
// (nil, for points put under no scope, first), at most limit of them (all
// for limit ≤ 0), as Tile38's KEYS lists collections. A query names its
// scope exactly, so this is how a program or a user who imported with
// scope columns finds what to ask for.
//
// It reads one key per scope and grid: after each scope it seeks past the
// scope's whole key range, so a scope of a million points costs what one
// of a single point does, and listing the first few of a million scopes
// costs a few seeks. It reads keys, not points: a scope whose points have
// all expired is listed until DeleteExpired deletes them.
func (ix *Index) Scopes(tx keyspace.Tx, limit int) ([]composite.Tuple, error) {
	var walks [3]scopeWalk
	for g := range walks {
		walks[g] = scopeWalk{prefix: ix.points[g].Bytes(), r: ix.points[g].Range()}
		if err := walks[g].next(tx); err != nil {
			return nil, ix.wrap(err)
		}
	}
	var out []composite.Tuple
	for limit <= 0 || len(out) < limit {
		// The least scope that any grid is at is the next: every grid
		// at it moves on past it.
		var least *scopeWalk
		for g := range walks {
			if w := &walks[g]; !w.done && (least == nil || bytes.Compare(w.elem, least.elem) < 0) {
				least = w
			}
		}
		if least == nil {
			break
		}
		out = append(out, least.scope)
		elem := least.elem
		for g := range walks {
			if w := &walks[g]; !w.done && bytes.Equal(w.elem, elem) {
				if err := w.next(tx); err != nil {
					return nil, ix.wrap(err)
				}
			}
		}
	}
	return out, nil
}

// A scopeWalk steps through the scopes of one grid's point keys, a seek
// each: elem is the packed scope element (the nested tuple) it is at, and
// scope that tuple (nil for none), until done.
type scopeWalk struct {
	prefix []byte         // the grid's subspace
	r      keyspace.Range // the keys not yet passed
	elem   []byte
	scope  composite.Tuple
	done   bool
}

// next moves w to the first scope after the one it is at.
func (w *scopeWalk) next(tx keyspace.Tx) error {
	r := w.r
	r.Limit = 1
	found := false
	for k := range tx.Scan(r) {
		elem, _, err := composite.NextElement(k[len(w.prefix):])
		if err != nil {
			return fmt.Errorf("corrupt point key %q: %w", k, err)
		}
		t, err := composite.Unpack(elem)
		if err != nil {
			return fmt.Errorf("corrupt point key %q: %w", k, err)
		}
		scope, err := scopeOf(t)
		if err != nil {
			return fmt.Errorf("corrupt point key %q: %w", k, err)
		}
		w.elem, w.scope, found = bytes.Clone(elem), scope, true
		// Past every key of the scope: a nested tuple's packed bytes end
		// in 0x00, so no key under it continues with 0xFF.
		w.r.Start = append(append(bytes.Clone(w.prefix), elem...), 0xFF)
	}
	if err := tx.Err(); err != nil {
		return err
	}
	w.done = !found
	return nil
}

// ScopeCounts is Scopes with the number of points under each scope,
// leaving out the points that have expired by the clock (as queries, Get
// and Scan do) and the scopes all of whose points have. It reads every
// point key of the index (composite.GroupCounts), then the reverse entry
// of each point whose expiry entry is due: an expired point costs one
// read until DeleteExpired deletes it.
func (ix *Index) ScopeCounts(tx keyspace.Tx) ([]ScopeCount, error) {
	var found []ScopeCount
	for g := range ix.points {
		groups, err := composite.GroupCounts(tx, ix.points[g], nil, 1)
		if err != nil {
			return nil, ix.wrap(err)
		}
		for _, gc := range groups {
			scope, err := scopeOf(gc.Group)
			if err != nil {
				return nil, ix.wrap(fmt.Errorf("corrupt point key: %w", err))
			}
			found = append(found, ScopeCount{Scope: scope, Points: gc.Count})
		}
	}
	counts := mergeScopes(found)
	at := map[string]int{} // a scope's place in counts, by its packed tuple
	for i, c := range counts {
		at[string(composite.Tuple{scopeTuple(c.Scope)}.Pack())] = i
	}
	removed := false
	for k := range tx.Scan(expiry.DueBy(ix.expiry, time.Now())) {
		expires, id, err := ix.parseExpiryKey(k)
		if err != nil {
			return nil, ix.wrap(err)
		}
		g, key, stored, err := ix.pointKey(tx, id)
		if errors.Is(err, keyspace.ErrNotFound) || err == nil && stored != expires {
			continue // a stale entry: Verify's to report
		}
		if err != nil {
			return nil, err
		}
		t, err := ix.points[g].Unpack(key)
		if err != nil {
			return nil, ix.wrap(fmt.Errorf("corrupt point key: %w", err))
		}
		if i, ok := at[string(composite.Tuple{t[0]}.Pack())]; ok {
			counts[i].Points--
			removed = removed || counts[i].Points == 0
		}
	}
	if err := tx.Err(); err != nil {
		return nil, ix.wrap(err)
	}
	if removed {
		counts = slices.DeleteFunc(counts, func(c ScopeCount) bool { return c.Points <= 0 })
	}
	return counts, nil
}

// scopeOf is the scope a point key's first element names: group holds
// that element, a nested tuple (empty for no scope, which is nil here as
// it is in Point.Scope).
func scopeOf(group composite.Tuple) (composite.Tuple, error) {
	scope, ok := group[0].(composite.Tuple)
	if !ok {
		return nil, fmt.Errorf("scope is %T, not a tuple", group[0])
	}
	if len(scope) == 0 {
		return nil, nil
	}
	return scope, nil
}

// mergeScopes orders the counts of scopes found in the three grids as
// their keys sort and adds up repeats (a scope with points in a polar cap
// and between the caps is counted by both grids).
func mergeScopes(counts []ScopeCount) []ScopeCount {
	type packed struct {
		key []byte
		ScopeCount
	}
	all := make([]packed, len(counts))
	for i, c := range counts {
		all[i] = packed{key: composite.Tuple{scopeTuple(c.Scope)}.Pack(), ScopeCount: c}
	}
	slices.SortStableFunc(all, func(a, b packed) int { return bytes.Compare(a.key, b.key) })
	var out []ScopeCount
	for i, p := range all {
		if i > 0 && bytes.Equal(p.key, all[i-1].key) {
			out[len(out)-1].Points += p.Points
			continue
		}
		out = append(out, p.ScopeCount)
	}
	return out
}
