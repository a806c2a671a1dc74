package indextable

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/internal/errctx"
	"github.com/keyspacedb/keyspace/internal/expiry"
)

// IndexSpec declares a secondary index.
type IndexSpec[R any] struct {
	Name string
	// Values maps a record to its index values: none (not indexed), one,
	// or many (a multikey index over an array; duplicates count once).
	// Components may be composite.Desc for descending order, as in
	// ("completed", Desc{createTime}). Values of one index should have the
	// same number of components. Writes compute them from the record
	// given, Build, Verify and Repair from the record the codec reads
	// back, so Values (and Cover) must give a record and its round trip
	// through the codec the same entries: with the JSON codec, a
	// map[string]any holding a json.Number 7.50 reads back as the
	// float64 7.5, and an entry made from the number's text is stale
	// (the command line converts its imports' numbers before writing).
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
// stored bytes (value length, then the record's expiry if it has one, then
// covered fields).
type entry struct {
	value composite.Tuple
	cover []byte
}

// maxComponents is how many components an index value may have: the
// entry's length byte holds the count below entryExpires.
const maxComponents = entryExpires - 1

// entryKeys computes the entries of a record expiring at expires (0:
// never), keyed by their packed key: ("x", table, "i", index, value…,
// pk…). An entry whose key would pass keyspace.MaxKeySize is an error
// when writing (a record to write, an index to build); otherwise (the
// entries a stored record has, to delete or verify) it is left out, as
// no store can hold it.
func (ix *Index[R]) entryKeys(r R, pk composite.Tuple, expires int64, writing bool) (map[string]entry, error) {
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
		if len(v) > maxComponents {
			return nil, ix.wrap(fmt.Errorf("value %v of %v has more than %d components", v, pk, maxComponents))
		}
		key := append(append([]byte{}, ix.sub.Bytes()...), b...)
		if len(key) > keyspace.MaxKeySize {
			if !writing {
				continue // no store holds it
			}
			return nil, ix.wrap(fmt.Errorf("value %s of %s: %w: its entry's key is %d bytes (the most is %d)",
				errctx.Quote(fmt.Sprint(v)), errctx.Quote(fmt.Sprint(pk)), errctx.Bare("keyspace", keyspace.ErrKeyTooLarge), len(key), keyspace.MaxKeySize))
		}
		// The entry's value starts with the value's length, which splits
		// the key into value and primary key when it is read back.
		head := make([]byte, 1, 9+len(cover))
		head[0] = byte(len(v))
		if expires != 0 {
			head[0] |= entryExpires
			head = binary.BigEndian.AppendUint64(head, uint64(expires))
		}
		out[string(key)] = entry{value: v, cover: append(head, cover...)}
	}
	return out, nil
}

// diff compares a record's entries before (when it existed) and after a
// write: add holds the entries the old record lacked (every new entry when
// the index covers fields, whose copies may have changed, or when the
// expiry changed, which every entry holds), del the old entries the new
// record no longer has.
func (ix *Index[R]) diff(old R, oldExpires int64, existed bool, r R, expires int64, pk composite.Tuple) (add map[string]entry, del []string, err error) {
	var oldKeys map[string]entry
	if existed {
		if oldKeys, err = ix.entryKeys(old, pk, oldExpires, false); err != nil {
			return nil, nil, err
		}
	}
	newKeys, err := ix.entryKeys(r, pk, expires, true)
	if err != nil {
		return nil, nil, err
	}
	rewrite := ix.spec.Cover != nil || oldExpires != expires
	add = make(map[string]entry, len(newKeys))
	for k, e := range newKeys {
		if _, ok := oldKeys[k]; !ok || rewrite {
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

// checkUnique fails if a live record other than pk has value, and
// returns the records that hold it and have expired by clock, which the
// write deletes before it takes the value.
func (ix *Index[R]) checkUnique(tx keyspace.Tx, value, pk composite.Tuple, clock *expiry.Clock) ([]composite.Tuple, error) {
	r := ix.sub.RangeOf(value)
	own := ix.sub.Pack(append(append(composite.Tuple{}, value...), pk...))
	var expired []composite.Tuple
	for k, v := range tx.Scan(r) {
		if bytes.Equal(k, own) {
			continue
		}
		t, _ := ix.sub.Unpack(k)
		holder := t[len(value):]
		if _, expires, _, err := splitEntry(v); err == nil && clock.Expired(expires) {
			// The entry says expired; the record must agree.
			if rec, _, err := ix.t.get(tx, holder); err == nil && clock.Expired(nanos(rec.Expires)) {
				expired = append(expired, holder)
				continue
			}
		}
		return nil, ix.wrap(fmt.Errorf("%w: value %v is taken by %v (writing %v)", ErrUnique, value, holder, pk))
	}
	return expired, tx.Err()
}

// Entry is an index entry found by a query.
type Entry struct {
	Value   composite.Tuple // the index value
	Key     composite.Tuple // the record's primary key
	Covered []byte          // the covered fields, codec-encoded (Decode them with the table's codec)
	Expires time.Time       // when the record expires (zero: never)
}

// ListOptions page through an index.
type ListOptions struct {
	Reverse bool
	Limit   int    // entries per page; 0 for all
	Cursor  string // the previous page's Next
	// Keep, if set, keeps only the entries it returns true for, as a
	// table scan's --where keeps rows: Limit counts the kept, and a page
	// reads on past the rest (Index.Records, in the same transaction,
	// gives it an entry's record).
	Keep func(Entry) bool
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

// Match is the range of entries whose value matches q, a query in
// composite's text form with a star (composite.ParseQuery against the
// index's fields): ("CA", "San*") is every entry whose first field is CA
// and whose second is a string starting with San, ("CA", *) every entry
// whose first field is CA; an exact q is Equal(q.Prefix...).
func (ix *Index[R]) Match(q composite.Query) keyspace.Range {
	if q.Exact {
		return ix.Equal(q.Prefix...)
	}
	return q.Range(ix.sub)
}

// All is the whole index.
func (ix *Index[R]) All() keyspace.Range { return ix.sub.Range() }

// Scan returns one page of entries in r, in index order, leaving out the
// entries of records that have expired by the table's clock.
func (ix *Index[R]) Scan(tx keyspace.Tx, r keyspace.Range, opts *ListOptions) (Page, error) {
	var o ListOptions
	if opts != nil {
		o = *opts
	}
	if o.Limit < 0 {
		return Page{}, ix.wrap(fmt.Errorf("negative limit %d", o.Limit))
	}
	r.Reverse = o.Reverse
	clock := ix.t.clock()
	entries, next, err := keyspace.ScanPage(tx, r, o.Cursor, o.Limit, func(k, v []byte) (Entry, error) {
		e, err := ix.decodeEntry(k, v)
		if err == nil && (clock.Expired(nanos(e.Expires)) || o.Keep != nil && !o.Keep(e)) {
			return e, keyspace.ErrSkip
		}
		return e, err
	})
	if errors.Is(err, keyspace.ErrBadCursor) {
		return Page{}, ix.wrap(errctx.Bare("keyspace", err))
	}
	if err != nil {
		return Page{}, err // decodeEntry's, wrapped already
	}
	if err := tx.Err(); err != nil {
		return Page{}, ix.wrap(err)
	}
	return Page{Entries: entries, Next: next}, nil
}

// splitEntry reads an entry's value: the index value's length, the
// record's expiry (0: never) and the covered fields.
func splitEntry(v []byte) (n int, expires int64, covered []byte, err error) {
	if len(v) < 1 {
		return 0, 0, nil, errors.New("empty entry")
	}
	n, covered = int(v[0]&^entryExpires), v[1:]
	if v[0]&entryExpires != 0 {
		if len(v) < 9 {
			return 0, 0, nil, fmt.Errorf("%d bytes with an expiry", len(v))
		}
		if expires = int64(binary.BigEndian.Uint64(v[1:])); expires <= 0 {
			return 0, 0, nil, fmt.Errorf("expiry %d is not after 1970", expires)
		}
		covered = v[9:]
	}
	return n, expires, covered, nil
}

// decodeEntry splits an entry key into value and primary key, by the value
// length stored first in the entry.
func (ix *Index[R]) decodeEntry(k, v []byte) (Entry, error) {
	t, err := ix.sub.Unpack(k)
	n, expires, covered, verr := splitEntry(v)
	if err != nil || verr != nil || n > len(t) {
		return Entry{}, ix.wrap(fmt.Errorf("%w: entry %q", keyspace.ErrCorrupt, k))
	}
	e := Entry{Value: t[:n], Key: t[n:], Expires: expiry.Time(expires)}
	if len(covered) > 0 {
		e.Covered = append([]byte(nil), covered...)
	}
	return e, nil
}

// Records reads the records of entries (a lookup that is not covered),
// leaving out a record that has expired since its entry was read.
func (ix *Index[R]) Records(tx keyspace.Tx, entries []Entry) ([]Record[R], error) {
	out := make([]Record[R], 0, len(entries))
	clock := ix.t.clock()
	for _, e := range entries {
		rec, _, err := ix.t.get(tx, e.Key)
		if err != nil {
			return nil, ix.wrap(fmt.Errorf("entry %v names %v: %w (index out of step; run Verify)", e.Value, e.Key, err))
		}
		if !clock.Expired(nanos(rec.Expires)) {
			out = append(out, rec)
		}
	}
	return out, nil
}
