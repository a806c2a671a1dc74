package geo

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/paulmach/orb"
	bolt "go.etcd.io/bbolt"
)

// TestFenceWritesRaiseFormat: a file of format 3 (a build before band
// indexes) records fenceFormat once this build writes to a fence set in
// it, by Put, PutAll or a Repair that rewrites, so that the older build
// refuses it rather than reading the new rings as damage, and
// sectorFenceFormat once it puts a sector, corridorFenceFormat a
// corridor; writes that leave the fence
// layout alone (points, a refused fence, an empty PutAll,
// a Repair with nothing to write, a rolled-back Put) leave it at 3.
func TestFenceWritesRaiseFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.db")
	ix, fs := NewIndex("pts"), NewFences("zones")
	square := Fence{ID: "square", Polygon: orb.Polygon{{{0, 0}, {1, 0}, {1, 1}, {0, 1}, {0, 0}}}}
	circle := Fence{ID: "circle", Circle: &Circle{Lat: 10, Lon: 10, Radius: 1000}}
	s, err := keyspace.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Update(func(tx keyspace.Tx) error {
		if err := fs.PutAll(tx, []Fence{square, circle}); err != nil {
			return err
		}
		// The square's rings as a version-3 build wrote them.
		reg, err := square.region()
		if err != nil {
			return err
		}
		return tx.Put(fs.polygons.Pack(composite.Tuple{square.ID}), appendPolygonForm(nil, reg.(polygonRegion), false))
	}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	// step reopens the file at format 3, runs fn in an Update (rolled
	// back when fn errs) and checks the format the file then records.
	rollback := errors.New("rolled back")
	step := func(what string, want uint64, fn func(tx keyspace.Tx) error) {
		t.Helper()
		setFileFormat(t, path, 3)
		s, err := keyspace.Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := s.Update(fn); err != nil && !errors.Is(err, rollback) {
			t.Fatalf("%s: %v", what, err)
		}
		if v, err := s.Format(); err != nil || v != want {
			t.Fatalf("%s: the file records format %d (%v), want %d", what, v, err, want)
		}
	}
	step("a point put", 3, func(tx keyspace.Tx) error { return ix.Put(tx, Point{ID: "p", Lat: 1, Lon: 2}) })
	step("a refused fence", 3, func(tx keyspace.Tx) error {
		if err := fs.Put(tx, Fence{ID: "none"}); !errors.Is(err, ErrBadFence) {
			t.Fatalf("a fence with no region: %v, want ErrBadFence", err)
		}
		if err := fs.PutAll(tx, []Fence{circle, {ID: "bad", Circle: &Circle{Lat: 91}}}); err == nil {
			t.Fatal("PutAll of a fence at latitude 91: no error")
		}
		return fs.PutAll(tx, nil)
	})
	step("a rolled-back put", 3, func(tx keyspace.Tx) error {
		if err := fs.Put(tx, circle); err != nil {
			return err
		}
		return rollback
	})
	step("a delete", 3, func(tx keyspace.Tx) error { return fs.Delete(tx, circle.ID) })
	step("a Repair that rewrites the earlier form", fenceFormat, func(tx keyspace.Tx) error {
		problems, err := fs.Repair(tx)
		if len(problems) != 0 {
			t.Errorf("Repair of the earlier form reported %q", problems)
		}
		return err
	})
	step("a Repair with nothing to write", 3, func(tx keyspace.Tx) error {
		_, err := fs.Repair(tx)
		return err
	})
	step("a put", fenceFormat, func(tx keyspace.Tx) error { return fs.Put(tx, circle) })
	step("a PutAll", fenceFormat, func(tx keyspace.Tx) error { return fs.PutAll(tx, []Fence{square}) })
	// A sector fence needs the format that knows sectors; the puts of
	// circles and polygons above did not raise the file to it.
	camera := Fence{ID: "camera", Sector: &Sector{Lat: 10, Lon: 10, Radius: 1000, From: 45, To: 135}}
	step("a sector put", sectorFenceFormat, func(tx keyspace.Tx) error { return fs.Put(tx, camera) })
	step("a PutAll with a sector", sectorFenceFormat, func(tx keyspace.Tx) error { return fs.PutAll(tx, []Fence{circle, camera}) })
	// A corridor needs the format that knows corridors, which a sector's
	// put did not raise the file to.
	route := Fence{ID: "route", Corridor: &Corridor{Line: orb.LineString{{10, 10}, {10.1, 10.2}}, Radius: 500}}
	step("a corridor put", corridorFenceFormat, func(tx keyspace.Tx) error { return fs.Put(tx, route) })
	step("a PutAll with a corridor", corridorFenceFormat, func(tx keyspace.Tx) error { return fs.PutAll(tx, []Fence{camera, route}) })
	step("a refused corridor", 3, func(tx keyspace.Tx) error {
		if err := fs.Put(tx, Fence{ID: "short", Corridor: &Corridor{Line: orb.LineString{{10, 10}}}}); !errors.Is(err, ErrBadFence) {
			t.Fatalf("a corridor of one position: %v, want ErrBadFence", err)
		}
		return nil
	})
}

// setFileFormat records format v in the keyspace file at path, through
// bbolt itself, as an older build would have.
func setFileFormat(t *testing.T, path string, v uint64) {
	t.Helper()
	db, err := bolt.Open(path, 0o644, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(func(tx *bolt.Tx) error { return tx.Bucket([]byte("keyspace")).SetSequence(v) }); err != nil {
		t.Fatal(err)
	}
}
