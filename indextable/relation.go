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
	"github.com/keyspacedb/keyspace/internal/fixes"
)

// Relation is a many-to-many link between two kinds of entity (users who
// like items), kept in both directions, each newest first, and
// denormalised: a link seen from the left carries the right's fields (the
// item's title) and from the right the left's (the user's name), so either
// list answers without reading the other side. Key layout:
//
//	("x", rel, "l", left, right)            → link time (Unix nanoseconds)
//	("x", rel, "f", left, Desc(time), right) → right's fields
//	("x", rel, "bk", right, Desc(time), left) → left's fields
//	("x", rel, "lc", left)                   → how many rights left links to (uint64)
//	("x", rel, "rc", right)                  → how many lefts link to right (uint64)
//
// The counts (a user's likes, an item's likers) are kept by Link and
// Unlink in the same transaction, so CountRights and CountLefts read one
// key, as Redis's ZCARD does, however long the lists grow; Verify
// recounts them. A count that reaches 0 is deleted.
//
// Tables, relations and series share the "x" subspace and their parts'
// tags differ (a table's "b" is its build progress), so a table and a
// relation may have the same name.
//
// SetLeftFields and SetRightFields rewrite every copy of one entity's fields
// in the caller's transaction, so a rename reaches every list at once.
//
// LinkAll is Link of a batch (an import), writing the same keys in
// ascending order (relation_bulk.go), as bbolt needs a large transaction's;
// Edges lists every link, for an export LinkAll takes back.
type Relation struct {
	name                  string
	links, fwd, back      composite.Subspace
	leftRef, rightRef     composite.Subspace // ("x", rel, "lf"|"rf", id) → the entity's current fields
	leftCount, rightCount composite.Subspace // ("x", rel, "lc"|"rc", id) → the entity's links
}

// NewRelation returns the relation called name.
func NewRelation(name string) *Relation {
	return &Relation{name: name,
		links: composite.NewSubspace("x", name, "l"), fwd: composite.NewSubspace("x", name, "f"),
		back: composite.NewSubspace("x", name, "bk"), leftRef: composite.NewSubspace("x", name, "lf"),
		rightRef: composite.NewSubspace("x", name, "rf"), leftCount: composite.NewSubspace("x", name, "lc"),
		rightCount: composite.NewSubspace("x", name, "rc")}
}

// Drop deletes every link of the relation, in both directions, and the
// fields recorded for its entities, and returns how many links it
// deleted.
func (r *Relation) Drop(tx keyspace.Tx) (int, error) {
	counts, err := composite.Clear(tx, r.links, r.fwd, r.back, r.leftRef, r.rightRef, r.leftCount, r.rightCount)
	if err != nil {
		return 0, r.wrap(err)
	}
	return counts[0], nil
}

func (r *Relation) wrap(err error) error {
	return errctx.Wrap("indextable", "relation "+r.name, err)
}

// SetLeftFields records a left entity's fields (a user's name) and rewrites
// every copy of them in the right-hand lists. It returns the copies
// rewritten.
func (r *Relation) SetLeftFields(tx keyspace.Tx, left string, fields []byte) (int, error) {
	return r.setFields(tx, r.leftRef, r.fwd, r.back, left, fields)
}

// SetRightFields records a right entity's fields (an item's title) and
// rewrites every copy in the left-hand lists.
func (r *Relation) SetRightFields(tx keyspace.Tx, right string, fields []byte) (int, error) {
	return r.setFields(tx, r.rightRef, r.back, r.fwd, right, fields)
}

// setFields stores id's fields under ref, then walks id's own list (mine)
// and rewrites id's copy in each partner's list (theirs).
func (r *Relation) setFields(tx keyspace.Tx, ref, mine, theirs composite.Subspace, id string, fields []byte) (int, error) {
	if id == "" {
		return 0, r.wrap(ErrEmptyKey)
	}
	if err := tx.Put(ref.Pack(composite.Tuple{id}), fields); err != nil {
		return 0, r.wrap(err)
	}
	var keys [][]byte
	for k := range tx.Scan(mine.RangeOf(composite.Tuple{id})) {
		t, err := mine.Unpack(k)
		if err != nil || len(t) != 3 {
			return 0, r.wrap(fmt.Errorf("%w: link key %q", keyspace.ErrCorrupt, k))
		}
		keys = append(keys, theirs.Pack(composite.Tuple{t[2], t[1], id}))
	}
	if err := tx.Err(); err != nil {
		return 0, r.wrap(err)
	}
	for _, k := range keys {
		if err := tx.Put(k, fields); err != nil {
			return 0, r.wrap(err)
		}
	}
	return len(keys), nil
}

func (r *Relation) fields(tx keyspace.Tx, ref composite.Subspace, id string) ([]byte, error) {
	v, err := tx.Get(ref.Pack(composite.Tuple{id}))
	if errors.Is(err, keyspace.ErrNotFound) {
		return nil, nil
	}
	return v, err
}

// Link links left to right at time at (re-linking moves the link to the new
// time), copying each side's current fields into the other's list.
func (r *Relation) Link(tx keyspace.Tx, left, right string, at time.Time) error {
	keys, err := r.linkKeys(left, right, at)
	if err != nil {
		return err
	}
	existed, err := r.unlink(tx, left, right)
	if err != nil {
		return err
	}
	if !existed { // a re-link only moves the link in time
		if err := r.addCounts(tx, left, right, 1); err != nil {
			return err
		}
	}
	lf, err := r.fields(tx, r.leftRef, left)
	if err != nil {
		return r.wrap(err)
	}
	rf, err := r.fields(tx, r.rightRef, right)
	if err != nil {
		return r.wrap(err)
	}
	for _, w := range []struct {
		key, value []byte
	}{
		{keys[0], binary.BigEndian.AppendUint64(nil, uint64(at.UnixNano()))},
		{keys[1], rf},
		{keys[2], lf},
	} {
		if err := tx.Put(w.key, w.value); err != nil {
			return r.wrap(err)
		}
	}
	return nil
}

// Linked reports whether left links to right, and since when, reading
// one key (Redis's SISMEMBER: does this user like this item?).
func (r *Relation) Linked(tx keyspace.Tx, left, right string) (time.Time, bool, error) {
	v, err := tx.Get(r.links.Pack(composite.Tuple{left, right}))
	if errors.Is(err, keyspace.ErrNotFound) {
		return time.Time{}, false, nil
	}
	if err == nil && len(v) != 8 {
		err = fmt.Errorf("%w: a %d-byte link time", keyspace.ErrCorrupt, len(v))
	}
	if err != nil {
		return time.Time{}, false, r.wrap(fmt.Errorf("link %s–%s: %w", errctx.Quote(left), errctx.Quote(right), err))
	}
	return time.Unix(0, int64(binary.BigEndian.Uint64(v))).UTC(), true, nil
}

// Unlink removes the link between left and right, if there is one, and
// reports whether there was.
func (r *Relation) Unlink(tx keyspace.Tx, left, right string) (bool, error) {
	existed, err := r.unlink(tx, left, right)
	if err != nil || !existed {
		return false, err
	}
	return true, r.addCounts(tx, left, right, -1)
}

// unlink deletes the link's three keys, if it exists, leaving the counts.
func (r *Relation) unlink(tx keyspace.Tx, left, right string) (bool, error) {
	at, linked, err := r.Linked(tx, left, right)
	if err != nil || !linked {
		return false, err
	}
	when := composite.Desc{V: at}
	for _, k := range [][]byte{r.links.Pack(composite.Tuple{left, right}), r.fwd.Pack(composite.Tuple{left, when, right}), r.back.Pack(composite.Tuple{right, when, left})} {
		if err := tx.Delete(k); err != nil {
			return false, r.wrap(err)
		}
	}
	return true, nil
}

// addCounts adds delta to left's and right's counts.
func (r *Relation) addCounts(tx keyspace.Tx, left, right string, delta int) error {
	for _, c := range []struct {
		sub composite.Subspace
		id  string
	}{{r.leftCount, left}, {r.rightCount, right}} {
		key := c.sub.Pack(composite.Tuple{c.id})
		n, err := r.readCount(tx, key)
		if err != nil {
			return err
		}
		if n += delta; n < 0 {
			return r.wrap(fmt.Errorf("%w: the count of %s would fall below 0 (run Verify)", keyspace.ErrCorrupt, errctx.Quote(c.id)))
		}
		if n == 0 {
			err = tx.Delete(key)
		} else {
			err = tx.Put(key, binary.BigEndian.AppendUint64(nil, uint64(n)))
		}
		if err != nil {
			return r.wrap(err)
		}
	}
	return nil
}

// readCount reads a count key: 0 when it is absent.
func (r *Relation) readCount(tx keyspace.Tx, key []byte) (int, error) {
	v, err := tx.Get(key)
	if errors.Is(err, keyspace.ErrNotFound) {
		return 0, nil
	}
	if err == nil && len(v) != 8 {
		err = fmt.Errorf("%w: a %d-byte count", keyspace.ErrCorrupt, len(v))
	}
	if err != nil {
		return 0, r.wrap(fmt.Errorf("count %s: %w", errctx.Quote(string(key)), err))
	}
	return int(binary.BigEndian.Uint64(v)), nil
}

// CountRights returns how many rights left links to (the items a user
// likes), reading one key.
func (r *Relation) CountRights(tx keyspace.Tx, left string) (int, error) {
	return r.readCount(tx, r.leftCount.Pack(composite.Tuple{left}))
}

// CountLefts returns how many lefts link to right (an item's likers),
// reading one key.
func (r *Relation) CountLefts(tx keyspace.Tx, right string) (int, error) {
	return r.readCount(tx, r.rightCount.Pack(composite.Tuple{right}))
}

// CountRightsBetween returns how many rights left linked to in [since,
// until) (a user's likes last week), reading the keys of just those
// links; a zero end is open.
func (r *Relation) CountRightsBetween(tx keyspace.Tx, left string, since, until time.Time) (int, error) {
	return r.countIn(tx, r.fwd, left, since, until)
}

// CountLeftsBetween returns how many lefts linked to right in [since, until)
// (an item's likers today), as CountRightsBetween counts rights.
func (r *Relation) CountLeftsBetween(tx keyspace.Tx, right string, since, until time.Time) (int, error) {
	return r.countIn(tx, r.back, right, since, until)
}

func (r *Relation) countIn(tx keyspace.Tx, sub composite.Subspace, id string, since, until time.Time) (int, error) {
	rg, err := r.listRange(sub, id, since, until)
	if err != nil {
		return 0, err
	}
	n := 0
	for range tx.Scan(rg) {
		n++
	}
	if err := tx.Err(); err != nil {
		return 0, r.wrap(err)
	}
	return n, nil
}

// Link is one entry of a list: the other side's id, the link time and the
// other side's fields as they are now.
type Link struct {
	ID     string
	Time   time.Time
	Fields []byte
}

// LinkPage is one page of a list and the cursor for the next ("" when
// done).
type LinkPage struct {
	Links []Link
	Next  string
}

// Rights lists what left links to (the items a user likes), newest first
// (oldest first with opts.Reverse), a page at a time.
func (r *Relation) Rights(tx keyspace.Tx, left string, opts *ListOptions) (LinkPage, error) {
	return r.list(tx, r.fwd, left, time.Time{}, time.Time{}, opts)
}

// Lefts lists what links to right (the users who like an item), newest
// first (oldest first with opts.Reverse), a page at a time.
func (r *Relation) Lefts(tx keyspace.Tx, right string, opts *ListOptions) (LinkPage, error) {
	return r.list(tx, r.back, right, time.Time{}, time.Time{}, opts)
}

// RightsBetween is Rights of the links made in [since, until) (the items
// a user liked last week: Redis's ZREVRANGEBYSCORE on a sorted set of
// likes). It reads only those links, as each list is kept in time order.
// A zero since or until leaves that end open; an until before since is
// ErrBadPeriod.
func (r *Relation) RightsBetween(tx keyspace.Tx, left string, since, until time.Time, opts *ListOptions) (LinkPage, error) {
	return r.list(tx, r.fwd, left, since, until, opts)
}

// LeftsBetween is Lefts of the links made in [since, until) (who liked
// an item today), as RightsBetween is of Rights.
func (r *Relation) LeftsBetween(tx keyspace.Tx, right string, since, until time.Time, opts *ListOptions) (LinkPage, error) {
	return r.list(tx, r.back, right, since, until, opts)
}

// listRange is the range of id's list, keyed (id, Desc(time), other), of
// the links made in [since, until): newest first, so it starts after
// the links made at until and ends after those made at since. A zero end,
// or one beyond the times a key can hold (composite.TimeBounds), is open;
// a period wholly beyond them is empty, and one that ends before it
// starts ErrBadPeriod.
func (r *Relation) listRange(sub composite.Subspace, id string, since, until time.Time) (keyspace.Range, error) {
	if !since.IsZero() && !until.IsZero() && until.Before(since) {
		return keyspace.Range{}, r.wrap(fmt.Errorf("%w: %s is before %s", ErrBadPeriod, until.Format(time.RFC3339Nano), since.Format(time.RFC3339Nano)))
	}
	rg := sub.RangeOf(composite.Tuple{id})
	first, last := composite.TimeBounds()
	if !since.IsZero() && since.After(last) || !until.IsZero() && !until.After(first) {
		return keyspace.Range{Start: rg.Start, End: rg.Start}, nil
	}
	at := func(t time.Time) keyspace.Range { return sub.RangeOf(composite.Tuple{id, composite.Desc{V: t.UTC()}}) }
	if !until.IsZero() && !until.After(last) {
		rg.Start = at(until).End
	}
	if !since.IsZero() && !since.Before(first) {
		rg.End = at(since).End
	}
	return rg, nil
}

func (r *Relation) list(tx keyspace.Tx, sub composite.Subspace, id string, since, until time.Time, opts *ListOptions) (LinkPage, error) {
	var o ListOptions
	if opts != nil {
		o = *opts
	}
	if o.Limit < 0 {
		return LinkPage{}, r.wrap(fmt.Errorf("negative limit %d", o.Limit))
	}
	rg, err := r.listRange(sub, id, since, until)
	if err != nil {
		return LinkPage{}, err
	}
	rg.Reverse = o.Reverse
	links, next, err := keyspace.ScanPage(tx, rg, o.Cursor, o.Limit, func(k, v []byte) (Link, error) {
		t, err := sub.Unpack(k)
		if err != nil || len(t) != 3 {
			return Link{}, fmt.Errorf("%w: link key %q", keyspace.ErrCorrupt, k)
		}
		at, _ := t[1].(composite.Desc).V.(time.Time)
		other, _ := t[2].(string)
		return Link{ID: other, Time: at, Fields: append([]byte(nil), v...)}, nil
	})
	if err == nil {
		err = tx.Err()
	}
	if err != nil {
		return LinkPage{}, r.wrap(errctx.Bare("keyspace", err))
	}
	return LinkPage{Links: links, Next: next}, nil
}

// Verify recomputes both lists of every link from the links and the
// entities' recorded fields, and compares them with the lists: an entry
// the links imply that is absent is missing; one that no link implies, or
// that holds other fields than those recorded, is stale. It recounts each
// entity's links and compares them with its count. It returns a
// description of each problem.
func (r *Relation) Verify(tx keyspace.Tx) ([]string, error) { return r.check(tx, false) }

// Repair makes both lists and every count what the links and the recorded
// fields imply, in the caller's transaction: stale entries go, missing
// ones are written, counts are set. It returns the problems it fixed, as
// Verify describes them. A file written before relations kept counts is
// brought up to date by one Repair.
func (r *Relation) Repair(tx keyspace.Tx) ([]string, error) { return r.check(tx, true) }

// check is Verify, and with fix Repair.
func (r *Relation) check(tx keyspace.Tx, fix bool) ([]string, error) {
	type entry struct {
		list   string // "forward" (left's list) or "back" (right's list)
		fields []byte
	}
	want := map[string]entry{}           // packed list key → what it should hold
	linksOf := [2]map[string]int{{}, {}} // left's and right's
	for k, v := range tx.Scan(r.links.Range()) {
		t, err := r.links.Unpack(k)
		if err != nil || len(t) != 2 || len(v) != 8 {
			return nil, r.wrap(fmt.Errorf("%w: link %q", keyspace.ErrCorrupt, k))
		}
		left, _ := t[0].(string)
		right, _ := t[1].(string)
		when := composite.Desc{V: time.Unix(0, int64(binary.BigEndian.Uint64(v))).UTC()}
		lf, err := r.fields(tx, r.leftRef, left)
		if err != nil {
			return nil, r.wrap(err)
		}
		rf, err := r.fields(tx, r.rightRef, right)
		if err != nil {
			return nil, r.wrap(err)
		}
		linksOf[0][left]++
		linksOf[1][right]++
		want[string(r.fwd.Pack(composite.Tuple{left, when, right}))] = entry{"forward", rf}
		want[string(r.back.Pack(composite.Tuple{right, when, left}))] = entry{"back", lf}
	}
	if err := tx.Err(); err != nil {
		return nil, r.wrap(err)
	}
	var problems []string
	var writes fixes.Set // what a repair deletes and puts
	for _, list := range []struct {
		name string
		sub  composite.Subspace
	}{{"forward", r.fwd}, {"back", r.back}} {
		for k, v := range tx.Scan(list.sub.Range()) {
			t, _ := list.sub.Unpack(k)
			e, ok := want[string(k)]
			switch {
			case !ok:
				problems = append(problems, fmt.Sprintf("stale %s entry %v: no link implies it", list.name, t))
				writes.Delete(bytes.Clone(k))
			case !bytes.Equal(e.fields, v):
				problems = append(problems, fmt.Sprintf("stale %s entry %v: fields %q, not the recorded %q", list.name, t, v, e.fields))
				writes.Put(k, e.fields)
			}
			delete(want, string(k))
		}
		if err := tx.Err(); err != nil {
			return nil, r.wrap(err)
		}
	}
	for k, e := range want {
		sub := r.fwd
		if e.list == "back" {
			sub = r.back
		}
		t, _ := sub.Unpack([]byte(k))
		problems = append(problems, fmt.Sprintf("missing %s entry %v", e.list, t))
		writes.Put([]byte(k), e.fields)
	}
	count := func(n int) []byte { return binary.BigEndian.AppendUint64(nil, uint64(n)) }
	for i, c := range []struct {
		side string
		sub  composite.Subspace
	}{{"left", r.leftCount}, {"right", r.rightCount}} {
		for k, v := range tx.Scan(c.sub.Range()) {
			t, err := c.sub.Unpack(k)
			if err != nil || len(t) != 1 {
				problems = append(problems, fmt.Sprintf("corrupt %s count key %q", c.side, k))
				writes.Delete(bytes.Clone(k))
				continue
			}
			id, _ := t[0].(string)
			links := linksOf[i][id]
			delete(linksOf[i], id)
			switch {
			case len(v) != 8:
				problems = append(problems, fmt.Sprintf("corrupt %s count of %s: %q", c.side, errctx.Quote(id), v))
			case binary.BigEndian.Uint64(v) != uint64(links):
				problems = append(problems, fmt.Sprintf("%s %s counts %d links, has %d", c.side, errctx.Quote(id), binary.BigEndian.Uint64(v), links))
			case links == 0:
				problems = append(problems, fmt.Sprintf("%s %s has a count of 0, which is kept as no key", c.side, errctx.Quote(id)))
			default:
				continue
			}
			if links == 0 {
				writes.Delete(bytes.Clone(k))
			} else {
				writes.Put(k, count(links))
			}
		}
		if err := tx.Err(); err != nil {
			return nil, r.wrap(err)
		}
		for id, links := range linksOf[i] {
			problems = append(problems, fmt.Sprintf("%s %s has %d links and no count", c.side, errctx.Quote(id), links))
			writes.Put(c.sub.Pack(composite.Tuple{id}), count(links))
		}
	}
	problems, err := writes.Finish(tx, problems, fix)
	if err != nil {
		return nil, r.wrap(err)
	}
	return problems, nil
}
