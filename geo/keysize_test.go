package geo

import (
	"errors"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/internal/errctx"
	"github.com/keyspacedb/keyspace/storetest"
)

// TestIDsAtTheKeyLimit: the longest id Validate accepts (found by
// bisection, for ids of plain bytes and of zero bytes, which pack into
// two, with and without a scope and an expiry) is written by Put and by
// PutAll, as the store itself, which refuses keys past MaxKeySize, is the
// judge; one byte more is refused by Validate, Put and PutAll with
// ErrKeyTooLarge, in an error naming the point, and nothing is written,
// even in the transaction that saw the refusal. The bound is close: at
// the first refused length the point's real key is within a hash's bytes
// of the limit.
func TestIDsAtTheKeyLimit(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		ix := NewIndex("long")
		for _, c := range []struct {
			name    string
			fill    string
			scope   composite.Tuple
			expires time.Time
		}{
			{"plain", "x", nil, time.Time{}},
			{"zero bytes", "\x00", nil, time.Time{}},
			{"scoped, expiring", "y", composite.Tuple{"CA", "a\x00b", int64(7)}, time.Now().Add(time.Hour)},
		} {
			point := func(n int) Point {
				return Point{ID: strings.Repeat(c.fill, n), Lat: -89.99, Lon: 179.99, Scope: c.scope, Expires: c.expires}
			}
			longest := sort.Search(keyspace.MaxKeySize, func(n int) bool { return ix.Validate(point(n+1)) != nil })
			if packed := len(composite.Tuple{strings.Repeat(c.fill, 100)}.Pack()) / 100; longest < (keyspace.MaxKeySize-100)/packed {
				t.Fatalf("%s: Validate accepts ids of at most %d bytes", c.name, longest)
			}
			fits, over := point(longest), point(longest+1)
			named := "point " + errctx.Quote(over.ID)
			if err := ix.Validate(over); !errors.Is(err, keyspace.ErrKeyTooLarge) || !strings.Contains(err.Error(), named) {
				t.Fatalf("%s: Validate(%d bytes) = %v, want ErrKeyTooLarge naming the point", c.name, longest+1, err)
			}
			g, h := locate(over.Lat, over.Lon)
			if real := len(ix.points[g].Pack(append(placeOf(over.Scope, h), over.ID))); real <= keyspace.MaxKeySize-maxHashBytes {
				t.Errorf("%s: an id of %d bytes is refused, and its key is %d bytes", c.name, longest+1, real)
			}
			for _, write := range []struct {
				name string
				put  func(tx keyspace.Tx, p Point) error
			}{
				{"Put", ix.Put},
				{"PutAll", func(tx keyspace.Tx, p Point) error { return ix.PutAll(tx, []Point{{ID: "other", Lat: 1, Lon: 2}, p}) }},
			} {
				err := storetest.RefusedChangesNothing(t, s, func(tx keyspace.Tx) error { return write.put(tx, over) })
				if !errors.Is(err, keyspace.ErrKeyTooLarge) || !strings.Contains(err.Error(), named) {
					t.Errorf("%s %s(%d-byte id) = %v, want ErrKeyTooLarge naming the point", c.name, write.name, longest+1, err)
				}
				if err := s.Update(func(tx keyspace.Tx) error { return write.put(tx, fits) }); err != nil {
					t.Fatalf("%s %s(%d-byte id): %v", c.name, write.name, longest, err)
				}
				s.View(func(tx keyspace.Tx) error {
					got, err := ix.Get(tx, fits.ID)
					if err != nil || got.Lat != fits.Lat || got.Lon != fits.Lon {
						t.Errorf("%s %s: Get = %v, %v", c.name, write.name, got.Lat, err)
					}
					return nil
				})
				if err := s.Update(func(tx keyspace.Tx) error { return ix.Delete(tx, fits.ID) }); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}

// TestFenceIDsTooLong: a fence whose id makes one of its keys longer than
// the store takes is refused by Put and PutAll with ErrKeyTooLarge naming
// it, and nothing is written, even in the transaction that saw the
// refusal; the longest id that fits (found by bisection over Put, each
// try rolled back) is stored and found.
func TestFenceIDsTooLong(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		fs := NewFences("zones")
		fence := func(n int) Fence {
			return Fence{ID: strings.Repeat("f", n), Circle: &Circle{Lat: 10, Lon: 20, Radius: 500}, Expires: time.Now().Add(time.Hour)}
		}
		errRollback := errors.New("roll back")
		longest := sort.Search(keyspace.MaxKeySize, func(n int) bool {
			err := s.Update(func(tx keyspace.Tx) error {
				if err := fs.Put(tx, fence(n+1)); err != nil {
					return err
				}
				return errRollback
			})
			return !errors.Is(err, errRollback)
		})
		if longest < keyspace.MaxKeySize-200 {
			t.Fatalf("fence ids of at most %d bytes fit", longest)
		}
		over := fence(longest + 1)
		for _, write := range []struct {
			name string
			put  func(tx keyspace.Tx, f Fence) error
		}{
			{"Put", fs.Put},
			{"PutAll", func(tx keyspace.Tx, f Fence) error { return fs.PutAll(tx, []Fence{fence(3), f}) }},
		} {
			err := storetest.RefusedChangesNothing(t, s, func(tx keyspace.Tx) error { return write.put(tx, over) })
			if !errors.Is(err, keyspace.ErrKeyTooLarge) || !strings.Contains(err.Error(), "fence "+errctx.Quote(over.ID)) {
				t.Errorf("%s(%d-byte id) = %v, want ErrKeyTooLarge naming the fence", write.name, longest+1, err)
			}
		}
		if err := s.Update(func(tx keyspace.Tx) error { return fs.Put(tx, fence(longest)) }); err != nil {
			t.Fatal(err)
		}
		s.View(func(tx keyspace.Tx) error {
			if ids, err := fs.Containing(tx, 10, 20); err != nil || len(ids) != 1 || ids[0] != fence(longest).ID {
				t.Errorf("Containing finds %d fences, %v; want the one with the %d-byte id", len(ids), err, longest)
			}
			return nil
		})
	})
}
