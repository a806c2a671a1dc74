package enumkeys

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/internal/errctx"
	"github.com/keyspacedb/keyspace/internal/fixes"
)

// Verify recomputes what the log derives from its items, and compares:
// the time index (an entry for each item, under its time, and no other),
// and each parent's counter (its count of live items, and a last id no
// lower than its newest item's). It returns a description of each
// problem. The items are the truth: one that does not decode is an error
// wrapping keyspace.ErrCorrupt, which no repair can fix.
func (l *Log) Verify(tx keyspace.Tx) ([]string, error) { return l.check(tx, false) }

// Repair makes the time index and the counters what the items imply, in
// the caller's transaction, and returns the problems it fixed, as Verify
// describes them. A counter's last id is raised to the newest item's when
// it is lower, and otherwise kept: ids of deleted items stay used.
func (l *Log) Repair(tx keyspace.Tx) ([]string, error) { return l.check(tx, true) }

// check is Verify, and with fix Repair.
func (l *Log) check(tx keyspace.Tx, fix bool) ([]string, error) {
	type tally struct{ count, newest uint64 }
	perParent := map[string]*tally{}
	wantTimes := map[string]bool{} // packed time index keys
	for k, v := range tx.Scan(l.items.Range()) {
		t, err := l.items.Unpack(k)
		if err != nil || len(t) != 2 || len(v) < 8 {
			return nil, l.wrap(fmt.Errorf("%w: item key %s", keyspace.ErrCorrupt, errctx.Quote(string(k))))
		}
		parent, _ := t[0].(string)
		id := toUint(t[1])
		at := time.Unix(0, int64(binary.BigEndian.Uint64(v))).UTC()
		wantTimes[string(l.times.Pack(composite.Tuple{parent, at, id}))] = true
		tl := perParent[parent]
		if tl == nil {
			tl = &tally{}
			perParent[parent] = tl
		}
		tl.count++
		tl.newest = max(tl.newest, id)
	}
	if err := tx.Err(); err != nil {
		return nil, l.wrap(err)
	}
	var problems []string
	var writes fixes.Set // what a repair deletes and puts
	for k, v := range tx.Scan(l.times.Range()) {
		if wantTimes[string(k)] && len(v) == 0 {
			delete(wantTimes, string(k))
			continue
		}
		what := errctx.Quote(string(k))
		if t, err := l.times.Unpack(k); err == nil {
			what = fmt.Sprint(t)
		}
		if wantTimes[string(k)] {
			problems = append(problems, fmt.Sprintf("time entry %s holds %d bytes, not none", what, len(v)))
			writes.Put(k, nil)
			delete(wantTimes, string(k))
			continue
		}
		problems = append(problems, fmt.Sprintf("stale time entry %s: no item implies it", what))
		writes.Delete(bytes.Clone(k))
	}
	if err := tx.Err(); err != nil {
		return nil, l.wrap(err)
	}
	for k := range wantTimes {
		t, _ := l.times.Unpack([]byte(k))
		problems = append(problems, fmt.Sprintf("missing time entry %v", t))
		writes.Put([]byte(k), nil)
	}
	for k, v := range tx.Scan(l.counters.Range()) {
		t, err := l.counters.Unpack(k)
		if err != nil || len(t) != 1 {
			problems = append(problems, fmt.Sprintf("corrupt counter key %s", errctx.Quote(string(k))))
			writes.Delete(bytes.Clone(k))
			continue
		}
		parent, _ := t[0].(string)
		tl := perParent[parent]
		delete(perParent, parent)
		if tl == nil {
			tl = &tally{}
		}
		var c counter
		if len(v) == 16 {
			c = counter{binary.BigEndian.Uint64(v), binary.BigEndian.Uint64(v[8:])}
		}
		want := counter{last: max(c.last, tl.newest), count: tl.count}
		switch {
		case len(v) != 16:
			problems = append(problems, fmt.Sprintf("corrupt counter of %s: %d bytes", errctx.Quote(parent), len(v)))
		case c.count != tl.count:
			problems = append(problems, fmt.Sprintf("parent %s counts %d items, has %d", errctx.Quote(parent), c.count, tl.count))
		case c.last < tl.newest:
			problems = append(problems, fmt.Sprintf("parent %s's last id %d is below its item %d", errctx.Quote(parent), c.last, tl.newest))
		case c == counter{}:
			problems = append(problems, fmt.Sprintf("parent %s has an empty counter", errctx.Quote(parent)))
		default:
			continue
		}
		if want == (counter{}) {
			writes.Delete(bytes.Clone(k)) // nothing to count, no id handed out
		} else {
			writes.Put(k, want.bytes())
		}
	}
	if err := tx.Err(); err != nil {
		return nil, l.wrap(err)
	}
	for parent, tl := range perParent {
		problems = append(problems, fmt.Sprintf("parent %s has %d items and no counter", errctx.Quote(parent), tl.count))
		writes.Put(l.counters.Pack(composite.Tuple{parent}), counter{last: tl.newest, count: tl.count}.bytes())
	}
	problems, err := writes.Finish(tx, problems, fix)
	if err != nil {
		return nil, l.wrap(err)
	}
	return problems, nil
}
