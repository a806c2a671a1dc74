package geo

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
)

// hits gathers the results of a Radius, Box, BoxAround or Within query
// while its ranges are scanned, in a form that costs a few appends per
// result: each result's id is unescaped into one shared byte buffer and its
// payload copied into another, and a narrow record (distance, coordinates,
// where its bytes lie) goes into a slice. Only when the scans are done are
// the records sorted and turned into Results, with one allocation for all
// the ids (a single string, which the ids are substrings of), one for the
// payloads and one for the slice of Results.
//
// Building a Result per candidate instead (a string, a payload copy and an
// 88-byte struct appended to a growing slice, then permuted by the sort)
// was a third of a 10 km radius query. The buffers are kept in the Index's
// pool between queries (newHits, release), so a query grows none of them
// once the pool holds buffers of its size; Results never share them.
type hits struct {
	scope    composite.Tuple  // shared by every result
	filter   func(Point) bool // QueryOptions.Filter, or nil
	after    *Cursor          // QueryOptions.After, or nil
	farthest bool             // QueryOptions.FarthestFirst
	afterID  []byte           // after.ID
	plain    bool             // neither a filter nor a cursor: admit need test only an expiry
	enough   int              // stop the scan at this many results (QueryOptions.Any); 0 never
	budget   int              // stop the scan after reading this many candidates (Radius with a limit); 0 never
	// tally, if set, is given each admitted point's coordinates instead
	// of its record being kept: CellCounts counts them and returns no
	// results.
	tally    func(lat, lon float64)
	asOf     time.Time // QueryOptions.Now
	now      int64     // the time points expire by (clock), 0 until a point with an expiry is read
	rejected int       // points read in the region that an expiry or the filter left out
	ids      []byte    // the ids, unescaped, back to back
	payloads []byte    // the payloads, back to back
	recs     []hit
	order    []sortKey        // the sort of recs (results)
	spare    []sortKey        // the radix sort's other buffer
	bounds   []byte           // the bounds of the ranges being scanned (hashRangeIn, appendHashRange)
	ranges   []keyspace.Range // the ranges of the covering being scanned
	visit    candidates       // the visitor of the ranges being scanned (search, scanWith)
	// The query's candidate tests: every point of a cell inside the
	// region, and a circle's.
	inside, edge radiusTest
	// Where Radius and Box build their regions.
	circle circle
	box    boxRegion
	cover  coverer // the query's covering
}

// hit is one result while it is being collected.
type hit struct {
	distance    float64
	lat, lon    float64
	expires     int64    // nanoseconds since 1970, 0 for none
	id, payload [2]int32 // [start, end) in hits.ids and hits.payloads
}

// newHits returns empty hits for results in scope that have not expired
// at o.Now and that o.Filter keeps, with buffers from the pool when it has
// some.
func (ix *Index) newHits(scope composite.Tuple, o *QueryOptions) *hits {
	h, _ := ix.buffers.Get().(*hits)
	if h == nil {
		h = new(hits)
	}
	h.scope, h.filter, h.asOf = scope, o.Filter, o.Now
	h.after, h.plain, h.farthest = o.After, o.Filter == nil && o.After == nil, o.FarthestFirst
	if o.After != nil {
		h.afterID = append(h.afterID[:0], o.After.ID...)
	}
	return h
}

// release empties h and gives its buffers back to the pool. h must not be
// used afterwards.
func (ix *Index) release(h *hits) {
	h.scope, h.filter, h.asOf, h.now, h.rejected = nil, nil, time.Time{}, 0, 0
	h.after, h.plain, h.enough, h.farthest, h.tally, h.budget = nil, false, 0, false, nil, 0
	h.ids, h.payloads, h.recs = h.ids[:0], h.payloads[:0], h.recs[:0]
	ix.buffers.Put(h)
}

// clock is the time points expire by: QueryOptions.Now, or the clock's
// time when the query first asks (once per query, and only a query that
// reads a point with an expiry asks).
func (h *hits) clock() int64 {
	if h.now == 0 {
		t := h.asOf
		if t.IsZero() {
			t = time.Now()
		}
		h.now = max(t.UnixNano(), 1) // 0 means not read yet
	}
	return h.now
}

// admit reports whether the record added last comes after the query's
// cursor, has not expired and h's filter keeps it, and drops it if not.
// For a point with no expiry and a query with neither a filter nor a
// cursor it is two tests, inlined where a query keeps a candidate.
func (h *hits) admit() bool {
	return h.plain && h.recs[len(h.recs)-1].expires == 0 || h.admitted()
}

// admitted is admit's tests of the cursor and the expiry and call of the
// filter. The filter sees the point's id (a new string) and its payload in
// h's buffer, which the next add may move: valid only during the call. A
// point before the cursor is not counted as rejected: it was an answer,
// on an earlier page.
func (h *hits) admitted() bool {
	r := &h.recs[len(h.recs)-1]
	if h.after != nil && !h.afterCursor(r) {
		h.drop()
		return false
	}
	if r.expires != 0 && r.expires <= h.clock() || h.filter != nil && !h.filter(h.point(r)) {
		h.rejected++
		h.drop()
		return false
	}
	return true
}

// point is the record r as a Point whose id is a new string and whose
// payload lies in h's buffer.
func (h *hits) point(r *hit) Point {
	p := Point{ID: string(h.ids[r.id[0]:r.id[1]]), Lat: r.lat, Lon: r.lon, Scope: h.scope}
	if r.payload[1] > r.payload[0] {
		p.Payload = h.payloads[r.payload[0]:r.payload[1]:r.payload[1]]
	}
	if r.expires != 0 {
		p.Expires = time.Unix(0, r.expires)
	}
	return p
}

// add records the point under key (whose first prefix bytes are its
// range's shared prefix) with value v at distance d. The key after the
// prefix must be exactly a hash element and a string id.
func (h *hits) add(key []byte, prefix int, v []byte, d float64) error {
	if len(key) < prefix {
		return fmt.Errorf("corrupt point key %q: shorter than its prefix", key)
	}
	_, rest, err := composite.NextElement(key[prefix:])
	if err != nil {
		return fmt.Errorf("corrupt point key %q: hash: %w", key, err)
	}
	start := len(h.ids)
	h.ids, rest, err = composite.AppendUnpackedString(h.ids, rest)
	if err != nil {
		h.ids = h.ids[:start]
		return fmt.Errorf("corrupt point key %q: id: %w", key, err)
	}
	if len(rest) > 0 {
		h.ids = h.ids[:start]
		return fmt.Errorf("corrupt point key %q: %d bytes after the id", key, len(rest))
	}
	expires, payload, err := valueRest(v)
	if err != nil {
		h.ids = h.ids[:start]
		return fmt.Errorf("corrupt point value under key %q: %w", key, err)
	}
	pstart := len(h.payloads)
	h.payloads = append(h.payloads, payload...)
	lat, lon := valueCoords(v)
	h.recs = append(h.recs, hit{
		distance: d,
		lat:      lat,
		lon:      lon,
		expires:  expires,
		id:       [2]int32{int32(start), int32(len(h.ids))},
		payload:  [2]int32{int32(pstart), int32(len(h.payloads))},
	})
	return nil
}

// drop forgets the record added last.
func (h *hits) drop() {
	r := &h.recs[len(h.recs)-1]
	h.ids, h.payloads = h.ids[:r.id[0]], h.payloads[:r.payload[0]]
	h.recs = h.recs[:len(h.recs)-1]
}

// results sorts the hits by distance (farthest first if h.farthest),
// then id, and returns the first limit of them (all when limit is 0) as
// Results, which share no memory with h, written into into's array when
// it has room (QueryOptions.Into).
func (h *hits) results(limit int, into []Result) []Result {
	order, spare := sortHits(h.order, h.spare, h.recs, h.ids)
	h.order, h.spare = order[:0], spare[:0]
	if h.farthest {
		farthestFirst(order, h.recs)
	}
	if limit > 0 && len(order) > limit {
		order = order[:limit]
	}
	return h.resultsIn(order, into)
}

// resultsOf returns the records best names (a k-nearest or farthest
// search's best) as results does its records: sorted by distance
// (farthest first if h.farthest), then id.
func (h *hits) resultsOf(best []int32, into []Result) []Result {
	keys := h.order[:0]
	for _, i := range best {
		keys = append(keys, sortKey{i: i})
	}
	keys, spare := sortSome(keys, h.spare, h.recs, h.ids)
	h.order, h.spare = keys[:0], spare[:0]
	if h.farthest {
		farthestFirst(keys, h.recs)
	}
	return h.resultsIn(keys, into)
}

// resultsIn returns the records that order names (by their i), in that
// order, as Results that share no memory with h: one string holds their
// ids and one slice their payloads. When order names every record (a
// query without a limit) those are copies of h's buffers whole; otherwise
// (a limit, or k nearest of the many read) only the named records' bytes
// are copied. The Results are written into into's array when it has room.
func (h *hits) resultsIn(order []sortKey, into []Result) []Result {
	if len(order) == 0 {
		return into[:0]
	}
	var allIDs string
	var allPayloads []byte
	whole := len(order) == len(h.recs) // the copies are h's buffers, records where they lie there
	if whole {
		allIDs, allPayloads = string(h.ids), bytes.Clone(h.payloads)
	} else {
		idBytes, payloadBytes := 0, 0
		for _, k := range order {
			r := &h.recs[k.i]
			idBytes += int(r.id[1] - r.id[0])
			payloadBytes += int(r.payload[1] - r.payload[0])
		}
		var ids strings.Builder
		ids.Grow(idBytes)
		allPayloads = make([]byte, 0, payloadBytes)
		for _, k := range order {
			r := &h.recs[k.i]
			ids.Write(h.ids[r.id[0]:r.id[1]])
			allPayloads = append(allPayloads, h.payloads[r.payload[0]:r.payload[1]]...)
		}
		allIDs = ids.String()
	}
	out := slices.Grow(into[:0], len(order))[:len(order)]
	var id, payload [2]int32 // where the record's bytes lie in the copies
	for i, k := range order {
		r := &h.recs[k.i]
		if whole {
			id, payload = r.id, r.payload
		} else { // back to back, in order
			id = [2]int32{id[1], id[1] + r.id[1] - r.id[0]}
			payload = [2]int32{payload[1], payload[1] + r.payload[1] - r.payload[0]}
		}
		out[i] = Result{
			Point: Point{
				ID:    allIDs[id[0]:id[1]],
				Lat:   r.lat,
				Lon:   r.lon,
				Scope: h.scope,
			},
			Distance: r.distance,
		}
		if payload[1] > payload[0] {
			out[i].Payload = allPayloads[payload[0]:payload[1]:payload[1]]
		}
		if r.expires != 0 {
			out[i].Expires = time.Unix(0, r.expires)
		}
	}
	return out
}
