package geo

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/storetest"
)

// TestPutRoaming: vehicles under two scopes move among clusters at the
// poles, across ±180° and elsewhere, some new, some expired already; at
// every move PutRoaming must report exactly the meetings a brute-force
// pass over the oracle's live points of the same scope implies, with
// their distances. Bad radii and bad points change nothing.
func TestPutRoaming(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(51, 52))
		ix := NewIndex("fleet")
		_, _, probes := fencesAround(r, 12, 25, 3000)
		live := map[string]Point{} // the oracle: live points by id
		now := time.Now()
		kinds := map[CrossingKind]int{}
		for step := range 400 {
			p := probes[r.IntN(len(probes))]
			p.ID = fmt.Sprint("v", r.IntN(40))
			if old, ok := live[p.ID]; ok {
				p.Scope = old.Scope // mostly moves within a scope
				if r.IntN(2) == 0 { // a short move, often staying near the same vehicles
					p.Lat, p.Lon = destination(old.Lat, old.Lon, r.ExpFloat64()*300, r.Float64()*2*math.Pi)
				}
			} else {
				p.Scope = composite.Tuple{[]string{"north", "south"}[r.IntN(2)]}
			}
			if r.IntN(10) == 0 {
				p.Scope = composite.Tuple{"elsewhere"}
			}
			if r.IntN(12) == 0 {
				p.Expires = now.Add(-time.Hour) // expired already: near nobody now, nor after
			}
			radius := []float64{0, 500, 2000, 10_000}[r.IntN(4)]
			var got []Meeting
			if err := s.Update(func(tx keyspace.Tx) (err error) {
				got, err = ix.PutRoaming(tx, p, radius)
				return err
			}); err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
			old, had := live[p.ID]
			var want []Meeting
			for _, id := range slices.Sorted(mapKeys(live)) {
				q := live[id]
				if id == p.ID || !slices.Equal(q.Scope, p.Scope) && (!had || !slices.Equal(q.Scope, old.Scope)) {
					continue
				}
				dNow := Distance(p.Lat, p.Lon, q.Lat, q.Lon)
				nearNow := p.Expires.IsZero() && slices.Equal(q.Scope, p.Scope) && dNow <= radius
				nearBefore := had && slices.Equal(q.Scope, old.Scope) && Distance(old.Lat, old.Lon, q.Lat, q.Lon) <= radius
				switch {
				case nearNow && nearBefore:
					want = append(want, Meeting{id, Inside, dNow})
				case nearNow:
					want = append(want, Meeting{id, Enter, dNow})
				case nearBefore:
					want = append(want, Meeting{id, Exit, dNow})
				}
			}
			same := len(got) == len(want)
			for i := 0; same && i < len(got); i++ {
				same = got[i].ID == want[i].ID && got[i].Kind == want[i].Kind && math.Abs(got[i].Distance-want[i].Distance) < 1e-6
			}
			if !same {
				t.Fatalf("step %d: %s to (%v, %v) in %v, radius %v: meetings %v, brute force %v", step, p.ID, p.Lat, p.Lon, p.Scope, radius, got, want)
			}
			for _, m := range got {
				kinds[m.Kind]++
			}
			live[p.ID] = p
			if !p.Expires.IsZero() {
				delete(live, p.ID)
			}
		}
		if kinds[Enter] < 20 || kinds[Exit] < 20 || kinds[Inside] < 20 {
			t.Fatalf("the moves made too few meetings of some kind: %v", kinds)
		}

		// A bad radius or a bad point is an error that writes nothing.
		before := storetest.Contents(t, s)
		for _, tc := range []struct {
			p      Point
			radius float64
			want   error
		}{
			{Point{ID: "v1", Lat: 1, Lon: 1}, -1, ErrBadQuery},
			{Point{ID: "v1", Lat: 1, Lon: 1}, math.NaN(), ErrBadQuery},
			{Point{ID: "v1", Lat: 1, Lon: 1}, math.Inf(1), ErrBadQuery},
			{Point{ID: "v1", Lat: 95, Lon: 1}, 100, ErrInvalidPoint},
			{Point{ID: "", Lat: 1, Lon: 1}, 100, ErrEmptyID},
		} {
			err := s.Update(func(tx keyspace.Tx) error {
				_, err := ix.PutRoaming(tx, tc.p, tc.radius)
				return err
			})
			if !errors.Is(err, tc.want) {
				t.Errorf("PutRoaming(%+v, %v) = %v, want %v", tc.p, tc.radius, err, tc.want)
			}
		}
		if after := storetest.Contents(t, s); !maps.Equal(before, after) {
			t.Error("a refused PutRoaming changed the store")
		}
	})
}
