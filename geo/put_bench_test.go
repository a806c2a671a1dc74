package geo_test

import (
	"slices"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/geo"
)

// BenchmarkRadiusAfterPuts: 1 km radius queries on the memory backend, on
// the same points loaded by one PutAll and by Index.Put, 1,000 a
// transaction, as a live index is written. The leaves of the second are
// all made by splits (the memory backend's reshare and pack).
func BenchmarkRadiusAfterPuts(b *testing.B) {
	pts := benchPoints(b)
	centres := pts[:1000]
	for _, how := range []string{"PutAll", "Put"} {
		b.Run(how, func(b *testing.B) {
			s := keyspace.NewMemory()
			ix := geo.NewIndex("bench")
			if how == "PutAll" {
				loadBench(b, s, ix, pts)
			} else {
				for batch := range slices.Chunk(pts, 1000) {
					err := s.Update(func(tx keyspace.Tx) error {
						for _, p := range batch {
							if err := ix.Put(tx, geo.Point{ID: p.ID, Lat: p.Lat, Lon: p.Lon}); err != nil {
								return err
							}
						}
						return nil
					})
					if err != nil {
						b.Fatal(err)
					}
				}
			}
			runQueries(b, s, centres, func(tx keyspace.Tx, lat, lon float64) ([]geo.Result, geo.Stats, error) {
				return ix.Radius(tx, lat, lon, 1000, nil)
			})
		})
	}
}
