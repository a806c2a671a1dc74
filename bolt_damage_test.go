package keyspace_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
)

// damageBase writes a keyspace file of a few dozen pages and returns its
// bytes and the numbers of its pages in use (bbolt grows a file in large
// steps; the pages past its high-water mark are zeros, and those in use
// begin with their own number).
func damageBase(t testing.TB) ([]byte, []int) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "base.db")
	s, err := keyspace.Open(p, &keyspace.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Update(func(tx keyspace.Tx) error {
		for i := range 1000 {
			if err := tx.Put(fmt.Appendf(nil, "key%06d", i), fmt.Appendf(nil, "value-%d-%s", i, "xxxxxxxxxxxxxxxxxxxxxxxx")); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	var used []int
	for page := 2; page < len(data)/pageSize; page++ { // pages 0 and 1 are the metas, which Open checks
		if binary.LittleEndian.Uint64(data[page*pageSize:]) == uint64(page) {
			used = append(used, page)
		}
	}
	return data, used
}

// pageSize is bbolt's page size on the machines this runs on.
const pageSize = 4096

// useDamaged opens the file at p, reads every pair, gets one, writes a
// hundred and closes it. Nothing may panic, every error must wrap
// ErrCorrupt (or, from Open, ErrNotKeyspace), and the file's lock must be
// free afterwards. It reports
// whether any damage was found.
func useDamaged(t *testing.T, p, what string) (found bool) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("%s: panic: %v", what, r)
		}
	}()
	check := func(op string, err error) {
		t.Helper()
		if err != nil && !errors.Is(err, keyspace.ErrCorrupt) {
			t.Fatalf("%s: %s = %v, want nil or ErrCorrupt", what, op, err)
		}
		found = found || err != nil
	}
	s, err := keyspace.Open(p, &keyspace.Options{NoSync: true, Timeout: time.Second})
	if errors.Is(err, keyspace.ErrNotKeyspace) || errors.Is(err, keyspace.ErrNewerFormat) {
		// The root page damaged so that the keyspace bucket's name reads
		// as another's (a foreign file, as far as anyone can tell), or
		// its format version, kept in the bucket's header, as a later
		// one's.
		return true
	}
	if err != nil {
		check("Open", err)
		return found
	}
	check("View", s.View(func(tx keyspace.Tx) error {
		// Read every byte handed out, as a caller would: a slice that
		// reaches past the file's pages would fault here, in the caller's
		// code, where the store cannot recover it.
		var sum byte
		for k, v := range tx.Scan(keyspace.Range{}) {
			for _, b := range k {
				sum += b
			}
			for _, b := range v {
				sum += b
			}
		}
		if err := tx.Err(); err != nil {
			return err
		}
		for i := range 1001 { // every key damageBase wrote, and one it did not
			v, err := tx.Get(fmt.Appendf(nil, "key%06d", i))
			if err != nil && !errors.Is(err, keyspace.ErrNotFound) {
				return err
			}
			for _, b := range v {
				sum += b
			}
		}
		_ = sum
		return nil
	}))
	update := func(tx keyspace.Tx) error {
		for i := range 100 {
			if err := tx.Put(fmt.Appendf(nil, "key%06d", i*30), []byte("new")); err != nil {
				return err
			}
		}
		return nil
	}
	check("Update", s.Update(update))
	// Again: a damaged write that could not be rolled back must not leave
	// the next Update (or Close) waiting for bbolt's writer lock forever.
	check("a second Update", s.Update(update))
	check("Close", s.Close())
	// The lock is free: a damaged transaction was rolled back.
	s, err = keyspace.Open(p, &keyspace.Options{ReadOnly: true, Timeout: 100 * time.Millisecond})
	if errors.Is(err, keyspace.ErrLocked) {
		t.Fatalf("%s: the file is still locked after Close", what)
	}
	if err == nil {
		s.Close()
	}
	return found
}

// TestBoltDamagedPages damages each page of a file in turn (its id, its
// flags, its count, its first element) and uses it: bbolt's assertions on
// a damaged page must come back as errors wrapping ErrCorrupt, never as a
// panic or a lock left held.
func TestBoltDamagedPages(t *testing.T) {
	orig, used := damageBase(t)
	if len(used) < 10 {
		t.Fatalf("only %d pages in use: %v", len(used), used)
	}
	dir := t.TempDir()
	damaged := 0
	for _, page := range used {
		for _, off := range []int{0, 8, 10, 16} {
			for _, x := range []byte{0xff, 0x01} {
				data := append([]byte(nil), orig...)
				data[page*pageSize+off] ^= x
				p := filepath.Join(dir, fmt.Sprintf("p%d-%d-%x.db", page, off, x))
				if err := os.WriteFile(p, data, 0o644); err != nil {
					t.Fatal(err)
				}
				if useDamaged(t, p, fmt.Sprintf("page %d, byte %d ^ %#x", page, off, x)) {
					damaged++
				}
				os.Remove(p)
			}
		}
	}
	if damaged == 0 {
		t.Fatal("no damage was found: the test damages nothing that is read")
	}
	t.Logf("%d damaged files reported as ErrCorrupt", damaged)
}

// TestDamagedLengths damages the key length, then the value length, of the
// first element of each leaf page into about 16 MB, past the file's pages. bbolt hands such
// a pair out without reading it; a caller that read it would fault in its
// own code. The store must see that the pair reaches past the file's pages
// and fail with ErrCorrupt instead.
func TestDamagedLengths(t *testing.T) {
	orig, used := damageBase(t)
	dir := t.TempDir()
	leaves := 0
	for _, page := range used {
		// A leaf page (bbolt's flag 0x02) of pairs, not of the bucket's
		// own entry (an element flagged 0x01), which bbolt reads itself.
		if flags := binary.LittleEndian.Uint16(orig[page*pageSize+8:]); flags&0x02 == 0 || orig[page*pageSize+16]&0x01 != 0 {
			continue
		}
		leaves++
		for _, off := range []int{27, 31} { // the high bytes of the first element's key and value lengths
			data := append([]byte(nil), orig...)
			data[page*pageSize+off] ^= 0x01
			p := filepath.Join(dir, fmt.Sprintf("p%d-%d.db", page, off))
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			if off == 31 { // Get alone must notice a value past the pages, too
				s, err := keyspace.Open(p, nil)
				if err != nil {
					t.Fatal(err)
				}
				noticed := false
				s.View(func(tx keyspace.Tx) error {
					for i := range 1000 {
						_, err := tx.Get(fmt.Appendf(nil, "key%06d", i))
						noticed = noticed || errors.Is(err, keyspace.ErrCorrupt)
					}
					return nil
				})
				s.Close()
				if !noticed {
					t.Errorf("page %d: Get handed out a value damaged into 16 MB", page)
				}
			}
			if !useDamaged(t, p, fmt.Sprintf("page %d, byte %d", page, off)) {
				t.Errorf("page %d, byte %d: a length damaged into 16 MB went unnoticed", page, off)
			}
			os.Remove(p)
		}
	}
	if leaves < 5 {
		t.Fatalf("only %d leaf pages among %v", leaves, used)
	}
}

// FuzzDamagedFile damages a file at two fuzzed places in its pages'
// headers and first elements and uses it, as TestBoltDamagedPages does.
// It leaves each page's overflow count (bytes 12 to 15) alone: a count
// damaged into the millions makes bbolt free millions of pages, which
// takes seconds (it ends, in an error) and trips the fuzzer's hang
// detector.
func FuzzDamagedFile(f *testing.F) {
	orig, used := damageBase(f)
	f.Add(uint32(2), uint8(0), byte(0xff), uint32(7), uint8(10), byte(1))
	f.Add(uint32(3), uint8(8), byte(0x80), uint32(3), uint8(40), byte(0x7f))
	f.Fuzz(func(t *testing.T, page1 uint32, off1 uint8, x1 byte, page2 uint32, off2 uint8, x2 byte) {
		data := append([]byte(nil), orig...)
		for _, d := range []struct {
			page uint32
			off  uint8
			x    byte
		}{{page1, off1, x1}, {page2, off2, x2}} {
			off := int(d.off % 64)
			if off >= 12 && off < 16 {
				off += 4 // not the overflow count
			}
			data[used[int(d.page%uint32(len(used)))]*pageSize+off] ^= d.x
		}
		p := filepath.Join(t.TempDir(), "d.db")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		useDamaged(t, p, "damaged file")
	})
}

// TestCallersPanicsPassThrough: a panic raised by the caller's own code
// (the function of a View or Update, a Scan loop's body, a visitor) is not
// taken for damage: it reaches the caller with its own value, the
// transaction is rolled back, and the store goes on working.
func TestCallersPanicsPassThrough(t *testing.T) {
	p := filepath.Join(t.TempDir(), "k.db")
	s, err := keyspace.Open(p, &keyspace.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Update(func(tx keyspace.Tx) error { return tx.Put([]byte("a"), []byte("1")) }); err != nil {
		t.Fatal(err)
	}
	type boom struct{ where string }
	for _, tc := range []struct {
		where string
		run   func()
	}{
		{"View", func() { s.View(func(keyspace.Tx) error { panic(boom{"View"}) }) }},
		{"Update", func() {
			s.Update(func(tx keyspace.Tx) error { tx.Put([]byte("b"), []byte("2")); panic(boom{"Update"}) })
		}},
		{"Scan body", func() {
			s.View(func(tx keyspace.Tx) error {
				for range tx.Scan(keyspace.Range{}) {
					panic(boom{"Scan body"})
				}
				return nil
			})
		}},
		{"Scan body in Update", func() {
			s.Update(func(tx keyspace.Tx) error {
				for range tx.Scan(keyspace.Range{}) {
					tx.Put([]byte("c"), []byte("3"))
					panic(boom{"Scan body in Update"})
				}
				return nil
			})
		}},
		{"visitor", func() {
			s.View(func(tx keyspace.Tx) error {
				return keyspace.VisitRange(tx, keyspace.Range{}, visitorFunc(func(k, v []byte) bool { panic(boom{"visitor"}) }))
			})
		}},
	} {
		func() {
			defer func() {
				if r := recover(); r != (boom{tc.where}) {
					t.Errorf("%s: recovered %#v, want the caller's own panic", tc.where, r)
				}
			}()
			tc.run()
		}()
	}
	// Rolled back, and the store works.
	err = s.Update(func(tx keyspace.Tx) error {
		for _, k := range []string{"b", "c"} {
			if _, err := tx.Get([]byte(k)); !errors.Is(err, keyspace.ErrNotFound) {
				t.Errorf("%s survived its transaction's panic: %v", k, err)
			}
		}
		return tx.Put([]byte("d"), []byte("4"))
	})
	if err != nil {
		t.Fatal(err)
	}
}

type visitorFunc func(k, v []byte) bool

func (f visitorFunc) Visit(k, v []byte) bool { return f(k, v) }

// TestDamagedRootIsNotReinitialized: a page damaged so that the file's
// root reads as holding no buckets (its element count zeroed) must not be
// taken for a new file and given a fresh keyspace bucket, which would
// write over it and lose every key. Open fails with ErrCorrupt and the
// file is left byte for byte as it was; or, where the zeroed page is not
// the root, whatever is read is the file's own keys or an error.
func TestDamagedRootIsNotReinitialized(t *testing.T) {
	orig, used := damageBase(t)
	dir := t.TempDir()
	refused := 0
	for _, page := range used {
		data := append([]byte(nil), orig...)
		data[page*pageSize+10], data[page*pageSize+11] = 0, 0 // the page's count
		p := filepath.Join(dir, fmt.Sprintf("p%d.db", page))
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if ro, err := keyspace.Open(p, &keyspace.Options{ReadOnly: true, Timeout: time.Second}); err == nil {
			ro.Close()
		} else if !errors.Is(err, keyspace.ErrCorrupt) {
			t.Errorf("page %d: a read-only Open = %v, want ErrCorrupt", page, err)
		}
		s, err := keyspace.Open(p, &keyspace.Options{NoSync: true, Timeout: time.Second})
		if err != nil {
			if !errors.Is(err, keyspace.ErrCorrupt) {
				t.Errorf("page %d: Open = %v, want ErrCorrupt", page, err)
			}
			if after, _ := os.ReadFile(p); string(after) != string(data) {
				t.Errorf("page %d: a refused Open changed the file", page)
			}
			refused++
			continue
		}
		n := 0
		err = s.View(func(tx keyspace.Tx) error {
			for k, v := range tx.Scan(keyspace.Range{}) {
				var i int
				if _, err := fmt.Sscanf(string(k), "key%06d", &i); err != nil || !bytes.HasPrefix(v, fmt.Appendf(nil, "value-%d-", i)) {
					t.Errorf("page %d: read %q = %q, which the file never held", page, k, v)
				}
				n++
			}
			return tx.Err()
		})
		s.Close()
		if err == nil && n == 0 {
			t.Errorf("page %d: the file opened with no keys at all: it was taken for a new one", page)
		}
	}
	if refused == 0 {
		t.Fatal("no page's damage was refused: the test never damaged the root")
	}
}
