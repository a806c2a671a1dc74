package enumkeys

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

// TestRename renames a log beside one whose name begins with its own:
// every parent's items, counts and parents read under the new name as
// under the old, the old name holds nothing, Verify finds nothing wrong,
// the next append goes on from the last id (not 1), the neighbour is
// untouched, and a rename onto a log with items is refused.
func TestRename(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		inbox, neighbour := NewLog("inbox"), NewLog("inbox2")
		at := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
		if err := s.Update(func(tx keyspace.Tx) error {
			for i := range 30 {
				parent := fmt.Sprint("u", i%3)
				if _, err := inbox.Append(tx, parent, at.Add(time.Duration(i)*time.Hour), []byte{byte(i)}); err != nil {
					return err
				}
				if i%5 == 0 {
					if _, err := neighbour.Append(tx, parent, at, []byte("n")); err != nil {
						return err
					}
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		read := func(l *Log) []any {
			var out []any
			s.View(func(tx keyspace.Tx) error {
				for _, parent := range []string{"u0", "u1", "u2", "u3"} {
					items, err := l.Latest(tx, parent, 100)
					n, err2 := l.Count(tx, parent)
					out = append(out, items, n, err, err2)
				}
				page, err := l.Parents(tx, nil)
				out = append(out, page, err)
				return nil
			})
			return out
		}
		before, neighbourBefore := read(inbox), read(neighbour)
		var renamed *Log
		if err := s.Update(func(tx keyspace.Tx) (err error) {
			renamed, err = inbox.Rename(tx, "mail")
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(read(renamed), before) {
			t.Error("the renamed log reads otherwise than before")
		}
		if !reflect.DeepEqual(read(neighbour), neighbourBefore) {
			t.Error("the log whose name begins with the renamed one's changed")
		}
		s.Update(func(tx keyspace.Tx) error {
			if problems, err := renamed.Verify(tx); err != nil || len(problems) > 0 {
				t.Errorf("Verify after the rename: %v, %v", problems, err)
			}
			if empty, err := inbox.Empty(tx); err != nil || !empty {
				t.Errorf("the old name still holds items: %v", err)
			}
			it, err := renamed.Append(tx, "u0", at, nil)
			if err != nil || it.ID != 11 {
				t.Errorf("the next append after the rename: id %d, %v; want 11", it.ID, err)
			}
			return nil
		})
		err := s.Update(func(tx keyspace.Tx) error {
			_, err := renamed.Rename(tx, "inbox2")
			return err
		})
		if !errors.Is(err, composite.ErrNotEmpty) {
			t.Errorf("a rename onto a log with items: %v, want ErrNotEmpty", err)
		}
		if !reflect.DeepEqual(read(neighbour), neighbourBefore) {
			t.Error("a refused rename changed the log it was refused onto")
		}
	})
}
