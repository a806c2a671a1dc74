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
