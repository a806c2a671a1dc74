package keyspace

import (
	"bytes"
	"fmt"
)

// NewMemoryWithLeaves returns a memory store whose leaves hold at most max
// pairs, so that tests split, fill and empty leaves all the time. Its
// snapshots never build a directory: every seek descends the tree.
func NewMemoryWithLeaves(max int) *MemoryStore {
	s := newMemory(max)
	s.directories = directoryNever
	return s
}

// NewMemoryWithDirectory is NewMemoryWithLeaves whose snapshots build their
// directory after their first View that seeks, so that Views after it
// seek through the directory.
func NewMemoryWithDirectory(max int) *MemoryStore {
	s := newMemory(max)
	s.directories = directoryAtFirst
	return s
}

// HasDirectory reports whether the published snapshot has built its
// directory.
func (s *MemoryStore) HasDirectory() bool { return s.published.Load().directory.dir.Load() != nil }

// CheckLeaves verifies the invariants of the published leaves (see leaf)
// and that Len counts their pairs.
func (s *MemoryStore) CheckLeaves() error {
	snap := s.published.Load()
	var err error
	var prev *leaf
	n := 0
	snap.leaves.Ascend(func(r fenceRef) bool {
		l := r.leaf
		switch {
		case r != refOf(l):
			err = fmt.Errorf("leaf %q: the tree holds words %x of its fence", l.fence, r.words)
		case prev == nil && len(l.fence) != 0:
			err = fmt.Errorf("first leaf fenced at %q", l.fence)
		case prev != nil && len(l.items) == 0:
			err = fmt.Errorf("leaf %q is empty", l.fence)
		case len(l.items) > s.leafMax:
			err = fmt.Errorf("leaf %q holds %d pairs, more than %d", l.fence, len(l.items), s.leafMax)
		case prev != nil && len(prev.items) > 0 && bytes.Compare(prev.items[len(prev.items)-1].kv, l.fence) >= 0:
			err = fmt.Errorf("leaf %q ends with %q, not below the next fence %q", prev.fence, prev.items[len(prev.items)-1].kv, l.fence)
		}
		if l.shared > len(l.fence) {
			err = fmt.Errorf("leaf %q shares %d bytes, more than its fence", l.fence, l.shared)
			return false
		}
		for i, it := range l.items {
			if bytes.Compare(it.kv, l.fence) < 0 || i > 0 && bytes.Compare(l.items[i-1].kv, it.kv) >= 0 {
				err = fmt.Errorf("leaf %q: key %d %q out of order", l.fence, i, it.kv)
			}
			if !bytes.HasPrefix(it.kv, l.fence[:l.shared]) || it.head != headOf(it.kv, l.shared) {
				err = fmt.Errorf("leaf %q: key %d %q has head %x, not that of its %d shared bytes", l.fence, i, it.kv, it.head, l.shared)
			}
		}
		n += len(l.items)
		prev = l
		return err == nil
	})
	if err == nil && n != snap.n {
		err = fmt.Errorf("leaves hold %d pairs, Len says %d", n, snap.n)
	}
	if d := snap.directory.dir.Load(); err == nil && d != nil {
		// The directory is the tree's fenceRefs, in order.
		i := 0
		snap.leaves.Ascend(func(r fenceRef) bool {
			if i >= len(*d) || (*d)[i] != r {
				err = fmt.Errorf("directory entry %d is not the tree's (%d entries for %d leaves)", i, len(*d), snap.leaves.Len())
				return false
			}
			i++
			return true
		})
		if err == nil && i != len(*d) {
			err = fmt.Errorf("directory holds %d entries for %d leaves", len(*d), i)
		}
	}
	return err
}

// DeleteInBatches is DeleteRange collecting batch keys at a time.
func DeleteInBatches(tx Tx, r Range, batch int) (int, error) { return deleteInBatches(tx, r, batch) }

// SharedPrefixes returns how many bytes each published leaf after the
// first says all its keys share (leaf.shared), in fence order.
func (s *MemoryStore) SharedPrefixes() []int {
	var shared []int
	first := true
	s.published.Load().leaves.Ascend(func(r fenceRef) bool {
		if !first {
			shared = append(shared, r.leaf.shared)
		}
		first = false
		return true
	})
	return shared
}

// Leaves returns how many leaves the published snapshot holds.
func (s *MemoryStore) Leaves() int { return s.published.Load().leaves.Len() }
