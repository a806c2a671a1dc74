package geo

import (
	"errors"
	"fmt"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/internal/errctx"
	"github.com/keyspacedb/keyspace/internal/expiry"
)

// Points that expire.
//
// A point put with Expires set is gone for every reader from that instant:
// queries, Get and Scan leave it out, as Tile38 does with an object SET
// with EX and BuntDB with a key set with a TTL. Until DeleteExpired
// deletes it, it still takes its key: Scopes, which reads one key per
// scope, lists its scope, and Verify checks it like any other point.
// ScopeCounts counts keys and then subtracts the points due, reading the
// reverse entry of each.
//
// Three places hold the expiry, each for the reader that needs it:
//
//   - the point's value (after the coordinates), so a query rejects an
//     expired candidate from the bytes it reads anyway, with no other
//     read: a query that meets no expiring point never reads the clock;
//   - the reverse entry, so Put, Delete and Scan know it without reading
//     the point;
//   - the expiry entry, ("g", name, "e", expires, id), which sorts the
//     expiring points by when they expire, so DeleteExpired reads only the
//     ones due and NextExpiry only the first.
//
// Expiry is a reader's rule, not a background job: an embedded engine has
// no server loop to run one. A program that wants the keys gone calls
// DeleteExpired now and then, as `keyspace geo sweep` does (see
// ExampleIndex_DeleteExpired).

// expiryOf converts a point's Expires into nanoseconds since 1970, 0 for
// none.
func expiryOf(t time.Time) (int64, error) {
	n, err := expiry.Nanos(t)
	if err != nil {
		return 0, fmt.Errorf("%w: %v", ErrBadExpiry, t)
	}
	return n, nil
}

// expiryElement reads a reverse entry's expiry element.
func expiryElement(e any) (int64, error) {
	n, ok := expiry.Element(e)
	if !ok {
		return 0, fmt.Errorf("expiry %v is not a time after 1970", e)
	}
	return n, nil
}

// expiryKey is the expiry entry of the point id expiring at expires.
func (ix *Index) expiryKey(expires int64, id string) []byte {
	return expiryEntryKey(ix.expiry, expires, id)
}

// expiryEntryKey is the key of an expiry entry under sub, a point's or a
// fence's: (sub…, expires, id).
func expiryEntryKey(sub composite.Subspace, expires int64, id string) []byte {
	return composite.AppendString(composite.AppendUint(sub.Bytes(), uint64(expires)), id)
}

// parseExpiryKey reads an expiry entry's key.
func (ix *Index) parseExpiryKey(k []byte) (expires int64, id string, err error) {
	return parseExpiryEntry(ix.expiry, k)
}

// parseExpiryEntry reads the key of an expiry entry under sub, a point's
// or a fence's: (sub…, expires, id).
func parseExpiryEntry(sub composite.Subspace, k []byte) (expires int64, id string, err error) {
	t, err := sub.Unpack(k)
	if err == nil && len(t) != 2 {
		err = fmt.Errorf("%d elements", len(t))
	}
	if err == nil {
		expires, err = expiryElement(t[0])
	}
	if err == nil {
		var ok bool
		if id, ok = t[1].(string); !ok || id == "" {
			err = fmt.Errorf("id is %T %v", t[1], t[1])
		}
	}
	if err != nil {
		return 0, "", fmt.Errorf("corrupt expiry entry %s: %w", errctx.Quote(string(k)), err)
	}
	return expires, id, nil
}

// DeleteExpired deletes the points that have expired at now (whose
// Expires is not after it), at most limit of them (0 for all), soonest
// expired first, and returns how many it deleted. It reads only the expiry
// entries of those points, so it costs nothing when none are due: a
// program can call it on a timer, in transactions of a bounded size.
func (ix *Index) DeleteExpired(tx keyspace.Tx, now time.Time, limit int) (int, error) {
	if limit < 0 {
		return 0, ix.wrap(fmt.Errorf("%w: negative limit %d", ErrBadQuery, limit))
	}
	var key []byte // the key of the point deleteDue asked about last
	return deleteDue(tx, ix.expiry, now, limit, ix.wrap,
		func(id string) (int64, error) {
			_, k, expires, err := ix.pointKey(tx, id)
			key = k
			return expires, err
		},
		func(id string, expires int64) error { return ix.deletePoint(tx, id, key, expires) })
}

// deleteDue is DeleteExpired of points and fences alike: it deletes the
// items whose expiry entries under sub are due at now, at most limit of
// them (0 for all), soonest first, and returns how many it deleted.
// expiresOf returns an item's expiry as it stands (an error wrapping
// keyspace.ErrNotFound when there is no item), and remove deletes the
// item expiresOf was last asked about, with its entry. An entry whose
// item is gone, or now expires at another time (a structure out of
// step, which Verify reports), means nothing, and is deleted alone.
func deleteDue(tx keyspace.Tx, sub composite.Subspace, now time.Time, limit int, wrap func(error) error,
	expiresOf func(id string) (int64, error), remove func(id string, expires int64) error) (int, error) {
	r := expiry.DueBy(sub, now)
	r.Limit = limit
	type due struct {
		expires int64
		id      string
	}
	var all []due
	for k := range tx.Scan(r) {
		expires, id, err := parseExpiryEntry(sub, k)
		if err != nil {
			return 0, wrap(err)
		}
		all = append(all, due{expires, id})
	}
	if err := tx.Err(); err != nil {
		return 0, wrap(err)
	}
	deleted := 0
	for _, d := range all {
		expires, err := expiresOf(d.id)
		switch {
		case err == nil && expires == d.expires:
			if err := remove(d.id, expires); err != nil {
				return 0, err
			}
			deleted++
		case err == nil || errors.Is(err, keyspace.ErrNotFound):
			if err := tx.Delete(expiryEntryKey(sub, d.expires, d.id)); err != nil {
				return 0, wrap(err)
			}
		default:
			return 0, err
		}
	}
	return deleted, nil
}

// NextExpiry returns when the point that expires soonest expires, and
// false if no point has an expiry. It may be in the past: a point that
// has expired and not yet been deleted. A program that deletes expired
// points can sleep until then.
func (ix *Index) NextExpiry(tx keyspace.Tx) (time.Time, bool, error) {
	at, ok, err := expiry.Next(tx, ix.expiry)
	return at, ok, ix.wrap(err)
}

// SetExpiry changes when the point id expires, keeping its place and
// payload: Tile38's EXPIRE, or with a zero at its PERSIST. A point that
// reports it is still there extends its life this way without putting
// its coordinates again. A point that has expired by the clock is gone, as
// Get says: an error wrapping keyspace.ErrNotFound.
func (ix *Index) SetExpiry(tx keyspace.Tx, id string, at time.Time) error {
	expires, err := expiryOf(at)
	if err != nil {
		return ix.wrap(fmt.Errorf("point %s: %w", errctx.Quote(id), errctx.Bare("geo", err)))
	}
	p, err := ix.Get(tx, id)
	if err != nil {
		return err
	}
	p.Expires = time.Time{}
	if expires != 0 {
		p.Expires = time.Unix(0, expires)
	}
	return ix.Put(tx, p)
}
