package indextable

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/internal/errctx"
	"github.com/keyspacedb/keyspace/internal/expiry"
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
	// ErrBadReading: a series reading that is not a finite number, at a
	// time no key can hold, or that would overflow its bucket's sum.
	ErrBadReading = errors.New("indextable: bad reading")
	// ErrBadRollup: a Series.Rollup to a width that is not a whole
	// number of the series' buckets, of buckets out of time order, or
	// whose sum passes the largest float64.
	ErrBadRollup = errors.New("indextable: bad rollup")
	// ErrBadExpiry: an expiry not after 1970 or after 2262 (int64
	// nanoseconds since 1970 hold it).
	ErrBadExpiry = errors.New("indextable: expiry out of range")
	// ErrBadPeriod: a relation's period that ends before it starts.
	ErrBadPeriod = errors.New("indextable: period ends before it starts")
)

// Codec turns records into bytes and back.
type Codec interface {
	Marshal(v any) ([]byte, error)
	Unmarshal(data []byte, v any) error
}

// JSON is the default codec: encoding/json, except that it writes <, >
// and & as they are rather than as \u003c, \u003e and \u0026 (escapes
// for JSON pasted into HTML, which a stored record is not), so that a
// record holding HTML or a URL reads back as it was written when printed.
// It reads as encoding/json does: a struct's int64 field exactly, but a
// number inside an any (a map[string]any record) as a float64, which
// holds whole numbers exactly only up to 2^53. For such records, a Codec
// whose Unmarshal decodes with json.Decoder.UseNumber keeps every digit,
// as the keyspace command line's does.
type JSON struct{}

func (JSON) Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}

func (JSON) Unmarshal(data []byte, v any) error { return json.Unmarshal(data, v) }

// Options configure a table.
type Options struct {
	Codec Codec // JSON when nil
	// Now is the clock that decides which records have expired (see
	// expiry.go); time.Now when nil.
	Now func() time.Time
}

// Table keeps records of type R under composite primary keys and keeps its
// indexes in step with them in the caller's transaction.
type Table[R any] struct {
	name    string
	codec   Codec
	records composite.Subspace
	entries composite.Subspace // ("x", name, "i")
	meta    composite.Subspace // ("x", name, "b"): build progress
	expiry  composite.Subspace // ("x", name, "e"): records that expire, soonest first
	now     func() time.Time
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
		expiry:  composite.NewSubspace("x", name, "e"),
	}
	if opts != nil && opts.Codec != nil {
		t.codec = opts.Codec
	}
	if opts != nil {
		t.now = opts.Now
	}
	return t
}

// Name returns the table's name.
func (t *Table[R]) Name() string { return t.name }

// Drop deletes every record of the table (expired or not), every index
// entry (of declared indexes and of any other), every expiry entry and any
// build progress, and returns how many records it deleted. The
// declarations stay: a write after Drop indexes as before.
func (t *Table[R]) Drop(tx keyspace.Tx) (int, error) {
	counts, err := composite.Clear(tx, t.records, t.entries, t.meta, t.expiry)
	if err != nil {
		return 0, t.wrap(err)
	}
	return counts[0], nil
}

// Indexes returns the declared indexes.
func (t *Table[R]) Indexes() []*Index[R] { return t.indexes }

func (t *Table[R]) wrap(err error) error { return errctx.Wrap("indextable", "table "+t.name, err) }

// Record is a stored record with its key and version (1 on first write,
// +1 on every write), and when it expires (zero: never).
type Record[R any] struct {
	Key     composite.Tuple
	Value   R
	Version uint64
	Expires time.Time
}

func (t *Table[R]) clock() expiry.Clock { return expiry.NewClock(t.now) }

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

// newRecordKey is recordKey for a write: it also refuses a key that, or
// whose expiry entry (as long, in a subspace of the same length, and
// up to expiry.KeyExtra bytes more), would pass keyspace.MaxKeySize.
// Reads and deletes take any key the store holds.
func (t *Table[R]) newRecordKey(pk composite.Tuple) ([]byte, error) {
	key, err := t.recordKey(pk)
	if err != nil {
		return nil, err
	}
	if n := len(key) + expiry.KeyExtra; n > keyspace.MaxKeySize {
		return nil, t.wrap(fmt.Errorf("primary key %s: %w: its keys take up to %d bytes (the most is %d)",
			errctx.Quote(fmt.Sprint(pk)), errctx.Bare("keyspace", keyspace.ErrKeyTooLarge), n, keyspace.MaxKeySize))
	}
	return key, nil
}

// Validate reports what Put, CompareAndSet and PutAll would refuse row
// for before they read the store: an empty or unpackable primary key, a
// key too long for the store (keyspace.ErrKeyTooLarge: the record's, or
// an index entry's when a field the index holds is long), an index value
// of too many components, a record the codec cannot encode, or an expiry
// out of range (ErrBadExpiry). A unique violation needs the store: Put
// and PutAll find those. An import checks each row with it, to name a bad
// row (or skip it) before writing any.
func (t *Table[R]) Validate(row Row[R]) error {
	if _, err := t.newRecordKey(row.Key); err != nil {
		return err
	}
	if _, err := t.expiryOf(row.Key, row.Expires); err != nil {
		return err
	}
	if _, err := t.codec.Marshal(row.Value); err != nil {
		return t.wrap(fmt.Errorf("record %v: %w", row.Key, err))
	}
	for _, ix := range t.indexes {
		if _, err := ix.entryKeys(row.Value, row.Key, 0, true); err != nil {
			return err
		}
	}
	return nil
}

// Get returns the record under pk. A record that has expired by the
// table's clock is not found.
func (t *Table[R]) Get(tx keyspace.Tx, pk composite.Tuple) (Record[R], error) {
	rec, _, err := t.get(tx, pk)
	if clock := t.clock(); err == nil && clock.Expired(nanos(rec.Expires)) {
		return Record[R]{}, t.wrap(fmt.Errorf("record %v (expired at %v): %w", pk, rec.Expires, keyspace.ErrNotFound))
	}
	return rec, err
}

// get reads the stored record under pk, expired or not, and whether it
// exists; a missing record is also an error wrapping keyspace.ErrNotFound.
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

// decode reads a stored record: version | [expires] | body (see
// recordValue).
func (t *Table[R]) decode(pk composite.Tuple, v []byte) (Record[R], error) {
	version, expires, body, err := splitRecordValue(v)
	if err != nil {
		return Record[R]{}, t.wrap(fmt.Errorf("%w: record %v: %v", keyspace.ErrCorrupt, pk, err))
	}
	rec := Record[R]{Key: pk, Version: version, Expires: expiry.Time(expires)}
	if err := t.codec.Unmarshal(body, &rec.Value); err != nil {
		return Record[R]{}, t.wrap(fmt.Errorf("record %v: %w", pk, err))
	}
	return rec, nil
}

// Put writes r under pk and brings every index in step: entries the old
// record had and r has not are removed, new ones added. A unique violation
// is found before anything is written, and is an error naming the index and
// the value. It returns the new version. The record does not expire, as
// Redis's SET without KEEPTTL: call SetExpiry in the same transaction to
// make it expire.
func (t *Table[R]) Put(tx keyspace.Tx, pk composite.Tuple, r R) (uint64, error) {
	return t.write(tx, pk, r, nil, 0)
}

// CompareAndSet writes r only if the record is at version (0: only if it
// does not exist, or has expired), else ErrVersion. Like Put, it writes a
// record that does not expire; a lease is CompareAndSet and SetExpiry in
// one transaction.
func (t *Table[R]) CompareAndSet(tx keyspace.Tx, pk composite.Tuple, version uint64, r R) (uint64, error) {
	return t.write(tx, pk, r, &version, 0)
}

// Update is read-modify-write: fn changes the current record (the zero R
// when there is none, or it has expired) and the result is written with
// its indexes, keeping the record's expiry (as Redis's commands that
// change a value keep its TTL). Writes are serialized by the store, so
// concurrent Updates lose nothing (increment a counter field, append to a
// list field).
func (t *Table[R]) Update(tx keyspace.Tx, pk composite.Tuple, fn func(r *R) error) (R, error) {
	old, err := t.Get(tx, pk)
	if err != nil && !errors.Is(err, keyspace.ErrNotFound) {
		var zero R
		return zero, err
	}
	if err := fn(&old.Value); err != nil {
		var zero R
		return zero, err
	}
	_, err = t.write(tx, pk, old.Value, nil, nanos(old.Expires))
	return old.Value, err
}

// write puts r under pk, expiring at expires (nanoseconds since 1970, 0
// for never), if the record is at version expect (when not nil). A stored
// record that has expired counts as none (version 0), but its entries are
// replaced as a live record's are.
func (t *Table[R]) write(tx keyspace.Tx, pk composite.Tuple, r R, expect *uint64, expires int64) (uint64, error) {
	key, err := t.newRecordKey(pk)
	if err != nil {
		return 0, err
	}
	old, existed, err := t.get(tx, pk)
	if err != nil && !errors.Is(err, keyspace.ErrNotFound) {
		return 0, err
	}
	clock := t.clock()
	oldExpires := nanos(old.Expires)
	current := old.Version
	if clock.Expired(oldExpires) {
		current = 0
	}
	if expect != nil && *expect != current {
		return 0, t.wrap(fmt.Errorf("%w: record %v is at version %d, not %d", ErrVersion, pk, current, *expect))
	}
	body, err := t.codec.Marshal(r)
	if err != nil {
		return 0, t.wrap(fmt.Errorf("record %v: %w", pk, err))
	}
	// Work out every index change and check uniqueness before writing.
	type change struct{ add, del, values [][]byte }
	changes := make([]change, len(t.indexes))
	var evict []composite.Tuple // expired records holding a unique value r takes
	for i, ix := range t.indexes {
		add, del, err := ix.diff(old.Value, oldExpires, existed, r, expires, pk)
		if err != nil {
			return 0, err
		}
		for k, e := range add {
			if ix.spec.Unique {
				holders, err := ix.checkUnique(tx, e.value, pk, &clock)
				if err != nil {
					return 0, err
				}
				evict = append(evict, holders...)
			}
			changes[i].add = append(changes[i].add, []byte(k))
			changes[i].values = append(changes[i].values, e.cover)
		}
		for _, k := range del {
			changes[i].del = append(changes[i].del, []byte(k))
		}
	}
	for _, h := range evict {
		if err := t.deleteStored(tx, h); err != nil {
			return 0, err
		}
	}
	version := current + 1
	if err := tx.Put(key, recordValue(version, expires, body)); err != nil {
		return 0, t.wrap(err)
	}
	if err := t.moveExpiry(tx, pk, oldExpires, expires); err != nil {
		return 0, err
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

// Row is a record to write with PutAll, and when it expires (zero: never).
type Row[R any] struct {
	Key     composite.Tuple
	Value   R
	Expires time.Time
}

// PutAll writes many records, as an import does: every change is worked out
// and every unique index checked (against the store and within rows) before
// anything is written, then all writes go in one sorted run of keys, which
// bbolt takes into a large transaction in linear time. A later row with the
// same key wins. A row's Expires makes its record expire (see SetExpiry);
// an expiry out of range is ErrBadExpiry, and nothing is written.
func (t *Table[R]) PutAll(tx keyspace.Tx, rows []Row[R]) error {
	type write struct {
		key, value []byte
		del        bool
	}
	var writes []write
	last := map[string]int{}
	for i, row := range rows {
		k, err := t.newRecordKey(row.Key)
		if err != nil {
			return err
		}
		if _, err := t.expiryOf(row.Key, row.Expires); err != nil {
			return err
		}
		last[string(k)] = i
	}
	clock := t.clock()
	evicted := map[string]bool{}                         // record keys of expired holders deleted
	claimed := make([]map[string]string, len(t.indexes)) // unique value → record key, within rows
	for i := range claimed {
		claimed[i] = map[string]string{}
	}
	for i, row := range rows {
		key, _ := t.recordKey(row.Key)
		if last[string(key)] != i {
			continue
		}
		expires, _ := t.expiryOf(row.Key, row.Expires)
		old, existed, err := t.get(tx, row.Key)
		if err != nil && !errors.Is(err, keyspace.ErrNotFound) {
			return err
		}
		oldExpires := nanos(old.Expires)
		if clock.Expired(oldExpires) {
			old.Version = 0
		}
		body, err := t.codec.Marshal(row.Value)
		if err != nil {
			return t.wrap(fmt.Errorf("record %v: %w", row.Key, err))
		}
		writes = append(writes, write{key: key, value: recordValue(old.Version+1, expires, body)})
		if oldExpires != expires {
			if oldExpires != 0 {
				writes = append(writes, write{key: t.expiryKey(oldExpires, row.Key), del: true})
			}
			if expires != 0 {
				writes = append(writes, write{key: t.expiryKey(expires, row.Key)})
			}
		}
		for j, ix := range t.indexes {
			add, del, err := ix.diff(old.Value, oldExpires, existed, row.Value, expires, row.Key)
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
					holders, err := ix.checkUnique(tx, e.value, row.Key, &clock)
					if err != nil {
						return err
					}
					for _, h := range holders {
						// A holder among the rows rewrites its own entries.
						hk, _ := t.recordKey(h)
						if _, inRows := last[string(hk)]; inRows || evicted[string(hk)] {
							continue
						}
						evicted[string(hk)] = true
						keys, err := t.storedKeys(tx, h)
						if err != nil {
							return err
						}
						for _, k := range keys {
							writes = append(writes, write{key: k, del: true})
						}
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

// Delete removes the record under pk (expired or not), its index entries
// and its expiry entry; a missing record is not an error.
func (t *Table[R]) Delete(tx keyspace.Tx, pk composite.Tuple) error {
	if _, err := t.recordKey(pk); err != nil {
		return err
	}
	return t.deleteStored(tx, pk)
}

// deleteStored deletes the stored record under pk with every key it has.
func (t *Table[R]) deleteStored(tx keyspace.Tx, pk composite.Tuple) error {
	keys, err := t.storedKeys(tx, pk)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := tx.Delete(k); err != nil {
			return t.wrap(err)
		}
	}
	return nil
}

// storedKeys lists every key the stored record under pk has: its index
// entries, its expiry entry and the record itself; none when there is no
// record.
func (t *Table[R]) storedKeys(tx keyspace.Tx, pk composite.Tuple) ([][]byte, error) {
	old, existed, err := t.get(tx, pk)
	if errors.Is(err, keyspace.ErrNotFound) {
		return nil, nil
	}
	if err != nil || !existed {
		return nil, err
	}
	expires := nanos(old.Expires)
	var keys [][]byte
	for _, ix := range t.indexes {
		entries, err := ix.entryKeys(old.Value, pk, expires, false)
		if err != nil {
			return nil, err
		}
		for k := range entries {
			keys = append(keys, []byte(k))
		}
	}
	if expires != 0 {
		keys = append(keys, t.expiryKey(expires, pk))
	}
	key, _ := t.recordKey(pk)
	return append(keys, key), nil
}

// Scan visits records in primary-key order within r (from t.Range or
// t.RangeOf), leaving out those that have expired by the table's clock;
// r.Limit counts the records visited. Stop by returning false.
func (t *Table[R]) Scan(tx keyspace.Tx, r keyspace.Range, fn func(Record[R]) bool) error {
	clock := t.clock()
	limit := r.Limit
	r.Limit = 0
	n := 0
	return t.scanStored(tx, r, func(rec Record[R]) bool {
		if clock.Expired(nanos(rec.Expires)) {
			return true
		}
		n++
		return fn(rec) && (limit <= 0 || n < limit)
	})
}

// scanStored visits the stored records in r, expired or not, as Build
// and Verify need them.
func (t *Table[R]) scanStored(tx keyspace.Tx, r keyspace.Range, fn func(Record[R]) bool) error {
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
// queries: composite.ParseQuery(…).Range(t.Records())). Count records by
// group with Table.GroupCounts, which leaves out expired ones.
func (t *Table[R]) Records() composite.Subspace { return t.records }

// Range is every record; RangeOf the records whose key starts with prefix.
func (t *Table[R]) Range() keyspace.Range { return t.records.Range() }

// RangeOf is the records whose primary key starts with prefix.
func (t *Table[R]) RangeOf(prefix composite.Tuple) keyspace.Range { return t.records.RangeOf(prefix) }

// Between is the records whose primary key starts with prefix and whose
// next component lies in [from, to) (empty for an open end): a user's
// messages from one time to another, keyed (user, time, id), as
// Index.Between is for an index's values. Like RangeOf, it panics on a
// component no key can hold, as composite.Subspace.Pack does.
func (t *Table[R]) Between(prefix, from, to composite.Tuple) keyspace.Range {
	return t.records.Between(prefix, from, to)
}
