package keyspace_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
	bolt "go.etcd.io/bbolt"
)

func openBolt(t *testing.T, path string, o *keyspace.Options) *keyspace.BoltStore {
	t.Helper()
	s, err := keyspace.Open(path, o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestBoltReopenKeepsData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.db")
	s := openBolt(t, path, nil)
	if err := s.Update(func(tx keyspace.Tx) error { return tx.Put([]byte("k"), []byte("v")) }); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, ro := range []bool{false, true} {
		s = openBolt(t, path, &keyspace.Options{ReadOnly: ro})
		err := s.View(func(tx keyspace.Tx) error {
			v, err := tx.Get([]byte("k"))
			if err == nil && string(v) != "v" {
				t.Errorf("after reopen (read-only %v): %q", ro, v)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if size, err := s.Size(); err != nil || size <= 0 {
			t.Errorf("Size = %d, %v", size, err)
		}
		s.Close()
	}
}

func TestBoltLockedFileFailsWithinTimeout(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.db")
	writer := openBolt(t, path, nil)
	defer writer.Close()
	for _, ro := range []bool{false, true} {
		start := time.Now()
		_, err := keyspace.Open(path, &keyspace.Options{Timeout: 200 * time.Millisecond, ReadOnly: ro})
		if !errors.Is(err, keyspace.ErrLocked) {
			t.Fatalf("second Open (read-only %v) = %v, want ErrLocked", ro, err)
		}
		// Not a speed assertion: a hang would take forever, not 10 s.
		if waited := time.Since(start); waited > 10*time.Second {
			t.Errorf("second Open waited %v with a 200ms timeout", waited)
		}
	}
}

func TestBoltReadOnlyOpenersShareTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.db")
	openBolt(t, path, nil).Close()
	a := openBolt(t, path, &keyspace.Options{ReadOnly: true, Timeout: time.Second})
	defer a.Close()
	b := openBolt(t, path, &keyspace.Options{ReadOnly: true, Timeout: time.Second})
	defer b.Close()
	err := a.Update(func(tx keyspace.Tx) error { return tx.Put([]byte("k"), nil) })
	if !errors.Is(err, keyspace.ErrReadOnly) {
		t.Errorf("Update on a read-only store = %v, want ErrReadOnly", err)
	}
}

func TestBoltBadFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	garbage := make([]byte, 64*1024)
	for i := range garbage {
		garbage[i] = byte(i*7 + 3)
	}
	foreign := filepath.Join(dir, "foreign.db")
	db, err := bolt.Open(foreign, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("other")); return err })
	db.Close()
	emptyBolt := filepath.Join(dir, "empty-bolt.db")
	db, err = bolt.Open(emptyBolt, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	cases := []struct {
		name string
		path string
		ro   bool
		want error
	}{
		{"garbage", write("garbage.db", garbage), false, keyspace.ErrCorrupt},
		{"garbage read-only", write("garbage2.db", garbage), true, keyspace.ErrCorrupt},
		{"text file", write("notes.txt", []byte("hello, this is not a database\n")), false, keyspace.ErrCorrupt},
		{"missing read-only", filepath.Join(dir, "missing.db"), true, os.ErrNotExist},
		{"foreign bbolt", foreign, false, keyspace.ErrNotKeyspace},
		{"foreign bbolt read-only", foreign, true, keyspace.ErrNotKeyspace},
		{"empty bbolt read-only", emptyBolt, true, keyspace.ErrNotKeyspace},
		{"file of no bytes read-only", write("touched.db", nil), true, keyspace.ErrEmptyFile},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := os.ReadFile(tc.path)
			s, err := keyspace.Open(tc.path, &keyspace.Options{ReadOnly: tc.ro, Timeout: time.Second})
			if err == nil {
				s.Close()
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("Open = %v, want %v", err, tc.want)
			}
			after, _ := os.ReadFile(tc.path)
			if string(before) != string(after) {
				t.Error("a failed Open changed the file")
			}
		})
	}
	// A directory is said to be one, not a damaged file, and is left as it was.
	for _, ro := range []bool{false, true} {
		s, err := keyspace.Open(dir, &keyspace.Options{ReadOnly: ro, Timeout: time.Second})
		if err == nil {
			s.Close()
		}
		if err == nil || errors.Is(err, keyspace.ErrCorrupt) || !strings.Contains(err.Error(), "is a directory") {
			t.Errorf("Open(a directory, read-only %v) = %v", ro, err)
		}
	}
	// An empty bbolt file opened read-write becomes a keyspace, and so
	// does a file of no bytes, as a new file does; read-only, the latter
	// is ErrCorrupt too, for callers that test for that alone.
	s, err := keyspace.Open(emptyBolt, nil)
	if err != nil {
		t.Fatalf("Open of an empty bbolt file read-write: %v", err)
	}
	s.Close()
	touched := write("touched2.db", nil)
	if _, err := keyspace.Open(touched, &keyspace.Options{ReadOnly: true}); !errors.Is(err, keyspace.ErrCorrupt) {
		t.Errorf("read-only Open of a file of no bytes = %v, want ErrCorrupt too", err)
	}
	s, err = keyspace.Open(touched, nil)
	if err != nil {
		t.Fatalf("Open of a file of no bytes read-write: %v", err)
	}
	err = s.Update(func(tx keyspace.Tx) error { return tx.Put([]byte("k"), []byte("v")) })
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	s, err = keyspace.Open(touched, &keyspace.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only Open once written: %v", err)
	}
	s.Close()
}

// TestBoltFormatVersion: a new file records FormatVersion in the keyspace
// bucket's sequence, where no scan sees it; a file from before the version
// was recorded (0) opens as it is, untouched; a file of a newer version is
// refused with ErrNewerFormat, read-write and read-only, and left as it
// was.
func TestBoltFormatVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.db")
	s, err := keyspace.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Update(func(tx keyspace.Tx) error { return tx.Put([]byte("k"), []byte("v")) }); err != nil {
		t.Fatal(err)
	}
	if v, err := s.Format(); err != nil || v != keyspace.FormatVersion {
		t.Fatalf("Format of a new file: %d, %v", v, err)
	}
	s.Close()
	sequence := func(set uint64) uint64 { return setFormat(t, path, set) }
	if v := sequence(0); v != keyspace.FormatVersion {
		t.Fatalf("a new file records format %d, want %d", v, keyspace.FormatVersion)
	}
	for _, ro := range []bool{false, true} {
		s, err := keyspace.Open(path, &keyspace.Options{ReadOnly: ro})
		if err != nil {
			t.Fatalf("a file of format 0 (read-only %v): %v", ro, err)
		}
		if v, err := s.Format(); err != nil || v != 0 {
			t.Fatalf("Format of a file of format 0: %d, %v", v, err)
		}
		var keys []string
		s.View(func(tx keyspace.Tx) error {
			for k := range tx.Scan(keyspace.Range{}) {
				keys = append(keys, string(k))
			}
			return nil
		})
		s.Close()
		if !slices.Equal(keys, []string{"k"}) {
			t.Fatalf("keys %q, want only k", keys)
		}
	}
	if v := sequence(keyspace.FormatVersion + 1); v != 0 {
		t.Fatalf("opening a file of format 0 recorded format %d in it", v)
	}
	for _, ro := range []bool{false, true} {
		if s, err := keyspace.Open(path, &keyspace.Options{ReadOnly: ro}); !errors.Is(err, keyspace.ErrNewerFormat) {
			if err == nil {
				s.Close()
			}
			t.Fatalf("a file of a newer format (read-only %v): %v, want ErrNewerFormat", ro, err)
		}
	}
	if v := sequence(keyspace.FormatVersion + 1); v != keyspace.FormatVersion+1 {
		t.Fatalf("a refused open changed the format to %d", v)
	}
}

// setFormat records format set in the keyspace file at path, through bbolt
// itself, and returns the format it recorded before.
func setFormat(t *testing.T, path string, set uint64) (was uint64) {
	t.Helper()
	db, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("keyspace"))
		was = b.Sequence()
		return b.SetSequence(set)
	}); err != nil {
		t.Fatal(err)
	}
	return was
}

// TestRequireFormat: a write in a newer layout raises the version a file
// records, in its transaction (rolled back with it), never lowers it, and
// refuses a version this build does not know or a transaction that cannot
// write; a scan under way when it is raised reads on as before.
func TestRequireFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.db")
	s := openBolt(t, path, nil)
	want := []string{"a", "b", "c"}
	if err := s.Update(func(tx keyspace.Tx) error {
		for _, k := range want {
			if err := tx.Put([]byte(k), nil); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	setFormat(t, path, 1)
	s = openBolt(t, path, nil)
	defer s.Close()
	format := func() uint64 {
		t.Helper()
		v, err := s.Format()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	rollback := errors.New("rolled back")
	if err := s.Update(func(tx keyspace.Tx) error {
		if err := keyspace.RequireFormat(tx, 3); err != nil {
			return err
		}
		return rollback
	}); !errors.Is(err, rollback) {
		t.Fatal(err)
	}
	if v := format(); v != 1 {
		t.Fatalf("a rolled-back RequireFormat(3) left format %d, want 1", v)
	}
	var keys []string
	if err := s.Update(func(tx keyspace.Tx) error {
		for k := range tx.Scan(keyspace.Range{}) {
			keys = append(keys, string(k))
			if err := keyspace.RequireFormat(tx, 3); err != nil {
				return err
			}
		}
		return tx.Err()
	}); err != nil {
		t.Fatal(err)
	}
	if v := format(); v != 3 {
		t.Fatalf("after RequireFormat(3): format %d", v)
	}
	if !slices.Equal(keys, want) {
		t.Fatalf("a scan that raised the format read %q, want %q", keys, want)
	}
	if err := s.Update(func(tx keyspace.Tx) error { return keyspace.RequireFormat(tx, 2) }); err != nil {
		t.Fatal(err)
	}
	if v := format(); v != 3 {
		t.Fatalf("RequireFormat(2) on a file of format 3 left %d", v)
	}
	if err := s.Update(func(tx keyspace.Tx) error {
		return keyspace.RequireFormat(tx, keyspace.FormatVersion+1)
	}); err == nil || !strings.Contains(err.Error(), "this build writes up to") {
		t.Fatalf("RequireFormat of a version this build does not know: %v", err)
	}
	if err := s.View(func(tx keyspace.Tx) error { return keyspace.RequireFormat(tx, 4) }); !errors.Is(err, keyspace.ErrReadOnly) {
		t.Fatalf("RequireFormat in a View: %v, want ErrReadOnly", err)
	}
	if v := format(); v != 3 {
		t.Fatalf("refused calls left format %d, want 3", v)
	}
	s.Close()
	ro := openBolt(t, path, &keyspace.Options{ReadOnly: true})
	err := ro.Update(func(tx keyspace.Tx) error { return keyspace.RequireFormat(tx, 4) })
	ro.Close()
	if !errors.Is(err, keyspace.ErrReadOnly) {
		t.Fatalf("RequireFormat on a read-only store: %v, want ErrReadOnly", err)
	}
	if v := setFormat(t, path, 3); v != 3 {
		t.Fatalf("the file records format %d, want 3", v)
	}
	m := keyspace.NewMemory()
	if err := m.Update(func(tx keyspace.Tx) error { return keyspace.RequireFormat(tx, keyspace.FormatVersion) }); err != nil {
		t.Fatalf("RequireFormat on a memory store: %v", err)
	}
	if err := m.View(func(tx keyspace.Tx) error { return keyspace.RequireFormat(tx, 1) }); !errors.Is(err, keyspace.ErrReadOnly) {
		t.Fatalf("RequireFormat in a memory View: %v, want ErrReadOnly", err)
	}
}
