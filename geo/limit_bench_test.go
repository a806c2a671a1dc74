package geo_test

import (
	"fmt"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/geo"
	"github.com/keyspacedb/keyspace/storetest"
)

// BenchmarkRadiusLimit: the nearest 1, 10 or 100 points within 0.1 to
// 1000 km (Redis's GEOSEARCH … BYRADIUS r ASC COUNT n) on clustered
// points in memory. A circle that holds many more points than the limit
// is read until that has cost what the k-nearest search would, and then
// that search answers (Index.Radius); candidates/result shows which.
func BenchmarkRadiusLimit(b *testing.B) {
	pts := benchPoints(b)
	centres := benchCentres(pts)
	s := keyspace.NewMemory()
	ix := geo.NewIndex("limit")
	loadBench(b, s, ix, pts)
	for _, km := range []float64{0.1, 1, 10, 100, 1000} {
		for _, limit := range []int{1, 10, 100} {
			b.Run(fmt.Sprintf("%gkm-limit-%d", km, limit), func(b *testing.B) {
				runQueries(b, s, centres, func(tx keyspace.Tx, lat, lon float64) ([]geo.Result, geo.Stats, error) {
					return ix.Radius(tx, lat, lon, km*1000, &geo.QueryOptions{Limit: limit})
				})
			})
		}
	}
}

// BenchmarkRadiusFarthest: the farthest 10 points within 1 to 1000 km
// (Redis's GEOSEARCH … BYRADIUS r DESC COUNT 10) on clustered points, on
// both backends, next to the whole circle read and sorted farthest
// first, which is what Redis does and what a limit cost before the
// branch and bound (Index.Radius with FarthestFirst and a Limit).
func BenchmarkRadiusFarthest(b *testing.B) {
	pts := benchPoints(b)
	centres := benchCentres(pts)
	for _, be := range storetest.Backends() {
		b.Run(be.Name, func(b *testing.B) {
			s := be.Open(b)
			ix := geo.NewIndex("farthest")
			loadBench(b, s, ix, pts)
			for _, km := range []float64{1, 10, 100, 1000} {
				b.Run(fmt.Sprintf("%gkm-limit-10", km), func(b *testing.B) {
					runQueries(b, s, centres, func(tx keyspace.Tx, lat, lon float64) ([]geo.Result, geo.Stats, error) {
						return ix.Radius(tx, lat, lon, km*1000, &geo.QueryOptions{Limit: 10, FarthestFirst: true})
					})
				})
				b.Run(fmt.Sprintf("%gkm-whole", km), func(b *testing.B) {
					var into []geo.Result
					runQueries(b, s, centres, func(tx keyspace.Tx, lat, lon float64) ([]geo.Result, geo.Stats, error) {
						rs, st, err := ix.Radius(tx, lat, lon, km*1000, &geo.QueryOptions{FarthestFirst: true, Into: into})
						into = rs
						st.Results = min(st.Results, 10) // the 10 farthest are what is asked
						return rs[:min(len(rs), 10)], st, err
					})
				})
			}
		})
	}
}
