package geo

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"math"
	"slices"
)

// sortHits returns the order of recs by distance, then id (the bytes
// rec.id spans in ids): sort keys whose i fields index recs, built in
// keys' storage or spare's (which it may outgrow), and the other of the
// two, for the caller to keep for the next sort.
//
// Records are wide, so it sorts narrow (key, index) pairs. A few dozen
// results, what a small query returns, are sorted by an insertion sort
// with the comparison inline on the distance's IEEE bits (for
// non-negative floats the bits order as the numbers do); a general sort
// calling back to compare was a tenth of a 1 km radius query.
//
// Many results (a 10 km radius in a city returns thousands) are sorted by
// an LSD radix sort, a byte at a time, skipping the bytes every key
// shares, on a 32-bit key: the distance scaled to [0, 2³¹] by the largest
// one. Scaling is monotone, so the keys order as the distances do, up to
// distances that share a key (those within a two-billionth of the largest
// of each other, or equal), which are then sorted by distance and id. It
// costs four passes over the pairs, where the distance's 64 bits cost
// eight, and a comparison sort n log n calls back to compare.
func sortHits(keys, spare []sortKey, recs []hit, ids []byte) (sorted, other []sortKey) {
	keys = keys[:0]
	for i := range recs {
		keys = append(keys, sortKey{i: int32(i)})
	}
	return sortSome(keys, spare, recs, ids)
}

// sortSome is sortHits for the records keys name (by their i fields; their
// bits are overwritten): a k nearest search sorts its k best of the many
// it read.
func sortSome(keys, spare []sortKey, recs []hit, ids []byte) (sorted, other []sortKey) {
	for n := range keys {
		keys[n].bits = math.Float64bits(max(recs[keys[n].i].distance, 0)) // max turns -0 into +0
	}
	id := func(k sortKey) []byte { r := &recs[k.i]; return ids[r.id[0]:r.id[1]] }
	if len(keys) <= insertionMax {
		for i := 1; i < len(keys); i++ {
			for j := i; j > 0; j-- {
				a, b := keys[j], keys[j-1]
				if a.bits > b.bits || a.bits == b.bits && bytes.Compare(id(a), id(b)) >= 0 {
					break
				}
				keys[j], keys[j-1] = b, a
			}
		}
		return keys, spare
	}
	var largest float64
	for _, k := range keys {
		largest = max(largest, math.Float64frombits(k.bits))
	}
	scale := 0.0 // every distance is 0: one run, sorted by id below
	if largest > 0 {
		scale = (1 << 31) / largest // so that a key is at most 2³¹ (and a hair), within 32 bits
	}
	for n := range keys {
		keys[n].bits = uint64(math.Float64frombits(keys[n].bits) * scale)
	}
	keys, spare = sortByBitsIn(keys, spare)
	distance := func(k sortKey) float64 { return max(recs[k.i].distance, 0) }
	forEachRun(keys, func(a, b sortKey) bool { return a.bits == b.bits }, func(run []sortKey) {
		if len(run) >= radixMin && allAt(run, distance) {
			sortByID(run, spare, id)
			return
		}
		slices.SortFunc(run, func(a, b sortKey) int {
			if c := cmp.Compare(distance(a), distance(b)); c != 0 {
				return c
			}
			return bytes.Compare(id(a), id(b))
		})
	})
	return keys, spare
}

// allAt reports whether every key of run is at the first's distance.
func allAt(run []sortKey, distance func(sortKey) float64) bool {
	d := distance(run[0])
	for _, k := range run[1:] {
		if distance(k) != d {
			return false
		}
	}
	return true
}

// sortByID sorts run by id, as lastOfEachID sorts ids: by the eight bytes
// after the prefix every id of the run shares, zero-padded (a radix
// sort, in spare's storage if it is long enough; spare must not share
// run's), then runs of equal bytes by the whole id. Many results at one
// distance, the points inside a polygon that NearPolygon finds at 0,
// took two fifths of such a query sorted by comparisons of whole ids.
func sortByID(run, spare []sortKey, id func(sortKey) []byte) {
	first := id(run[0])
	skip := len(first)
	for _, k := range run[1:] {
		other := id(k)
		skip = min(skip, len(other))
		for i := 0; i < skip; i++ {
			if other[i] != first[i] {
				skip = i
				break
			}
		}
	}
	for n := range run {
		var head [8]byte
		copy(head[:], id(run[n])[skip:])
		run[n].bits = binary.BigEndian.Uint64(head[:])
	}
	if cap(spare) < len(run) {
		spare = make([]sortKey, len(run))
	}
	if sorted, _ := sortByBitsIn(run, spare[:len(run)]); &sorted[0] != &run[0] {
		copy(run, sorted)
	}
	forEachRun(run, func(a, b sortKey) bool { return a.bits == b.bits }, func(same []sortKey) {
		slices.SortFunc(same, func(a, b sortKey) int { return bytes.Compare(id(a), id(b)) })
	})
}

// insertionMax is the most results sortHits orders by insertion.
const insertionMax = 48

// sortByBits sorts keys by bits, leaving equal bits in no particular
// order: by comparisons when there are few, else by radixSort. It returns
// the sorted slice, which is keys or a buffer of the same length.
func sortByBits(keys []sortKey) []sortKey {
	sorted, _ := sortByBitsIn(keys, nil)
	return sorted
}

// sortByBitsIn is sortByBits with a spare buffer for the radix sort (grown
// if short): it returns the sorted slice, keys or the spare, and the other.
func sortByBitsIn(keys, spare []sortKey) (sorted, other []sortKey) {
	if len(keys) < radixMin {
		slices.SortFunc(keys, func(a, b sortKey) int { return cmp.Compare(a.bits, b.bits) })
		return keys, spare
	}
	var differ uint64 // the bits in which some key differs from the first
	for _, k := range keys {
		differ |= k.bits ^ keys[0].bits
	}
	return radixSort(keys, spare, differ)
}

// forEachRun calls fn on every run of two or more adjacent elements that
// same says are the same.
func forEachRun[T any](xs []T, same func(a, b T) bool, fn func(run []T)) {
	for i := 0; i < len(xs); {
		j := i + 1
		for j < len(xs) && same(xs[i], xs[j]) {
			j++
		}
		if j-i > 1 {
			fn(xs[i:j])
		}
		i = j
	}
}

// sortKey is a 64-bit key and the index of what it sorts: a result's
// distance bits or scaled distance (sortHits), an id's head
// (lastOfEachID) or a hash (sortPlaces).
type sortKey struct {
	bits uint64
	i    int32
}

// radixMin is where the radix sort starts to beat comparison sorting.
const radixMin = 128

// radixSort sorts keys by bits, stably, one byte per pass; a byte in which
// no key differs (differ has no bit set there) needs no pass. It passes
// between keys and buf (grown to keys' length if short), and returns the
// sorted one and the other.
func radixSort(keys, buf []sortKey, differ uint64) (sorted, other []sortKey) {
	if cap(buf) < len(keys) {
		buf = make([]sortKey, len(keys))
	}
	buf = buf[:len(keys)]
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
	return keys, buf
}

// farthestFirst turns keys, sorted by distance then id, into the order
// farthest first, then id: the whole reversed, then each run of equal
// distances reversed back.
func farthestFirst(keys []sortKey, recs []hit) {
	slices.Reverse(keys)
	for i := 0; i < len(keys); {
		j := i + 1
		for j < len(keys) && recs[keys[j].i].distance == recs[keys[i].i].distance {
			j++
		}
		slices.Reverse(keys[i:j])
		i = j
	}
}
