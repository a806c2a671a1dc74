package geo

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"time"

	"github.com/keyspacedb/keyspace"
)

// A Cursor is a place in a query's order, nearest the centre first (or
// farthest, with QueryOptions.FarthestFirst) and ties by id: where a page
// of results ended. QueryOptions.After asks a query for the results after
// it, so results come a page at a time:
//
//	opts := &geo.QueryOptions{Limit: 20}
//	page, _, err := ix.Radius(tx, lat, lon, 5000, opts)
//	// … later, in any transaction:
//	opts.After = geo.CursorAfter(page, opts.After)
//	next, _, err := ix.Radius(tx, lat, lon, 5000, opts)
//
// A cursor is a position, not an offset, as FoundationDB's continuations
// are (Tile38's cursor is an offset: a later page re-reads and skips, and
// a point added nearer the centre shifts every later page). A page never
// repeats a result of an earlier one, and a point added or moved between
// pages is seen on a later page exactly when it sorts after the cursor.
// The next page reads only what lies beyond the cursor: Radius, Box,
// BoxAround and Within leave out the covering's cells nearer the centre
// than Distance (farther, when farthest first), and Nearest reads a ring
// from Distance outwards (see nearestAfter). A deep page costs more than
// the first, but far less than asking for every result before it: on
// 1,000,000 clustered points the 101st page of 10 nearest took a quarter
// of the time of asking for the 1,010 nearest (BenchmarkNearestPages).
type Cursor struct {
	Distance float64 // metres from the query's centre, as Result.Distance
	ID       string  // the last result's id: results at Distance come after it by id
	// Rank is how many results the pages up to the cursor held, or 0 if
	// not known. Results never depend on it; Nearest uses it to guess how
	// far beyond Distance its next k lie (the density of the disk within
	// Distance).
	Rank int
}

// CursorAfter returns the cursor after page, a page of results asked for
// with QueryOptions.After set to prev (nil for the first page): the last
// result's distance and id, and prev's Rank plus the page's length. An
// empty page has nothing after it, and CursorAfter returns prev.
func CursorAfter(page []Result, prev *Cursor) *Cursor {
	if len(page) == 0 {
		return prev
	}
	last := page[len(page)-1]
	c := &Cursor{Distance: last.Distance, ID: last.ID, Rank: len(page)}
	if prev != nil {
		c.Rank += prev.Rank
	}
	return c
}

func (c *Cursor) validate() error {
	if math.IsNaN(c.Distance) || c.Distance < 0 || math.IsInf(c.Distance, 0) {
		return fmt.Errorf("%w: cursor distance %v must be a non-negative number of metres", ErrBadQuery, c.Distance)
	}
	if c.Rank < 0 {
		return fmt.Errorf("%w: cursor rank %d is negative", ErrBadQuery, c.Rank)
	}
	return nil
}

// cursorVersion is the first byte of every token.
const cursorVersion = 1

// Token encodes c as an opaque, URL-safe string for a client to send
// back, tied to query: any text that names the query the cursor belongs
// to (its kind, index, scope, centre, radius or region, and filter), as
// the command line builds from its flags. ParseCursor rejects the token
// for any other query text, so a token is never resumed against a query
// it was not made for.
func (c Cursor) Token(query string) string {
	b := make([]byte, 0, 1+8+8+binary.MaxVarintLen64+len(c.ID))
	b = append(b, cursorVersion)
	b = binary.BigEndian.AppendUint64(b, queryHash(query))
	b = binary.BigEndian.AppendUint64(b, math.Float64bits(c.Distance))
	b = binary.AppendUvarint(b, uint64(min(c.Rank, math.MaxInt32))) // a hint: capped, not refused
	b = append(b, c.ID...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// ParseCursor decodes a token made by Cursor.Token for the same query
// text. A token that is damaged, of another version, or made for another
// query is an error wrapping keyspace.ErrBadCursor.
func ParseCursor(token, query string) (*Cursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(b) < 17 || b[0] != cursorVersion {
		return nil, fmt.Errorf("%w: not a geo query's cursor token", keyspace.ErrBadCursor)
	}
	if binary.BigEndian.Uint64(b[1:9]) != queryHash(query) {
		return nil, fmt.Errorf("%w: it belongs to another geo query", keyspace.ErrBadCursor)
	}
	c := &Cursor{Distance: math.Float64frombits(binary.BigEndian.Uint64(b[9:17]))}
	rank, n := binary.Uvarint(b[17:])
	if n <= 0 || rank > math.MaxInt32 {
		return nil, fmt.Errorf("%w: damaged rank", keyspace.ErrBadCursor)
	}
	c.Rank, c.ID = int(rank), string(b[17+n:])
	if err := c.validate(); err != nil {
		return nil, fmt.Errorf("%w: %w", keyspace.ErrBadCursor, err)
	}
	return c, nil
}

func queryHash(query string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(query))
	return h.Sum64()
}

// beyond is the part of a region that a page after a cursor may hold: its
// cells wholly nearer the centre than the cursor's distance are outside,
// and a cell inside the region is inside only if it lies wholly beyond
// that distance, so that the covering splits the cells across the
// cursor's circle as it splits those across the region's edge. For a
// query farthest first (inward) the roles turn: cells wholly farther than
// the cursor are outside, and a cell is inside only if it lies wholly
// nearer. Which points at the cursor's distance come after it (by id) is
// the query's test, in hits.admitted.
//
// Its covering budget is twice its region's: it has two edges to follow.
// On 20,000 clustered points, a page of a radius query after 290 of its
// results (its circle 1.2 times the cursor's distance, so that 44% of
// its area lies beyond the cursor) read 89% of the candidates of its
// first page with the region's 16 cells, 58% with 32 and 46% with 48
// (TestDeepPagesReadBeyondTheCursor).
type beyond struct {
	reg    region
	centre ref
	// Haversine thresholds of the cursor's angle θ, shaded as a circle's
	// are (see circle): a cell is nearer than the cursor when its upper
	// bound is below hNear, and beyond it when its lower bound exceeds
	// hFar.
	hNear, hFar float64
	inward      bool // the query is farthest first: what comes after the cursor is nearer
}

// newBeyond is the part of reg after a cursor at distance metres from
// (lat, lon): farther than it, or nearer when inward.
func newBeyond(reg region, lat, lon, distance float64, inward bool) *beyond {
	θ := min(distance/EarthRadius, math.Pi)
	s := math.Sin(max(0, θ-1e-12) / 2)
	return &beyond{reg: reg, centre: newRef(lat, lon), hNear: s * s * (1 - 1e-9), hFar: havAbove(θ), inward: inward}
}

func (b *beyond) classify(r rect) (outside, inside bool) {
	outside, inside = b.reg.classify(r)
	if outside {
		return true, false
	}
	lo, hi := b.centre.havBounds(r)
	if b.inward {
		if lo > b.hFar {
			return true, false
		}
		return false, inside && hi < b.hNear
	}
	if hi < b.hNear {
		return true, false
	}
	return false, inside && lo > b.hFar
}

func (b *beyond) contains(lat, lon float64) bool { return b.reg.contains(lat, lon) }
func (b *beyond) boundingBox() Box               { return b.reg.boundingBox() }

// afterCursor reports whether the record r comes after the query's
// cursor: farther from the centre (nearer, farthest first), or as far
// with a greater id.
func (h *hits) afterCursor(r *hit) bool {
	if r.distance != h.after.Distance {
		return r.distance > h.after.Distance != h.farthest
	}
	return bytes.Compare(h.ids[r.id[0]:r.id[1]], h.afterID) > 0
}

// nearestAfter is Nearest for the k points after a cursor: radius
// queries over a ring from the cursor's distance out, each leaving out
// what lies before the cursor (beyond), of a growing width until one
// finds k points or reaches round the sphere. Every point of the ring
// after the cursor is read, so the k nearest of them are the answer when
// there are k.
//
// The first ring's width is a guess from the cursor's Rank: n points
// within distance r of the centre suggest a density of n/(πr²), at which
// a ring out to r·√(1+2k/n) holds 2k points more. With no rank it is r
// (or 100 m at r = 0). A ring that holds fewer than k doubles its width.
// Seeding as the first page does (the points near the centre in key
// order) would read the points before the cursor, which is what a cursor
// is for not reading.
func (ix *Index) nearestAfter(tx keyspace.Tx, lat, lon float64, k int, within float64, o QueryOptions) ([]Result, Stats, error) {
	r := o.After.Distance
	width := max(r, 100)
	if n := float64(o.After.Rank); n > 0 && r > 0 {
		width = max(r*(math.Sqrt(1+2*float64(k)/n)-1), 1)
	}
	if o.Now.IsZero() {
		o.Now = time.Now() // one instant for every ring
	}
	width /= 2
	return ix.growRadius(tx, lat, lon, k, within, o, Stats{}, func(int) (float64, int) {
		width *= 2
		outer := min(r+width, within)
		return outer, ringCells(r, outer-r)
	})
}

// ringCells is the covering budget of nearestAfter's ring from r to
// r + w metres: 8·√(r/w) cells, or DefaultMaxCells when that is more.
//
// A ring far narrower than its radius is long. Cells x times as wide as
// the ring (x ≥ 1) cover it in about 4π(r/w)/x of them, one row along
// each of its two circles, and read about x times its points. The cells
// cost a·4π(r/w)/x and the candidates b·2k·x (a ring holds some 2k
// points, nearestAfter's guess), least at x = √(2πa(r/w)/(bk)), with
// cells ∝ √(r/w). nearestAfter's rings have r/w about the pages read so
// far, so a deep page costs more than the first by the square root of the
// pages before it, not by the pages. On 200,000 clustered points (20
// centres, memory), the 100th page of 10 nearest read 32 candidates a
// result in 59 µs with this budget, 152 in 83 µs with 16 cells (the
// default), and 4.7 in 760 µs with 16·r/w cells; the 100th page of 100
// nearest read 31 in 288 µs, 139 in 1.0 ms and 4.8 in 790 µs. 4·(r/w)^⅔
// measured the same.
func ringCells(r, w float64) int {
	if w <= 0 { // a cursor at the antipode: no ring beyond it
		return DefaultMaxCells
	}
	return max(DefaultMaxCells, int(min(8*math.Sqrt(r/w), 2048)))
}
