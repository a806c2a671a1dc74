package cli

import (
	"fmt"
	"time"

	"github.com/keyspacedb/keyspace"
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
		Name:      "sweep",
		Usage:     "delete the points whose --ttl has run out (queries leave them out already; this frees their keys)",
		UsageText: "keyspace geo sweep --index fleet",
		Flags: []ucli.Flag{indexFlag(),
			&ucli.IntFlag{Name: "limit", Aliases: []string{"n"}, Usage: "delete at most `N` points, soonest expired first", DefaultText: "all"},
		},
		Action: func(c *ucli.Context) error {
			if c.NArg() > 0 {
				return usagef("geo sweep takes no arguments, got %q", c.Args().First())
			}
			if c.Int("limit") < 0 {
				return usagef("--limit %d: want a count of points, or leave it out for all", c.Int("limit"))
			}
			s, err := openWrite(c)
			if err != nil {
				return err
			}
			defer s.Close()
			ix := geo.NewIndex(c.String("index"))
			var deleted int
			var next time.Time
			var more bool
			if err := s.Update(func(tx keyspace.Tx) (err error) {
				if deleted, err = ix.DeleteExpired(tx, time.Now(), c.Int("limit")); err != nil {
					return err
				}
				next, more, err = ix.NextExpiry(tx)
				return err
			}); err != nil {
				return err
			}
			out := c.App.Writer
			fmt.Fprintf(out, "deleted %s from %s\n", count(deleted, "expired point"), ix.Name())
			if more {
				fmt.Fprintf(out, "next expiry: %s\n", formatExpires(next))
			}
			return nil
		},
	}
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
