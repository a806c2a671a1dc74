package indextable

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/internal/errctx"
)

// BuildOptions tune Build.
type BuildOptions struct {
	// BatchSize is how many records a transaction indexes; default
	// 100,000. A batch's entries are written in key order (but a unique
	// index's, which are checked as they go): on bbolt, 1,000,000 records
	// indexed in batches of 10,000 took 10.1 s, of 100,000 4.4 s, and
	// before the sorting 12.8 and 10.5 s.
	BatchSize int
	// Progress is told how many records are done after each batch. An
	// error stops the build; the next Build resumes after the last batch.
	Progress func(done int) error
}

// Build fills ix from the records already in the table, in batches of one
// transaction each. Progress is saved with every batch under
// ("x", table, "b", index) → last primary key done, so a Build interrupted
// by a crash or an error resumes where it stopped. Writes made meanwhile
// maintain the index themselves, so the result is exact. It returns the
// number of records this call visited.
func (ix *Index[R]) Build(s keyspace.Store, opts *BuildOptions) (int, error) {
	var o BuildOptions
	if opts != nil {
		o = *opts
	}
	if o.BatchSize <= 0 {
		o.BatchSize = 100_000
	}
	mark := ix.buildMark()
	done := 0
	for {
		n := 0
		err := s.Update(func(tx keyspace.Tx) error {
			r := ix.t.Range()
			if last, err := tx.Get(mark); err == nil && len(last) > 0 {
				r.Start = append(append([]byte{}, last...), 0) // just after the last key done
			} else if err != nil && !errors.Is(err, keyspace.ErrNotFound) {
				return err
			}
			r.Limit = o.BatchSize
			var lastKey []byte
			var werr error
			// A unique index checks each value as it goes, against the
			// entries written before; any other collects the batch's
			// entries and writes them in key order after the scan (bbolt
			// takes a large transaction's unsorted writes slowly).
			type kv struct{ key, value []byte }
			var batch []kv
			err := ix.t.scanStored(tx, r, func(rec Record[R]) bool {
				n++
				lastKey, _ = ix.t.recordKey(rec.Key)
				if ix.spec.Unique {
					werr = ix.add(tx, rec)
					return werr == nil
				}
				entries, err := ix.entryKeys(rec.Value, rec.Key, nanos(rec.Expires), true)
				for k, e := range entries {
					batch = append(batch, kv{[]byte(k), e.cover})
				}
				werr = err
				return werr == nil
			})
			if err = errors.Join(err, werr); err != nil {
				return err
			}
			slices.SortFunc(batch, func(a, b kv) int { return bytes.Compare(a.key, b.key) })
			for _, w := range batch {
				if err := tx.Put(w.key, w.value); err != nil {
					return err
				}
			}
			if n < o.BatchSize {
				return tx.Delete(mark) // finished
			}
			return tx.Put(mark, lastKey)
		})
		if err != nil {
			return done, ix.wrap(fmt.Errorf("build: %w", err))
		}
		done += n
		if o.Progress != nil && n > 0 {
			if err := o.Progress(done); err != nil {
				return done, ix.wrap(fmt.Errorf("build stopped after %d records: %w", done, err))
			}
		}
		if n < o.BatchSize {
			return done, nil
		}
	}
}

// buildMark is the key of ix's build progress: ("x", table, "b",
// index) → the last primary key a Build has done, or nothing when one is
// asked for (MarkUnbuilt) and none has done a batch yet.
func (ix *Index[R]) buildMark() []byte { return ix.t.meta.Pack(composite.Tuple{ix.spec.Name}) }

// MarkUnbuilt records in tx that ix needs a Build, as a new index over a
// table that holds records does: BuildPending reports true from then
// until a Build finishes or a Repair makes the index whole, so that a
// reader can tell an index still being filled from a complete one. It
// keeps the progress of a Build already under way. Writes maintain the
// index meanwhile, as always.
func (ix *Index[R]) MarkUnbuilt(tx keyspace.Tx) error {
	pending, err := ix.BuildPending(tx)
	if err != nil || pending {
		return err
	}
	return ix.wrap(tx.Put(ix.buildMark(), []byte{}))
}

// BuildPending reports whether ix has a Build to run or to finish
// (MarkUnbuilt, or a Build interrupted): until it has, lookups may miss
// the records no batch has reached.
func (ix *Index[R]) BuildPending(tx keyspace.Tx) (bool, error) {
	_, err := tx.Get(ix.buildMark())
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, keyspace.ErrNotFound):
		return false, nil
	}
	return false, ix.wrap(err)
}

// add writes a stored record's entries (expired or not), checking
// uniqueness: a value held by a record that has expired is taken from it,
// as a write takes it.
func (ix *Index[R]) add(tx keyspace.Tx, rec Record[R]) error {
	entries, err := ix.entryKeys(rec.Value, rec.Key, nanos(rec.Expires), true)
	if err != nil {
		return err
	}
	clock := ix.t.clock()
	for k, e := range entries {
		if ix.spec.Unique {
			expired, err := ix.checkUnique(tx, e.value, rec.Key, &clock)
			if err != nil {
				return err
			}
			for _, h := range expired {
				if err := ix.t.deleteStored(tx, h); err != nil {
					return err
				}
			}
		}
		if err := tx.Put([]byte(k), e.cover); err != nil {
			return err
		}
	}
	return nil
}

// Problem is one inconsistency Verify found.
type Problem struct {
	Kind  string          // "missing", "stale", "duplicate" or "corrupt"
	Value composite.Tuple // the index value
	Key   composite.Tuple // the record's primary key
	Raw   []byte          // a corrupt entry's key, which does not decode into Value and Key
}

func (p Problem) String() string {
	if p.Kind == "corrupt" {
		return fmt.Sprintf("corrupt entry %s", errctx.Quote(string(p.Raw)))
	}
	return fmt.Sprintf("%s entry %v → %v", p.Kind, p.Value, p.Key)
}

// Verify recomputes the index from the table and compares: an entry the
// table implies but the index lacks is missing; an entry the index holds
// that no record implies (or with stale covered fields) is stale; two
// records under one value of a unique index are a duplicate; an entry
// that does not decode is corrupt.
func (ix *Index[R]) Verify(tx keyspace.Tx) ([]Problem, error) {
	want, err := ix.expected(tx)
	if err != nil {
		return nil, err
	}
	var problems []Problem
	seen := map[string]bool{}
	perValue := map[string][]composite.Tuple{}
	for k, v := range tx.Scan(ix.sub.Range()) {
		e, err := ix.decodeEntry(k, v)
		if err != nil {
			problems = append(problems, Problem{Kind: "corrupt", Raw: bytes.Clone(k)})
			continue
		}
		w, ok := want[string(k)]
		if !ok || !bytes.Equal(w.cover, v) {
			problems = append(problems, Problem{Kind: "stale", Value: e.Value, Key: e.Key})
		}
		seen[string(k)] = true
		if ix.spec.Unique {
			vk := string(e.Value.Pack())
			perValue[vk] = append(perValue[vk], e.Key)
			if len(perValue[vk]) == 2 {
				problems = append(problems, Problem{Kind: "duplicate", Value: e.Value, Key: e.Key})
			}
		}
	}
	if err := tx.Err(); err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(want))
	for k := range want {
		if !seen[k] {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		e, _ := ix.decodeEntry([]byte(k), want[k].cover)
		problems = append(problems, Problem{Kind: "missing", Value: e.Value, Key: e.Key})
	}
	return problems, nil
}

// expected recomputes every entry from the stored records, expired or
// not.
func (ix *Index[R]) expected(tx keyspace.Tx) (map[string]entry, error) {
	want := map[string]entry{}
	var ferr error
	err := ix.t.scanStored(tx, ix.t.Range(), func(rec Record[R]) bool {
		entries, err := ix.entryKeys(rec.Value, rec.Key, nanos(rec.Expires), false)
		if err != nil {
			ferr = err
			return false
		}
		for k, e := range entries {
			want[k] = e
		}
		return true
	})
	return want, errors.Join(err, ferr)
}

// Repair makes the index what the table implies: stale entries go, missing
// ones are written, and a Build pending is done. Duplicates of a unique index are reported, not fixed
// (which record keeps the value is the caller's decision). It returns what
// it found.
func (ix *Index[R]) Repair(tx keyspace.Tx) ([]Problem, error) {
	problems, err := ix.Verify(tx)
	if err != nil {
		return nil, err
	}
	want, err := ix.expected(tx)
	if err != nil {
		return nil, err
	}
	// Entries that are as they should be stay; the rest are deleted and
	// the missing written, in key order (bbolt, which splits a page only
	// when the transaction commits, slows with the square of a large
	// transaction's unsorted writes).
	var stale [][]byte
	for k, v := range tx.Scan(ix.sub.Range()) {
		if w, ok := want[string(k)]; ok && bytes.Equal(w.cover, v) {
			delete(want, string(k))
		} else {
			stale = append(stale, append([]byte(nil), k...))
		}
	}
	if err := tx.Err(); err != nil {
		return nil, ix.wrap(err)
	}
	for _, k := range stale {
		if err := tx.Delete(k); err != nil {
			return nil, err
		}
	}
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if err := tx.Put([]byte(k), want[k].cover); err != nil {
			return nil, err
		}
	}
	// The index is whole: a Build pending or under way has nothing left.
	if err := tx.Delete(ix.buildMark()); err != nil {
		return nil, ix.wrap(err)
	}
	return problems, nil
}

// Drop deletes every entry of the index and its build progress. Once the
// transaction has committed, take the declaration away with
// Table.RemoveIndex, or the next write will start the index again.
func (ix *Index[R]) Drop(tx keyspace.Tx) error {
	if _, err := tx.DeleteRange(ix.sub.Range()); err != nil {
		return ix.wrap(err)
	}
	if err := tx.Delete(ix.buildMark()); err != nil {
		return ix.wrap(err)
	}
	return nil
}

// RemoveIndex stops the table maintaining ix (after Drop).
func (t *Table[R]) RemoveIndex(ix *Index[R]) {
	t.indexes = slices.DeleteFunc(t.indexes, func(o *Index[R]) bool { return o == ix })
}
