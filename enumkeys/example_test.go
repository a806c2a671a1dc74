package enumkeys_test

import (
	"fmt"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/enumkeys"
)

// A user's mailbox: append, the latest messages, the one before, one day.
func Example() {
	store := keyspace.NewMemory()
	inbox := enumkeys.NewLog("inbox")
	day := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	store.Update(func(tx keyspace.Tx) error {
		for i, text := range []string{"hello", "lunch?", "see you at 1", "running late"} {
			if _, err := inbox.Append(tx, "alice", day.Add(time.Duration(i)*5*time.Hour), []byte(text)); err != nil {
				return err
			}
		}
		return nil
	})
	store.View(func(tx keyspace.Tx) error {
		latest, _ := inbox.Latest(tx, "alice", 2)
		for _, m := range latest {
			fmt.Printf("latest: %d %s\n", m.ID, m.Data)
		}
		prev, _ := inbox.Prev(tx, "alice", latest[1].ID)
		fmt.Printf("before %d: %d %s\n", latest[1].ID, prev.ID, prev.Data)
		page, _ := inbox.Day(tx, "alice", day, nil)
		fmt.Printf("on %s: %d messages\n", day.Format("2006-01-02"), len(page.Items))
		return nil
	})
	// Output:
	// latest: 4 running late
	// latest: 3 see you at 1
	// before 3: 2 lunch?
	// on 2026-11-21: 3 messages
}

// A device keeps a week of readings and never more than three.
func ExampleLog_Trim() {
	store := keyspace.NewMemory()
	readings := enumkeys.NewLog("readings")
	now := time.Date(2030, 1, 10, 12, 0, 0, 0, time.UTC)
	store.Update(func(tx keyspace.Tx) error {
		for _, daysAgo := range []int{9, 5, 4, 2, 1} {
			if _, err := readings.Append(tx, "sensor-1", now.AddDate(0, 0, -daysAgo), []byte(fmt.Sprint(daysAgo, " days ago"))); err != nil {
				return err
			}
		}
		return nil
	})
	store.Update(func(tx keyspace.Tx) error {
		n, err := readings.Trim(tx, "sensor-1", enumkeys.TrimOptions{Before: now.AddDate(0, 0, -7), MaxLen: 3})
		fmt.Println("deleted", n)
		return err
	})
	store.View(func(tx keyspace.Tx) error {
		kept, err := readings.Latest(tx, "sensor-1", 10)
		for _, it := range kept {
			fmt.Println(it.ID, string(it.Data))
		}
		return err
	})
	// Output:
	// deleted 2
	// 5 1 days ago
	// 4 2 days ago
	// 3 4 days ago
}

// An import: a batch of messages of several users in one AppendAll, in
// time order, then each user's count and last id.
func ExampleLog_AppendAll() {
	store := keyspace.NewMemory()
	comments := enumkeys.NewLog("comments")
	at := time.Date(2014, 1, 21, 20, 0, 0, 0, time.UTC)
	store.Update(func(tx keyspace.Tx) error {
		ids, err := comments.AppendAll(tx, []enumkeys.Entry{
			{Parent: "39", At: at, Data: []byte("off-topic?")},
			{Parent: "10", At: at.Add(time.Minute), Data: []byte("a matter of taste")},
			{Parent: "39", At: at.Add(2 * time.Minute), Data: []byte("retracted")},
		})
		fmt.Println("ids", ids)
		return err
	})
	store.View(func(tx keyspace.Tx) error {
		page, _ := comments.Parents(tx, nil)
		for _, p := range page.Parents {
			fmt.Printf("user %s: %d comments, last id %d\n", p.Parent, p.Count, p.LastID)
		}
		return nil
	})
	// Output:
	// ids [1 1 2]
	// user 10: 1 comments, last id 1
	// user 39: 2 comments, last id 2
}
