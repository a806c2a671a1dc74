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
	"github.com/keyspacedb/keyspace/composite"
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

// FuzzSeriesAgainstReadings folds random batches of readings (sensors
// with separator and zero bytes, times on both sides of 1970 and at the
// ends of what a key can hold, values up to the largest float64) into a
// series of a random width, and checks every Range against buckets
// recomputed from the readings the model accepted. A batch the model
// refuses (an empty sensor, a value that is not finite, a time no key
// holds, a sum that would overflow) must be refused with a ReadingError
// naming a refused reading, and must have written nothing even in the
// transaction that saw the refusal (storetest.RefusedChangesNothing).
func FuzzSeriesAgainstReadings(f *testing.F) {
	storetest.FuzzEachBackend(f, func(t *testing.T, s keyspace.Store, seed uint64) { seriesAgainstReadings(t, s, seed, 60) })
}

func seriesAgainstReadings(t *testing.T, s keyspace.Store, seed uint64, steps int) {
	r := rand.New(rand.NewPCG(seed, 5))
	widths := []time.Duration{time.Second, 7 * time.Second, time.Minute, time.Hour, 7 * 24 * time.Hour}
	m := seriesModel{width: widths[r.IntN(len(widths))], keepRaw: r.IntN(2) == 0, readings: map[string][]Reading{}}
	series := NewSeries("s:\x00", &SeriesOptions{Width: m.width, KeepRaw: m.keepRaw})
	sensors := []string{"a", "b\x00c", "d:e", "\xff"}
	base := time.Date(1969, 12, 31, 23, 0, 0, 0, time.UTC) // the buckets cross 1970
	first, last := composite.TimeBounds()
	randomTime := func() time.Time {
		switch r.IntN(12) {
		case 0: // at the first instant a key holds, or near it
			return first.Add(time.Duration(r.Int64N(int64(2 * time.Hour))))
		case 1:
			return last.Add(-time.Duration(r.Int64N(int64(2 * time.Hour))))
		}
		return base.Add(time.Duration(r.Int64N(int64(3 * time.Hour))))
	}
	values := []float64{0, 1, -2.5, 1e-300, math.MaxFloat64, -math.MaxFloat64, 1e308, math.Copysign(0, -1)}
	randomValue := func() float64 {
		switch r.IntN(40) {
		case 0:
			return math.NaN()
		case 1:
			return math.Inf(1 - 2*r.IntN(2))
		}
		if r.IntN(3) == 0 {
			return values[r.IntN(len(values))]
		}
		return float64(r.IntN(2001)-1000) / 8
	}
	for range steps {
		if r.IntN(3) > 0 {
			var batch []Reading
			for range 1 + r.IntN(5) {
				sensor := sensors[r.IntN(len(sensors))]
				if r.IntN(40) == 0 {
					sensor = ""
				}
				batch = append(batch, Reading{Sensor: sensor, At: randomTime(), Value: randomValue()})
			}
			refused := m.refuses(batch)
			err := storetest.RefusedChangesNothing(t, s, func(tx keyspace.Tx) error { return series.AddAll(tx, batch) })
			var re *ReadingError
			switch {
			case len(refused) == 0 && err != nil:
				t.Fatalf("AddAll(%v): %v; the model accepts it", batch, err)
			case len(refused) > 0 && (!errors.As(err, &re) || !refused[re.Index]):
				t.Fatalf("AddAll(%v): %v; the model refuses readings %v", batch, err, refused)
			}
			if len(refused) == 0 {
				m.add(batch)
			}
			continue
		}
		sensor := sensors[r.IntN(len(sensors))]
		var from, to time.Time
		if r.IntN(4) > 0 {
			from = randomTime()
		}
		if r.IntN(4) > 0 {
			to = randomTime()
		}
		s.View(func(tx keyspace.Tx) error {
			got, err := series.Range(tx, sensor, from, to)
			if !from.IsZero() && !to.IsZero() && to.Before(from) {
				if err == nil {
					t.Fatalf("Range(%q, %s, %s) ends before it starts, and no error", sensor, from, to)
				}
				return nil
			}
			if err != nil {
				t.Fatalf("Range(%q, %s, %s): %v", sensor, from, to, err)
			}
			if want := m.buckets(sensor, from, to); !equalBuckets(got, want) {
				t.Fatalf("Range(%q, %s, %s) (width %s, raw %v):\n got %+v\nwant %+v", sensor, from, to, m.width, m.keepRaw, got, want)
			}
			if problems, err := series.Verify(tx); err != nil || len(problems) > 0 {
				t.Fatalf("Verify of a series written by its own methods: %q, %v", problems, err)
			}
			var wantSpans []SensorSpan
			for _, sensor := range slices.Sorted(maps.Keys(m.readings)) {
				if bs := m.buckets(sensor, time.Time{}, time.Time{}); len(bs) > 0 {
					wantSpans = append(wantSpans, SensorSpan{sensor, len(bs), bs[0].Start, bs[len(bs)-1].Start})
				}
			}
			if spans, err := series.Sensors(tx); err != nil || !slices.EqualFunc(spans, wantSpans, func(a, b SensorSpan) bool {
				return a.Sensor == b.Sensor && a.Buckets == b.Buckets && a.First.Equal(b.First) && a.Last.Equal(b.Last)
			}) {
				t.Fatalf("Sensors = %+v, %v; the readings give %+v", spans, err, wantSpans)
			}
			k := []time.Duration{1, 2, 3, 60, 24}[r.IntN(5)]
			wide, err := series.Rollup(got, k*m.width)
			want, overflows := m.rollup(sensor, from, to, k*m.width)
			switch {
			case overflows && !errors.Is(err, ErrBadRollup):
				t.Fatalf("Rollup(%s) of %s buckets: %v; a sum passes the largest float64", k*m.width, m.width, err)
			case !overflows && (err != nil || !equalBuckets(wide, want)):
				t.Fatalf("Rollup(%s) of %s buckets (raw %v): %v\n got %+v\nwant %+v", k*m.width, m.width, m.keepRaw, err, wide, want)
			}
			return nil
		})
	}
}

// seriesModel is the readings a series accepted, in order, by sensor.
type seriesModel struct {
	width    time.Duration
	keepRaw  bool
	readings map[string][]Reading
}

// year1 is the seconds from 0001-01-01 UTC to 1970, the instant buckets
// are counted from.
const year1 = 62135596800

// bucketOf is the start of the bucket holding at: a whole number of
// widths after 0001-01-01 UTC (what time.Truncate gives, reckoned here in
// Unix seconds). Every time a key holds is after year 1.
func (m *seriesModel) bucketOf(at time.Time) time.Time {
	w := int64(m.width / time.Second)
	secs := at.Unix() + year1
	return time.Unix(secs/w*w-year1, 0).UTC()
}

// refuses returns the indexes of the readings of batch that AddAll may
// name in its refusal: every reading it refuses alone, or, when there is
// none, every reading that takes its bucket's sum (in order) past the
// largest float64.
func (m *seriesModel) refuses(batch []Reading) map[int]bool {
	first, last := composite.TimeBounds()
	for i, rd := range batch {
		start := m.bucketOf(rd.At)
		if rd.Sensor == "" || math.IsNaN(rd.Value) || math.IsInf(rd.Value, 0) || start.Before(first) || start.After(last) {
			return map[int]bool{i: true} // the first: AddAll checks them in order
		}
	}
	type bucket struct {
		sensor string
		start  int64
	}
	sums := map[bucket]float64{}
	overflowed := map[bucket]bool{}
	for sensor, rds := range m.readings {
		for _, rd := range rds {
			sums[bucket{sensor, m.bucketOf(rd.At).Unix()}] += rd.Value
		}
	}
	refused := map[int]bool{}
	for i, rd := range batch {
		b := bucket{rd.Sensor, m.bucketOf(rd.At).Unix()}
		if sums[b] += rd.Value; math.IsInf(sums[b], 0) && !overflowed[b] {
			overflowed[b] = true
			refused[i] = true
		}
	}
	return refused
}

func (m *seriesModel) add(batch []Reading) {
	for _, rd := range batch {
		m.readings[rd.Sensor] = append(m.readings[rd.Sensor], rd)
	}
}

// buckets recomputes the buckets of sensor that Range(from, to) should
// return: those starting at or after the bucket holding from and before
// to (zero times leave their ends open).
func (m *seriesModel) buckets(sensor string, from, to time.Time) []Bucket {
	byStart := map[int64]*Bucket{}
	for _, rd := range m.readings[sensor] {
		start := m.bucketOf(rd.At)
		b := byStart[start.Unix()]
		if b == nil {
			b = &Bucket{Start: start, Min: math.Inf(1), Max: math.Inf(-1)}
			byStart[start.Unix()] = b
		}
		b.Count++
		b.Sum += rd.Value
		b.Min, b.Max = math.Min(b.Min, rd.Value), math.Max(b.Max, rd.Value)
		if m.keepRaw {
			if b.Raw == nil {
				b.Raw = map[int64]float64{}
			}
			b.Raw[rd.At.Unix()-start.Unix()] = rd.Value
		}
	}
	var out []Bucket
	for _, start := range slices.Sorted(maps.Keys(byStart)) {
		b := byStart[start]
		if !from.IsZero() && b.Start.Before(m.bucketOf(from)) || !to.IsZero() && !b.Start.Before(to) {
			continue
		}
		out = append(out, *b)
	}
	return out
}

// rollup recomputes what Rollup(Range(sensor, from, to), every) should
// return: the readings whose bucket Range returns, grouped by the wider
// bucket holding them (counts, minimums, maximums and raw readings from
// the readings themselves), the sums those of Range's buckets added in
// time order; overflows reports a sum past the largest float64.
func (m *seriesModel) rollup(sensor string, from, to time.Time, every time.Duration) (out []Bucket, overflows bool) {
	narrow := m.buckets(sensor, from, to)
	if len(narrow) == 0 {
		return nil, false
	}
	first, last := narrow[0].Start, narrow[len(narrow)-1].Start
	wideModel := seriesModel{width: every}
	byStart := map[int64]*Bucket{}
	for _, rd := range m.readings[sensor] {
		if nb := m.bucketOf(rd.At); nb.Before(first) || nb.After(last) {
			continue
		}
		start := wideModel.bucketOf(rd.At)
		b := byStart[start.Unix()]
		if b == nil {
			b = &Bucket{Start: start, Min: math.Inf(1), Max: math.Inf(-1)}
			byStart[start.Unix()] = b
		}
		b.Count++
		b.Min, b.Max = math.Min(b.Min, rd.Value), math.Max(b.Max, rd.Value)
		if m.keepRaw {
			if b.Raw == nil {
				b.Raw = map[int64]float64{}
			}
			b.Raw[rd.At.Unix()-start.Unix()] = rd.Value
		}
	}
	sums := map[int64][]float64{}
	for _, b := range narrow {
		start := wideModel.bucketOf(b.Start).Unix()
		sums[start] = append(sums[start], b.Sum)
	}
	for _, start := range slices.Sorted(maps.Keys(byStart)) {
		b := byStart[start]
		b.Sum = sums[start][0] // a sum of -0 alone stays -0
		for _, v := range sums[start][1:] {
			b.Sum += v
		}
		overflows = overflows || math.IsInf(b.Sum, 0)
		out = append(out, *b)
	}
	return out, overflows
}

// equalBuckets compares buckets field by field, the floats bit for bit
// (-0 is not 0: a sum of -0 alone is -0).
func equalBuckets(got, want []Bucket) bool {
	same := func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }
	return slices.EqualFunc(got, want, func(g, w Bucket) bool {
		return g.Start.Equal(w.Start) && g.Count == w.Count && same(g.Sum, w.Sum) && same(g.Min, w.Min) && same(g.Max, w.Max) &&
			maps.EqualFunc(g.Raw, w.Raw, same)
	})
}

// TestSeriesVerify: a series written by Add verifies clean, and each kind
// of damage to a bucket or to the stored options, written over it, is
// one problem naming it; the series is as it was after each is undone.
func TestSeriesVerify(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		series := NewSeries("temps", &SeriesOptions{Width: time.Minute, KeepRaw: true})
		plain := NewSeries("plain", nil)
		t0 := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
		if err := s.Update(func(tx keyspace.Tx) error {
			for i, v := range []float64{20, -1, 25, 7} {
				if err := series.Add(tx, "s1", t0.Add(time.Duration(i)*20*time.Second), v); err != nil {
					return err
				}
				if err := plain.Add(tx, "s1", t0.Add(time.Duration(i)*20*time.Second), v); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		verify := func(x *Series) []string {
			var problems []string
			if err := s.View(func(tx keyspace.Tx) (err error) { problems, err = x.Verify(tx); return err }); err != nil {
				t.Fatal(err)
			}
			return problems
		}
		if p := verify(series); len(p) != 0 {
			t.Fatalf("a sound series: %q", p)
		}
		sub := composite.NewSubspace("x", "temps", "s")
		key := sub.Pack(composite.Tuple{"s1", t0})
		meta := composite.NewSubspace("x", "temps", "sm").Bytes()
		plainKey := composite.NewSubspace("x", "plain", "s").Pack(composite.Tuple{"s1", t0})
		for _, tc := range []struct {
			x          *Series
			key, value []byte
			want       string
		}{
			{series, key, []byte("{"), "bucket \"s1\" 2026-11-23T10:00:00Z: unexpected end of JSON input"},
			{series, key, []byte(`{"start":"2026-11-23T10:00:00Z","count":0,"sum":0,"min":0,"max":0}`), "count 0"},
			{series, key, []byte(`{"start":"2026-11-23T10:01:00Z","count":1,"sum":1,"min":1,"max":1}`), "its value starts at 2026-11-23T10:01:00Z"},
			{series, key, []byte(`{"start":"2026-11-23T10:00:00Z","count":2,"sum":1,"min":3,"max":1}`), "sum 1, min 3, max 1"},
			{series, key, []byte(`{"start":"2026-11-23T10:00:00Z","count":1,"sum":2,"min":1,"max":1}`), "one reading, but sum 2"},
			{series, key, []byte(`{"start":"2026-11-23T10:00:00Z","count":1,"sum":1,"min":1,"max":1,"raw":{"1":1,"2":1}}`), "2 raw readings for a count of 1"},
			{series, key, []byte(`{"start":"2026-11-23T10:00:00Z","count":2,"sum":2,"min":1,"max":1,"raw":{"60":1}}`), "raw reading 1 at second 60"},
			{series, key, []byte(`{"start":"2026-11-23T10:00:00Z","count":2,"sum":2,"min":1,"max":1,"raw":{"5":9}}`), "raw reading 9 at second 5"},
			{plain, plainKey, []byte(`{"start":"2026-11-23T10:00:00Z","count":2,"sum":2,"min":1,"max":1,"raw":{"5":1}}`), "raw readings in a series that keeps none"},
			{series, sub.Pack(composite.Tuple{"s1", t0.Add(30 * time.Second)}), []byte(`{"start":"2026-11-23T10:00:30Z","count":1,"sum":1,"min":1,"max":1}`), "not on the series' 1m0s grid"},
			{series, sub.Pack(composite.Tuple{"s1"}), []byte(`{}`), "not a sensor and a bucket start"},
			{series, meta, []byte(`{"width":5}`), "stored options"},
		} {
			var old []byte
			must(t, s.Update(func(tx keyspace.Tx) error {
				if v, err := tx.Get(tc.key); err == nil {
					old = append([]byte(nil), v...)
				}
				return tx.Put(tc.key, tc.value)
			}))
			if p := verify(tc.x); len(p) != 1 || !strings.Contains(p[0], tc.want) {
				t.Errorf("after writing %s: Verify = %q, want one problem with %q", tc.value, p, tc.want)
			}
			must(t, s.Update(func(tx keyspace.Tx) error {
				if old == nil {
					return tx.Delete(tc.key)
				}
				return tx.Put(tc.key, old)
			}))
			if p := verify(tc.x); len(p) != 0 {
				t.Fatalf("after undoing %s: %q", tc.value, p)
			}
		}
		// Buckets whose options are gone.
		must(t, s.Update(func(tx keyspace.Tx) error { return tx.Delete(meta) }))
		if p := verify(series); len(p) != 1 || p[0] != "buckets without stored options" {
			t.Errorf("without options: %q", p)
		}
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
