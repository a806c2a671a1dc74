package keyspace_test

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
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

// ScanPage pages through a range, forward and reverse, at several page
// sizes, with and without a decode that skips pairs; the pages together
// are exactly one scan of a sorted reference map (less the skipped
// pairs), every page but the last is full and carries a cursor, and a foreign
// cursor or a decode error stops it with that error.
func TestScanPageAgainstModel(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		m := storetest.Model{}
		for i := 0; i < 50; i++ {
			m[fmt.Sprintf("p%03d", i*3)] = fmt.Sprint(i)
		}
		if err := s.Update(func(tx keyspace.Tx) error {
			for k, v := range m {
				if err := tx.Put([]byte(k), []byte(v)); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		pair := func(k, v []byte) (storetest.Pair, error) {
			return storetest.Pair{Key: string(k), Value: string(v)}, nil
		}
		// skipping leaves out the values ending in 0 or 5, with ErrSkip.
		skipping := func(k, v []byte) (storetest.Pair, error) {
			if v[len(v)-1] == '0' || v[len(v)-1] == '5' {
				return storetest.Pair{}, keyspace.ErrSkip
			}
			return pair(k, v)
		}
		for _, c := range []struct {
			reverse, skip bool
		}{{false, false}, {true, false}, {false, true}, {true, true}} {
			reverse := c.reverse
			r := keyspace.Range{Start: []byte("p010"), End: []byte("p120"), Reverse: reverse}
			want, decode := m.Scan(r), pair
			if c.skip {
				want = slices.DeleteFunc(want, func(p storetest.Pair) bool { return strings.HasSuffix(p.Value, "0") || strings.HasSuffix(p.Value, "5") })
				decode = skipping
			}
			for _, limit := range []int{0, 1, 3, 7, 100} {
				var got []storetest.Pair
				cursor := ""
				for pages := 0; ; pages++ {
					var page []storetest.Pair
					var next string
					s.View(func(tx keyspace.Tx) error {
						var err error
						page, next, err = keyspace.ScanPage(tx, r, cursor, limit, decode)
						if err != nil {
							t.Fatal(err)
						}
						return nil
					})
					got = append(got, page...)
					if next == "" {
						break
					}
					if len(page) != limit || pages > len(want) {
						t.Fatalf("limit %d: a page of %d with a next cursor", limit, len(page))
					}
					cursor = next
				}
				if !slices.Equal(got, want) {
					t.Fatalf("reverse %v, skip %v, limit %d: pages give %v, want %v", reverse, c.skip, limit, got, want)
				}
			}
		}
		s.View(func(tx keyspace.Tx) error {
			r := keyspace.Range{Start: []byte("p")}
			_, next, _ := keyspace.ScanPage(tx, r, "", 2, pair)
			other := keyspace.Range{Start: []byte("q")}
			if _, _, err := keyspace.ScanPage(tx, other, next, 2, pair); !errors.Is(err, keyspace.ErrBadCursor) {
				t.Errorf("foreign cursor: %v", err)
			}
			bad := errors.New("bad value")
			n := 0
			items, _, err := keyspace.ScanPage(tx, r, "", 0, func(k, v []byte) (string, error) {
				if n++; n == 4 {
					return "", bad
				}
				return string(k), nil
			})
			if !errors.Is(err, bad) || items != nil || n != 4 {
				t.Errorf("decode error: %v, %v after %d pairs", err, items, n)
			}
			return nil
		})
	})
}

// FuzzResume: for any range and any token, Resume returns ErrBadCursor or
// a range inside the original; and for any key inside a range, the token
// Cursor makes for it resumes exactly after it (before it, in reverse).
func FuzzResume(f *testing.F) {
	f.Add([]byte("k"), []byte("l"), false, []byte("k050"), "")
	f.Add([]byte{}, []byte{}, true, []byte{0x00}, "AQ")
	f.Add([]byte("a\x00"), []byte("a\xff"), false, []byte("a\x00\x00"), "not base64!")
	f.Add([]byte(nil), []byte("z"), true, []byte("m"), keyspace.Range{}.Cursor([]byte("m")))
	f.Fuzz(func(t *testing.T, start, end []byte, reverse bool, last []byte, token string) {
		for _, r := range []keyspace.Range{
			{Start: start, End: end, Reverse: reverse},
			{Start: start, Reverse: reverse}, // open above
			{End: end, Reverse: reverse},     // open below
		} {
			inside := func(k []byte) bool {
				return (r.Start == nil || bytes.Compare(k, r.Start) >= 0) && (r.End == nil || bytes.Compare(k, r.End) < 0)
			}
			if rr, err := r.Resume(token); err != nil {
				if !errors.Is(err, keyspace.ErrBadCursor) {
					t.Fatalf("Resume(%q) = %v, want ErrBadCursor", token, err)
				}
			} else if token != "" && (bytes.Compare(rr.Start, r.Start) < 0 || r.End != nil && (rr.End == nil || bytes.Compare(rr.End, r.End) > 0)) {
				t.Fatalf("Resume(%q) on %+v widened it to %+v", token, r, rr)
			}
			if !inside(last) {
				continue
			}
			rr, err := r.Resume(r.Cursor(last))
			if err != nil {
				t.Fatalf("Resume(Cursor(%q)) on %+v: %v", last, r, err)
			}
			// The keys the resumed range holds are exactly the keys of r
			// past last in r's direction: check last, the key right after
			// it, and the bounds.
			for _, k := range [][]byte{last, append(bytes.Clone(last), 0x00), start, end} {
				past := bytes.Compare(k, last) > 0
				if reverse {
					past = bytes.Compare(k, last) < 0
				}
				want := inside(k) && past
				got := (rr.Start == nil || bytes.Compare(k, rr.Start) >= 0) && (rr.End == nil || bytes.Compare(k, rr.End) < 0)
				if got != want {
					t.Fatalf("%+v resumed after %q as %+v: holds %q = %v, want %v", r, last, rr, k, got, want)
				}
			}
		}
	})
}
