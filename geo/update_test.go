package geo

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/storetest"
)

// TestUpdateAgainstModel: random Updates change points' payloads, places
// (at the poles and across ±180° too), scopes and expiries, against a
// model of the points; some ask for ids that are missing or expired, some
// fail in fn, put a latitude out of range or change the id, and those must
// be refused having written nothing, even in a transaction that commits.
// After every step the index holds exactly the model (Scan, Get), every
// point is found by a small radius query at its place under its scope, and
// Verify finds the index in step.
func TestUpdateAgainstModel(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(29, 1))
		ix := NewIndex("fleet")
		now := time.Now()
		model := map[string]Point{}
		randomPlace := func() (float64, float64) {
			switch r.IntN(4) {
			case 0:
				return 89.9 + r.Float64()*0.1, r.Float64()*360 - 180
			case 1:
				return r.Float64()*2 - 1, 179.999 + r.Float64()*0.001
			}
			return r.Float64()*100 - 50, r.Float64()*100 - 50
		}
		for i := range 40 {
			lat, lon := randomPlace()
			p := Point{ID: fmt.Sprint("car-", i), Lat: lat, Lon: lon, Payload: []byte(fmt.Sprintf(`{"speed":%d}`, i))}
			if i%5 == 0 {
				p.Expires = now.Add(time.Hour)
			}
			if i%7 == 0 {
				p.Scope = composite.Tuple{"EU", int64(i % 3)}
			}
			model[p.ID] = p
		}
		if err := s.Update(func(tx keyspace.Tx) error { return ix.PutAll(tx, slices.Collect(maps.Values(model))) }); err != nil {
			t.Fatal(err)
		}
		errFn := errors.New("fn refused")
		applied := 0
		for step := range 300 {
			id := fmt.Sprint("car-", r.IntN(45)) // a few never exist
			want, exists := model[id]
			changed := want
			var wantErr error
			var change func(p *Point) error
			switch op := r.IntN(8); op {
			case 0, 1: // a payload
				changed.Payload = []byte(fmt.Sprintf(`{"speed":%d,"step":%d}`, r.IntN(200), step))
				change = func(p *Point) error { p.Payload = changed.Payload; return nil }
			case 2: // a move
				changed.Lat, changed.Lon = randomPlace()
				change = func(p *Point) error { p.Lat, p.Lon = changed.Lat, changed.Lon; return nil }
			case 3: // another scope, or none
				changed.Scope = []composite.Tuple{nil, {"EU", int64(1)}, {"US", "CA"}}[r.IntN(3)]
				change = func(p *Point) error { p.Scope = changed.Scope; return nil }
			case 4: // an expiry, or none
				changed.Expires = []time.Time{{}, now.Add(2 * time.Hour)}[r.IntN(2)]
				change = func(p *Point) error { p.Expires = changed.Expires; return nil }
			case 5:
				wantErr = errFn
				change = func(p *Point) error { p.Lat = 0; return errFn }
			case 6:
				wantErr = ErrInvalidPoint
				change = func(p *Point) error { p.Lat = 91; return nil }
			case 7:
				wantErr = errChangedID
				change = func(p *Point) error { p.ID += "x"; return nil }
			}
			if !exists {
				wantErr = keyspace.ErrNotFound
			}
			called := false
			var got Point
			err := storetest.RefusedChangesNothing(t, s, func(tx keyspace.Tx) error {
				var err error
				got, err = ix.Update(tx, id, func(p *Point) error {
					called = true
					if !samePoint(*p, want) {
						t.Fatalf("step %d: fn sees %+v; the model has %+v", step, *p, want)
					}
					return change(p)
				})
				return err
			})
			switch {
			case wantErr == errChangedID:
				if err == nil || !bytes.Contains([]byte(err.Error()), []byte("may not change its id")) {
					t.Fatalf("step %d: Update changing the id = %v", step, err)
				}
			case wantErr != nil:
				if !errors.Is(err, wantErr) {
					t.Fatalf("step %d: Update(%s) = %v, want %v", step, id, err, wantErr)
				}
				if errors.Is(wantErr, keyspace.ErrNotFound) && called {
					t.Fatalf("step %d: fn was called for a missing point", step)
				}
			case err != nil:
				t.Fatalf("step %d: Update(%s): %v", step, id, err)
			default:
				if !samePoint(got, changed) {
					t.Fatalf("step %d: Update returned %+v, want %+v", step, got, changed)
				}
				model[id] = changed
				applied++
			}
			checkAgainstModel(t, s, ix, model, step)
		}
		if applied < 100 {
			t.Errorf("only %d of 300 steps changed a point", applied)
		}
	})
}

// errChangedID marks the step that changes the id.
var errChangedID = errors.New("changed id")

func samePoint(a, b Point) bool {
	return a.ID == b.ID && a.Lat == b.Lat && a.Lon == b.Lon && bytes.Equal(a.Payload, b.Payload) &&
		a.Expires.Equal(b.Expires) && fmt.Sprint(a.Scope) == fmt.Sprint(b.Scope)
}

// checkAgainstModel checks that the index holds exactly model: Scan and
// Get give its points, a 1 m radius query under each point's scope at its
// place finds it, and Verify finds nothing out of step.
func checkAgainstModel(t *testing.T, s keyspace.Store, ix *Index, model map[string]Point, step int) {
	t.Helper()
	s.View(func(tx keyspace.Tx) error {
		n := 0
		if err := ix.Scan(tx, "", func(p Point) bool {
			n++
			if want, ok := model[p.ID]; !ok || !samePoint(p, want) {
				t.Fatalf("step %d: Scan gives %+v; the model has %+v", step, p, want)
			}
			return true
		}); err != nil {
			t.Fatal(err)
		}
		if n != len(model) {
			t.Fatalf("step %d: Scan gives %d points; the model has %d", step, n, len(model))
		}
		for id, want := range model {
			res, _, err := ix.Radius(tx, want.Lat, want.Lon, 1, &QueryOptions{Scope: want.Scope})
			if err != nil || !slices.ContainsFunc(res, func(r Result) bool { return r.ID == id }) {
				t.Fatalf("step %d: a 1 m query at %s's place finds %d points, %v", step, id, len(res), err)
			}
		}
		if problems, err := ix.Verify(tx); err != nil || len(problems) > 0 {
			t.Fatalf("step %d: Verify: %v %v", step, problems, err)
		}
		return nil
	})
}
