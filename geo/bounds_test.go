package geo

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/storetest"
)

// TestBoundsAgainstBruteForce: on clustered, polar and antimeridian point
// sets, alone and filtered, with some points expired, Bounds gives the
// latitudes' minimum and maximum, holds every point (bruteInBox), counts
// them, and is as narrow in longitude as the narrowest arc a brute-force
// search over every point's longitude as the west edge finds.
func TestBoundsAgainstBruteForce(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(17, 18))
		now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
		for _, set := range syntheticSets(r, 400) {
			t.Run(set.name, func(t *testing.T) {
				ix := NewIndex(set.name)
				points := set.points
				for i := range points {
					if i%9 == 0 {
						points[i].Expires = now.Add(-time.Minute)
					}
				}
				load(t, s, ix, points)
				for _, suffix := range []string{"", "1", "77"} {
					keep := func(p Point) bool { return strings.HasSuffix(p.ID, suffix) && p.Expires.IsZero() }
					opts := &QueryOptions{Now: now}
					if suffix != "" {
						opts.Filter = func(p Point) bool { return strings.HasSuffix(p.ID, suffix) }
					}
					var got Box
					var n int
					var err error
					s.View(func(tx keyspace.Tx) error { got, n, err = ix.Bounds(tx, opts); return nil })
					if err != nil {
						t.Fatal(err)
					}
					checkBounds(t, fmt.Sprintf("suffix %q", suffix), got, n, points, keep)
				}
			})
		}
	})
}

// TestBoundsEdges: across ±180° the box crosses; points at 180° and -180°
// are on one meridian, a box 0° wide; a box reaching ±180° from either side
// does not cross it; an empty index gives a zero box; options that
// cut results are refused.
func TestBoundsEdges(t *testing.T) {
	s := keyspace.NewMemory()
	for _, c := range []struct {
		name   string
		points []Point
		want   Box
	}{
		{"across ±180°", []Point{{ID: "a", Lat: 1, Lon: 179}, {ID: "b", Lat: -2, Lon: -179}}, Box{MinLat: -2, MinLon: 179, MaxLat: 1, MaxLon: -179}},
		{"not across", []Point{{ID: "a", Lat: 1, Lon: -10}, {ID: "b", Lat: 2, Lon: 10}}, Box{MinLat: 1, MinLon: -10, MaxLat: 2, MaxLon: 10}},
		{"one meridian", []Point{{ID: "a", Lat: 0, Lon: 180}, {ID: "b", Lat: 0, Lon: -180}}, Box{MinLat: 0, MinLon: 180, MaxLat: 0, MaxLon: 180}},
		{"east to ±180", []Point{{ID: "a", Lat: 0, Lon: 0}, {ID: "b", Lat: 0, Lon: 45}, {ID: "c", Lat: 0, Lon: 180}, {ID: "d", Lat: 0, Lon: -180}}, Box{MinLat: 0, MinLon: 0, MaxLat: 0, MaxLon: 180}},
		{"west from ±180", []Point{{ID: "a", Lat: 0, Lon: -10}, {ID: "b", Lat: 0, Lon: 180}, {ID: "c", Lat: 0, Lon: -180}}, Box{MinLat: 0, MinLon: -180, MaxLat: 0, MaxLon: -10}},
		{"a pole", []Point{{ID: "a", Lat: 90, Lon: 0}}, Box{MinLat: 90, MinLon: 0, MaxLat: 90, MaxLon: 0}},
		{"none", nil, Box{}},
	} {
		ix := NewIndex(strings.ReplaceAll(c.name, " ", "-"))
		if err := s.Update(func(tx keyspace.Tx) error { return ix.PutAll(tx, c.points) }); err != nil {
			t.Fatal(err)
		}
		s.View(func(tx keyspace.Tx) error {
			got, n, err := ix.Bounds(tx, nil)
			if err != nil || got != c.want || n != len(c.points) {
				t.Errorf("%s: %+v, %d, %v; want %+v, %d", c.name, got, n, err, c.want, len(c.points))
			}
			if _, _, err := ix.Bounds(tx, &QueryOptions{Limit: 1}); !errors.Is(err, ErrBadQuery) {
				t.Errorf("%s: Bounds with a Limit: %v", c.name, err)
			}
			return nil
		})
	}
}

// checkBounds checks Bounds' box and count against brute force over the
// points in keeps: the latitudes' extremes, every point inside
// (bruteInBox), and a width in longitude no more than the narrowest arc
// found by trying every point's longitude as the west edge.
func checkBounds(t *testing.T, what string, got Box, n int, points []Point, in func(Point) bool) {
	t.Helper()
	var kept []Point
	for _, p := range points {
		if in(p) {
			kept = append(kept, p)
		}
	}
	if n != len(kept) {
		t.Fatalf("%s: %d points; brute force %d", what, n, len(kept))
	}
	if len(kept) == 0 {
		if got != (Box{}) {
			t.Fatalf("%s: no points, box %+v", what, got)
		}
		return
	}
	minLat, maxLat := 90.0, -90.0
	for _, p := range kept {
		minLat, maxLat = math.Min(minLat, p.Lat), math.Max(maxLat, p.Lat)
		if !bruteInBox(got, p) {
			t.Fatalf("%s: box %+v leaves out %+v", what, got, p)
		}
	}
	if got.MinLat != minLat || got.MaxLat != maxLat {
		t.Fatalf("%s: latitudes %v…%v; brute force %v…%v", what, got.MinLat, got.MaxLat, minLat, maxLat)
	}
	narrowest := 360.0
	for _, w := range kept {
		span := 0.0
		for _, p := range kept {
			span = math.Max(span, math.Mod(p.Lon-w.Lon+720, 360))
		}
		narrowest = math.Min(narrowest, span)
	}
	width := got.MaxLon - got.MinLon
	if got.MinLon > got.MaxLon {
		width += 360
		if got.MinLon == 180 || got.MaxLon == -180 {
			t.Fatalf("%s: box %+v crosses ±180° from or to ±180° itself", what, got)
		}
	}
	if math.Abs(width-narrowest) > 1e-9 {
		t.Fatalf("%s: box %+v is %v° wide; the narrowest arc is %v°", what, got, width, narrowest)
	}
}
