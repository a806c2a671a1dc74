package geo_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/geo"
	"github.com/keyspacedb/keyspace/storetest"
)

// BenchmarkSector: sectors of 90° and 30° of circles of 1, 10 and 100 km
// on clustered points in memory, beside the whole circle in the same run:
// what a slice costs and reads against reading its circle and keeping
// the slice (circle-filtered, the circle's time and candidates for the
// slice's results); and the 10 nearest in a slice of directions with no
// radius beside the 10 nearest.
func BenchmarkSector(b *testing.B) {
	pts := benchPoints(b)
	centres := benchCentres(pts)
	s := storetest.Backends()[0].Open(b)
	ix := geo.NewIndex("bench")
	loadBench(b, s, ix, pts)
	for _, radius := range []float64{1000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("radius=%gkm/circle", radius/1000), func(b *testing.B) {
			runQueries(b, s, centres, func(tx keyspace.Tx, lat, lon float64) ([]geo.Result, geo.Stats, error) {
				return ix.Radius(tx, lat, lon, radius, nil)
			})
		})
		for _, span := range []float64{90, 30} {
			b.Run(fmt.Sprintf("radius=%gkm/sector=%g", radius/1000, span), func(b *testing.B) {
				runQueries(b, s, centres, func(tx keyspace.Tx, lat, lon float64) ([]geo.Result, geo.Stats, error) {
					return ix.Sector(tx, lat, lon, radius, 20, 20+span, nil)
				})
			})
		}
	}
	// The 10 nearest with no radius, and the 10 nearest in a 90° or 30°
	// slice of directions (the k-nearest search, its points filtered by
	// bearing, once the slice's read budget is spent).
	b.Run("nearest=10", func(b *testing.B) {
		runQueries(b, s, centres, func(tx keyspace.Tx, lat, lon float64) ([]geo.Result, geo.Stats, error) {
			return ix.Nearest(tx, lat, lon, 10, nil)
		})
	})
	for _, span := range []float64{90, 30} {
		b.Run(fmt.Sprintf("nearest=10/sector=%g", span), func(b *testing.B) {
			runQueries(b, s, centres, func(tx keyspace.Tx, lat, lon float64) ([]geo.Result, geo.Stats, error) {
				return ix.Sector(tx, lat, lon, math.Inf(1), 20, 20+span, &geo.QueryOptions{Limit: 10})
			})
		})
	}
}
