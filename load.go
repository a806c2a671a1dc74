package keyspace

import (
	"bytes"
	"context"
	"fmt"
	"iter"
	"slices"

	"github.com/keyspacedb/keyspace/internal/errctx"
)

// BulkOptions configure BulkLoad.
type BulkOptions struct {
	// BatchSize is how many pairs each transaction writes. Zero or less
	// writes everything in one transaction: all or nothing, at the price of
	// holding the whole load in memory.
	BatchSize int
	// Progress, if set, is called after each committed batch with the total
	// number of pairs written so far.
	Progress func(written int)
}

// bulkWriter is implemented by the transactions of both backends: it lets
// BulkLoad skip the defensive copy of Put and tune the backend for sorted
// appends. putOwned takes over the pair's slices; a backend may keep them
// (bbolt, until it copies them into pages at commit) or copy them where the
// copy pays (the memory backend packs sorted pairs side by side). With
// forGood the caller never uses the slices again (WriteSorted), and a
// backend may keep them past the transaction; without it (BulkLoad, whose
// src may reuse them once their batch is written), only until its end.
type bulkWriter interface {
	beginBulk(first []byte)
	putOwned(key, value []byte, forGood bool) error
	usable(write bool) error
}

// BulkLoad writes the pairs from src in sorted batches, one transaction per
// batch. It is the fast path for imports: sorting a batch turns random
// inserts into sequential ones, and on bbolt a batch that lands after every
// existing key fills its pages completely.
//
// BulkLoad keeps the slices src yields until their batch is written: src must
// not reuse them. When a key appears twice, the later value wins. Batches
// already committed stay when a later one fails; use BatchSize 0 for an
// all-or-nothing load.
func BulkLoad(s Store, src iter.Seq2[[]byte, []byte], opts *BulkOptions) (int, error) {
	return BulkLoadContext(context.Background(), s, src, opts)
}

// BulkLoadContext is BulkLoad with each batch's transaction under ctx
// (Store.UpdateContext): once ctx is done, the batch being written rolls
// back and no other begins. It returns how many pairs the batches
// committed before hold, and an error wrapping ctx.Err().
func BulkLoadContext(ctx context.Context, s Store, src iter.Seq2[[]byte, []byte], opts *BulkOptions) (int, error) {
	var o BulkOptions
	if opts != nil {
		o = *opts
	}
	var batch []pair
	written := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		batch = sortUnique(batch)
		err := s.UpdateContext(ctx, func(tx Tx) error {
			bw, ok := tx.(bulkWriter)
			if ok {
				bw.beginBulk(batch[0].key)
			}
			for _, it := range batch {
				if err := checkPut(it.key, it.value); err != nil {
					return fmt.Errorf("keyspace: bulk load key %s: %w", errctx.Quote(string(it.key)), err)
				}
				var err error
				if ok {
					err = bw.putOwned(it.key, it.value, false)
				} else {
					err = tx.Put(it.key, it.value)
				}
				if err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		written += len(batch)
		batch = batch[:0]
		if o.Progress != nil {
			o.Progress(written)
		}
		return nil
	}
	for k, v := range src {
		if v == nil {
			v = []byte{}
		}
		batch = append(batch, pair{key: k, value: v})
		if o.BatchSize > 0 && len(batch) >= o.BatchSize {
			if err := flush(); err != nil {
				return written, err
			}
		}
	}
	if err := flush(); err != nil {
		return written, err
	}
	return written, nil
}

// pair is a key and its value on their way into a store.
type pair struct{ key, value []byte }

// sortUnique sorts items by key, keeping the last of equal keys.
func sortUnique(items []pair) []pair {
	slices.SortStableFunc(items, func(a, b pair) int { return bytes.Compare(a.key, b.key) })
	out := items[:0]
	for i, it := range items {
		if i+1 < len(items) && bytes.Equal(it.key, items[i+1].key) {
			continue
		}
		out = append(out, it)
	}
	return out
}

// WriteSorted writes pairs in the caller's transaction, for bulk writes
// such as an import: the pairs should come in ascending key order, and the
// transaction takes ownership of the slices (the caller must not change
// them afterwards), which spares Put's defensive copy. When the first key
// lands after every existing key, bbolt fills its pages completely. Each
// pair is checked as Put checks it.
func WriteSorted(tx Tx, pairs iter.Seq2[[]byte, []byte]) error {
	bw, ok := tx.(bulkWriter)
	if !ok && !tx.Writable() {
		return ErrReadOnly
	}
	if ok {
		if err := bw.usable(true); err != nil {
			return err
		}
	}
	first := true
	for k, v := range pairs {
		if err := checkPut(k, v); err != nil {
			return fmt.Errorf("keyspace: write %s: %w", errctx.Quote(string(k)), err)
		}
		if !ok {
			if err := tx.Put(k, v); err != nil {
				return err
			}
			continue
		}
		if first {
			bw.beginBulk(k)
			first = false
		}
		if err := bw.putOwned(k, v, true); err != nil {
			return err
		}
	}
	return nil
}
