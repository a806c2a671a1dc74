package keyspace

import (
	"bytes"
	"encoding/binary"
)

// item is one pair in the memory backend: its key, with the value in the
// same allocation right after it, reached through the slice's capacity.
// Stored pairs are immutable: Put always inserts a fresh copy, so a
// snapshot may share them freely.
//
// One slice for both, where two took 48 bytes, makes an item 32 bytes: a
// full leaf's items fit in 4 KiB instead of 7, and a seek's binary search
// touches fewer cache lines. Every pair the backend stores is in one piece:
// Put copies it so (ownedCopy), a bulk write copies it into a slab, a
// pair given up for good already in one piece is kept as it is (putOwned),
// and a split copies each half's small pairs side by side (pack).
type item struct {
	kv   []byte // the key; the value is kv[len(kv):cap(kv)]
	head uint64 // eight bytes of key after its leaf's shared prefix (headOf)
}

// key is the item's key, with no capacity past it.
func (it *item) key() []byte { return it.kv[:len(it.kv):len(it.kv)] }

// value is the item's value: never nil.
func (it *item) value() []byte { return it.kv[len(it.kv):cap(it.kv):cap(it.kv)] }

// A leaf is a sorted run of pairs: google/btree orders the leaves (by
// fenceRef) and a leaf's slice orders its pairs, the leaf layer of a
// B+tree.
//
// Invariants, for the leaves in fence order:
//   - the first leaf's fence is empty, and it is never removed;
//   - every key of a leaf is ≥ its fence and < the next leaf's fence;
//   - only the first leaf may be empty;
//   - every key of a leaf begins with fence[:shared], and its item's head
//     is headOf(key, shared);
//   - a leaf whose gen is not the running Update's is shared with
//     published snapshots and is never changed: the Update copies it first
//     (own);
//   - a leaf's fence never changes once the leaf is in the tree, so the
//     tree's fenceRef for it is refOf(leaf).
//
// The heads are what a seek compares. Keys in one leaf share long
// prefixes (a geo index's keys share their subspace, scope and the start
// of their hash), and a key's bytes lie elsewhere in memory: a binary
// search that compared whole keys chased a pointer per probe, and on a
// 100,000-point index it was a quarter of a 1 km radius query. Comparing
// the heads, held in the items themselves, settles most probes; equal
// heads fall back to the keys past the shared prefix. On 1,000,000 points
// a 1 km radius query took 14–25% less time in A/B runs, for 8 bytes more
// per pair.
type leaf struct {
	fence  []byte
	items  []item
	shared int    // bytes of fence that every key of the leaf begins with
	gen    uint64 // the Update that made it, and alone may change it
	// inline holds the fence when it fits (newLeafFenced): a seek reads
	// the shared prefix from it (probe), and a descent compares it when
	// two fenceRefs' words tie, with the leaf, not from wherever its
	// key's bytes were allocated.
	inline [inlineFence]byte
}

// inlineFence is the longest fence a leaf holds inline: a geo index's
// keys (subspace, scope, hash and a short id) fit.
const inlineFence = 48

// newLeafFenced returns a leaf with fence (copied inline when it fits,
// else shared), and the other fields as given.
func newLeafFenced(fence []byte, shared int, gen uint64, items []item) *leaf {
	l := &leaf{shared: shared, gen: gen, items: items}
	if len(fence) <= inlineFence {
		l.fence = l.inline[:copy(l.inline[:], fence):len(fence)]
	} else {
		l.fence = fence
	}
	return l
}

// A fenceRef is what the tree of leaves orders: a leaf, with the first
// fenceWords·8 bytes of its fence held in the tree's own nodes.
//
// A seek descends the tree by bisecting each node's items. When the items
// were *leaf, every probe read a leaf from wherever it was allocated, one
// or two cache lines per probe on top of the node's; a query on a cold
// cache (a server's index larger than its caches) paid them one after
// another. Comparing words held in the item settles a probe with no leaf
// read; equal words fall back to the whole fences. A geo key's subspace,
// scope and hash fit in the words. In a copy of the bench runner's loop
// on 1,000,000 clustered points, where each query finds its data cold, a
// 1 km radius query went from a median of 1.73 to 1.69 times the
// R-tree's time over eight runs of each build, alternated, and was faster
// in seven of the eight pairs (a session before had seen no change and
// dropped the idea). Warm, it costs 1.6% more instructions (21,038 →
// 21,375 at 100,000 points), and the tree's items grow from 8 to 40
// bytes: 0.6 MB for 16,000 leaves.
type fenceRef struct {
	words [fenceWords]uint64 // the fence's first bytes, big-endian, zero-padded
	leaf  *leaf
}

// fenceWords is how many words of a fence a fenceRef holds.
const fenceWords = 4

// refOf returns l's fenceRef.
func refOf(l *leaf) fenceRef {
	r := fenceRef{leaf: l}
	var b [fenceWords * 8]byte
	copy(b[:], l.fence)
	for i := range r.words {
		r.words[i] = binary.BigEndian.Uint64(b[i*8:])
	}
	return r
}

// refLess orders fenceRefs as their fences. Zero padding keeps the words'
// order the fences' wherever the words differ: a fence that ends first is
// a prefix of the other up to there, and sorts first as its padding does.
func refLess(a, b fenceRef) bool {
	for i := range a.words {
		if a.words[i] != b.words[i] {
			return a.words[i] < b.words[i]
		}
	}
	return bytes.Compare(a.leaf.fence, b.leaf.fence) < 0
}

// headOf is the eight bytes of key after its first shared bytes, as a
// big-endian integer, zero-padded: for keys that both begin with the same
// shared bytes, a smaller head means a smaller key, and equal heads mean
// nothing.
func headOf(key []byte, shared int) uint64 {
	rest := key[shared:]
	if len(rest) >= 8 {
		return binary.BigEndian.Uint64(rest)
	}
	var b [8]byte
	copy(b[:], rest)
	return binary.BigEndian.Uint64(b[:])
}

// search returns the index of key in items, a run of l's items, or where
// it would go.
func search(l *leaf, items []item, key []byte) (int, bool) {
	q := l.probe(key)
	i := searchIn(items, &q)
	return i, q.outside == 0 && i < len(items) && q.equal(&items[i])
}

// A probe is a key prepared for comparing with one leaf's items (leaf.probe):
// its head and its bytes past the leaf's shared prefix, so that most
// comparisons are of two integers, and a key's bytes, which lie elsewhere
// in memory, are read only when the heads are equal.
type probe struct {
	h       uint64
	rest    []byte
	shared  int
	outside int // -1: the key sorts before all the leaf's keys; 1: after all; 0: compare
}

// probe prepares key for comparing with l's items. A key that does not
// begin with l's shared prefix sorts before all of l's keys (outside is
// -1) or after all of them (1), as it does against the prefix.
func (l *leaf) probe(key []byte) probe {
	p := l.shared
	if len(key) < p || !bytes.Equal(key[:p], l.fence[:p]) {
		if bytes.Compare(key, l.fence[:p]) < 0 {
			return probe{outside: -1}
		}
		return probe{outside: 1}
	}
	return probe{h: headOf(key, p), rest: key[p:], shared: p}
}

// after reports whether the probed key sorts after it's: it.key < key.
// The probe must not be outside.
func (q *probe) after(it *item) bool {
	if it.head != q.h {
		return it.head < q.h
	}
	return q.afterRest(it)
}

// afterRest is after for an item whose head equals the probe's: rare,
// and kept out of line so that after is inlined.
//
//go:noinline
func (q *probe) afterRest(it *item) bool {
	return bytes.Compare(it.kv[q.shared:], q.rest) < 0
}

// equal reports whether it's key is the probed key. The probe must not be
// outside.
func (q *probe) equal(it *item) bool {
	return it.head == q.h && bytes.Equal(it.kv[q.shared:], q.rest)
}

// searchIn returns the index of the first of items, a run of the leaf q
// was prepared for, whose key is ≥ q's, by bisection: for a key that may
// be anywhere in them.
func searchIn(items []item, q *probe) int {
	switch q.outside {
	case -1:
		return 0
	case 1:
		return len(items)
	}
	return bisect(items, q, 0, len(items))
}

// bisect returns the index of the first of items[lo:hi] whose key is ≥
// q's, where every item before lo is < it and every item from hi on is ≥
// it. The probe must not be outside.
func bisect(items []item, q *probe, lo, hi int) int {
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if q.after(&items[m]) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// searchFrom returns the index of the first of l's items at or after from
// whose key is ≥ q's; every item before from must be < q's key. It probes
// at doubling distances past from before it bisects, so that it costs a
// few probes when the answer is near from: the end of a short range
// just past its start, or the start of a query's next range just past
// where the last one ended.
func searchFrom(l *leaf, q *probe, from int) int {
	items := l.items
	switch q.outside {
	case -1:
		return from
	case 1:
		return len(items)
	}
	lo, step := from, 1 // items before lo are < key
	hi := lo
	for hi < len(items) && q.after(&items[hi]) {
		lo = hi + 1
		hi = lo + step
		step *= 2
	}
	return bisect(items, q, lo, min(hi, len(items))) // items[hi], if any, is ≥ key
}

// endOf returns where in l a range that ends at end (exclusive; nil for
// no end) and is visited from start stops: the index of the first item at
// or after start whose key is ≥ end, and more false; or len(l.items) and
// more true when the range may go on past l, end being after l's last key.
// Every item before start must be below end.
func (l *leaf) endOf(end []byte, start int) (stop int, more bool) {
	n := len(l.items)
	if end == nil || n <= start {
		return n, true
	}
	// The range ends in l unless end is after l's last key.
	if q := l.probe(end); q.outside < 0 || q.outside == 0 && !q.after(&l.items[n-1]) {
		return searchFrom(l, &q, start), false
	}
	return n, true
}

// prepare sets it.head for l, first shortening l's shared prefix (and
// recomputing every head) if it.key does not begin with all of it. A
// leaf's shared prefix only ever shortens, a few times in its life.
func (l *leaf) prepare(it *item) {
	if prefix := l.fence[:l.shared]; !bytes.HasPrefix(it.kv, prefix) {
		n := commonPrefixLen(it.kv, prefix)
		l.shared = n
		for i := range l.items {
			l.items[i].head = headOf(l.items[i].kv, n)
		}
	}
	it.head = headOf(it.kv, l.shared)
}

// fitShared makes l's shared prefix all that its fence and its keys have
// in common, and recomputes the heads: what a split does for each half,
// whose keys span less than the whole leaf's did, and a merge for the
// leaf it makes, whose keys may span more. Keys are sorted and at or
// above the fence, so what the fence and the last key share, every key
// between them shares too.
//
// Before splits did this a leaf's prefix could only shorten, and every
// leaf split off the first (whose fence is empty) kept a prefix of 0: in
// a store filled by Puts in no order, every head held the same first
// bytes (a geo index's subspace and scope), and every probe of a seek
// compared whole keys out of line. On 200,000 such keys
// (BenchmarkGetRandomlyFilled) a Get took 920 ns, slower than bbolt's
// 850; with it, 530–600 ns.
func (l *leaf) fitShared() {
	n := len(l.fence)
	if len(l.items) > 0 {
		n = commonPrefixLen(l.fence, l.items[len(l.items)-1].kv)
	}
	l.shared = n // the heads may be for another prefix, a merged leaf's
	for i := range l.items {
		l.items[i].head = headOf(l.items[i].kv, n)
	}
}

// pack copies l's small pairs side by side into one new allocation, in
// key order, and points its items at the copies: what a split does for
// each half, and a merge for the leaf it makes. Pairs Put in no order
// each have their own allocation, in the order they were written, so a
// scan of a few neighbouring keys read as many scattered cache lines; a
// bulk write lays its pairs out in order (putOwned), and pack gives
// leaves made by splits and merges the same layout. The old pairs are
// left as they were, for any snapshot that shares them (pairs are never
// changed in place). As with putOwned's slabs, the allocation stays alive
// while any pair in it does: at most a leaf's worth of bytes, until the
// leaf splits or merges again.
//
// On 1,000,000 clustered points written by Index.Put, 1,000 a
// transaction, a 1 km radius query (BenchmarkRadiusAfterPuts) took
// 9.5–10.5 µs with fitShared alone and 7.9–9.3 with pack, against
// 6.0–6.7 after one PutAll (11.0–13.6 before either). Writing the points
// took as long (4.3–4.5 s); BenchmarkRandomPut's bare Puts took 7% longer
// (2.28 to 2.44 µs), 60 bytes more allocated each.
//
// Pairs over packMax bytes stay where they are: copying them would cost
// more than their neighbours' locality saves.
func (l *leaf) pack() {
	n := 0
	for i := range l.items {
		if c := cap(l.items[i].kv); c <= packMax {
			n += c
		}
	}
	slab := make([]byte, 0, n)
	for i := range l.items {
		kv := l.items[i].kv
		if cap(kv) > packMax {
			continue
		}
		start := len(slab)
		slab = append(slab, kv[:cap(kv)]...)
		l.items[i].kv = slab[start : start+len(kv) : start+cap(kv)]
	}
}

// packMax is the largest pair, key and value, that pack copies.
const packMax = 512

// commonPrefixLen is the length of the longest common prefix of a and b.
func commonPrefixLen(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
