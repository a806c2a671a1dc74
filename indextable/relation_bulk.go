package indextable

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/internal/errctx"
)

// Edge is a link for LinkAll to make: left links to right at time At.
type Edge struct {
	Left, Right string
	At          time.Time
}

// EdgeError is LinkAll's refusal of one edge, by its index in the edges;
// nothing was written.
type EdgeError struct {
	Index int
	Err   error
}

func (e *EdgeError) Error() string { return fmt.Sprintf("edge %d: %v", e.Index, e.Err) }
func (e *EdgeError) Unwrap() error { return e.Err }

// ValidateLink tells whether Link would take a link of left to right at
// time at, reading nothing: ErrEmptyKey, a time no key can hold
// (composite.ErrIntegerRange), or ids too long for the link's keys
// (keyspace.ErrKeyTooLarge); nil if it would. An import checks its rows
// with it to skip the bad ones.
func (r *Relation) ValidateLink(left, right string, at time.Time) error {
	_, err := r.linkKeys(left, right, at)
	return err
}

// linkKeys returns a link's three keys (the link, and its entries in both
// lists: the longest keys a link has), or why Link refuses it.
func (r *Relation) linkKeys(left, right string, at time.Time) ([3][]byte, error) {
	if left == "" || right == "" {
		return [3][]byte{}, r.wrap(ErrEmptyKey)
	}
	if first, last := composite.TimeBounds(); at.Before(first) || at.After(last) {
		return [3][]byte{}, r.wrap(fmt.Errorf("%w: link time %s is outside %d–%d", composite.ErrIntegerRange, at.Format(time.RFC3339), first.Year(), last.Year()))
	}
	when := composite.Desc{V: at.UTC()}
	keys := [3][]byte{
		r.links.Pack(composite.Tuple{left, right}),
		r.fwd.Pack(composite.Tuple{left, when, right}),
		r.back.Pack(composite.Tuple{right, when, left}),
	}
	for _, k := range keys {
		if len(k) > keyspace.MaxKeySize {
			return [3][]byte{}, r.wrap(fmt.Errorf("link %s–%s: %w: a key of it is %d bytes (the most is %d)",
				errctx.Quote(left), errctx.Quote(right), errctx.Bare("keyspace", keyspace.ErrKeyTooLarge), len(k), keyspace.MaxKeySize))
		}
	}
	return keys, nil
}

// LinkAll links each edge as Link would one at a time in their order (a
// pair linked twice ends at its last time; a pair linked before moves to
// its new time and counts once), and leaves the same keys. It checks
// every edge first (ValidateLink): the first bad one is an *EdgeError,
// and nothing is written. It reads each pair's link, each entity's
// fields and count once, and writes in key order (keyspace.WriteSorted),
// which a bulk load into bbolt needs: bbolt splits a page only when the
// transaction commits, so a large transaction of unsorted writes slows
// with the square of its size (BenchmarkLinkAll).
func (r *Relation) LinkAll(tx keyspace.Tx, edges []Edge) error {
	type pair struct{ left, right string }
	keys := make([][3][]byte, len(edges))
	last := make(map[pair]int, len(edges)) // each pair's last edge
	for i, e := range edges {
		k, err := r.linkKeys(e.Left, e.Right, e.At)
		if err != nil {
			return r.wrap(&EdgeError{Index: i, Err: err}) // "indextable: relation r: edge 2: empty key"
		}
		keys[i] = k
		last[pair{e.Left, e.Right}] = i
	}
	// A pair linked already moves: its old entries go, its counts stay.
	added := map[string]map[string]int{"lc": {}, "rc": {}} // new links by entity
	for p := range last {
		existed, err := r.unlink(tx, p.left, p.right)
		if err != nil {
			return err
		}
		if !existed {
			added["lc"][p.left]++
			added["rc"][p.right]++
		}
	}
	type kv struct{ key, value []byte }
	var writes []kv
	for _, c := range []struct {
		sub composite.Subspace
		ids map[string]int
	}{{r.leftCount, added["lc"]}, {r.rightCount, added["rc"]}} {
		for id, n := range c.ids {
			key := c.sub.Pack(composite.Tuple{id})
			had, err := r.readCount(tx, key)
			if err != nil {
				return err
			}
			writes = append(writes, kv{key, binary.BigEndian.AppendUint64(nil, uint64(had+n))})
		}
	}
	fieldsOf := map[string][]byte{} // "l"+id or "r"+id → the entity's recorded fields
	fields := func(ref composite.Subspace, side, id string) ([]byte, error) {
		if f, ok := fieldsOf[side+id]; ok {
			return f, nil
		}
		f, err := r.fields(tx, ref, id)
		if err != nil {
			return nil, r.wrap(err)
		}
		fieldsOf[side+id] = f
		return f, nil
	}
	for p, i := range last {
		lf, err := fields(r.leftRef, "l", p.left)
		if err != nil {
			return err
		}
		rf, err := fields(r.rightRef, "r", p.right)
		if err != nil {
			return err
		}
		writes = append(writes,
			kv{keys[i][0], binary.BigEndian.AppendUint64(nil, uint64(edges[i].At.UnixNano()))},
			kv{keys[i][1], rf},
			kv{keys[i][2], lf})
	}
	slices.SortFunc(writes, func(a, b kv) int { return bytes.Compare(a.key, b.key) })
	err := keyspace.WriteSorted(tx, func(yield func(k, v []byte) bool) {
		for _, w := range writes {
			// WriteSorted keeps the slices it is given: an entity's
			// fields, shared by its links, are copied for each.
			if !yield(w.key, bytes.Clone(w.value)) {
				return
			}
		}
	})
	if err != nil {
		return r.wrap(err)
	}
	return nil
}

// EdgePage is one page of a relation's links and the cursor for the next
// ("" when done).
type EdgePage struct {
	Edges []Edge
	Next  string
}

// Edges lists every link of the relation, in key order (by left, then
// right; Reverse: the last first), a page at a time, each with its time:
// the whole relation, for an export (keyspace rel scan) that LinkAll
// takes back. It reads the link keys only, not the entities' fields.
func (r *Relation) Edges(tx keyspace.Tx, opts *ListOptions) (EdgePage, error) {
	var o ListOptions
	if opts != nil {
		o = *opts
	}
	if o.Limit < 0 {
		return EdgePage{}, r.wrap(fmt.Errorf("negative limit %d", o.Limit))
	}
	rg := r.links.Range()
	rg.Reverse = o.Reverse
	edges, next, err := keyspace.ScanPage(tx, rg, o.Cursor, o.Limit, func(k, v []byte) (Edge, error) {
		t, err := r.links.Unpack(k)
		if err != nil || len(t) != 2 || len(v) != 8 {
			return Edge{}, fmt.Errorf("%w: link key %q", keyspace.ErrCorrupt, k)
		}
		left, _ := t[0].(string)
		right, _ := t[1].(string)
		return Edge{Left: left, Right: right, At: time.Unix(0, int64(binary.BigEndian.Uint64(v))).UTC()}, nil
	})
	if err == nil {
		err = tx.Err()
	}
	if err != nil {
		return EdgePage{}, r.wrap(errctx.Bare("keyspace", err))
	}
	return EdgePage{Edges: edges, Next: next}, nil
}
