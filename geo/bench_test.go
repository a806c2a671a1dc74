package geo_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/geo"
	"github.com/keyspacedb/keyspace/internal/workload"
	"github.com/keyspacedb/keyspace/storetest"
)

// benchPoints is the size of the benchmark data set: 1,000,000 clustered
// points unless KEYSPACE_BENCH_POINTS says otherwise.
func benchPoints(b *testing.B) []workload.Point {
	n, err := workload.BenchSize(1_000_000)
	if err != nil {
		b.Fatal(err)
	}
	pts, err := workload.Generate(workload.Clustered, n, 1)
	if err != nil {
		b.Fatal(err)
	}
	return pts
}

// loadBench imports the points in one PutAll, as `keyspace import` and the
// bench runner do.
func loadBench(b *testing.B, s keyspace.Store, ix *geo.Index, pts []workload.Point) {
	points := make([]geo.Point, len(pts))
	for i, p := range pts {
		points[i] = geo.Point{ID: p.ID, Lat: p.Lat, Lon: p.Lon}
	}
	if err := s.Update(func(tx keyspace.Tx) error { return ix.PutAll(tx, points) }); err != nil {
		b.Fatal(err)
	}
}

// benchCentres are 1,000 query centres near the points, as real queries
// are: points moved about a kilometre at random.
func benchCentres(pts []workload.Point) []workload.Point {
	r := rand.New(rand.NewPCG(2, 3))
	centres := make([]workload.Point, 1000)
	for i := range centres {
		p := pts[r.IntN(len(pts))]
		centres[i] = workload.Point{Lat: min(90, max(-90, p.Lat+r.NormFloat64()*0.01)), Lon: min(180, max(-180, p.Lon+r.NormFloat64()*0.01))}
	}
	return centres
}

type queryFunc func(tx keyspace.Tx, lat, lon float64) ([]geo.Result, geo.Stats, error)

// runQueries times fn over query centres near the data and reports
// candidates read per result.
func runQueries(b *testing.B, s keyspace.Store, centres []workload.Point, fn queryFunc) {
	var cand, res, ranges int
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		c := centres[i%len(centres)]
		s.View(func(tx keyspace.Tx) error {
			_, st, err := fn(tx, c.Lat, c.Lon)
			if err != nil {
				b.Fatal(err)
			}
			cand += st.Candidates
			res += st.Results
			ranges += st.Ranges
			return nil
		})
	}
	b.ReportMetric(float64(cand)/float64(max(res, 1)), "candidates/result")
	b.ReportMetric(float64(res)/float64(b.N), "results/op")
	b.ReportMetric(float64(ranges)/float64(b.N), "ranges/op")
}

// BenchmarkQueries: radius 1, 10, 100 km and k nearest 10 and 100 on
// clustered points, on both backends, next to Redis's fixed 3×3 geohash
// block and a brute-force scan of a slice measured in the same run.
// adaptive-into passes each query's Results back as the next one's
// QueryOptions.Into (run with -benchmem to see what that saves); any-1
// asks for the first point found (QueryOptions.Any).
func BenchmarkQueries(b *testing.B) {
	pts := benchPoints(b)
	centres := benchCentres(pts)
	radii := []float64{1000, 10_000, 100_000}
	for _, be := range storetest.Backends() {
		b.Run(be.Name, func(b *testing.B) {
			s := be.Open(b)
			ix := geo.NewIndex("bench")
			loadBench(b, s, ix, pts)
			for _, radius := range radii {
				name := fmt.Sprintf("radius=%gkm", radius/1000)
				b.Run(name+"/adaptive", func(b *testing.B) {
					runQueries(b, s, centres, func(tx keyspace.Tx, lat, lon float64) ([]geo.Result, geo.Stats, error) {
						return ix.Radius(tx, lat, lon, radius, nil)
					})
				})
				b.Run(name+"/adaptive-into", func(b *testing.B) {
					var into []geo.Result // each query's Results, the next one's Into
					runQueries(b, s, centres, func(tx keyspace.Tx, lat, lon float64) ([]geo.Result, geo.Stats, error) {
						rs, st, err := ix.Radius(tx, lat, lon, radius, &geo.QueryOptions{Into: into})
						if cap(rs) > cap(into) {
							into = rs
						}
						return rs, st, err
					})
				})
				b.Run(name+"/any-1", func(b *testing.B) { // is any point that near? (Redis's COUNT 1 ANY)
					runQueries(b, s, centres, func(tx keyspace.Tx, lat, lon float64) ([]geo.Result, geo.Stats, error) {
						return ix.Radius(tx, lat, lon, radius, &geo.QueryOptions{Limit: 1, Any: true})
					})
				})
				b.Run(name+"/grid3x3", func(b *testing.B) {
					runQueries(b, s, centres, func(tx keyspace.Tx, lat, lon float64) ([]geo.Result, geo.Stats, error) {
						return ix.RadiusFixedGrid(tx, lat, lon, radius, nil)
					})
				})
			}
			for _, k := range []int{10, 100} {
				b.Run(fmt.Sprintf("knn=%d/best-first", k), func(b *testing.B) {
					runQueries(b, s, centres, func(tx keyspace.Tx, lat, lon float64) ([]geo.Result, geo.Stats, error) {
						return ix.Nearest(tx, lat, lon, k, nil)
					})
				})
			}
		})
	}
	// Brute force needs no store: every point, every query.
	for _, radius := range radii {
		b.Run(fmt.Sprintf("brute/radius=%gkm", radius/1000), func(b *testing.B) {
			var res int
			for i := 0; b.Loop(); i++ {
				c := centres[i%len(centres)]
				for _, p := range pts {
					if geo.Distance(c.Lat, c.Lon, p.Lat, p.Lon) <= radius {
						res++
					}
				}
			}
			b.ReportMetric(float64(len(pts))*float64(b.N)/float64(max(res, 1)), "candidates/result")
		})
	}
	b.Run("brute/knn=10", func(b *testing.B) {
		ds := make([]float64, len(pts))
		for i := 0; b.Loop(); i++ {
			c := centres[i%len(centres)]
			for j, p := range pts {
				ds[j] = geo.Distance(c.Lat, c.Lon, p.Lat, p.Lon)
			}
			slices.Sort(ds)
		}
	})
}
