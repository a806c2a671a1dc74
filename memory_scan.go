package keyspace

import (
	"bytes"
	"iter"
)

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
	if t.dir != nil {
		l := t.dir.leafFor(refOf(&k.pivot))
		k.pivot.fence = nil
		return l
	}
	t.seeks++
	t.leaves.DescendLessOrEqual(refOf(&k.pivot), k.foundFn)
	k.pivot.fence = nil
	l := k.found
	k.found = nil
	return l
}

// scanChunk is how many items a writable scan copies out of the tree at a
// time; it re-seeks after each chunk, or at once after a write.
const scanChunk = 64

func (t *memTx) Scan(r Range) iter.Seq2[[]byte, []byte] {
	return func(yield func([]byte, []byte) bool) {
		if !t.scanning(r) {
			return
		}
		if !t.writable {
			// The snapshot is immutable: yield straight from the walk.
			n := 0
			t.walk(r, r.Start, r.End, func(it item) bool {
				if n++; n%stopEvery == 0 && t.stopped() != nil {
					return false
				}
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
			if t.stopped() != nil {
				return
			}
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
