package indextable_test

import (
	"errors"
	"fmt"
	"time"

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

// Seed 000's likes: users like items; each side's list is newest first,
// carries the other side's fields, pages with a cursor, and has a count.
func ExampleRelation() {
	store := keyspace.NewMemory()
	likes := indextable.NewRelation("likes")
	at := time.Date(2017, 12, 1, 3, 42, 0, 0, time.UTC)
	store.Update(func(tx keyspace.Tx) error {
		likes.SetLeftFields(tx, "u1", []byte(`{"name":"jerrylou"}`))
		likes.SetLeftFields(tx, "u2", []byte(`{"name":"gunsluo"}`))
		likes.Link(tx, "u1", "i1", at)
		likes.Link(tx, "u1", "i2", at.Add(time.Hour))
		return likes.Link(tx, "u2", "i1", at.Add(2*time.Hour))
	})
	store.View(func(tx keyspace.Tx) error {
		page, _ := likes.Lefts(tx, "i1", &indextable.ListOptions{Limit: 1})
		fmt.Println("i1, newest liker:", page.Links[0].ID, string(page.Links[0].Fields))
		page, _ = likes.Lefts(tx, "i1", &indextable.ListOptions{Limit: 1, Cursor: page.Next})
		fmt.Println("i1, then:", page.Links[0].ID, string(page.Links[0].Fields))
		n, _ := likes.CountLefts(tx, "i1")
		m, _ := likes.CountRights(tx, "u1")
		fmt.Println("i1 has", n, "likers; u1 likes", m, "items")
		return nil
	})
	// Output:
	// i1, newest liker: u2 {"name":"gunsluo"}
	// i1, then: u1 {"name":"jerrylou"}
	// i1 has 2 likers; u1 likes 2 items
}

// An import of likes: one LinkAll, as Link of each edge in order (u1's
// second like of i1 moves it to the later time, and counts once).
func ExampleRelation_LinkAll() {
	store := keyspace.NewMemory()
	likes := indextable.NewRelation("likes")
	at := time.Date(2017, 12, 1, 3, 42, 0, 0, time.UTC)
	store.Update(func(tx keyspace.Tx) error {
		return likes.LinkAll(tx, []indextable.Edge{
			{Left: "u1", Right: "i1", At: at},
			{Left: "u2", Right: "i1", At: at.Add(time.Hour)},
			{Left: "u1", Right: "i1", At: at.Add(2 * time.Hour)},
		})
	})
	store.View(func(tx keyspace.Tx) error {
		page, _ := likes.Lefts(tx, "i1", nil)
		for _, l := range page.Links {
			fmt.Println(l.ID, l.Time.Format(time.Kitchen))
		}
		n, _ := likes.CountLefts(tx, "i1")
		fmt.Println("i1 has", n, "likers")
		return nil
	})
	// Output:
	// u1 5:42AM
	// u2 4:42AM
	// i1 has 2 likers
}

// Seed 004's buckets: readings folded into one record a minute.
func ExampleSeries() {
	store := keyspace.NewMemory()
	temps := indextable.NewSeries("temps", &indextable.SeriesOptions{Width: time.Minute})
	t0 := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	store.Update(func(tx keyspace.Tx) error {
		for i, v := range []float64{20, 22, 21, 25} {
			if err := temps.Add(tx, "s1", t0.Add(time.Duration(i*25)*time.Second), v); err != nil {
				return err
			}
		}
		return nil
	})
	store.View(func(tx keyspace.Tx) error {
		series, _ := indextable.LoadSeries(tx, "temps") // as it was written
		buckets, _ := series.Range(tx, "s1", time.Time{}, time.Time{})
		for _, b := range buckets {
			fmt.Printf("%s: %d readings, min %g, mean %g, max %g\n", b.Start.Format("15:04"), b.Count, b.Min, b.Mean(), b.Max)
		}
		return nil
	})
	// Output:
	// 10:00: 3 readings, min 20, mean 21, max 22
	// 10:01: 1 readings, min 25, mean 25, max 25
}

// Minute buckets rolled up into hours: each hour's count, minimum, mean
// and maximum, the mean that of every reading in it.
func ExampleSeries_Rollup() {
	store := keyspace.NewMemory()
	temps := indextable.NewSeries("temps", nil) // minute buckets
	t0 := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	store.Update(func(tx keyspace.Tx) error {
		for i, v := range []float64{20, 22, 21, 25, 18, 19} {
			if err := temps.Add(tx, "s1", t0.Add(time.Duration(i)*25*time.Minute), v); err != nil {
				return err
			}
		}
		return nil
	})
	store.View(func(tx keyspace.Tx) error {
		minutes, _ := temps.Range(tx, "s1", time.Time{}, time.Time{})
		hours, err := temps.Rollup(minutes, time.Hour)
		if err != nil {
			return err
		}
		for _, b := range hours {
			fmt.Printf("%s: %d readings, min %g, mean %g, max %g\n", b.Start.Format("15:04"), b.Count, b.Min, b.Mean(), b.Max)
		}
		return nil
	})
	// Output:
	// 10:00: 3 readings, min 20, mean 21, max 22
	// 11:00: 2 readings, min 18, mean 21.5, max 25
	// 12:00: 1 readings, min 19, mean 19, max 19
}

type Session struct {
	User string `json:"user"`
}

// Sessions that expire, with a unique index on the user: a session is
// gone from Get and from lookups the instant it expires, a new session
// for the same user takes the value from the expired one, and
// DeleteExpired frees the keys of the rest.
func ExampleTable_SetExpiry() {
	store := keyspace.NewMemory()
	now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	sessions := indextable.New[Session]("sessions", &indextable.Options{Now: func() time.Time { return now }})
	byUser, _ := sessions.AddIndex(indextable.IndexSpec[Session]{Name: "user", Unique: true,
		Values: func(s Session) []composite.Tuple { return []composite.Tuple{{s.User}} }})
	store.Update(func(tx keyspace.Tx) error {
		for token, user := range map[string]string{"t1": "ann", "t2": "bob"} {
			if _, err := sessions.Put(tx, composite.Tuple{token}, Session{user}); err != nil {
				return err
			}
			// In the same transaction: the session and its expiry are
			// written together or not at all.
			if err := sessions.SetExpiry(tx, composite.Tuple{token}, now.Add(30*time.Minute)); err != nil {
				return err
			}
		}
		return nil
	})
	now = now.Add(time.Hour)
	store.Update(func(tx keyspace.Tx) error {
		_, err := sessions.Get(tx, composite.Tuple{"t1"})
		fmt.Println("t1 after an hour:", err != nil)
		_, err = sessions.Put(tx, composite.Tuple{"t3"}, Session{"ann"}) // ann's old session held "ann"
		fmt.Println("new session for ann:", err)
		n, _ := sessions.DeleteExpired(tx, now, 0)
		fmt.Println("deleted:", n)
		page, _ := byUser.Scan(tx, byUser.All(), nil)
		for _, e := range page.Entries {
			fmt.Println(e.Value[0], "→", e.Key[0])
		}
		return nil
	})
	// Output:
	// t1 after an hour: true
	// new session for ann: <nil>
	// deleted: 1
	// ann → t3
}

// An index renamed in a transaction, then declared under its new name:
// its entries answer there as they did under the old one.
func ExampleIndex_Rename() {
	store := keyspace.NewMemory()
	orders := indextable.New[Order]("orders", nil)
	spec := indextable.IndexSpec[Order]{
		Name:   "by_status",
		Values: func(o Order) []composite.Tuple { return []composite.Tuple{{o.Status}} },
	}
	byStatus, _ := orders.AddIndex(spec)
	store.Update(func(tx keyspace.Tx) error {
		for id, o := range []Order{{"open", 100}, {"completed", 200}, {"open", 300}} {
			if _, err := orders.Put(tx, composite.Tuple{id}, o); err != nil {
				return err
			}
		}
		return nil
	})
	if err := store.Update(func(tx keyspace.Tx) error { return byStatus.Rename(tx, "status") }); err != nil {
		fmt.Println(err)
		return
	}
	orders.RemoveIndex(byStatus)
	spec.Name = "status"
	status, _ := orders.AddIndex(spec)
	store.View(func(tx keyspace.Tx) error {
		page, _ := status.Scan(tx, status.Equal("open"), nil)
		for _, e := range page.Entries {
			fmt.Println(status.Name(), e.Value[0], "order", e.Key[0])
		}
		return nil
	})
	// Output:
	// status open order 0
	// status open order 2
}

// A partial index: Values returns no value for a record it leaves out, so
// only open orders have entries, and Unique holds among them only (two
// completed orders may share a created time, two open ones may not).
func ExampleIndexSpec_partial() {
	store := keyspace.NewMemory()
	orders := indextable.New[Order]("orders", nil)
	open, _ := orders.AddIndex(indextable.IndexSpec[Order]{
		Name:   "open_created",
		Unique: true,
		Values: func(o Order) []composite.Tuple {
			if o.Status != "open" {
				return nil
			}
			return []composite.Tuple{{o.Created}}
		},
	})
	err := store.Update(func(tx keyspace.Tx) error {
		for id, o := range []Order{{"open", 100}, {"completed", 100}, {"completed", 100}, {"open", 200}} {
			if _, err := orders.Put(tx, composite.Tuple{id}, o); err != nil {
				return err
			}
		}
		return nil
	})
	fmt.Println("four orders:", err)
	err = store.Update(func(tx keyspace.Tx) error {
		_, err := orders.Put(tx, composite.Tuple{9}, Order{"open", 200})
		return err
	})
	fmt.Println("a second open order created at 200:", errors.Is(err, indextable.ErrUnique))
	store.View(func(tx keyspace.Tx) error {
		page, _ := open.Scan(tx, open.All(), nil)
		for _, e := range page.Entries {
			fmt.Println("open order", e.Key[0], "created", e.Value[0])
		}
		return nil
	})
	// Output:
	// four orders: <nil>
	// a second open order created at 200: true
	// open order 0 created 100
	// open order 3 created 200
}

// Orders per status, and per status and creation time under one status,
// counted from the index's entries alone (SQL's GROUP BY): no order is
// read.
func ExampleIndex_GroupCounts() {
	store := keyspace.NewMemory()
	orders := indextable.New[Order]("orders", nil)
	byStatus, _ := orders.AddIndex(indextable.IndexSpec[Order]{
		Name: "status_created",
		Values: func(o Order) []composite.Tuple {
			return []composite.Tuple{{o.Status, composite.Desc{V: o.Created}}}
		},
	})
	store.Update(func(tx keyspace.Tx) error {
		for id, o := range []Order{{"completed", 100}, {"open", 200}, {"completed", 300}, {"completed", 100}} {
			if _, err := orders.Put(tx, composite.Tuple{id}, o); err != nil {
				return err
			}
		}
		return nil
	})
	store.View(func(tx keyspace.Tx) error {
		byOne, _ := byStatus.GroupCounts(tx, nil, 1)
		for _, g := range byOne {
			fmt.Println(g.Group[0], g.Count)
		}
		completed, _ := byStatus.GroupCounts(tx, composite.Tuple{"completed"}, 2)
		for _, g := range completed { // created descending, as the index keeps it
			fmt.Println("completed at", g.Group[1].(composite.Desc).V, g.Count)
		}
		return nil
	})
	// Output:
	// completed 3
	// open 1
	// completed at 300 1
	// completed at 100 2
}
