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

// Errors callers can test with errors.Is. A missing item wraps
// keyspace.ErrNotFound.
var (
	// ErrEmptyParent: every item belongs to a named parent.
	ErrEmptyParent = errors.New("enumkeys: empty parent")
	// ErrBadID: id 0, or an id beyond the parent's latest.
	ErrBadID = errors.New("enumkeys: id out of range")
	// ErrBadRange: a range that ends before it starts, or a negative limit.
	ErrBadRange = errors.New("enumkeys: invalid range")
	// ErrBadTime: an item's time the key encoding cannot hold (outside
	// 1678–2262; composite.TimeBounds).
	ErrBadTime = errors.New("enumkeys: time out of range")
)

// Item is one entry of a parent's log.
type Item struct {
	Parent string
	ID     uint64    // 1, 2, 3… per parent, in append order
	Time   time.Time // UTC
	Data   []byte
}

// Log is a named log of items per parent. See the package doc for the key
// layout.
type Log struct {
	name     string
	counters composite.Subspace // (parent) → last id | count
	items    composite.Subspace // (parent, id) → unix nanos | data
	times    composite.Subspace // (parent, time, id) → ""
}

// NewLog returns the log called name.
func NewLog(name string) *Log {
	return &Log{
		name:     name,
		counters: composite.NewSubspace("e", name, "c"),
		items:    composite.NewSubspace("e", name, "m"),
		times:    composite.NewSubspace("e", name, "t"),
	}
}

// Name returns the log's name.
func (l *Log) Name() string { return l.name }

// Rename moves the whole log, every parent's items, time index and
// counter, to the name to in the caller's transaction, and returns the
// log under that name: its keys all lie under ("e", name), so this is
// composite.Move, and ids go on from where they were. A name that holds
// keys, or the log's own, is refused (wrapping composite.ErrNotEmpty).
func (l *Log) Rename(tx keyspace.Tx, to string) (*Log, error) {
	if to == l.name {
		return nil, l.wrap(fmt.Errorf("rename to %q: %w", to, composite.ErrNotEmpty))
	}
	if _, err := composite.Move(tx, composite.NewSubspace("e", l.name), composite.NewSubspace("e", to)); err != nil {
		return nil, l.wrap(fmt.Errorf("rename to %q: %w", to, err))
	}
	return NewLog(to), nil
}

// Drop deletes every parent's items, time index and counter, and returns
// how many items it deleted. Ids start again from 1 afterwards: the
// counters that kept them from being reused are gone too.
func (l *Log) Drop(tx keyspace.Tx) (int, error) {
	counts, err := composite.Clear(tx, l.items, l.times, l.counters)
	if err != nil {
		return 0, l.wrap(err)
	}
	return counts[0], nil
}

// Empty reports whether the log holds no items, of any parent: it was
// never appended to, or every item was deleted, trimmed or dropped.
func (l *Log) Empty(tx keyspace.Tx) (bool, error) {
	r := l.items.Range()
	r.Limit = 1
	for range tx.Scan(r) {
		return false, nil
	}
	if err := tx.Err(); err != nil {
		return false, l.wrap(err)
	}
	return true, nil
}

func (l *Log) wrap(err error) error { return errctx.Wrap("enumkeys", "log "+l.name, err) }

// counter is a parent's counter record: the last id handed out (never
// reused, even after deletes) and the number of live items.
type counter struct{ last, count uint64 }

func (l *Log) readCounter(tx keyspace.Tx, parent string) (counter, error) {
	v, err := tx.Get(l.counters.Pack(composite.Tuple{parent}))
	if errors.Is(err, keyspace.ErrNotFound) {
		return counter{}, nil
	}
	if err != nil {
		return counter{}, l.wrap(err)
	}
	if len(v) != 16 {
		return counter{}, l.wrap(fmt.Errorf("%w: counter of %q is %d bytes", keyspace.ErrCorrupt, parent, len(v)))
	}
	return counter{binary.BigEndian.Uint64(v), binary.BigEndian.Uint64(v[8:])}, nil
}

func (l *Log) writeCounter(tx keyspace.Tx, parent string, c counter) error {
	return tx.Put(l.counters.Pack(composite.Tuple{parent}), c.bytes())
}

// bytes is the counter's record: last id, then count, big-endian.
func (c counter) bytes() []byte {
	return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, c.last), c.count)
}

// Append adds an item to parent's log and returns it with its id: the
// parent's previous last id plus one. The counter is read and written in
// the caller's transaction, and keyspace write transactions are serialized,
// so ids are unique and dense: two appends in one transaction get
// consecutive ids, and a transaction that rolls back consumes none. A zero
// at means now.
func (l *Log) Append(tx keyspace.Tx, parent string, at time.Time, data []byte) (Item, error) {
	if err := l.Validate(parent, at); err != nil {
		return Item{}, err
	}
	if at.IsZero() {
		at = time.Now()
	}
	at = at.UTC()
	c, err := l.readCounter(tx, parent)
	if err != nil {
		return Item{}, err
	}
	c.last++
	c.count++
	it := Item{Parent: parent, ID: c.last, Time: at, Data: data}
	if err := tx.Put(l.items.Pack(composite.Tuple{parent, it.ID}), itemValue(at, data)); err != nil {
		return Item{}, l.wrap(err)
	}
	if err := tx.Put(l.times.Pack(composite.Tuple{parent, at, it.ID}), nil); err != nil {
		return Item{}, l.wrap(err)
	}
	if err := l.writeCounter(tx, parent, c); err != nil {
		return Item{}, l.wrap(err)
	}
	return it, nil
}

// itemValue is an item's value: its time in Unix nanoseconds, then its
// data.
func itemValue(at time.Time, data []byte) []byte {
	v := binary.BigEndian.AppendUint64(make([]byte, 0, 8+len(data)), uint64(at.UnixNano()))
	return append(v, data...)
}

// timeEntryExtra is the most bytes an item's time entry, (times, parent,
// time, id), takes past its subspace and packed parent: a packed time and
// a packed uint64, 9 bytes each.
const timeEntryExtra = 18

// parentFits refuses a parent too long for the log's keys, of which an
// item's time entry is the longest (the three subspaces are of one
// length), so that Append writes all of an item's keys or none.
func (l *Log) parentFits(parent string) error {
	fixed := len(l.times.Bytes()) + timeEntryExtra
	// A string packs into at most two bytes a byte and two more: pack
	// only a long parent.
	if fixed+2*len(parent)+2 <= keyspace.MaxKeySize {
		return nil
	}
	if n := fixed + len(composite.Tuple{parent}.Pack()); n > keyspace.MaxKeySize {
		return fmt.Errorf("parent %s: %w: its items' keys take up to %d bytes (the most is %d)",
			errctx.Quote(parent), errctx.Bare("keyspace", keyspace.ErrKeyTooLarge), n, keyspace.MaxKeySize)
	}
	return nil
}

// checkID rejects an empty parent, id 0 and ids beyond the latest.
func (l *Log) checkID(tx keyspace.Tx, parent string, id uint64) (counter, error) {
	if parent == "" {
		return counter{}, l.wrap(ErrEmptyParent)
	}
	c, err := l.readCounter(tx, parent)
	if err != nil {
		return c, err
	}
	switch {
	case c.last == 0:
		return c, l.wrap(fmt.Errorf("%w: %q has no items yet, so no id %d", ErrBadID, parent, id))
	case id == 0 || id > c.last:
		return c, l.wrap(fmt.Errorf("%w: %q has ids 1…%d, not %d", ErrBadID, parent, c.last, id))
	}
	return c, nil
}

// Get returns one item. A deleted id wraps keyspace.ErrNotFound; id 0 or
// beyond the latest is ErrBadID.
func (l *Log) Get(tx keyspace.Tx, parent string, id uint64) (Item, error) {
	if _, err := l.checkID(tx, parent, id); err != nil {
		return Item{}, err
	}
	v, err := tx.Get(l.items.Pack(composite.Tuple{parent, id}))
	if errors.Is(err, keyspace.ErrNotFound) {
		return Item{}, l.wrap(fmt.Errorf("item %s/%d was deleted: %w", parent, id, errctx.Bare("keyspace", err)))
	}
	if err != nil {
		return Item{}, l.wrap(fmt.Errorf("item %s/%d: %w", parent, id, err))
	}
	return decodeItem(parent, id, v)
}

// Delete removes one item. Its id is not reused.
func (l *Log) Delete(tx keyspace.Tx, parent string, id uint64) error {
	it, err := l.Get(tx, parent, id)
	if err != nil {
		return err
	}
	c, err := l.readCounter(tx, parent)
	if err != nil {
		return err
	}
	c.count--
	if err := l.deleteItem(tx, parent, id, it.Time); err != nil {
		return err
	}
	return l.writeCounter(tx, parent, c)
}

// DeleteParent removes a parent's whole log, counter included (its ids
// start again at 1), and returns how many items it held.
func (l *Log) DeleteParent(tx keyspace.Tx, parent string) (int, error) {
	if parent == "" {
		return 0, l.wrap(ErrEmptyParent)
	}
	n, err := tx.DeleteRange(l.items.RangeOf(composite.Tuple{parent}))
	if err != nil {
		return 0, l.wrap(err)
	}
	if _, err := tx.DeleteRange(l.times.RangeOf(composite.Tuple{parent})); err != nil {
		return 0, l.wrap(err)
	}
	if err := tx.Delete(l.counters.Pack(composite.Tuple{parent})); err != nil {
		return 0, l.wrap(err)
	}
	return n, nil
}

// Count returns the number of live items of parent, from its counter.
func (l *Log) Count(tx keyspace.Tx, parent string) (int, error) {
	if parent == "" {
		return 0, l.wrap(ErrEmptyParent)
	}
	c, err := l.readCounter(tx, parent)
	return int(c.count), err
}

// LastID returns the last id handed out to parent (0 when none), deleted or
// not.
func (l *Log) LastID(tx keyspace.Tx, parent string) (uint64, error) {
	if parent == "" {
		return 0, l.wrap(ErrEmptyParent)
	}
	c, err := l.readCounter(tx, parent)
	return c.last, err
}

func decodeItem(parent string, id uint64, v []byte) (Item, error) {
	if len(v) < 8 {
		return Item{}, fmt.Errorf("enumkeys: %w: item %s/%d is %d bytes", keyspace.ErrCorrupt, parent, id, len(v))
	}
	it := Item{Parent: parent, ID: id, Time: time.Unix(0, int64(binary.BigEndian.Uint64(v))).UTC()}
	if len(v) > 8 {
		it.Data = append([]byte(nil), v[8:]...)
	}
	return it, nil
}
