package indextable

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/internal/errctx"
)

// Errors callers can test with errors.Is. A missing record wraps
// keyspace.ErrNotFound.
var (
	// ErrUnique: a write would give a unique index two records for one value.
	ErrUnique = errors.New("indextable: unique index violation")
	// ErrVersion: CompareAndSet found the record at another version.
	ErrVersion = errors.New("indextable: version conflict")
	// ErrEmptyKey: records need a primary key.
	ErrEmptyKey = errors.New("indextable: empty primary key")
	// ErrDuplicateIndex: two indexes with one name.
	ErrDuplicateIndex = errors.New("indextable: index already declared")
	// ErrSeriesShape: a series written with other bucket options than
	// its first writer's.
	ErrSeriesShape = errors.New("indextable: series options differ from the stored ones")
)

// Codec turns records into bytes and back.
type Codec interface {
	Marshal(v any) ([]byte, error)
	Unmarshal(data []byte, v any) error
}

// JSON is the default codec.
type JSON struct{}

func (JSON) Marshal(v any) ([]byte, error)      { return json.Marshal(v) }
func (JSON) Unmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }

// Options configure a table.
type Options struct {
	Codec Codec // JSON when nil
}

// Table keeps records of type R under composite primary keys and keeps its
// indexes in step with them in the caller's transaction.
type Table[R any] struct {
	name    string
	codec   Codec
	records composite.Subspace
	entries composite.Subspace // ("x", name, "i")
	meta    composite.Subspace // ("x", name, "b"): build progress
	indexes []*Index[R]
}

// New returns the table called name.
func New[R any](name string, opts *Options) *Table[R] {
	t := &Table[R]{
		name:    name,
		codec:   JSON{},
		records: composite.NewSubspace("x", name, "r"),
		entries: composite.NewSubspace("x", name, "i"),
		meta:    composite.NewSubspace("x", name, "b"),
	}
	if opts != nil && opts.Codec != nil {
		t.codec = opts.Codec
	}
	return t
}

// Name returns the table's name.
func (t *Table[R]) Name() string { return t.name }

// Drop deletes every record of the table, every index entry (of declared
// indexes and of any other) and any build progress, and returns how many
// records it deleted. The declarations stay: a write after Drop indexes as
// before.
func (t *Table[R]) Drop(tx keyspace.Tx) (int, error) {
	counts, err := composite.Clear(tx, t.records, t.entries, t.meta)
	if err != nil {
		return 0, t.wrap(err)
	}
	return counts[0], nil
}

// Indexes returns the declared indexes.
func (t *Table[R]) Indexes() []*Index[R] { return t.indexes }

func (t *Table[R]) wrap(err error) error { return errctx.Wrap("indextable", "table "+t.name, err) }

// Record is a stored record with its key and version (1 on first write,
// +1 on every write).
type Record[R any] struct {
	Key     composite.Tuple
	Value   R
	Version uint64
}

func (t *Table[R]) recordKey(pk composite.Tuple) ([]byte, error) {
	if len(pk) == 0 {
		return nil, t.wrap(ErrEmptyKey)
	}
	b, err := pk.TryPack()
	if err != nil {
		return nil, t.wrap(fmt.Errorf("primary key: %w", err))
	}
	return append(append([]byte{}, t.records.Bytes()...), b...), nil
}

// Get returns the record under pk.
func (t *Table[R]) Get(tx keyspace.Tx, pk composite.Tuple) (Record[R], error) {
	rec, _, err := t.get(tx, pk)
	return rec, err
}

// get also returns whether the record exists, with keyspace.ErrNotFound
// only from Get.
func (t *Table[R]) get(tx keyspace.Tx, pk composite.Tuple) (Record[R], bool, error) {
	key, err := t.recordKey(pk)
	if err != nil {
		return Record[R]{}, false, err
	}
	v, err := tx.Get(key)
	if errors.Is(err, keyspace.ErrNotFound) {
		return Record[R]{}, false, t.wrap(fmt.Errorf("record %v: %w", pk, err))
	}
	if err != nil {
		return Record[R]{}, false, t.wrap(err)
	}
	rec, err := t.decode(pk, v)
	return rec, err == nil, err
}

func (t *Table[R]) decode(pk composite.Tuple, v []byte) (Record[R], error) {
	if len(v) < 8 {
		return Record[R]{}, t.wrap(fmt.Errorf("%w: record %v is %d bytes", keyspace.ErrCorrupt, pk, len(v)))
	}
	rec := Record[R]{Key: pk, Version: binary.BigEndian.Uint64(v)}
	if err := t.codec.Unmarshal(v[8:], &rec.Value); err != nil {
		return Record[R]{}, t.wrap(fmt.Errorf("record %v: %w", pk, err))
	}
	return rec, nil
}

// Put writes r under pk and brings every index in step: entries the old
// record had and r has not are removed, new ones added. A unique violation
// is found before anything is written, and is an error naming the index and
// the value. It returns the new version.
func (t *Table[R]) Put(tx keyspace.Tx, pk composite.Tuple, r R) (uint64, error) {
	return t.write(tx, pk, r, nil)
}

// CompareAndSet writes r only if the record is at version (0: only if it
// does not exist), else ErrVersion.
func (t *Table[R]) CompareAndSet(tx keyspace.Tx, pk composite.Tuple, version uint64, r R) (uint64, error) {
	return t.write(tx, pk, r, &version)
}

// Update is read-modify-write: fn changes the current record (the zero R
// when there is none) and the result is written with its indexes. Writes
// are serialized by the store, so concurrent Updates lose nothing
// (increment a counter field, append to a list field).
func (t *Table[R]) Update(tx keyspace.Tx, pk composite.Tuple, fn func(r *R) error) (R, error) {
	old, _, err := t.get(tx, pk)
	if err != nil && !errors.Is(err, keyspace.ErrNotFound) {
		var zero R
		return zero, err
	}
	if err := fn(&old.Value); err != nil {
		var zero R
		return zero, err
	}
	_, err = t.write(tx, pk, old.Value, nil)
	return old.Value, err
}

func (t *Table[R]) write(tx keyspace.Tx, pk composite.Tuple, r R, expect *uint64) (uint64, error) {
	key, err := t.recordKey(pk)
	if err != nil {
		return 0, err
	}
	old, existed, err := t.get(tx, pk)
	if err != nil && !errors.Is(err, keyspace.ErrNotFound) {
		return 0, err
	}
	if expect != nil && *expect != old.Version {
		return 0, t.wrap(fmt.Errorf("%w: record %v is at version %d, not %d", ErrVersion, pk, old.Version, *expect))
	}
	body, err := t.codec.Marshal(r)
	if err != nil {
		return 0, t.wrap(fmt.Errorf("record %v: %w", pk, err))
	}
	// Work out every index change and check uniqueness before writing.
	type change struct{ add, del, values [][]byte }
	changes := make([]change, len(t.indexes))
	for i, ix := range t.indexes {
		add, del, err := ix.diff(old.Value, existed, r, pk)
		if err != nil {
			return 0, err
		}
		for k, e := range add {
			if ix.spec.Unique {
				if err := ix.checkUnique(tx, e.value, pk); err != nil {
					return 0, err
				}
			}
			changes[i].add = append(changes[i].add, []byte(k))
			changes[i].values = append(changes[i].values, e.cover)
		}
		for _, k := range del {
			changes[i].del = append(changes[i].del, []byte(k))
		}
	}
	version := old.Version + 1
	if err := tx.Put(key, append(binary.BigEndian.AppendUint64(nil, version), body...)); err != nil {
		return 0, t.wrap(err)
	}
	for _, c := range changes {
		for _, k := range c.del {
			if err := tx.Delete(k); err != nil {
				return 0, t.wrap(err)
			}
		}
		for j, k := range c.add {
			if err := tx.Put(k, c.values[j]); err != nil {
				return 0, t.wrap(err)
			}
		}
	}
	return version, nil
}

// Row is a record to write with PutAll.
type Row[R any] struct {
	Key   composite.Tuple
	Value R
}

// PutAll writes many records, as an import does: every change is worked out
// and every unique index checked (against the store and within rows) before
// anything is written, then all writes go in one sorted run of keys, which
// bbolt takes into a large transaction in linear time. A later row with the
// same key wins.
func (t *Table[R]) PutAll(tx keyspace.Tx, rows []Row[R]) error {
	type write struct {
		key, value []byte
		del        bool
	}
	var writes []write
	last := map[string]int{}
	for i, row := range rows {
		k, err := t.recordKey(row.Key)
		if err != nil {
			return err
		}
		last[string(k)] = i
	}
	claimed := make([]map[string]string, len(t.indexes)) // unique value → record key, within rows
	for i := range claimed {
		claimed[i] = map[string]string{}
	}
	for i, row := range rows {
		key, _ := t.recordKey(row.Key)
		if last[string(key)] != i {
			continue
		}
		old, existed, err := t.get(tx, row.Key)
		if err != nil && !errors.Is(err, keyspace.ErrNotFound) {
			return err
		}
		body, err := t.codec.Marshal(row.Value)
		if err != nil {
			return t.wrap(fmt.Errorf("record %v: %w", row.Key, err))
		}
		writes = append(writes, write{key: key, value: append(binary.BigEndian.AppendUint64(nil, old.Version+1), body...)})
		for j, ix := range t.indexes {
			add, del, err := ix.diff(old.Value, existed, row.Value, row.Key)
			if err != nil {
				return err
			}
			for k, e := range add {
				if ix.spec.Unique {
					v := string(e.value.Pack())
					if other, ok := claimed[j][v]; ok && other != string(key) {
						return ix.wrap(fmt.Errorf("%w: value %v is given to two rows (writing %v)", ErrUnique, e.value, row.Key))
					}
					claimed[j][v] = string(key)
					if err := ix.checkUnique(tx, e.value, row.Key); err != nil {
						return err
					}
				}
				writes = append(writes, write{key: []byte(k), value: e.cover})
			}
			for _, k := range del {
				writes = append(writes, write{key: []byte(k), del: true})
			}
		}
	}
	slices.SortStableFunc(writes, func(a, b write) int { return bytes.Compare(a.key, b.key) })
	for _, w := range writes {
		var err error
		if w.del {
			err = tx.Delete(w.key)
		} else {
			err = tx.Put(w.key, w.value)
		}
		if err != nil {
			return t.wrap(err)
		}
	}
	return nil
}

// Delete removes the record under pk and its index entries; a missing
// record is not an error.
func (t *Table[R]) Delete(tx keyspace.Tx, pk composite.Tuple) error {
	key, err := t.recordKey(pk)
	if err != nil {
		return err
	}
	old, existed, err := t.get(tx, pk)
	if errors.Is(err, keyspace.ErrNotFound) {
		return nil
	}
	if err != nil || !existed {
		return err
	}
	for _, ix := range t.indexes {
		keys, err := ix.entryKeys(old.Value, pk)
		if err != nil {
			return err
		}
		for k := range keys {
			if err := tx.Delete([]byte(k)); err != nil {
				return t.wrap(err)
			}
		}
	}
	return tx.Delete(key)
}

// Scan visits records in primary-key order within r (from t.Range or
// t.RangeOf); stop by returning false.
func (t *Table[R]) Scan(tx keyspace.Tx, r keyspace.Range, fn func(Record[R]) bool) error {
	for k, v := range tx.Scan(r) {
		pk, err := t.records.Unpack(k)
		if err != nil {
			return t.wrap(fmt.Errorf("%w: record key %q", keyspace.ErrCorrupt, k))
		}
		rec, err := t.decode(pk, v)
		if err != nil {
			return err
		}
		if !fn(rec) {
			break
		}
	}
	if err := tx.Err(); err != nil {
		return t.wrap(err)
	}
	return nil
}

// Records is the subspace of the records, keyed by primary key (for text
// queries: composite.ParseQuery(…).Range(t.Records()), and GroupCounts).
func (t *Table[R]) Records() composite.Subspace { return t.records }

// Range is every record; RangeOf the records whose key starts with prefix.
func (t *Table[R]) Range() keyspace.Range { return t.records.Range() }

// RangeOf is the records whose primary key starts with prefix.
func (t *Table[R]) RangeOf(prefix composite.Tuple) keyspace.Range { return t.records.RangeOf(prefix) }
