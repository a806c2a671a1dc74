package keyspace

import (
	"bytes"
	"context"
	"iter"
)

// Store is an ordered keyspace with serializable transactions.
// Implementations are safe for concurrent use by many goroutines.
type Store interface {
	// View runs fn in a read-only transaction over a consistent snapshot.
	// The error fn returns is returned as is.
	View(fn func(tx Tx) error) error
	// Update runs fn in a read-write transaction. Writers are serialized.
	// If fn returns an error or panics, or leaves tx.Err set, every write is
	// rolled back; otherwise they are committed atomically.
	Update(fn func(tx Tx) error) error
	// ViewContext is View under ctx. Once ctx is done, the transaction's
	// calls fail with an error wrapping ctx.Err() (a long scan notices
	// within a thousand or so pairs), and so does ViewContext.
	ViewContext(ctx context.Context, fn func(tx Tx) error) error
	// UpdateContext is Update under ctx: once ctx is done, the
	// transaction's calls fail with an error wrapping ctx.Err(), and
	// nothing is committed however fn returns, as database/sql does with
	// BeginTx. An import interrupted by Ctrl-C stops at its next write and
	// rolls back. Waiting for the writer lock does not watch ctx.
	UpdateContext(ctx context.Context, fn func(tx Tx) error) error
	// Batch runs fn as Update does, but on bbolt in a transaction that
	// it shares with the Batch calls of other goroutines waiting at the
	// same time, committed and synced once for all of them: for a server
	// whose requests each write a little, several commits' worth of
	// writes for the price of one (batch.go). Its outcome is fn's alone:
	// fn's error, or the commit's, is returned to its caller, and nothing
	// fn wrote is committed unless Batch returns nil. fn may run on
	// another goroutine, and more than once (alone when it fails beside
	// others, with the others when one of them fails), so it must have no
	// effects outside tx. A panic in fn reaches the caller from its run
	// alone. In memory, where nothing is synced, Batch is Update.
	Batch(fn func(tx Tx) error) error
	// BatchContext is Batch under ctx, as UpdateContext is Update: a
	// call whose ctx is done before or while fn runs commits nothing
	// and returns an error wrapping ctx.Err(); the calls beside it are
	// not affected. Waiting for the shared transaction does not watch
	// ctx.
	BatchContext(ctx context.Context, fn func(tx Tx) error) error
	// Close releases the store. Transactions started afterwards fail with
	// ErrClosed. Close waits for running transactions to finish.
	Close() error
}

// Tx is a transaction. It is valid only inside the function passed to View or
// Update, and must not be used from more than one goroutine at a time.
type Tx interface {
	// Get returns the value stored under key, or ErrNotFound.
	Get(key []byte) ([]byte, error)
	// Put stores value under key, replacing any previous value. A nil value
	// is stored as an empty one.
	Put(key, value []byte) error
	// Delete removes key. Deleting an absent key is not an error.
	Delete(key []byte) error
	// DeleteRange removes every key in r (Reverse is ignored; Limit caps the
	// number removed) and returns how many were removed.
	DeleteRange(r Range) (int, error)
	// Scan iterates over the pairs in r in key order (reverse order when
	// r.Reverse). Check Err after the loop.
	Scan(r Range) iter.Seq2[[]byte, []byte]
	// Err returns the first error met by a Scan of this transaction, or
	// the error of its context once that is done (UpdateContext,
	// ViewContext).
	Err() error
	// Writable reports whether this is an Update transaction.
	Writable() bool
}

// Range selects the keys k with Start <= k < End. A nil Start is the
// beginning of the keyspace and a nil End its end. Reverse iterates from the
// largest key down; the bounds keep their meaning (Start is still inclusive
// and End exclusive). A Limit greater than zero stops the scan after that
// many pairs.
type Range struct {
	Start   []byte
	End     []byte
	Reverse bool
	Limit   int
}

// Prefix returns the range of all keys that start with p. Prefix(nil) is the
// whole keyspace.
func Prefix(p []byte) Range {
	if len(p) == 0 {
		return Range{}
	}
	return Range{Start: bytes.Clone(p), End: PrefixEnd(p)}
}

// PrefixEnd returns the smallest key greater than every key that starts with
// p, or nil when there is none (p is empty or all 0xFF bytes).
func PrefixEnd(p []byte) []byte {
	end := bytes.Clone(p)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] != 0xFF {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// contains reports whether k lies within the bounds of r.
func (r Range) contains(k []byte) bool {
	if r.Start != nil && bytes.Compare(k, r.Start) < 0 {
		return false
	}
	return r.End == nil || bytes.Compare(k, r.End) < 0
}

// empty reports whether no key can lie within the bounds of r.
func (r Range) empty() bool {
	return r.Start != nil && r.End != nil && bytes.Compare(r.Start, r.End) >= 0
}

// deleteRange is DeleteRange for any Tx. It deletes in batches of
// deleteBatch keys: it collects a batch first (so the scan never walks a
// tree it is changing), deletes it, and goes on after its last key, so
// dropping a million-key index holds a thousand keys at a time, not a
// million.
func deleteRange(tx Tx, r Range) (int, error) {
	return deleteInBatches(tx, r, deleteBatch)
}

// deleteBatch is how many keys deleteRange collects before deleting them.
const deleteBatch = 1024

func deleteInBatches(tx Tx, r Range, batch int) (int, error) {
	if !tx.Writable() {
		return 0, ErrReadOnly
	}
	r.Reverse = false
	deleted := 0
	keys := make([][]byte, 0, batch)
	for {
		next := r
		next.Limit = batch
		if r.Limit > 0 {
			next.Limit = min(batch, r.Limit-deleted)
		}
		keys = keys[:0]
		for k := range tx.Scan(next) {
			keys = append(keys, bytes.Clone(k))
		}
		if err := tx.Err(); err != nil {
			return 0, err
		}
		for _, k := range keys {
			if err := tx.Delete(k); err != nil {
				return 0, err
			}
		}
		deleted += len(keys)
		if len(keys) < next.Limit || deleted == r.Limit {
			return deleted, nil
		}
		r.Start = append(keys[len(keys)-1], 0x00) // the smallest key after the last deleted
	}
}
