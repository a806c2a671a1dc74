package geo

import (
	"fmt"
	"maps"
	"slices"

	"github.com/mmcloughlin/geohash"

	"github.com/keyspacedb/keyspace"
)

// A CellCount is one cell of CellCounts: a standard geohash cell, how many
// of the points asked about lie in it, and where they lie on average.
type CellCount struct {
	Hash     string  // the cell's geohash, of the precision asked for
	Count    int     // the points in the cell
	Lat, Lon float64 // the mean of their coordinates: where a map puts the cluster's marker
	Bounds   Box     // the cell's rectangle
}

// MaxCellPrecision is the longest geohash CellCounts groups by: 12
// characters, 60 bits, cells of about 4 cm.
const MaxCellPrecision = 12

// CellCounts counts the points in b by the standard geohash cell of
// precision characters (1 to MaxCellPrecision) that holds each, as
// Elasticsearch's geohash_grid aggregation does: the clusters of a map's
// markers at one zoom level, or a heat map, without returning the points.
// Cells come in geohash order, only those holding a point. The points are
// those Box would return (b may cross ±180°; the poles are points like any
// other): opts' Scope, Filter and Now apply, and its Limit, After, Any,
// FarthestFirst and Into, which order or cut results, are refused
// (ErrBadQuery). Stats count the cells the query covered b with, not the
// cells returned, and Results counts the points counted.
//
// Each point's cell is computed from its coordinates: a cell at
// precision p is the first 5p bits of the point's 64-bit geohash
// (mmcloughlin/geohash), the bits the index orders its keys by between the
// caps, as Geohash computes it: latitude 90 in the northernmost row and
// longitude 180 in the easternmost column, not (as the library alone
// would put them) at −90 and −180. A cell does not cross ±180°, so its
// points' mean longitude is their plain mean.
func (ix *Index) CellCounts(tx keyspace.Tx, b Box, precision int, opts *QueryOptions) ([]CellCount, Stats, error) {
	if precision < 1 || precision > MaxCellPrecision {
		return nil, Stats{}, ix.wrap(fmt.Errorf("%w: geohash precision %d: want 1 to %d characters", ErrBadQuery, precision, MaxCellPrecision))
	}
	if err := b.validate(); err != nil {
		return nil, Stats{}, ix.wrap(err)
	}
	o, err := wholeRegion(opts, "CellCounts counts every point in the box")
	if err != nil {
		return nil, Stats{}, ix.wrap(err)
	}
	type sum struct {
		n        int
		lat, lon float64
	}
	bits := uint(5 * precision)
	cells := map[uint64]*sum{}
	points := 0
	lat, lon := b.centre()
	_, st, err := ix.search(tx, lat, lon, o, func(h *hits) region {
		h.tally = func(lat, lon float64) {
			points++
			c := encode(lat, lon) >> (MaxBits - bits) // not geohash.EncodeInt: latitude 90 is no cell at −90
			s := cells[c]
			if s == nil {
				s = new(sum)
				cells[c] = s
			}
			s.n++
			s.lat += lat
			s.lon += lon
		}
		return h.box.init(b)
	})
	if err != nil {
		return nil, st, err
	}
	st.Results = points
	out := make([]CellCount, 0, len(cells))
	for _, c := range slices.Sorted(maps.Keys(cells)) {
		s := cells[c]
		r := geohash.BoundingBoxIntWithPrecision(c, bits)
		out = append(out, CellCount{
			Hash:   geohash.ConvertIntToString(c, uint(precision)),
			Count:  s.n,
			Lat:    s.lat / float64(s.n),
			Lon:    s.lon / float64(s.n),
			Bounds: Box{MinLat: r.MinLat, MinLon: r.MinLng, MaxLat: r.MaxLat, MaxLon: r.MaxLng},
		})
	}
	return out, st, nil
}

// wholeRegion is opts for a query that reads every point of its region
// (CellCounts, Bounds), which what, saying so, refuses options that order
// or cut results: Limit, After, Any, FarthestFirst and Into.
func wholeRegion(opts *QueryOptions, what string) (*QueryOptions, error) {
	var o QueryOptions
	if opts != nil {
		o = *opts
	}
	if o.Limit != 0 || o.After != nil || o.Any || o.FarthestFirst || o.Into != nil {
		return nil, fmt.Errorf("%w: %s: no Limit, After, Any, FarthestFirst or Into", ErrBadQuery, what)
	}
	return &o, nil
}
