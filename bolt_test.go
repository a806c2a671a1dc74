package keyspace_test

import (
	"errors"
	"os"
	"path/filepath"
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
	// An empty bbolt file opened read-write becomes a keyspace.
	s, err := keyspace.Open(emptyBolt, nil)
	if err != nil {
		t.Fatalf("Open of an empty bbolt file read-write: %v", err)
	}
	s.Close()
}
