package cli

import (
	"time"

	ucli "github.com/urfave/cli/v2"
)

// periodFlags are --since and --until, a period of times: of what, as
// "links made".
func periodFlags(what string) []ucli.Flag {
	return []ucli.Flag{
		timeFlag("since", "only the "+what+" at or after `TIME` (RFC 3339, a date or Unix seconds)"),
		timeFlag("until", "only the "+what+" before `TIME` (RFC 3339, a date or Unix seconds)"),
	}
}

// period is --since and --until, zero for a flag not given, and whether
// either was.
func period(c *ucli.Context) (since, until time.Time, set bool) {
	if t := timeOf(c, "since"); t != nil {
		since = *t
	}
	if t := timeOf(c, "until"); t != nil {
		until = *t
	}
	return since, until, c.IsSet("since") || c.IsSet("until")
}
