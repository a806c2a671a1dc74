package cli

import (
	"time"

	ucli "github.com/urfave/cli/v2"
)

// periodFlags are --since and --until, a period of times: of what, as
// "links made".
func periodFlags(what string) []ucli.Flag {
	return []ucli.Flag{
		&ucli.TimestampFlag{Name: "since", Layout: time.RFC3339, Usage: "only the " + what + " at or after `TIME` (RFC 3339)"},
		&ucli.TimestampFlag{Name: "until", Layout: time.RFC3339, Usage: "only the " + what + " before `TIME` (RFC 3339)"},
	}
}

// period is --since and --until, zero for a flag not given, and whether
// either was.
func period(c *ucli.Context) (since, until time.Time, set bool) {
	if t := c.Timestamp("since"); t != nil {
		since = *t
	}
	if t := c.Timestamp("until"); t != nil {
		until = *t
	}
	return since, until, c.IsSet("since") || c.IsSet("until")
}
