package geo

import (
	"bytes"
	"cmp"
	"slices"
)

// sortHits returns the order of recs by distance, then id (the bytes
// rec.id spans in ids): sort keys whose i fields index recs.
//
// Records are wide, so it sorts narrow (key, index) pairs. The key is the
// distance's IEEE bits: for non-negative floats the bits order as the
// numbers do. Many results (a 10 km radius in a city returns thousands) are
// sorted by an LSD radix sort, a byte at a time, skipping the bytes every
// key shares; it costs a few passes over the pairs instead of n log n
// comparisons. Equal distances, which the radix sort leaves in scan order,
// are then ordered by id.
func sortHits(recs []hit, ids []byte) []sortKey {
	n := len(recs)
	keys := make([]sortKey, n)
	var differ uint64 // the bits in which some key differs from the first
	for i := range recs {
		keys[i] = sortKey{recs[i].distanceBits, int32(i)}
		differ |= keys[i].bits ^ keys[0].bits
	}
	if n < radixMin {
		slices.SortFunc(keys, func(a, b sortKey) int { return cmp.Compare(a.bits, b.bits) })
	} else {
		keys = radixSort(keys, differ)
	}
	id := func(k sortKey) []byte { r := &recs[k.i]; return ids[r.id[0]:r.id[1]] }
	for i := 0; i < n; {
		j := i + 1
		for j < n && keys[j].bits == keys[i].bits {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(keys[i:j], func(a, b sortKey) int { return bytes.Compare(id(a), id(b)) })
		}
		i = j
	}
	return keys
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
