package geo

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/storetest"
)

// TestRename fills an index and a fence set (points under scopes, at the
// poles and across ±180°, some expiring; circles and boxes), with
// neighbours whose names begin with theirs, and renames them: every
// point, radius, k-nearest and containing answer under the new name is
// the one the old name gave, the old name holds nothing, Verify finds
// nothing wrong, and the neighbours are as they were. A rename onto a
// name that holds keys is refused and changes nothing.
func TestRename(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(7, 8))
		quakes, neighbour := NewIndex("quakes"), NewIndex("quakes2")
		zones := NewFences("zones")
		later := time.Now().Add(time.Hour)
		if err := s.Update(func(tx keyspace.Tx) error {
			for i := range 300 {
				p := Point{ID: fmt.Sprint("p", i), Lat: r.Float64()*180 - 90, Lon: r.Float64()*360 - 180, Payload: []byte{byte(i)}}
				switch i % 5 {
				case 0:
					p.Scope = composite.Tuple{"US"}
				case 1:
					p.Lat = 89 + r.Float64()
				case 2:
					p.Lon = 179.99 + r.Float64()*0.01
				case 3:
					p.Expires = later
				}
				if err := quakes.Put(tx, p); err != nil {
					return err
				}
				if i%10 == 0 {
					if err := neighbour.Put(tx, Point{ID: p.ID, Lat: p.Lat / 2, Lon: p.Lon / 2}); err != nil {
						return err
					}
				}
			}
			for i := range 20 {
				f := Fence{ID: fmt.Sprint("f", i), Circle: &Circle{Lat: r.Float64()*160 - 80, Lon: r.Float64()*360 - 180, Radius: 500_000}}
				if i%2 == 1 {
					f = Fence{ID: fmt.Sprint("f", i), Box: &Box{MinLat: -10, MinLon: 170, MaxLat: 10 + float64(i), MaxLon: -170}}
				}
				if err := zones.Put(tx, f); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		centres := [][2]float64{{0, 180}, {89.5, 0}, {40, -100}, {-30, 20}}
		// answers are everything the index and the set tell of themselves.
		answers := func(ix *Index, fs *Fences) []any {
			var out []any
			if err := s.View(func(tx keyspace.Tx) error {
				var points []Point
				if err := ix.Scan(tx, "", func(p Point) bool { points = append(points, p); return true }); err != nil {
					return err
				}
				out = append(out, points)
				for _, c := range centres {
					rs, _, err := ix.Radius(tx, c[0], c[1], 2_000_000, nil)
					if err != nil {
						return err
					}
					knn, _, err := ix.Nearest(tx, c[0], c[1], 5, &QueryOptions{Scope: composite.Tuple{"US"}})
					if err != nil {
						return err
					}
					in, err := fs.Containing(tx, c[0], c[1])
					if err != nil {
						return err
					}
					out = append(out, rs, knn, in)
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			return out
		}
		before, neighbourBefore := answers(quakes, zones), answers(neighbour, NewFences("zones2"))
		if len(before[0].([]Point)) != 300 {
			t.Fatalf("the index holds %d points, not 300", len(before[0].([]Point)))
		}
		var eq *Index
		var z2 *Fences
		if err := s.Update(func(tx keyspace.Tx) (err error) {
			if eq, err = quakes.Rename(tx, "eq"); err != nil {
				return err
			}
			z2, err = zones.Rename(tx, "z2")
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if after := answers(eq, z2); !reflect.DeepEqual(after, before) {
			t.Error("the renamed index and set answer otherwise than before")
		}
		if !reflect.DeepEqual(answers(neighbour, NewFences("zones2")), neighbourBefore) {
			t.Error("the index whose name begins with the renamed one's changed")
		}
		s.View(func(tx keyspace.Tx) error {
			for _, check := range []func(keyspace.Tx) ([]string, error){eq.Verify, z2.Verify, neighbour.Verify} {
				if problems, err := check(tx); err != nil || len(problems) > 0 {
					t.Errorf("Verify after the rename: %v, %v", problems, err)
				}
			}
			for _, old := range []interface {
				Empty(keyspace.Tx) (bool, error)
			}{quakes, zones} {
				if empty, err := old.Empty(tx); err != nil || !empty {
					t.Errorf("the old name still holds something: %v", err)
				}
			}
			for k := range tx.Scan(composite.NewSubspace("g", "quakes").Range()) {
				t.Errorf("a key is left under the old name: %x", k)
			}
			return tx.Err()
		})
		// Onto a name that holds points: refused, and nothing moves.
		err := s.Update(func(tx keyspace.Tx) error {
			_, err := eq.Rename(tx, "quakes2")
			return err
		})
		if !errors.Is(err, composite.ErrNotEmpty) {
			t.Errorf("a rename onto an index with points: %v, want ErrNotEmpty", err)
		}
		if !reflect.DeepEqual(answers(eq, z2), before) || !reflect.DeepEqual(answers(neighbour, NewFences("zones2")), neighbourBefore) {
			t.Error("a refused rename changed the indexes")
		}
	})
}
