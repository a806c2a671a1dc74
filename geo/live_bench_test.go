package geo_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/geo"
	"github.com/keyspacedb/keyspace/internal/workload"
)

// BenchmarkRadiusAfterPuts: 1 km radius queries on the memory backend, on
// the same points loaded by one PutAll, by Index.Put, 1,000 a
// transaction, as a live index is written, and by those Puts then
// MemoryStore.Compact. The leaves of the second are all made by splits
// (the memory backend's fitShared and pack); Compact lays them out as a
// bulk load does.
func BenchmarkRadiusAfterPuts(b *testing.B) {
	pts := benchPoints(b)
	centres := pts[:1000]
	for _, how := range []string{"PutAll", "Put", "Put+Compact"} {
		b.Run(how, func(b *testing.B) {
			s := keyspace.NewMemory()
			ix := geo.NewIndex("bench")
			if how == "PutAll" {
				loadBench(b, s, ix, pts)
			} else {
				inBatches(b, s, pts, func(tx keyspace.Tx, p workload.Point) error {
					return ix.Put(tx, geo.Point{ID: p.ID, Lat: p.Lat, Lon: p.Lon})
				})
			}
			if how == "Put+Compact" {
				if _, err := s.Compact(); err != nil {
					b.Fatal(err)
				}
			}
			runQueries(b, s, centres, func(tx keyspace.Tx, lat, lon float64) ([]geo.Result, geo.Stats, error) {
				return ix.Radius(tx, lat, lon, 1000, nil)
			})
		})
	}
}

// BenchmarkRadiusAfterDeletes: 1 km and 10 km radius queries on the
// memory backend, on a tenth of the points written alone by PutAll, and
// on the same tenth left after deleting the other nine tenths, 1,000 a
// transaction (the memory backend's merge).
func BenchmarkRadiusAfterDeletes(b *testing.B) {
	pts := benchPoints(b)
	var kept, deleted []workload.Point
	for i, p := range pts {
		if i%10 == 0 {
			kept = append(kept, p)
		} else {
			deleted = append(deleted, p)
		}
	}
	centres := kept[:1000]
	for _, how := range []string{"PutAll", "Delete"} {
		s := keyspace.NewMemory()
		ix := geo.NewIndex("bench")
		if how == "PutAll" {
			loadBench(b, s, ix, kept)
		} else {
			loadBench(b, s, ix, pts)
			inBatches(b, s, deleted, func(tx keyspace.Tx, p workload.Point) error { return ix.Delete(tx, p.ID) })
		}
		for _, radius := range []float64{1000, 10_000} {
			b.Run(fmt.Sprintf("%s/radius=%gkm", how, radius/1000), func(b *testing.B) {
				runQueries(b, s, centres, func(tx keyspace.Tx, lat, lon float64) ([]geo.Result, geo.Stats, error) {
					return ix.Radius(tx, lat, lon, radius, nil)
				})
			})
		}
	}
}

// inBatches calls fn on each point, 1,000 points to an Update.
func inBatches(b *testing.B, s keyspace.Store, pts []workload.Point, fn func(tx keyspace.Tx, p workload.Point) error) {
	b.Helper()
	for batch := range slices.Chunk(pts, 1000) {
		err := s.Update(func(tx keyspace.Tx) error {
			for _, p := range batch {
				if err := fn(tx, p); err != nil {
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
