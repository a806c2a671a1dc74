package cli

import (
	"fmt"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/geo"
	ucli "github.com/urfave/cli/v2"
)

// ttlFlag is --ttl, Tile38's EX: points expire this long after they are
// put.
func ttlFlag() ucli.Flag {
	return &ucli.DurationFlag{Name: "ttl", Usage: "the points expire `DURATION` from now (30s, 15m, 2h): queries, get and scan leave them out from then on, and geo sweep deletes them", DefaultText: "never"}
}

// expiresFromTTL is when points put now with --ttl expire, or zero for no
// --ttl.
func expiresFromTTL(c *ucli.Context) (time.Time, error) {
	if !c.IsSet("ttl") {
		return time.Time{}, nil
	}
	ttl := c.Duration("ttl")
	if ttl <= 0 {
		return time.Time{}, usagef("--ttl %v: a point must live for some time; to keep it for good, leave --ttl out", ttl)
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

// swept is what geo sweep did to one index.
type swept struct {
	index   string
	deleted int
	next    time.Time // zero when no point left expires
}

// geoSweep is geo sweep: DeleteExpired of one index, or of each geo index
// in the file, in one transaction.
func geoSweep(c *ucli.Context) error {
	if c.NArg() > 0 {
		return usagef("geo sweep takes no arguments, got %q", c.Args().First())
	}
	if c.Int("limit") < 0 {
		return usagef("--limit %d: want a count of points, or leave it out for all", c.Int("limit"))
	}
	var done []swept
	now := time.Now()
	if err := updateDB(c, func(tx keyspace.Tx) (err error) {
		names := []string{c.String("index")}
		if !c.IsSet("index") {
			if names, err = geoIndexNames(tx); err != nil {
				return err
			}
		}
		for _, name := range names {
			ix := geo.NewIndex(name)
			n, err := ix.DeleteExpired(tx, now, c.Int("limit"))
			if err != nil {
				return err
			}
			next, _, err := ix.NextExpiry(tx)
			if err != nil {
				return err
			}
			done = append(done, swept{name, n, next})
		}
		return nil
	}); err != nil {
		return err
	}
	out := c.App.Writer
	if len(done) == 0 {
		fmt.Fprintln(out, "no geo indexes")
	}
	for _, d := range done {
		fmt.Fprintf(out, "deleted %s from %s\n", count(d.deleted, "expired point"), d.index)
		if !d.next.IsZero() {
			fmt.Fprintf(out, "next expiry: %s\n", formatExpires(d.next))
		}
	}
	return nil
}

// geoIndexNames returns the names of the geo indexes in the file: the names
// under the geo layout ("g", name, …).
func geoIndexNames(tx keyspace.Tx) ([]string, error) {
	groups, err := composite.Groups(tx, composite.NewSubspace("g"), nil, 1)
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

// setExpiry makes the points the arguments name expire at expires (never,
// when zero), all or none.
func setExpiry(c *ucli.Context, expires time.Time) error {
	return eachPoint(c, func(ix *geo.Index, tx keyspace.Tx, id string) error { return ix.SetExpiry(tx, id, expires) })
}

// geoExpireCommand is Tile38's EXPIRE: points expire --ttl from now.
func geoExpireCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "expire",
		Usage:     "make points expire --ttl from now, keeping their place and payload (Tile38's EXPIRE); all ids or none",
		UsageText: "keyspace geo expire --index fleet --ttl 30s car-7",
		ArgsUsage: "ID...",
		Flags:     []ucli.Flag{indexFlag(), ttlFlag()},
		Action: func(c *ucli.Context) error {
			if !c.IsSet("ttl") {
				return usagef("geo expire needs --ttl (geo persist removes an expiry)")
			}
			expires, err := expiresFromTTL(c)
			if err != nil {
				return err
			}
			return setExpiry(c, expires)
		},
	}
}

// geoPersistCommand is Tile38's PERSIST: points never expire.
func geoPersistCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "persist",
		Usage:     "make points never expire (Tile38's PERSIST); all ids or none",
		UsageText: "keyspace geo persist --index fleet car-7",
		ArgsUsage: "ID...",
		Flags:     []ucli.Flag{indexFlag()},
		Action:    func(c *ucli.Context) error { return setExpiry(c, time.Time{}) },
	}
}
