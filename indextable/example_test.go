package indextable_test

import (
	"fmt"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/indextable"
)

type Order struct {
	Status  string `json:"status"`
	Created int64  `json:"created"`
}

// The compound index "status asc, createTime desc": completed orders,
// newest first.
func Example() {
	store := keyspace.NewMemory()
	orders := indextable.New[Order]("orders", nil)
	byStatus, _ := orders.AddIndex(indextable.IndexSpec[Order]{
		Name: "status_created",
		Values: func(o Order) []composite.Tuple {
			return []composite.Tuple{{o.Status, composite.Desc{V: o.Created}}}
		},
	})
	store.Update(func(tx keyspace.Tx) error {
		for id, o := range []Order{{"completed", 100}, {"open", 200}, {"completed", 300}, {"completed", 200}} {
			if _, err := orders.Put(tx, composite.Tuple{id}, o); err != nil {
				return err
			}
		}
		return nil
	})
	store.View(func(tx keyspace.Tx) error {
		page, _ := byStatus.Scan(tx, byStatus.Equal("completed"), nil)
		for _, e := range page.Entries {
			fmt.Println("order", e.Key[0], "created", e.Value[1].(composite.Desc).V)
		}
		return nil
	})
	// Output:
	// order 2 created 300
	// order 3 created 200
	// order 0 created 100
}
