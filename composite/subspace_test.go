package composite

import (
	"bytes"
	"fmt"
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
