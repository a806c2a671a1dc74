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

// formatExpires is an expiry as output shows it: the instant in UTC, to
// the second (RFC 3339), or "" for none.
func formatExpires(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
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
