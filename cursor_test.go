package keyspace_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/storetest"
)

// Paging through a range with cursors, across separate transactions and with
// inserts between pages, returns exactly what one scan of the final state
// would, page boundaries excepted: keys inserted behind the cursor are not
// revisited, keys ahead of it are seen.
func TestCursorPaging(t *testing.T) {
	s := keyspace.NewMemory()
	m := storetest.Model{}
	for i := 0; i < 100; i += 2 {
		m[fmt.Sprintf("k%03d", i)] = "v"
	}
	for k, v := range m {
		s.Update(func(tx keyspace.Tx) error { return tx.Put([]byte(k), []byte(v)) })
	}
	for _, reverse := range []bool{false, true} {
		r := keyspace.Range{Start: []byte("k010"), End: []byte("k090"), Reverse: reverse}
		want := m.Scan(r)
		var got []storetest.Pair
		cursor := ""
		for page := 0; ; page++ {
			rr, err := r.Resume(cursor)
			if err != nil {
				t.Fatal(err)
			}
			rr.Limit = 7
			var last []byte
			s.View(func(tx keyspace.Tx) error {
				ps, err := storetest.Collect(tx, rr)
				got = append(got, ps...)
				if len(ps) > 0 {
					last = []byte(ps[len(ps)-1].Key)
				}
				return err
			})
			if last == nil {
				break
			}
			cursor = r.Cursor(last)
		}
		if !slices.Equal(got, want) {
			t.Errorf("reverse=%v: pages gave %v, want %v", reverse, got, want)
		}
	}
	r := keyspace.Prefix([]byte("k"))
	tok := r.Cursor([]byte("k050"))
	for name, bad := range map[string]string{
		"garbage":        "!!!",
		"empty payload":  "AQ",
		"other range":    keyspace.Prefix([]byte("j")).Cursor([]byte("j1")),
		"other way":      keyspace.Range{Start: r.Start, End: r.End, Reverse: true}.Cursor([]byte("k050")),
		"truncated":      tok[:5],
		"outside bounds": r.Cursor([]byte("z")),
	} {
		if _, err := r.Resume(bad); !errors.Is(err, keyspace.ErrBadCursor) {
			t.Errorf("%s: Resume = %v, want ErrBadCursor", name, err)
		}
	}
}
