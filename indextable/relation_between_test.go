package indextable

import (
	"cmp"
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

// TestRelationBetweenAgainstModel: links made at times that repeat, then
// moved and removed, listed by RightsBetween and LeftsBetween over
// windows whose ends fall on link times, between them, open, and beyond
// the times a key can hold, in both directions a page at a time: each
// must be the model's links of the window, newest first (ties by the
// other side's id), as the test orders them itself, and
// CountRightsBetween and CountLeftsBetween must count them; a period that
// ends before it starts is ErrBadPeriod.
func TestRelationBetweenAgainstModel(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(49, 4))
		rel := NewRelation("likes")
		base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
		at := func(i int) time.Time { return base.Add(time.Duration(i) * time.Hour) }
		type link struct {
			left, right string
			when        time.Time
		}
		model := map[[2]string]time.Time{}
		users, items := []string{"u1", "u2", "u\x00"}, []string{"i1", "i2", "i3", "i\x00", "j"}
		for range 200 {
			err := s.Update(func(tx keyspace.Tx) error {
				pair := [2]string{users[r.IntN(len(users))], items[r.IntN(len(items))]}
				if r.IntN(5) == 0 {
					if _, err := rel.Unlink(tx, pair[0], pair[1]); err != nil {
						return err
					}
					delete(model, pair)
					return nil
				}
				when := at(r.IntN(30))
				model[pair] = when
				return rel.Link(tx, pair[0], pair[1], when)
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		first, last := composite.TimeBounds()
		ends := []time.Time{{}, at(-1), at(0), at(7), at(7).Add(time.Nanosecond), at(15).Add(-time.Nanosecond), at(29), at(40), first, last, first.Add(-time.Hour), last.Add(time.Hour)}
		several := 0 // windows of more than two links
		for i := range 400 {
			since, until := ends[r.IntN(len(ends))], ends[r.IntN(len(ends))]
			right := i%2 == 0 // a user's list, else an item's
			id := users[r.IntN(len(users))]
			if !right {
				id = items[r.IntN(len(items))]
			}
			var want []string
			var links []link
			for pair, when := range model {
				mine, other := pair[0], pair[1]
				if !right {
					mine, other = pair[1], pair[0]
				}
				if mine == id && (since.IsZero() || !when.Before(since)) && (until.IsZero() || when.Before(until)) {
					links = append(links, link{mine, other, when})
				}
			}
			slices.SortFunc(links, func(a, b link) int { return cmp.Or(b.when.Compare(a.when), strings.Compare(a.right, b.right)) })
			for _, l := range links {
				want = append(want, fmt.Sprintf("%s@%s", l.right, l.when.Format(time.RFC3339Nano)))
			}
			reverse := i%3 == 0
			if reverse {
				slices.Reverse(want)
			}
			if !since.IsZero() && !until.IsZero() && until.Before(since) {
				s.View(func(tx keyspace.Tx) error {
					_, err := rel.RightsBetween(tx, id, since, until, nil)
					_, cerr := rel.CountLeftsBetween(tx, id, since, until)
					if !errors.Is(err, ErrBadPeriod) || !errors.Is(cerr, ErrBadPeriod) {
						t.Fatalf("[%v, %v): %v and %v, want ErrBadPeriod", since, until, err, cerr)
					}
					return nil
				})
				continue
			}
			var got []string
			cursor := ""
			for page := 0; page < 100; page++ {
				var p LinkPage
				err := s.View(func(tx keyspace.Tx) error {
					var err error
					opts := &ListOptions{Limit: 1 + i%4, Cursor: cursor, Reverse: reverse}
					if right {
						p, err = rel.RightsBetween(tx, id, since, until, opts)
					} else {
						p, err = rel.LeftsBetween(tx, id, since, until, opts)
					}
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				for _, l := range p.Links {
					got = append(got, fmt.Sprintf("%s@%s", l.ID, l.Time.UTC().Format(time.RFC3339Nano)))
				}
				if cursor = p.Next; cursor == "" {
					break
				}
			}
			if len(want) > 2 {
				several++
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%q's links (rights %v, reverse %v) in [%v, %v): %v, want %v", id, right, reverse, since, until, got, want)
			}
			s.View(func(tx keyspace.Tx) error {
				count := rel.CountLeftsBetween
				if right {
					count = rel.CountRightsBetween
				}
				if n, err := count(tx, id, since, until); err != nil || n != len(want) {
					t.Fatalf("%q's links (rights %v) in [%v, %v) counted %d (%v), want %d", id, right, since, until, n, err, len(want))
				}
				return nil
			})
		}
		if several < 50 {
			t.Fatalf("only %d windows held more than two links", several)
		}
	})
}
