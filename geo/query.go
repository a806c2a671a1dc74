package geo

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
)

// Result is a point found by a query, with its distance from the query's
// centre in metres.
type Result struct {
	Point
	Distance float64
}

// Stats is what a query cost: the figure to drive towards one candidate per
// result.
type Stats struct {
	Cells      int // cells in the covering
	Ranges     int // key ranges scanned (adjacent cells merged)
	Candidates int // keys read
	Results    int // points returned
}

// QueryOptions are shared by every query.
type QueryOptions struct {
	Scope    composite.Tuple // the scope the points were put under
	Limit    int             // at most this many results (nearest first); 0 for all
	MaxCells int             // covering budget; 0 for DefaultMaxCells
}

// circle is the region within angle θ (radians) of a centre.
type circle struct {
	lat, lon, θ float64
}

func (c circle) classify(r rect) (outside, inside bool) {
	if r.minAngle(c.lat, c.lon) > c.θ {
		return true, false
	}
	return false, r.maxAngle(c.lat, c.lon) <= c.θ
}

// Radius returns the points within radius metres of (lat, lon), nearest
// first, ties by id.
func (ix *Index) Radius(tx keyspace.Tx, lat, lon, radius float64, opts *QueryOptions) ([]Result, Stats, error) {
	var o QueryOptions
	if opts != nil {
		o = *opts
	}
	if err := validate(lat, lon); err != nil {
		return nil, Stats{}, ix.wrap(err)
	}
	if math.IsNaN(radius) || radius < 0 || math.IsInf(radius, -1) {
		return nil, Stats{}, ix.wrap(fmt.Errorf("%w: radius %v must be a non-negative number of metres", ErrBadQuery, radius))
	}
	if o.Limit < 0 {
		return nil, Stats{}, ix.wrap(fmt.Errorf("%w: negative limit %d", ErrBadQuery, o.Limit))
	}
	if o.MaxCells <= 0 {
		o.MaxCells = DefaultMaxCells
	}
	reg := circle{lat: lat, lon: lon, θ: math.Min(radius/EarthRadius, math.Pi)}
	cells := cover(reg, o.MaxCells)
	runs := spans(cells)
	st := Stats{Cells: len(cells), Ranges: len(runs)}
	var out []Result
	for _, s := range runs {
		err := ix.scanSpan(tx, o.Scope, s, &st, func(p Point) {
			if d := Distance(lat, lon, p.Lat, p.Lon); d <= radius {
				out = append(out, Result{Point: p, Distance: d})
			}
		})
		if err != nil {
			return nil, st, err
		}
	}
	sortResults(out)
	if o.Limit > 0 && len(out) > o.Limit {
		out = out[:o.Limit]
	}
	st.Results = len(out)
	return out, st, nil
}

// scanSpan reads every point of one geohash span under scope.
func (ix *Index) scanSpan(tx keyspace.Tx, scope composite.Tuple, s span, st *Stats, fn func(Point)) error {
	base := append(composite.Tuple{}, scope...)
	r := keyspace.Range{Start: ix.points.Pack(append(base, s.lo))}
	if s.hi == math.MaxUint64 {
		r.End = ix.points.RangeOf(scope).End
	} else {
		r.End = ix.points.Pack(append(base, s.hi+1))
	}
	for k, v := range tx.Scan(r) {
		st.Candidates++
		p, err := ix.decode(k, v)
		if err != nil {
			return err
		}
		fn(p)
	}
	if err := tx.Err(); err != nil {
		return ix.wrap(err)
	}
	return nil
}

// sortResults orders by distance, then id.
func sortResults(rs []Result) {
	slices.SortFunc(rs, func(a, b Result) int {
		return cmp.Or(cmp.Compare(a.Distance, b.Distance), cmp.Compare(a.ID, b.ID))
	})
}
