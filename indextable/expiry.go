package indextable

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/internal/errctx"
	"github.com/keyspacedb/keyspace/internal/expiry"
)

// Records that expire.
//
// A record given an expiry (SetExpiry, Row.Expires) is gone for every
// reader from that instant, by the table's clock (Options.Now): Get and
// Update find no record, Scan and Index.Scan leave it and its entries
// out, CompareAndSet counts it as version 0, and a write that needs a
// unique value it holds deletes it first (as Redis deletes an expired key
// it meets). This is BuntDB's TTL and Redis's EXPIRE on a whole record with
// its secondary index entries: sessions, tokens, leases, cache rows.
//
// Three places hold the expiry, each for the reader that needs it:
//
//   - the record's value: the top bit of its version word says an expiry
//     follows, version | 1<<63, expires int64, body. A record that does not
//     expire is stored as it always was, version | body;
//   - each index entry's value: the top bit of its length byte says an
//     expiry follows, so a lookup (covered or not) leaves an expired
//     record's entries out without reading the record. Index values
//     therefore have at most 127 components;
//   - the expiry entry, ("x", table, "e", expires uint64, pk…) → nothing,
//     which sorts the expiring records by when they expire, so
//     DeleteExpired reads only those due and NextExpiry only the first.
//
// An expired record keeps its keys until DeleteExpired deletes it: Verify
// and Build treat it as any stored record (its entries exist, marked with
// its expiry), and composite.GroupCounts over Records, which counts keys,
// still counts it; Table.GroupCounts subtracts the records due (count.go). An embedded engine has no server loop to sweep on a
// timer; a program calls DeleteExpired now and then, as `keyspace table
// sweep` does.

// expiresFlag marks a version word (or, as entryExpires, an entry's
// length byte) that an expiry follows.
const (
	expiresFlag  = 1 << 63
	entryExpires = 0x80
)

// recordValue is a stored record: version | [expires] | body.
func recordValue(version uint64, expires int64, body []byte) []byte {
	b := make([]byte, 0, 16+len(body))
	if expires == 0 {
		b = binary.BigEndian.AppendUint64(b, version)
	} else {
		b = binary.BigEndian.AppendUint64(b, version|expiresFlag)
		b = binary.BigEndian.AppendUint64(b, uint64(expires))
	}
	return append(b, body...)
}

// splitRecordValue reads recordValue's layout.
func splitRecordValue(v []byte) (version uint64, expires int64, body []byte, err error) {
	if len(v) < 8 {
		return 0, 0, nil, fmt.Errorf("%d bytes", len(v))
	}
	version = binary.BigEndian.Uint64(v)
	if version&expiresFlag == 0 {
		return version, 0, v[8:], nil
	}
	if len(v) < 16 {
		return 0, 0, nil, fmt.Errorf("%d bytes with an expiry", len(v))
	}
	if expires = int64(binary.BigEndian.Uint64(v[8:])); expires <= 0 {
		return 0, 0, nil, fmt.Errorf("expiry %d is not after 1970", expires)
	}
	return version &^ expiresFlag, expires, v[16:], nil
}

// nanos is a record's expiry in nanoseconds since 1970, 0 for never.
func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// expiryOf checks the expiry asked for the record pk.
func (t *Table[R]) expiryOf(pk composite.Tuple, at time.Time) (int64, error) {
	n, err := expiry.Nanos(at)
	if err != nil {
		return 0, t.wrap(fmt.Errorf("%w: record %v: %v", ErrBadExpiry, pk, at))
	}
	return n, nil
}

// expiryKey is the expiry entry of the record pk expiring at expires.
func (t *Table[R]) expiryKey(expires int64, pk composite.Tuple) []byte {
	return expiry.Key(t.expiry, expires, pk.Pack())
}

// moveExpiry brings the expiry entry of pk from oldExpires to expires.
func (t *Table[R]) moveExpiry(tx keyspace.Tx, pk composite.Tuple, oldExpires, expires int64) error {
	if oldExpires == expires {
		return nil
	}
	if oldExpires != 0 {
		if err := tx.Delete(t.expiryKey(oldExpires, pk)); err != nil {
			return t.wrap(err)
		}
	}
	if expires != 0 {
		if err := tx.Put(t.expiryKey(expires, pk), nil); err != nil {
			return t.wrap(err)
		}
	}
	return nil
}

// parseExpiryKey reads an expiry entry's key.
func (t *Table[R]) parseExpiryKey(k []byte) (int64, composite.Tuple, error) {
	tu, err := t.expiry.Unpack(k)
	var expires int64
	if err == nil && len(tu) < 2 {
		err = fmt.Errorf("%d elements", len(tu))
	}
	if err == nil {
		var ok bool
		if expires, ok = expiry.Element(tu[0]); !ok {
			err = fmt.Errorf("expiry %v is not a time after 1970", tu[0])
		}
	}
	if err != nil {
		return 0, nil, fmt.Errorf("%w: expiry entry %s: %v", keyspace.ErrCorrupt, errctx.Quote(string(k)), err)
	}
	return expires, tu[1:], nil
}

// SetExpiry makes the record under pk expire at at, keeping its value:
// Redis's EXPIREAT, or with a zero at its PERSIST. Its index entries are
// rewritten with the expiry, and its version goes up as with any write. A
// record that has expired by the table's clock is gone: an error wrapping
// keyspace.ErrNotFound.
func (t *Table[R]) SetExpiry(tx keyspace.Tx, pk composite.Tuple, at time.Time) error {
	expires, err := t.expiryOf(pk, at)
	if err != nil {
		return err
	}
	rec, err := t.Get(tx, pk)
	if err != nil {
		return err
	}
	_, err = t.write(tx, pk, rec.Value, nil, expires)
	return err
}

// DeleteExpired deletes the records that have expired at now (whose
// expiry is not after it), with their index entries, at most limit of
// them (0 for all), soonest expired first, and returns how many it
// deleted. It reads only the expiry entries of those records, so it costs
// nothing when none are due: a program can call it on a timer, in
// transactions of a bounded size.
func (t *Table[R]) DeleteExpired(tx keyspace.Tx, now time.Time, limit int) (int, error) {
	if limit < 0 {
		return 0, t.wrap(fmt.Errorf("negative limit %d", limit))
	}
	r := expiry.DueBy(t.expiry, now)
	r.Limit = limit
	type due struct {
		key     []byte
		expires int64
		pk      composite.Tuple
	}
	var all []due
	for k := range tx.Scan(r) {
		expires, pk, err := t.parseExpiryKey(k)
		if err != nil {
			return 0, t.wrap(err)
		}
		all = append(all, due{bytes.Clone(k), expires, pk})
	}
	if err := tx.Err(); err != nil {
		return 0, t.wrap(err)
	}
	deleted := 0
	for _, d := range all {
		rec, _, err := t.get(tx, d.pk)
		switch {
		case err == nil && nanos(rec.Expires) == d.expires:
			if err := t.deleteStored(tx, d.pk); err != nil {
				return 0, err
			}
			deleted++
		case err == nil || errors.Is(err, keyspace.ErrNotFound):
			// An entry of no record, or of an expiry the record no
			// longer has (which Verify reports): nothing is due.
			if err := tx.Delete(d.key); err != nil {
				return 0, t.wrap(err)
			}
		default:
			return 0, err
		}
	}
	return deleted, nil
}

// NextExpiry returns when the record that expires soonest expires, and
// false if no record has an expiry. It may be in the past: a record that
// has expired and not yet been deleted.
func (t *Table[R]) NextExpiry(tx keyspace.Tx) (time.Time, bool, error) {
	at, ok, err := expiry.Next(tx, t.expiry)
	return at, ok, t.wrap(err)
}

// Verify checks the table's own entries, the expiry entries, against its
// records (each index is checked by Index.Verify): a record with an expiry
// and no entry for it is a missing entry, an entry of no record or of an
// expiry its record does not have is stale, and an entry that does not
// decode is corrupt. A Problem's Value is the expiry, as a time.
func (t *Table[R]) Verify(tx keyspace.Tx) ([]Problem, error) {
	want := map[string]composite.Tuple{} // expiry entry key → pk
	err := t.scanStored(tx, t.Range(), func(rec Record[R]) bool {
		if e := nanos(rec.Expires); e != 0 {
			want[string(t.expiryKey(e, rec.Key))] = rec.Key
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	var problems []Problem
	for k := range tx.Scan(t.expiry.Range()) {
		expires, pk, err := t.parseExpiryKey(k)
		switch {
		case err != nil:
			problems = append(problems, Problem{Kind: "corrupt", Raw: bytes.Clone(k)})
		case want[string(k)] == nil:
			problems = append(problems, Problem{Kind: "stale", Value: composite.Tuple{time.Unix(0, expires).UTC()}, Key: pk})
		default:
			delete(want, string(k))
		}
	}
	if err := tx.Err(); err != nil {
		return nil, t.wrap(err)
	}
	for _, k := range slices.Sorted(maps.Keys(want)) {
		expires, pk, _ := t.parseExpiryKey([]byte(k))
		problems = append(problems, Problem{Kind: "missing", Value: composite.Tuple{time.Unix(0, expires).UTC()}, Key: pk})
	}
	return problems, nil
}

// Repair makes the expiry entries what the records imply, and returns
// what Verify found.
func (t *Table[R]) Repair(tx keyspace.Tx) ([]Problem, error) {
	problems, err := t.Verify(tx)
	if err != nil {
		return nil, err
	}
	for _, p := range problems {
		switch p.Kind {
		case "corrupt":
			err = tx.Delete(p.Raw)
		case "stale", "missing":
			key := t.expiryKey(p.Value[0].(time.Time).UnixNano(), p.Key)
			if p.Kind == "stale" {
				err = tx.Delete(key)
			} else {
				err = tx.Put(key, nil)
			}
		}
		if err != nil {
			return nil, t.wrap(err)
		}
	}
	return problems, nil
}
