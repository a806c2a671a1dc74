package composite

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/storetest"
)

// TestTimesBetween: the range holds exactly the keys whose time lies in
// [from, to), by a filter over the times, with zero ends open and ends a
// key cannot hold (years 1 and 3000) open or empty, never a panic; the
// keys include the first and last instants a key holds, and the same
// times under a neighbouring prefix, which must stay out.
func TestTimesBetween(t *testing.T) {
	first, last := TimeBounds()
	base := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	times := []time.Time{first, first.Add(time.Nanosecond), base.Add(-time.Hour), base, base.Add(time.Nanosecond), base.Add(time.Hour), last.Add(-time.Nanosecond), last}
	ends := []time.Time{{}, time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), first, base, base.Add(time.Nanosecond), base.Add(30 * time.Minute), last, time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)}
	sub := NewSubspace("t")
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		if err := s.Update(func(tx keyspace.Tx) error {
			for i, at := range times {
				for _, sensor := range []string{"a", "a\x00", "b"} {
					if err := tx.Put(sub.Pack(Tuple{sensor, at}), []byte{byte(i)}); err != nil {
						return err
					}
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		s.View(func(tx keyspace.Tx) error {
			for _, from := range ends {
				for _, to := range ends {
					var want []byte
					for i, at := range times {
						if (from.IsZero() || !at.Before(from)) && (to.IsZero() || at.Before(to)) {
							want = append(want, byte(i))
						}
					}
					var got []byte
					for _, v := range tx.Scan(sub.TimesBetween(Tuple{"a"}, from, to)) {
						got = append(got, v...)
					}
					if !bytes.Equal(got, want) {
						t.Errorf("[%s, %s): times %v, want %v", fmt.Sprint(from), fmt.Sprint(to), got, want)
					}
				}
			}
			return tx.Err()
		})
	})
}

// TestSubspaceNestingAndClear: Sub nests as NewSubspace with the longer
// prefix does; SubspaceFromBytes of a subspace's Bytes is that subspace,
// and Bytes is a copy; RangeOf holds exactly the keys whose tuple starts
// with the given elements (a filter over the unpacked keys, with strings
// that are prefixes of each other and continue past a zero byte); Clear
// deletes the keys of each subspace given, counts them apart, and leaves
// every other key.
func TestSubspaceNestingAndClear(t *testing.T) {
	outer := NewSubspace("g", "a")
	if got, want := outer.Sub("b", int64(3)).Pack(Tuple{"x"}), NewSubspace("g", "a", "b", int64(3)).Pack(Tuple{"x"}); !bytes.Equal(got, want) {
		t.Errorf("Sub packs %x, NewSubspace %x", got, want)
	}
	raw := outer.Bytes()
	again := SubspaceFromBytes(raw)
	raw[0] ^= 0xff // Bytes is a copy: the subspaces keep their prefix
	if !bytes.Equal(again.Pack(Tuple{1}), outer.Pack(Tuple{1})) || !bytes.Equal(outer.Bytes(), NewSubspace("g", "a").Bytes()) {
		t.Errorf("SubspaceFromBytes(Bytes) packs %x, the subspace %x", again.Pack(Tuple{1}), outer.Pack(Tuple{1}))
	}
	names := []string{"", "C", "CA", "CA\x00", "CA\x00x", "CB"}
	var keys []Tuple
	for _, a := range names {
		keys = append(keys, Tuple{a})
		for _, b := range names {
			keys = append(keys, Tuple{a, b}, Tuple{a, b, int64(len(b))})
		}
	}
	neighbour := NewSubspace("g", "a\x00") // a subspace beside outer
	other := NewSubspace("h")
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		if err := s.Update(func(tx keyspace.Tx) error {
			for _, k := range keys {
				for _, sub := range []Subspace{outer, neighbour, other} {
					if err := tx.Put(sub.Pack(k), nil); err != nil {
						return err
					}
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		s.View(func(tx keyspace.Tx) error {
			for _, prefix := range []Tuple{{}, {"CA"}, {"CA\x00"}, {"C"}, {"CA", "CA"}, {"CA", "CA\x00", int64(3)}, {"Z"}} {
				var got, want []string
				for k := range tx.Scan(outer.RangeOf(prefix)) {
					tup, err := outer.Unpack(k)
					if err != nil {
						t.Fatalf("RangeOf(%q) holds %x: %v", prefix, k, err)
					}
					got = append(got, fmt.Sprintf("%q", tup))
				}
				for _, k := range keys {
					if len(k) >= len(prefix) && compareTuples(k[:len(prefix)], prefix) == 0 {
						want = append(want, fmt.Sprintf("%q", k))
					}
				}
				slices.Sort(got)
				slices.Sort(want)
				if !slices.Equal(got, want) {
					t.Errorf("RangeOf(%q): %d keys %v, want %d %v", prefix, len(got), got, len(want), want)
				}
			}
			return tx.Err()
		})
		var counts []int
		if err := s.Update(func(tx keyspace.Tx) (err error) {
			counts, err = Clear(tx, outer, other)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(counts, []int{len(keys), len(keys)}) {
			t.Errorf("Clear counted %v, want %d in each", counts, len(keys))
		}
		s.View(func(tx keyspace.Tx) error {
			n := 0
			for k := range tx.Scan(keyspace.Range{}) {
				if !neighbour.Contains(k) {
					t.Errorf("Clear left %x, outside the subspace it keeps", k)
				}
				n++
			}
			if n != len(keys) {
				t.Errorf("Clear left %d keys, want the neighbour's %d", n, len(keys))
			}
			return tx.Err()
		})
	})
}
