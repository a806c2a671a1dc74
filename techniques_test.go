package keyspace_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/enumkeys"
	"github.com/keyspacedb/keyspace/geo"
	"github.com/keyspacedb/keyspace/indextable"
	"github.com/keyspacedb/keyspace/storetest"
)

// TestOneTransactionAcrossTechniques: a shop's record and its unique
// index entry, its geo point, its delivery zone (a fence) and its audit
// log change in one Update, on
// both backends. When the Update fails late (a unique violation after
// everything else was written), panics or has its context cancelled, none
// of it stays, in any
// technique; when it succeeds, all of it is there. The oracle is the list
// of shops committed, checked through each technique's own reads.
func TestOneTransactionAcrossTechniques(t *testing.T) {
	type shop struct{ Name string }
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		shops := indextable.New[shop]("shops", nil)
		byName, err := shops.AddIndex(indextable.IndexSpec[shop]{Name: "name", Unique: true,
			Values: func(r shop) []composite.Tuple { return []composite.Tuple{{r.Name}} }})
		if err != nil {
			t.Fatal(err)
		}
		places, audit, zones := geo.NewIndex("shops"), enumkeys.NewLog("audit"), geo.NewFences("delivery")
		where := map[string][2]float64{"s1": {59.91, 10.75}, "s2": {59.911, 10.751}, "s3": {59.912, 10.752}, "s4": {59.909, 10.749}}
		at := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
		// open writes a shop everywhere it lives, in tx.
		open := func(tx keyspace.Tx, id, name string, lat, lon float64) error {
			if _, err := shops.Put(tx, composite.Tuple{id}, shop{name}); err != nil {
				return err
			}
			if err := places.Put(tx, geo.Point{ID: id, Lat: lat, Lon: lon}); err != nil {
				return err
			}
			// Its delivery zone: a fence of 50 m around it.
			if err := zones.Put(tx, geo.Fence{ID: id, Circle: &geo.Circle{Lat: lat, Lon: lon, Radius: 50}}); err != nil {
				return err
			}
			_, err := audit.Append(tx, id, at, []byte("opened "+name))
			return err
		}
		committed := map[string]string{} // id → name
		check := func(when string) {
			t.Helper()
			s.View(func(tx keyspace.Tx) error {
				for _, id := range []string{"s1", "s2", "s3", "s4"} {
					name, want := committed[id]
					rec, err := shops.Get(tx, composite.Tuple{id})
					if got := err == nil; got != want || want && rec.Value.Name != name {
						t.Errorf("%s: table has %s = %v, %v; want it: %v", when, id, rec.Value, err, want)
					}
					if _, err := places.Get(tx, id); (err == nil) != want {
						t.Errorf("%s: geo index has %s: %v; want it: %v", when, id, err == nil, want)
					}
					at := where[id]
					held, err := zones.Containing(tx, at[0], at[1])
					if err != nil || slices.Contains(held, id) != want {
						t.Errorf("%s: the delivery zone of %s holds it: %v (%v); want %v", when, id, slices.Contains(held, id), err, want)
					}
					items, err := audit.Latest(tx, id, 10)
					if err != nil || (len(items) == 1) != want || len(items) > 1 {
						t.Errorf("%s: log of %s holds %d items (%v); want it: %v", when, id, len(items), err, want)
					}
				}
				// Everything is within 1 km of the others: a radius query
				// finds exactly the shops committed.
				near, _, err := places.Radius(tx, 59.91, 10.75, 1000, nil)
				var ids []string
				for _, r := range near {
					ids = append(ids, r.ID)
				}
				slices.Sort(ids)
				var want []string
				for id := range committed {
					want = append(want, id)
				}
				slices.Sort(want)
				if err != nil || !slices.Equal(ids, want) {
					t.Errorf("%s: radius query finds %v (%v), want %v", when, ids, err, want)
				}
				if problems, err := byName.Verify(tx); err != nil || len(problems) > 0 {
					t.Errorf("%s: the unique index is out of step with the table: %v, %v", when, problems, err)
				}
				if problems, err := zones.Verify(tx); err != nil || len(problems) > 0 {
					t.Errorf("%s: the fence set's cells are out of step with its fences: %v, %v", when, problems, err)
				}
				return nil
			})
		}

		if err := s.Update(func(tx keyspace.Tx) error { return open(tx, "s1", "Bakery", 59.91, 10.75) }); err != nil {
			t.Fatal(err)
		}
		committed["s1"] = "Bakery"
		check("after the first shop")

		// The last write breaks the unique index: the shop before it,
		// written in all three techniques, goes too.
		err = s.Update(func(tx keyspace.Tx) error {
			if err := open(tx, "s2", "Café", 59.911, 10.751); err != nil {
				return err
			}
			return open(tx, "s3", "Bakery", 59.912, 10.752)
		})
		if !errors.Is(err, indextable.ErrUnique) {
			t.Fatalf("a second Bakery: %v, want ErrUnique", err)
		}
		check("after a unique violation")

		// A panic after writes rolls them back and reaches the caller.
		func() {
			defer func() {
				if recover() == nil {
					t.Error("the panic did not reach the caller")
				}
			}()
			s.Update(func(tx keyspace.Tx) error {
				if err := open(tx, "s4", "Florist", 59.909, 10.749); err != nil {
					return err
				}
				panic("mid-transaction")
			})
		}()
		check("after a panic")

		// Ctrl-C mid-transaction (its context cancelled): each technique's
		// next write, one by one or in bulk, fails with an error wrapping
		// context.Canceled, and nothing the transaction wrote stays, though
		// fn drops those errors and returns nil.
		ctx, cancel := context.WithCancel(context.Background())
		err = s.UpdateContext(ctx, func(tx keyspace.Tx) error {
			if err := open(tx, "s4", "Florist", 59.909, 10.749); err != nil {
				return err
			}
			cancel()
			p := geo.Point{ID: "s3", Lat: 59.912, Lon: 10.752}
			fence := geo.Fence{ID: "s3", Circle: &geo.Circle{Lat: p.Lat, Lon: p.Lon, Radius: 50}}
			_, tablePut := shops.Put(tx, composite.Tuple{"s3"}, shop{"Grocer"})
			_, logAppend := audit.Append(tx, "s3", at, []byte("opened Grocer"))
			for what, err := range map[string]error{
				"table Put":    tablePut,
				"table PutAll": shops.PutAll(tx, []indextable.Row[shop]{{Key: composite.Tuple{"s3"}, Value: shop{"Grocer"}}}),
				"geo Put":      places.Put(tx, p),
				"geo PutAll":   places.PutAll(tx, []geo.Point{p}),
				"fence Put":    zones.Put(tx, fence),
				"fence PutAll": zones.PutAll(tx, []geo.Fence{fence}),
				"log Append":   logAppend,
			} {
				if !errors.Is(err, context.Canceled) {
					t.Errorf("%s after the context was cancelled: %v, want an error wrapping context.Canceled", what, err)
				}
			}
			return nil
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("UpdateContext after a cancel: %v, want an error wrapping context.Canceled", err)
		}
		check("after a cancelled context")

		if err := s.Update(func(tx keyspace.Tx) error { return open(tx, "s2", "Café", 59.911, 10.751) }); err != nil {
			t.Fatal(err)
		}
		committed["s2"] = "Café"
		check("after the second shop")
	})
}
