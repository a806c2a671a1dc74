package geo

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/storetest"
	"github.com/paulmach/orb"
)

// TestFencesPassed: routes of 2 to 5 legs, some across ±180° or near a
// pole, against circles round points near them, on both backends.
// Passed must name exactly Along's fences, in order of At, and each At
// must lie where sampling the route every 20 m (Vincenty distances to
// the circle's centre) puts the first point within the radius: no later
// than the first sample surely within it, no earlier than the first
// sample within 20 m of it, each give or take a metre and a part in a
// million of the route.
func TestFencesPassed(t *testing.T) {
	r := rand.New(rand.NewPCG(81, 82))
	const step = 20.0
	starts := [][2]float64{{45, 7}, {0, 179.9}, {89.7, 30}, {-30, -60}}
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		checked := 0
		for n := range 24 {
			start := starts[n%len(starts)]
			lat, lon := start[0], start[1]
			line := orb.LineString{{lon, lat}}
			for range 1 + r.IntN(4) {
				lat, lon = destination(lat, lon, 2_000+r.Float64()*15_000, r.Float64()*2*math.Pi)
				line = append(line, orb.Point{lon, lat})
			}
			radius := []float64{0, 100, 2_000}[n%3]
			// Circles round points within 5 km of the route.
			var fences []Fence
			for i := range 20 {
				j := r.IntN(len(line) - 1)
				at, _ := oracleEdge(line[j].Lat(), line[j].Lon(), line[j+1].Lat(), line[j+1].Lon())
				clat, clon := at(r.Float64())
				clat, clon = destination(clat, clon, r.Float64()*5_000, r.Float64()*2*math.Pi)
				fences = append(fences, Fence{ID: fmt.Sprintf("c%02d", i), Circle: &Circle{Lat: clat, Lon: clon, Radius: 200 + r.Float64()*2_000}})
			}
			fs := NewFences(fmt.Sprint("route", n))
			if err := s.Update(func(tx keyspace.Tx) error { return fs.PutAll(tx, fences) }); err != nil {
				t.Fatal(err)
			}
			s.View(func(tx keyspace.Tx) error {
				got, err := fs.Passed(tx, line, radius)
				if err != nil {
					t.Fatal(err)
				}
				along, err := fs.Along(tx, line, radius)
				if err != nil {
					t.Fatal(err)
				}
				var ids []string
				for i, p := range got {
					ids = append(ids, p.ID)
					if i > 0 && (p.At < got[i-1].At || p.At == got[i-1].At && p.ID < got[i-1].ID) {
						t.Fatalf("route %d: out of order: %+v", n, got)
					}
				}
				slices.Sort(ids)
				if !slices.Equal(ids, along) {
					t.Fatalf("route %d: Passed %v, Along %v", n, ids, along)
				}
				for _, p := range got {
					c := fences[slices.IndexFunc(fences, func(f Fence) bool { return f.ID == p.ID })].Circle
					lo, hi, length := passedOracle(line, c, radius, step)
					slack := 1 + 1e-6*length
					if p.At > hi+slack || p.At < lo-step-slack {
						t.Fatalf("route %d, radius %g, %s %+v: At %.3f m; sampling puts the first point within between %.3f and %.3f", n, radius, p.ID, c, p.At, lo-step, hi)
					}
					checked++
				}
				return nil
			})
		}
		if checked < 100 {
			t.Fatalf("only %d fences passed: too few to mean much", checked)
		}
	})
}

// passedOracle walks line in steps of at most step metres (Vincenty
// distances along its edges, straight in longitude and latitude) and
// returns the distance along it of the first sample within step of
// radius of the circle c (lo), of the first surely within radius (hi;
// +Inf if none), and the line's length.
func passedOracle(line orb.LineString, c *Circle, radius, step float64) (lo, hi, length float64) {
	lo, hi = math.Inf(1), math.Inf(1)
	for i := 1; i < len(line); i++ {
		at, _ := oracleEdge(line[i-1].Lat(), line[i-1].Lon(), line[i].Lat(), line[i].Lon())
		plat, plon := at(0)
		// Steps by t, fine enough that none is longer than step.
		n := 1000
		for k := 0; k <= n; k++ {
			lat, lon := at(float64(k) / float64(n))
			length += vincenty(plat, plon, lat, lon)
			plat, plon = lat, lon
			d := vincenty(c.Lat, c.Lon, lat, lon) - c.Radius // below 0 inside
			if d <= radius+step && math.IsInf(lo, 1) {
				lo = length
			}
			if d <= radius-0.01 && math.IsInf(hi, 1) {
				hi = length
			}
		}
	}
	return lo, hi, length
}

// TestFencesPassedCases: a drive along the equator from 0° to 1° east
// passes fences of every kind where their definitions put them: a box
// across it, a box beside it reached only by the radius, a polygon's
// westmost vertex on it, a road across it widened by a kilometre, and a
// sector pointing back west along it; a fence holding the start is at 0.
func TestFencesPassedCases(t *testing.T) {
	deg := EarthRadius * math.Pi / 180 // metres a degree along the equator
	fences := []Fence{
		{ID: "box across", Box: &Box{MinLat: -0.1, MinLon: 0.3, MaxLat: 0.1, MaxLon: 0.4}},
		{ID: "box beside", Box: &Box{MinLat: 0.01, MinLon: 0.5, MaxLat: 0.3, MaxLon: 0.6}},
		{ID: "triangle", Polygon: orb.Polygon{{{0.7, 0}, {0.75, 0.05}, {0.75, -0.05}, {0.7, 0}}}},
		{ID: "road", Corridor: &Corridor{Line: orb.LineString{{0.8, -1}, {0.8, 1}}, Radius: 1000}},
		{ID: "sector", Sector: &Sector{Lat: 0, Lon: 0.9, Radius: 5000, From: 260, To: 280}},
		{ID: "start", Circle: &Circle{Lat: 0.001, Lon: 0, Radius: 500}},
	}
	radius := 0.01 * deg // reaches the box beside the road at 0.5°
	want := map[string]float64{
		"start": 0, "box across": 0.3*deg - radius, "box beside": 0.5 * deg, "triangle": 0.7*deg - radius,
		"road": 0.8*deg - 1000 - radius, "sector": 0.9*deg - 5000 - radius,
	}
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		fs := NewFences("cases")
		if err := s.Update(func(tx keyspace.Tx) error { return fs.PutAll(tx, fences) }); err != nil {
			t.Fatal(err)
		}
		s.View(func(tx keyspace.Tx) error {
			got, err := fs.Passed(tx, orb.LineString{{0, 0}, {1, 0}}, radius)
			if err != nil || len(got) != len(want) {
				t.Fatalf("Passed: %+v, %v", got, err)
			}
			for i, p := range got {
				if math.Abs(p.At-want[p.ID]) > 1.5 || i > 0 && p.At < got[i-1].At {
					t.Errorf("%s at %.3f m, want %.3f (%+v)", p.ID, p.At, want[p.ID], got)
				}
			}
			return nil
		})
	})
}
