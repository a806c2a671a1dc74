package keyspace

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"unsafe"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// A damaged bbolt file (a flipped bit, a page overwritten, a copy cut
// short) passes Open when its meta pages are intact, and bbolt finds the
// damage only when a transaction reads the page: its assertions panic
// ("page 2: has unexpected type/flags: fd", "Page expected to be: 2, but
// self identifies as 253"), and a page id past the end of the file is a
// memory fault. Neither may crash the caller: the store turns them into
// errors wrapping ErrCorrupt, which a transaction reports as its Err and
// View and Update return.
//
// The rule that keeps this from swallowing the caller's own panics:
//
//   - t.inBolt is true exactly while a call into bbolt runs, and every
//     boltTx entry point that calls bbolt defers recoverDamage;
//   - recoverDamage calls recover only when t.inBolt is set, so a panic
//     raised by the caller's function or loop body (inBolt false) passes
//     through untouched, with its stack, to roll the transaction back as
//     Update documents.
//
// Open, View and Update set debug.SetPanicOnFault for their goroutine, so
// that a fault inside bbolt's memory map is a panic recoverDamage can
// recover rather than the end of the process. A damaged transaction is
// rolled back, never kept for reuse.

// damageError is the error for a panic bbolt raised reading a damaged file.
func damageError(r any) error {
	return fmt.Errorf("%w: a damaged page (bbolt: %v)", ErrCorrupt, r)
}

// damagedOr returns err, or for an error that only a damaged page can
// cause an error wrapping ErrCorrupt: the keyspace bucket holds no
// buckets, so a key that bbolt finds flagged as one (ErrIncompatibleValue)
// was damaged, and a write at a negative offset in the file (os.File's
// WriteAt refuses it with a PathError saying so) is a page number
// damaged into a huge one.
func damagedOr(err error) error {
	var pathErr *os.PathError
	if errors.Is(err, bolterrors.ErrIncompatibleValue) ||
		errors.As(err, &pathErr) && pathErr.Op == "writeat" && strings.Contains(pathErr.Err.Error(), "negative offset") {
		return damageError(err)
	}
	return err
}

// recoverDamage turns a panic raised inside bbolt (t.inBolt still set)
// into an error wrapping ErrCorrupt, recorded as the transaction's Err and
// stored in *err when err is not nil. It must be deferred directly.
func (t *boltTx) recoverDamage(err *error) {
	if !t.inBolt {
		return
	}
	t.inBolt = false
	r := recover()
	if r == nil {
		return
	}
	e := damageError(r)
	t.damaged = true
	t.setErr(e)
	if err != nil {
		*err = e
	}
}

// faultsPanic makes memory faults on this goroutine panics, until the
// function it returns restores the setting.
func faultsPanic() (restore func()) {
	old := debug.SetPanicOnFault(true)
	return func() { debug.SetPanicOnFault(old) }
}

// beginGuarded begins a bbolt transaction and finds the keyspace bucket,
// reporting a damaged file as an error.
func beginGuarded(db *bolt.DB, writable bool) (btx *bolt.Tx, b *bolt.Bucket, err error) {
	defer func() {
		if r := recover(); r != nil {
			if btx != nil {
				rollbackGuarded(btx)
			}
			btx, b, err = nil, nil, damageError(r)
		}
	}()
	btx, err = db.Begin(writable)
	if err != nil {
		return nil, nil, err
	}
	return btx, btx.Bucket(bucketName), nil
}

// commitGuarded commits btx, reporting a damaged file as an error; a
// commit that panicked is rolled back, and stuck reports whether that
// rollback could not finish (rollbackGuarded).
func commitGuarded(btx *bolt.Tx) (stuck bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			stuck = !rollbackGuarded(btx)
			err = damageError(r)
		}
	}()
	return false, btx.Commit()
}

// rollbackGuarded rolls btx back, ignoring what a damaged file makes it
// raise, and reports whether the rollback finished. A write transaction's
// rollback first gives its pages back to bbolt's free list, and a free
// list read from a damaged page can refuse them with a panic ("freed page
// was allocated by the same transaction"); the rollback then stops before
// it releases bbolt's writer lock, which nothing can release afterwards.
// The store is stuck (BoltStore.stuck): its Updates fail at once instead
// of waiting for the lock forever, and Close closes the file itself.
func rollbackGuarded(btx *bolt.Tx) (finished bool) {
	defer func() {
		if recover() != nil {
			finished = false
		}
	}()
	_ = btx.Rollback()
	return true
}

// A page element gives the length and the position of its key and value,
// and bbolt makes slices of the memory map from them without reading
// either. Damaged, they reach past the file's pages: bbolt hands such a
// key or value out untouched, and the first read of it, in the caller's
// code, would fault there, beyond recoverDamage's reach. So every pair a
// transaction hands out is checked first (intact): a key longer than
// MaxKeySize (no Put stores one), or bytes of the map that run past the
// file's last page, is damage, and the transaction fails with ErrCorrupt
// instead. (FuzzDamagedFile found such pairs passing a whole Scan.)

// pageSpan is where a transaction's pages lie in memory: the memory map
// from its start up to the file's size as the transaction sees it (every
// page it can read lies below that).
type pageSpan struct{ start, end uintptr }

// pagesOf returns the span of btx's pages. The map cannot move while btx
// is open: bbolt remaps only in a writer's commit, which waits for read
// transactions to end.
func pagesOf(btx *bolt.Tx) pageSpan {
	start := btx.DB().Info().Data
	return pageSpan{start, start + uintptr(btx.Size())}
}

// intact reports whether a key and value bbolt handed out can be whole: the
// key no longer than MaxKeySize, and each, if it starts among the pages,
// ending there. In a read transaction every pair lies among the pages, so
// one that starts elsewhere is damaged too; a write transaction's pairs
// may be ones it put, which lie in the Go heap.
func (t *boltTx) intact(k, v []byte) bool {
	return len(k) <= MaxKeySize && t.pages.holds(k, !t.writable) && t.pages.holds(v, !t.writable)
}

// holds reports whether b lies within the pages, or starts outside them
// and need not be inside.
func (s pageSpan) holds(b []byte, mustBeInside bool) bool {
	if len(b) == 0 {
		return true
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if p < s.start || p >= s.end {
		return !mustBeInside
	}
	return uintptr(len(b)) <= s.end-p
}

// brokenPair records a pair that is not intact as damage and returns the
// error. It reads neither slice, only their lengths.
func (t *boltTx) brokenPair(k, v []byte) error {
	e := fmt.Errorf("%w: a damaged page (a key of %d bytes and a value of %d bytes that reach past the file's pages)", ErrCorrupt, len(k), len(v))
	t.damaged = true
	t.setErr(e)
	return e
}
