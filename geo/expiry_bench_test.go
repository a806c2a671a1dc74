package geo_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/geo"
	"github.com/keyspacedb/keyspace/storetest"
)

// BenchmarkExpiry: what points that expire cost a query, next to the same
// points with no expiries in the same run, and what deleting the expired
// ones costs. In "expiring", half the points expire at times spread over
// an hour and the queries ask at its middle, so a quarter of the points
// have expired and are read and left out.
func BenchmarkExpiry(b *testing.B) {
	pts := benchPoints(b)
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	r := rand.New(rand.NewPCG(5, 6))
	centres := pts[:1000]
	for _, be := range storetest.Backends() {
		b.Run(be.Name, func(b *testing.B) {
			s := be.Open(b)
			plain, expiring := geo.NewIndex("plain"), geo.NewIndex("expiring")
			loadBench(b, s, plain, pts)
			points := make([]geo.Point, len(pts))
			for i, p := range pts {
				points[i] = geo.Point{ID: p.ID, Lat: p.Lat, Lon: p.Lon}
				if i%2 == 0 {
					points[i].Expires = t0.Add(time.Duration(r.Int64N(int64(time.Hour))))
				}
			}
			if err := s.Update(func(tx keyspace.Tx) error { return expiring.PutAll(tx, points) }); err != nil {
				b.Fatal(err)
			}
			opts := &geo.QueryOptions{Now: t0.Add(30 * time.Minute)}
			for _, ix := range []*geo.Index{plain, expiring} {
				b.Run(ix.Name()+"/radius=1km", func(b *testing.B) {
					runQueries(b, s, centres, func(tx keyspace.Tx, lat, lon float64) ([]geo.Result, geo.Stats, error) {
						return ix.Radius(tx, lat, lon, 1000, opts)
					})
				})
				b.Run(ix.Name()+"/knn=10", func(b *testing.B) {
					runQueries(b, s, centres, func(tx keyspace.Tx, lat, lon float64) ([]geo.Result, geo.Stats, error) {
						return ix.Nearest(tx, lat, lon, 10, opts)
					})
				})
			}
			// Each round puts back 1,000 points that expired (untimed) and
			// deletes them with one DeleteExpired.
			b.Run("DeleteExpired/1000", func(b *testing.B) {
				batch := make([]geo.Point, 1000)
				for i := range batch {
					p := pts[r.IntN(len(pts))]
					batch[i] = geo.Point{ID: fmt.Sprint("sweep-", i), Lat: p.Lat, Lon: p.Lon, Expires: t0.Add(-time.Minute)}
				}
				for b.Loop() {
					b.StopTimer()
					if err := s.Update(func(tx keyspace.Tx) error { return expiring.PutAll(tx, batch) }); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
					if err := s.Update(func(tx keyspace.Tx) error {
						n, err := expiring.DeleteExpired(tx, t0, 0)
						if err == nil && n != len(batch) {
							err = fmt.Errorf("deleted %d, want %d", n, len(batch))
						}
						return err
					}); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}
