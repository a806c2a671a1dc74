package indextable

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/internal/errctx"
)

// Series is the seeds' IoT bucket table: readings of a sensor folded into
// one record per minute or hour (count, sum, min, max, and optionally the
// raw values by second), so a day of per-second readings is 1,440 records,
// and a period is one range scan. Key layout:
//
//	("x", series, "s", sensor, bucket start) → Bucket (JSON)
//	("x", series, "sm")                      → its SeriesOptions (JSON), written by the first Add
//
// The options are stored because buckets of two widths under one name
// would overlap: an Add with other options than the stored ones fails with
// ErrSeriesShape, and LoadSeries opens a series as it was written.
type Series struct {
	name string
	sub  composite.Subspace
	meta []byte // the options' key
	opts SeriesOptions
}

// SeriesOptions configure a series.
//
// A bucket starts at a whole number of widths after 0001-01-01 00:00 UTC
// (time.Time.Truncate), so buckets of a width that divides a day start
// at midnight UTC and its multiples, and weeks (168h) start on a Monday.
type SeriesOptions struct {
	Width   time.Duration `json:"width"`    // bucket width: time.Minute (default) or time.Hour, or any whole number of seconds
	KeepRaw bool          `json:"keep_raw"` // also keep each reading by its second within the bucket
}

// Bucket is one period's aggregate.
type Bucket struct {
	Start time.Time         `json:"start"`
	Count int               `json:"count"`
	Sum   float64           `json:"sum"`
	Min   float64           `json:"min"`
	Max   float64           `json:"max"`
	Raw   map[int64]float64 `json:"raw,omitempty"` // second within the bucket → last reading
}

// Mean is Sum / Count.
func (b Bucket) Mean() float64 { return b.Sum / float64(b.Count) }

// NewSeries returns the series called name.
func NewSeries(name string, opts *SeriesOptions) *Series {
	s := &Series{name: name, sub: composite.NewSubspace("x", name, "s"),
		meta: composite.NewSubspace("x", name, "sm").Bytes(), opts: SeriesOptions{Width: time.Minute}}
	if opts != nil {
		if opts.Width >= time.Second {
			s.opts.Width = opts.Width.Truncate(time.Second)
		}
		s.opts.KeepRaw = opts.KeepRaw
	}
	return s
}

// LoadSeries returns the series called name with the options it was
// written with. A series never written to wraps keyspace.ErrNotFound.
func LoadSeries(tx keyspace.Tx, name string) (*Series, error) {
	s := NewSeries(name, nil)
	stored, err := s.stored(tx)
	if err != nil {
		return nil, err
	}
	if stored == nil {
		return nil, s.wrap(fmt.Errorf("no readings yet: %w", keyspace.ErrNotFound))
	}
	s.opts = *stored
	return s, nil
}

// Options returns the series' bucket options.
func (s *Series) Options() SeriesOptions { return s.opts }

// stored reads the stored options: nil before the first Add.
func (s *Series) stored(tx keyspace.Tx) (*SeriesOptions, error) {
	v, err := tx.Get(s.meta)
	if errors.Is(err, keyspace.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, s.wrap(err)
	}
	var o SeriesOptions
	if err := json.Unmarshal(v, &o); err != nil || o.Width < time.Second {
		return nil, s.wrap(fmt.Errorf("%w: stored options %q", keyspace.ErrCorrupt, v))
	}
	return &o, nil
}

// checkShape refuses options other than the stored ones, and reports
// whether there are none yet: the first Add stores them.
func (s *Series) checkShape(tx keyspace.Tx) (first bool, err error) {
	stored, err := s.stored(tx)
	if err != nil {
		return false, err
	}
	switch {
	case stored == nil:
		return true, nil
	case stored.Width != s.opts.Width:
		return false, s.wrap(fmt.Errorf("%w: it has %s buckets; this writer asks for %s", ErrSeriesShape, stored.Width, s.opts.Width))
	case stored.KeepRaw != s.opts.KeepRaw:
		return false, s.wrap(fmt.Errorf("%w: it keeps raw readings: %v; this writer asks for %v", ErrSeriesShape, stored.KeepRaw, s.opts.KeepRaw))
	}
	return false, nil
}

// Drop deletes every bucket of the series, and its stored options, and
// returns how many buckets it deleted.
func (s *Series) Drop(tx keyspace.Tx) (int, error) {
	n, err := tx.DeleteRange(s.sub.Range())
	if err != nil {
		return 0, s.wrap(err)
	}
	if err := tx.Delete(s.meta); err != nil {
		return 0, s.wrap(err)
	}
	return n, nil
}

func (s *Series) wrap(err error) error { return errctx.Wrap("indextable", "series "+s.name, err) }

// Add folds one reading into its bucket (read-modify-write in the caller's
// transaction, so concurrent writers lose nothing).
func (s *Series) Add(tx keyspace.Tx, sensor string, at time.Time, v float64) error {
	return s.AddAll(tx, []Reading{{Sensor: sensor, At: at, Value: v}})
}

// Reading is one reading of a sensor, for AddAll.
type Reading struct {
	Sensor string
	At     time.Time
	Value  float64
}

// AddAll folds readings into their buckets as Adds of them one after
// another would, to the bit (a bucket's readings are summed in their
// order), but reads and writes each bucket once, in key order: an import
// of many readings a bucket writes a bucket, not a reading, at a time.
//
// A bad reading is a *ReadingError naming its index, returned before
// anything is written: an empty sensor (ErrEmptyKey), a sensor too long
// for a key (keyspace.ErrKeyTooLarge), a value that is not a finite
// number, a time no key can hold, or a value that would take its
// bucket's sum past the largest float64 (ErrBadReading for those three).
func (s *Series) AddAll(tx keyspace.Tx, readings []Reading) error {
	type fold struct {
		key      []byte
		sensor   string
		start    time.Time
		readings []int // indexes into readings, in order
		body     []byte
	}
	byKey := map[string]*fold{}
	for i, r := range readings {
		if r.Sensor == "" {
			return s.wrap(&ReadingError{i, fmt.Errorf("sensor: %w", errctx.Bare("indextable", ErrEmptyKey))})
		}
		if math.IsNaN(r.Value) || math.IsInf(r.Value, 0) {
			return s.wrap(&ReadingError{i, fmt.Errorf("%w: %v is not a finite number", ErrBadReading, r.Value)})
		}
		start := r.At.UTC().Truncate(s.opts.Width)
		key, err := s.sub.TryPack(composite.Tuple{r.Sensor, start})
		if err != nil {
			first, last := composite.TimeBounds()
			return s.wrap(&ReadingError{i, fmt.Errorf("%w: time %s is outside the times a key holds, %s to %s", ErrBadReading,
				r.At.Format(time.RFC3339Nano), first.Format(time.RFC3339), last.Format(time.RFC3339))})
		}
		if len(key) > keyspace.MaxKeySize {
			return s.wrap(&ReadingError{i, fmt.Errorf("sensor %s: %w: its bucket's key is %d bytes (the most is %d)",
				errctx.Quote(r.Sensor), errctx.Bare("keyspace", keyspace.ErrKeyTooLarge), len(key), keyspace.MaxKeySize)})
		}
		f := byKey[string(key)]
		if f == nil {
			f = &fold{key: key, sensor: r.Sensor, start: start}
			byKey[string(key)] = f
		}
		f.readings = append(f.readings, i)
	}
	if len(byKey) == 0 {
		return nil
	}
	first, err := s.checkShape(tx)
	if err != nil {
		return err
	}
	folds := slices.SortedFunc(maps.Values(byKey), func(a, b *fold) int { return bytes.Compare(a.key, b.key) })
	// Every bucket is folded before any is written, so that a reading
	// that overflows a sum leaves the transaction as it was.
	for _, f := range folds {
		b := Bucket{Start: f.start, Min: math.Inf(1), Max: math.Inf(-1)}
		if old, err := tx.Get(f.key); err == nil {
			if err := json.Unmarshal(old, &b); err != nil {
				return s.wrap(fmt.Errorf("%w: bucket %s %s: %v", keyspace.ErrCorrupt, errctx.Quote(f.sensor), f.start, err))
			}
		} else if !errors.Is(err, keyspace.ErrNotFound) {
			return s.wrap(err)
		}
		for _, i := range f.readings {
			r := readings[i]
			b.Count++
			b.Sum += r.Value
			if math.IsInf(b.Sum, 0) {
				return s.wrap(&ReadingError{i, fmt.Errorf("%w: %v takes the sum of bucket %s %s past the largest float64",
					ErrBadReading, r.Value, errctx.Quote(f.sensor), f.start.Format(time.RFC3339))})
			}
			b.Min, b.Max = math.Min(b.Min, r.Value), math.Max(b.Max, r.Value)
			if s.opts.KeepRaw {
				if b.Raw == nil {
					b.Raw = map[int64]float64{}
				}
				b.Raw[int64(r.At.Sub(f.start)/time.Second)] = r.Value
			}
		}
		if f.body, err = json.Marshal(b); err != nil {
			return s.wrap(err) // every field is finite: not expected
		}
	}
	if first {
		body, err := json.Marshal(s.opts)
		if err != nil {
			return s.wrap(err)
		}
		if err := tx.Put(s.meta, body); err != nil {
			return s.wrap(err)
		}
	}
	for _, f := range folds {
		if err := tx.Put(f.key, f.body); err != nil {
			return s.wrap(err)
		}
	}
	return nil
}

// A ReadingError is AddAll's refusal of one of its readings.
type ReadingError struct {
	Index int   // the reading's index in the slice passed to AddAll
	Err   error // what is wrong with it: wraps ErrEmptyKey, keyspace.ErrKeyTooLarge or ErrBadReading
}

func (e *ReadingError) Error() string {
	return fmt.Sprintf("reading %d: %v", e.Index, errctx.Bare("indextable", e.Err))
}

func (e *ReadingError) Unwrap() error { return e.Err }

// Rollup folds buckets of the series, in time order as Range returns
// them, into buckets every wide (RedisTimeSeries' AGGREGATION with a
// bucket duration): an hour of minute buckets into one, a day of hour
// buckets into one. A wide bucket starts, as the series' own do, at a
// whole number of every after 0001-01-01 00:00 UTC, and holds the count,
// sum, minimum and maximum of the buckets that start in it, and their raw
// readings by second within it; its Mean is the mean of every reading in
// it. every must be a whole number of the series' width, so that each
// bucket lies in one wide bucket. A wide bucket whose buckets are all in
// the range read is whole; the first and last may hold only part of
// their period. The sums are added in time order; a sum past the largest
// float64, like a width that does not divide, wraps ErrBadRollup.
func (s *Series) Rollup(buckets []Bucket, every time.Duration) ([]Bucket, error) {
	if every <= 0 {
		return nil, s.wrap(fmt.Errorf("%w: %s is not a width; want a whole number of the series' %s buckets", ErrBadRollup, every, s.opts.Width))
	}
	if every%s.opts.Width != 0 {
		return nil, s.wrap(fmt.Errorf("%w: %s is not a whole number of the series' %s buckets", ErrBadRollup, every, s.opts.Width))
	}
	var out []Bucket
	for i, b := range buckets {
		if i > 0 && !b.Start.After(buckets[i-1].Start) {
			return nil, s.wrap(fmt.Errorf("%w: bucket %s comes after %s", ErrBadRollup, b.Start.Format(time.RFC3339), buckets[i-1].Start.Format(time.RFC3339)))
		}
		start := b.Start.UTC().Truncate(every)
		n := len(out)
		if n == 0 || !start.Equal(out[n-1].Start) {
			wide := Bucket{Start: start, Count: b.Count, Sum: b.Sum, Min: b.Min, Max: b.Max}
			wide.Raw = moveRaw(nil, b, start)
			out = append(out, wide)
			continue
		}
		w := &out[n-1]
		w.Count += b.Count
		if w.Sum += b.Sum; math.IsInf(w.Sum, 0) {
			return nil, s.wrap(fmt.Errorf("%w: the sum of the buckets from %s passes the largest float64", ErrBadRollup, start.Format(time.RFC3339)))
		}
		w.Min, w.Max = math.Min(w.Min, b.Min), math.Max(w.Max, b.Max)
		w.Raw = moveRaw(w.Raw, b, start)
	}
	return out, nil
}

// moveRaw adds b's raw readings to raw, by their second within the
// bucket starting at start, which holds b.
func moveRaw(raw map[int64]float64, b Bucket, start time.Time) map[int64]float64 {
	if len(b.Raw) == 0 {
		return raw
	}
	if raw == nil {
		raw = make(map[int64]float64, len(b.Raw))
	}
	offset := int64(b.Start.Sub(start) / time.Second)
	for sec, v := range b.Raw {
		raw[sec+offset] = v
	}
	return raw
}

// Verify checks the series' stored options and every bucket, which
// nothing else derives and no repair can recompute: a bucket's key must
// name a sensor and a start on the series' grid, and its value must be
// the JSON of a bucket with that start, at least one reading, finite
// sums and bounds (Min ≤ Max, both Sum when it holds one reading), and
// raw readings only when the series keeps them, by seconds within the
// bucket, no more than its count, each within its bounds. It returns the
// problems found, a line each; a damaged page is an error
// (keyspace.ErrCorrupt).
func (s *Series) Verify(tx keyspace.Tx) ([]string, error) {
	var problems []string
	opts := s.opts // the default options, when the stored ones are missing or unread
	missing := false
	switch v, err := tx.Get(s.meta); {
	case errors.Is(err, keyspace.ErrNotFound):
		missing = true // a problem if there are buckets
	case err != nil:
		return nil, s.wrap(err)
	default:
		var stored SeriesOptions
		if err := json.Unmarshal(v, &stored); err != nil || stored.Width < time.Second || stored.Width%time.Second != 0 {
			problems = append(problems, fmt.Sprintf("stored options %q: not a series' options", v))
		} else {
			opts = stored
		}
	}
	for k, v := range tx.Scan(s.sub.Range()) {
		if missing {
			problems, missing = append(problems, "buckets without stored options"), false
		}
		if p := checkBucket(s.sub, opts, k, v); p != "" {
			problems = append(problems, p)
		}
	}
	if err := tx.Err(); err != nil {
		return nil, s.wrap(err)
	}
	return problems, nil
}

// checkBucket is what is wrong with one bucket's key and value, or "".
func checkBucket(sub composite.Subspace, opts SeriesOptions, k, v []byte) string {
	t, err := sub.Unpack(k)
	sensor, ok1 := tupleAt[string](t, 0)
	start, ok2 := tupleAt[time.Time](t, 1)
	if err != nil || len(t) != 2 || !ok1 || !ok2 {
		return fmt.Sprintf("key %q: not a sensor and a bucket start", k)
	}
	where := fmt.Sprintf("bucket %s %s", errctx.Quote(sensor), start.Format(time.RFC3339))
	var b Bucket
	if err := json.Unmarshal(v, &b); err != nil {
		return fmt.Sprintf("%s: %v", where, err)
	}
	finite := func(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
	switch {
	case !start.Equal(start.Truncate(opts.Width)):
		return fmt.Sprintf("%s: not on the series' %s grid", where, opts.Width)
	case !b.Start.Equal(start):
		return fmt.Sprintf("%s: its value starts at %s", where, b.Start.Format(time.RFC3339))
	case b.Count < 1:
		return fmt.Sprintf("%s: count %d", where, b.Count)
	case !finite(b.Sum) || !finite(b.Min) || !finite(b.Max) || b.Min > b.Max:
		return fmt.Sprintf("%s: sum %v, min %v, max %v", where, b.Sum, b.Min, b.Max)
	case b.Count == 1 && (b.Min != b.Max || b.Sum != b.Min):
		return fmt.Sprintf("%s: one reading, but sum %v, min %v, max %v", where, b.Sum, b.Min, b.Max)
	case len(b.Raw) > 0 && !opts.KeepRaw:
		return fmt.Sprintf("%s: raw readings in a series that keeps none", where)
	case len(b.Raw) > b.Count:
		return fmt.Sprintf("%s: %d raw readings for a count of %d", where, len(b.Raw), b.Count)
	}
	for sec, r := range b.Raw {
		if sec < 0 || time.Duration(sec)*time.Second >= opts.Width || !(r >= b.Min && r <= b.Max) {
			return fmt.Sprintf("%s: raw reading %v at second %d, outside the bucket or its bounds", where, r, sec)
		}
	}
	return ""
}

// SensorSpan is one sensor of a series: how many buckets it has, and
// the starts of its first and last.
type SensorSpan struct {
	Sensor      string
	Buckets     int
	First, Last time.Time
}

// Sensors lists the sensors of the series in key order (bytewise), each
// with its buckets' count and span (RedisTimeSeries' QUERYINDEX, without
// labels). It reads every bucket's key.
func (s *Series) Sensors(tx keyspace.Tx) ([]SensorSpan, error) {
	var out []SensorSpan
	for k := range tx.Scan(s.sub.Range()) {
		t, err := s.sub.Unpack(k)
		sensor, ok1 := tupleAt[string](t, 0)
		start, ok2 := tupleAt[time.Time](t, 1)
		if err != nil || len(t) != 2 || !ok1 || !ok2 {
			return nil, s.wrap(fmt.Errorf("%w: bucket key %q", keyspace.ErrCorrupt, k))
		}
		if n := len(out); n == 0 || out[n-1].Sensor != sensor {
			out = append(out, SensorSpan{Sensor: sensor, First: start})
		}
		last := &out[len(out)-1]
		last.Buckets++
		last.Last = start
	}
	if err := tx.Err(); err != nil {
		return nil, s.wrap(err)
	}
	return out, nil
}

// tupleAt is t[i] as a T, if t has an i-th element of that type.
func tupleAt[T any](t composite.Tuple, i int) (T, bool) {
	var zero T
	if i >= len(t) {
		return zero, false
	}
	v, ok := t[i].(T)
	return v, ok
}

// Range returns the buckets of sensor that start in [from, to), in time
// order; the bucket holding from is the first. A zero from or to leaves
// that end open, as does a time beyond what a key can hold
// (composite.TimeBounds).
func (s *Series) Range(tx keyspace.Tx, sensor string, from, to time.Time) ([]Bucket, error) {
	if !from.IsZero() && !to.IsZero() && to.Before(from) {
		return nil, s.wrap(fmt.Errorf("range ends (%s) before it starts (%s)", to.Format(time.RFC3339Nano), from.Format(time.RFC3339Nano)))
	}
	if !from.IsZero() {
		from = from.UTC().Truncate(s.opts.Width) // the bucket holding it
	}
	var out []Bucket
	for _, v := range tx.Scan(s.sub.TimesBetween(composite.Tuple{sensor}, from, to)) {
		var b Bucket
		if err := json.Unmarshal(v, &b); err != nil {
			return nil, s.wrap(fmt.Errorf("%w: %v", keyspace.ErrCorrupt, err))
		}
		out = append(out, b)
	}
	return out, tx.Err()
}
