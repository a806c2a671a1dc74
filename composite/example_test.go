package composite_test

import (
	"fmt"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
)

// The seeds' user table keyed State:City:UserID: a prefix query for one
// city, and the number of users per state.
func Example() {
	store := keyspace.NewMemory()
	users := composite.NewTable("users", composite.Schema{
		{Name: "state", Kind: composite.KindString},
		{Name: "city", Kind: composite.KindString},
		{Name: "id", Kind: composite.KindInt},
	})
	store.Update(func(tx keyspace.Tx) error {
		for _, u := range []composite.Tuple{
			{"CA", "San Francisco", 10}, {"CA", "San Francisco", 9}, {"CA", "San Jose", 3},
			{"CA", "Los Angeles", 7}, {"NY", "New York", 1},
		} {
			if err := users.Put(tx, u, []byte("{}")); err != nil {
				return err
			}
		}
		return nil
	})
	store.View(func(tx keyspace.Tx) error {
		r, _ := users.Query("CA:San*")
		page, _ := users.Scan(tx, r, composite.ScanOptions{})
		for _, row := range page.Rows {
			text, _ := composite.FormatText(row.Key)
			fmt.Println(text)
		}
		counts, _ := users.Count(tx, nil, 1)
		for _, c := range counts {
			fmt.Println(c.Group[0], c.Count)
		}
		return nil
	})
	// Output:
	// CA:San Francisco:9
	// CA:San Francisco:10
	// CA:San Jose:3
	// CA 4
	// NY 1
}
