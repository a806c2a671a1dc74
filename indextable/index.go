package indextable

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/internal/errctx"
)

// IndexSpec declares a secondary index.
type IndexSpec[R any] struct {
	Name string
	// Values maps a record to its index values: none (not indexed), one,
	// or many (a multikey index over an array; duplicates count once).
	// Components may be composite.Desc for descending order, as in
	// ("completed", Desc{createTime}). Values of one index should have the
	// same number of components.
	Values func(r R) []composite.Tuple
	// Unique refuses a second record with the same value.
	Unique bool
	// Cover, if set, projects fields into the index entry (encoded with the
	// table's codec), so a lookup answers without reading the record.
	Cover func(r R) any
}

// Index is a declared index of a table.
type Index[R any] struct {
	t    *Table[R]
	spec IndexSpec[R]
	sub  composite.Subspace // ("x", table, "i", name)
}

// AddIndex declares an index. Declare every index before writing: writes
// maintain the indexes the table knows. An index added to a table that
// already holds records is empty until Build fills it.
func (t *Table[R]) AddIndex(spec IndexSpec[R]) (*Index[R], error) {
	if spec.Name == "" || spec.Values == nil {
		return nil, t.wrap(errors.New("an index needs a name and a Values function"))
	}
	for _, ix := range t.indexes {
		if ix.spec.Name == spec.Name {
			return nil, t.wrap(fmt.Errorf("%w: %s", ErrDuplicateIndex, spec.Name))
		}
	}
	ix := &Index[R]{t: t, spec: spec, sub: t.entries.Sub(spec.Name)}
	t.indexes = append(t.indexes, ix)
	return ix, nil
}

// Name returns the index's name.
func (ix *Index[R]) Name() string { return ix.spec.Name }

func (ix *Index[R]) wrap(err error) error {
	return errctx.Wrap("indextable", "table "+ix.t.name+" index "+ix.spec.Name, err)
}

// entry is one index entry of a record: its value tuple and the entry's
// stored bytes (value length, then covered fields).
type entry struct {
	value composite.Tuple
	cover []byte
}

// entryKeys computes a record's entries, keyed by their packed key:
// ("x", table, "i", index, value…, pk…).
func (ix *Index[R]) entryKeys(r R, pk composite.Tuple) (map[string]entry, error) {
	values := ix.spec.Values(r)
	out := make(map[string]entry, len(values))
	var cover []byte
	if ix.spec.Cover != nil && len(values) > 0 {
		var err error
		if cover, err = ix.t.codec.Marshal(ix.spec.Cover(r)); err != nil {
			return nil, ix.wrap(fmt.Errorf("covered fields of %v: %w", pk, err))
		}
	}
	for _, v := range values {
		full := append(append(composite.Tuple{}, v...), pk...)
		b, err := full.TryPack()
		if err != nil {
			return nil, ix.wrap(fmt.Errorf("value %v of %v: %w", v, pk, err))
		}
		if len(v) > 255 {
			return nil, ix.wrap(fmt.Errorf("value %v of %v has more than 255 components", v, pk))
		}
		key := append(append([]byte{}, ix.sub.Bytes()...), b...)
		// The entry's value starts with the value's length, which splits
		// the key into value and primary key when it is read back.
		out[string(key)] = entry{value: v, cover: append([]byte{byte(len(v))}, cover...)}
	}
	return out, nil
}

// diff compares a record's entries before (when it existed) and after a
// write: add holds the entries the old record lacked (every new entry when
// the index covers fields, whose copies may have changed), del the old
// entries the new record no longer has.
func (ix *Index[R]) diff(old R, existed bool, r R, pk composite.Tuple) (add map[string]entry, del []string, err error) {
	var oldKeys map[string]entry
	if existed {
		if oldKeys, err = ix.entryKeys(old, pk); err != nil {
			return nil, nil, err
		}
	}
	newKeys, err := ix.entryKeys(r, pk)
	if err != nil {
		return nil, nil, err
	}
	add = make(map[string]entry, len(newKeys))
	for k, e := range newKeys {
		if _, ok := oldKeys[k]; !ok || ix.spec.Cover != nil {
			add[k] = e
		}
	}
	for k := range oldKeys {
		if _, ok := newKeys[k]; !ok {
			del = append(del, k)
		}
	}
	return add, del, nil
}

// checkUnique fails if a record other than pk has value.
func (ix *Index[R]) checkUnique(tx keyspace.Tx, value, pk composite.Tuple) error {
	r := ix.sub.RangeOf(value)
	own := ix.sub.Pack(append(append(composite.Tuple{}, value...), pk...))
	for k := range tx.Scan(r) {
		if !bytes.Equal(k, own) {
			t, _ := ix.sub.Unpack(k)
			return ix.wrap(fmt.Errorf("%w: value %v is taken by %v (writing %v)", ErrUnique, value, t[len(value):], pk))
		}
	}
	return tx.Err()
}

// Entry is an index entry found by a query.
type Entry struct {
	Value   composite.Tuple // the index value
	Key     composite.Tuple // the record's primary key
	Covered []byte          // the covered fields, codec-encoded (Decode them with the table's codec)
}

// ListOptions page through an index.
type ListOptions struct {
	Reverse bool
	Limit   int    // entries per page; 0 for all
	Cursor  string // the previous page's Next
}

// Page is one page of entries and the cursor for the next ("" when done).
type Page struct {
	Entries []Entry
	Next    string
}

// Equal is the range of entries whose value starts with the given leading
// components (equality on a prefix of a compound index: ("completed") of
// (status, Desc{createTime})). Like Between and Table.RangeOf, it panics on
// a component no key can hold, as composite.Subspace.Pack does.
func (ix *Index[R]) Equal(prefix ...any) keyspace.Range { return ix.sub.RangeOf(prefix) }

// Between is the range of entries with value prefix whose next components
// lie in [from, to) (empty for open ends).
func (ix *Index[R]) Between(prefix, from, to composite.Tuple) keyspace.Range {
	return ix.sub.Between(prefix, from, to)
}

// All is the whole index.
func (ix *Index[R]) All() keyspace.Range { return ix.sub.Range() }

// Scan returns one page of entries in r, in index order.
func (ix *Index[R]) Scan(tx keyspace.Tx, r keyspace.Range, opts *ListOptions) (Page, error) {
	var o ListOptions
	if opts != nil {
		o = *opts
	}
	if o.Limit < 0 {
		return Page{}, ix.wrap(fmt.Errorf("negative limit %d", o.Limit))
	}
	r.Reverse = o.Reverse
	entries, next, err := keyspace.ScanPage(tx, r, o.Cursor, o.Limit, ix.decodeEntry)
	if errors.Is(err, keyspace.ErrBadCursor) {
		return Page{}, ix.wrap(err)
	}
	if err != nil {
		return Page{}, err // decodeEntry's, wrapped already
	}
	if err := tx.Err(); err != nil {
		return Page{}, ix.wrap(err)
	}
	return Page{Entries: entries, Next: next}, nil
}

// decodeEntry splits an entry key into value and primary key, by the value
// length stored first in the entry.
func (ix *Index[R]) decodeEntry(k, v []byte) (Entry, error) {
	t, err := ix.sub.Unpack(k)
	if err != nil || len(v) < 1 || int(v[0]) > len(t) {
		return Entry{}, ix.wrap(fmt.Errorf("%w: entry %q", keyspace.ErrCorrupt, k))
	}
	n := int(v[0])
	e := Entry{Value: t[:n], Key: t[n:]}
	if len(v) > 1 {
		e.Covered = append([]byte(nil), v[1:]...)
	}
	return e, nil
}

// Records reads the records of entries (a lookup that is not covered).
func (ix *Index[R]) Records(tx keyspace.Tx, entries []Entry) ([]Record[R], error) {
	out := make([]Record[R], 0, len(entries))
	for _, e := range entries {
		rec, err := ix.t.Get(tx, e.Key)
		if err != nil {
			return nil, ix.wrap(fmt.Errorf("entry %v names %v: %w (index out of step; run Verify)", e.Value, e.Key, err))
		}
		out = append(out, rec)
	}
	return out, nil
}
