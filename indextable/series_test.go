package indextable

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/storetest"
)

// TestSeriesAgainstReadings folds random readings (with concurrent
// writers) into minute buckets and checks each bucket against the raw
// readings it covers.
func TestSeriesAgainstReadings(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		series := NewSeries("temp", &SeriesOptions{Width: time.Minute, KeepRaw: true})
		start := time.Date(2026, 11, 21, 23, 58, 0, 0, time.UTC) // across midnight
		type reading struct {
			at time.Time
			v  float64
		}
		var mu sync.Mutex
		var all []reading
		var wg sync.WaitGroup
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewPCG(uint64(g), 1))
				for i := 0; i < 100; i++ {
					rd := reading{start.Add(time.Duration(r.IntN(300)) * time.Second), math.Round(r.NormFloat64()*100) / 10}
					if err := s.Update(func(tx keyspace.Tx) error { return series.Add(tx, "sensor-1", rd.at, rd.v) }); err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					all = append(all, rd)
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		s.View(func(tx keyspace.Tx) error {
			buckets, err := series.Range(tx, "sensor-1", start.Add(time.Minute), start.Add(4*time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			if len(buckets) != 3 {
				t.Fatalf("%d buckets in three minutes", len(buckets))
			}
			for _, b := range buckets {
				n, sum, lo, hi := 0, 0.0, math.Inf(1), math.Inf(-1)
				for _, rd := range all {
					if !rd.at.Before(b.Start) && rd.at.Before(b.Start.Add(time.Minute)) {
						n++
						sum += rd.v
						lo, hi = math.Min(lo, rd.v), math.Max(hi, rd.v)
					}
				}
				if b.Count != n || math.Abs(b.Sum-sum) > 1e-9 || b.Min != lo || b.Max != hi {
					t.Errorf("bucket %s: %+v; readings give count %d sum %v min %v max %v", b.Start, b, n, sum, lo, hi)
				}
			}
			return nil
		})
	})
}
