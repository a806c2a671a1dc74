// Package expiry holds what every technique with expiring entries (geo
// points, table records) shares: how an expiry instant is stored, which
// instants are allowed, and the key range of the entries due at a time.
//
// An expiry is stored as int64 nanoseconds since 1970, 0 meaning none. A
// technique keeps one expiry entry per expiring item under its own
// subspace, (subspace…, expires uint64, id…) → nothing, so the entries
// sort by when they expire and DueBy is one range.
package expiry

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
)

// ErrOutOfRange is Nanos's error: callers wrap it in their own sentinel
// (geo.ErrBadExpiry, indextable.ErrBadExpiry).
var ErrOutOfRange = errors.New("expiry not after 1970 or after 2262")

// Nanos converts an expiry into nanoseconds since 1970, 0 for the zero
// time (never). Instants not after 1970 (0 means never, and nothing
// expires before anything was written) or past what int64 nanoseconds and
// composite's times hold (2262) are ErrOutOfRange.
func Nanos(t time.Time) (int64, error) {
	if t.IsZero() {
		return 0, nil
	}
	_, last := composite.TimeBounds()
	if !t.After(time.Unix(0, 0)) || t.After(last) {
		return 0, ErrOutOfRange
	}
	return t.UnixNano(), nil
}

// Time is the inverse of Nanos: the zero time for 0.
func Time(nanos int64) time.Time {
	if nanos == 0 {
		return time.Time{}
	}
	return time.Unix(0, nanos)
}

// Element reads an expiry stored as a tuple element (uint64 in an expiry
// entry's key, int64 where it was packed as one): a positive int64.
func Element(e any) (int64, bool) {
	var n int64
	switch v := e.(type) {
	case int64:
		n = v
	case uint64:
		if v <= math.MaxInt64 {
			n = int64(v)
		}
	}
	return n, n > 0
}

// KeyExtra is the most bytes an expiry entry's key is longer than its
// subspace and the packed id: the expiry, a packed uint64.
const KeyExtra = 9

// Key is the expiry entry under sub of the item named by id (its packed
// tuple) expiring at nanos.
func Key(sub composite.Subspace, nanos int64, id []byte) []byte {
	return append(composite.AppendUint(sub.Bytes(), uint64(nanos)), id...)
}

// DueBy is the range of the expiry entries under sub of the items that
// have expired at now: those expiring at or before it.
func DueBy(sub composite.Subspace, now time.Time) keyspace.Range {
	r := sub.Range()
	switch n := now.UnixNano(); {
	case now.Before(time.Unix(0, 1)):
		r.End = bytes.Clone(r.Start) // nothing expires before 1970
	case now.Before(time.Unix(0, math.MaxInt64)):
		r.End = composite.AppendUint(sub.Bytes(), uint64(n)+1)
	}
	return r
}

// Clock reads the time once, when first asked: a reader that meets no
// expiring item never reads it. The zero Clock reads time.Now.
type Clock struct {
	now  func() time.Time
	at   int64
	read bool
}

// NewClock returns a clock on now (time.Now when nil).
func NewClock(now func() time.Time) Clock { return Clock{now: now} }

// Nanos is the clock's time in nanoseconds since 1970, read on the first
// call.
func (c *Clock) Nanos() int64 {
	if !c.read {
		now := c.now
		if now == nil {
			now = time.Now
		}
		c.at, c.read = now().UnixNano(), true
	}
	return c.at
}

// Expired reports whether an item with expiry nanos has expired by the
// clock, reading the clock only for an item that has an expiry.
func (c *Clock) Expired(nanos int64) bool { return nanos != 0 && nanos <= c.Nanos() }

// Next returns when the item whose expiry entry under sub sorts first
// expires (the soonest), and false when no item has one. A damaged entry
// is an error wrapping keyspace.ErrCorrupt.
func Next(tx keyspace.Tx, sub composite.Subspace) (time.Time, bool, error) {
	r := sub.Range()
	r.Limit = 1
	for k := range tx.Scan(r) {
		t, err := sub.Unpack(k)
		var nanos int64
		ok := false
		if err == nil && len(t) > 1 {
			nanos, ok = Element(t[0])
		}
		if !ok {
			return time.Time{}, false, fmt.Errorf("%w: expiry entry %q", keyspace.ErrCorrupt, k)
		}
		return time.Unix(0, nanos), true, nil
	}
	return time.Time{}, false, tx.Err()
}
