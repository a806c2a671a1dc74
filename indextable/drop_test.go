package indextable

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/storetest"
)

// TestDrop drops a table, then a relation of the same name, among a table
// whose name starts with theirs: each time exactly the dropped one's keys
// go (decided by unpacking every key), and Drop reports its records or
// links.
func TestDrop(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		type fan struct{ City string }
		byCity := IndexSpec[fan]{Name: "city", Values: func(f fan) []composite.Tuple { return []composite.Tuple{{f.City}} }}
		table, other := New[fan]("likes", nil), New[fan]("likes2", nil)
		for _, tb := range []*Table[fan]{table, other} {
			if _, err := tb.AddIndex(byCity); err != nil {
				t.Fatal(err)
			}
		}
		rel := NewRelation("likes")
		at := time.Unix(1512099720, 0)
		err := s.Update(func(tx keyspace.Tx) error {
			for i := range 30 {
				for _, tb := range []*Table[fan]{table, other} {
					if _, err := tb.Put(tx, composite.Tuple{int64(i)}, fan{City: fmt.Sprint("c", i%4)}); err != nil {
						return err
					}
				}
				if err := rel.Link(tx, fmt.Sprint("u", i%5), fmt.Sprint("i", i), at.Add(time.Duration(i)*time.Second)); err != nil {
					return err
				}
			}
			_, err := rel.SetLeftFields(tx, "u1", []byte(`{"name":"jerrylou"}`))
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		dropAndCheck := func(drop func(tx keyspace.Tx) (int, error), want int, tags ...string) {
			t.Helper()
			storetest.CheckDrop(t, s, drop, want, func(key string) bool {
				k, err := composite.Unpack([]byte(key))
				return err == nil && len(k) > 2 && k[0] == "x" && k[1] == "likes" && slices.Contains(tags, k[2].(string))
			})
		}
		dropAndCheck(table.Drop, 30, "r", "i", "b")
		// The relation of the same name lost nothing, in either direction.
		s.View(func(tx keyspace.Tx) error {
			for i := range 30 {
				lefts, err := rel.Lefts(tx, fmt.Sprint("i", i), nil)
				if err != nil || len(lefts.Links) != 1 {
					t.Errorf("after dropping the table, Lefts(i%d) = %v, %v; want one link", i, lefts, err)
				}
			}
			return nil
		})
		dropAndCheck(rel.Drop, 30, "l", "f", "bk", "lf", "rf", "lc", "rc")
		// The declarations stay: a write after Drop is indexed as before.
		err = s.Update(func(tx keyspace.Tx) error {
			_, err := table.Put(tx, composite.Tuple{int64(1)}, fan{City: "oslo"})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		s.View(func(tx keyspace.Tx) error {
			problems, err := table.Indexes()[0].Verify(tx)
			if err != nil || len(problems) > 0 {
				t.Errorf("index after Drop and a Put: %v, %v", problems, err)
			}
			return nil
		})
	})
}
