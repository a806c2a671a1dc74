package keyspace

import (
	"context"
	"errors"
	"slices"
	"sync"
)

// Batch: a group commit for many goroutines that each write a little.
//
// On bbolt every Update ends in an fsync, and the fsync, not the writes,
// is most of a small Update's time: a server that gives each request its
// own Update (a vehicle reporting its position, a user sending a
// message) commits one after another, about 4,500 times a second on this
// project's CI machine, however many requests wait. Batch lets the waiting ones share a
// commit, as databases share one log flush among the transactions that
// wait for it: the calls that arrive while a commit runs all go into the
// next transaction. A lone call runs at once, as Update would; under load
// a transaction holds as many calls as arrived during the commit before
// it, up to batchMax. (bbolt's own DB.Batch waits up to 10 ms for calls
// to gather instead, and would run the functions outside the damage
// guards of Update, bolt_damage.go.)
//
// The calls of one transaction run one after another, each seeing the
// writes of those before it, so the transaction does what running them
// in turn would. When one fails (returns an error, leaves the
// transaction's Err set, panics, or has its context done), the
// transaction is rolled back, the
// failed call runs again alone, in its own Update from its own goroutine
// (where its error or panic reaches its caller), and the others run again
// without it. A function may therefore run more than once, and must have
// no effects outside its transaction: what Update's functions should be
// anyway, for a store that retries on conflict.

// batchMax is the most calls one transaction runs: enough to share an
// fsync among a busy server's writers, few enough that the calls a failed
// one sends round again are cheap to run again.
const batchMax = 1000

// errRunAlone tells a Batch caller that its function failed in a shared
// transaction, which was rolled back, and is to run again alone.
var errRunAlone = errors.New("keyspace: run the batched function alone")

// A batchCall is one Batch call waiting for its transaction's outcome.
type batchCall struct {
	ctx  context.Context // BatchContext's: once done, the call fails
	fn   func(tx Tx) error
	done chan error // receives the outcome; buffered, so no sender waits
}

// An updater is a store's UpdateContext.
type updater func(ctx context.Context, fn func(tx Tx) error) error

// A batcher gathers a store's concurrent Batch calls. The first call to
// find no transaction running starts a goroutine (drain) that runs the
// waiting calls in one transaction, then those that arrived meanwhile in
// the next, until none is left.
//
// Invariant: running is true exactly while a drain goroutine runs, and
// every call in pending is run by it, or by the next one, before it ends.
type batcher struct {
	mu      sync.Mutex
	pending []*batchCall
	running bool
	runs    int // transactions run, for tests
}

// batch runs fn, through update, in a transaction shared with the other
// calls waiting, and returns its outcome. A call whose ctx is done before
// or while fn runs fails, and runs alone under ctx, as UpdateContext
// would: nothing of it is committed, and the caller gets ctx's error.
func (b *batcher) batch(update updater, ctx context.Context, fn func(tx Tx) error) error {
	c := &batchCall{ctx: ctx, fn: fn, done: make(chan error, 1)}
	b.mu.Lock()
	b.pending = append(b.pending, c)
	if !b.running {
		b.running = true
		go b.drain(update)
	}
	b.mu.Unlock()
	if err := <-c.done; err != errRunAlone {
		return err
	}
	return update(ctx, fn)
}

// drain runs the waiting calls, batchMax at a time, until none is left.
//
// A function may end the goroutine it runs on (runtime.Goexit, which a
// test's t.FailNow calls), and here that is drain's: the calls of the
// transaction it was running are then told to run alone, in their own
// goroutines, where such a function ends its caller's as it would in
// Update, and a new drain takes the calls still waiting. Without that
// they would wait for ever, and so would every Batch after them.
func (b *batcher) drain(update updater) {
	var calls []*batchCall
	finished := false
	defer func() {
		if finished {
			return
		}
		for _, c := range calls {
			select {
			case c.done <- errRunAlone:
			default: // told already, and not yet listening
			}
		}
		b.mu.Lock()
		if len(b.pending) > 0 {
			go b.drain(update)
		} else {
			b.running = false
		}
		b.mu.Unlock()
	}()
	for {
		b.mu.Lock()
		n := min(len(b.pending), batchMax)
		if n == 0 {
			b.running = false
			b.pending = nil // drop the array, which may be large after a burst
			b.mu.Unlock()
			finished = true
			return
		}
		calls = slices.Clone(b.pending[:n])
		b.pending = slices.Delete(b.pending, 0, n)
		b.runs++
		b.mu.Unlock()
		runTogether(update, calls)
	}
}

// runTogether runs calls in one transaction and tells each its outcome:
// the transaction's error (nil once committed) for all, or errRunAlone
// for a call that failed, after which the rest run again without it.
func runTogether(update updater, calls []*batchCall) {
	for len(calls) > 0 {
		if slices.ContainsFunc(calls, stopped) {
			// Told now, a call whose context is done fails alone at
			// once, rather than failing in the transaction and sending
			// the others round again.
			live := make([]*batchCall, 0, len(calls))
			for _, c := range calls {
				if stopped(c) {
					c.done <- errRunAlone
				} else {
					live = append(live, c)
				}
			}
			calls = live
			continue
		}
		failed := -1
		err := update(context.Background(), func(tx Tx) error {
			for i, c := range calls {
				if !succeeds(c, tx) {
					failed = i
					return errRunAlone
				}
			}
			return nil
		})
		if failed < 0 {
			for _, c := range calls {
				c.done <- err
			}
			return
		}
		calls[failed].done <- errRunAlone
		calls = append(calls[:failed:failed], calls[failed+1:]...) // a new array: the caller's is left as it was
	}
}

// stopped reports whether c's context is done.
func stopped(c *batchCall) bool { return c.ctx.Err() != nil }

// succeeds runs c's function in tx and reports whether it returned nil,
// left tx's Err unset and did not panic, and c's context was not done
// before or after it ran. A panic is not passed on here: this is not the
// caller's goroutine, and the call runs again alone in its own.
func succeeds(c *batchCall, tx Tx) (ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	return c.ctx.Err() == nil && c.fn(tx) == nil && tx.Err() == nil && c.ctx.Err() == nil
}
