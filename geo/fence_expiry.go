package geo

import (
	"fmt"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/internal/expiry"
)

// Fences that expire.
//
// A fence put with Expires set is gone for every reader from that
// instant, as a Tile38 hook set with EX is: Containing, Crossings (and so
// PutPoint and DeletePoint), Get and IDs leave it out. Until
// DeleteExpired deletes it, it still takes its keys, and Verify checks it
// like any other fence. This is the rule points follow (expiry.go), for
// the same reason: an embedded engine has no server loop to delete things
// on time, so expiry is a reader's rule and deletion a chore a program
// runs now and then (`keyspace fence sweep`).
//
// Three places hold a fence's expiry, each for the reader that needs it:
//
//   - every cell's value (cellExpires), so a lookup leaves an expired
//     fence out from the bytes it reads anyway, with no other read, and a
//     lookup that meets no expiring fence never reads the clock;
//   - the definition (storedFence.Expires), for Get and Delete;
//   - the expiry entry, ("f", name, "e", expires, id), which sorts the
//     expiring fences by when they expire, so DeleteExpired reads only
//     the ones due, NextExpiry only the first, and IDs only the expired.
//
// A fence that expires between a point's two lookups in one Crossings is
// judged at one instant: the lookups of a call share one reading of the
// clock (expiry.Clock).
//
// Measured (BenchmarkFences, -count 3, in one run): a lookup among 1,000
// circles and boxes that all expire in a day took 1.76–1.88 µs in memory
// and 2.35–2.48 µs on bbolt, against 1.74–2.04 and 2.58–2.61 µs for the
// same fences with no expiry; among 10,000, 4.78–5.31 and 5.70–6.09 µs
// against 4.74–4.90 and 5.42–5.65. An A/B run of the build before fences
// could expire against this one, on fences that do not expire, found no
// cost either (1,000 fences in memory: 1.99–2.37 µs before, 1.74–2.19
// after). A cell of an expiring fence is 9 bytes longer.

// expiryKey is the expiry entry of the fence id expiring at expires.
func (fs *Fences) expiryKey(expires int64, id string) []byte {
	return expiryEntryKey(fs.expiry, expires, id)
}

// expiredIDs returns the ids of the fences expired at now, as a set (nil
// when none has), from their expiry entries.
func (fs *Fences) expiredIDs(tx keyspace.Tx, now time.Time) (map[string]struct{}, error) {
	var ids map[string]struct{}
	for k := range tx.Scan(expiry.DueBy(fs.expiry, now)) {
		_, id, err := parseExpiryEntry(fs.expiry, k)
		if err != nil {
			return nil, fs.wrap(err)
		}
		if ids == nil {
			ids = map[string]struct{}{}
		}
		ids[id] = struct{}{}
	}
	return ids, fs.wrap(tx.Err())
}

// DeleteExpired deletes the fences that have expired at now (whose
// Expires is not after it), at most limit of them (0 for all), soonest
// expired first, and returns how many it deleted. It reads only the
// expiry entries of those fences, so it costs nothing when none are due.
func (fs *Fences) DeleteExpired(tx keyspace.Tx, now time.Time, limit int) (int, error) {
	if limit < 0 {
		return 0, fs.wrap(fmt.Errorf("%w: negative limit %d", ErrBadQuery, limit))
	}
	return deleteDue(tx, fs.expiry, now, limit, fs.wrap,
		func(id string) (int64, error) {
			def, err := fs.get(tx, id)
			return def.Expires, err
		},
		func(id string, _ int64) error { return fs.Delete(tx, id) })
}

// NextExpiry returns when the fence that expires soonest expires, and
// false if no fence has an expiry. It may be in the past: a fence that has
// expired and not yet been deleted.
func (fs *Fences) NextExpiry(tx keyspace.Tx) (time.Time, bool, error) {
	at, ok, err := expiry.Next(tx, fs.expiry)
	return at, ok, fs.wrap(err)
}

// SetExpiry makes the fence id expire at at, or never when at is zero,
// keeping its region and payload (Tile38's EXPIRE and PERSIST). A fence
// that does not exist or has expired is an error wrapping
// keyspace.ErrNotFound.
func (fs *Fences) SetExpiry(tx keyspace.Tx, id string, at time.Time) error {
	f, err := fs.Get(tx, id)
	if err != nil {
		return err
	}
	f.Expires = at
	if _, err := f.expires(); err != nil {
		return fs.wrap(err)
	}
	return fs.Put(tx, f)
}
