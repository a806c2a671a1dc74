package keyspace

import (
	"bytes"
	"fmt"
)

// NewMemoryWithLeaves returns a memory store whose leaves hold at most max
// pairs, so that tests split, fill and empty leaves all the time.
func NewMemoryWithLeaves(max int) *MemoryStore { return newMemory(max) }

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
	return err
}
