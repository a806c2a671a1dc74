package keyspace

import (
	"sync"

	bolt "go.etcd.io/bbolt"
)

// readers keeps a BoltStore's idle read transactions for the next View.
//
// Beginning a bbolt read transaction and opening the keyspace bucket in it
// allocate a transaction, a bucket and a root node, and take the store's
// locks twice; ending it takes them again. That was about half of a View
// that reads one key (2.3 µs on this VM against 0.75 µs for the memory
// backend), and a tenth of a 1 km radius query. A read transaction that
// is still on the latest committed snapshot serves the next View as well
// as a new one, so a View hands its transaction back instead of rolling
// it back, and the next View takes it.
//
// Invariants, under mu:
//   - every idle transaction began after the last Update ended and before
//     any Update began since (its gen is the current gen): it reads the
//     latest committed snapshot, as a new one would;
//   - while an Update runs (writing > 0), nothing is idle and nothing is
//     handed back. An idle transaction holds bbolt's memory-map lock for
//     reading, and a commit that grows the file past the map must take it
//     for writing: an Update that left one idle would wait on it forever.
//     Views that run alongside an Update begin and end their own
//     transactions, as they would without the pool;
//   - after close, nothing is idle and nothing is handed back, so that
//     bbolt's Close, which waits for every read transaction, returns.
type readers struct {
	mu      sync.Mutex
	idle    []pooledRead
	gen     uint64 // bumped when an Update begins and when it ends
	writing int    // Updates running
	closed  bool
}

// pooledRead is a read transaction with its keyspace bucket open, and
// the cursor a View's visits used in it (nil until one did) with the
// buffer they copied range ends into. A cursor is good for as long as its
// transaction: handing it on saves the next View allocating one and
// growing its stack page by page (Bucket.Cursor, Cursor.search), five
// allocations of a 1 km radius query on bbolt.
type pooledRead struct {
	tx    *bolt.Tx
	b     *bolt.Bucket
	gen   uint64
	cur   *bolt.Cursor
	end   []byte
	pages pageSpan // where tx's pages lie in memory
}

// maxIdleReads bounds the idle transactions kept: as many as Views that
// ran at once, up to this.
const maxIdleReads = 8

// take returns an idle read transaction, or ok false and the generation a
// new one begun now belongs to.
func (r *readers) take() (p pooledRead, ok bool, gen uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n := len(r.idle); n > 0 {
		p = r.idle[n-1]
		r.idle[n-1] = pooledRead{}
		r.idle = r.idle[:n-1]
		return p, true, p.gen
	}
	return pooledRead{}, false, r.gen
}

// give hands back a read transaction that a View has finished with: kept
// if it is still on the latest snapshot and no Update is running, else
// rolled back.
func (r *readers) give(p pooledRead) {
	r.mu.Lock()
	if p.gen == r.gen && r.writing == 0 && !r.closed && len(r.idle) < maxIdleReads {
		r.idle = append(r.idle, p)
		r.mu.Unlock()
		return
	}
	r.mu.Unlock()
	_ = p.tx.Rollback()
}

// beginUpdate makes way for an Update: the idle transactions are rolled
// back, and none is kept until endUpdate.
func (r *readers) beginUpdate() {
	r.mu.Lock()
	r.writing++
	r.gen++
	idle := r.idle
	r.idle = nil
	r.mu.Unlock()
	for _, p := range idle {
		_ = p.tx.Rollback()
	}
}

// endUpdate follows every beginUpdate: transactions begun before it read
// an older snapshot than the next View must see.
func (r *readers) endUpdate() {
	r.mu.Lock()
	r.writing--
	r.gen++
	r.mu.Unlock()
}

// close rolls back the idle transactions and keeps none from now on.
func (r *readers) close() {
	r.mu.Lock()
	r.closed = true
	idle := r.idle
	r.idle = nil
	r.mu.Unlock()
	for _, p := range idle {
		_ = p.tx.Rollback()
	}
}
