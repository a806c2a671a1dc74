package geo

import (
	"bytes"
	"encoding/binary"
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
	"github.com/keyspacedb/keyspace/storetest"
)

// TestFenceExpiry: 60 fences, a third expired already, a third expiring
// in an hour and a third never, put one by one and with PutAll. Every
// reader must answer as the oracle over the live fences alone:
// Containing at probe points, Crossings of moves between them (an expired
// fence is neither entered, left, stayed in nor crossed), Get, IDs.
// NextExpiry is the soonest expiry of all; DeleteExpired deletes the
// expired fences soonest first, within its limit, and leaves the set key
// for key what putting the live fences alone into an empty store writes.
// SetExpiry expires and persists fences; bad expiries change nothing.
func TestFenceExpiry(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(71, 72))
		fs := NewFences("zones")
		fences, all, probes := fencesAround(r, 60, 12, 150_000)
		now := time.Now()
		live := map[string]Fence{}
		var expired []Fence
		for i := range fences {
			switch i % 3 {
			case 0: // expired, each at its own instant
				fences[i].Expires = now.Add(-time.Duration(1+r.IntN(1000)) * time.Minute)
				expired = append(expired, fences[i])
			case 1:
				fences[i].Expires = now.Add(time.Hour + time.Duration(i)*time.Second)
				live[fences[i].ID] = fences[i]
			default:
				live[fences[i].ID] = fences[i]
			}
			all[fences[i].ID] = fences[i]
		}
		// The expired fences would change answers, were they not left out.
		differ := 0
		for _, p := range probes {
			if !slices.Equal(wantContaining(all, p), wantContaining(live, p)) {
				differ++
			}
		}
		if differ < 30 {
			t.Fatalf("only %d probes are held by an expired fence: the test would not see them", differ)
		}
		if err := s.Update(func(tx keyspace.Tx) error {
			for _, f := range fences[:30] {
				if err := fs.Put(tx, f); err != nil {
					return err
				}
			}
			return fs.PutAll(tx, fences[30:])
		}); err != nil {
			t.Fatal(err)
		}
		checkLive := func(when string) {
			t.Helper()
			s.View(func(tx keyspace.Tx) error {
				for i, p := range probes {
					checkContaining(t, tx, fs, live, p, when)
					if i%4 == 0 {
						q := probes[r.IntN(len(probes))]
						cs, err := fs.Crossings(tx, &p, &q)
						if err != nil {
							t.Fatal(err)
						}
						checkCrossings(t, cs, live, &p, &q)
					}
				}
				if ids, err := fs.IDs(tx); err != nil || !slices.Equal(ids, slices.Sorted(maps.Keys(live))) {
					t.Fatalf("%s: IDs = %v, %v; want %v", when, ids, err, slices.Sorted(maps.Keys(live)))
				}
				for id := range all {
					got, err := fs.Get(tx, id)
					want, ok := live[id]
					switch {
					case !ok && !errors.Is(err, keyspace.ErrNotFound):
						t.Fatalf("%s: Get(%s) of an expired fence: %+v, %v", when, id, got, err)
					case ok && (err != nil || !got.Expires.Equal(want.Expires)):
						t.Fatalf("%s: Get(%s) = %+v, %v; want expiry %v", when, id, got, err, want.Expires)
					}
				}
				return nil
			})
		}
		checkLive("after the puts")

		soonest := slices.MinFunc(fences, func(a, b Fence) int { return cmpExpiry(a.Expires, b.Expires) })
		s.View(func(tx keyspace.Tx) error {
			if next, ok, err := fs.NextExpiry(tx); err != nil || !ok || !next.Equal(soonest.Expires) {
				t.Fatalf("NextExpiry = %v, %v, %v; want %v", next, ok, err, soonest.Expires)
			}
			return nil
		})

		// Sweep three, soonest first, then the rest.
		slices.SortFunc(expired, func(a, b Fence) int { return a.Expires.Compare(b.Expires) })
		sweep := func(limit, want int) {
			t.Helper()
			var n int
			if err := s.Update(func(tx keyspace.Tx) (err error) { n, err = fs.DeleteExpired(tx, time.Now(), limit); return err }); err != nil || n != want {
				t.Fatalf("DeleteExpired(limit %d) = %d, %v; want %d", limit, n, err, want)
			}
		}
		sweep(3, 3)
		s.View(func(tx keyspace.Tx) error {
			for i, f := range expired {
				_, err := fs.get(tx, f.ID) // stored, expired or not
				if gone := errors.Is(err, keyspace.ErrNotFound); gone != (i < 3) {
					t.Fatalf("after sweeping 3, the %d-th soonest expired fence %s gone: %v (%v)", i+1, f.ID, gone, err)
				}
			}
			return nil
		})
		sweep(0, len(expired)-3)
		sweep(0, 0)
		// An entry due but out of step with its fence (or of no fence)
		// is deleted alone: the fence stays.
		var liveID string
		for id := range live {
			liveID = id
			break
		}
		if err := s.Update(func(tx keyspace.Tx) error {
			if err := tx.Put(fs.expiryKey(time.Now().Add(-time.Minute).UnixNano(), liveID), nil); err != nil {
				return err
			}
			return tx.Put(fs.expiryKey(time.Now().Add(-time.Minute).UnixNano(), "nobody"), nil)
		}); err != nil {
			t.Fatal(err)
		}
		sweep(0, 0)
		s.View(func(tx keyspace.Tx) error {
			n := 0
			for range tx.Scan(fs.expiry.Range()) {
				n++
			}
			if n != len(live)-countNever(live) {
				t.Fatalf("after sweeping entries out of step, %d expiry entries; the live fences that expire are %d", n, len(live)-countNever(live))
			}
			return nil
		})
		checkLive("after the sweeps")

		// The set is now what the live fences alone make.
		fresh := keyspace.NewMemory()
		var kept []Fence
		for _, f := range fences {
			if _, ok := live[f.ID]; ok {
				kept = append(kept, f)
			}
		}
		if err := fresh.Update(func(tx keyspace.Tx) error { return fs.PutAll(tx, kept) }); err != nil {
			t.Fatal(err)
		}
		levels := string(fs.levelsKey) // Delete keeps levels in the mask
		want, got := storetest.Contents(t, fresh), storetest.Contents(t, s)
		delete(want, levels)
		delete(got, levels)
		if !maps.Equal(got, want) {
			t.Fatalf("after the sweeps the store holds %d keys; the live fences alone make %d", len(got), len(want))
		}

		// SetExpiry: a fence that never expired expires; one that would
		// expires never; an expired one is not found.
		var never, later string
		for _, id := range slices.Sorted(maps.Keys(live)) {
			switch f := live[id]; {
			case f.Expires.IsZero() && never == "":
				never = id
			case !f.Expires.IsZero() && later == "":
				later = id
			}
		}
		if err := s.Update(func(tx keyspace.Tx) error {
			if err := fs.SetExpiry(tx, never, time.Now().Add(-time.Second)); err != nil {
				return err
			}
			if err := fs.SetExpiry(tx, later, time.Time{}); err != nil {
				return err
			}
			if err := fs.SetExpiry(tx, expired[0].ID, time.Now().Add(time.Hour)); !errors.Is(err, keyspace.ErrNotFound) {
				t.Errorf("SetExpiry of a swept fence: %v", err)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		delete(live, never)
		f := live[later]
		f.Expires = time.Time{}
		live[later] = f
		checkLive("after SetExpiry")

		// Bad expiries are errors that change nothing.
		before := storetest.Contents(t, s)
		bad := []time.Time{time.Unix(0, 0), time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC)}
		for _, at := range bad {
			s.Update(func(tx keyspace.Tx) error {
				f := fences[1]
				f.Expires = at
				if err := f.Validate(); !errors.Is(err, ErrBadExpiry) {
					t.Errorf("Validate of expiry %v: %v", at, err)
				}
				if err := fs.Put(tx, f); !errors.Is(err, ErrBadExpiry) {
					t.Errorf("Put with expiry %v: %v", at, err)
				}
				if err := fs.PutAll(tx, []Fence{fences[2], f}); !errors.Is(err, ErrBadExpiry) {
					t.Errorf("PutAll with expiry %v: %v", at, err)
				}
				if err := fs.SetExpiry(tx, later, at); !errors.Is(err, ErrBadExpiry) {
					t.Errorf("SetExpiry to %v: %v", at, err)
				}
				return nil
			})
		}
		if after := storetest.Contents(t, s); !maps.Equal(after, before) {
			t.Fatal("bad expiries changed the store")
		}
		s.View(func(tx keyspace.Tx) error {
			if problems, err := fs.Verify(tx); err != nil || len(problems) > 0 {
				t.Fatalf("Verify: %v, %v", problems, err)
			}
			return nil
		})
	})
}

// countNever counts the fences that never expire.
func countNever(fences map[string]Fence) int {
	n := 0
	for _, f := range fences {
		if f.Expires.IsZero() {
			n++
		}
	}
	return n
}

// cmpExpiry orders expiries soonest first, never last.
func cmpExpiry(a, b time.Time) int {
	switch {
	case a.IsZero() && b.IsZero():
		return 0
	case a.IsZero():
		return 1
	case b.IsZero():
		return -1
	}
	return a.Compare(b)
}

// TestFenceExpiryRepair: Verify finds a missing expiry entry, a stray
// one, and an expiring fence's cell that holds the bare edge value (which
// a fence that never expires may hold, but which would keep an expired
// fence alive); Repair restores the keys as they were.
func TestFenceExpiryRepair(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(73, 74))
		fs := NewFences("z")
		fences, _, _ := fencesAround(r, 12, 0, 0)
		for i := range fences {
			if i%2 == 0 {
				fences[i].Expires = time.Now().Add(time.Duration(i+1) * time.Hour)
			}
		}
		if err := s.Update(func(tx keyspace.Tx) error { return fs.PutAll(tx, fences) }); err != nil {
			t.Fatal(err)
		}
		sound := storetest.Contents(t, s)
		var problems []string
		if err := s.Update(func(tx keyspace.Tx) error {
			if err := tx.Delete(fs.expiryKey(fences[0].Expires.UnixNano(), fences[0].ID)); err != nil {
				return err
			}
			if err := tx.Put(fs.expiryKey(time.Now().UnixNano(), fences[1].ID), nil); err != nil {
				return err
			}
			// An edge cell of fences[2], which expires, made bare.
			def, err := fs.get(tx, fences[2].ID)
			if err != nil {
				return err
			}
			for _, c := range def.Cells {
				if c[3] == 0 {
					return tx.Put(fs.cellKey(c, fences[2].ID), []byte{cellEdge})
				}
			}
			return errors.New("fences[2] has no edge cell")
		}); err != nil {
			t.Fatal(err)
		}
		s.View(func(tx keyspace.Tx) (err error) { problems, err = fs.Verify(tx); return err })
		for _, want := range []string{"expiry entry", "stray fence expiry entry", "holds 00"} {
			if !slices.ContainsFunc(problems, func(p string) bool { return strings.Contains(p, want) }) {
				t.Errorf("Verify found %q, nothing about %q", problems, want)
			}
		}
		storetest.CheckRepair(t, s, sound, fs.Verify, fs.Repair)
	})
}

// TestCellParts: the first byte of a cell's value and the expiry after
// it, at their edges.
func TestCellParts(t *testing.T) {
	exp := func(n int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(n)) }
	floats := appendFloats(nil, 1, 2, 3)
	for _, c := range []struct {
		name    string
		v       []byte
		kind    byte
		expires int64
		body    []byte
		ok      bool
	}{
		{"empty", nil, 0, 0, nil, false},
		{"inside", []byte{cellInside}, cellInside, 0, []byte{}, true},
		{"circle", append([]byte{cellCircle}, floats...), cellCircle, 0, floats, true},
		{"expiring inside", append([]byte{cellInside | cellExpires}, exp(5)...), cellInside, 5, []byte{}, true},
		{"expiring circle", append(append([]byte{cellCircle | cellExpires}, exp(math.MaxInt64)...), floats...), cellCircle, math.MaxInt64, floats, true},
		{"expiry cut short", append([]byte{cellEdge | cellExpires}, exp(5)[:7]...), 0, 0, nil, false},
		{"expiry flag alone", []byte{cellExpires}, 0, 0, nil, false},
		{"expiry 0", append([]byte{cellEdge | cellExpires}, exp(0)...), 0, 0, nil, false},
		{"expiry before 1970", append([]byte{cellEdge | cellExpires}, exp(-1)...), 0, 0, nil, false},
	} {
		kind, expires, body, ok := cellParts(c.v)
		if kind != c.kind || expires != c.expires || !bytes.Equal(body, c.body) || ok != c.ok {
			t.Errorf("%s: cellParts(%x) = %d, %d, %x, %v; want %d, %d, %x, %v", c.name, c.v, kind, expires, body, ok, c.kind, c.expires, c.body, c.ok)
		}
	}
}

// FuzzFenceCellValue: the value of every kind of cell of a fence, with
// and without an expiry, reads back (cellParts) as its kind, expiry and
// region, and tells a point in it what the fence does; and no value at
// all makes cellParts or cellHolds panic.
func FuzzFenceCellValue(f *testing.F) {
	f.Add(int8(0), false, int64(0), 10.0, 20.0, 500.0, 0.5, []byte{1})
	f.Add(int8(1), true, int64(1), -89.0, 179.0, 2e5, -0.5, []byte{0x81, 0, 0})
	f.Add(int8(2), false, int64(math.MaxInt64), 0.0, -180.0, 0.0, 0.0, []byte{})
	f.Fuzz(func(t *testing.T, shape int8, inside bool, expires int64, lat, lon, size, off float64, raw []byte) {
		cellParts(raw) // any bytes: no panic
		if k, _, body, ok := cellParts(raw); ok {
			cellHolds(k, body, lat, lon)
		}
		fence := Fence{ID: "f"}
		lat, lon = math.Mod(lat, 90), math.Mod(lon, 180)
		size = math.Abs(math.Mod(size, 1e6))
		switch shape % 3 {
		case 0:
			fence.Circle = &Circle{Lat: lat, Lon: lon, Radius: size}
		case 1:
			d := size / 2e5
			fence.Box = &Box{MinLat: math.Max(lat-d, -90), MinLon: lon, MaxLat: math.Min(lat+d, 90), MaxLon: wrap(lon + d)}
		default:
			fence.Polygon = star(rand.New(rand.NewPCG(uint64(expires), 1)), lat, lon, 0.1+size/1e6, false)
		}
		if expires > 0 {
			fence.Expires = time.Unix(0, expires)
		}
		if fence.Validate() != nil {
			return
		}
		v := fence.cellValue(inside)
		kind, gotExpires, body, ok := cellParts(v)
		wantExpires := max(expires, 0)
		if !ok || gotExpires != wantExpires {
			t.Fatalf("cellParts(%x) = %d, %d, %x, %v; want expiry %d", v, kind, gotExpires, body, ok, wantExpires)
		}
		plat, plon := destination(lat, lon, math.Abs(off)*size*1.5, off*7)
		holds, test, ok := cellHolds(kind, body, plat, plon)
		switch {
		case !ok:
			t.Fatalf("cellHolds of %x: not a value", v)
		case inside:
			if !holds || !test || kind != cellInside {
				t.Fatalf("an inside cell's value %x: holds %v, test %v", v, holds, test)
			}
		case fence.Polygon != nil:
			if test || kind != cellEdge {
				t.Fatalf("a polygon's edge cell's value %x: test %v", v, test)
			}
		case holds != fenceHolds(fence, plat, plon):
			t.Fatalf("the edge cell of %s says (%v, %v) is held: %v; the fence says %v", fmt.Sprint(fence.Circle, fence.Box), plat, plon, holds, !holds)
		}
	})
}
