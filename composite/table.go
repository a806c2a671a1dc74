package composite

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/keyspacedb/keyspace"
)

// Table keeps records (opaque byte values) under composite primary keys,
// such as the seeds' user table keyed State:City:UserID.
//
// Key layout: ("t", name, k1, …, kn) → record. All methods take the
// caller's transaction, so a table write can share it with index, geo and
// counter writes.
type Table struct {
	name   string
	sub    Subspace
	schema Schema
}

// ErrKeyShape is returned when a key does not fit the table's schema.
var ErrKeyShape = errors.New("composite: key does not match the table's schema")

// NewTable returns the table called name. A non-nil schema fixes the number
// and kinds of key columns; Put then rejects keys that do not match.
func NewTable(name string, schema Schema) *Table {
	return &Table{name: name, sub: NewSubspace("t", name), schema: schema}
}

// Name returns the table's name.
func (t *Table) Name() string { return t.name }

// Schema returns the table's key schema (nil when untyped).
func (t *Table) Schema() Schema { return t.schema }

// Subspace returns the part of the keyspace the table occupies.
func (t *Table) Subspace() Subspace { return t.sub }

// checkKey verifies that key fits the schema.
func (t *Table) checkKey(key Tuple) error {
	if t.schema == nil {
		return nil
	}
	if len(key) != len(t.schema) {
		return fmt.Errorf("%w: %d components, want %d", ErrKeyShape, len(key), len(t.schema))
	}
	for i, col := range t.schema {
		v := key[i]
		if col.Desc {
			d, ok := v.(Desc)
			if !ok {
				return fmt.Errorf("%w: column %s is descending; wrap the value in Desc", ErrKeyShape, col.Name)
			}
			v = d.V
		}
		if !kindMatches(col.Kind, v) {
			return fmt.Errorf("%w: column %s wants %s, got %T", ErrKeyShape, col.Name, col.Kind, v)
		}
	}
	return nil
}

func kindMatches(k Kind, v any) bool {
	switch v := v.(type) {
	case string:
		return k == KindString || k == KindAny
	case []byte:
		return k == KindBytes || k == KindAny
	case int, int8, int16, int32, int64:
		return k == KindInt || k == KindAny
	case uint8, uint16, uint32:
		return k == KindUint || k == KindInt || k == KindAny
	case uint:
		return k == KindUint || k == KindInt && v <= math.MaxInt64 || k == KindAny
	case uint64:
		return k == KindUint || k == KindInt && v <= math.MaxInt64 || k == KindAny
	case float32:
		return k == KindFloat32 || k == KindAny
	case float64:
		return k == KindFloat64 || k == KindAny
	case bool:
		return k == KindBool || k == KindAny
	case UUID:
		return k == KindUUID || k == KindAny
	case time.Time:
		return k == KindTime || k == KindAny
	}
	return k == KindAny
}

// Key returns the packed key of a record.
func (t *Table) Key(key Tuple) ([]byte, error) {
	if err := t.checkKey(key); err != nil {
		return nil, fmt.Errorf("composite: table %s: %w", t.name, err)
	}
	k, err := t.sub.TryPack(key)
	if err != nil {
		return nil, fmt.Errorf("composite: table %s: %w", t.name, err)
	}
	return k, nil
}

// Put stores record under key.
func (t *Table) Put(tx keyspace.Tx, key Tuple, record []byte) error {
	k, err := t.Key(key)
	if err != nil {
		return err
	}
	return tx.Put(k, record)
}

// Get returns the record under key (keyspace.ErrNotFound when absent). The
// slice is valid until the transaction ends.
func (t *Table) Get(tx keyspace.Tx, key Tuple) ([]byte, error) {
	k, err := t.Key(key)
	if err != nil {
		return nil, err
	}
	v, err := tx.Get(k)
	if err != nil {
		return nil, fmt.Errorf("composite: table %s: get %v: %w", t.name, key, err)
	}
	return v, nil
}

// Delete removes the record under key.
func (t *Table) Delete(tx keyspace.Tx, key Tuple) error {
	k, err := t.Key(key)
	if err != nil {
		return err
	}
	return tx.Delete(k)
}

// Row is one record of a scan, copied out of the transaction.
type Row struct {
	Key    Tuple
	Record []byte
}

// ScanOptions page through a scan.
type ScanOptions struct {
	Reverse bool
	Limit   int    // rows per page; 0 for all
	Cursor  string // from the previous page's Next; "" for the first page
}

// Page is one page of rows and the cursor for the next, "" when done.
type Page struct {
	Rows []Row
	Next string
}

// Query parses a text query ("CA:San Francisco*") with the table's schema.
func (t *Table) Query(text string) (keyspace.Range, error) {
	q, err := ParseQuery(text, t.schema)
	if err != nil {
		return keyspace.Range{}, fmt.Errorf("composite: table %s: %w", t.name, err)
	}
	return q.Range(t.sub), nil
}

// Scan returns one page of the records in r (from Query, Subspace().RangeOf
// or Subspace().Between). The Next cursor continues it in a later
// transaction, and is rejected for any other range.
func (t *Table) Scan(tx keyspace.Tx, r keyspace.Range, opts ScanOptions) (Page, error) {
	r.Reverse = opts.Reverse
	rows, next, err := keyspace.ScanPage(tx, r, opts.Cursor, opts.Limit, func(k, v []byte) (Row, error) {
		key, err := t.sub.Unpack(k)
		return Row{Key: key, Record: bytes.Clone(v)}, err
	})
	if err == nil {
		err = tx.Err()
	}
	if err != nil {
		return Page{}, fmt.Errorf("composite: table %s: %w", t.name, err)
	}
	return Page{Rows: rows, Next: next}, nil
}

// Count returns the record counts per group of depth key columns under
// prefix (see GroupCounts).
func (t *Table) Count(tx keyspace.Tx, prefix Tuple, depth int) ([]GroupCount, error) {
	return GroupCounts(tx, t.sub, prefix, depth)
}
