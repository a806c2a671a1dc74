package keyspace

import (
	"errors"
	"fmt"
	"io"
	"iter"
)

// errSameStore is Copy's error for a store copied into itself.
var errSameStore = errors.New("source and destination are the same store")

// Copy writes every pair of src into dst and returns how many it wrote.
// It reads src in one View, so the copy is a consistent snapshot however
// many Updates run meanwhile, and writes dst in one Update, so dst gets all
// of it or none. A pair whose key dst already holds takes src's value;
// dst's other keys stay. Being one transaction, it holds a copy of src's
// pairs in memory until dst commits (and bbolt its dirty pages): a
// compacting backup of the 150 MB cities file peaked at 390 MB resident,
// the source's memory map included.
//
// Copy moves a keyspace between backends, as BuntDB's Save and Load do: a
// memory store saved into a bbolt file and loaded back, or a file loaded
// into memory for a batch job. Into an empty bbolt file it is also a
// compaction: bbolt never gives a file's free pages back to the file
// system, and a copy written in key order fills its pages (see
// BoltStore.Backup for a copy of the file as it is).
func Copy(dst, src Store) (int, error) {
	if dst == src {
		return 0, fmt.Errorf("keyspace: copy: %w", errSameStore)
	}
	n := 0
	err := src.View(func(stx Tx) error {
		return dst.Update(func(dtx Tx) error {
			n = 0
			if err := WriteSorted(dtx, owned(stx.Scan(Range{}), &n)); err != nil {
				return err
			}
			return stx.Err()
		})
	})
	if err != nil {
		return 0, fmt.Errorf("keyspace: copy: %w", err)
	}
	return n, nil
}

// owned yields copies of the pairs of seq, which WriteSorted may keep past
// the source's transaction (a bbolt View's slices are its memory map's),
// carved from shared chunks rather than a small allocation each, and
// counts them in *n.
func owned(seq iter.Seq2[[]byte, []byte], n *int) iter.Seq2[[]byte, []byte] {
	return func(yield func(k, v []byte) bool) {
		var chunk []byte
		for k, v := range seq {
			size := len(k) + len(v)
			if cap(chunk)-len(chunk) < size {
				chunk = make([]byte, 0, max(size, 1<<20))
			}
			start := len(chunk)
			chunk = append(append(chunk, k...), v...)
			pair := chunk[start:len(chunk):len(chunk)]
			*n++
			// The key's capacity runs on over its value: the memory
			// backend keeps such a pair as it is (putOwned).
			if !yield(pair[:len(k)], pair[len(k):]) {
				return
			}
		}
	}
}

// Backup writes a copy of the file to w as of the latest committed Update,
// page for page, while other transactions go on (bbolt's Tx.WriteTo in a
// View), and returns the bytes written. The copy is a keyspace file: Open
// it, or put it in place of a damaged file. It copies the pages as they
// are, free ones too; Copy into a new file writes a compacted one.
func (s *BoltStore) Backup(w io.Writer) (int64, error) {
	var n int64
	err := s.View(func(tx Tx) error {
		var err error
		n, err = tx.(*boltTx).tx.WriteTo(w)
		return err
	})
	if err != nil {
		return n, fmt.Errorf("keyspace: backup %s: %w", s.path, err)
	}
	return n, nil
}
