package geo

import (
	"slices"

	"github.com/keyspacedb/keyspace"
)

// Bounds returns the smallest box holding every point opts asks about
// (its Scope, Filter and Now apply, as to a query), and how many points
// that is: Tile38's BOUNDS, to fit a map to an index. With none it returns
// a zero Box and 0.
//
// The box crosses ±180° (MinLon > MaxLon) when that makes it narrower:
// points at 179° and -179° are 2° of longitude apart, not 358°, which is
// what a plain minimum and maximum (Tile38's) would say. The longitudes
// are sorted and the widest gap between neighbours, the one round the back
// of the Earth included, is what the box leaves out; on a tie the box
// does not cross ±180°. It reads every point (a query of the whole Earth),
// and sorts their longitudes: 153,728 cities take about as long as that
// query.
//
// Limit, After, Any, FarthestFirst and Into, which order or cut results,
// are refused (ErrBadQuery).
func (ix *Index) Bounds(tx keyspace.Tx, opts *QueryOptions) (Box, int, error) {
	o, err := wholeRegion(opts, "Bounds reads every point")
	if err != nil {
		return Box{}, 0, ix.wrap(err)
	}
	b := Box{MinLat: 90, MaxLat: -90}
	var lons []float64
	world := Box{MinLat: -90, MinLon: -180, MaxLat: 90, MaxLon: 180}
	_, _, err = ix.search(tx, 0, 0, o, func(h *hits) region {
		h.tally = func(lat, lon float64) {
			b.MinLat, b.MaxLat = min(b.MinLat, lat), max(b.MaxLat, lat)
			lons = append(lons, lon)
		}
		return h.box.init(world)
	})
	if err != nil || len(lons) == 0 {
		return Box{}, 0, err
	}
	b.MinLon, b.MaxLon = lonBounds(lons)
	return b, len(lons), nil
}

// lonBounds returns the narrowest arc of longitude, west edge then east,
// that holds every one of lons (at least one), which it sorts: the
// complement of the widest gap between neighbours round the circle. The
// gap from the last round to the first wins ties, so the arc crosses ±180°
// only when that is narrower, and never from or to ±180° itself.
func lonBounds(lons []float64) (west, east float64) {
	slices.Sort(lons)
	n := len(lons)
	west, east = lons[0], lons[n-1]
	widest := lons[0] + 360 - lons[n-1] // round the back, across ±180°
	for i := 1; i < n; i++ {
		if gap := lons[i] - lons[i-1]; gap > widest {
			widest, west, east = gap, lons[i], lons[i-1]
		}
	}
	// An arc that crosses ±180° from or to the meridian itself is the
	// same arc without crossing: 0° east to -180° is 0° to 180°, and 180°
	// east to -10° is -180° to -10°. Points all on ±180° give 180° to 180°.
	if west > east {
		if east == -180 {
			east = 180
		} else if west == 180 {
			west = -180
		}
	}
	return west, east
}
