package geo

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/storetest"
)

// TestScanAgainstAModel checks Scan, from the start and page by page, on
// both backends, against a map of the points put, moved and deleted:
// every live point once, in id order, as Get returns it.
func TestScanAgainstAModel(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		ix := NewIndex("fleet")
		r := rand.New(rand.NewPCG(3, 4))
		live := map[string]Point{}
		for step := range 600 {
			// Ids with a separator, a zero byte and an 0xff byte sort
			// among plain ones; the poles put points in the caps' grids.
			id := fmt.Sprint([]string{"car", "car:", "car\x00", "car\xff", "z"}[r.IntN(5)], r.IntN(60))
			err := s.Update(func(tx keyspace.Tx) error {
				if r.IntN(5) == 0 {
					delete(live, id)
					return ix.Delete(tx, id)
				}
				p := Point{ID: id, Lat: r.Float64()*180 - 90, Lon: r.Float64()*360 - 180, Payload: []byte(fmt.Sprint(step))}
				if r.IntN(8) == 0 {
					p.Lat = []float64{90, -90, 89.5, -85}[r.IntN(4)]
				}
				if r.IntN(3) == 0 {
					p.Scope = composite.Tuple{"tenant", int64(r.IntN(2))}
				}
				live[id] = p
				return ix.Put(tx, p)
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		ids := slices.Sorted(maps.Keys(live))
		same := func(got []Point, want []string) bool {
			if len(got) != len(want) {
				return false
			}
			for i, p := range got {
				w := live[want[i]]
				if p.ID != w.ID || p.Lat != w.Lat || p.Lon != w.Lon || string(p.Payload) != string(w.Payload) || !slices.Equal(p.Scope, w.Scope) {
					return false
				}
			}
			return true
		}
		s.View(func(tx keyspace.Tx) error {
			var all []Point
			if err := ix.Scan(tx, "", func(p Point) bool { all = append(all, p); return true }); err != nil {
				t.Fatal(err)
			}
			if !same(all, ids) {
				t.Fatalf("Scan gave %d points, the model has %d", len(all), len(ids))
			}
			// Pages of random sizes, each from the last id of the one
			// before, by scan (Scan, or ScanReverse).
			pages := func(scan func(from string, fn func(Point) bool) error) []Point {
				var all []Point
				for from := ""; ; {
					size, n := 1+r.IntN(40), 0
					if err := scan(from, func(p Point) bool {
						all, from, n = append(all, p), p.ID, n+1
						return n < size
					}); err != nil {
						t.Fatal(err)
					}
					if n < size {
						return all
					}
				}
			}
			paged := pages(func(after string, fn func(Point) bool) error { return ix.Scan(tx, after, fn) })
			if !same(paged, ids) {
				t.Errorf("paging gave %d points, the model has %d", len(paged), len(ids))
			}
			// After an id that is not there: from the next one that is.
			for _, after := range []string{"car", "car1", "car:5\x00", "y", "zz"} {
				var got []Point
				ix.Scan(tx, after, func(p Point) bool { got = append(got, p); return true })
				i, _ := slices.BinarySearch(ids, after)
				if found := slices.Contains(ids, after); found {
					i++
				}
				if !same(got, ids[i:]) {
					t.Errorf("after %q: %d points, want %d", after, len(got), len(ids)-i)
				}
			}
			// Under each scope (none, each tenant, and one no point has),
			// from the start and after an id: the model's points of that
			// scope, in id order.
			for _, scope := range []composite.Tuple{nil, {"tenant", int64(0)}, {"tenant", int64(1)}, {"tenant"}} {
				for _, after := range []string{"", "car3"} {
					var want []string
					for _, id := range ids {
						if id > after && slices.Equal(live[id].Scope, scope) {
							want = append(want, id)
						}
					}
					var got []Point
					if err := ix.ScanScope(tx, scope, after, func(p Point) bool { got = append(got, p); return true }); err != nil {
						t.Fatal(err)
					}
					if !same(got, want) {
						t.Errorf("ScanScope(%v) after %q: %d points, the model has %d", scope, after, len(got), len(want))
					}
				}
			}
			// Backwards: every point, pages of random sizes each before
			// the last id of the one before, before ids that are not
			// there, and under each scope; the model's ids reversed.
			down := slices.Clone(ids)
			slices.Reverse(down)
			back := pages(func(before string, fn func(Point) bool) error { return ix.ScanReverse(tx, before, fn) })
			if !same(back, down) {
				t.Errorf("paging backwards gave %d points, the model has %d", len(back), len(down))
			}
			for _, before := range []string{"car", "car1", "car:5\x00", "car\xff3", "y", "zz", "\x00"} {
				var want []string
				for _, id := range down {
					if id < before {
						want = append(want, id)
					}
				}
				var got []Point
				ix.ScanReverse(tx, before, func(p Point) bool { got = append(got, p); return true })
				if !same(got, want) {
					t.Errorf("before %q: %d points, want %d", before, len(got), len(want))
				}
			}
			for _, scope := range []composite.Tuple{nil, {"tenant", int64(0)}, {"tenant", int64(1)}, {"tenant"}} {
				for _, before := range []string{"", "car3"} {
					var want []string
					for _, id := range down {
						if (before == "" || id < before) && slices.Equal(live[id].Scope, scope) {
							want = append(want, id)
						}
					}
					var got []Point
					if err := ix.ScanScopeReverse(tx, scope, before, func(p Point) bool { got = append(got, p); return true }); err != nil {
						t.Fatal(err)
					}
					if !same(got, want) {
						t.Errorf("ScanScopeReverse(%v) before %q: %d points, the model has %d", scope, before, len(got), len(want))
					}
				}
			}
			if err := ix.ScanScope(tx, composite.Tuple{struct{}{}}, "", func(Point) bool { return true }); !errors.Is(err, ErrBadQuery) {
				t.Errorf("ScanScope of a scope no key can hold = %v, want ErrBadQuery", err)
			}
			return nil
		})
	})
}

// TestScanSeesItsOwnWrites: in an Update, Scan gives the points the
// transaction put and not those it deleted, and fn may write.
func TestScanSeesItsOwnWrites(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		ix := NewIndex("fleet")
		load(t, s, ix, []Point{{ID: "a", Lat: 1, Lon: 1}, {ID: "b", Lat: 2, Lon: 2}, {ID: "c", Lat: 3, Lon: 3}})
		err := s.Update(func(tx keyspace.Tx) error {
			if err := ix.Delete(tx, "b"); err != nil {
				return err
			}
			if err := ix.Put(tx, Point{ID: "bb", Lat: 4, Lon: 4}); err != nil {
				return err
			}
			var got []string
			err := ix.Scan(tx, "", func(p Point) bool {
				got = append(got, p.ID)
				// Moving each point as it is given changes no order.
				return ix.Put(tx, Point{ID: p.ID, Lat: p.Lat + 1, Lon: p.Lon}) == nil
			})
			if err != nil {
				return err
			}
			if want := []string{"a", "bb", "c"}; !slices.Equal(got, want) {
				t.Errorf("Scan in the Update gave %v, want %v", got, want)
			}
			got = got[:0]
			err = ix.ScanReverse(tx, "", func(p Point) bool {
				got = append(got, p.ID)
				return ix.Put(tx, Point{ID: p.ID, Lat: p.Lat + 1, Lon: p.Lon}) == nil
			})
			if err != nil {
				return err
			}
			if want := []string{"c", "bb", "a"}; !slices.Equal(got, want) {
				t.Errorf("ScanReverse in the Update gave %v, want %v", got, want)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		s.View(func(tx keyspace.Tx) error {
			// Each moved once by each scan.
			for id, lat := range map[string]float64{"a": 3, "bb": 6, "c": 5} {
				if p, err := ix.Get(tx, id); err != nil || p.Lat != lat {
					t.Errorf("%s after the Update: %+v, %v; want latitude %v", id, p, err, lat)
				}
			}
			return nil
		})
	})
}

// TestDrop drops one index among others whose names start with its name,
// on both backends: exactly its keys go (decided by unpacking every key,
// not by the subspaces Drop clears), it reports its points, and it can be
// filled again.
func TestDrop(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(5, 6))
		names := []string{"shop", "shops", "shops2", "shops\x00"}
		put := map[string]int{}
		err := s.Update(func(tx keyspace.Tx) error {
			for _, name := range names {
				ix := NewIndex(name)
				ids := map[string]bool{}
				for range 200 {
					p := Point{ID: fmt.Sprint("p", r.IntN(150)), Lat: r.Float64()*180 - 90, Lon: r.Float64()*360 - 180}
					if r.IntN(6) == 0 {
						p.Lat = []float64{90, -90, 88}[r.IntN(3)]
					}
					if r.IntN(3) == 0 {
						p.Scope = composite.Tuple{"shops", int64(r.IntN(3))}
					}
					ids[p.ID] = true
					if err := ix.Put(tx, p); err != nil {
						return err
					}
				}
				put[name] = len(ids)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		ix := NewIndex("shops")
		storetest.CheckDrop(t, s, ix.Drop, put["shops"], func(key string) bool {
			k, err := composite.Unpack([]byte(key))
			return err == nil && len(k) > 1 && k[0] == "g" && k[1] == "shops"
		})
		err = s.Update(func(tx keyspace.Tx) error { return ix.Put(tx, Point{ID: "again", Lat: 1, Lon: 2}) })
		if err != nil {
			t.Fatal(err)
		}
		s.View(func(tx keyspace.Tx) error {
			var ids []string
			err := ix.Scan(tx, "", func(p Point) bool { ids = append(ids, p.ID); return true })
			if err != nil || !slices.Equal(ids, []string{"again"}) {
				t.Errorf("after Drop and a Put, Scan = %v, %v; want [again]", ids, err)
			}
			return nil
		})
	})
}
