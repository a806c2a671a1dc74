package keyspace_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/enumkeys"
	"github.com/keyspacedb/keyspace/geo"
	"github.com/keyspacedb/keyspace/indextable"
)

// Keys sort byte-wise; Prefix turns "everything under users/" into one range
// scan, forward or reverse.
func Example() {
	store := keyspace.NewMemory() // or keyspace.Open("keyspace.db", nil) for the bbolt file
	defer store.Close()

	err := store.Update(func(tx keyspace.Tx) error {
		for _, k := range []string{"users/ann", "users/bob", "users/cid", "zones/eu"} {
			if err := tx.Put([]byte(k), []byte("v")); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		panic(err)
	}
	store.View(func(tx keyspace.Tx) error {
		r := keyspace.Prefix([]byte("users/"))
		r.Reverse, r.Limit = true, 2
		for k := range tx.Scan(r) {
			fmt.Println(string(k))
		}
		return tx.Err()
	})
	// Output:
	// users/cid
	// users/bob
}

// One transaction spans every technique: a record with its index entries,
// its geo point and a log item are written together or not at all.
func Example_oneTransaction() {
	type shop struct{ Name string }
	store := keyspace.NewMemory()
	shops := indextable.New[shop]("shops", nil)
	places, audit := geo.NewIndex("shops"), enumkeys.NewLog("audit")
	open := func(tx keyspace.Tx, id, name string, lat, lon float64) error {
		if _, err := shops.Put(tx, composite.Tuple{id}, shop{name}); err != nil {
			return err
		}
		if err := places.Put(tx, geo.Point{ID: id, Lat: lat, Lon: lon}); err != nil {
			return err
		}
		_, err := audit.Append(tx, id, time.Now(), []byte("opened"))
		return err
	}
	store.Update(func(tx keyspace.Tx) error { return open(tx, "s1", "Bakery", 59.91, 10.75) })
	err := store.Update(func(tx keyspace.Tx) error {
		if err := open(tx, "s2", "Café", 59.911, 10.751); err != nil {
			return err
		}
		return errors.New("the till is closed") // every write above is rolled back
	})
	fmt.Println(err)
	store.View(func(tx keyspace.Tx) error {
		near, _, _ := places.Radius(tx, 59.91, 10.75, 1000, nil)
		_, getErr := shops.Get(tx, composite.Tuple{"s2"})
		items, _ := audit.Latest(tx, "s2", 10)
		fmt.Println(len(near), "shop near;", errors.Is(getErr, keyspace.ErrNotFound), len(items))
		return nil
	})
	// Output:
	// the till is closed
	// 1 shop near; true 0
}

// A memory store saved into a bbolt file and loaded back into memory.
func ExampleCopy() {
	dir, _ := os.MkdirTemp("", "keyspace-example")
	defer os.RemoveAll(dir)

	mem := keyspace.NewMemory()
	mem.Update(func(tx keyspace.Tx) error {
		tx.Put([]byte("users/ann"), []byte("Oslo"))
		return tx.Put([]byte("users/bob"), []byte("Lima"))
	})
	file, err := keyspace.Open(filepath.Join(dir, "saved.db"), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer file.Close()
	saved, err := keyspace.Copy(file, mem) // save
	fmt.Println("saved", saved, err)

	loaded := keyspace.NewMemory()
	n, err := keyspace.Copy(loaded, file) // load
	fmt.Println("loaded", n, err)
	loaded.View(func(tx keyspace.Tx) error {
		v, err := tx.Get([]byte("users/bob"))
		fmt.Printf("users/bob = %s %v\n", v, err)
		return nil
	})
	// Output:
	// saved 2 <nil>
	// loaded 2 <nil>
	// users/bob = Lima <nil>
}

// Batch lets many goroutines' small writes share commits: here 50
// position reports, each its own call, each moving a vehicle of a geo
// index. On bbolt the reports that arrive while a commit runs go into the
// next transaction together, with one fsync for all of them.
func ExampleStore_Batch() {
	dir, err := os.MkdirTemp("", "keyspace-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	store, err := keyspace.Open(filepath.Join(dir, "fleet.db"), nil)
	if err != nil {
		panic(err)
	}
	defer store.Close()
	fleet := geo.NewIndex("fleet")

	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() { // a request handler
			defer wg.Done()
			report := geo.Point{ID: fmt.Sprintf("van-%d", i%10), Lat: 59.91 + float64(i)/1000, Lon: 10.75}
			err := store.Batch(func(tx keyspace.Tx) error { return fleet.Put(tx, report) })
			if err != nil {
				fmt.Println(err)
			}
		}()
	}
	wg.Wait()
	store.View(func(tx keyspace.Tx) error {
		near, _, err := fleet.Radius(tx, 59.95, 10.75, 100_000, nil)
		fmt.Println(len(near), "vans", err)
		return nil
	})
	// Output: 10 vans <nil>
}

// A store written by many small Updates is compacted when the server is
// quiet: the same pairs, laid out as a bulk load lays them.
func ExampleMemoryStore_Compact() {
	store := keyspace.NewMemory()
	for i := range 1000 {
		store.Update(func(tx keyspace.Tx) error {
			return tx.Put([]byte(fmt.Sprintf("sensor/%04d", (i*7919)%1000)), []byte("reading"))
		})
	}
	n, err := store.Compact()
	fmt.Println(n, err, store.Len())
	// Output: 1000 <nil> 1000
}
