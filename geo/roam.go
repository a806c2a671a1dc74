package geo

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/internal/errctx"
)

// Roaming: the other points a moving point comes near and leaves, as
// Tile38's roaming geofences (NEARBY fleet FENCE ROAM fleet * 500)
// report them. A roaming fence is a circle of a fixed radius that moves
// with its point; PutRoaming compares the points inside it before and
// after a move, with two radius queries, in the transaction that writes
// the move.

// A Meeting is another point of the index that a moving point came within
// the roaming radius of (Enter), left (Exit) or stayed near (Inside).
type Meeting struct {
	ID       string
	Kind     CrossingKind
	Distance float64 // metres between the two, after the move (from where it was, for a point deleted)
}

// PutRoaming puts p in the index, as Put does, and returns the other
// points of its scope whose distance from it crossed radius metres with
// the move, or stayed within it: Enter for those within radius of p but
// not of where it was, Exit for those within radius of where it was but
// not of p, Inside for those within both, by id. A point new to the index
// (or one that had expired) has no place before, and meets as Enter
// every point near it; a p that has expired already has no place after,
// and every point it was near sees it go (Exit). The other points are
// where the transaction sees them, and those expired by the clock's time
// are left out, as queries leave them.
func (ix *Index) PutRoaming(tx keyspace.Tx, p Point, radius float64) ([]Meeting, error) {
	ms, err := ix.roam(tx, []Point{p}, radius, func() error { return ix.Put(tx, p) })
	if err != nil {
		return nil, err
	}
	return ms[0], nil
}

// PutAllRoaming puts many points, as PutAll does, and returns the
// meetings of each one's move, in the order of points, as PutRoaming
// would: before the batch, the points near where it was, each where it
// was; after it, the points near where it is, each where it is now
// (moved by the batch or not). So two points of one batch that moved
// towards each other meet both ways. Every id must appear once: a
// repeated id is an error that writes nothing.
func (ix *Index) PutAllRoaming(tx keyspace.Tx, points []Point, radius float64) ([][]Meeting, error) {
	seen := make(map[string]bool, len(points))
	for _, p := range points {
		if seen[p.ID] {
			return nil, ix.wrap(fmt.Errorf("%w: point %s appears twice in one PutAllRoaming", ErrBadQuery, errctx.Quote(p.ID)))
		}
		seen[p.ID] = true
	}
	return ix.roam(tx, points, radius, func() error { return ix.PutAll(tx, points) })
}

// DeleteRoaming deletes the point id, as Delete does, and returns the
// other points of its scope that were within radius metres of it: each
// sees it go (Exit), at its distance from where it was. A point the index
// does not hold (or one that has expired) is an error wrapping
// keyspace.ErrNotFound, as Get's.
func (ix *Index) DeleteRoaming(tx keyspace.Tx, id string, radius float64) ([]Meeting, error) {
	if err := ix.checkRoaming(radius); err != nil {
		return nil, err
	}
	p, err := ix.Get(tx, id)
	if err != nil {
		return nil, err
	}
	was, _, err := ix.Radius(tx, p.Lat, p.Lon, radius, &QueryOptions{Scope: p.Scope})
	if err != nil {
		return nil, err
	}
	if err := ix.Delete(tx, id); err != nil {
		return nil, err
	}
	return meetings(p, was, nil, nil), nil
}

// checkRoaming is an error for a roaming radius that is not a
// non-negative, finite number of metres.
func (ix *Index) checkRoaming(radius float64) error {
	if math.IsNaN(radius) || radius < 0 || math.IsInf(radius, 0) {
		return ix.wrap(fmt.Errorf("%w: roaming radius %v must be a non-negative number of metres", ErrBadQuery, radius))
	}
	return nil
}

// roam finds the points near each of points where the index holds it,
// writes the moves with put, finds the points near each where it is, and
// compares the two.
func (ix *Index) roam(tx keyspace.Tx, points []Point, radius float64, put func() error) ([][]Meeting, error) {
	if err := ix.checkRoaming(radius); err != nil {
		return nil, err
	}
	was := make([][]Result, len(points))
	for i, p := range points {
		switch old, err := ix.Get(tx, p.ID); {
		case err == nil:
			if was[i], _, err = ix.Radius(tx, old.Lat, old.Lon, radius, &QueryOptions{Scope: old.Scope}); err != nil {
				return nil, err
			}
		case !errors.Is(err, keyspace.ErrNotFound):
			return nil, err
		}
	}
	if err := put(); err != nil {
		return nil, err
	}
	// Where the moved points are now: a point that was near one of them
	// and is not may be one of them. The rest of the index stayed put.
	now := time.Now()
	live := func(p Point) bool { return p.Expires.IsZero() || p.Expires.After(now) }
	var moved map[string]Point
	if len(points) > 1 {
		moved = make(map[string]Point, len(points))
		for _, p := range points {
			if live(p) {
				moved[p.ID] = p
			}
		}
	}
	out := make([][]Meeting, len(points))
	for i, p := range points {
		var is []Result
		if live(p) { // an expired point is near nothing
			var err error
			if is, _, err = ix.Radius(tx, p.Lat, p.Lon, radius, &QueryOptions{Scope: p.Scope}); err != nil {
				return nil, err
			}
		}
		out[i] = meetings(p, was[i], is, moved)
	}
	return out, nil
}

// meetings compares the points near p before its move (was) and after it
// (is), leaving p out: by id, with each one's distance from p after the
// move. A point that was near and is not is measured from where moved
// has it (a point of the same batch, PutAllRoaming), else from where it
// was, as the move left it there (or it has expired).
func meetings(p Point, was, is []Result, moved map[string]Point) []Meeting {
	near := make(map[string]bool, len(is))
	var out []Meeting
	for _, r := range is {
		if r.ID != p.ID {
			near[r.ID] = true
			out = append(out, Meeting{ID: r.ID, Kind: Enter, Distance: r.Distance})
		}
	}
	before := make(map[string]bool, len(was))
	for _, r := range was {
		if r.ID == p.ID {
			continue
		}
		before[r.ID] = true
		if near[r.ID] {
			continue
		}
		at, ok := moved[r.ID]
		if !ok {
			at = r.Point
		}
		out = append(out, Meeting{ID: r.ID, Kind: Exit, Distance: Distance(p.Lat, p.Lon, at.Lat, at.Lon)})
	}
	for i := range out {
		if out[i].Kind == Enter && before[out[i].ID] {
			out[i].Kind = Inside
		}
	}
	slices.SortFunc(out, func(a, b Meeting) int { return strings.Compare(a.ID, b.ID) })
	return out
}
