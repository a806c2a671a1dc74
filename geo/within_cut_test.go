package geo

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"
)

// TestWithinCutAtAntimeridian: a MultiPolygon cut at ±180°, as RFC 7946
// asks of an area across it, finds what brute force finds, measured from
// the middle of its parts taken together across the cut (their areas'
// centroid with the western part moved 360° east), not from their planar
// centroid half a world away; parts that do not straddle ±180° are still
// measured from their planar centroid.
func TestWithinCutAtAntimeridian(t *testing.T) {
	s := keyspace.NewMemory()
	ix := NewIndex("cut")
	r := rand.New(rand.NewPCG(51, 3))
	var points []Point
	for i := range 3000 {
		points = append(points, Point{ID: fmt.Sprint("p", i), Lat: r.Float64()*30 - 15, Lon: wrap(160 + r.Float64()*40)})
	}
	for i := range 500 {
		points = append(points, Point{ID: fmt.Sprint("q", i), Lat: r.Float64()*30 - 15, Lon: r.Float64()*40 - 5})
	}
	load(t, s, ix, points)
	rect := func(west, east float64) orb.Polygon {
		return orb.Polygon{{{west, -10}, {east, -10}, {east, 10}, {west, 10}, {west, -10}}}
	}
	for _, c := range []struct {
		name     string
		parts    orb.MultiPolygon
		box      [][2]float64 // the parts as longitude ranges, for brute force
		lat, lon float64      // the centre, worked out by hand
	}{
		// 10° by 20° east of the cut and 5° by 20° west of it: their
		// centroids at 175° and 182.5°, weighted 2:1, give 177.5°.
		{"across", orb.MultiPolygon{rect(170, 180), rect(-180, -175)}, [][2]float64{{170, 180}, {-180, -175}}, 0, 177.5},
		{"west heavy", orb.MultiPolygon{rect(175, 180), rect(-180, -165)}, [][2]float64{{175, 180}, {-180, -165}}, 0, -175},
		// Apart, not across: the planar centroid, 10° by 20° at 5° and
		// 20° by 20° at 30°, weighted 1:2.
		{"apart", orb.MultiPolygon{rect(0, 10), rect(20, 40)}, [][2]float64{{0, 10}, {20, 40}}, 0, 65.0 / 3},
		// Half a world apart either way (185° moved): the planar
		// centroid of 10° at 5° and 4° at −177°, weighted 5:2, is −47°.
		{"half a world", orb.MultiPolygon{rect(0, 10), rect(-179, -175)}, [][2]float64{{0, 10}, {-179, -175}}, 0, -47},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []Result
			err := s.View(func(tx keyspace.Tx) error {
				var err error
				got, _, err = ix.Within(tx, c.parts, nil)
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]float64{}
			for _, p := range points {
				for _, b := range c.box {
					if p.Lat >= -10 && p.Lat <= 10 && p.Lon >= b[0] && p.Lon <= b[1] {
						want[p.ID] = Distance(c.lat, c.lon, p.Lat, p.Lon)
					}
				}
			}
			if len(got) != len(want) || len(want) < 50 {
				t.Fatalf("%d results, brute force %d", len(got), len(want))
			}
			for i, res := range got {
				d, ok := want[res.ID]
				if !ok || res.Distance < d-1e-6 || res.Distance > d+1e-6 {
					t.Fatalf("result %s at %.3f m; brute force: in %v, %.3f m from (%v, %v)", res.ID, res.Distance, ok, d, c.lat, c.lon)
				}
				if i > 0 && got[i-1].Distance > res.Distance {
					t.Fatalf("results out of order at %d", i)
				}
			}
		})
	}
}

// withinCentre is the point Within measures from, worked out apart from
// polygonRegion.centre: orb's planar centroid of the polygons, or, where
// the parts span more than 180° of longitude and moving those centred
// west of 0° by 360° east brings them within 180°, of the moved parts.
func withinCentre(g orb.Geometry) orb.Point {
	c, _ := planar.CentroidArea(g)
	mp, ok := g.(orb.MultiPolygon)
	if !ok || mp.Bound().Max[0]-mp.Bound().Min[0] <= 180 {
		return c
	}
	moved := orb.MultiPolygon{}
	for _, p := range mp {
		p = p.Clone()
		if pc, _ := planar.CentroidArea(p); pc[0] < 0 {
			for _, ring := range p {
				for i := range ring {
					ring[i][0] += 360
				}
			}
		}
		moved = append(moved, p)
	}
	if moved.Bound().Max[0]-moved.Bound().Min[0] > 180 {
		return c
	}
	m, _ := planar.CentroidArea(moved)
	if m[0] > 180 {
		m[0] -= 360
	}
	return m
}
