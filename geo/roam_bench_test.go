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
)

// BenchmarkPutRoaming: moves of about 100 m among 100,000 clustered
// points, each in its own Update, on both backends: PutRoaming with a
// roaming radius of 200 m and 1 km, against Put (the baseline: the same
// move with no meetings) in the same run.
func BenchmarkPutRoaming(b *testing.B) {
	pts, err := workload.Generate(workload.Clustered, 100_000, 1)
	if err != nil {
		b.Fatal(err)
	}
	for _, be := range storetest.Backends() {
		s := be.Open(b)
		ix := geo.NewIndex("fleet")
		loadBench(b, s, ix, pts)
		r := rand.New(rand.NewPCG(3, 4))
		moves := make([]geo.Point, 1000)
		for i := range moves {
			p := pts[r.IntN(len(pts))]
			β := r.Float64() * 2 * math.Pi
			moves[i] = geo.Point{ID: p.ID, Lat: min(90, max(-90, p.Lat+0.0009*math.Cos(β))), Lon: min(180, max(-180, p.Lon+0.0009*math.Sin(β)))}
		}
		b.Run(be.Name+"/put", func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				if err := s.Update(func(tx keyspace.Tx) error { return ix.Put(tx, moves[i%len(moves)]) }); err != nil {
					b.Fatal(err)
				}
			}
		})
		for _, radius := range []float64{200, 1000} {
			b.Run(fmt.Sprintf("%s/roaming-%gm", be.Name, radius), func(b *testing.B) {
				met := 0
				for i := 0; b.Loop(); i++ {
					if err := s.Update(func(tx keyspace.Tx) error {
						ms, err := ix.PutRoaming(tx, moves[i%len(moves)], radius)
						met += len(ms)
						return err
					}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(met)/float64(b.N), "meetings/op")
			})
		}
	}
}
