package indextable

import (
	"errors"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
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

// TestSeriesShape: a series keeps the options of its first Add; a writer
// asking for others is refused and writes nothing; LoadSeries opens it as
// written; Drop deletes it whole, after which other options may start
// it again.
func TestSeriesShape(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		at := time.Date(2026, 11, 23, 10, 30, 15, 0, time.UTC)
		minutes := NewSeries("temp", nil)
		hours := NewSeries("temp", &SeriesOptions{Width: time.Hour})
		if err := s.Update(func(tx keyspace.Tx) error {
			return errors.Join(minutes.Add(tx, "a", at, 1), minutes.Add(tx, "a", at.Add(time.Minute), 2), minutes.Add(tx, "b", at, 3))
		}); err != nil {
			t.Fatal(err)
		}
		keys := func() (n int) {
			s.View(func(tx keyspace.Tx) error {
				for range tx.Scan(keyspace.Range{}) {
					n++
				}
				return tx.Err()
			})
			return n
		}
		before := keys()
		err := s.Update(func(tx keyspace.Tx) error { return hours.Add(tx, "a", at, 9) })
		if !errors.Is(err, ErrSeriesShape) || !strings.Contains(err.Error(), "1m0s buckets") {
			t.Errorf("an hourly Add to a minute series: %v, want ErrSeriesShape naming 1m0s", err)
		}
		if after := keys(); after != before {
			t.Errorf("the refused Add changed the keys: %d, then %d", before, after)
		}
		s.View(func(tx keyspace.Tx) error {
			loaded, err := LoadSeries(tx, "temp")
			if err != nil || loaded.Options() != (SeriesOptions{Width: time.Minute}) {
				t.Fatalf("LoadSeries = %+v, %v", loaded, err)
			}
			buckets, err := loaded.Range(tx, "a", at, at.Add(time.Hour))
			if err != nil || len(buckets) != 2 || buckets[0].Sum != 1 || buckets[1].Sum != 2 {
				t.Errorf("the loaded series' buckets: %+v, %v", buckets, err)
			}
			// Open and out-of-range ends: every bucket of "a", or none,
			// and never a panic packing a time no key can hold.
			for _, c := range []struct {
				from, to time.Time
				want     int
			}{
				{time.Time{}, time.Time{}, 2},
				{time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC), time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC), 2},
				{time.Time{}, at.Add(time.Minute).Truncate(time.Minute), 1}, // up to the second bucket's start
				{at.Add(time.Minute), time.Time{}, 1},
				{time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC), time.Time{}, 0},
				{time.Time{}, time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC), 0},
			} {
				if buckets, err := loaded.Range(tx, "a", c.from, c.to); err != nil || len(buckets) != c.want {
					t.Errorf("Range(%s, %s) = %d buckets, %v; want %d", c.from, c.to, len(buckets), err, c.want)
				}
			}
			if _, err := LoadSeries(tx, "nothing"); !errors.Is(err, keyspace.ErrNotFound) {
				t.Errorf("LoadSeries of a series never written: %v, want ErrNotFound", err)
			}
			return nil
		})
		var dropped int
		if err := s.Update(func(tx keyspace.Tx) (err error) { dropped, err = minutes.Drop(tx); return err }); err != nil || dropped != 3 {
			t.Fatalf("Drop: %d buckets, %v; want 3", dropped, err)
		}
		if n := keys(); n != 0 {
			t.Errorf("after Drop, %d keys are left", n)
		}
		if err := s.Update(func(tx keyspace.Tx) error { return hours.Add(tx, "a", at, 9) }); err != nil {
			t.Errorf("an hourly series after the drop: %v", err)
		}
	})
}

// TestSeriesAddAllIsAdds: AddAll leaves every key exactly as Adds of the
// same readings one after another do (sums in the same order, the last
// reading of a second kept), on top of buckets already there; a bad
// reading anywhere writes nothing and names its index.
func TestSeriesAddAllIsAdds(t *testing.T) {
	for _, keepRaw := range []bool{false, true} {
		opts := &SeriesOptions{Width: time.Minute, KeepRaw: keepRaw}
		r := rand.New(rand.NewPCG(31, 32))
		start := time.Date(2026, 11, 23, 23, 58, 0, 0, time.UTC)
		var readings []Reading
		for range 600 {
			readings = append(readings, Reading{
				Sensor: []string{"a", "b", "a:b", "a\x00"}[r.IntN(4)],
				At:     start.Add(time.Duration(r.IntN(300)) * time.Second), // many in a second
				Value:  r.NormFloat64() * 1e3,
			})
		}
		one, all := keyspace.NewMemory(), keyspace.NewMemory()
		for _, s := range []keyspace.Store{one, all} { // buckets already there
			if err := s.Update(func(tx keyspace.Tx) error { return NewSeries("t", opts).Add(tx, "a", start, 7) }); err != nil {
				t.Fatal(err)
			}
		}
		for _, rd := range readings {
			if err := one.Update(func(tx keyspace.Tx) error { return NewSeries("t", opts).Add(tx, rd.Sensor, rd.At, rd.Value) }); err != nil {
				t.Fatal(err)
			}
		}
		if err := all.Update(func(tx keyspace.Tx) error { return NewSeries("t", opts).AddAll(tx, readings) }); err != nil {
			t.Fatal(err)
		}
		dump := func(s keyspace.Store) map[string]string {
			keys := map[string]string{}
			s.View(func(tx keyspace.Tx) error {
				for k, v := range tx.Scan(keyspace.Range{}) {
					keys[string(k)] = string(v)
				}
				return tx.Err()
			})
			return keys
		}
		want, got := dump(one), dump(all)
		if !maps.Equal(got, want) {
			t.Errorf("keep raw %v: AddAll left %d keys, Adds %d, or their values differ", keepRaw, len(got), len(want))
		}
		bad := slices.Clone(readings)
		bad[417].Value = math.Inf(1)
		err := all.Update(func(tx keyspace.Tx) error { return NewSeries("t", opts).AddAll(tx, bad) })
		if err == nil || !strings.Contains(err.Error(), "reading 417") {
			t.Errorf("AddAll with reading 417 infinite = %v", err)
		}
		if after := dump(all); !maps.Equal(after, got) {
			t.Errorf("a refused AddAll changed the keys")
		}
	}
}
