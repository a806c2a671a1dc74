package geo

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
)

// ScopeCount is one scope of an index and the points under it.
type ScopeCount struct {
	Scope  composite.Tuple // nil for the points put under no scope
	Points int
}

// Scopes lists the scopes that the index's points are under, in key order
// (nil, for points put under no scope, first), as Tile38's KEYS lists
// collections. A query names its scope exactly, so this is how a program
// or a user who imported with scope columns finds what to ask for.
//
// It reads one key per scope and grid: after each scope it seeks past the
// scope's whole key range (composite.Groups), so it costs the same for a
// scope of one point as for one of a million.
func (ix *Index) Scopes(tx keyspace.Tx) ([]composite.Tuple, error) {
	var found []composite.Tuple
	for g := range ix.points {
		groups, err := composite.Groups(tx, ix.points[g], nil, 1)
		if err != nil {
			return nil, ix.wrap(err)
		}
		for _, t := range groups {
			scope, err := ix.scopeOf(t)
			if err != nil {
				return nil, err
			}
			found = append(found, scope)
		}
	}
	counts := mergeScopes(found, nil)
	out := make([]composite.Tuple, len(counts))
	for i, c := range counts {
		out[i] = c.Scope
	}
	return out, nil
}

// ScopeCounts is Scopes with the number of points under each scope. It
// reads every point key of the index (composite.GroupCounts); the counts
// add up to the index's points.
func (ix *Index) ScopeCounts(tx keyspace.Tx) ([]ScopeCount, error) {
	var found []composite.Tuple
	var points []int
	for g := range ix.points {
		groups, err := composite.GroupCounts(tx, ix.points[g], nil, 1)
		if err != nil {
			return nil, ix.wrap(err)
		}
		for _, gc := range groups {
			scope, err := ix.scopeOf(gc.Group)
			if err != nil {
				return nil, err
			}
			found = append(found, scope)
			points = append(points, gc.Count)
		}
	}
	return mergeScopes(found, points), nil
}

// scopeOf is the scope a point key's first element names: group holds
// that element, a nested tuple (empty for no scope, which is nil here as
// it is in Point.Scope).
func (ix *Index) scopeOf(group composite.Tuple) (composite.Tuple, error) {
	scope, ok := group[0].(composite.Tuple)
	if !ok {
		return nil, ix.wrap(fmt.Errorf("corrupt point key: scope is %T, not a tuple", group[0]))
	}
	if len(scope) == 0 {
		return nil, nil
	}
	return scope, nil
}

// mergeScopes orders scopes found in the three grids as their keys sort
// and merges repeats (a scope with points in a polar cap and between the
// caps is listed by both grids), adding up their points when points holds
// one count per scope (nil: no counts).
func mergeScopes(scopes []composite.Tuple, points []int) []ScopeCount {
	type packed struct {
		key []byte
		ScopeCount
	}
	all := make([]packed, len(scopes))
	for i, s := range scopes {
		all[i] = packed{key: composite.Tuple{scopeTuple(s)}.Pack(), ScopeCount: ScopeCount{Scope: s}}
		if points != nil {
			all[i].Points = points[i]
		}
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
