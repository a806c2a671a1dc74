package geo

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"iter"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/internal/errctx"
)

// PutAll adds or moves many points in one transaction, as an import does.
// Every point is checked before anything is written, so a bad one changes
// nothing. A later duplicate id wins.
//
// The writes go in one sorted run of keys: a B+tree such as bbolt's takes
// sorted inserts into a large transaction in linear time, random ones in
// far worse (its nodes split only at commit, so an insert in the middle of
// a grown node moves everything after it). To sort a million points
// quickly it never compares whole keys: the points are sorted by what
// their keys sort by, as integers where it can (the grid, the scope's rank
// among the distinct scopes, the hash; radix and counting sorts) and by id
// only on ties; ids are radix-sorted by eight of their bytes before the
// rest. Duplicates are found in the id order rather than with a map. Keys
// are built into large shared buffers, with no boxing of elements, in
// chunks on GOMAXPROCS goroutines while the transaction writes the chunks
// built before (pairWriter).
func (ix *Index) PutAll(tx keyspace.Tx, points []Point) error {
	if len(points) > math.MaxInt32 {
		return ix.wrap(fmt.Errorf("PutAll takes at most %d points, got %d", math.MaxInt32, len(points)))
	}
	places, scopes, err := ix.placeAll(points)
	if err != nil {
		return ix.wrap(err)
	}
	// The two sorts are independent: the key order sorts every point,
	// and points that lose to a later duplicate are skipped when written.
	var byKey []placed
	var wg sync.WaitGroup
	wg.Go(func() { byKey = sortPlaces(places, points, len(scopes)) })
	winners := lastOfEachID(points)
	wg.Wait()
	won := make([]bool, len(points))
	for _, w := range winners {
		won[w.i] = true
	}
	// Points that exist already lose their old keys; an empty index (a
	// first import) has none to look up.
	empty, err := ix.Empty(tx)
	if err != nil {
		return err
	}
	if !empty {
		for _, w := range winners {
			if err := ix.deleteKey(tx, points[w.i].ID); err != nil {
				return err
			}
		}
	}
	// The expiry entries ("e") sort before everything else the index
	// writes, soonest first.
	var due []pair
	for _, win := range winners {
		if e := places[win.i].expires; e != 0 {
			due = append(due, pair{ix.expiryKey(e, points[win.i].ID), nil})
		}
	}
	slices.SortFunc(due, func(a, b pair) int { return bytes.Compare(a.key, b.key) })
	if err := keyspace.WriteSorted(tx, func(yield func(k, v []byte) bool) {
		for _, d := range due {
			if !yield(d.key, d.value) {
				return
			}
		}
	}); err != nil {
		return ix.wrap(err)
	}
	w := &pairWriter{ids: ix.ids.Bytes(), points: points, places: places, scopes: scopes, winners: winners, byKey: byKey, won: won}
	for g := range w.pointPrefix {
		w.pointPrefix[g] = ix.points[g].Bytes()
	}
	if err := keyspace.WriteSorted(tx, w.pairs(runtime.GOMAXPROCS(0))); err != nil {
		return ix.wrap(err)
	}
	return nil
}

// pairWriter builds the pairs PutAll writes, in key order: the reverse
// entries ("i"), which sort before the point keys ("n", "p", "s"), one per
// winner in id order, then the point keys in byKey order, skipping points
// that lost to a later duplicate. Building a pair reads its point, id and
// payload in an order unrelated to the input's, so it is mostly waiting
// for memory; it runs on several cores, in chunks, while the transaction
// inserts the chunks built before (pairs). On 1,000,000 clustered points
// and 2 cores (BenchmarkPutAll, A/B in one hour) this took the load into
// the memory backend from 1.58 to 0.85 s and into bbolt from 5.8 to 4.6 s.
type pairWriter struct {
	ids         []byte    // the reverse entries' subspace
	pointPrefix [3][]byte // each grid's subspace
	points      []Point
	places      []placed
	scopes      [][]byte
	winners     []sortKey
	byKey       []placed
	won         []bool
}

// pair is one key and value to write.
type pair struct{ key, value []byte }

// pairChunk is how many write positions one chunk covers.
const pairChunk = 4096

// pairs builds the writes on workers goroutines and yields them in order.
func (w *pairWriter) pairs(workers int) iter.Seq2[[]byte, []byte] {
	n := len(w.winners) + len(w.byKey)
	chunks := (n + pairChunk - 1) / pairChunk
	workers = max(1, min(workers, chunks))
	bufs := make([]keyBuffer, workers)
	// The slices of pairs go round; the bytes they point at stay with the
	// transaction, which owns them once written.
	free := make(chan []pair, 2*workers+1)
	built := inOrder(chunks, workers, func(worker, i int) []pair {
		var dst []pair
		select {
		case dst = <-free:
		default:
			dst = make([]pair, 0, pairChunk)
		}
		return w.build(&bufs[worker], dst[:0], i*pairChunk, min(n, (i+1)*pairChunk))
	})
	return func(yield func(k, v []byte) bool) {
		for chunk := range built {
			for _, p := range chunk {
				if !yield(p.key, p.value) {
					return
				}
			}
			select {
			case free <- chunk:
			default:
			}
		}
	}
}

// build appends the pairs of write positions [from, to) to dst, with their
// bytes in buf: position i < len(winners) is winner i's reverse entry,
// and the rest are byKey's points.
func (w *pairWriter) build(buf *keyBuffer, dst []pair, from, to int) []pair {
	for i := from; i < to; i++ {
		if i < len(w.winners) {
			p, pl := &w.points[w.winners[i].i], &w.places[w.winners[i].i]
			scope := w.scopes[pl.scope]
			buf.reserve(len(w.ids) + 2*len(p.ID) + 2 + 1 + len(scope) + 9 + 9)
			start := buf.len()
			key := buf.take(composite.AppendString(append(buf.next(), w.ids...), p.ID))
			value := append(buf.next(), gridMarker(pl.grid)...)
			value = composite.AppendUint(append(value, scope...), pl.hash)
			if pl.expires != 0 {
				value = composite.AppendUint(value, uint64(pl.expires))
			}
			value = buf.take(value)
			dst = append(dst, buf.joined(start, key, value))
			continue
		}
		pl := &w.byKey[i-len(w.winners)]
		if !w.won[pl.i] {
			continue
		}
		p := &w.points[pl.i]
		prefix, scope := w.pointPrefix[pl.grid], w.scopes[pl.scope]
		buf.reserve(len(prefix) + len(scope) + 9 + 2*len(p.ID) + 2 + valueSize(p, pl.expires))
		start := buf.len()
		key := append(append(buf.next(), prefix...), scope...)
		key = buf.take(composite.AppendString(composite.AppendUint(key, pl.hash), p.ID))
		value := buf.take(appendValue(buf.next(), p, pl.expires))
		dst = append(dst, buf.joined(start, key, value))
	}
	return dst
}

// placed is where a point's key goes: its key sorts by order (the grid's
// rank in key order, then the scope's rank), then hash, then id.
type placed struct {
	order   uint64
	hash    uint64
	expires int64 // the point's expiry, 0 for none
	grid    grid
	scope   int32 // index into the packed scopes
	i       int32 // index into the points
}

// placeAll checks every point and places it. It returns the packed scopes
// (as one nested tuple each; the first is the empty scope) that
// placed.scope indexes.
func (ix *Index) placeAll(points []Point) ([]placed, [][]byte, error) {
	empty := composite.Tuple{composite.Tuple{}}.Pack()
	scopes := [][]byte{empty}
	scopeIndex := map[string]int32{string(empty): 0}
	places := make([]placed, len(points))
	for i, p := range points {
		if p.ID == "" {
			return nil, nil, fmt.Errorf("point %d: %w", i, errctx.Bare("geo", ErrEmptyID))
		}
		var scope int32
		if len(p.Scope) > 0 {
			packed, err := composite.Tuple{p.Scope}.TryPack()
			if err != nil {
				return nil, nil, fmt.Errorf("point %s: scope: %w", errctx.Quote(p.ID), err)
			}
			var ok bool
			if scope, ok = scopeIndex[string(packed)]; !ok {
				scope = int32(len(scopes))
				scopes = append(scopes, packed)
				scopeIndex[string(packed)] = scope
			}
		}
		expires, err := ix.checkPoint(&points[i], len(scopes[scope])+maxHashBytes)
		if err != nil {
			return nil, nil, err
		}
		g, h := locate(p.Lat, p.Lon)
		places[i] = placed{grid: g, hash: h, expires: expires, scope: scope, i: int32(i)}
	}
	// Rank the scopes as their packed bytes sort.
	byBytes := make([]int32, len(scopes))
	for s := range byBytes {
		byBytes[s] = int32(s)
	}
	slices.SortFunc(byBytes, func(a, b int32) int { return strings.Compare(string(scopes[a]), string(scopes[b])) })
	rank := make([]uint64, len(scopes))
	for r, s := range byBytes {
		rank[s] = uint64(r)
	}
	for i := range places {
		places[i].order = uint64(keyOrder[places[i].grid])<<32 | rank[places[i].scope]
	}
	return places, scopes, nil
}

// lastOfEachID returns the points in id order, keeping only the last
// point given for each id, as sort keys whose i fields index points.
//
// It sorts by eight bytes of each id (sortKey.bits; a radix sort when
// there are many), then sorts runs of equal bytes by the whole id and
// input order. The eight bytes are the ones after the
// prefix every id shares (ids such as "user-1234567" share "user-", and
// their first eight bytes would settle nothing), zero-padded: ids compare
// as those bytes do unless the bytes are equal, and then as strings.
func lastOfEachID(points []Point) []sortKey {
	skip := commonPrefix(points)
	keys := make([]sortKey, len(points))
	for i, p := range points {
		var head [8]byte
		copy(head[:], p.ID[skip:])
		keys[i] = sortKey{binary.BigEndian.Uint64(head[:]), int32(i)}
	}
	keys = sortByBits(keys)
	forEachRun(keys, func(a, b sortKey) bool { return a.bits == b.bits }, func(run []sortKey) {
		slices.SortFunc(run, func(a, b sortKey) int { return compareIDs(points, a.i, b.i) })
	})
	out := keys[:0]
	for n, k := range keys {
		if n+1 < len(keys) && keys[n+1].bits == k.bits && points[keys[n+1].i].ID == points[k.i].ID {
			continue
		}
		out = append(out, k)
	}
	return out
}

// sortPlaces returns places (one per point, in input order) in key order:
// by order, hash and id, and equal keys in input order. It sorts the
// hashes (sortByBits), then stably counting-sorts by order, which takes few values
// (three grids times the distinct scopes), and sorts runs of equal order
// and hash by id.
func sortPlaces(places []placed, points []Point, scopes int) []placed {
	if len(places) == 0 {
		return nil
	}
	keys := make([]sortKey, len(places))
	for i, pl := range places {
		keys[i] = sortKey{pl.hash, int32(i)}
	}
	keys = sortByBits(keys)
	dense := func(pl *placed) int { return int(pl.order>>32)*scopes + int(uint32(pl.order)) }
	start := make([]int, 3*scopes+1)
	for i := range places {
		start[dense(&places[i])+1]++
	}
	for d := 1; d < len(start); d++ {
		start[d] += start[d-1]
	}
	out := make([]placed, len(places))
	for _, k := range keys {
		pl := &places[k.i]
		d := dense(pl)
		out[start[d]] = *pl
		start[d]++
	}
	forEachRun(out, func(a, b placed) bool { return a.order == b.order && a.hash == b.hash }, func(run []placed) {
		slices.SortFunc(run, func(a, b placed) int { return compareIDs(points, a.i, b.i) })
	})
	return out
}

// compareIDs orders points a and b by id, and equal ids by input order
// (so that of equal ids the last given sorts last, and wins).
func compareIDs(points []Point, a, b int32) int {
	if c := strings.Compare(points[a].ID, points[b].ID); c != 0 {
		return c
	}
	return cmp.Compare(a, b)
}

// commonPrefix is the length of the longest prefix every point's id shares.
func commonPrefix(points []Point) int {
	if len(points) == 0 {
		return 0
	}
	first := points[0].ID
	n := len(first)
	for _, p := range points[1:] {
		n = min(n, len(p.ID))
		for i := 0; i < n; i++ {
			if p.ID[i] != first[i] {
				n = i
				break
			}
		}
	}
	return n
}

// keyBuffer hands out keys and values built side by side in large shared
// buffers: reserve room, append to next(), and take the result. A taken
// slice is never written again, so the transaction may keep it.
type keyBuffer struct{ buf []byte }

const keyBufferSize = 1 << 20

// reserve makes room for at least n more bytes.
func (b *keyBuffer) reserve(n int) {
	if cap(b.buf)-len(b.buf) < n {
		b.buf = make([]byte, 0, max(n, keyBufferSize))
	}
}

// len is where the next slice taken will start, for joined.
func (b *keyBuffer) len() int { return len(b.buf) }

// joined is the pair of key and value, the last two slices taken, the key
// taken first at start. When both lie in the buffer back to back, the
// key's capacity reaches over the value: a store that keeps pairs in one
// piece (the memory backend) then keeps these bytes instead of copying
// them. Loading 1,000,000 points into the memory backend ran 14% fewer
// instructions (BenchmarkPutAll); its time, bound by the builders' reads
// of points in key order, moved less than the noise.
func (b *keyBuffer) joined(start int, key, value []byte) pair {
	end := start + len(key) + len(value)
	if len(key) > 0 && end == len(b.buf) && &b.buf[start] == &key[0] && (len(value) == 0 || &b.buf[start+len(key)] == &value[0]) {
		key = b.buf[start : start+len(key) : end]
	}
	return pair{key, value}
}

// next is an empty slice at the end of the buffer to append to.
func (b *keyBuffer) next() []byte { return b.buf[len(b.buf):len(b.buf)] }

// take claims s, which was appended to next(). Had s outgrown the
// reserved room, append moved it to an allocation of its own, which is
// just as good; the buffer is then left as it was.
func (b *keyBuffer) take(s []byte) []byte {
	if rest := b.buf[len(b.buf):cap(b.buf)]; len(s) > 0 && len(s) <= len(rest) && &rest[0] == &s[0] {
		b.buf = b.buf[:len(b.buf)+len(s)]
	}
	return s[:len(s):len(s)]
}
