package expiry

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
)

// TestNanos: the instants an expiry may be, at their edges, and Time's
// inverse.
func TestNanos(t *testing.T) {
	_, last := composite.TimeBounds()
	for _, c := range []struct {
		at   time.Time
		want int64
		ok   bool
	}{
		{time.Time{}, 0, true},
		{time.Unix(0, 1), 1, true},
		{time.Unix(0, 0), 0, false},
		{time.Unix(-1, 0), 0, false},
		{last, last.UnixNano(), true},
		{last.Add(time.Nanosecond), 0, false},
		{time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC), 0, false},
	} {
		n, err := Nanos(c.at)
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, ErrOutOfRange)) || n != c.want {
			t.Errorf("Nanos(%v) = %d, %v; want %d, ok %v", c.at, n, err, c.want, c.ok)
		}
		if c.ok && !Time(n).Equal(c.at) {
			t.Errorf("Time(Nanos(%v)) = %v", c.at, Time(n))
		}
	}
	for _, c := range []struct {
		e  any
		ok bool
	}{{int64(5), true}, {uint64(5), true}, {int64(0), false}, {int64(-3), false}, {uint64(math.MaxUint64), false}, {"5", false}} {
		if _, ok := Element(c.e); ok != c.ok {
			t.Errorf("Element(%#v) ok %v, want %v", c.e, ok, c.ok)
		}
	}
}

// TestDueBy: the due range holds exactly the entries expiring at or
// before now, against a filter of every entry.
func TestDueBy(t *testing.T) {
	sub := composite.NewSubspace("t", "e")
	s := keyspace.NewMemory()
	expiries := []int64{1, 2, 999, 1000, 1001, math.MaxInt64 - 1, math.MaxInt64}
	s.Update(func(tx keyspace.Tx) error {
		for _, e := range expiries {
			if err := tx.Put(Key(sub, e, composite.Tuple{"id"}.Pack()), nil); err != nil {
				t.Fatal(err)
			}
		}
		return nil
	})
	for _, now := range []time.Time{time.Unix(-5, 0), time.Unix(0, 0), time.Unix(0, 1), time.Unix(0, 1000), time.Unix(0, math.MaxInt64), time.Date(2400, 1, 1, 0, 0, 0, 0, time.UTC)} {
		want := 0
		for _, e := range expiries {
			if now.After(time.Unix(0, e)) || now.Equal(time.Unix(0, e)) {
				want++
			}
		}
		got := 0
		s.View(func(tx keyspace.Tx) error {
			for range tx.Scan(DueBy(sub, now)) {
				got++
			}
			return nil
		})
		if got != want {
			t.Errorf("DueBy(%v): %d entries, want %d", now, got, want)
		}
	}
}

// TestNext: the soonest of the entries under a subspace, none when there
// are none (entries under a neighbouring subspace do not count), and a
// damaged entry is ErrCorrupt.
func TestNext(t *testing.T) {
	s := keyspace.NewMemory()
	sub, other := composite.NewSubspace("g", "a", "e"), composite.NewSubspace("g", "b", "e")
	next := func() (time.Time, bool, error) {
		var at time.Time
		var ok bool
		err := s.View(func(tx keyspace.Tx) (err error) { at, ok, err = Next(tx, sub); return err })
		return at, ok, err
	}
	put := func(k []byte) {
		if err := s.Update(func(tx keyspace.Tx) error { return tx.Put(k, nil) }); err != nil {
			t.Fatal(err)
		}
	}
	put(Key(other, 5, composite.AppendString(nil, "x")))
	if at, ok, err := next(); ok || err != nil {
		t.Fatalf("Next with no entries = %v, %v, %v", at, ok, err)
	}
	put(Key(sub, 300, composite.AppendString(nil, "late")))
	put(Key(sub, 200, composite.AppendString(nil, "soon")))
	if at, ok, err := next(); !ok || err != nil || at.UnixNano() != 200 {
		t.Fatalf("Next = %v, %v, %v; want 200 ns after 1970", at, ok, err)
	}
	put(append(sub.Bytes(), 0x01)) // sorts first, and is no expiry entry
	if _, _, err := next(); !errors.Is(err, keyspace.ErrCorrupt) {
		t.Fatalf("Next of a damaged entry: %v", err)
	}
}
