package enumkeys

import (
	"fmt"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
)

// TrimOptions say which items Trim deletes: those older than Before, and
// those beyond the newest MaxLen. Either alone, or both (an item either
// names goes). A zero field names nothing.
type TrimOptions struct {
	// Before deletes the items whose time is before it: a retention
	// period, as a Cassandra TTL or Redis's XTRIM MINID over time-ordered
	// ids keep one.
	Before time.Time
	// MaxLen keeps at most this many items, the newest by id, and deletes
	// the rest, as Redis's LTRIM and XTRIM MAXLEN do. 0: no limit.
	MaxLen int
}

// Trim deletes the items of parent that opts names and returns how many it
// deleted. Ids are not reused, and the counter's count follows, as with
// Delete. It reads only the keys it deletes: the time index up to Before,
// then the oldest items by id.
func (l *Log) Trim(tx keyspace.Tx, parent string, opts TrimOptions) (int, error) {
	if parent == "" {
		return 0, l.wrap(ErrEmptyParent)
	}
	if opts.MaxLen < 0 {
		return 0, l.wrap(fmt.Errorf("%w: negative MaxLen %d", ErrBadRange, opts.MaxLen))
	}
	c, err := l.readCounter(tx, parent)
	if err != nil {
		return 0, err
	}
	var due []Item // the items to delete, with the times their index keys hold
	if !opts.Before.IsZero() {
		// The time index orders the items by time: those before Before
		// are one range of it.
		for k := range tx.Scan(l.times.TimesBetween(composite.Tuple{parent}, time.Time{}, opts.Before)) {
			t, err := l.times.Unpack(k)
			if err != nil || len(t) != 3 {
				return 0, l.wrap(fmt.Errorf("%w: time index key %q: %v", keyspace.ErrCorrupt, k, err))
			}
			at, ok := t[1].(time.Time)
			if !ok {
				return 0, l.wrap(fmt.Errorf("%w: time index key %q holds %T, not a time", keyspace.ErrCorrupt, k, t[1]))
			}
			due = append(due, Item{ID: toUint(t[2]), Time: at})
		}
		if err := l.deleteItems(tx, parent, due); err != nil {
			return 0, err
		}
	}
	if live := int(c.count) - len(due); opts.MaxLen > 0 && live > opts.MaxLen {
		// The oldest by id are the first keys of the parent's items.
		r := l.items.RangeOf(composite.Tuple{parent})
		r.Limit = live - opts.MaxLen
		var oldest []Item
		for k, v := range tx.Scan(r) {
			t, err := l.items.Unpack(k)
			if err != nil || len(t) != 2 {
				return 0, l.wrap(fmt.Errorf("%w: item key %q: %v", keyspace.ErrCorrupt, k, err))
			}
			it, err := decodeItem(parent, toUint(t[1]), v)
			if err != nil {
				return 0, err
			}
			oldest = append(oldest, it)
		}
		if err := l.deleteItems(tx, parent, oldest); err != nil {
			return 0, err
		}
		due = append(due, oldest...)
	}
	deleted := len(due)
	if deleted == 0 {
		return 0, nil
	}
	c.count -= uint64(deleted)
	if err := l.writeCounter(tx, parent, c); err != nil {
		return 0, l.wrap(err)
	}
	return deleted, nil
}

// TrimAll is Trim of every parent that has a counter, and returns how many
// items it deleted in all.
func (l *Log) TrimAll(tx keyspace.Tx, opts TrimOptions) (int, error) {
	// Every parent is read before any is trimmed: a scan must not
	// outlive a write.
	page, err := l.Parents(tx, nil)
	if err != nil {
		return 0, err
	}
	total := 0
	for _, p := range page.Parents {
		n, err := l.Trim(tx, p.Parent, opts)
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

// deleteItems deletes the items of parent that a scan just read (their
// ids and times), once the scan's error is checked; the caller keeps the
// counter.
func (l *Log) deleteItems(tx keyspace.Tx, parent string, items []Item) error {
	if err := tx.Err(); err != nil {
		return l.wrap(err)
	}
	for _, it := range items {
		if err := l.deleteItem(tx, parent, it.ID, it.Time); err != nil {
			return err
		}
	}
	return nil
}

// deleteItem deletes an item's key and its time index key; the caller
// keeps the counter.
func (l *Log) deleteItem(tx keyspace.Tx, parent string, id uint64, at time.Time) error {
	if err := tx.Delete(l.items.Pack(composite.Tuple{parent, id})); err != nil {
		return l.wrap(err)
	}
	if err := tx.Delete(l.times.Pack(composite.Tuple{parent, at, id})); err != nil {
		return l.wrap(err)
	}
	return nil
}
