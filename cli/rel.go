package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/indextable"
	ucli "github.com/urfave/cli/v2"
)

func relFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "rel", Required: true, Usage: "the relation `NAME`, e.g. likes"}
}

func relCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "rel",
		Usage: "many-to-many relations kept in both directions, newest first, with each side's fields; link or import, unlink, list, scan, has, count, repair, drop",
		Subcommands: []*ucli.Command{
			relImportCommand(),
			{
				Name: "link", Usage: "link LEFT to RIGHT (a user likes an item)", ArgsUsage: "LEFT RIGHT",
				UsageText: `keyspace rel link --rel likes --left-fields '{"name":"jerrylou"}' --right-fields '{"title":"mac pro"}' u1 i1`,
				Flags: []ucli.Flag{relFlag(),
					timeFlag("time", "when (RFC 3339, a date or Unix seconds; default now)"),
					&ucli.StringFlag{Name: "left-fields", Usage: "`JSON` to show with LEFT in RIGHT's list (sets it for every link of LEFT)"},
					&ucli.StringFlag{Name: "right-fields", Usage: "`JSON` to show with RIGHT in LEFT's list"}},
				Action: func(c *ucli.Context) error {
					if c.NArg() != 2 {
						return usagef("rel link wants LEFT and RIGHT")
					}
					for _, flag := range []string{"left-fields", "right-fields"} {
						if f := c.String(flag); f != "" && !json.Valid([]byte(f)) {
							return usagef("--%s %q is not JSON (quote it for the shell: --%s '{\"name\":\"jerrylou\"}')", flag, f, flag)
						}
					}
					at := time.Now()
					if t := timeOf(c, "time"); t != nil {
						at = *t
					}
					return relWrite(c, func(r *indextable.Relation, tx keyspace.Tx) error {
						left, right := c.Args().Get(0), c.Args().Get(1)
						if f := c.String("left-fields"); f != "" {
							if _, err := r.SetLeftFields(tx, left, []byte(f)); err != nil {
								return err
							}
						}
						if f := c.String("right-fields"); f != "" {
							if _, err := r.SetRightFields(tx, right, []byte(f)); err != nil {
								return err
							}
						}
						return r.Link(tx, left, right, at)
					})
				},
			},
			{
				Name: "unlink", Usage: "remove the link between LEFT and RIGHT (an error when there is none)", ArgsUsage: "LEFT RIGHT",
				UsageText: "keyspace rel unlink --rel likes u1 i1",
				Flags:     []ucli.Flag{relFlag()},
				Action: func(c *ucli.Context) error {
					if c.NArg() != 2 {
						return usagef("rel unlink wants LEFT and RIGHT")
					}
					left, right := c.Args().Get(0), c.Args().Get(1)
					return relWrite(c, func(r *indextable.Relation, tx keyspace.Tx) error {
						existed, err := r.Unlink(tx, left, right)
						if err == nil && !existed {
							err = fmt.Errorf("%w: %s does not link %s to %s", errNoLink, c.String("rel"), left, right)
						}
						return err
					})
				},
			},
			{
				Name: "list", Usage: "what --left links to, or what links to --right, newest first, a page at a time; --since and --until for the links made in a period",
				UsageText: "keyspace rel list --rel likes --left u1\nkeyspace rel list --rel likes --right i1 --limit 20\n" +
					"keyspace rel list --rel likes --left u1 --since 2026-11-21T00:00:00Z   # what u1 liked since then (Redis's ZREVRANGEBYSCORE)",
				Flags:  slices.Concat(sideFlags(), pageFlags("links", "oldest first"), []ucli.Flag{fieldsFlag("linked entity's fields")}, periodFlags("links made")),
				Action: relList,
			},
			{
				Name: "scan", Usage: "every link of the relation, by left then right, a page at a time: the whole relation, as NDJSON that rel import reads back (the links, not the entities' fields)",
				UsageText: "keyspace rel scan --rel likes --limit 100\n" +
					"keyspace rel scan --rel likes --output ndjson | keyspace --db copy.db rel import --rel likes --left-col left --right-col right --time-col time --format ndjson -",
				Flags:  append([]ucli.Flag{relFlag()}, pageFlags("links", "the last link first")...),
				Action: relScan,
			},
			{
				Name: "has", Usage: "whether LEFT links to each RIGHT, and since when (Redis's SISMEMBER, SMISMEMBER): which items of a page a user likes", ArgsUsage: "LEFT RIGHT...",
				UsageText: "keyspace rel has --rel likes u1 i1 i2 i3",
				Flags:     []ucli.Flag{relFlag()},
				Action:    relHas,
			},
			{
				Name: "count", Usage: "how many links --left has, or --right has (one key read, however many); with --since and --until, how many it made in a period (reading their keys)",
				UsageText: "keyspace rel count --rel likes --right i1\n" +
					"keyspace rel count --rel likes --right i1 --since 2026-11-21T00:00:00Z --until 2026-11-22T00:00:00Z   # its likes that day",
				Flags:  slices.Concat(sideFlags(), periodFlags("links made")),
				Action: relCount,
			},
			repairCommand("relation", relFlag(), "make both lists and every count what the links imply (after verify finds problems, or on a file written before counts)",
				"keyspace rel repair --rel likes", func(name string) repairer { return indextable.NewRelation(name).Repair }),
			dropCommand("relation", "link", relFlag(), "keyspace rel drop --rel likes", dropRelation),
			renameCommand("relation", relFlag(), "keyspace rel rename --rel likes fans", renameRelation),
		},
	}
}

// errNoLink is unlinking what is not linked.
var errNoLink = errors.New("no such link")

// sideFlags are the relation and the one entity whose side is read.
func sideFlags() []ucli.Flag {
	return []ucli.Flag{relFlag(),
		&ucli.StringFlag{Name: "left", Usage: "the left `ID` (a user): what it links to"},
		&ucli.StringFlag{Name: "right", Usage: "the right `ID` (an item): what links to it"}}
}

// side reads --left or --right: the id, and whether it is a left.
func side(c *ucli.Context) (string, bool, error) {
	if (c.String("left") == "") == (c.String("right") == "") {
		return "", false, usagef("rel %s wants one of --left and --right", c.Command.Name)
	}
	if id := c.String("left"); id != "" {
		return id, true, nil
	}
	return c.String("right"), false, nil
}

func relList(c *ucli.Context) error {
	format, err := output(c, "table", "json", "ndjson")
	if err != nil {
		return err
	}
	id, isLeft, err := side(c)
	if err != nil {
		return err
	}
	limit, err := limitOf(c)
	if err != nil {
		return err
	}
	opts := &indextable.ListOptions{Limit: limit, Cursor: c.String("cursor"), Reverse: c.Bool("reverse")}
	return viewDB(c, func(tx keyspace.Tx) error {
		r := indextable.NewRelation(c.String("rel"))
		between := r.LeftsBetween
		if isLeft {
			between = r.RightsBetween
		}
		since, until, _ := period(c) // zero for open ends: Lefts and Rights
		page, err := between(tx, id, since, until, opts)
		if err != nil {
			return cursorUsage(err)
		}
		type link struct {
			ID     string          `json:"id"`
			Time   time.Time       `json:"time"`
			Fields json.RawMessage `json:"fields,omitempty"`
		}
		fields, err := fieldsOf(c)
		if err != nil {
			return err
		}
		var out []link
		for _, l := range page.Links {
			data := payloadJSON(l.Fields)
			if fields != nil {
				data = projectPayload(l.Fields, fields)
			}
			out = append(out, link{l.ID, l.Time, data})
		}
		return writeListing(c.App.Writer, c.App.ErrWriter, format, "links", out, page.Next, "ID\tTIME\tFIELDS", func(l link) string {
			return fmt.Sprintf("%s\t%s\t%s", l.ID, l.Time.Format(time.RFC3339), l.Fields)
		})
	})
}

// relScan is rel scan: Relation.Edges.
func relScan(c *ucli.Context) error {
	format, err := wholeListing(c)
	if err != nil {
		return err
	}
	return viewDB(c, func(tx keyspace.Tx) error {
		page, err := indextable.NewRelation(c.String("rel")).Edges(tx, &indextable.ListOptions{Limit: c.Int("limit"), Cursor: c.String("cursor"), Reverse: c.Bool("reverse")})
		if err != nil {
			return cursorUsage(err)
		}
		type edge struct {
			Left  string    `json:"left"`
			Right string    `json:"right"`
			Time  time.Time `json:"time"`
		}
		var out []edge
		for _, e := range page.Edges {
			out = append(out, edge{e.Left, e.Right, e.At})
		}
		return writeListing(c.App.Writer, c.App.ErrWriter, format, "links", out, page.Next, "LEFT\tRIGHT\tTIME", func(e edge) string {
			return fmt.Sprintf("%s\t%s\t%s", e.Left, e.Right, e.Time.Format(time.RFC3339))
		})
	})
}

// relHas is rel has: one line a RIGHT, in the order given.
func relHas(c *ucli.Context) error {
	format, err := output(c, "table", "json", "ndjson")
	if err != nil {
		return err
	}
	if c.NArg() < 2 {
		return usagef("rel has wants LEFT and at least one RIGHT")
	}
	left, rights := c.Args().First(), c.Args().Slice()[1:]
	return viewDB(c, func(tx keyspace.Tx) error {
		r := indextable.NewRelation(c.String("rel"))
		type link struct {
			Right  string     `json:"right"`
			Linked bool       `json:"linked"`
			Time   *time.Time `json:"time,omitempty"`
		}
		out := make([]link, len(rights))
		for i, right := range rights {
			at, linked, err := r.Linked(tx, left, right)
			if err != nil {
				return err
			}
			out[i] = link{Right: right, Linked: linked}
			if linked {
				out[i].Time = &at
			}
		}
		return writeListing(c.App.Writer, c.App.ErrWriter, format, "links", out, "", "RIGHT\tLINKED\tTIME", func(l link) string {
			when := "-"
			if l.Time != nil {
				when = l.Time.Format(time.RFC3339)
			}
			return fmt.Sprintf("%s\t%v\t%s", l.Right, l.Linked, when)
		})
	})
}

func relCount(c *ucli.Context) error {
	format, err := output(c, "table", "json")
	if err != nil {
		return err
	}
	id, isLeft, err := side(c)
	if err != nil {
		return err
	}
	return viewDB(c, func(tx keyspace.Tx) error {
		r := indextable.NewRelation(c.String("rel"))
		count := r.CountLefts
		if isLeft {
			count = r.CountRights
		}
		if since, until, set := period(c); set { // the links of a period: their keys read
			between := r.CountLeftsBetween
			if isLeft {
				between = r.CountRightsBetween
			}
			count = func(tx keyspace.Tx, id string) (int, error) { return between(tx, id, since, until) }
		}
		n, err := count(tx, id)
		if err != nil {
			return err
		}
		return writeCount(c.App.Writer, format, n)
	})
}

func relWrite(c *ucli.Context, fn func(r *indextable.Relation, tx keyspace.Tx) error) error {
	return updateDB(c, func(tx keyspace.Tx) error { return fn(indextable.NewRelation(c.String("rel")), tx) })
}
