package keyspace

import (
	"bytes"
	"fmt"
	"testing"
	"unsafe"
)

// TestPack: pack lays a leaf's small pairs side by side in key order with
// their bytes unchanged, leaves large pairs where they were, and does not
// touch the pairs it copied from (a snapshot may hold them).
func TestPack(t *testing.T) {
	var items []item
	var originals [][]byte
	for i := range 20 {
		key := fmt.Appendf(nil, "key%02d", i)
		value := bytes.Repeat([]byte{byte(i)}, i%5) // some empty
		if i == 7 {
			value = make([]byte, packMax) // too large to pack
		}
		kv, _ := ownedCopy(key, value)
		items = append(items, item{kv: kv})
		originals = append(originals, kv[:cap(kv):cap(kv)])
	}
	snapshot := bytes.Clone(bytes.Join(originals, nil))
	l := &leaf{items: items}
	l.pack()

	var packedEnd uintptr // where the last packed pair ends
	for i, it := range l.items {
		key, value := it.key(), it.value()
		wantKey := fmt.Appendf(nil, "key%02d", i)
		if !bytes.Equal(key, wantKey) || !bytes.Equal(value, originals[i][len(wantKey):]) {
			t.Fatalf("pair %d is %q=%q after pack", i, key, value)
		}
		start := uintptr(unsafe.Pointer(unsafe.SliceData(it.kv)))
		moved := start != uintptr(unsafe.Pointer(&originals[i][0]))
		switch {
		case i == 7:
			if moved {
				t.Errorf("pair 7, %d bytes, was copied", cap(it.kv))
			}
			continue
		case !moved:
			t.Errorf("pair %d was not copied", i)
		case i > 0 && start != packedEnd:
			t.Errorf("pair %d does not follow the pair packed before it", i)
		}
		packedEnd = start + uintptr(cap(it.kv))
	}
	if !bytes.Equal(bytes.Join(originals, nil), snapshot) {
		t.Error("pack changed the pairs it copied from")
	}
}
