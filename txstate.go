package keyspace

import (
	"context"
	"fmt"
)

// txState is the bookkeeping every backend's Tx shares.
type txState struct {
	writable bool
	closed   bool
	writes   uint64 // incremented by every write, so scans know to re-seek
	err      error  // the first scan error, or the context's once it is done
	// ctx is the context of ViewContext or UpdateContext, and done its
	// Done channel, nil for a context that is never done (View, Update).
	ctx  context.Context
	done <-chan struct{}
}

// under sets the context the transaction runs under.
func (t *txState) under(ctx context.Context) {
	t.ctx, t.done = ctx, ctx.Done()
}

func (t *txState) usable(write bool) error {
	switch {
	case t.closed:
		return ErrTxClosed
	case write && !t.writable:
		return ErrReadOnly
	}
	return t.stopped()
}

// stopped returns nil while the transaction's context is not done. Once
// it is, it returns an error wrapping the context's error and records it
// as the transaction's, so that an Update rolls back even when fn drops
// the error. Checking costs a nil test without a context, and a
// non-blocking receive with one: cheap enough for every write.
func (t *txState) stopped() error {
	if t.done == nil {
		return nil
	}
	select {
	case <-t.done:
		err := stoppedError(t.ctx)
		t.setErr(err)
		return err
	default:
		return nil
	}
}

// stoppedError is the error of a transaction whose context is done.
func stoppedError(ctx context.Context) error {
	return fmt.Errorf("keyspace: transaction stopped: %w", ctx.Err())
}

// stopEvery is how many pairs a scan yields between checks of its
// transaction's context.
const stopEvery = 1024

func (t *txState) Writable() bool { return t.writable }
func (t *txState) Err() error     { return t.err }

func (t *txState) setErr(err error) {
	if t.err == nil {
		t.err = err
	}
}

// ownedCopy copies a pair into one allocation, so that a backend may keep it
// while the caller reuses its slices. The value follows the key, and the
// key's capacity reaches over it: the memory backend keeps the key slice
// alone (item), bbolt both until commit.
func ownedCopy(key, value []byte) ([]byte, []byte) {
	buf := make([]byte, len(key)+len(value))
	copy(buf, key)
	copy(buf[len(key):], value)
	return buf[:len(key)], buf[len(key):]
}

// scanning reports whether a Scan of r has pairs to look for: false, with
// the transaction's error recorded, when it is closed or its context is
// done, and false for an empty range.
func (t *txState) scanning(r Range) bool {
	if err := t.usable(false); err != nil {
		t.setErr(err)
		return false
	}
	return !r.empty()
}
