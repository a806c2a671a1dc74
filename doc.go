// Package keyspace is one ordered map of byte keys to byte values, with
// serializable transactions and range scans. Every indexing technique in this
// module — geohash proximity search (package geo), composite keys (package
// composite), enumerable keys (package enumkeys) and secondary index tables
// (package indextable) — compiles down to Get, Put, Delete and Scan over this
// one keyspace, so a caller can change a record, its index entries, its geo
// point and a counter in a single atomic transaction.
//
// # Backends
//
// Two backends implement [Store]:
//
//   - [Open] returns the embedded default, a go.etcd.io/bbolt file. The whole
//     keyspace lives in one top-level bucket named "keyspace". A file without
//     that bucket is refused with [ErrNotKeyspace] unless it is new (no
//     transaction ever committed), and one whose root holds nothing after
//     commits with [ErrCorrupt]: a root page damaged to read as empty is
//     not written over as though the file were new. The file records
//     the FormatVersion that created it, raised by a later build's write
//     in a newer layout ([RequireFormat]), and one of a newer version is
//     refused with [ErrNewerFormat] (format.go). A
//     View takes over the read transaction an earlier View finished with
//     when no Update has begun since, instead of beginning its own:
//     beginning one was half the cost of a View that reads one key. A
//     damaged page is an error wrapping [ErrCorrupt], never a panic
//     (bolt_damage.go).
//   - [NewMemory] returns an in-memory store on a copy-on-write
//     github.com/google/btree whose items are leaves: sorted slices of up
//     to 128 pairs, so the tree and the leaves together are a B+tree. A
//     scan walks slices, a seek ends in a binary search of one leaf, and a
//     sorted bulk load appends to the last leaf. A leaf that splits lays
//     its pairs out in key order, as a bulk load does, and one that
//     deletes empty to a quarter joins a neighbour, so a store written in
//     no order, or mostly deleted, reads almost as a fresh load of its
//     pairs does (memory_leaf.go). Update works on a clone
//     and copies a leaf before changing it, and publishes the clone on
//     commit; View reads the published snapshot without holding a lock.
//     A snapshot that a bulk load published, or that has served many
//     seeks, keeps its leaves in one array too, which seeks bisect
//     instead of descending the tree (memory_directory.go).
//
// Both pass the same conformance suite (package storetest) and enforce the
// same limits ([MaxKeySize], [MaxValueSize]), so code written against one
// behaves the same on the other. [Copy] moves every pair from one store to
// another in one transaction on each side (a memory store saved to a file
// and loaded back, or a file rewritten without its free pages), and
// [BoltStore.Backup] writes a file's pages as of the last commit while
// writers go on (copy.go).
//
// # Transactions
//
// [Store.Update] is serializable: one writer at a time. If the function
// returns an error or panics, nothing it wrote is kept (a panic is re-raised
// after the rollback). Write transaction functions so that they could be run
// again: no side effects outside the Tx. A future distributed backend will
// retry them on conflict, as FoundationDB does.
//
// [Store.View] sees a consistent snapshot: the state after the last Update
// that committed before it began, and nothing of any Update that commits
// while it runs.
//
// [Store.Batch] is Update for many goroutines that each write a little:
// on bbolt the calls waiting at the same time share one transaction and
// one fsync (a group commit), each keeping its own outcome; a function
// that fails beside others runs again alone, and the others again
// without it, so a function may run more than once (batch.go).
// [Store.BatchContext] is Batch under a context, as UpdateContext is
// Update.
//
// [Store.UpdateContext] and [Store.ViewContext] run the same transactions
// under a context.Context, as database/sql's BeginTx does. Once the context
// is done, every call of the transaction fails with an error wrapping
// ctx.Err() (a write at once, a long scan within stopEvery pairs), the
// error is recorded as the transaction's Err, and an Update commits
// nothing however its function returns. So every technique's writes stop
// in the same way, one by one or in bulk ([WriteSorted], geo's PutAll): the
// command line passes the context that Ctrl-C cancels, and an import of a
// million points stops within a tenth of a second of it and rolls back.
// Checking costs a nil test when the context can never be done
// (context.Background, which View and Update use), and a non-blocking
// receive otherwise. [BulkLoadContext] runs each of its batches so.
//
// # Scans
//
// [Tx.Scan] returns a Go iterator over a [Range]: Start is inclusive, End is
// exclusive, nil means unbounded, Reverse walks from the end down, Limit caps
// the number of pairs. [Prefix] builds the range of every key that starts
// with a prefix. A scan can fail half way when it reads a damaged page of a
// bbolt file: the loop ends, and [Tx.Err] wraps [ErrCorrupt]. Check
// [Tx.Err] after the loop, and note that Update refuses to commit a
// transaction whose Err is set.
//
// Writes inside a scan loop of the same transaction are allowed: the scan
// continues after the last key it yielded (before it, in reverse) and sees
// the writes made so far. This makes "scan and delete" loops safe.
//
// # Validity of keys and values
//
// Slices handed out by Get and Scan are valid only until the transaction
// ends, and must never be modified (on bbolt they point into the read-only
// memory map). Copy them to keep them. Slices passed to Put may be reused by
// the caller as soon as Put returns.
package keyspace
