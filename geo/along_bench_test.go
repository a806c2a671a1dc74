package geo_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/geo"
	"github.com/keyspacedb/keyspace/internal/workload"
	"github.com/keyspacedb/keyspace/storetest"
	"github.com/paulmach/orb"
)

// BenchmarkAlong: the points within 100 m, 1 km and 5 km of routes of 20
// positions, each a step of about 2 km in a direction that turns a little
// at each position (a drive of some 40 km through a cluster), and within
// 100 m of GPS tracks of 5,000 positions 50 m apart, on clustered points
// on both backends; and the 1 and 10 points nearest the routes
// (NearestAlong).
func BenchmarkAlong(b *testing.B) {
	pts := benchPoints(b)
	routes := benchRoutes(pts, 200, 20, 2000)
	tracks := benchRoutes(pts, 20, 5000, 50)
	for _, be := range storetest.Backends() {
		b.Run(be.Name, func(b *testing.B) {
			s := be.Open(b)
			ix := geo.NewIndex("bench")
			loadBench(b, s, ix, pts)
			for _, radius := range []float64{100, 1000, 5000} {
				b.Run(fmt.Sprintf("radius=%gm", radius), func(b *testing.B) {
					alongLoop(b, s, func(tx keyspace.Tx, i int) (geo.Stats, error) {
						_, st, err := ix.Along(tx, routes[i%len(routes)], radius, nil)
						return st, err
					})
				})
			}
			b.Run("track=5000/radius=100m", func(b *testing.B) {
				alongLoop(b, s, func(tx keyspace.Tx, i int) (geo.Stats, error) {
					_, st, err := ix.Along(tx, tracks[i%len(tracks)], 100, nil)
					return st, err
				})
			})
			for _, k := range []int{1, 10, 100} {
				b.Run(fmt.Sprintf("nearest=%d", k), func(b *testing.B) {
					alongLoop(b, s, func(tx keyspace.Tx, i int) (geo.Stats, error) {
						_, st, err := ix.NearestAlong(tx, routes[i%len(routes)], k, nil)
						return st, err
					})
				})
			}
		})
	}
}

// alongLoop times query, each in a View of its own, and reports
// candidates read per result, results and ranges per query.
func alongLoop(b *testing.B, s keyspace.Store, query func(tx keyspace.Tx, i int) (geo.Stats, error)) {
	var cand, res, ranges int
	for i := 0; b.Loop(); i++ {
		s.View(func(tx keyspace.Tx) error {
			st, err := query(tx, i)
			if err != nil {
				b.Fatal(err)
			}
			cand, res, ranges = cand+st.Candidates, res+st.Results, ranges+st.Ranges
			return nil
		})
	}
	b.ReportMetric(float64(cand)/float64(max(res, 1)), "candidates/result")
	b.ReportMetric(float64(res)/float64(b.N), "results/op")
	b.ReportMetric(float64(ranges)/float64(b.N), "ranges/op")
}

// benchRoutes returns n routes of the given positions, each starting at
// a point of pts and stepping about step metres at a time.
func benchRoutes(pts []workload.Point, n, positions int, step float64) []orb.LineString {
	r := rand.New(rand.NewPCG(5, 6))
	routes := make([]orb.LineString, n)
	for i := range routes {
		p := pts[r.IntN(len(pts))]
		lat, lon := p.Lat, p.Lon
		heading := r.Float64() * 2 * math.Pi
		ls := orb.LineString{{lon, lat}}
		for len(ls) < positions {
			heading += r.NormFloat64() * 0.3
			d := step * (0.5 + r.Float64()) / geo.EarthRadius * 180 / math.Pi
			lat = min(89.9, max(-89.9, lat+d*math.Cos(heading)))
			lon += d * math.Sin(heading) / math.Cos(lat*math.Pi/180)
			lon = math.Mod(lon+540, 360) - 180
			ls = append(ls, orb.Point{lon, lat})
		}
		routes[i] = ls
	}
	return routes
}

// BenchmarkNearPolygon: the points within 100 m and 1 km of hexagons 20
// km across round clustered points (NearPolygon), on both backends,
// against the points inside the same hexagons (Within) in the same run;
// and the 10 points nearest hexagons 200 m across (NearestPolygon).
func BenchmarkNearPolygon(b *testing.B) {
	pts := benchPoints(b)
	r := rand.New(rand.NewPCG(7, 8))
	// hexagon is the hexagon round (lat, lon) with corners metres from it.
	hexagon := func(lat, lon, metres float64) orb.Polygon {
		dLat := metres / geo.EarthRadius * 180 / math.Pi
		dLon := dLat / math.Cos(lat*math.Pi/180)
		var ring orb.Ring
		for k := range 7 {
			a := float64(k%6) * math.Pi / 3
			ring = append(ring, orb.Point{lon + dLon*math.Cos(a), lat + dLat*math.Sin(a)})
		}
		return orb.Polygon{ring}
	}
	hexagons := make([]orb.Polygon, 200)
	small := make([]orb.Polygon, len(hexagons)) // 200 m across: most hold fewer than 10 points
	for i := range hexagons {
		p := pts[r.IntN(len(pts))]
		hexagons[i], small[i] = hexagon(p.Lat, p.Lon, 10_000), hexagon(p.Lat, p.Lon, 100)
	}
	for _, be := range storetest.Backends() {
		b.Run(be.Name, func(b *testing.B) {
			s := be.Open(b)
			ix := geo.NewIndex("bench")
			loadBench(b, s, ix, pts)
			b.Run("within", func(b *testing.B) {
				alongLoop(b, s, func(tx keyspace.Tx, i int) (geo.Stats, error) {
					_, st, err := ix.Within(tx, hexagons[i%len(hexagons)], nil)
					return st, err
				})
			})
			for _, buffer := range []float64{100, 1000} {
				b.Run(fmt.Sprintf("buffer=%gm", buffer), func(b *testing.B) {
					alongLoop(b, s, func(tx keyspace.Tx, i int) (geo.Stats, error) {
						_, st, err := ix.NearPolygon(tx, hexagons[i%len(hexagons)], buffer, nil)
						return st, err
					})
				})
			}
			b.Run("nearest=10", func(b *testing.B) {
				alongLoop(b, s, func(tx keyspace.Tx, i int) (geo.Stats, error) {
					_, st, err := ix.NearestPolygon(tx, small[i%len(small)], 10, nil)
					return st, err
				})
			})
		})
	}
}
