package keyspace

import (
	"math"
	"sync/atomic"

	"github.com/google/btree"
)

// A directory is a published snapshot's leaves in fence order, in one
// array of fenceRefs: what a View's seeks bisect instead of descending
// the tree, once building it has paid (directoryEvery).
//
// On 1,000,000 points, where a query finds its own data cold, the descent
// of google/btree was the largest part of a 1 km radius query's misses
// (bench/NOTES.md): each level is a node, its items and its children, read
// one after another, and the bottom level's nodes, over a megabyte of
// them, are never all in the caches. The same bisection over one array
// touches fewer lines, and the middle of the array, where every search
// begins, stays cached. In a copy of the bench runner's loop (16 MB
// written between peers, three runs of each build alternated) a 1 km
// query took 1.61, 1.62 and 1.67 times the R-tree's median instead of
// 1.74, 1.75 and 1.87. Warm, on 100,000 keys, a View's Get took 0.84 of
// its time and a Get in a long View 0.91 (the root package's benchmarks);
// on 100,000 points a 1 km query ran as many instructions as before.
//
// Invariants: a directory holds exactly its snapshot's fenceRefs, in
// order, and never changes once stored; the snapshot never changes either
// (MemoryStore), so its leaves stay valid as long as it does. Update
// transactions never use one: their tree changes as they write.
type directory []fenceRef

// newDirectory collects the leaves of a published tree.
func newDirectory(leaves *btree.BTreeG[fenceRef]) *directory {
	d := make(directory, 0, leaves.Len())
	leaves.Ascend(func(r fenceRef) bool {
		d = append(d, r)
		return true
	})
	return &d
}

// leafFor returns the leaf with the greatest fence ≤ the probe's: the
// first leaf, fenced at the empty key, when every other fence is greater.
func (d *directory) leafFor(probe fenceRef) *leaf {
	refs := *d
	lo, hi := 1, len(refs) // refs[0] is the first leaf, ≤ every key
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if refLess(probe, refs[m]) {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return refs[lo-1].leaf
}

// directoryEvery is how many leaves a snapshot holds for each seek its
// Views make before it builds its directory. Building one copies every
// leaf's fenceRef once, so a snapshot gets one when that is small next to
// the work already done on it: an Update that wrote at least as many pairs
// as the tree has leaves (a bulk load) builds it as it publishes, and
// otherwise the snapshot's Views build it after leaves/directoryEvery
// seeks, at most directoryEvery copies a seek. A store whose every View
// follows a small write (each snapshot read once) never builds one.
const directoryEvery = 4

// A directoryRule is when a store's snapshots build their directory.
type directoryRule int8

const (
	directoryByCost  directoryRule = iota // as directoryEvery says
	directoryAtFirst                      // after the first View that seeks, and not as an Update publishes (tests)
	directoryNever                        // tests of the tree's own descent
)

// directoryAfter is how many seeks a snapshot of n leaves serves before
// it builds its directory.
func (s *MemoryStore) directoryAfter(n int) int64 {
	switch s.directories {
	case directoryAtFirst:
		return 1
	case directoryNever:
		return math.MaxInt64
	}
	return int64(n / directoryEvery)
}

// The directory's state in a snapshot.
type snapshotDirectory struct {
	dir      atomic.Pointer[directory]
	seeks    atomic.Int64 // made by its Views without one, counted as each ends
	building atomic.Bool  // one View builds it
}

// countSeeks adds a finished View's seeks to its snapshot's, and builds
// the snapshot's directory when they reach directoryAfter.
func (s *MemoryStore) countSeeks(snap *snapshot, seeks int64) {
	if seeks == 0 || snap.directory.dir.Load() != nil {
		return
	}
	if snap.directory.seeks.Add(seeks) < s.directoryAfter(snap.leaves.Len()) {
		return
	}
	if snap.directory.building.CompareAndSwap(false, true) {
		snap.directory.dir.Store(newDirectory(snap.leaves))
	}
}
