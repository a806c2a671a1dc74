package geo

import (
	"fmt"
	"math"

	"github.com/keyspacedb/keyspace"
)

// RadiusFixedGrid answers a radius query the way Redis GEO does, and exists
// as the baseline the adaptive covering is measured against: it picks one
// geohash precision from the radius (Redis's geohashEstimateStepsByRadius,
// at most 26 bits per axis), takes the query's cell and its eight
// neighbours, drops neighbours the circle's bounding box does not reach and
// scans the rest, filtering by distance. Points in the polar caps (which
// Redis keeps under geohashes too) are read through the caps' own grids.
// Results are exact for the points it reads; like Redis it can miss points
// across a pole, which Radius does not. Use Radius.
func (ix *Index) RadiusFixedGrid(tx keyspace.Tx, lat, lon, radius float64, opts *QueryOptions) ([]Result, Stats, error) {
	var o QueryOptions
	if opts != nil {
		o = *opts
	}
	if err := validate(lat, lon); err != nil {
		return nil, Stats{}, ix.wrap(err)
	}
	if math.IsNaN(radius) || radius < 0 || math.IsInf(radius, 0) {
		return nil, Stats{}, ix.wrap(fmt.Errorf("%w: radius %v must be a non-negative number of metres", ErrBadQuery, radius))
	}
	if err := o.checkAfter(); err != nil {
		return nil, Stats{}, ix.wrap(err)
	}
	cells := gridCells(lat, lon, radius)
	st := Stats{Cells: len(cells), Ranges: len(cells)}
	points, err := ix.scoped(o.Scope)
	if err != nil {
		return nil, Stats{}, ix.wrap(err)
	}
	found := ix.newHits(points.scope, &o)
	defer ix.release(found)
	found.edge.init(lat, lon, radius)
	test := &found.edge
	scan := func(g grid, lo, hi uint64) error {
		return ix.scanWith(tx, &found.visit, points.hashRangeIn(&found.bounds, g, lo, hi), &st, test, found)
	}
	for _, c := range cells {
		if lo, hi := c.span(); !inCapRows(c) {
			if err := scan(geohashGrid, lo, hi); err != nil {
				return nil, st, err
			}
		}
	}
	// Points in the polar caps are not under geohashes: where the block
	// reaches a cap's rows, read the cap's part of the circle through its
	// own grid, as Radius does.
	var capCells []coveredCell
	c := newCircle(lat, lon, radius)
	if c.box.MaxLat >= CapLatitude-1e-6 || c.box.MinLat <= -CapLatitude+1e-6 {
		for _, cc := range cover(c, DefaultMaxCells) {
			if cc.grid != geohashGrid {
				capCells = append(capCells, cc)
			}
		}
	}
	st.Cells += len(capCells)
	for _, s := range spans(c, capCells) {
		st.Ranges++
		if err := scan(s.grid, s.lo, s.hi); err != nil {
			return nil, st, err
		}
	}
	out := found.results(o.Limit, o.Into)
	st.Results = len(out)
	return out, st, nil
}

// gridCells is Redis's 3×3 block for a radius query (geohash_helper.c,
// geohashCalculateAreasByShapeWGS84), in our 64-bit geohashes.
func gridCells(lat, lon, radius float64) []cell {
	const mercatorMax = 20037726.37
	step := 1
	for r := radius; r < mercatorMax && radius > 0; r *= 2 {
		step++
	}
	step -= 2
	if lat > 66 || lat < -66 {
		step--
		if lat > 80 || lat < -80 {
			step--
		}
	}
	if radius == 0 {
		step = 26
	}
	step = max(1, min(26, step))
	// The circle's bounding box, as Redis computes it.
	dLat := radius / EarthRadius * 180 / math.Pi
	dLon := dLat / math.Cos(rad(lat))
	minLat, maxLat, minLon, maxLon := lat-dLat, lat+dLat, lon-dLon, lon+dLon

	block := func(step int) (centre rect, cells [3][3]*cell) {
		bits := uint(2 * step)
		c := cell{hash: encode(lat, lon) >> (MaxBits - bits), bits: bits}
		centre = c.bounds()
		h, w := centre.MaxLat-centre.MinLat, centre.MaxLon-centre.MinLon
		cLat, cLon := (centre.MinLat+centre.MaxLat)/2, (centre.MinLon+centre.MaxLon)/2
		for i := -1; i <= 1; i++ {
			for j := -1; j <= 1; j++ {
				nLat := cLat + float64(i)*h
				if nLat < -90 || nLat > 90 {
					continue
				}
				n := cell{hash: encode(nLat, wrap(cLon+float64(j)*w)) >> (MaxBits - bits), bits: bits}
				cells[i+1][j+1] = &n
			}
		}
		return centre, cells
	}
	centre, cells := block(step)
	// Decrease the step once if the neighbours do not reach the box.
	if step > 1 && (centre.MaxLat+(centre.MaxLat-centre.MinLat) < maxLat || centre.MinLat-(centre.MaxLat-centre.MinLat) > minLat ||
		centre.MaxLon+(centre.MaxLon-centre.MinLon) < maxLon || centre.MinLon-(centre.MaxLon-centre.MinLon) > minLon) {
		step--
		centre, cells = block(step)
	}
	// Exclude the neighbours the box does not reach.
	if step >= 2 {
		drop := func(i, j int) { cells[i][j] = nil }
		for k := 0; k < 3; k++ {
			if centre.MinLat < minLat {
				drop(0, k)
			}
			if centre.MaxLat > maxLat {
				drop(2, k)
			}
			if centre.MinLon < minLon {
				drop(k, 0)
			}
			if centre.MaxLon > maxLon {
				drop(k, 2)
			}
		}
	}
	var out []cell
	seen := map[cell]bool{}
	for i := range cells {
		for _, c := range cells[i] {
			if c != nil && !seen[*c] {
				seen[*c] = true
				out = append(out, *c)
			}
		}
	}
	return out
}
