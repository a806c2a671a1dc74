package keyspace

import (
	"bytes"
	"encoding/binary"
	"iter"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/google/btree"
)

// btreeDegree is the B-tree's minimum degree; google/btree works well at
// 32–64.
const btreeDegree = 32

// leafMax is the most pairs a leaf holds. A leaf that overflows in the
// middle splits in half; one that overflows at its end (ascending writes,
// as in a bulk load) starts a new leaf, so a sorted load fills its leaves
// completely, as bbolt fills its pages.
const leafMax = 128

// item is one pair in the memory backend: its key, with the value in the
// same allocation right after it, reached through the slice's capacity.
// Stored pairs are immutable: Put always inserts a fresh copy, so a
// snapshot may share them freely.
//
// One slice for both, where two took 48 bytes, makes an item 32 bytes: a
// full leaf's items fit in 4 KiB instead of 7, and a seek's binary search
// touches fewer cache lines. Every pair the backend stores is in one piece:
// Put copies it so (ownedCopy), a bulk write copies it into a slab, and a
// pair given up for good already in one piece is kept as it is (putOwned).
type item struct {
	kv   []byte // the key; the value is kv[len(kv):cap(kv)]
	head uint64 // eight bytes of key after its leaf's shared prefix (headOf)
}

// key is the item's key, with no capacity past it.
func (it *item) key() []byte { return it.kv[:len(it.kv):len(it.kv)] }

// value is the item's value: never nil.
func (it *item) value() []byte { return it.kv[len(it.kv):cap(it.kv):cap(it.kv)] }

// A leaf is a sorted run of pairs: google/btree orders the leaves and a
// leaf's slice orders its pairs, the leaf layer of a B+tree.
//
// Invariants, for the leaves in fence order:
//   - the first leaf's fence is empty, and it is never removed;
//   - every key of a leaf is ≥ its fence and < the next leaf's fence;
//   - only the first leaf may be empty;
//   - every key of a leaf begins with fence[:shared], and its item's head
//     is headOf(key, shared);
//   - a leaf whose gen is not the running Update's is shared with
//     published snapshots and is never changed: the Update copies it first
//     (own).
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
	// inline holds the fence when it fits (newLeafFenced): a seek's
	// descent of the tree compares fences, and a fence here is read with
	// its leaf, not from wherever its key's bytes were allocated.
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
// scope and hash fit in the words. In the bench runner's loop on 1,000,000
// clustered points, where every query starts cold, a 1 km radius query
// went from 1.67–1.69 to 1.48–1.61 times the R-tree's median (three A/B
// runs); the tree's items grow from 8 to 40 bytes, 0.6 MB for 16,000
// leaves.
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

// snapshot is what an Update publishes: the leaves and how many pairs
// they hold.
type snapshot struct {
	leaves *btree.BTreeG[fenceRef]
	n      int
}

// MemoryStore is an in-memory Store: a copy-on-write google/btree of
// leaves, each a sorted slice of up to leafMax pairs.
//
// Keeping pairs in leaves rather than one per B-tree item is what makes
// the backend fast at what a keyspace does most: a scan walks a slice
// instead of calling back once per pair through the tree, a seek finishes
// with a binary search inside one leaf, and a sorted bulk load appends to
// the last leaf, inserting into the tree once per leafMax pairs. On
// 1,000,000 geo points (2,000,000 pairs) a load costs two ReplaceOrInsert
// calls per point when each pair is its own item, and about 1/64 of one
// this way.
//
// Invariant: the published snapshot is never modified. Update clones the
// tree (an O(1) lazy copy), copies a leaf before its first change (own),
// and publishes the clone on commit with an atomic pointer swap; a
// rolled-back Update simply drops its clone. View loads the published
// pointer once and reads that snapshot with no lock.
type MemoryStore struct {
	writer    sync.Mutex // serializes Update; Clone is not safe concurrently
	gen       uint64     // the last Update's generation; guarded by writer
	leafMax   int
	published atomic.Pointer[snapshot]
	closed    atomic.Bool
	seekers   sync.Pool // *seeker, for transactions to borrow
}

var _ Store = (*MemoryStore)(nil)

// NewMemory returns an empty in-memory store.
func NewMemory() *MemoryStore { return newMemory(leafMax) }

// newMemory returns an empty store whose leaves hold at most max pairs
// (tests use tiny leaves to split and empty them often).
func newMemory(max int) *MemoryStore {
	s := &MemoryStore{leafMax: max}
	leaves := btree.NewG(btreeDegree, refLess)
	leaves.ReplaceOrInsert(refOf(&leaf{fence: []byte{}}))
	s.published.Store(&snapshot{leaves: leaves})
	return s
}

// View runs fn over the snapshot published by the last committed Update.
func (s *MemoryStore) View(fn func(tx Tx) error) error {
	if s.closed.Load() {
		return ErrClosed
	}
	snap := s.published.Load()
	t := &memTx{leaves: snap.leaves, n: snap.n, seek: s.seeker()}
	defer s.done(t)
	if err := fn(t); err != nil {
		return err
	}
	return t.err
}

// seeker returns a seeker from the store's pool, or a new one.
func (s *MemoryStore) seeker() *seeker {
	if k, ok := s.seekers.Get().(*seeker); ok {
		return k
	}
	return newSeeker()
}

// done closes t and gives its seeker back to the pool. A closed
// transaction never reaches its seeker: every method checks first that
// the transaction is usable.
func (s *MemoryStore) done(t *memTx) {
	t.closed = true
	k := t.seek
	k.ahead, k.aheadOf, k.aheadWrites = nil, nil, 0
	clear(k.aheadBuf[:])
	s.seekers.Put(k)
}

// Update runs fn on a clone of the published tree and publishes it if fn
// succeeds.
func (s *MemoryStore) Update(fn func(tx Tx) error) error {
	s.writer.Lock()
	defer s.writer.Unlock()
	if s.closed.Load() {
		return ErrClosed
	}
	s.gen++
	snap := s.published.Load()
	t := &memTx{leaves: snap.leaves.Clone(), n: snap.n, gen: s.gen, leafMax: s.leafMax, txState: txState{writable: true}, seek: s.seeker()}
	defer s.done(t)
	if err := fn(t); err != nil {
		return err
	}
	if t.err != nil {
		return t.err
	}
	s.published.Store(&snapshot{leaves: t.leaves, n: t.n})
	return nil
}

// Close marks the store closed. Running transactions finish normally.
func (s *MemoryStore) Close() error {
	s.writer.Lock()
	defer s.writer.Unlock()
	s.closed.Store(true)
	return nil
}

// Len returns the number of keys in the published snapshot.
func (s *MemoryStore) Len() int { return s.published.Load().n }

// memTx is a Tx over one tree of leaves: the published snapshot for View,
// a private clone for Update.
type memTx struct {
	txState
	leaves  *btree.BTreeG[fenceRef]
	n       int    // pairs in leaves
	gen     uint64 // leaves of this generation are this Update's own; 0 in View
	leafMax int
	seek    *seeker // borrowed from the store for the transaction's life
	// tail, when set, is the last leaf, owned and not empty: a key after
	// its last key belongs in it, with no search (the bulk-load path).
	tail *leaf
	// near is the leaf a walk last ended in, while no write has happened
	// since (nearWrites): the next seek is often into it again, as when a
	// query scans many short ranges of one neighbourhood in key order.
	near       *leaf
	nearWrites uint64
	nearAt     int    // where in near a visit ended (visitForward)
	slab       []byte // where putOwned copies pairs; see there
}

// A seeker is what a transaction's walks of the tree of leaves use: the
// probe leafFor searches with, the callbacks the tree calls (made once,
// bound to the seeker) and the leaves nextLeaf collected ahead. A
// transaction borrows one from its store and gives it back when it ends
// (MemoryStore.seeker, done), so a View allocates none of it: in the
// transaction itself it was 248 of its 368 bytes, and the callback a
// closure per View.
type seeker struct {
	pivot   leaf  // the probe leafFor searches with
	found   *leaf // leafFor's answer
	foundFn func(fenceRef) bool
	after   *leaf // the leaf nextLeaf looks past
	nextFn  func(fenceRef) bool
	// ahead are the leaves after aheadOf, in order, while no write has
	// happened since nextLeaf collected them (aheadWrites).
	ahead       []*leaf
	aheadOf     *leaf
	aheadWrites uint64
	aheadBuf    [aheadMax]*leaf
}

func newSeeker() *seeker {
	k := new(seeker)
	k.foundFn = func(r fenceRef) bool { k.found = r.leaf; return false }
	k.nextFn = func(r fenceRef) bool {
		if r.leaf == k.after {
			return true
		}
		k.ahead = append(k.ahead, r.leaf)
		return len(k.ahead) < aheadMax
	}
	return k
}

// leafFor returns the leaf that holds key, or would: the one with the
// greatest fence ≤ key. A key between the fence and the last key of the
// leaf the last walk ended in is in that leaf, found with two comparisons
// instead of a descent of the tree.
func (t *memTx) leafFor(key []byte) *leaf {
	if l := t.near; l != nil && t.nearWrites == t.writes && len(l.items) > 0 && bytes.Compare(l.fence, key) <= 0 {
		if q := l.probe(key); q.outside == 0 && !q.after(&l.items[len(l.items)-1]) {
			return l
		}
	}
	k := t.seek
	k.pivot.fence = key
	t.leaves.DescendLessOrEqual(refOf(&k.pivot), k.foundFn)
	k.pivot.fence = nil
	l := k.found
	k.found = nil
	return l
}

// own returns l if this Update made it, else a copy of it that replaces it
// in the tree.
func (t *memTx) own(l *leaf) *leaf {
	if l.gen == t.gen {
		return l
	}
	c := newLeafFenced(l.fence, l.shared, t.gen, make([]item, len(l.items), max(len(l.items)+1, t.leafMax)))
	copy(c.items, l.items)
	t.leaves.ReplaceOrInsert(refOf(c))
	return c
}

func (t *memTx) Get(key []byte) ([]byte, error) {
	if err := t.usable(false); err != nil {
		return nil, err
	}
	if err := checkKey(key); err != nil {
		return nil, err
	}
	l := t.leafFor(key)
	i, ok := search(l, l.items, key)
	if !ok {
		return nil, ErrNotFound
	}
	return l.items[i].value(), nil
}

func (t *memTx) Put(key, value []byte) error {
	if err := t.usable(true); err != nil {
		return err
	}
	if err := checkPut(key, value); err != nil {
		return err
	}
	kv, _ := ownedCopy(key, value)
	return t.insert(item{kv: kv})
}

// insert stores an item whose bytes the tree may keep.
func (t *memTx) insert(it item) error {
	t.writes++
	key := it.kv
	var l *leaf
	var i int
	if tail := t.tail; tail != nil && bytes.Compare(key, tail.items[len(tail.items)-1].kv) > 0 {
		l, i = tail, len(tail.items) // after every key: no search
	} else {
		l = t.own(t.leafFor(key))
		var found bool
		if i, found = search(l, l.items, key); found {
			l.items[i].kv = it.kv // a fresh copy of the key with the new value
			return nil
		}
	}
	t.n++
	atEnd := i == len(l.items)
	switch {
	case len(l.items) < t.leafMax:
		l.prepare(&it)
		l.items = slices.Insert(l.items, i, it)
	case atEnd: // full, and growing at its end: start the next leaf
		l = t.newLeaf(it)
	default:
		l.prepare(&it)
		l.items = slices.Insert(l.items, i, it)
		t.split(l)
		t.tail = nil
		return nil
	}
	if atEnd && l != t.tail {
		if last, _ := t.leaves.Max(); last.leaf == l {
			t.tail = l
		}
	}
	return nil
}

// newLeaf adds a leaf holding just it, fenced at its key.
func (t *memTx) newLeaf(it item) *leaf {
	l := newLeafFenced(it.kv, len(it.kv), t.gen, make([]item, 1, t.leafMax))
	it.head = 0 // nothing after the shared prefix, which is all of it
	l.items[0] = it
	t.leaves.ReplaceOrInsert(refOf(l))
	return l
}

// split moves the upper half of an owned leaf into a new leaf.
func (t *memTx) split(l *leaf) {
	mid := len(l.items) / 2
	// r's keys are some of l's, which begin with l's shared prefix, and so
	// does r's fence, one of them: l.shared serves r, heads and all.
	r := newLeafFenced(l.items[mid].kv, l.shared, t.gen, make([]item, len(l.items)-mid, t.leafMax))
	copy(r.items, l.items[mid:])
	clear(l.items[mid:])
	l.items = l.items[:mid]
	t.leaves.ReplaceOrInsert(refOf(r))
}

// putOwned is the bulk write: it copies the pair into the transaction's
// slab, so pairs written in key order lie side by side in memory. A scan
// then reads memory in order, as it does bbolt's pages, instead of chasing
// one scattered allocation per key and value: on 1,000,000 imported points
// a 10 km radius query (1,580 results) went from 1.40 to 0.96 ms. The price
// is that a slab stays alive while any pair in it does.
//
// A pair given up for good and already in one piece, its key's capacity
// reaching over its value (as geo's PutAll builds them in key order), is
// kept as it is.
func (t *memTx) putOwned(key, value []byte, forGood bool) error {
	n := len(key) + len(value)
	if forGood && cap(key) >= n && (len(value) == 0 || &key[:n][len(key)] == &value[0]) {
		return t.insert(item{kv: key[:len(key):n]})
	}
	if n > slabSize/16 {
		kv, _ := ownedCopy(key, value) // a large pair gets its own
		return t.insert(item{kv: kv})
	}
	if cap(t.slab)-len(t.slab) < n {
		t.slab = make([]byte, 0, slabSize)
	}
	start := len(t.slab)
	t.slab = append(append(t.slab, key...), value...)
	return t.insert(item{kv: t.slab[start : start+len(key) : start+n]})
}

// slabSize is the size of the slabs bulk writes copy their pairs into.
const slabSize = 256 << 10

// beginBulk is a no-op: ascending inserts fill leaves by themselves.
func (t *memTx) beginBulk([]byte) {}

func (t *memTx) Delete(key []byte) error {
	if err := t.usable(true); err != nil {
		return err
	}
	if err := checkKey(key); err != nil {
		return err
	}
	t.writes++
	l := t.leafFor(key)
	i, found := search(l, l.items, key)
	if !found {
		return nil
	}
	t.tail = nil
	t.n--
	l = t.own(l)
	l.items = slices.Delete(l.items, i, i+1)
	if len(l.items) == 0 && len(l.fence) > 0 {
		t.leaves.Delete(refOf(l))
	}
	return nil
}

func (t *memTx) DeleteRange(r Range) (int, error) {
	if err := t.usable(true); err != nil {
		return 0, err
	}
	return deleteRange(t, r)
}

// scanChunk is how many items a writable scan copies out of the tree at a
// time; it re-seeks after each chunk, or at once after a write.
const scanChunk = 64

func (t *memTx) Scan(r Range) iter.Seq2[[]byte, []byte] {
	return func(yield func([]byte, []byte) bool) {
		if err := t.usable(false); err != nil {
			t.setErr(err)
			return
		}
		if r.empty() {
			return
		}
		if !t.writable {
			// The snapshot is immutable: yield straight from the walk.
			n := 0
			t.walk(r, r.Start, r.End, func(it item) bool {
				n++
				return yield(it.key(), it.value()) && (r.Limit <= 0 || n < r.Limit)
			})
			return
		}
		// A writable tree may change inside the loop body, and google/btree
		// must not be modified during a walk: copy out a chunk, yield it,
		// and seek again after the last key yielded.
		lo, hi := r.Start, r.End
		buf := make([]item, 0, scanChunk)
		for n := 0; ; {
			buf = buf[:0]
			t.walk(r, lo, hi, func(it item) bool {
				buf = append(buf, it)
				return len(buf) < scanChunk
			})
			if len(buf) == 0 {
				return
			}
			var last []byte
			interrupted := false
			for _, it := range buf {
				writes := t.writes
				if !yield(it.key(), it.value()) {
					return
				}
				if n++; r.Limit > 0 && n >= r.Limit {
					return
				}
				last = it.kv
				if t.writes != writes {
					interrupted = true
					break
				}
			}
			if len(buf) < scanChunk && !interrupted {
				return
			}
			if r.Reverse {
				hi = last // exclusive
			} else {
				lo = append(bytes.Clone(last), 0) // the smallest key after last
			}
		}
	}
}

// visitForward is VisitRange's walk, for a View's forward ranges: walk's
// loop with the visitor called directly and no closures, moving from leaf
// to leaf with nextLeaf. Within a leaf it finds the range's end by
// galloping from its start (searchFrom), and a range that starts in the
// leaf where the last visit ended, past where it ended, is found by
// galloping from there: a geo query's ranges are short and close.
func (t *memTx) visitForward(r Range, v Visitor) {
	l := t.leafFor(r.Start)
	start := 0
	if r.Start != nil {
		q := l.probe(r.Start)
		from := 0
		// Past where the last visit ended, if that was in l and its last
		// pair is below Start.
		if l == t.near && t.nearAt > 0 && t.nearAt <= len(l.items) && q.outside == 0 && q.after(&l.items[t.nearAt-1]) {
			from = t.nearAt
		}
		if from > 0 {
			start = searchFrom(l, &q, from)
		} else {
			start = searchIn(l.items, &q)
		}
	}
	for n := 0; ; {
		end, more := l.endOf(r.End, start)
		t.near, t.nearWrites, t.nearAt = l, t.writes, end
		for _, it := range l.items[start:end] {
			if !v.Visit(it.key(), it.value()) {
				return
			}
			if n++; r.Limit > 0 && n >= r.Limit {
				return
			}
		}
		if !more {
			return
		}
		if l = t.nextLeaf(l); l == nil {
			return
		}
		start = 0
	}
}

// visitRanges is VisitRanges' walk, for ascending forward ranges in a
// View: one pass from leaf to leaf that never goes back. A range that
// starts at or before the last key of the leaf the walk is in is found by
// galloping from where the range before it ended (searchFrom); any other
// is sought from the tree (leafFor). Visiting a 1 km radius query's six or
// so ranges this way, rather than with a VisitRange call each, saves each
// range after the first its seek's checks against the leaf the last visit
// ended in: a 1 km query on 100,000 points ran 6% fewer instructions, and
// the small 1 km queries of a 1,000,000-point run, asked over and over,
// took 7% less time.
func (t *memTx) visitRanges(rs []Range, v RangesVisitor) {
	var l *leaf
	pos := 0 // every item of l before pos is below the range being visited
	defer func() {
		if l != nil {
			t.near, t.nearWrites, t.nearAt = l, t.writes, pos
		}
	}()
	for i, r := range rs {
		if r.empty() {
			continue
		}
		if l != nil {
			// r.Start is not nil: only the first range's may be.
			if q := l.probe(r.Start); len(l.items) > 0 && q.outside == 0 && !q.after(&l.items[len(l.items)-1]) {
				pos = searchFrom(l, &q, pos)
			} else {
				l = nil
			}
		}
		if l == nil {
			l, pos = t.leafFor(r.Start), 0
			if r.Start != nil {
				q := l.probe(r.Start)
				pos = searchIn(l.items, &q)
			}
		}
		for {
			end, more := l.endOf(r.End, pos)
			for _, it := range l.items[pos:end] {
				if !v.VisitIn(i, it.key(), it.value()) {
					return
				}
			}
			pos = end
			if !more {
				break
			}
			next := t.nextLeaf(l)
			if next == nil {
				return // past the last key: the ranges left are empty
			}
			l, pos = next, 0
		}
	}
}

// nextLeaf returns the leaf after l in fence order, or nil after the
// last. google/btree has no cursor, so finding the next leaf is a walk
// down the tree; one walk collects the next aheadMax leaves, and the calls
// that step through them after it cost none (a 10 km radius query on
// 1,000,000 points crossed about 19 leaf ends).
func (t *memTx) nextLeaf(l *leaf) *leaf {
	k := t.seek
	if len(k.ahead) > 0 && k.aheadOf == l && k.aheadWrites == t.writes {
		next := k.ahead[0]
		k.ahead, k.aheadOf = k.ahead[1:], next
		return next
	}
	k.after, k.ahead, k.aheadWrites = l, k.aheadBuf[:0], t.writes
	t.leaves.AscendGreaterOrEqual(refOf(l), k.nextFn)
	k.after = nil
	if len(k.ahead) == 0 {
		return nil
	}
	next := k.ahead[0]
	k.ahead, k.aheadOf = k.ahead[1:], next
	return next
}

// aheadMax is how many leaves nextLeaf collects in one walk.
const aheadMax = 8

// walk visits the items in [lo, hi) in r's direction until fn returns
// false. It seeks once, to the leaf that holds the first key, and moves to
// the next leaf through the tree only when the range runs past a leaf's
// end; within a leaf it compares with the far bound once, not per pair.
func (t *memTx) walk(r Range, lo, hi []byte, fn func(item) bool) {
	if r.Reverse {
		t.walkReverse(lo, hi, fn)
		return
	}
	more := true // the range may go on past the leaf visit was given
	visit := func(l *leaf, items []item) bool {
		t.near, t.nearWrites = l, t.writes
		if n := len(items); hi != nil && n > 0 && bytes.Compare(items[n-1].kv, hi) >= 0 {
			end, _ := search(l, items, hi)
			items, more = items[:end], false
		}
		for _, it := range items {
			if !fn(it) {
				return false
			}
		}
		return more
	}
	first := t.leafFor(lo)
	start := 0
	if lo != nil {
		start, _ = search(first, first.items, lo)
	}
	if !visit(first, first.items[start:]) {
		return
	}
	t.leaves.AscendGreaterOrEqual(refOf(first), func(r fenceRef) bool {
		return r.leaf == first || visit(r.leaf, r.leaf.items)
	})
}

// walkReverse is walk from hi (exclusive) down to lo.
func (t *memTx) walkReverse(lo, hi []byte, fn func(item) bool) {
	more := true
	visit := func(l *leaf, items []item) bool {
		t.near, t.nearWrites = l, t.writes
		if lo != nil && len(items) > 0 && bytes.Compare(items[0].kv, lo) < 0 {
			start, _ := search(l, items, lo)
			items, more = items[start:], false
		}
		for i := len(items) - 1; i >= 0; i-- {
			if !fn(items[i]) {
				return false
			}
		}
		return more
	}
	var last *leaf
	end := 0
	if hi == nil {
		max, _ := t.leaves.Max()
		last, end = max.leaf, len(max.leaf.items)
	} else {
		last = t.leafFor(hi)
		end, _ = search(last, last.items, hi)
	}
	if !visit(last, last.items[:end]) {
		return
	}
	t.leaves.DescendLessOrEqual(refOf(last), func(r fenceRef) bool {
		return r.leaf == last || visit(r.leaf, r.leaf.items)
	})
}
