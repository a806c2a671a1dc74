package composite

import (
	"bytes"
	"fmt"
	"time"

	"github.com/keyspacedb/keyspace"
)

// Subspace is a named part of the keyspace: every key in it starts with the
// packed prefix tuple, as in FoundationDB's subspace layer. Each table and
// technique lives in its own subspace, e.g. ("t", "users").
type Subspace struct {
	prefix []byte
}

// NewSubspace returns the subspace of keys that start with prefix packed.
func NewSubspace(prefix ...any) Subspace {
	return Subspace{prefix: Tuple(prefix).Pack()}
}

// SubspaceFromBytes returns the subspace of keys that start with raw bytes.
func SubspaceFromBytes(prefix []byte) Subspace {
	return Subspace{prefix: bytes.Clone(prefix)}
}

// Sub returns the subspace nested under s by more elements.
func (s Subspace) Sub(elems ...any) Subspace {
	return Subspace{prefix: Tuple(elems).mustAppend(bytes.Clone(s.prefix))}
}

// Bytes returns the raw prefix.
func (s Subspace) Bytes() []byte { return bytes.Clone(s.prefix) }

// Pack returns the key of t in s. Like Tuple.Pack, it panics on an element
// of an unsupported type or a value no key can hold; TryPack returns an
// error instead.
func (s Subspace) Pack(t Tuple) []byte {
	return t.mustAppend(append(make([]byte, 0, len(s.prefix)+16), s.prefix...))
}

// TryPack is Pack returning an error instead of panicking.
func (s Subspace) TryPack(t Tuple) ([]byte, error) {
	return t.AppendPack(append(make([]byte, 0, len(s.prefix)+16), s.prefix...))
}

// Unpack decodes a key of s into the tuple after the prefix.
func (s Subspace) Unpack(key []byte) (Tuple, error) {
	if !s.Contains(key) {
		return nil, fmt.Errorf("composite: key %q is not in subspace %q", key, s.prefix)
	}
	return Unpack(key[len(s.prefix):])
}

// Contains reports whether key lies in s.
func (s Subspace) Contains(key []byte) bool { return bytes.HasPrefix(key, s.prefix) }

// Range returns the range of every key in s.
func (s Subspace) Range() keyspace.Range { return tupleRange(s.prefix) }

// Clear deletes every key in the subspaces, in tx, and returns how many
// keys it deleted from each: the first is usually the one that counts a
// structure's items (a table's records), the others its indexes.
func Clear(tx keyspace.Tx, subs ...Subspace) ([]int, error) {
	counts := make([]int, len(subs))
	for i, s := range subs {
		n, err := tx.DeleteRange(s.Range())
		if err != nil {
			return nil, err
		}
		counts[i] = n
	}
	return counts, nil
}

// RangeOf returns the range of every key in s that starts with the elements
// of t (t itself included). It panics where Pack would.
func (s Subspace) RangeOf(t Tuple) keyspace.Range { return tupleRange(s.Pack(t)) }

// tupleRange is the range of the packed tuple p and every tuple it is a
// prefix of: [p, p+0xFF). Not keyspace.Prefix(p): the packed "CA" (02 43 41
// 00) is also a byte prefix of the packed "CA\x00" (02 43 41 00 FF 00), whose
// escaped zero continues the string. 0xFF is never a type code, so every
// child of p sorts below p+0xFF and every such continuation at or above it.
func tupleRange(p []byte) keyspace.Range {
	return keyspace.Range{Start: bytes.Clone(p), End: append(bytes.Clone(p), escape)}
}

// hasTuplePrefix reports whether the packed key k starts with the packed
// tuple p as whole elements (not merely as bytes; see tupleRange).
func hasTuplePrefix(k, p []byte) bool {
	return bytes.HasPrefix(k, p) && (len(k) == len(p) || k[len(p)] != escape)
}

// Between returns the keys under prefix whose next element lies in
// [from, to): "cities from M to P in CA" is Between({"CA"}, {"M"}, {"P"}).
// An empty from or to leaves that end open. Note that "Paris" sorts after
// "P", so to take every name that starts with P, end at "Q". It panics
// where Pack would; for times from input, TimesBetween never does.
func (s Subspace) Between(prefix, from, to Tuple) keyspace.Range {
	base := s.Pack(prefix)
	r := tupleRange(base)
	if len(from) > 0 {
		r.Start = from.mustAppend(bytes.Clone(base))
	}
	if len(to) > 0 {
		r.End = to.mustAppend(bytes.Clone(base))
	}
	return r
}

// TimesBetween is Between for a next element that is a time: the keys
// under prefix whose next element is a time in [from, to). A zero from or
// to leaves that end open, and so does an end beyond the times a key can
// hold (TimeBounds); a period wholly beyond them is empty. It never packs
// a time a key cannot hold, so it never panics on one.
func (s Subspace) TimesBetween(prefix Tuple, from, to time.Time) keyspace.Range {
	first, last := TimeBounds()
	if !from.IsZero() && from.After(last) || !to.IsZero() && !to.After(first) {
		base := s.Pack(prefix)
		return keyspace.Range{Start: base, End: bytes.Clone(base)} // empty
	}
	var lo, hi Tuple
	if !from.IsZero() && from.After(first) {
		lo = Tuple{from.UTC()}
	}
	if !to.IsZero() && !to.After(last) {
		hi = Tuple{to.UTC()}
	}
	return s.Between(prefix, lo, hi)
}

func (t Tuple) mustAppend(dst []byte) []byte {
	b, err := t.AppendPack(dst)
	if err != nil {
		panic(err)
	}
	return b
}
