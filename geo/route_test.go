package geo

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/paulmach/orb"
)

// TestRouteLocate: routes of 2 to 6 legs (randomLine's, across ±180°
// and over the poles, legs from 10 m to 2,000 km) and points near and
// far from them. Length must be the sum of Vincenty distances over fine
// steps along the edges; Locate's point must be as near as the nearest
// of those samples (less a millimetre) and no nearer than it less a
// step; and where the nearest sample is clearly nearest (no sample
// farther along or back than three steps comes within two steps of its
// distance), Locate's distance along must be that sample's, to within a
// step and a part in a million.
func TestRouteLocate(t *testing.T) {
	r := rand.New(rand.NewPCG(83, 84))
	starts := [][2]float64{{45, 7}, {0, 179.9}, {89.7, 30}, {-30, -60}}
	located := 0
	for n := range 60 {
		st := starts[n%len(starts)]
		line := randomLine(r, st[0], st[1])
		route, err := NewRoute(line)
		if err != nil {
			t.Fatal(err)
		}
		// The oracle's samples: a thousand steps an edge.
		type sample struct{ lat, lon, along float64 }
		var samples []sample
		length, step := 0.0, 0.0
		for i := 1; i < len(line); i++ {
			at, _ := oracleEdge(line[i-1].Lat(), line[i-1].Lon(), line[i].Lat(), line[i].Lon())
			plat, plon := at(0)
			for k := 0; k <= 1000; k++ {
				lat, lon := at(float64(k) / 1000)
				d := vincenty(plat, plon, lat, lon)
				length, step = length+d, max(step, d)
				samples = append(samples, sample{lat, lon, length})
				plat, plon = lat, lon
			}
		}
		if math.Abs(route.Length()-length) > 1e-6*length+1e-3 {
			t.Fatalf("route %d %v: length %.6f m, the oracle %.6f", n, line, route.Length(), length)
		}
		for range 10 {
			s := samples[r.IntN(len(samples))]
			lat, lon := destination(s.lat, s.lon, r.ExpFloat64()*20_000, r.Float64()*2*math.Pi)
			along, off, err := route.Locate(lat, lon)
			if err != nil {
				t.Fatal(err)
			}
			nearest := 0
			ds := make([]float64, len(samples))
			for i, s := range samples {
				if ds[i] = vincenty(lat, lon, s.lat, s.lon); ds[i] < ds[nearest] {
					nearest = i
				}
			}
			if slack := 1e-3 + 1e-9*off; off > ds[nearest]+slack || off < ds[nearest]-step-slack {
				t.Fatalf("route %d, point %v, %v: %.3f m off the route; its nearest sample %.3f m (steps of %.1f m)", n, lat, lon, off, ds[nearest], step)
			}
			clear := true
			for i, d := range ds {
				if math.Abs(samples[i].along-samples[nearest].along) > 3*step && d <= ds[nearest]+2*step {
					clear = false
					break
				}
			}
			if !clear {
				continue
			}
			if math.Abs(along-samples[nearest].along) > step+1e-6*length+1e-3 {
				t.Fatalf("route %d, point %v, %v: %.3f m along; its nearest sample %.3f m along (steps of %.1f m)", n, lat, lon, along, samples[nearest].along, step)
			}
			located++
		}
	}
	if located < 150 {
		t.Fatalf("only %d points had one nearest place: too few to mean much", located)
	}
	if _, err := NewRoute(orb.LineString{{0, 0}}); !errors.Is(err, ErrBadQuery) {
		t.Errorf("a route of one position: %v", err)
	}
	route, _ := NewRoute(orb.LineString{{0, 0}, {1, 0}})
	if _, _, err := route.Locate(91, 0); !errors.Is(err, ErrInvalidPoint) {
		t.Errorf("Locate(91, 0): %v", err)
	}
}
