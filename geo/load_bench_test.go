package geo_test

import (
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/geo"
	"github.com/keyspacedb/keyspace/internal/workload"
	"github.com/keyspacedb/keyspace/storetest"
)

// BenchmarkPutAll: loading 1,000,000 clustered points in one PutAll, as an
// import does.
func BenchmarkPutAll(b *testing.B) {
	pts, _ := workload.Generate(workload.Clustered, 1_000_000, 1)
	points := make([]geo.Point, len(pts))
	for i, p := range pts {
		points[i] = geo.Point{ID: p.ID, Lat: p.Lat, Lon: p.Lon}
	}
	for _, be := range storetest.Backends() {
		b.Run(be.Name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				s := be.Open(b)
				b.StartTimer()
				if err := s.Update(func(tx keyspace.Tx) error { return geo.NewIndex("load").PutAll(tx, points) }); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(points))*float64(b.N)/b.Elapsed().Seconds(), "points/s")
		})
	}
}
