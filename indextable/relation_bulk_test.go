package indextable

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/storetest"
)

// TestLinkAllWritesWhatLinkWrites: LinkAll of edges (pairs repeated within
// the batch and linked before it, entities with recorded fields) leaves a
// store holding exactly the keys and values that Link of the same edges,
// one at a time in their order, leaves in another.
func TestLinkAllWritesWhatLinkWrites(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, one keyspace.Store) {
		all := keyspace.NewMemory()
		defer all.Close()
		r := rand.New(rand.NewPCG(21, 22))
		rel := NewRelation("likes")
		lefts, rights := []string{"u0", "u:1", "u\x002", strings.Repeat("u", 200)}, []string{"i0", "i1", "i:2", "i\x003", "i4", "i5"}
		base := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
		for _, s := range []keyspace.Store{one, all} {
			if err := s.Update(func(tx keyspace.Tx) error {
				if _, err := rel.SetLeftFields(tx, "u0", []byte(`{"name":"ann"}`)); err != nil {
					return err
				}
				_, err := rel.SetRightFields(tx, "i1", []byte(`{"title":"stout"}`))
				return err
			}); err != nil {
				t.Fatal(err)
			}
		}
		for round, n := range []int{30, 1, 60} {
			var edges []Edge
			for range n {
				edges = append(edges, Edge{lefts[r.IntN(len(lefts))], rights[r.IntN(len(rights))], base.Add(time.Duration(r.IntN(50)) * time.Minute)})
			}
			if err := one.Update(func(tx keyspace.Tx) error {
				for _, e := range edges {
					if err := rel.Link(tx, e.Left, e.Right, e.At); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if err := all.Update(func(tx keyspace.Tx) error { return rel.LinkAll(tx, edges) }); err != nil {
				t.Fatal(err)
			}
			if a, b := storetest.Contents(t, all), storetest.Contents(t, one); !maps.Equal(a, b) {
				t.Fatalf("round %d: LinkAll left %d keys, Link %d, or other values", round, len(a), len(b))
			}
		}
		all.View(func(tx keyspace.Tx) error {
			if problems, err := rel.Verify(tx); err != nil || len(problems) > 0 {
				t.Errorf("after LinkAll: Verify = %q, %v", problems, err)
			}
			return nil
		})
	})
}

// TestLinkAllRefusesAll: a bad edge is an *EdgeError naming it, with the
// sentinel it wraps, and nothing is written.
func TestLinkAllRefusesAll(t *testing.T) {
	s := keyspace.NewMemory()
	defer s.Close()
	rel := NewRelation("r")
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ok := Edge{"a", "b", at}
	for _, tc := range []struct {
		bad  Edge
		want error
	}{
		{Edge{"", "b", at}, ErrEmptyKey},
		{Edge{"a", "", at}, ErrEmptyKey},
		{Edge{"a", "b", time.Date(1500, 1, 1, 0, 0, 0, 0, time.UTC)}, composite.ErrIntegerRange},
		{Edge{strings.Repeat("a", keyspace.MaxKeySize), "b", at}, keyspace.ErrKeyTooLarge},
	} {
		err := storetest.RefusedChangesNothing(t, s, func(tx keyspace.Tx) error {
			return rel.LinkAll(tx, []Edge{ok, {"c", "d", at}, tc.bad})
		})
		var ee *EdgeError
		if !errors.As(err, &ee) || ee.Index != 2 || !errors.Is(err, tc.want) {
			t.Errorf("LinkAll with %.20q–%q: %v, want edge 2 refused with %v", tc.bad.Left, tc.bad.Right, err, tc.want)
		}
		if v := rel.ValidateLink(tc.bad.Left, tc.bad.Right, tc.bad.At); !errors.Is(v, tc.want) {
			t.Errorf("ValidateLink = %v, want %v", v, tc.want)
		}
		if !strings.HasPrefix(fmt.Sprint(err), "indextable: relation r: edge 2: ") || strings.Count(fmt.Sprint(err), "indextable") > 1 {
			t.Errorf("the error %q does not name the edge and the relation", err)
		}
	}
}
