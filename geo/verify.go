package geo

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/internal/errctx"
	"github.com/keyspacedb/keyspace/internal/fixes"
)

// Verify checks the index against its point keys, which are the truth
// (they hold the coordinates and payloads): each point is stored once,
// under the key its coordinates and scope give (the right grid and
// hash), and has a reverse entry naming that key (and its expiry, if it
// has one) and, if it expires, an expiry entry; no reverse or expiry entry
// names anything else. It returns a description of each problem.
func (ix *Index) Verify(tx keyspace.Tx) ([]string, error) { return ix.check(tx, false) }

// Repair makes the index what its point keys imply, in the caller's
// transaction, and returns the problems it fixed, as Verify describes
// them: a point under the wrong key moves to the right one, reverse and
// expiry entries are rewritten, stray and undecodable ones deleted. Of an id
// stored more than once it keeps the copy its reverse entry names, or
// else the first in key order, and deletes the others. A point key that
// does not decode is deleted: nothing else holds its coordinates.
func (ix *Index) Repair(tx keyspace.Tx) ([]string, error) { return ix.check(tx, true) }

// stored is one point key as the index holds it, and where it belongs.
type stored struct {
	key, value []byte
	grid       grid   // where it belongs
	want       []byte // the key it belongs under
	where      []byte // its reverse entry's value
	expires    int64  // its expiry, 0 for none
}

// check is Verify, and with fix Repair.
func (ix *Index) check(tx keyspace.Tx, fix bool) ([]string, error) {
	var problems []string
	var writes fixes.Set // what a repair deletes and puts
	byID := map[string][]stored{}
	for g, sub := range ix.points {
		for k, v := range tx.Scan(sub.Range()) {
			p, err := ix.decode(grid(g), k, v)
			if err == nil {
				err = validate(p.Lat, p.Lon)
			}
			if err != nil {
				problems = append(problems, fmt.Sprintf("corrupt point key %s: %v", errctx.Quote(string(k)), errctx.Bare("geo", err)))
				writes.Delete(bytes.Clone(k))
				continue
			}
			wg, h := locate(p.Lat, p.Lon)
			place := placeOf(p.Scope, h)
			packed, err := place.TryPack()
			if err != nil {
				return nil, ix.wrap(fmt.Errorf("point %s: scope: %w", errctx.Quote(p.ID), err))
			}
			expires, _ := expiryOf(p.Expires) // decode gave a time after 1970
			byID[p.ID] = append(byID[p.ID], stored{key: bytes.Clone(k), value: bytes.Clone(v), grid: wg, expires: expires,
				want: ix.points[wg].Pack(append(place, p.ID)), where: whereValue(wg, packed, expires)})
		}
	}
	if err := tx.Err(); err != nil {
		return nil, ix.wrap(err)
	}
	reverse := map[string][]byte{} // id → its reverse entry's value
	for k, v := range tx.Scan(ix.ids.Range()) {
		t, err := ix.ids.Unpack(k)
		id, ok := "", false
		if err == nil && len(t) == 1 {
			id, ok = t[0].(string)
		}
		if !ok || id == "" {
			problems = append(problems, fmt.Sprintf("corrupt reverse entry %s", errctx.Quote(string(k))))
			writes.Delete(bytes.Clone(k))
			continue
		}
		reverse[id] = bytes.Clone(v)
	}
	if err := tx.Err(); err != nil {
		return nil, ix.wrap(err)
	}
	due := map[string]bool{} // the expiry entries the points imply
	ids := make([]string, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		copies := byID[id] // in key order
		keep := 0
		if len(copies) > 1 {
			if v, ok := reverse[id]; ok {
				if _, named, _, err := ix.keyOf(id, v); err == nil {
					for i, c := range copies {
						if bytes.Equal(c.key, named) {
							keep = i
						}
					}
				}
			}
			problems = append(problems, fmt.Sprintf("point %s is stored %d times", errctx.Quote(id), len(copies)))
			for i, c := range copies {
				if i != keep {
					writes.Delete(c.key)
				}
			}
		}
		c := copies[keep]
		if !bytes.Equal(c.key, c.want) {
			problems = append(problems, fmt.Sprintf("point %s is stored under a key its coordinates do not give (the %s grid's)", errctx.Quote(id), c.grid.name()))
			writes.Delete(c.key)
			writes.Put(c.want, c.value)
		}
		switch v, ok := reverse[id]; {
		case !ok:
			problems = append(problems, fmt.Sprintf("point %s has no reverse entry", errctx.Quote(id)))
			writes.Put(ix.ids.Pack(composite.Tuple{id}), c.where)
		case !bytes.Equal(v, c.where):
			problems = append(problems, fmt.Sprintf("point %s's reverse entry names another place", errctx.Quote(id)))
			writes.Put(ix.ids.Pack(composite.Tuple{id}), c.where)
		}
		if c.expires != 0 {
			due[string(ix.expiryKey(c.expires, id))] = true
		}
		delete(reverse, id)
	}
	for id := range reverse {
		problems = append(problems, fmt.Sprintf("reverse entry of %s names no point", errctx.Quote(id)))
		writes.Delete(ix.ids.Pack(composite.Tuple{id}))
	}
	for k := range tx.Scan(ix.expiry.Range()) {
		if due[string(k)] {
			delete(due, string(k))
			continue
		}
		if _, id, err := ix.parseExpiryKey(k); err != nil {
			problems = append(problems, err.Error())
		} else {
			problems = append(problems, fmt.Sprintf("expiry entry of %s names no point that expires then", errctx.Quote(id)))
		}
		writes.Delete(bytes.Clone(k))
	}
	if err := tx.Err(); err != nil {
		return nil, ix.wrap(err)
	}
	for k := range due {
		_, id, _ := ix.parseExpiryKey([]byte(k))
		problems = append(problems, fmt.Sprintf("point %s has no expiry entry", errctx.Quote(id)))
		writes.Put([]byte(k), nil)
	}
	problems, err := writes.Finish(tx, problems, fix)
	if err != nil {
		return nil, ix.wrap(err)
	}
	return problems, nil
}
