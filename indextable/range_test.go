package indextable

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/storetest"
)

// TestBetweenAgainstModel: records keyed (user, ts, id), users with zero
// bytes and prefixes of one another, read by Scan over Between with and
// without a user, each end open or not, must be the model's keys in that
// range, in the order the test works out itself (text by bytes, numbers
// by value).
func TestBetweenAgainstModel(t *testing.T) {
	type key struct {
		user   string
		ts, id int64
	}
	order := func(a, b key) int {
		return cmp.Or(strings.Compare(a.user, b.user), cmp.Compare(a.ts, b.ts), cmp.Compare(a.id, b.id))
	}
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(49, 3))
		users := []string{"a", "a\x00", "ab", "b", ""}
		tb := New[int]("messages", nil)
		var model []key
		if err := s.Update(func(tx keyspace.Tx) error {
			for range 400 {
				k := key{users[r.IntN(len(users))], r.Int64N(61) - 30, r.Int64N(3)}
				if !slices.Contains(model, k) {
					model = append(model, k)
				}
				if _, err := tb.Put(tx, composite.Tuple{k.user, k.ts, k.id}, 1); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		slices.SortFunc(model, order)
		// in reports whether k lies in the range: under prefix (its user,
		// when given), the next component (the user, else ts) from from
		// (nil: open) and before to.
		in := func(k key, prefix, from, to composite.Tuple) bool {
			if prefix == nil {
				return (from == nil || k.user >= from[0].(string)) && (to == nil || k.user < to[0].(string))
			}
			return k.user == prefix[0] && (from == nil || k.ts >= from[0].(int64)) && (to == nil || k.ts < to[0].(int64))
		}
		for i := range 300 {
			var prefix, from, to composite.Tuple
			bound := func() composite.Tuple {
				switch {
				case r.IntN(4) == 0:
					return nil
				case prefix == nil:
					return composite.Tuple{users[r.IntN(len(users))] + []string{"", "\x00", "a"}[r.IntN(3)]}
				}
				return composite.Tuple{r.Int64N(71) - 35}
			}
			if i%4 > 0 {
				prefix = composite.Tuple{users[r.IntN(len(users))]}
			}
			from, to = bound(), bound()
			var want, got []string
			for _, k := range model {
				if in(k, prefix, from, to) {
					want = append(want, fmt.Sprint(k))
				}
			}
			s.View(func(tx keyspace.Tx) error {
				if err := tb.Scan(tx, tb.Between(prefix, from, to), func(rec Record[int]) bool {
					got = append(got, fmt.Sprint(key{rec.Key[0].(string), rec.Key[1].(int64), rec.Key[2].(int64)}))
					return true
				}); err != nil {
					t.Fatal(err)
				}
				return nil
			})
			if !slices.Equal(got, want) {
				t.Fatalf("Between(%q, %v, %v): %v, want %v", prefix, from, to, got, want)
			}
		}
	})
}

// TestRangeOfAgainstModel: records keyed (user, ts), users with zero bytes
// and prefixes of one another, read by Scan over Range, RangeOf a user or
// a user and a time, and a text query over Records ("a*": the users that
// start with a), must be the model's keys that match, in key order.
func TestRangeOfAgainstModel(t *testing.T) {
	type key struct {
		user string
		ts   int64
	}
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		users := []string{"a", "a\x00", "ab", "b", ""}
		tb := New[int]("events", nil)
		if tb.Name() != "events" {
			t.Fatalf("Name() = %q", tb.Name())
		}
		var model []key
		for _, u := range users {
			for ts := int64(-2); ts <= 2; ts++ {
				model = append(model, key{u, ts})
			}
		}
		if err := s.Update(func(tx keyspace.Tx) error {
			for _, k := range model {
				if _, err := tb.Put(tx, composite.Tuple{k.user, k.ts}, 1); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		slices.SortFunc(model, func(a, b key) int { return cmp.Or(strings.Compare(a.user, b.user), cmp.Compare(a.ts, b.ts)) })
		read := func(r keyspace.Range) []key {
			var got []key
			s.View(func(tx keyspace.Tx) error {
				if err := tb.Scan(tx, r, func(rec Record[int]) bool {
					got = append(got, key{rec.Key[0].(string), rec.Key[1].(int64)})
					return true
				}); err != nil {
					t.Fatal(err)
				}
				return nil
			})
			return got
		}
		filter := func(keep func(key) bool) []key {
			var out []key
			for _, k := range model {
				if keep(k) {
					out = append(out, k)
				}
			}
			return out
		}
		if got := read(tb.Range()); !slices.Equal(got, model) {
			t.Errorf("Range: %v, want %v", got, model)
		}
		for _, u := range users {
			if got, want := read(tb.RangeOf(composite.Tuple{u})), filter(func(k key) bool { return k.user == u }); !slices.Equal(got, want) {
				t.Errorf("RangeOf(%q): %v, want %v", u, got, want)
			}
			if got, want := read(tb.RangeOf(composite.Tuple{u, int64(1)})), filter(func(k key) bool { return k.user == u && k.ts == 1 }); !slices.Equal(got, want) {
				t.Errorf("RangeOf(%q, 1): %v, want %v", u, got, want)
			}
		}
		q, err := composite.ParseQuery("a*", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := read(q.Range(tb.Records())), filter(func(k key) bool { return strings.HasPrefix(k.user, "a") }); !slices.Equal(got, want) {
			t.Errorf("a* over Records: %v, want %v", got, want)
		}
	})
}
