package keyspace

import (
	"bytes"
	"iter"
	"sync"
	"sync/atomic"

	"github.com/google/btree"
)

// btreeDegree is the B-tree's minimum degree; google/btree works well at
// 32–64.
const btreeDegree = 32

// item is one pair in the memory backend. Stored items are immutable: Put
// always inserts a fresh copy, so a snapshot may share them freely.
type item struct {
	key, value []byte
}

func itemLess(a, b item) bool { return bytes.Compare(a.key, b.key) < 0 }

// MemoryStore is an in-memory Store on a copy-on-write google/btree.
//
// Invariant: the published tree is never modified. Update clones it (an O(1)
// lazy copy), writes to the clone, and publishes the clone on commit with an
// atomic pointer swap; a rolled-back Update simply drops its clone. View
// loads the published pointer once and reads that snapshot with no lock.
type MemoryStore struct {
	writer    sync.Mutex // serializes Update; Clone is not safe concurrently
	published atomic.Pointer[btree.BTreeG[item]]
	closed    atomic.Bool
}

var _ Store = (*MemoryStore)(nil)

// NewMemory returns an empty in-memory store.
func NewMemory() *MemoryStore {
	s := &MemoryStore{}
	s.published.Store(btree.NewG(btreeDegree, itemLess))
	return s
}

// View runs fn over the snapshot published by the last committed Update.
func (s *MemoryStore) View(fn func(tx Tx) error) error {
	if s.closed.Load() {
		return ErrClosed
	}
	t := &memTx{tree: s.published.Load()}
	defer func() { t.closed = true }()
	if err := fn(t); err != nil {
		return err
	}
	return t.err
}

// Update runs fn on a clone of the published tree and publishes it if fn
// succeeds.
func (s *MemoryStore) Update(fn func(tx Tx) error) error {
	s.writer.Lock()
	defer s.writer.Unlock()
	if s.closed.Load() {
		return ErrClosed
	}
	t := &memTx{tree: s.published.Load().Clone(), txState: txState{writable: true}}
	defer func() { t.closed = true }()
	if err := fn(t); err != nil {
		return err
	}
	if t.err != nil {
		return t.err
	}
	s.published.Store(t.tree)
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
func (s *MemoryStore) Len() int { return s.published.Load().Len() }

// memTx is a Tx over one tree: the published snapshot for View, a private
// clone for Update.
type memTx struct {
	txState
	tree *btree.BTreeG[item]
	slab []byte // where putOwned copies pairs; see there
}

func (t *memTx) Get(key []byte) ([]byte, error) {
	if err := t.usable(false); err != nil {
		return nil, err
	}
	if err := checkKey(key); err != nil {
		return nil, err
	}
	it, ok := t.tree.Get(item{key: key})
	if !ok {
		return nil, ErrNotFound
	}
	return it.value, nil
}

func (t *memTx) Put(key, value []byte) error {
	if err := t.usable(true); err != nil {
		return err
	}
	if err := checkPut(key, value); err != nil {
		return err
	}
	return t.insert(ownedCopy(key, value))
}

func (t *memTx) insert(key, value []byte) error {
	t.writes++
	if value == nil {
		value = []byte{}
	}
	t.tree.ReplaceOrInsert(item{key: key, value: value})
	return nil
}

// putOwned is the bulk write: it copies the pair into the transaction's
// slab, so pairs written in key order lie side by side in memory. A scan
// then reads memory in order, as it does bbolt's pages, instead of chasing
// one scattered allocation per key and value: on 1,000,000 imported points
// a 10 km radius query (1,580 results) went from 1.40 to 0.96 ms. The price
// is that a slab stays alive while any pair in it does.
func (t *memTx) putOwned(key, value []byte) error {
	n := len(key) + len(value)
	if n > slabSize/16 {
		return t.insert(ownedCopy(key, value)) // a large pair gets its own
	}
	if cap(t.slab)-len(t.slab) < n {
		t.slab = make([]byte, 0, slabSize)
	}
	start := len(t.slab)
	t.slab = append(append(t.slab, key...), value...)
	end := start + len(key)
	return t.insert(t.slab[start:end:end], t.slab[end:start+n:start+n])
}

// slabSize is the size of the slabs bulk writes copy their pairs into.
const slabSize = 256 << 10

// beginBulk is a no-op: a B-tree needs no tuning for sorted inserts.
func (t *memTx) beginBulk([]byte) {}

func (t *memTx) Delete(key []byte) error {
	if err := t.usable(true); err != nil {
		return err
	}
	if err := checkKey(key); err != nil {
		return err
	}
	t.writes++
	t.tree.Delete(item{key: key})
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
				return yield(it.key, it.value) && (r.Limit <= 0 || n < r.Limit)
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
				if !yield(it.key, it.value) {
					return
				}
				if n++; r.Limit > 0 && n >= r.Limit {
					return
				}
				last = it.key
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

// walk visits the items in [lo, hi) in r's direction until fn returns false.
func (t *memTx) walk(r Range, lo, hi []byte, fn func(item) bool) {
	if r.Reverse {
		visit := func(it item) bool {
			if hi != nil && bytes.Compare(it.key, hi) >= 0 {
				return true // the exclusive upper bound itself
			}
			if lo != nil && bytes.Compare(it.key, lo) < 0 {
				return false
			}
			return fn(it)
		}
		if hi == nil {
			t.tree.Descend(visit)
		} else {
			t.tree.DescendLessOrEqual(item{key: hi}, visit)
		}
		return
	}
	visit := func(it item) bool {
		if hi != nil && bytes.Compare(it.key, hi) >= 0 {
			return false
		}
		return fn(it)
	}
	if lo == nil {
		t.tree.Ascend(visit)
	} else {
		t.tree.AscendGreaterOrEqual(item{key: lo}, visit)
	}
}
