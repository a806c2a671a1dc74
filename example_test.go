package keyspace_test

import (
	"fmt"

	"github.com/keyspacedb/keyspace"
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
