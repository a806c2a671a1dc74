package cli

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/enumkeys"
	ucli "github.com/urfave/cli/v2"
)

func logFlags(extra ...ucli.Flag) []ucli.Flag {
	return append([]ucli.Flag{
		&ucli.StringFlag{Name: "log", Required: true, Usage: "the log `NAME`"},
		&ucli.StringFlag{Name: "parent", Aliases: []string{"p"}, Required: true, Usage: "the `PARENT` (a user)"},
	}, extra...)
}

func logCommand() *ucli.Command {
	one := func(name, usage string, fn func(l *enumkeys.Log, tx keyspace.Tx, parent string, id uint64) (enumkeys.Item, error)) *ucli.Command {
		return &ucli.Command{
			Name: name, Usage: usage, ArgsUsage: "ID",
			UsageText: fmt.Sprintf("keyspace log %s --log inbox --parent alice 42", name),
			Flags:     logFlags(),
			Action: func(c *ucli.Context) error {
				id, err := argID(c)
				if err != nil {
					return err
				}
				return logRead(c, func(l *enumkeys.Log, tx keyspace.Tx) ([]enumkeys.Item, string, error) {
					it, err := fn(l, tx, c.String("parent"), id)
					return []enumkeys.Item{it}, "", err
				})
			},
		}
	}
	paging := pageFlags("items", "newest first")
	opts := func(c *ucli.Context) *enumkeys.ListOptions {
		return &enumkeys.ListOptions{Limit: c.Int("limit"), Cursor: c.String("cursor"), Reverse: c.Bool("reverse")}
	}
	return &ucli.Command{
		Name:  "log",
		Usage: "enumerable keys: per-parent logs (userID_messageID): append or import, then latest, previous, next, days, counts; del, trim, repair, drop",
		Subcommands: []*ucli.Command{
			{
				Name: "append", Usage: "append an item; prints its id", ArgsUsage: "DATA",
				UsageText: `keyspace log append --log inbox --parent alice "hello"`,
				Flags:     logFlags(timeFlag("time", "the item's time (RFC 3339, a date or Unix seconds; default now)")),
				Action: func(c *ucli.Context) error {
					if c.NArg() != 1 {
						return usagef("log append wants one DATA argument")
					}
					s, err := openWrite(c)
					if err != nil {
						return err
					}
					defer s.Close()
					var at time.Time
					if t := timeOf(c, "time"); t != nil {
						at = *t
					}
					var it enumkeys.Item
					err = s.UpdateContext(c.Context, func(tx keyspace.Tx) error {
						it, err = enumkeys.NewLog(c.String("log")).Append(tx, c.String("parent"), at, []byte(c.Args().First()))
						return err
					})
					if err != nil {
						return err
					}
					fmt.Fprintln(c.App.Writer, it.ID)
					return nil
				},
			},
			logImportCommand(),
			one("get", "one item by id", (*enumkeys.Log).Get),
			one("prev", "the item before an id (deleted ids are skipped)", (*enumkeys.Log).Prev),
			one("next", "the item after an id", (*enumkeys.Log).Next),
			{
				Name: "latest", Usage: "the newest items, newest first",
				UsageText: "keyspace log latest --log inbox --parent alice -n 10",
				Flags:     logFlags(&ucli.IntFlag{Name: "n", Aliases: []string{"limit"}, Value: 10, Usage: "how many (--limit, as log range and log day call it)"}),
				Action: func(c *ucli.Context) error {
					return logRead(c, func(l *enumkeys.Log, tx keyspace.Tx) ([]enumkeys.Item, string, error) {
						if c.Int("n") < 1 {
							return nil, "", usagef("-n %d: ask for at least one item", c.Int("n"))
						}
						items, err := l.Latest(tx, c.String("parent"), c.Int("n"))
						return items, "", err
					})
				},
			},
			{
				Name: "day", Usage: "the items of one calendar day in a time zone",
				UsageText: "keyspace log day --log inbox --parent alice --date 2026-11-21 --tz Europe/Oslo",
				Flags: logFlags(append([]ucli.Flag{
					&ucli.StringFlag{Name: "date", Required: true, Usage: "`YYYY-MM-DD`"},
					tzFlag(),
				}, paging...)...),
				Action: func(c *ucli.Context) error {
					day, err := dayOf(c)
					if err != nil {
						return err
					}
					return logRead(c, func(l *enumkeys.Log, tx keyspace.Tx) ([]enumkeys.Item, string, error) {
						p, err := l.Day(tx, c.String("parent"), day, opts(c))
						return p.Items, p.Next, err
					})
				},
			},
			{
				Name: "range", Usage: "items with ids from --from to --to, or stamped from --since to before --until, a page at a time",
				UsageText: "keyspace log range --log inbox --parent alice --from 10 --to 20 --limit 5\n" +
					"keyspace log range --log inbox --parent alice --since 2026-11-20T00:00:00Z --until 2026-11-21T12:00:00Z",
				Flags: logFlags(append([]ucli.Flag{
					&ucli.Uint64Flag{Name: "from", Value: 1, Usage: "first `ID`"},
					&ucli.Uint64Flag{Name: "to", Value: ^uint64(0), DefaultText: "the latest", Usage: "last `ID`"},
					timeFlag("since", "items stamped at or after `TIME` (RFC 3339, a date or Unix seconds), in time order (Log.Between)"),
					timeFlag("until", "items stamped before `TIME` (RFC 3339, a date or Unix seconds)"),
				}, paging...)...),
				Action: func(c *ucli.Context) error {
					byTime := c.IsSet("since") || c.IsSet("until")
					if byTime && (c.IsSet("from") || c.IsSet("to")) {
						return usagef("--from and --to are ids, --since and --until times; give one pair")
					}
					return logRead(c, func(l *enumkeys.Log, tx keyspace.Tx) ([]enumkeys.Item, string, error) {
						var p enumkeys.Page
						var err error
						if byTime {
							var since, until time.Time
							if t := timeOf(c, "since"); t != nil {
								since = *t
							}
							if t := timeOf(c, "until"); t != nil {
								until = *t
							}
							p, err = l.Between(tx, c.String("parent"), since, until, opts(c))
						} else {
							p, err = l.Range(tx, c.String("parent"), c.Uint64("from"), c.Uint64("to"), opts(c))
						}
						return p.Items, p.Next, err
					})
				},
			},
			{
				Name: "count", Usage: "how many items a parent has, or had on one calendar day (--date) or in a period (--since, --until)",
				UsageText: "keyspace log count --log inbox --parent alice --date 2026-11-21 --tz Europe/Oslo\n" +
					"keyspace log count --log inbox --parent alice --since 2026-11-20T00:00:00Z   # from the keys of the time index, no item read",
				Flags: logFlags(append([]ucli.Flag{
					&ucli.StringFlag{Name: "date", Usage: "count only the items of this day, `YYYY-MM-DD`"},
					tzFlag(),
				}, periodFlags("items stamped")...)...),
				Action: logCount,
			},
			{
				Name: "scan", Usage: "the items of every parent, parents in key order and each one's by id, a page at a time: the whole log, as NDJSON that log import reads back",
				UsageText: "keyspace log scan --log inbox --limit 100\n" +
					"keyspace log scan --log inbox --output ndjson | keyspace --db copy.db log import --log inbox --parent-col parent --time-col time --data-col data --format ndjson -",
				Flags: append([]ucli.Flag{&ucli.StringFlag{Name: "log", Required: true, Usage: "the log `NAME`"}}, paging...),
				Action: func(c *ucli.Context) error {
					return logListing(c, true, func(l *enumkeys.Log, tx keyspace.Tx) ([]enumkeys.Item, string, error) {
						p, err := l.Scan(tx, opts(c))
						return p.Items, p.Next, err
					})
				},
			},
			{
				Name: "parents", Usage: "the log's parents in key order, each with its count of items and last id, a page at a time (one key read a parent)",
				UsageText: "keyspace log parents --log inbox --limit 20",
				Flags: append([]ucli.Flag{&ucli.StringFlag{Name: "log", Required: true, Usage: "the log `NAME`"}},
					pageFlags("parents", "last parent first")...),
				Action: logParents,
			},
			{
				Name: "del", Usage: "delete items by id, all or none (their ids are not reused)", ArgsUsage: "ID...",
				UsageText: "keyspace log del --log inbox --parent alice 3 7",
				Flags:     logFlags(),
				Action:    logDelete,
			},
			{
				Name:  "trim",
				Usage: "delete items older than --older-than or --before, and beyond the newest --max-len, of one --parent or of every parent (retention, as Redis's XTRIM)",
				UsageText: "keyspace log trim --log inbox --older-than 30d\n" +
					"keyspace log trim --log inbox --parent alice --max-len 100",
				Flags: []ucli.Flag{
					&ucli.StringFlag{Name: "log", Required: true, Usage: "the log `NAME`"},
					&ucli.StringFlag{Name: "parent", Aliases: []string{"p"}, Usage: "only this `PARENT`'s items", DefaultText: "every parent"},
					durationFlag("older-than", "delete items older than `DURATION` (30d, 12h, 1w)", "none"),
					timeFlag("before", "delete items before this `TIME` (RFC 3339, a date or Unix seconds)"),
					&ucli.IntFlag{Name: "max-len", Usage: "keep at most the newest `N` items of each parent", DefaultText: "no limit"},
				},
				Action: logTrim,
			},
			repairCommand("log", &ucli.StringFlag{Name: "log", Required: true, Usage: "the log `NAME`"},
				"make the log's time index and counters what its items imply (after verify finds problems)",
				"keyspace log repair --log inbox", func(name string) repairer { return enumkeys.NewLog(name).Repair }),
			dropCommand("log", "item", &ucli.StringFlag{Name: "log", Required: true, Usage: "the log `NAME`"}, "keyspace log drop --log inbox", dropLog),
			renameCommand("log", &ucli.StringFlag{Name: "log", Required: true, Usage: "the log `NAME`"}, "keyspace log rename --log inbox mail", renameLog),
		},
	}
}

// tzFlag is the time zone a calendar day is read in, a new flag for each
// command (a urfave/cli flag records whether it was set).
func tzFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "tz", Value: "UTC", Usage: "IANA time `ZONE`"}
}

// dayOf reads --date in --tz: a time on that calendar day.
func dayOf(c *ucli.Context) (time.Time, error) {
	loc, err := time.LoadLocation(c.String("tz"))
	if err != nil {
		return time.Time{}, usagef("--tz %q: %v", c.String("tz"), err)
	}
	day, err := time.ParseInLocation("2006-01-02", c.String("date"), loc)
	if err != nil {
		var pe *time.ParseError
		if errors.As(err, &pe) && strings.Contains(pe.Message, "out of range") {
			// 2026-02-30: the form is right, the day is not in the calendar.
			return time.Time{}, usagef("--date %q: no such day (%s)", c.String("date"), strings.TrimPrefix(pe.Message, ": "))
		}
		return time.Time{}, usagef("--date %q: want YYYY-MM-DD", c.String("date"))
	}
	return day, nil
}

func argID(c *ucli.Context) (uint64, error) {
	if c.NArg() != 1 {
		return 0, usagef("%s wants one ID", commandName(c))
	}
	return parseID(c.Args().First())
}

func parseID(s string) (uint64, error) {
	id, err := strconv.ParseUint(s, 10, 64)
	if errors.Is(err, strconv.ErrRange) {
		return 0, usagef("ID %q is past the largest id a log gives, %d", s, uint64(math.MaxUint64))
	}
	if err != nil {
		return 0, usagef("ID %q is not a positive integer", s)
	}
	return id, nil
}

// logCount prints how many items the parent has (the log's counter), or
// had on --date (the time index's keys that day).
func logCount(c *ucli.Context) error {
	format, err := output(c, "table", "json")
	if err != nil {
		return err
	}
	var day time.Time
	since, until, inPeriod := period(c)
	if c.IsSet("date") {
		if inPeriod {
			return usagef("--date is a day, --since and --until a period; give one")
		}
		if day, err = dayOf(c); err != nil {
			return err
		}
	} else if c.IsSet("tz") {
		return usagef("--tz reads --date; give both, or neither to count every item")
	}
	return viewDB(c, func(tx keyspace.Tx) error {
		l, parent := enumkeys.NewLog(c.String("log")), c.String("parent")
		var n int
		switch {
		case inPeriod:
			n, err = l.CountBetween(tx, parent, since, until)
		case day.IsZero():
			n, err = l.Count(tx, parent)
		default:
			n, err = l.CountDay(tx, parent, day)
		}
		if err != nil {
			return err
		}
		if n == 0 {
			noteEmptyLog(c, l, tx)
		}
		return writeCount(c.App.Writer, format, n)
	})
}

// logParents lists the log's parents (Log.Parents).
func logParents(c *ucli.Context) error {
	format, err := wholeListing(c)
	if err != nil {
		return err
	}
	return viewDB(c, func(tx keyspace.Tx) error {
		l := enumkeys.NewLog(c.String("log"))
		page, err := l.Parents(tx, &enumkeys.ListOptions{Limit: c.Int("limit"), Cursor: c.String("cursor"), Reverse: c.Bool("reverse")})
		if err != nil {
			return cursorUsage(err)
		}
		if len(page.Parents) == 0 {
			noteEmptyLog(c, l, tx)
		}
		type jsonParent struct {
			Parent string `json:"parent"`
			Items  int    `json:"items"`
			LastID uint64 `json:"last_id"`
		}
		var out []jsonParent
		for _, p := range page.Parents {
			out = append(out, jsonParent{p.Parent, p.Count, p.LastID})
		}
		return writeListing(c.App.Writer, c.App.ErrWriter, format, "parents", out, page.Next, "PARENT\tITEMS\tLAST ID", func(p jsonParent) string {
			return fmt.Sprintf("%s\t%d\t%d", p.Parent, p.Items, p.LastID)
		})
	})
}

// logDelete deletes the items named, in one transaction: an id that is
// not there (deleted, or never handed out) deletes none of them.
func logDelete(c *ucli.Context) error {
	if c.NArg() == 0 {
		return usagef("log del wants at least one ID")
	}
	ids := make([]uint64, c.NArg())
	for i, a := range c.Args().Slice() {
		id, err := parseID(a)
		if err != nil {
			return err
		}
		ids[i] = id
	}
	return updateDB(c, func(tx keyspace.Tx) error {
		l := enumkeys.NewLog(c.String("log"))
		for _, id := range ids {
			if err := l.Delete(tx, c.String("parent"), id); err != nil {
				return err
			}
		}
		return nil
	})
}

// logTrim is log trim: Log.Trim of one parent, or TrimAll.
func logTrim(c *ucli.Context) error {
	var opts enumkeys.TrimOptions
	switch older, before := c.IsSet("older-than"), timeOf(c, "before"); {
	case older && before != nil:
		return usagef("--older-than and --before both say which items are old; give one")
	case older:
		if d := c.Duration("older-than"); d <= 0 {
			return usagef("--older-than %v: want a positive duration such as 30d", d)
		}
		opts.Before = time.Now().Add(-c.Duration("older-than"))
	case before != nil:
		opts.Before = *before
	}
	if opts.MaxLen = c.Int("max-len"); c.IsSet("max-len") && opts.MaxLen < 1 {
		return usagef("--max-len %d: keep at least one item (log drop deletes them all)", opts.MaxLen)
	}
	if opts.Before.IsZero() && opts.MaxLen == 0 {
		return usagef("log trim needs --older-than, --before or --max-len")
	}
	var n int
	l := enumkeys.NewLog(c.String("log"))
	if err := updateDB(c, func(tx keyspace.Tx) (err error) {
		if c.IsSet("parent") {
			n, err = l.Trim(tx, c.String("parent"), opts)
		} else {
			n, err = l.TrimAll(tx, opts)
		}
		if err == nil && n == 0 {
			noteEmptyLog(c, l, tx)
		}
		return err
	}); err != nil {
		return err
	}
	_, err := fmt.Fprintf(c.App.Writer, "deleted %s from %s\n", count(n, "item"), l.Name())
	return err
}

// noteEmptyLog says on stderr, after a read or trim that found nothing,
// that the log holds no items at all: most often a misspelt --log, which
// logs, having no catalog, cannot tell from a log emptied by trims.
func noteEmptyLog(c *ucli.Context, l *enumkeys.Log, tx keyspace.Tx) {
	if empty, err := l.Empty(tx); err == nil && empty {
		fmt.Fprintf(c.App.ErrWriter, "log %q holds no items (see keyspace stats)%s\n", l.Name(), didYouMeanIn(tx, l.Name(), logNames))
	}
}

// logRead runs a read on the log and prints the items (and the next
// page's cursor).
func logRead(c *ucli.Context, fn func(l *enumkeys.Log, tx keyspace.Tx) ([]enumkeys.Item, string, error)) error {
	return logListing(c, false, fn)
}

// logListing prints the items fn reads, with a PARENT column in the
// table when they are of several parents (log scan); JSON names each
// item's parent always, so that any log read's NDJSON imports back with
// log import --parent-col parent --time-col time --data-col data.
func logListing(c *ucli.Context, parents bool, fn func(l *enumkeys.Log, tx keyspace.Tx) ([]enumkeys.Item, string, error)) error {
	format, err := output(c, "table", "json", "ndjson")
	if err != nil {
		return err
	}
	if _, err := limitOf(c); err != nil {
		return err
	}
	return viewDB(c, func(tx keyspace.Tx) error {
		l := enumkeys.NewLog(c.String("log"))
		items, next, err := fn(l, tx)
		if err != nil {
			return cursorUsage(err)
		}
		if len(items) == 0 {
			noteEmptyLog(c, l, tx)
		}
		type jsonItem struct {
			Parent string    `json:"parent"`
			ID     uint64    `json:"id"`
			Time   time.Time `json:"time"`
			Data   string    `json:"data"`
		}
		var out []jsonItem
		for _, it := range items {
			out = append(out, jsonItem{it.Parent, it.ID, it.Time, string(it.Data)})
		}
		header, line := "ID\tTIME\tDATA", func(it jsonItem) string {
			return fmt.Sprintf("%d\t%s\t%s", it.ID, it.Time.Format(time.RFC3339), it.Data)
		}
		if parents {
			header, line = "PARENT\t"+header, func(it jsonItem) string {
				return fmt.Sprintf("%s\t%d\t%s\t%s", it.Parent, it.ID, it.Time.Format(time.RFC3339), it.Data)
			}
		}
		return writeListing(c.App.Writer, c.App.ErrWriter, format, "items", out, next, header, line)
	})
}
