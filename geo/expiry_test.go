package geo

import (
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
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"
)

// live reports whether p has not expired at now.
func live(p Point, now time.Time) bool { return p.Expires.IsZero() || p.Expires.After(now) }

// TestExpiryAgainstBruteForce: points put with Expires (by Put and by
// PutAll, then some put again with another expiry, none, or moved) are
// left out of every query once QueryOptions.Now reaches their expiry, and
// only then: each query kind against brute force over the points live at
// that instant. k nearest must read past expired points to find k live
// ones. Results carry their points' expiries. DeleteExpired then deletes
// exactly the points due, a few at a time, NextExpiry names the soonest
// left, and Verify finds nothing wrong at any step.
func TestExpiryAgainstBruteForce(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(61, 62))
		t0 := time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)
		minute := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Minute) }
		for _, set := range syntheticSets(r, 1200) {
			t.Run(set.name, func(t *testing.T) {
				ix := NewIndex("expiry-" + set.name)
				model := map[string]Point{}
				for i := range set.points {
					if i%3 != 0 {
						set.points[i].Expires = minute(r.IntN(100))
					}
					model[set.points[i].ID] = set.points[i]
				}
				half := len(set.points) / 2
				if err := s.Update(func(tx keyspace.Tx) error {
					if err := ix.PutAll(tx, set.points[:half]); err != nil {
						return err
					}
					for _, p := range set.points[half:] {
						if err := ix.Put(tx, p); err != nil {
							return err
						}
					}
					// Put again: a new expiry, none, or moved with one.
					for range 150 {
						p := set.points[r.IntN(len(set.points))]
						switch r.IntN(3) {
						case 0:
							p.Expires = minute(r.IntN(100))
						case 1:
							p.Expires = time.Time{}
						case 2:
							q := set.points[r.IntN(len(set.points))]
							p.Lat, p.Lon, p.Expires = q.Lat, q.Lon, minute(r.IntN(100))
						}
						if err := ix.Put(tx, p); err != nil {
							return err
						}
						model[p.ID] = p
					}
					return nil
				}); err != nil {
					t.Fatal(err)
				}
				points := slices.Collect(maps.Values(model))
				for _, now := range []time.Time{minute(-1), minute(30), minute(70), minute(99), minute(200)} {
					keep := func(p Point) bool { return live(p, now) }
					opts := &QueryOptions{Now: now}
					s.View(func(tx keyspace.Tx) error {
						for q := range 12 {
							c := points[r.IntN(len(points))]
							radius := []float64{1000, 30_000, 300_000, 3_000_000}[q%4]
							got, _, err := ix.Radius(tx, c.Lat, c.Lon, radius, opts)
							if err != nil {
								t.Fatal(err)
							}
							want := brute(points, c.Lat, c.Lon, func(p Point) bool { return keep(p) && Distance(c.Lat, c.Lon, p.Lat, p.Lon) <= radius })
							checkResults(t, fmt.Sprintf("at %v, radius %g m", now, radius), got, want)
							checkExpiries(t, got, model)
							if radius <= 30_000 { // wider, the block can miss points across a pole, as Redis's does
								got, _, err = ix.RadiusFixedGrid(tx, c.Lat, c.Lon, radius, opts)
								if err != nil {
									t.Fatal(err)
								}
								checkResults(t, fmt.Sprintf("at %v, 3×3 block, radius %g m", now, radius), got, want)
							}

							b := randomBox(r)
							got, _, err = ix.Box(tx, b, opts)
							if err != nil {
								t.Fatal(err)
							}
							lat, lon := b.centre()
							checkResults(t, fmt.Sprintf("at %v, box %+v", now, b), got, brute(points, lat, lon, func(p Point) bool { return keep(p) && bruteInBox(b, p) }))

							poly := star(r, c.Lat, c.Lon, r.ExpFloat64()*2, q%3 == 0)
							got, _, err = ix.Within(tx, poly, opts)
							if err != nil {
								t.Fatal(err)
							}
							cen, _ := planar.CentroidArea(poly)
							checkResults(t, fmt.Sprintf("at %v, polygon", now), got, brute(points, cen.Lat(), cen.Lon(), func(p Point) bool {
								return keep(p) && planar.PolygonContains(poly, orb.Point{p.Lon, p.Lat})
							}))

							k := []int{1, 10, 100}[q%3]
							got, _, err = ix.Nearest(tx, c.Lat, c.Lon, k, opts)
							if err != nil {
								t.Fatal(err)
							}
							all := brute(points, c.Lat, c.Lon, keep)
							checkResults(t, fmt.Sprintf("at %v, %d nearest", now, k), got, all[:min(k, len(all))])
							checkExpiries(t, got, model)
						}
						return nil
					})
				}
				// Sweep a few at a time, as a program on a timer would.
				for _, now := range []time.Time{minute(-1), minute(30), minute(70), minute(200)} {
					due := 0
					for _, p := range model {
						if !live(p, now) {
							due++
						}
					}
					deleted := 0
					for {
						var n int
						if err := s.Update(func(tx keyspace.Tx) (err error) {
							n, err = ix.DeleteExpired(tx, now, 37)
							return err
						}); err != nil {
							t.Fatal(err)
						}
						if n > 37 {
							t.Fatalf("DeleteExpired(limit 37) deleted %d", n)
						}
						if deleted += n; n == 0 {
							break
						}
					}
					if deleted != due {
						t.Fatalf("at %v: DeleteExpired deleted %d points, %d were due", now, deleted, due)
					}
					for id, p := range model {
						if !live(p, now) {
							delete(model, id)
						}
					}
					checkStored(t, s, ix, model)
				}
			})
		}
	})
}

// checkExpiries: each result carries the expiry its point was put with.
func checkExpiries(t *testing.T, got []Result, model map[string]Point) {
	t.Helper()
	for _, g := range got {
		if w := model[g.ID]; !g.Expires.Equal(w.Expires) {
			t.Fatalf("%s expires at %v, was put to expire at %v", g.ID, g.Expires, w.Expires)
		}
	}
}

// checkStored: the index holds exactly model's points (Scan gives those
// the clock has not expired), Verify finds nothing wrong, and NextExpiry
// is the soonest expiry among them.
func checkStored(t *testing.T, s keyspace.Store, ix *Index, model map[string]Point) {
	t.Helper()
	var next time.Time
	for _, p := range model {
		if !p.Expires.IsZero() && (next.IsZero() || p.Expires.Before(next)) {
			next = p.Expires
		}
	}
	s.View(func(tx keyspace.Tx) error {
		n, live := 0, 0
		for _, p := range model {
			if p.Expires.IsZero() || p.Expires.After(time.Now()) {
				live++
			}
		}
		if err := ix.Scan(tx, "", func(p Point) bool {
			n++
			if w, ok := model[p.ID]; !ok || w.Lat != p.Lat || w.Lon != p.Lon || !w.Expires.Equal(p.Expires) {
				t.Fatalf("Scan gave %+v, the model has %+v", p, w)
			}
			return true
		}); err != nil {
			t.Fatal(err)
		}
		if n != live {
			t.Fatalf("Scan gave %d points, the model has %d live ones", n, live)
		}
		if problems, err := ix.Verify(tx); err != nil || len(problems) > 0 {
			t.Fatalf("Verify: %v, %v", problems, err)
		}
		at, ok, err := ix.NextExpiry(tx)
		if err != nil || ok != !next.IsZero() || !at.Equal(next) {
			t.Fatalf("NextExpiry = %v, %v, %v; want %v", at, ok, err, next)
		}
		return nil
	})
}

// TestExpiryByTheClock: Get, Scan and ScanScope go by the clock's time. A
// point that expired an hour ago is not found; one that expires in an
// hour, or never, is. Putting a point again without an expiry, or deleting
// it, takes its expiry entry with it.
func TestExpiryByTheClock(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		ix := NewIndex("clock")
		now := time.Now()
		scope := composite.Tuple{"x"}
		points := []Point{
			{ID: "gone", Lat: 1, Lon: 1, Expires: now.Add(-time.Hour), Scope: scope},
			{ID: "later", Lat: 1, Lon: 1.001, Expires: now.Add(time.Hour), Scope: scope},
			{ID: "never", Lat: 1, Lon: 1.002, Scope: scope},
		}
		if err := s.Update(func(tx keyspace.Tx) error { return ix.PutAll(tx, points) }); err != nil {
			t.Fatal(err)
		}
		s.View(func(tx keyspace.Tx) error {
			if _, err := ix.Get(tx, "gone"); !errors.Is(err, keyspace.ErrNotFound) {
				t.Errorf("Get of an expired point: %v, want ErrNotFound", err)
			}
			for _, id := range []string{"later", "never"} {
				if p, err := ix.Get(tx, id); err != nil || p.ID != id {
					t.Errorf("Get(%s) = %+v, %v", id, p, err)
				}
			}
			for name, scan := range map[string]func(func(Point) bool) error{
				"Scan":      func(fn func(Point) bool) error { return ix.Scan(tx, "", fn) },
				"ScanScope": func(fn func(Point) bool) error { return ix.ScanScope(tx, scope, "", fn) },
			} {
				var ids []string
				if err := scan(func(p Point) bool { ids = append(ids, p.ID); return true }); err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(ids, []string{"later", "never"}) {
					t.Errorf("%s gave %v, want later and never", name, ids)
				}
			}
			got, _, err := ix.Radius(tx, 1, 1, 1000, &QueryOptions{Scope: scope})
			if err != nil || len(got) != 2 || got[0].ID != "later" || !got[0].Expires.Equal(points[1].Expires) {
				t.Errorf("Radius by the clock: %+v, %v; want later (with its expiry), never", got, err)
			}
			return nil
		})
		if err := s.Update(func(tx keyspace.Tx) error {
			p := points[1]
			p.Expires = time.Time{}
			if err := ix.Put(tx, p); err != nil {
				return err
			}
			return ix.Delete(tx, "gone")
		}); err != nil {
			t.Fatal(err)
		}
		checkStored(t, s, ix, map[string]Point{"later": {ID: "later", Lat: 1, Lon: 1.001}, "never": points[2]})

		// SetExpiry: Tile38's EXPIRE and PERSIST, keeping place and payload.
		inTwoHours := now.Add(2 * time.Hour).Round(0)
		if err := s.Update(func(tx keyspace.Tx) error {
			if err := ix.SetExpiry(tx, "never", inTwoHours); err != nil {
				return err
			}
			if err := ix.SetExpiry(tx, "later", now.Add(-time.Minute)); err != nil { // expires it
				return err
			}
			if err := ix.SetExpiry(tx, "later", inTwoHours); !errors.Is(err, keyspace.ErrNotFound) {
				t.Errorf("SetExpiry of a point that has expired: %v, want ErrNotFound", err)
			}
			if err := ix.SetExpiry(tx, "never", time.Unix(0, 0)); !errors.Is(err, ErrBadExpiry) {
				t.Errorf("SetExpiry to 1970: %v, want ErrBadExpiry", err)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		s.View(func(tx keyspace.Tx) error {
			if p, err := ix.Get(tx, "never"); err != nil || !p.Expires.Equal(inTwoHours) || string(p.Scope.Pack()) != string(scope.Pack()) || p.Lon != 1.002 {
				t.Errorf("after SetExpiry: %+v, %v; want it in place, expiring at %v", p, err, inTwoHours)
			}
			return nil
		})
		if err := s.Update(func(tx keyspace.Tx) error { return ix.SetExpiry(tx, "never", time.Time{}) }); err != nil {
			t.Fatal(err)
		}
		later := points[1]
		later.Expires = now.Add(-time.Minute).Round(0)
		checkStored(t, s, ix, map[string]Point{"never": points[2], "later": later})
	})
}

// TestBadExpiry: an expiry a key cannot hold (not after 1970, or after
// 2262) is ErrBadExpiry from Put and PutAll, and writes nothing.
func TestBadExpiry(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		ix := NewIndex("bad-expiry")
		load(t, s, ix, []Point{{ID: "a", Lat: 1, Lon: 1}})
		before := storetest.Contents(t, s)
		for _, at := range []time.Time{time.Unix(0, 0), time.Date(1969, 12, 31, 0, 0, 0, 0, time.UTC), time.Date(2263, 1, 1, 0, 0, 0, 0, time.UTC)} {
			p := Point{ID: "b", Lat: 2, Lon: 2, Expires: at}
			for name, put := range map[string]func(tx keyspace.Tx) error{
				"Put":    func(tx keyspace.Tx) error { return ix.Put(tx, p) },
				"PutAll": func(tx keyspace.Tx) error { return ix.PutAll(tx, []Point{{ID: "c", Lat: 3, Lon: 3}, p}) },
			} {
				if err := s.Update(put); !errors.Is(err, ErrBadExpiry) {
					t.Errorf("%s of a point expiring at %v: %v, want ErrBadExpiry", name, at, err)
				}
			}
		}
		if after := storetest.Contents(t, s); !maps.Equal(before, after) {
			t.Error("a rejected expiry changed the store")
		}
	})
}
