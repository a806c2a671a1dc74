package geo_test

import (
	"fmt"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/geo"
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
