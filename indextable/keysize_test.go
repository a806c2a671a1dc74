package indextable

import (
	"errors"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/storetest"
)

// rowWrite is one of the ways a row is written.
type rowWrite struct {
	name  string
	write func(tb *Table[user], tx keyspace.Tx, row Row[user]) error
}

var rowWrites = []rowWrite{
	{"Put", func(tb *Table[user], tx keyspace.Tx, row Row[user]) error {
		if _, err := tb.Put(tx, row.Key, row.Value); err != nil {
			return err
		}
		return tb.SetExpiry(tx, row.Key, row.Expires)
	}},
	{"CompareAndSet", func(tb *Table[user], tx keyspace.Tx, row Row[user]) error {
		_, err := tb.CompareAndSet(tx, row.Key, 0, row.Value)
		return err
	}},
	{"PutAll", func(tb *Table[user], tx keyspace.Tx, row Row[user]) error {
		return tb.PutAll(tx, []Row[user]{{Key: composite.Tuple{"other"}, Value: user{City: "Oslo"}}, row})
	}},
}

// TestKeysAtTheLimit: the longest primary key (in a table with no
// indexes, where the record's expiry entry is its longest key) and the
// longest indexed field (in a table with indexes) that Validate accepts,
// found by bisection, are written by Put with SetExpiry, CompareAndSet
// and PutAll, as the store itself, which refuses keys past MaxKeySize, is
// the judge; one byte more is refused by Validate and by each write with
// ErrKeyTooLarge, and nothing is written, even in the transaction that
// saw the refusal. A record with a long field written before its index
// was declared stops Build with that error, and can still be deleted.
func TestKeysAtTheLimit(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		indexed, ix := usersTable(t)
		soon := time.Now().Add(time.Hour)
		for _, c := range []struct {
			name string
			tb   *Table[user]
			row  func(n int) Row[user] // a row with something n bytes long
		}{
			{"primary key", New[user]("plain", nil), func(n int) Row[user] {
				return Row[user]{Key: composite.Tuple{"k", strings.Repeat("\x00", n)}, Value: user{City: "Lima"}, Expires: soon}
			}},
			{"indexed field", indexed, func(n int) Row[user] {
				return Row[user]{Key: composite.Tuple{"k"}, Value: user{City: strings.Repeat("c", n)}, Expires: soon}
			}},
		} {
			longest := sort.Search(keyspace.MaxKeySize, func(n int) bool { return c.tb.Validate(c.row(n+1)) != nil })
			if longest < keyspace.MaxKeySize/2-100 {
				t.Fatalf("%s: Validate accepts at most %d bytes", c.name, longest)
			}
			over, fits := c.row(longest+1), c.row(longest)
			if err := c.tb.Validate(over); !errors.Is(err, keyspace.ErrKeyTooLarge) || !strings.Contains(err.Error(), "bytes (the most is") {
				t.Fatalf("%s: Validate(%d bytes) = %v, want ErrKeyTooLarge", c.name, longest+1, err)
			}
			for _, w := range rowWrites {
				if err := storetest.RefusedChangesNothing(t, s, func(tx keyspace.Tx) error { return w.write(c.tb, tx, over) }); !errors.Is(err, keyspace.ErrKeyTooLarge) {
					t.Errorf("%s %s(%d bytes) = %v, want ErrKeyTooLarge", c.name, w.name, longest+1, err)
				}
				if err := s.Update(func(tx keyspace.Tx) error { return w.write(c.tb, tx, fits) }); err != nil {
					t.Fatalf("%s %s(%d bytes): %v", c.name, w.name, longest, err)
				}
				s.View(func(tx keyspace.Tx) error {
					if got, err := c.tb.Get(tx, fits.Key); err != nil || got.Value.City != fits.Value.City {
						t.Errorf("%s %s: Get: %v", c.name, w.name, err)
					}
					if page, err := ix.city.Scan(tx, ix.city.Equal(fits.Value.City), nil); c.tb == indexed && (err != nil || len(page.Entries) != 1) {
						t.Errorf("%s %s: the city index finds %d entries, %v", c.name, w.name, len(page.Entries), err)
					}
					return nil
				})
				if err := s.Update(func(tx keyspace.Tx) error {
					for _, k := range []composite.Tuple{fits.Key, {"other"}} {
						if err := c.tb.Delete(tx, k); err != nil {
							return err
						}
					}
					return nil
				}); err != nil {
					t.Fatal(err)
				}
			}
		}

		// A record written before an index on its long field was declared.
		plain := New[user]("users", nil)
		long := user{Name: strings.Repeat("n", keyspace.MaxKeySize)}
		if err := s.Update(func(tx keyspace.Tx) error { _, err := plain.Put(tx, composite.Tuple{"late"}, long); return err }); err != nil {
			t.Fatal(err)
		}
		byName, err := indexed.AddIndex(IndexSpec[user]{Name: "by_name", Values: func(u user) []composite.Tuple { return []composite.Tuple{{u.Name}} }})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := byName.Build(s, nil); !errors.Is(err, keyspace.ErrKeyTooLarge) {
			t.Errorf("Build over a record with a %d-byte name: %v, want ErrKeyTooLarge", len(long.Name), err)
		}
		if err := s.Update(func(tx keyspace.Tx) error { return indexed.Delete(tx, composite.Tuple{"late"}) }); err != nil {
			t.Errorf("deleting the record Build refused: %v", err)
		}
	})
}
