package cli

import (
	"fmt"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/geo"
	"github.com/keyspacedb/keyspace/indextable"
	ucli "github.com/urfave/cli/v2"
)

// ttlFlag is --ttl, Tile38's EX and Redis's EX: points (or rows) expire
// this long after they are written.
func ttlFlag() ucli.Flag {
	return durationFlag("ttl", "the points expire `DURATION` from now (30s, 15m, 2h, 7d): queries, get and scan leave them out from then on, and geo sweep deletes them", "never")
}

// rowTTLFlag is --ttl for table rows.
func rowTTLFlag() ucli.Flag {
	return durationFlag("ttl", "the rows expire `DURATION` from now (30s, 15m, 2h, 7d): get, scan and index lookups leave them out from then on, and table sweep deletes them", "never")
}

// expiresFromTTL is when points or rows written now with --ttl expire, or
// zero for no --ttl.
func expiresFromTTL(c *ucli.Context) (time.Time, error) {
	if !c.IsSet("ttl") {
		return time.Time{}, nil
	}
	ttl := c.Duration("ttl")
	if ttl <= 0 {
		return time.Time{}, usagef("--ttl %v: it must be some time; to keep them for good, leave --ttl out", ttl)
	}
	return time.Now().Add(ttl), nil
}

// formatExpires is an expiry as tables and messages show it: the instant
// in UTC, to the second (RFC 3339), or "" for none.
func formatExpires(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// exactExpires is an expiry as JSON and GeoJSON carry it: to the
// nanosecond, so that an export imports back (--expires-col) with the
// same expiry.
func exactExpires(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

func geoSweepCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "sweep",
		Usage: "delete the points whose --ttl has run out, of one index or of every geo index (queries leave them out already; this frees their keys)",
		UsageText: "keyspace geo sweep --index fleet\n" +
			"keyspace geo sweep            # every geo index, as a cron job would",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "index", Aliases: []string{"i"}, Usage: "the geo index `NAME`", DefaultText: "every geo index"},
			&ucli.IntFlag{Name: "limit", Aliases: []string{"n"}, Usage: "delete at most `N` points of each index, soonest expired first", DefaultText: "all"},
		},
		Action: geoSweep,
	}
}

// expirer is what a sweep deletes from: a geo index or a table.
type expirer interface {
	DeleteExpired(tx keyspace.Tx, now time.Time, limit int) (int, error)
	NextExpiry(tx keyspace.Tx) (time.Time, bool, error)
}

// swept is what a sweep did to one index or table.
type swept struct {
	name    string
	deleted int
	next    time.Time // zero when nothing left expires
	empty   bool      // a geo index or fence set that holds nothing (misspelt?)
	hint    string    // then, the name most like it (didYouMean)
}

// sweep is geo sweep and table sweep: DeleteExpired of the one structure
// the flag names, or of each that all lists, in one transaction. what is
// the kind ("geo index", and its plural for a file with none), item what
// it holds ("point").
func sweep(c *ucli.Context, flag, what, whats, item string, open func(tx keyspace.Tx, name string) (expirer, error), all func(tx keyspace.Tx) ([]string, error)) error {
	if c.Int("limit") < 0 {
		return usagef("--limit %d: want a count of %ss, or leave it out for all", c.Int("limit"), item)
	}
	var done []swept
	now := time.Now()
	if err := updateDB(c, func(tx keyspace.Tx) (err error) {
		names := []string{c.String(flag)}
		if !c.IsSet(flag) {
			if names, err = all(tx); err != nil {
				return err
			}
		}
		for _, name := range names {
			x, err := open(tx, name)
			if err != nil {
				return err
			}
			n, err := x.DeleteExpired(tx, now, c.Int("limit"))
			if err != nil {
				return err
			}
			next, _, err := x.NextExpiry(tx)
			if err != nil {
				return err
			}
			empty, hint := false, ""
			if e, ok := x.(interface {
				Empty(keyspace.Tx) (bool, error)
			}); ok && n == 0 {
				if empty, err = e.Empty(tx); err != nil {
					return err
				}
				if empty {
					hint = didYouMeanIn(tx, name, all)
				}
			}
			done = append(done, swept{name, n, next, empty, hint})
		}
		return nil
	}); err != nil {
		return err
	}
	out := c.App.Writer
	if len(done) == 0 {
		fmt.Fprintf(out, "no %s\n", whats)
	}
	for _, d := range done {
		fmt.Fprintf(out, "deleted %s from %s %s\n", count(d.deleted, "expired "+item), what, d.name)
		if d.empty {
			fmt.Fprintf(c.App.ErrWriter, "%s %q holds no %ss (see keyspace stats)%s\n", what, d.name, item, d.hint)
		}
		if !d.next.IsZero() {
			fmt.Fprintf(out, "next expiry: %s\n", formatExpires(d.next))
		}
	}
	return nil
}

// geoSweep is geo sweep.
func geoSweep(c *ucli.Context) error {
	return sweep(c, "index", "geo index", "geo indexes", "point",
		func(_ keyspace.Tx, name string) (expirer, error) { return geo.NewIndex(name), nil }, geoIndexNames)
}

// geoIndexNames returns the names of the geo indexes in the file: the names
// under the geo layout ("g", name, …).
func geoIndexNames(tx keyspace.Tx) ([]string, error) {
	return namesUnder(tx, composite.NewSubspace("g"))
}

// fenceSetNames returns the names of the fence sets in the file: the names
// under the fences' layout ("f", name, …).
func fenceSetNames(tx keyspace.Tx) ([]string, error) {
	return namesUnder(tx, composite.NewSubspace("f"))
}

// logNames returns the names of the logs in the file: the names under the
// logs' layout ("e", name, …).
func logNames(tx keyspace.Tx) ([]string, error) {
	return namesUnder(tx, composite.NewSubspace("e"))
}

// tableNames returns the names of the command line's tables: those with a
// saved key schema ("meta", "table", name).
func tableNames(tx keyspace.Tx) ([]string, error) {
	return namesUnder(tx, composite.NewSubspace("meta", "table"))
}

// namesUnder returns the names (strings) that are the first element after
// sub of its keys.
func namesUnder(tx keyspace.Tx, sub composite.Subspace) ([]string, error) {
	groups, err := composite.Groups(tx, sub, nil, 1)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(groups))
	for _, g := range groups {
		if name, ok := g[0].(string); ok {
			names = append(names, name)
		}
	}
	return names, nil
}

// expiryCommands describe a group's expire and persist subcommands
// (Tile38's and Redis's EXPIRE and PERSIST): set makes the items the
// arguments name expire at a time (never, when zero), all or none.
type expiryCommands struct {
	group, items string // "geo", "points"
	args         string // how an item is named: "ID"
	keeping      string // what expire keeps: "their place and payload"
	example      string // flags and arguments: "--index fleet car-7"
	flag, ttl    ucli.Flag
	set          func(c *ucli.Context, expires time.Time) error
}

func (e expiryCommands) expire() *ucli.Command {
	return &ucli.Command{
		Name:      "expire",
		Usage:     fmt.Sprintf("make %s expire --ttl from now, keeping %s (EXPIRE); all or none", e.items, e.keeping),
		UsageText: fmt.Sprintf("keyspace %s expire --ttl 30s %s", e.group, e.example),
		ArgsUsage: e.args + "...",
		Flags:     []ucli.Flag{e.flag, e.ttl},
		Action: func(c *ucli.Context) error {
			if !c.IsSet("ttl") {
				return usagef("%s expire needs --ttl (%s persist removes an expiry)", e.group, e.group)
			}
			expires, err := expiresFromTTL(c)
			if err != nil {
				return err
			}
			return e.set(c, expires)
		},
	}
}

func (e expiryCommands) persist() *ucli.Command {
	return &ucli.Command{
		Name:      "persist",
		Usage:     fmt.Sprintf("make %s never expire (PERSIST); all or none", e.items),
		UsageText: fmt.Sprintf("keyspace %s persist %s", e.group, e.example),
		ArgsUsage: e.args + "...",
		Flags:     []ucli.Flag{e.flag},
		Action:    func(c *ucli.Context) error { return e.set(c, time.Time{}) },
	}
}

// geoExpiry is geo expire and geo persist.
func geoExpiry() expiryCommands {
	return expiryCommands{"geo", "points", "ID", "their place and payload", "--index fleet car-7", indexFlag(), ttlFlag(),
		func(c *ucli.Context, expires time.Time) error {
			return eachPoint(c, func(ix *geo.Index, tx keyspace.Tx, id string) error {
				return noPoint(ix, id, ix.SetExpiry(tx, id, expires))
			})
		}}
}

// tableExpiry is table expire and table persist.
func tableExpiry() expiryCommands {
	return expiryCommands{"table", "rows", "KEY", "their fields and index entries", "--table sessions t1", tableFlag(), rowTTLFlag(),
		func(c *ucli.Context, expires time.Time) error {
			return eachRow(c, "changed", func(t *indextable.Table[record], tx keyspace.Tx, key composite.Tuple) error {
				return t.SetExpiry(tx, key, expires)
			})
		}}
}

// fenceExpiry is fence expire and fence persist.
func fenceExpiry() expiryCommands {
	return expiryCommands{"fence", "fences", "ID", "their region and payload", "--fences closures market-st", fencesFlag(), fenceTTLFlag(),
		func(c *ucli.Context, expires time.Time) error {
			if c.NArg() == 0 {
				return usagef("fence %s wants at least one ID", c.Command.Name)
			}
			fs := geo.NewFences(c.String("fences"))
			return updateDB(c, func(tx keyspace.Tx) error {
				for _, id := range c.Args().Slice() {
					if err := fs.SetExpiry(tx, id, expires); err != nil {
						return err
					}
				}
				return nil
			})
		}}
}

func fenceSweepCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "sweep",
		Usage: "delete the fences whose --ttl has run out, of one set or of every fence set (lookups leave them out already; this frees their keys)",
		UsageText: "keyspace fence sweep --fences closures\n" +
			"keyspace fence sweep            # every fence set, as a cron job would",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "fences", Aliases: []string{"f"}, Usage: "the fence set `NAME`", DefaultText: "every fence set"},
			&ucli.IntFlag{Name: "limit", Aliases: []string{"n"}, Usage: "delete at most `N` fences of each set, soonest expired first", DefaultText: "all"},
		},
		Action: func(c *ucli.Context) error {
			return sweep(c, "fences", "fence set", "fence sets", "fence",
				func(_ keyspace.Tx, name string) (expirer, error) { return geo.NewFences(name), nil },
				fenceSetNames)
		},
	}
}

func tableSweepCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "sweep",
		Usage: "delete the rows whose --ttl has run out, with their index entries, of one table or of every table (get, scan and lookups leave them out already; this frees their keys)",
		UsageText: "keyspace table sweep --table sessions\n" +
			"keyspace table sweep            # every table, as a cron job would",
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "table", Aliases: []string{"t"}, Usage: "the table `NAME`", DefaultText: "every table"},
			&ucli.IntFlag{Name: "limit", Aliases: []string{"n"}, Usage: "delete at most `N` rows of each table, soonest expired first", DefaultText: "all"},
		},
		Action: func(c *ucli.Context) error {
			return sweep(c, "table", "table", "tables", "row",
				func(tx keyspace.Tx, name string) (expirer, error) {
					t, _, err := openTable(tx, name) // with the indexes created on it
					return t, err
				}, tableNames)
		},
	}
}
