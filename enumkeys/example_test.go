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
