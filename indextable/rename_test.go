package indextable

import (
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/storetest"
)

type renamed struct {
	City string
	N    int
}

// TestRenameAgainstReads renames a table with an index (and records that
// expire), a relation and a series, beside a relation that shares the
// table's name and a table whose name begins with it: every record,
// index entry, link, count and bucket reads under the new name as under
// the old, Verify finds nothing wrong, the old names read empty, the
// neighbours are as they were, and a rename onto a name whose parts hold
// keys is refused before anything moves.
func TestRenameAgainstReads(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		at := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
		open := func(name string) (*Table[renamed], *Index[renamed]) {
			tb := New[renamed](name, nil)
			ix, err := tb.AddIndex(IndexSpec[renamed]{Name: "by_city", Values: func(r renamed) []composite.Tuple { return []composite.Tuple{{r.City}} }})
			if err != nil {
				t.Fatal(err)
			}
			return tb, ix
		}
		users, _ := open("users")
		neighbour, _ := open("users2")
		likes, shared := NewRelation("likes"), NewRelation("users")
		temps := NewSeries("temps", nil)
		if err := s.Update(func(tx keyspace.Tx) error {
			for i := range 40 {
				r := renamed{City: fmt.Sprint("c", i%4), N: i}
				if _, err := users.Put(tx, composite.Tuple{"u", i}, r); err != nil {
					return err
				}
				if i%3 == 0 {
					if err := users.SetExpiry(tx, composite.Tuple{"u", i}, at.Add(24*time.Hour*365*10)); err != nil {
						return err
					}
				}
				if _, err := neighbour.Put(tx, composite.Tuple{"u", i}, r); err != nil {
					return err
				}
				if err := likes.Link(tx, fmt.Sprint("u", i%5), fmt.Sprint("p", i), at.Add(time.Duration(i)*time.Minute)); err != nil {
					return err
				}
				if err := shared.Link(tx, "x", fmt.Sprint("y", i), at); err != nil {
					return err
				}
				if err := temps.Add(tx, fmt.Sprint("s", i%2), at.Add(time.Duration(i)*time.Minute), float64(i)); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		read := func(tb *Table[renamed], ix *Index[renamed], rel *Relation, se *Series) []any {
			var out []any
			if err := s.View(func(tx keyspace.Tx) error {
				var records []Record[renamed]
				if err := tb.Scan(tx, tb.Range(), func(r Record[renamed]) bool { records = append(records, r); return true }); err != nil {
					return err
				}
				page, err := ix.Scan(tx, ix.All(), nil)
				if err != nil {
					return err
				}
				out = append(out, records, page)
				for _, left := range []string{"u0", "u1", "x"} {
					links, err := rel.Rights(tx, left, nil)
					if err != nil {
						return err
					}
					n, err := rel.CountRights(tx, left)
					out = append(out, links, n, err)
				}
				if se != nil {
					for _, sensor := range []string{"s0", "s1"} {
						b, err := se.Range(tx, sensor, time.Time{}, time.Time{})
						out = append(out, b, err)
					}
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			return out
		}
		_, usersIx := open("users")
		neighbourTable, neighbourIx := open("users2")
		before := read(users, usersIx, likes, temps)
		neighbourBefore := read(neighbourTable, neighbourIx, shared, nil)
		if len(before[0].([]Record[renamed])) != 40 {
			t.Fatalf("the table holds %d records, not 40", len(before[0].([]Record[renamed])))
		}
		var likes2 *Relation
		var temps2 *Series
		if err := s.Update(func(tx keyspace.Tx) (err error) {
			if err = users.Rename(tx, "people"); err != nil {
				return err
			}
			if likes2, err = likes.Rename(tx, "fans"); err != nil {
				return err
			}
			temps2, err = temps.Rename(tx, "heat")
			return err
		}); err != nil {
			t.Fatal(err)
		}
		people, peopleIx := open("people")
		if after := read(people, peopleIx, likes2, temps2); !reflect.DeepEqual(after, before) {
			t.Error("the renamed table, relation and series read otherwise than before")
		}
		if !reflect.DeepEqual(read(neighbourTable, neighbourIx, shared, nil), neighbourBefore) {
			t.Error("the relation sharing the table's name, or the table whose name begins with it, changed")
		}
		_, oldIx := open("users")
		if old := read(users, oldIx, likes, temps); len(old[0].([]Record[renamed])) != 0 || len(old[1].(Page).Entries) != 0 || old[3].(int) != 0 {
			t.Error("the old names still read something")
		}
		s.View(func(tx keyspace.Tx) error {
			if problems, err := people.Verify(tx); err != nil || len(problems) > 0 {
				t.Errorf("the table's Verify: %v, %v", problems, err)
			}
			for _, check := range []func(keyspace.Tx) ([]string, error){likes2.Verify, temps2.Verify, shared.Verify} {
				if problems, err := check(tx); err != nil || len(problems) > 0 {
					t.Errorf("Verify after the rename: %v, %v", problems, err)
				}
			}
			return nil
		})
		// Onto the table called users2, and the relation called users:
		// refused, and nothing moves.
		for _, rename := range []func(tx keyspace.Tx) error{
			func(tx keyspace.Tx) error { return people.Rename(tx, "users2") },
			func(tx keyspace.Tx) error { _, err := likes2.Rename(tx, "users"); return err },
		} {
			if err := s.Update(rename); !errors.Is(err, composite.ErrNotEmpty) {
				t.Errorf("a rename onto a name that holds keys: %v, want ErrNotEmpty", err)
			}
		}
		if !reflect.DeepEqual(read(people, peopleIx, likes2, temps2), before) || !reflect.DeepEqual(read(neighbourTable, neighbourIx, shared, nil), neighbourBefore) {
			t.Error("a refused rename changed something")
		}
	})
}

// TestIndexRename renames an index of a table that has another whose
// name begins with it: its entries read under the new name as under the
// old, its build progress goes with it, the neighbour is as it was, a
// unique index declared under the new name still refuses a repeated
// value, and a rename onto a declared name, onto stray entries or to no
// name is refused with nothing moved.
func TestIndexRename(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		byCity := func(name string) IndexSpec[renamed] {
			unique := name == "by" || name == "by_town" // the one renamed
			return IndexSpec[renamed]{Name: name, Unique: unique, Values: func(r renamed) []composite.Tuple { return []composite.Tuple{{r.City, r.N}} }}
		}
		open := func(names ...string) (*Table[renamed], []*Index[renamed]) {
			tb := New[renamed]("users", nil)
			var out []*Index[renamed]
			for _, name := range names {
				ix, err := tb.AddIndex(byCity(name))
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, ix)
			}
			return tb, out
		}
		users, ixs := open("by", "by_city")
		at := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
		if err := s.Update(func(tx keyspace.Tx) error {
			for i := range 30 {
				if _, err := users.Put(tx, composite.Tuple{i}, renamed{City: fmt.Sprint("c", i%3), N: i}); err != nil {
					return err
				}
				if i%4 == 0 {
					if err := users.SetExpiry(tx, composite.Tuple{i}, at.Add(24*time.Hour*365*10)); err != nil {
						return err
					}
				}
			}
			return ixs[0].MarkUnbuilt(tx)
		}); err != nil {
			t.Fatal(err)
		}
		entries := func(ix *Index[renamed]) (Page, bool) {
			var page Page
			var pending bool
			if err := s.View(func(tx keyspace.Tx) (err error) {
				if page, err = ix.Scan(tx, ix.All(), nil); err != nil {
					return err
				}
				pending, err = ix.BuildPending(tx)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			return page, pending
		}
		before, pendingBefore := entries(ixs[0])
		neighbourBefore, _ := entries(ixs[1])
		if len(before.Entries) != 30 || !pendingBefore {
			t.Fatalf("before the rename: %d entries, pending %v; want 30 and true", len(before.Entries), pendingBefore)
		}
		refused := []struct {
			to   string
			want error
		}{{"by_city", ErrDuplicateIndex}, {"by", ErrDuplicateIndex}, {"", nil}}
		for _, r := range refused {
			err := s.Update(func(tx keyspace.Tx) error { return ixs[0].Rename(tx, r.to) })
			if err == nil || r.want != nil && !errors.Is(err, r.want) {
				t.Errorf("rename to %q: %v, want %v", r.to, err, r.want)
			}
		}
		// Build progress and an entry left by indexes the table no
		// longer declares.
		_, strays := open("stray")
		if err := s.Update(func(tx keyspace.Tx) error {
			if err := strays[0].MarkUnbuilt(tx); err != nil {
				return err
			}
			return tx.Put(composite.NewSubspace("x", "users", "i", "stray2").Pack(composite.Tuple{"z", 0, 99}), []byte{1})
		}); err != nil {
			t.Fatal(err)
		}
		for _, to := range []string{"stray", "stray2"} {
			if err := s.Update(func(tx keyspace.Tx) error { return ixs[0].Rename(tx, to) }); !errors.Is(err, composite.ErrNotEmpty) {
				t.Errorf("rename onto %s: %v, want ErrNotEmpty", to, err)
			}
		}
		if after, pending := entries(ixs[0]); !reflect.DeepEqual(after, before) || !pending {
			t.Fatal("a refused rename moved something")
		}
		if err := s.Update(func(tx keyspace.Tx) error { return ixs[0].Rename(tx, "by_town") }); err != nil {
			t.Fatal(err)
		}
		users.RemoveIndex(ixs[0])
		town, err := users.AddIndex(byCity("by_town"))
		if err != nil {
			t.Fatal(err)
		}
		if after, pending := entries(town); !reflect.DeepEqual(after, before) || !pending {
			t.Errorf("under the new name: %d entries, pending %v; want the %d entries of before and pending", len(after.Entries), pending, len(before.Entries))
		}
		if old, pending := entries(ixs[0]); len(old.Entries) != 0 || pending {
			t.Errorf("the old name still holds %d entries (pending %v)", len(old.Entries), pending)
		}
		if n, _ := entries(ixs[1]); !reflect.DeepEqual(n, neighbourBefore) {
			t.Error("the index whose name begins with the renamed one's changed")
		}
		if err := s.Update(func(tx keyspace.Tx) error {
			problems, err := town.Verify(tx)
			if err == nil && len(problems) > 0 {
				err = fmt.Errorf("%v", problems)
			}
			return err
		}); err != nil {
			t.Errorf("Verify under the new name: %v", err)
		}
		if err := s.Update(func(tx keyspace.Tx) error {
			_, err := users.Put(tx, composite.Tuple{100}, renamed{City: "c0", N: 0})
			return err
		}); !errors.Is(err, ErrUnique) {
			t.Errorf("a record repeating a value of the unique index under its new name: %v, want ErrUnique", err)
		}
	})
}
