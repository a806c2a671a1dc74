package indextable

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
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
				lefts, err := rel.Lefts(tx, fmt.Sprint("i", i), 0)
				if err != nil || len(lefts) != 1 {
					t.Errorf("after dropping the table, Lefts(i%d) = %v, %v; want one link", i, lefts, err)
				}
			}
			return nil
		})
		dropAndCheck(rel.Drop, 30, "l", "f", "bk", "lf", "rf")
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

// TestRelationVerify: after random links, unlinks, re-links and field
// changes, a relation verifies clean; each damage done to its lists
// behind its back (an entry deleted, one added, one's fields changed) is
// reported, and nothing else is.
func TestRelationVerify(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(21, 22))
		rel := NewRelation("likes")
		at := time.Unix(1512099720, 0)
		for step := range 300 {
			err := s.Update(func(tx keyspace.Tx) error {
				left, right := fmt.Sprint("u", r.IntN(6)), fmt.Sprint("i", r.IntN(8))
				switch r.IntN(5) {
				case 0:
					return rel.Unlink(tx, left, right)
				case 1:
					_, err := rel.SetLeftFields(tx, left, []byte(fmt.Sprintf(`{"name":"n%d"}`, step)))
					return err
				case 2:
					_, err := rel.SetRightFields(tx, right, []byte(fmt.Sprintf(`{"title":"t%d"}`, step)))
					return err
				}
				return rel.Link(tx, left, right, at.Add(time.Duration(step)*time.Second))
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		verify := func() []string {
			var problems []string
			s.View(func(tx keyspace.Tx) (err error) { problems, err = rel.Verify(tx); return err })
			return problems
		}
		if p := verify(); len(p) > 0 {
			t.Fatalf("a relation kept by its own methods has problems: %v", p)
		}
		// Damage: delete the first forward entry, change the first back
		// entry's fields, add a back entry no link implies.
		var fwdKey, backKey []byte
		s.View(func(tx keyspace.Tx) error {
			for k := range tx.Scan(rel.fwd.Range()) {
				fwdKey = bytes.Clone(k)
				break
			}
			for k := range tx.Scan(rel.back.Range()) {
				backKey = bytes.Clone(k)
				break
			}
			return nil
		})
		stray := rel.back.Pack(composite.Tuple{"i99", composite.Desc{V: at.UTC()}, "u99"})
		err := s.Update(func(tx keyspace.Tx) error {
			return errors.Join(tx.Delete(fwdKey), tx.Put(backKey, []byte(`{"name":"forged"}`)), tx.Put(stray, nil))
		})
		if err != nil {
			t.Fatal(err)
		}
		got := verify()
		want := []string{"missing forward entry", "stale back entry", "stale back entry"}
		if len(got) != len(want) {
			t.Fatalf("Verify found %d problems, want %d: %q", len(got), len(want), got)
		}
		var kinds []string
		for _, p := range got {
			kinds = append(kinds, strings.Join(strings.Fields(p)[:3], " "))
		}
		slices.Sort(kinds)
		if !slices.Equal(kinds, want) {
			t.Errorf("Verify found %q, want problems of the kinds %q", got, want)
		}
		if !strings.Contains(strings.Join(got, "\n"), "forged") || !strings.Contains(strings.Join(got, "\n"), "u99") {
			t.Errorf("Verify does not name the forged fields and the stray entry: %q", got)
		}
	})
}
