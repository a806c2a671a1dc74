package geo

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// sortResults returns the results ordered by distance, then id, in a new
// slice (or rs itself when there are fewer than two).
//
// Results are wide (88 bytes), so it sorts narrow (key, index) pairs and
// permutes once. The key is the distance's IEEE bits: for non-negative
// floats the bits order as the numbers do. Many results (a 10 km radius
// in a city returns thousands) are sorted by an LSD radix sort, a byte at
// a time, skipping the bytes every key shares; it costs a few passes over
// the pairs instead of n log n comparisons. Equal distances, which the
// radix sort leaves in scan order, are then ordered by id.
func sortResults(rs []Result) []Result {
	n := len(rs)
	if n < 2 {
		return rs
	}
	keys := make([]sortKey, n)
	var differ uint64 // the bits in which some key differs from the first
	for i := range rs {
		keys[i] = sortKey{math.Float64bits(max(rs[i].Distance, 0)), int32(i)} // max turns -0 into +0
		differ |= keys[i].bits ^ keys[0].bits
	}
	if n < radixMin {
		slices.SortFunc(keys, func(a, b sortKey) int { return cmp.Compare(a.bits, b.bits) })
	} else {
		keys = radixSort(keys, differ)
	}
	for i := 0; i < n; {
		j := i + 1
		for j < n && keys[j].bits == keys[i].bits {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(keys[i:j], func(a, b sortKey) int { return strings.Compare(rs[a.i].ID, rs[b.i].ID) })
		}
		i = j
	}
	sorted := make([]Result, n)
	for i, k := range keys {
		sorted[i] = rs[k.i]
	}
	return sorted
}

// sortKey is a result's distance bits and its index.
type sortKey struct {
	bits uint64
	i    int32
}

// radixMin is where the radix sort starts to beat comparison sorting.
const radixMin = 128

// radixSort sorts keys by bits, stably, one byte per pass; a byte in which
// no key differs (differ has no bit set there) needs no pass. It returns
// the sorted slice, which is keys or a buffer of the same length.
func radixSort(keys []sortKey, differ uint64) []sortKey {
	buf := make([]sortKey, len(keys))
	for shift := 0; shift < 64; shift += 8 {
		if (differ>>shift)&0xff == 0 {
			continue
		}
		var start [257]int
		for _, k := range keys {
			start[(k.bits>>shift)&0xff+1]++
		}
		for b := 1; b < len(start); b++ {
			start[b] += start[b-1]
		}
		for _, k := range keys {
			b := (k.bits >> shift) & 0xff
			buf[start[b]] = k
			start[b]++
		}
		keys, buf = buf, keys
	}
	return keys
}
