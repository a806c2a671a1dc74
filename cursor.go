package keyspace

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
)

// ErrBadCursor is returned by Range.Resume for a token that was not made by
// Range.Cursor of the same range and direction, or was damaged.
var ErrBadCursor = errors.New("keyspace: invalid or foreign cursor")

// ErrSkip, returned by ScanPage's decode, leaves the pair out of the page,
// as fs.SkipDir leaves a directory out of a walk. It is not an error.
var ErrSkip = errors.New("keyspace: skip this pair")

// cursorVersion is the first byte of every token, so the format can change.
const cursorVersion = 1

// Cursor returns an opaque token that continues a scan of r after last, the
// last key a page returned. Tokens are stateless (Cassandra's paging state,
// FoundationDB's continuations): the scan resumes at an exclusive bound, so a
// page costs O(page) however deep it is, and keys inserted meanwhile are seen
// if they sort after the bound. A token names its range: Resume rejects it
// for any other range or direction. Limit is not part of it, so page sizes
// may change between pages.
func (r Range) Cursor(last []byte) string {
	b := make([]byte, 0, 9+len(last))
	b = append(b, cursorVersion)
	b = binary.BigEndian.AppendUint64(b, r.fingerprint())
	b = append(b, last...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Resume returns r narrowed to the keys after the cursor (before it, in
// reverse). An empty cursor returns r unchanged: the first page.
func (r Range) Resume(cursor string) (Range, error) {
	if cursor == "" {
		return r, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil || len(b) < 9 || b[0] != cursorVersion {
		return r, fmt.Errorf("%w: not a cursor token", ErrBadCursor)
	}
	if binary.BigEndian.Uint64(b[1:9]) != r.fingerprint() {
		return r, fmt.Errorf("%w: it belongs to another query", ErrBadCursor)
	}
	last := b[9:]
	if !r.contains(last) {
		return r, fmt.Errorf("%w: its position lies outside the query", ErrBadCursor)
	}
	if r.Reverse {
		r.End = bytes.Clone(last)
	} else {
		r.Start = append(bytes.Clone(last), 0x00) // the smallest key after last
	}
	return r, nil
}

// fingerprint identifies the bounds and direction of r.
func (r Range) fingerprint() uint64 {
	h := fnv.New64a()
	for _, b := range [][]byte{r.Start, r.End} {
		var n [5]byte
		n[0] = 0
		if b != nil {
			n[0] = 1
		}
		binary.BigEndian.PutUint32(n[1:], uint32(len(b)))
		h.Write(n[:])
		h.Write(b)
	}
	if r.Reverse {
		h.Write([]byte{1})
	}
	return h.Sum64()
}

// ScanPage reads one page of r: the pairs after cursor ("" for the first
// page; see Resume), at most limit of them (all when limit is 0 or less), each
// turned into a T by decode, and the cursor of the next page ("" when r
// holds no more). It reads one pair past the page, which tells whether
// another page exists. decode returns ErrSkip to leave a pair out (an
// expired record), and the page fills from the pairs after it. A bad
// cursor is an error wrapping ErrBadCursor; decode's first other error is
// returned as it is; the
// transaction's own error is the caller's to check with tx.Err.
func ScanPage[T any](tx Tx, r Range, cursor string, limit int, decode func(k, v []byte) (T, error)) ([]T, string, error) {
	rr, err := r.Resume(cursor)
	if err != nil {
		return nil, "", err
	}
	rr.Limit = 0 // the loop stops one past the page, skipped pairs aside
	var items []T
	var last []byte
	for k, v := range tx.Scan(rr) {
		if limit > 0 && len(items) == limit {
			return items, r.Cursor(last), nil
		}
		it, err := decode(k, v)
		if errors.Is(err, ErrSkip) {
			continue
		}
		if err != nil {
			return nil, "", err
		}
		items = append(items, it)
		last = append(last[:0], k...)
	}
	return items, "", nil
}
