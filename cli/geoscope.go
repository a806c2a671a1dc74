package cli

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/geo"
	ucli "github.com/urfave/cli/v2"
)

// Scopes on the command line: --scope names the composite prefix a geo
// index's points are put under (per country, per tenant), read and
// written in composite's text form (US:CA); geo scopes lists them, as
// Tile38's KEYS does.

// parseScope reads a --scope. On the command line a scope's parts are
// text, as every command that writes points stores them (geo put, and geo
// import from a file's columns): --scope 7 is the string "7", which the
// text form without a schema would read as the integer 7 and find nothing
// under. Parts are separated by ':'; a backslash escapes the next
// character (US\:CA is one part).
func parseScope(s string) (composite.Tuple, error) {
	if s == "" {
		return nil, nil
	}
	text := make(composite.Schema, strings.Count(s, ":")+1) // at least one column a part
	for i := range text {
		text[i] = composite.Column{Name: "scope", Kind: composite.KindString}
	}
	t, err := composite.ParseText(s, text)
	if err != nil && strings.HasSuffix(s, "*") && !strings.HasSuffix(s, `\*`) {
		// US:* or US*: a scope is named whole, and a query searches one.
		return nil, usagef("--scope %q: a scope is named whole, with no star, and a query searches one: keyspace geo scopes --index NAME lists the scopes there are (a star in a scope's name is \\*)", s)
	}
	if err != nil {
		return nil, usagef("--scope %q: %v", s, err)
	}
	return t, nil
}

// scopeText writes a scope for output. A scope of one text part is
// written as it is (US, 7), so that an export imported again with
// --scope-cols scope gets the same scope; a scope of several text parts
// as --scope reads it (US:CA, with '\', ':' and '*' escaped); any other
// (a program's integer scope, say) in the text form, which says each
// part's kind.
func scopeText(t composite.Tuple) string {
	parts, ok := textParts(t)
	switch {
	case !ok:
		return formatScope(t)
	case len(parts) == 1:
		return parts[0]
	}
	return joinParts(parts)
}

// scopeJSON is a scope in JSON output: a one-part scope as its text, a
// scope of several text parts as an array of them (["US","CA"]), which an
// import's scope column reads back as those parts; a scope with other
// elements (written through the library) as its text form.
func scopeJSON(t composite.Tuple) any {
	if parts, ok := textParts(t); ok && len(parts) > 1 {
		return parts
	}
	return scopeText(t)
}

var scopeEscaper = strings.NewReplacer(`\`, `\\`, `:`, `\:`, `*`, `\*`)

func formatScope(t composite.Tuple) string {
	s, err := composite.FormatText(t)
	if err != nil {
		return fmt.Sprint(t)
	}
	return s
}

// geoScopes lists the scopes of an index's points, as --scope takes them,
// with the points under each when --count is given.
func geoScopes(c *ucli.Context) error {
	format, err := output(c, "table", "json", "ndjson")
	if err != nil {
		return err
	}
	ix := geo.NewIndex(c.String("index"))
	counted := c.Bool("count")
	return viewDB(c, func(tx keyspace.Tx) error {
		if err := requireIndex(ix, tx); err != nil {
			return err
		}
		var scopes []geo.ScopeCount
		if counted {
			scopes, err = ix.ScopeCounts(tx)
		} else {
			var list []composite.Tuple
			list, err = ix.Scopes(tx, 0)
			for _, s := range list {
				scopes = append(scopes, geo.ScopeCount{Scope: s})
			}
		}
		if err != nil {
			return err
		}
		type jsonScope struct {
			Scope  string `json:"scope"` // "" for none
			Points *int   `json:"points,omitempty"`
		}
		out := make([]jsonScope, len(scopes))
		total := 0
		for i, s := range scopes {
			out[i].Scope = scopeArg(s.Scope)
			if counted {
				out[i].Points = &scopes[i].Points
				total += s.Points
			}
		}
		switch format {
		case "json":
			return writeJSON(c.App.Writer, struct {
				Scopes []jsonScope `json:"scopes"`
			}{out})
		case "ndjson":
			return writeNDJSON(c.App.Writer, out)
		}
		tw := newTable(c.App.Writer)
		if counted {
			fmt.Fprintln(tw, "SCOPE\tPOINTS")
		} else {
			fmt.Fprintln(tw, "SCOPE")
		}
		for _, s := range out {
			name := cmp.Or(s.Scope, "(none)")
			if counted {
				fmt.Fprintf(tw, "%s\t%d\n", name, *s.Points)
			} else {
				fmt.Fprintln(tw, name)
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		summary := count(len(out), "scope")
		if counted {
			summary += ", " + count(total, "point")
		}
		_, err := fmt.Fprintln(c.App.Writer, summary)
		return err
	})
}

// scopeArg writes a scope as --scope reads it: its text parts joined by
// ':', with '\', ':' and '*' escaped; "" for the points put under no
// scope, which a query without --scope searches. A scope that --scope
// cannot name (a program's integers, an empty part) is written in the
// text form, which says each part's kind.
func scopeArg(t composite.Tuple) string {
	if len(t) == 0 {
		return ""
	}
	parts, ok := textParts(t)
	if !ok || slices.Contains(parts, "") {
		return formatScope(t)
	}
	return joinParts(parts)
}

// textParts returns t's parts, and whether every one is text.
func textParts(t composite.Tuple) ([]string, bool) {
	parts := make([]string, len(t))
	for i, e := range t {
		s, ok := e.(string)
		if !ok {
			return nil, false
		}
		parts[i] = s
	}
	return parts, true
}

// joinParts writes text parts as --scope reads them: joined by ':', with
// '\', ':' and '*' escaped.
func joinParts(parts []string) string {
	escaped := make([]string, len(parts))
	for i, p := range parts {
		escaped[i] = scopeEscaper.Replace(p)
	}
	return strings.Join(escaped, ":")
}
