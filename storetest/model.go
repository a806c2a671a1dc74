package storetest

import (
	"bytes"
	"slices"

	"github.com/keyspacedb/keyspace"
)

// Model is the reference the backends are checked against: a plain map plus
// a sort on every scan. It is deliberately naive so that it is obviously
// right.
type Model map[string]string

// Clone returns a copy of m.
func (m Model) Clone() Model {
	c := make(Model, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// Pair is one key/value pair of a scan result.
type Pair struct{ Key, Value string }

// Scan returns what keyspace.Tx.Scan(r) must yield.
func (m Model) Scan(r keyspace.Range) []Pair {
	keys := make([]string, 0, len(m))
	for k := range m {
		if r.Start != nil && bytes.Compare([]byte(k), r.Start) < 0 {
			continue
		}
		if r.End != nil && bytes.Compare([]byte(k), r.End) >= 0 {
			continue
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if r.Reverse {
		slices.Reverse(keys)
	}
	if r.Limit > 0 && len(keys) > r.Limit {
		keys = keys[:r.Limit]
	}
	out := make([]Pair, len(keys))
	for i, k := range keys {
		out[i] = Pair{k, m[k]}
	}
	return out
}

// DeleteRange applies keyspace.Tx.DeleteRange(r) to m.
func (m Model) DeleteRange(r keyspace.Range) int {
	r.Reverse = false
	pairs := m.Scan(r)
	for _, p := range pairs {
		delete(m, p.Key)
	}
	return len(pairs)
}

// Collect runs tx.Scan(r) and returns its pairs as strings.
func Collect(tx keyspace.Tx, r keyspace.Range) ([]Pair, error) {
	var out []Pair
	for k, v := range tx.Scan(r) {
		out = append(out, Pair{string(k), string(v)})
	}
	return out, tx.Err()
}

// collector is a keyspace.Visitor that gathers pairs, stopping after stop
// of them when stop is positive.
type collector struct {
	pairs []Pair
	stop  int
}

func (c *collector) Visit(k, v []byte) bool {
	c.pairs = append(c.pairs, Pair{string(k), string(v)})
	return c.stop <= 0 || len(c.pairs) < c.stop
}

// CollectVisited runs keyspace.VisitRange(tx, r, …) and returns the pairs
// visited, stopping after stop of them when stop is positive.
func CollectVisited(tx keyspace.Tx, r keyspace.Range, stop int) ([]Pair, error) {
	c := &collector{stop: stop}
	err := keyspace.VisitRange(tx, r, c)
	return c.pairs, err
}

// indexedCollector is a keyspace.RangesVisitor that gathers pairs with the
// index of their range, stopping after stop of them when stop is positive.
type indexedCollector struct {
	pairs []IndexedPair
	stop  int
}

// IndexedPair is a pair visited by VisitRanges, with its range's index.
type IndexedPair struct {
	Range int
	Pair
}

func (c *indexedCollector) VisitIn(i int, k, v []byte) bool {
	c.pairs = append(c.pairs, IndexedPair{i, Pair{string(k), string(v)}})
	return c.stop <= 0 || len(c.pairs) < c.stop
}

// CollectVisitedRanges runs keyspace.VisitRanges(tx, rs, …) and returns
// the pairs visited, stopping after stop of them when stop is positive.
func CollectVisitedRanges(tx keyspace.Tx, rs []keyspace.Range, stop int) ([]IndexedPair, error) {
	c := &indexedCollector{stop: stop}
	err := keyspace.VisitRanges(tx, rs, c)
	return c.pairs, err
}

// ScanRanges is what VisitRanges must visit: each range's pairs in turn,
// with its index.
func (m Model) ScanRanges(rs []keyspace.Range) []IndexedPair {
	var out []IndexedPair
	for i, r := range rs {
		for _, p := range m.Scan(r) {
			out = append(out, IndexedPair{i, p})
		}
	}
	return out
}
