package enumkeys

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/internal/errctx"
)

// ListOptions page through a listing.
type ListOptions struct {
	Reverse bool   // newest (highest id, latest time) first
	Limit   int    // items per page; 0 for all
	Cursor  string // the previous page's Next; "" for the first page
}

// Page is one page of items and the cursor for the next ("" when done).
type Page struct {
	Items []Item
	Next  string
}

// Latest returns the n newest items of parent, newest first.
func (l *Log) Latest(tx keyspace.Tx, parent string, n int) ([]Item, error) {
	if n < 1 {
		return nil, l.wrap(fmt.Errorf("%w: asked for the latest %d", ErrBadRange, n))
	}
	p, err := l.Range(tx, parent, 1, ^uint64(0), &ListOptions{Reverse: true, Limit: n})
	return p.Items, err
}

// Prev returns the live item just before id (deleted ids are skipped, and
// id itself may be deleted); keyspace.ErrNotFound when there is none.
func (l *Log) Prev(tx keyspace.Tx, parent string, id uint64) (Item, error) {
	if _, err := l.checkID(tx, parent, id); err != nil {
		return Item{}, err
	}
	return l.first(tx, parent, 1, id-1, true)
}

// Next returns the live item just after id; keyspace.ErrNotFound when
// there is none.
func (l *Log) Next(tx keyspace.Tx, parent string, id uint64) (Item, error) {
	if _, err := l.checkID(tx, parent, id); err != nil {
		return Item{}, err
	}
	return l.first(tx, parent, id+1, ^uint64(0), false)
}

func (l *Log) first(tx keyspace.Tx, parent string, from, to uint64, reverse bool) (Item, error) {
	if from > to {
		return Item{}, l.wrap(fmt.Errorf("%s: no item there: %w", parent, keyspace.ErrNotFound))
	}
	p, err := l.Range(tx, parent, from, to, &ListOptions{Reverse: reverse, Limit: 1})
	if err != nil {
		return Item{}, err
	}
	if len(p.Items) == 0 {
		return Item{}, l.wrap(fmt.Errorf("%s: no item there: %w", parent, keyspace.ErrNotFound))
	}
	return p.Items[0], nil
}

// Range lists the live items of parent with ids in [from, to], in id order
// (reverse: newest first), a page at a time.
func (l *Log) Range(tx keyspace.Tx, parent string, from, to uint64, opts *ListOptions) (Page, error) {
	if parent == "" {
		return Page{}, l.wrap(ErrEmptyParent)
	}
	if from > to {
		return Page{}, l.wrap(fmt.Errorf("%w: ids %d…%d end before they start", ErrBadRange, from, to))
	}
	r := keyspace.Range{Start: l.items.Pack(composite.Tuple{parent, from})}
	if to == ^uint64(0) {
		r.End = l.items.RangeOf(composite.Tuple{parent}).End
	} else {
		r.End = l.items.Pack(composite.Tuple{parent, to + 1})
	}
	return l.page(tx, r, opts, func(k, v []byte) (Item, error) {
		t, err := l.items.Unpack(k)
		if err != nil || len(t) != 2 {
			return Item{}, l.wrap(fmt.Errorf("%w: item key %q", keyspace.ErrCorrupt, k))
		}
		return decodeItem(parent, toUint(t[1]), v)
	})
}

// Scan lists the live items of every parent, a parent after another in
// key order (bytewise) and each parent's in id order (Reverse: the last
// parent's newest first), a page at a time: the whole log, for an export
// (keyspace log scan) that log import reads back.
func (l *Log) Scan(tx keyspace.Tx, opts *ListOptions) (Page, error) {
	return l.page(tx, l.items.Range(), opts, func(k, v []byte) (Item, error) {
		t, err := l.items.Unpack(k)
		parent, ok := "", err == nil && len(t) == 2
		if ok {
			parent, ok = t[0].(string)
		}
		if !ok {
			return Item{}, l.wrap(fmt.Errorf("%w: item key %q", keyspace.ErrCorrupt, k))
		}
		return decodeItem(parent, toUint(t[1]), v)
	})
}

// Between lists the items of parent stamped in [from, to), in time order
// (ties by id; reverse: latest first). It scans the time index, so it reads
// only the items of the period, not the parent's whole log. A zero from or
// to leaves that end open, as does a time beyond what a key can hold.
func (l *Log) Between(tx keyspace.Tx, parent string, from, to time.Time, opts *ListOptions) (Page, error) {
	r, err := l.timeRange(parent, from, to)
	if err != nil {
		return Page{}, err
	}
	return l.page(tx, r, opts, func(k, _ []byte) (Item, error) {
		t, err := l.times.Unpack(k)
		if err != nil || len(t) != 3 {
			return Item{}, l.wrap(fmt.Errorf("%w: time key %q", keyspace.ErrCorrupt, k))
		}
		id := toUint(t[2])
		v, err := tx.Get(l.items.Pack(composite.Tuple{parent, id}))
		if err != nil {
			return Item{}, l.wrap(fmt.Errorf("time index names %s/%d: %w", parent, id, err))
		}
		return decodeItem(parent, id, v)
	})
}

// CountBetween counts the items of parent stamped in [from, to), reading
// keys of the time index only.
func (l *Log) CountBetween(tx keyspace.Tx, parent string, from, to time.Time) (int, error) {
	r, err := l.timeRange(parent, from, to)
	if err != nil {
		return 0, err
	}
	n := 0
	for range tx.Scan(r) {
		n++
	}
	return n, tx.Err()
}

// Day lists the items of parent on the calendar day of day, in day's time
// zone: from its midnight to the next, so 23 or 25 hours across a
// daylight-saving change.
func (l *Log) Day(tx keyspace.Tx, parent string, day time.Time, opts *ListOptions) (Page, error) {
	from, to := DayBounds(day)
	return l.Between(tx, parent, from, to, opts)
}

// CountDay counts the items of parent on the calendar day of day.
func (l *Log) CountDay(tx keyspace.Tx, parent string, day time.Time) (int, error) {
	from, to := DayBounds(day)
	return l.CountBetween(tx, parent, from, to)
}

// DayBounds returns the midnight starting t's calendar day in t's location
// and the midnight starting the next.
func DayBounds(t time.Time) (from, to time.Time) {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, t.Location()), time.Date(y, m, d+1, 0, 0, 0, 0, t.Location())
}

// timeRange is the range of parent's time index in [from, to): a zero or
// unrepresentable end is open (composite.Subspace.TimesBetween).
func (l *Log) timeRange(parent string, from, to time.Time) (keyspace.Range, error) {
	if parent == "" {
		return keyspace.Range{}, l.wrap(ErrEmptyParent)
	}
	if !from.IsZero() && !to.IsZero() && to.Before(from) {
		return keyspace.Range{}, l.wrap(fmt.Errorf("%w: %s ends before %s", ErrBadRange, to.Format(time.RFC3339), from.Format(time.RFC3339)))
	}
	return l.times.TimesBetween(composite.Tuple{parent}, from, to), nil
}

// page reads one page of r with decode, and makes the cursor for the next.
func (l *Log) page(tx keyspace.Tx, r keyspace.Range, opts *ListOptions, decode func(k, v []byte) (Item, error)) (Page, error) {
	items, next, err := pageOf(l, tx, r, opts, decode)
	return Page{Items: items, Next: next}, err
}

// pageOf reads one page of r with decode, items or parents, and makes the
// cursor for the next.
func pageOf[T any](l *Log, tx keyspace.Tx, r keyspace.Range, opts *ListOptions, decode func(k, v []byte) (T, error)) ([]T, string, error) {
	var o ListOptions
	if opts != nil {
		o = *opts
	}
	if o.Limit < 0 {
		return nil, "", l.wrap(fmt.Errorf("%w: negative limit %d", ErrBadRange, o.Limit))
	}
	r.Reverse = o.Reverse
	out, next, err := keyspace.ScanPage(tx, r, o.Cursor, o.Limit, decode)
	if errors.Is(err, keyspace.ErrBadCursor) {
		return nil, "", l.wrap(errctx.Bare("keyspace", err))
	}
	if err != nil {
		return nil, "", err // decode's, wrapped already
	}
	if err := tx.Err(); err != nil {
		return nil, "", l.wrap(err)
	}
	return out, next, nil
}

// ParentCount is one parent of a log, with what its counter keeps.
type ParentCount struct {
	Parent string
	Count  int    // its live items
	LastID uint64 // the last id handed out to it, deleted or not
}

// ParentPage is one page of a log's parents and the cursor for the next
// ("" when done).
type ParentPage struct {
	Parents []ParentCount
	Next    string
}

// Parents lists the log's parents in key order (bytewise; Reverse: last
// first), a page at a time (opts as for items), each with its count of
// items and last id: one key a parent, its counter, and no item read.
// It is what a Redis user gets from SCAN over user:* keys and an XLEN
// each. A parent whose items were all deleted or trimmed is listed with
// a count of 0, since its counter stays to keep its ids from being reused,
// until DeleteParent or Drop removes it.
func (l *Log) Parents(tx keyspace.Tx, opts *ListOptions) (ParentPage, error) {
	parents, next, err := pageOf(l, tx, l.counters.Range(), opts, func(k, v []byte) (ParentCount, error) {
		t, err := l.counters.Unpack(k)
		parent, ok := "", err == nil && len(t) == 1
		if ok {
			parent, ok = t[0].(string)
		}
		if !ok || len(v) != 16 {
			return ParentCount{}, l.wrap(fmt.Errorf("%w: counter %q → %d bytes", keyspace.ErrCorrupt, k, len(v)))
		}
		c := counter{binary.BigEndian.Uint64(v), binary.BigEndian.Uint64(v[8:])}
		return ParentCount{Parent: parent, Count: int(c.count), LastID: c.last}, nil
	})
	return ParentPage{Parents: parents, Next: next}, err
}

// toUint reads an id element (tuples decode integers as int64, or uint64
// above MaxInt64).
func toUint(v any) uint64 {
	switch v := v.(type) {
	case int64:
		return uint64(v)
	case uint64:
		return v
	}
	return 0
}
