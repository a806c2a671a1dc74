package keyspace

import (
	"bytes"
	"context"
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
// completely, as bbolt fills its pages; one that deletes bring down to a
// quarter joins a neighbour (merge).
const leafMax = 128

// snapshot is what an Update publishes: the leaves, how many pairs they
// hold, and, once building it has paid, a directory of the leaves.
type snapshot struct {
	leaves    *btree.BTreeG[fenceRef]
	n         int
	directory snapshotDirectory // see directoryEvery (memory_directory.go)
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
// pointer once and reads that snapshot with no lock. A snapshot that
// serves many seeks, or that a bulk load published, also gets a flat
// directory of its leaves, which its Views bisect instead of descending
// the tree (memory_directory.go). Compact (compact.go) gives a store
// written by Puts over a long time the layout of a bulk load again.
type MemoryStore struct {
	writer    sync.Mutex // serializes Update; Clone is not safe concurrently
	gen       uint64     // the last Update's generation; guarded by writer
	leafMax   int
	published atomic.Pointer[snapshot]
	closed    atomic.Bool
	seekers   sync.Pool // *seeker, for transactions to borrow
	// directories is when snapshots build their directory: by the rules
	// of directoryEvery, or for tests after their first View that seeks,
	// or never.
	directories directoryRule
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
	return s.ViewContext(context.Background(), fn)
}

// ViewContext is View under ctx (see Store).
func (s *MemoryStore) ViewContext(ctx context.Context, fn func(tx Tx) error) error {
	if s.closed.Load() {
		return ErrClosed
	}
	if ctx.Err() != nil {
		return stoppedError(ctx)
	}
	snap := s.published.Load()
	t := &memTx{leaves: snap.leaves, n: snap.n, seek: s.seeker(), snap: snap, dir: snap.directory.dir.Load()}
	t.under(ctx)
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
	if t.snap != nil {
		s.countSeeks(t.snap, t.seeks)
	}
	k := t.seek
	k.ahead, k.aheadOf, k.aheadWrites = nil, nil, 0
	clear(k.aheadBuf[:])
	s.seekers.Put(k)
}

// Update runs fn on a clone of the published tree and publishes it if fn
// succeeds.
func (s *MemoryStore) Update(fn func(tx Tx) error) error {
	return s.UpdateContext(context.Background(), fn)
}

// Batch is Update: nothing here is synced, so there is no commit worth
// sharing, and fn runs on its caller's goroutine, once. Gathering the
// calls into shared transactions as bbolt's Batch does (batch.go) took,
// one random key a call (BenchmarkConcurrentWrites), 5.2 µs a write from
// 16 goroutines against Update's 4.7–4.8, and 3.9 against 5.4–5.7 from
// 64: too little either way for a function run elsewhere and perhaps
// twice.
func (s *MemoryStore) Batch(fn func(tx Tx) error) error { return s.Update(fn) }

// BatchContext is UpdateContext, as Batch is Update.
func (s *MemoryStore) BatchContext(ctx context.Context, fn func(tx Tx) error) error {
	return s.UpdateContext(ctx, fn)
}

// UpdateContext is Update under ctx (see Store).
func (s *MemoryStore) UpdateContext(ctx context.Context, fn func(tx Tx) error) error {
	s.writer.Lock()
	defer s.writer.Unlock()
	if s.closed.Load() {
		return ErrClosed
	}
	if ctx.Err() != nil {
		return stoppedError(ctx)
	}
	s.gen++
	snap := s.published.Load()
	t := &memTx{leaves: snap.leaves.Clone(), n: snap.n, gen: s.gen, leafMax: s.leafMax, txState: txState{writable: true}, seek: s.seeker()}
	t.under(ctx)
	defer s.done(t)
	if err := fn(t); err != nil {
		return err
	}
	if err := t.stopped(); err != nil {
		return err
	}
	if t.err != nil {
		return t.err
	}
	next := &snapshot{leaves: t.leaves, n: t.n}
	if s.directories == directoryByCost && t.writes >= uint64(t.leaves.Len()) { // a bulk load: see directoryEvery
		next.directory.dir.Store(newDirectory(t.leaves))
	}
	s.published.Store(next)
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
	// In a View: the snapshot read, its directory if it has one yet, and
	// the seeks made without one (countSeeks).
	snap  *snapshot
	dir   *directory
	seeks int64
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

// split moves the upper half of an owned leaf into a new leaf, then gives
// each half the prefix its own keys share (fitShared) and lays its pairs
// side by side (pack), so that a store written in no order reads almost
// as one written in order does.
func (t *memTx) split(l *leaf) {
	mid := len(l.items) / 2
	// r's keys are some of l's, which begin with l's shared prefix, and so
	// does r's fence, one of them: l.shared serves r, heads and all, until
	// each half's own longer prefix replaces it (fitShared).
	r := newLeafFenced(l.items[mid].kv, l.shared, t.gen, make([]item, len(l.items)-mid, t.leafMax))
	copy(r.items, l.items[mid:])
	clear(l.items[mid:])
	l.items = l.items[:mid]
	l.fitShared()
	r.fitShared()
	l.pack()
	r.pack()
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
	if err := t.stopped(); err != nil {
		return err
	}
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
	switch {
	case len(l.items) == 0 && len(l.fence) > 0:
		t.leaves.Delete(refOf(l))
	case len(l.items) == t.leafMax/4:
		t.merge(l)
	}
	return nil
}

// merge joins an owned leaf that deletes have brought down to a quarter
// full with its next leaf, or else with the one before it, when the two
// together fill at most three quarters of one; the joined leaf gets the
// prefix its keys share and its pairs side by side (fitShared, pack).
//
// Leaves never joined before, and deletes left a store sparse for good.
// With nine points in ten of 1,000,000 deleted, 1,000 a transaction
// (BenchmarkRadiusAfterDeletes), the rest lay in several times the leaves
// a load of them alone fills, and a 10 km radius query took 44–53 µs
// against 18–22 µs on that load; with merge, 20–22 µs (1 km: 3.0–4.9 µs
// against 2.2–2.4, now 2.2–2.5). bbolt joins its pages in the same spirit
// as a transaction commits. Random deletes took as long as before (2.5–2.7
// µs each, 1,000 a transaction) and a DeleteRange of 1,000,000 keys 4%
// longer. A leaf tries once, as it falls to a quarter: a leaf emptied by
// a run of deletes (DeleteRange), its next leaf full, would otherwise look
// again at each of its last deletes; trying at every delete below a
// quarter joined a test's leaves only 7% further (TestMemoryDeletesMerge).
func (t *memTx) merge(l *leaf) {
	next := t.beside(l, t.leaves.AscendGreaterOrEqual)
	joined := l
	switch limit := t.leafMax * 3 / 4; {
	case next != nil && len(l.items)+len(next.items) <= limit:
		l.items = append(l.items, next.items...)
		t.leaves.Delete(refOf(next))
	case len(l.fence) == 0:
		return // the first leaf has no leaf before it, and is never removed
	default:
		prev := t.beside(l, t.leaves.DescendLessOrEqual)
		if len(prev.items)+len(l.items) > limit {
			return
		}
		joined = t.own(prev)
		joined.items = append(joined.items, l.items...)
		t.leaves.Delete(refOf(l))
	}
	joined.fitShared()
	joined.pack()
}

// beside returns the leaf after l in the tree (walk AscendGreaterOrEqual)
// or before it (DescendLessOrEqual), or nil when there is none.
func (t *memTx) beside(l *leaf, walk func(fenceRef, btree.ItemIteratorG[fenceRef])) *leaf {
	var other *leaf
	walk(refOf(l), func(r fenceRef) bool {
		if r.leaf == l {
			return true
		}
		other = r.leaf
		return false
	})
	return other
}

func (t *memTx) DeleteRange(r Range) (int, error) {
	if err := t.usable(true); err != nil {
		return 0, err
	}
	return deleteRange(t, r)
}
