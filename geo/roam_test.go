package geo

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/storetest"
)

// wantMeetings is the oracle's meetings of p's move, by brute force over
// the live points before the move (or batch) and after it: near before
// when in the scope p had and within radius of where p was, near after
// when in p's scope and within radius of p (an expired p is near
// nothing), each at its distance from p after the move, from where the
// other is then (where it was, if it is gone).
func wantMeetings(before, after map[string]Point, p Point, radius float64) []Meeting {
	old, had := before[p.ID]
	var want []Meeting
	for _, id := range slices.Sorted(mapKeys(mergeKeys(before, after))) {
		if id == p.ID {
			continue
		}
		q, qWas := after[id], before[id]
		_, isNow := after[id]
		_, wasThen := before[id]
		nearNow := isNow && p.Expires.IsZero() && slices.Equal(q.Scope, p.Scope) && Distance(p.Lat, p.Lon, q.Lat, q.Lon) <= radius
		nearBefore := had && wasThen && slices.Equal(qWas.Scope, old.Scope) && Distance(old.Lat, old.Lon, qWas.Lat, qWas.Lon) <= radius
		if !isNow {
			q = qWas
		}
		d := Distance(p.Lat, p.Lon, q.Lat, q.Lon)
		switch {
		case nearNow && nearBefore:
			want = append(want, Meeting{id, Inside, d})
		case nearNow:
			want = append(want, Meeting{id, Enter, d})
		case nearBefore:
			want = append(want, Meeting{id, Exit, d})
		}
	}
	return want
}

func mergeKeys(a, b map[string]Point) map[string]bool {
	m := map[string]bool{}
	for k := range a {
		m[k] = true
	}
	for k := range b {
		m[k] = true
	}
	return m
}

// sameMeetings reports whether got is want, distances within 1e-6 m.
func sameMeetings(got, want []Meeting) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if got[i].ID != want[i].ID || got[i].Kind != want[i].Kind || math.Abs(got[i].Distance-want[i].Distance) >= 1e-6 {
			return false
		}
	}
	return true
}

// TestPutRoaming: vehicles under two scopes move among clusters at the
// poles, across ±180° and elsewhere, some new, some expired already, one
// at a time (PutRoaming), in batches (PutAllRoaming) and deleted
// (DeleteRoaming); at every move
// the meetings must be exactly those a brute-force pass over the oracle's
// live points implies (wantMeetings), with their distances. Bad radii,
// bad points and repeated ids change nothing.
func TestPutRoaming(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(51, 52))
		ix := NewIndex("fleet")
		_, _, probes := fencesAround(r, 12, 25, 3000)
		live := map[string]Point{} // the oracle: live points by id
		now := time.Now()
		kinds := map[CrossingKind]int{}
		move := func(id string) Point {
			p := probes[r.IntN(len(probes))]
			p.ID = id
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
			return p
		}
		for step := range 500 {
			// One step in seven deletes a vehicle: those it was near see
			// it go.
			if id := fmt.Sprint("v", r.IntN(40)); step%7 == 6 && live[id].ID != "" {
				radius := []float64{0, 500, 2000, 10_000}[r.IntN(4)]
				var got []Meeting
				if err := s.Update(func(tx keyspace.Tx) (err error) {
					got, err = ix.DeleteRoaming(tx, id, radius)
					return err
				}); err != nil {
					t.Fatalf("step %d: %v", step, err)
				}
				gone := live[id]
				gone.Expires = now.Add(-time.Hour) // near nothing after
				after := maps.Clone(live)
				delete(after, id)
				if want := wantMeetings(live, after, gone, radius); !sameMeetings(got, want) {
					t.Fatalf("step %d: %s deleted, radius %v: meetings %v, brute force %v", step, id, radius, got, want)
				}
				for _, m := range got {
					kinds[m.Kind]++
				}
				live = after
				continue
			}
			// Four steps in five move one vehicle, the fifth a batch of
			// up to eight.
			var batch []Point
			if step%5 == 4 {
				for _, i := range r.Perm(40)[:1+r.IntN(8)] {
					batch = append(batch, move(fmt.Sprint("v", i)))
				}
			} else {
				batch = []Point{move(fmt.Sprint("v", r.IntN(40)))}
			}
			radius := []float64{0, 500, 2000, 10_000}[r.IntN(4)]
			var got [][]Meeting
			if err := s.Update(func(tx keyspace.Tx) (err error) {
				if len(batch) == 1 && step%5 != 4 {
					ms, err := ix.PutRoaming(tx, batch[0], radius)
					got = [][]Meeting{ms}
					return err
				}
				got, err = ix.PutAllRoaming(tx, batch, radius)
				return err
			}); err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
			after := maps.Clone(live)
			for _, p := range batch {
				after[p.ID] = p
				if !p.Expires.IsZero() {
					delete(after, p.ID)
				}
			}
			for i, p := range batch {
				if want := wantMeetings(live, after, p, radius); !sameMeetings(got[i], want) {
					t.Fatalf("step %d (a batch of %d): %s to (%v, %v) in %v, radius %v: meetings %v, brute force %v", step, len(batch), p.ID, p.Lat, p.Lon, p.Scope, radius, got[i], want)
				}
				for _, m := range got[i] {
					kinds[m.Kind]++
				}
			}
			live = after
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
		err := s.Update(func(tx keyspace.Tx) error {
			_, err := ix.PutAllRoaming(tx, []Point{{ID: "v1", Lat: 1, Lon: 1}, {ID: "v1", Lat: 2, Lon: 2}}, 100)
			return err
		})
		if err := s.Update(func(tx keyspace.Tx) error {
			_, err := ix.DeleteRoaming(tx, "nobody", 100)
			return err
		}); !errors.Is(err, keyspace.ErrNotFound) {
			t.Errorf("DeleteRoaming of no point = %v, want ErrNotFound", err)
		}
		if !errors.Is(err, ErrBadQuery) || !strings.Contains(err.Error(), "twice") {
			t.Errorf("PutAllRoaming with an id twice = %v, want ErrBadQuery naming it", err)
		}
		if after := storetest.Contents(t, s); !maps.Equal(before, after) {
			t.Error("a refused PutRoaming changed the store")
		}
	})
}
