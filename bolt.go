package keyspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"os"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// DefaultTimeout is how long Open waits for another process to release the
// file lock when Options.Timeout is zero.
const DefaultTimeout = 3 * time.Second

// bucketName is the one top-level bbolt bucket that holds the keyspace.
var bucketName = []byte("keyspace")

// Options configure Open. The zero value (or nil) opens the file read-write,
// creating it if needed, and waits up to DefaultTimeout for the file lock.
type Options struct {
	// Timeout is how long to wait for the file lock held by another
	// process. Zero means DefaultTimeout; a negative value fails at once.
	// bbolt itself would wait forever on zero: keyspace never does.
	Timeout time.Duration
	// ReadOnly opens the file with a shared lock, so several read-only
	// processes may open it together. Update fails with ErrReadOnly, and a
	// missing file is an error (wrapping os.ErrNotExist) instead of being
	// created. A process holding the file read-write excludes read-only
	// openers until it closes: bbolt's lock is per file, not per
	// transaction.
	ReadOnly bool
	// NoSync skips fsync on commit. Faster, but a crash can lose or corrupt
	// recent commits. For tests and throwaway loads only.
	NoSync bool
	// Mode is the permission of a newly created file (default 0o644).
	Mode os.FileMode
	// MmapSize is the initial size of bbolt's memory map (default
	// DefaultMmapSize). While the file fits in it, a writer never waits for
	// open read transactions; past it, each growth of the map waits until
	// every reader has finished. It reserves address space, not memory.
	MmapSize int
}

// DefaultMmapSize is the default Options.MmapSize: 1 GiB of address space.
const DefaultMmapSize = 1 << 30

// BoltStore is the embedded, on-disk Store, backed by a go.etcd.io/bbolt
// file. Create one with Open.
type BoltStore struct {
	db       *bolt.DB
	path     string
	readOnly bool
	reads    readers // idle read transactions for the next View
	// file is the handle bbolt opened the file with (bolt.Options.OpenFile),
	// for Close to close when bbolt cannot (stuck).
	file *os.File
	// stuck: a damaged write transaction could not be rolled back, and
	// bbolt's writer lock is held for good (rollbackGuarded).
	stuck atomic.Bool
	batch batcher // Batch's waiting calls (batch.go)
}

var _ Store = (*BoltStore)(nil)

// Open opens (or creates) the keyspace file at path.
//
// Errors wrap ErrLocked (another process holds the lock past the timeout),
// ErrCorrupt (not a bbolt file), ErrNotKeyspace (a bbolt file of someone
// else's), ErrNewerFormat (a keyspace file of a later FormatVersion), or
// the operating system's error (os.ErrNotExist for a missing
// file opened read-only, os.ErrPermission, ...).
func Open(path string, opts *Options) (_ *BoltStore, err error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	switch {
	case o.Timeout == 0:
		o.Timeout = DefaultTimeout
	case o.Timeout < 0:
		o.Timeout = time.Nanosecond
	}
	if o.Mode == 0 {
		o.Mode = 0o644
	}
	if o.MmapSize <= 0 {
		o.MmapSize = DefaultMmapSize
	}
	if o.ReadOnly {
		// bbolt would report a missing file only after trying to lock it;
		// say plainly what is wrong. An empty file it would try to write
		// its first pages to, and fail with "bad file descriptor" on the
		// read-only handle; a writable Open makes it a database.
		fi, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("keyspace: open %s read-only: %w", path, err)
		}
		if fi.Mode().IsRegular() && fi.Size() == 0 {
			return nil, fmt.Errorf("keyspace: open %s read-only: %w: %w", path, ErrCorrupt, ErrEmptyFile)
		}
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		// Read-only, bbolt would read it as a damaged file.
		return nil, fmt.Errorf("keyspace: open %s: it is a directory, not a database file", path)
	}
	defer faultsPanic()()
	defer func() {
		// bbolt validates its meta pages, but a hostile file must never
		// crash the caller (bolt_damage.go).
		if r := recover(); r != nil {
			err = fmt.Errorf("keyspace: open %s: %w (%v)", path, ErrCorrupt, r)
		}
	}()
	var file *os.File
	db, err := bolt.Open(path, o.Mode, &bolt.Options{
		OpenFile: func(name string, flag int, mode os.FileMode) (*os.File, error) {
			f, err := os.OpenFile(name, flag, mode)
			file = f
			return f, err
		},
		Timeout:         o.Timeout,
		ReadOnly:        o.ReadOnly,
		NoSync:          o.NoSync,
		InitialMmapSize: o.MmapSize,
		FreelistType:    bolt.FreelistMapType,
		// Nothing reads bbolt's statistics, and merging them takes every
		// transaction through one more lock, which concurrent Views
		// contend for (bbolt's doc). One View at a time shows no change.
		NoStatistics: true,
	})
	if pathErr := (*os.PathError)(nil); errors.As(err, &pathErr) && pathErr.Path == path {
		return nil, fmt.Errorf("keyspace: %w", err) // it names the path already
	}
	if err != nil {
		return nil, fmt.Errorf("keyspace: open %s: %w", path, classifyOpenError(err))
	}
	s := &BoltStore{db: db, path: path, readOnly: o.ReadOnly, file: file}
	if err := s.init(); err != nil {
		db.Close()
		return nil, fmt.Errorf("keyspace: open %s: %w", path, err)
	}
	return s, nil
}

// classifyOpenError maps bbolt's errors to this package's sentinels.
func classifyOpenError(err error) error {
	var pathErr *os.PathError
	switch {
	case errors.Is(err, bolterrors.ErrTimeout):
		return ErrLocked
	case errors.As(err, &pathErr):
		return err
	default:
		// invalid meta, checksum, version mismatch, file too small, ...
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
}

// newFileTxID is the transaction id a new bbolt file's meta pages hold
// (they are written with ids 0 and 1, and the later one is current) until
// its first commit.
const newFileTxID = 1

// init makes sure the file holds the keyspace bucket of a format this
// build reads, creating it in a new file opened read-write (format.go).
func (s *BoltStore) init() error {
	check := func(tx *bolt.Tx) (found bool, err error) {
		if b := tx.Bucket(bucketName); b != nil {
			return true, checkFormat(b)
		}
		c := tx.Cursor()
		if k, _ := c.First(); bytes.Equal(k, bucketName) {
			return false, damageError(fmt.Sprintf("the entry of the %q bucket is not a bucket", k))
		} else if k != nil {
			return false, fmt.Errorf("%w (it has a bucket %q and no %q)", ErrNotKeyspace, k, bucketName)
		}
		return false, nil
	}
	// A file that has the bucket is only read: opening it writes nothing.
	var found bool
	var txid int
	err := s.db.View(func(tx *bolt.Tx) (err error) {
		found, err = check(tx)
		txid = tx.ID()
		return err
	})
	switch {
	case err != nil || found:
		return err
	case txid > newFileTxID:
		// Transactions have committed, yet the root holds nothing: a
		// damaged root page that reads as empty, or a file another
		// program emptied. Creating the bucket would write over it as
		// though it were new.
		return fmt.Errorf("%w: no buckets in a file that has committed %d transactions (a damaged root page, or a file another program emptied)", ErrCorrupt, txid-newFileTxID)
	case s.readOnly:
		return fmt.Errorf("%w (empty bbolt file)", ErrNotKeyspace)
	}
	return damagedOr(s.db.Update(func(tx *bolt.Tx) error {
		found, err := check(tx)
		if err != nil || found {
			return err
		}
		b, err := tx.CreateBucket(bucketName)
		if err != nil {
			return err
		}
		return b.SetSequence(FormatVersion)
	}))
}

// Path returns the file name the store was opened with.
func (s *BoltStore) Path() string { return s.path }

// Size returns the size of the file in bytes, as last committed.
func (s *BoltStore) Size() (int64, error) {
	var size int64
	err := s.View(func(tx Tx) error {
		size = tx.(*boltTx).tx.Size()
		return nil
	})
	return size, err
}

// View runs fn in a read-only bbolt transaction on the latest committed
// snapshot: one kept from an earlier View when it is still on it (see
// readers), else a new one.
func (s *BoltStore) View(fn func(tx Tx) error) error {
	return s.ViewContext(context.Background(), fn)
}

// ViewContext is View under ctx (see Store).
func (s *BoltStore) ViewContext(ctx context.Context, fn func(tx Tx) error) error {
	if ctx.Err() != nil {
		return stoppedError(ctx)
	}
	defer faultsPanic()()
	p, ok, gen := s.reads.take()
	if !ok {
		btx, b, err := s.begin(false)
		if err != nil {
			return err
		}
		p = pooledRead{tx: btx, b: b, gen: gen, pages: pagesOf(btx)}
	}
	t := &boltTx{tx: p.tx, b: p.b, pages: p.pages}
	t.under(ctx)
	t.visit.c, t.visit.end = p.cur, p.end[:0]
	finished := false
	defer func() {
		t.closed = true
		if finished && !t.damaged {
			p.cur, p.end = t.visit.c, t.visit.end[:0]
			s.reads.give(p)
		} else {
			rollbackGuarded(p.tx) // fn panicked, or the file is damaged
		}
	}()
	err := fn(t)
	finished = true
	if err != nil {
		return err
	}
	return t.err
}

// Update runs fn in a read-write bbolt transaction.
func (s *BoltStore) Update(fn func(tx Tx) error) error {
	return s.UpdateContext(context.Background(), fn)
}

// UpdateContext is Update under ctx (see Store).
func (s *BoltStore) UpdateContext(ctx context.Context, fn func(tx Tx) error) error {
	if ctx.Err() != nil {
		return stoppedError(ctx)
	}
	if s.readOnly {
		return fmt.Errorf("keyspace: update %s: %w (opened read-only)", s.path, ErrReadOnly)
	}
	if s.stuck.Load() {
		return fmt.Errorf("keyspace: update %s: %w (a damaged write could not be rolled back: close the store and restore the file)", s.path, ErrCorrupt)
	}
	defer faultsPanic()()
	s.reads.beginUpdate()
	defer s.reads.endUpdate()
	btx, b, err := s.begin(true)
	if err != nil {
		return err
	}
	t := &boltTx{tx: btx, b: b, pages: pagesOf(btx), txState: txState{writable: true}}
	t.under(ctx)
	committed := false
	defer func() {
		t.closed = true
		if !committed && !rollbackGuarded(btx) {
			s.stuck.Store(true)
		}
	}()
	if err := fn(t); err != nil {
		return err
	}
	if err := t.stopped(); err != nil {
		return err
	}
	if t.err != nil {
		return t.err
	}
	committed = true // commitGuarded rolls back what it cannot commit
	stuck, err := commitGuarded(btx)
	if stuck {
		s.stuck.Store(true)
	}
	if err := damagedOr(err); err != nil && !errors.Is(err, ErrCorrupt) {
		return fmt.Errorf("keyspace: commit: %w", err)
	} else if err != nil {
		return err
	}
	return nil
}

// Batch runs fn in an Update shared with other goroutines' concurrent
// Batch calls, which share its fsync (see Store and batch.go).
func (s *BoltStore) Batch(fn func(tx Tx) error) error {
	return s.BatchContext(context.Background(), fn)
}

// BatchContext is Batch under ctx (see Store).
func (s *BoltStore) BatchContext(ctx context.Context, fn func(tx Tx) error) error {
	return s.batch.batch(s.UpdateContext, ctx, fn)
}

// begin begins a bbolt transaction and finds the keyspace bucket.
func (s *BoltStore) begin(writable bool) (*bolt.Tx, *bolt.Bucket, error) {
	btx, b, err := beginGuarded(s.db, writable)
	switch {
	case errors.Is(err, bolterrors.ErrDatabaseNotOpen):
		return nil, nil, ErrClosed
	case errors.Is(err, ErrCorrupt):
		return nil, nil, err
	case err != nil:
		return nil, nil, fmt.Errorf("keyspace: begin: %w", err)
	}
	return btx, b, nil
}

// Close closes the file, waiting for running transactions to finish.
//
// A store stuck by a damaged write that could not be rolled back (see
// rollbackGuarded) holds bbolt's writer lock for good, and bbolt's Close
// would wait for it forever: Close then releases the file's lock for
// other processes and closes the file itself, and returns an error
// wrapping ErrCorrupt. The memory map stays until the process ends.
func (s *BoltStore) Close() error {
	s.reads.close()
	if s.stuck.Load() {
		if s.file != nil {
			unlockFile(s.file)
			s.file.Close()
		}
		return fmt.Errorf("keyspace: close %s: %w (closed the file directly: a damaged write could not be rolled back)", s.path, ErrCorrupt)
	}
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("keyspace: close %s: %w", s.path, err)
	}
	return nil
}

// boltTx is a Tx over one bbolt transaction.
type boltTx struct {
	txState
	tx *bolt.Tx
	b  *bolt.Bucket
	// inBolt is set while a call into bbolt runs, damaged once one has
	// panicked on a damaged file or handed out a pair that reaches past
	// pages (bolt_damage.go).
	inBolt, damaged bool
	pages           pageSpan // where the transaction's pages lie in memory
	// visit is the cursor of a View's forward visits, kept from one to
	// the next (visitForward).
	visit struct {
		c     *bolt.Cursor
		k, v  []byte // where c is
		ended bool   // the last visit ran up to its End: every key before k is < end
		end   []byte // that End, copied
		each  oneOf  // visitRanges' visitor of each range
	}
}

func (t *boltTx) Get(key []byte) (v []byte, err error) {
	if err := t.usable(false); err != nil {
		return nil, err
	}
	if err := checkKey(key); err != nil {
		return nil, err
	}
	defer t.recoverDamage(&err)
	t.inBolt = true
	v = t.b.Get(key)
	var k []byte
	if v == nil {
		// bbolt returns nil both for a missing key and, on some pages, for
		// an empty value: tell them apart with a cursor.
		k, _ = t.b.Cursor().Seek(key)
	}
	t.inBolt = false
	if !t.intact(nil, v) {
		return nil, t.brokenPair(key, v)
	}
	switch {
	case v != nil:
		return v, nil
	case k != nil && bytes.Equal(k, key):
		return []byte{}, nil
	}
	return nil, ErrNotFound
}

func (t *boltTx) Put(key, value []byte) error {
	if err := t.usable(true); err != nil {
		return err
	}
	if err := checkPut(key, value); err != nil {
		return err
	}
	// bbolt keeps the slices until commit; the caller may reuse theirs.
	key, value = ownedCopy(key, value)
	return t.putOwned(key, value, false)
}

// putOwned stores slices that nobody else will modify until commit.
func (t *boltTx) putOwned(key, value []byte, _ bool) (err error) {
	if err := t.stopped(); err != nil {
		return err
	}
	t.writes++
	defer t.recoverDamage(&err)
	t.inBolt = true
	err = t.b.Put(key, value)
	t.inBolt = false
	if err != nil {
		return fmt.Errorf("keyspace: put: %w", damagedOr(err))
	}
	return nil
}

// beginBulk tunes the bucket for a sorted batch that starts at first: when
// the batch lands after every existing key, pages are filled completely
// (bbolt's split point, FillPercent, defaults to half full).
func (t *boltTx) beginBulk(first []byte) {
	defer t.recoverDamage(nil)
	t.inBolt = true
	last, _ := lastPair(t.b.Cursor())
	t.inBolt = false
	if last == nil || bytes.Compare(first, last) > 0 {
		t.b.FillPercent = 1.0
	}
}

func (t *boltTx) Delete(key []byte) (err error) {
	if err := t.usable(true); err != nil {
		return err
	}
	if err := checkKey(key); err != nil {
		return err
	}
	t.writes++
	defer t.recoverDamage(&err)
	t.inBolt = true
	err = t.b.Delete(key)
	t.inBolt = false
	if err != nil {
		return fmt.Errorf("keyspace: delete: %w", damagedOr(err))
	}
	return nil
}

func (t *boltTx) DeleteRange(r Range) (int, error) {
	if err := t.usable(true); err != nil {
		return 0, err
	}
	return deleteRange(t, r)
}

func (t *boltTx) Scan(r Range) iter.Seq2[[]byte, []byte] {
	return func(yield func([]byte, []byte) bool) {
		if !t.scanning(r) {
			return
		}
		// inBolt is cleared around yield: a panic in the loop body is the
		// caller's (bolt_damage.go).
		defer t.recoverDamage(nil)
		t.inBolt = true
		c := t.b.Cursor()
		var k, v []byte
		if r.Reverse {
			k, v = seekBefore(c, r.End)
		} else if r.Start == nil {
			k, v = c.First()
		} else {
			k, v = c.Seek(r.Start)
		}
		// The seeks start inside the range, so only the far bound needs a
		// test: End going forward, Start in reverse.
		inside := func(k []byte) bool { return r.End == nil || bytes.Compare(k, r.End) < 0 }
		if r.Reverse {
			inside = func(k []byte) bool { return r.Start == nil || bytes.Compare(k, r.Start) >= 0 }
		}
		for n := 0; k != nil && inside(k); {
			if !t.intact(k, v) {
				t.brokenPair(k, v)
				return
			}
			writes := t.writes
			t.inBolt = false
			if !yield(k, v) {
				return
			}
			t.inBolt = true
			if n++; r.Limit > 0 && n >= r.Limit || n%stopEvery == 0 && t.stopped() != nil {
				return
			}
			if t.writes != writes {
				// The loop body wrote: bbolt cursors do not survive writes
				// reliably, so seek again from the last key yielded.
				// The last key stays readable: bbolt does not unmap or
				// reuse memory before the transaction ends.
				last := k
				if r.Reverse {
					k, v = seekBefore(c, last)
				} else if k, v = c.Seek(last); k != nil && bytes.Equal(k, last) {
					k, v = c.Next()
				}
				continue
			}
			if r.Reverse {
				k, v = prevPair(c, k)
			} else {
				k, v = c.Next()
			}
		}
	}
}

// visitForward is VisitRange's loop for a View's forward ranges: Scan's
// loop with the visitor called directly and no closures.
//
// Its cursor stays in the transaction from one visit to the next. When the
// last visit ran up to its End and this one starts at or past that End,
// the first key ≥ Start is where the cursor stopped or a few steps after
// it: a geo query's ranges are short and close in key order, and stepping
// a bbolt cursor costs less than a Seek, which descends from the root
// page. Past nearSteps steps it seeks.
func (t *boltTx) visitForward(r Range, v Visitor) {
	// inBolt is cleared around Visit, as Scan clears it around yield.
	defer t.recoverDamage(nil)
	t.inBolt = true
	st := &t.visit
	if st.c == nil {
		st.c = t.b.Cursor()
	}
	c := st.c
	k, val := st.k, st.v
	switch {
	case r.Start == nil:
		k, val = c.First()
	case st.ended && bytes.Compare(r.Start, st.end) >= 0:
		for steps := 0; k != nil && bytes.Compare(k, r.Start) < 0; steps++ {
			if steps == nearSteps {
				k, val = c.Seek(r.Start)
				break
			}
			k, val = c.Next()
		}
	default:
		k, val = c.Seek(r.Start)
	}
	st.ended = false
	for n := 0; ; k, val = c.Next() {
		if !t.intact(k, val) {
			t.brokenPair(k, val)
			break
		}
		if k == nil || r.End != nil && bytes.Compare(k, r.End) >= 0 {
			// Every key before k is < r.End; with no End, that says
			// nothing.
			st.k, st.v, st.ended = k, val, r.End != nil
			st.end = append(st.end[:0], r.End...)
			return
		}
		t.inBolt = false
		if !v.Visit(k, val) {
			break
		}
		t.inBolt = true
		if n++; r.Limit > 0 && n >= r.Limit {
			break
		}
	}
	st.k, st.v = nil, nil
}

// visitRanges is VisitRanges' loop for ascending ranges in a View: each
// range visited by visitForward, as VisitRange would, without its checks.
func (t *boltTx) visitRanges(rs []Range, v RangesVisitor) {
	each := &t.visit.each
	*each = oneOf{v: v}
	defer func() { *each = oneOf{} }()
	for i, r := range rs {
		if r.empty() {
			continue
		}
		each.i = i
		if t.visitForward(r, each); each.stopped || t.damaged {
			return
		}
	}
}

// nearSteps is how many keys visitForward steps over before it seeks.
const nearSteps = 8

// seekBefore positions c on the largest key < end (the last key when end is
// nil).
func seekBefore(c *bolt.Cursor, end []byte) ([]byte, []byte) {
	if end == nil {
		return lastPair(c)
	}
	if k, _ := c.Seek(end); k == nil {
		return lastPair(c)
	}
	return prevPair(c, end)
}

// Going backwards over the pages a write transaction emptied.
//
// A delete in a write transaction takes the pair out of its page's node
// and leaves a node it empties in the tree, empty, until the commit
// rebalances the tree. bbolt's Next and Seek step over an empty node, but
// its Prev stops at one and returns nil, as it does before the first key
// (a reverse scan after a Delete or DeleteRange that emptied a page
// ended there, short), and its Last, when every node is empty, steps back
// to the first and starts again for ever (WriteSorted, which asks for the
// last key, hung after a delete of every key). lastPair and prevPair are
// Last and Prev that step over them (storetest's EmptiedPages).

// lastPair positions c on the last pair, or returns nil when there is
// none.
func lastPair(c *bolt.Cursor) ([]byte, []byte) {
	if k, _ := c.First(); k == nil {
		return nil, nil // no pairs: Last might never return
	}
	return c.Last() // some page holds a pair: Last stops at the last one
}

// prevPair moves c, on the key at (the first key after the keys before
// at), to the pair before it, or returns nil when there is none.
//
// When Prev returns nil, c is on an empty node or at the first key; a
// second cursor's First tells which. On an empty node, each Prev steps
// back one node, as Prev leaves an empty node's index at -1 and so goes
// up a level and down into the node before: it reaches a node that holds
// a pair (there is one, as some key < at), at that node's last pair.
func prevPair(c *bolt.Cursor, at []byte) ([]byte, []byte) {
	k, v := c.Prev()
	if k != nil {
		return k, v
	}
	if first, _ := c.Bucket().Cursor().First(); first == nil || bytes.Compare(first, at) >= 0 {
		return nil, nil
	}
	for k == nil {
		k, v = c.Prev()
	}
	return k, v
}
