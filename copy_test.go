package keyspace_test

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/storetest"
)

// fill writes random pairs into s (keys with zero bytes and shared
// prefixes, empty values, values past the memory backend's slab share)
// and returns them.
func fill(t *testing.T, s keyspace.Store, r *rand.Rand, n int) storetest.Model {
	t.Helper()
	m := storetest.Model{}
	err := s.Update(func(tx keyspace.Tx) error {
		for i := range n {
			k := fmt.Sprintf("k\x00%d/%d", r.IntN(50), r.IntN(1000))
			v := bytes.Repeat([]byte{byte(i)}, []int{0, 1, 40, 20_000}[r.IntN(4)])
			m[k] = string(v)
			if err := tx.Put([]byte(k), v); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCopyBetweenBackends: Copy from each backend into each (empty, and
// holding keys of its own) leaves dst holding src's pairs over its own,
// checked against a merge of the two models; src is unchanged.
func TestCopyBetweenBackends(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, from := range storetest.Backends() {
		for _, to := range storetest.Backends() {
			for _, full := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s to %s, full %v", from.Name, to.Name, full), func(t *testing.T) {
					src, dst := from.Open(t), to.Open(t)
					want := fill(t, src, r, 500)
					before := storetest.Model{}
					if full {
						before = fill(t, dst, r, 300)
					}
					n, err := keyspace.Copy(dst, src)
					if err != nil {
						t.Fatal(err)
					}
					if n != len(want) {
						t.Errorf("Copy wrote %d pairs, src holds %d", n, len(want))
					}
					merged := before.Clone()
					maps.Copy(merged, want)
					if got := storetest.Contents(t, dst); !maps.Equal(got, merged) {
						t.Errorf("dst holds %d pairs, want %d (src's over its own)", len(got), len(merged))
					}
					if got := storetest.Contents(t, src); !maps.Equal(got, want) {
						t.Error("Copy changed src")
					}
				})
			}
		}
	}
}

// TestCopyIntoItself is an error, not a deadlock.
func TestCopyIntoItself(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		if _, err := keyspace.Copy(s, s); err == nil {
			t.Error("Copy(s, s) = nil")
		}
	})
}

// TestCopyFromADamagedFile: a copy that meets a damaged page fails with
// ErrCorrupt and leaves dst as it was.
func TestCopyFromADamagedFile(t *testing.T) {
	orig, used := damageBase(t)
	dir := t.TempDir()
	failed := 0
	for _, page := range used {
		dst := keyspace.NewMemory()
		before := fill(t, dst, rand.New(rand.NewPCG(7, 8)), 100)
		data := append([]byte(nil), orig...)
		data[page*pageSize+8] ^= 0xff // the page's flags
		p := filepath.Join(dir, fmt.Sprintf("p%d.db", page))
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		src, err := keyspace.Open(p, &keyspace.Options{ReadOnly: true})
		if err != nil {
			continue // found by Open
		}
		_, err = keyspace.Copy(dst, src)
		src.Close()
		if err == nil {
			continue // a page the copy does not read
		}
		failed++
		if !errors.Is(err, keyspace.ErrCorrupt) {
			t.Errorf("page %d: Copy = %v, want ErrCorrupt", page, err)
		}
		if got := storetest.Contents(t, dst); !maps.Equal(got, before) {
			t.Fatalf("page %d: a failed copy changed dst", page)
		}
	}
	if failed == 0 {
		t.Fatal("no copy met the damage: the test checks nothing")
	}
}

// TestBackupIsASnapshot: Backup, run while Updates commit, writes a file
// that Open reads and that holds exactly the state after one of them:
// each Update i sets "n" to i and adds "k<i>", so a consistent copy with
// n = j holds k0 … kj and nothing else.
func TestBackupIsASnapshot(t *testing.T) {
	dir := t.TempDir()
	s, err := keyspace.Open(filepath.Join(dir, "k.db"), &keyspace.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	update := func(i int) error {
		return s.Update(func(tx keyspace.Tx) error {
			if err := tx.Put([]byte("n"), []byte(strconv.Itoa(i))); err != nil {
				return err
			}
			return tx.Put(fmt.Appendf(nil, "k%05d", i), bytes.Repeat([]byte("v"), 500))
		})
	}
	if err := update(0); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var committed atomic.Int64
	stop, writerDone := make(chan struct{}), make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(writerDone)
		for i := 1; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if err := update(i); err != nil {
				t.Error(err)
				return
			}
			committed.Store(int64(i))
		}
	}()
	for round := range 5 {
		for committed.Load() < int64(20*round) { // Updates commit between the backups
			select {
			case <-writerDone:
				t.Fatal("the writer stopped")
			default:
				runtime.Gosched()
			}
		}
		var buf bytes.Buffer
		n, err := s.Backup(&buf)
		if err != nil || n != int64(buf.Len()) {
			t.Fatalf("Backup = %d, %v; wrote %d bytes", n, err, buf.Len())
		}
		p := filepath.Join(dir, fmt.Sprintf("backup%d.db", round))
		if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		b, err := keyspace.Open(p, &keyspace.Options{ReadOnly: true})
		if err != nil {
			t.Fatalf("the backup does not open: %v", err)
		}
		got := storetest.Contents(t, b)
		b.Close()
		last, err := strconv.Atoi(got["n"])
		if err != nil {
			t.Fatalf("backup %d: n = %q", round, got["n"])
		}
		want := storetest.Model{"n": got["n"]}
		for i := range last + 1 {
			want[fmt.Sprintf("k%05d", i)] = string(bytes.Repeat([]byte("v"), 500))
		}
		if !maps.Equal(got, want) {
			t.Fatalf("backup %d at n = %d holds %d keys, want %d", round, last, len(got), len(want))
		}
		if last < 20*round {
			t.Fatalf("backup %d at n = %d, after %d Updates had committed", round, last, 20*round)
		}
	}
	close(stop)
	wg.Wait()
}
