package enumkeys

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/storetest"
)

// TestAppendAllWritesWhatAppendWrites: AppendAll of entries leaves a store
// holding exactly the keys and values that Append of the same entries,
// one at a time in their order, leaves in another, on top of items
// already there, and hands out the same ids.
func TestAppendAllWritesWhatAppendWrites(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, one keyspace.Store) {
		all := keyspace.NewMemory()
		defer all.Close()
		r := rand.New(rand.NewPCG(11, 12))
		parents := []string{"alice", "bob", "c:a\x00rol", strings.Repeat("p", 300)}
		base := time.Date(2020, 2, 29, 23, 0, 0, 0, time.FixedZone("x", 3600))
		entries := func(n int) []Entry {
			var out []Entry
			for i := range n {
				out = append(out, Entry{parents[r.IntN(len(parents))], base.Add(time.Duration(r.IntN(100_000)) * time.Second), []byte(fmt.Sprint("d", i))})
			}
			return out
		}
		log := NewLog("inbox")
		for round, n := range []int{50, 1, 200} {
			batch := entries(n)
			var want []uint64
			if err := one.Update(func(tx keyspace.Tx) error {
				for _, e := range batch {
					it, err := log.Append(tx, e.Parent, e.At, e.Data)
					if err != nil {
						return err
					}
					want = append(want, it.ID)
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			var got []uint64
			if err := all.Update(func(tx keyspace.Tx) (err error) {
				got, err = log.AppendAll(tx, batch)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("round %d: AppendAll ids %v, Append %v", round, got, want)
			}
			if a, b := storetest.Contents(t, all), storetest.Contents(t, one); !maps.Equal(a, b) {
				t.Fatalf("round %d: AppendAll left %d keys, Append %d, or other values", round, len(a), len(b))
			}
		}
	})
}

// TestAppendAllRefusesAll: a bad entry is an *EntryError naming it, with
// the sentinel it wraps, and nothing is written; a zero time is now.
func TestAppendAllRefusesAll(t *testing.T) {
	s := keyspace.NewMemory()
	defer s.Close()
	log := NewLog("l")
	ok := Entry{"p", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), []byte("x")}
	for _, tc := range []struct {
		bad  Entry
		want error
	}{
		{Entry{"", ok.At, nil}, ErrEmptyParent},
		{Entry{"p", time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC), nil}, ErrBadTime},
		{Entry{strings.Repeat("p", keyspace.MaxKeySize), ok.At, nil}, keyspace.ErrKeyTooLarge},
	} {
		err := storetest.RefusedChangesNothing(t, s, func(tx keyspace.Tx) error {
			_, err := log.AppendAll(tx, []Entry{ok, ok, tc.bad, ok})
			return err
		})
		var ee *EntryError
		if !errors.As(err, &ee) || ee.Index != 2 || !errors.Is(err, tc.want) {
			t.Errorf("AppendAll with %.20q: %v, want entry 2 refused with %v", tc.bad.Parent, err, tc.want)
		}
		if !strings.HasPrefix(fmt.Sprint(err), "enumkeys: log l: entry 2: ") || strings.Count(fmt.Sprint(err), "enumkeys") > 1 {
			t.Errorf("the error %q does not name the log and the entry once", err)
		}
		if v := log.Validate(tc.bad.Parent, tc.bad.At); !errors.Is(v, tc.want) {
			t.Errorf("Validate(%.20q) = %v, want %v", tc.bad.Parent, v, tc.want)
		}
	}
	before := time.Now()
	if err := s.Update(func(tx keyspace.Tx) error { _, err := log.AppendAll(tx, []Entry{{Parent: "p"}}); return err }); err != nil {
		t.Fatal(err)
	}
	s.View(func(tx keyspace.Tx) error {
		it, err := log.Get(tx, "p", 1)
		if err != nil || it.Time.Before(before.Truncate(time.Nanosecond)) || it.Time.After(time.Now()) {
			t.Errorf("an entry without a time: %+v, %v; want now", it, err)
		}
		return nil
	})
}
