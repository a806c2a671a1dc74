package cli

import (
	"fmt"
	"text/tabwriter"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	ucli "github.com/urfave/cli/v2"
)

// subspaceKinds names the first element of every layout.
var subspaceKinds = map[string]string{"g": "geo index", "t": "table", "e": "log", "meta": "catalog"}

func statsCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "stats",
		Usage:     "subspaces, key counts and file size",
		UsageText: "keyspace --db cities.db stats --output json",
		Action: func(c *ucli.Context) error {
			format, err := output(c, "table", "json")
			if err != nil {
				return err
			}
			s, err := openRead(c)
			if err != nil {
				return err
			}
			defer s.Close()
			type entry struct {
				Kind string `json:"kind"`
				Name string `json:"name"`
				Keys int    `json:"keys"`
			}
			var out struct {
				File      string  `json:"file"`
				Bytes     int64   `json:"bytes"`
				Keys      int     `json:"keys"`
				Subspaces []entry `json:"subspaces"`
			}
			out.File, out.Subspaces = s.Path(), []entry{}
			if out.Bytes, err = s.Size(); err != nil {
				return err
			}
			err = s.View(func(tx keyspace.Tx) error {
				groups, err := composite.GroupCounts(tx, composite.NewSubspace(), nil, 2)
				if err != nil {
					return err
				}
				for _, g := range groups {
					kind, _ := g.Group[0].(string)
					e := entry{Kind: subspaceKinds[kind], Keys: g.Count}
					if e.Kind == "" {
						e.Kind = kind
					}
					if len(g.Group) > 1 {
						e.Name = fmt.Sprint(g.Group[1])
					}
					out.Keys += g.Count
					out.Subspaces = append(out.Subspaces, e)
				}
				return nil
			})
			if err != nil {
				return err
			}
			if format == "json" {
				return writeJSON(c.App.Writer, out)
			}
			tw := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "KIND\tNAME\tKEYS")
			for _, e := range out.Subspaces {
				fmt.Fprintf(tw, "%s\t%s\t%d\n", e.Kind, e.Name, e.Keys)
			}
			tw.Flush()
			_, err = fmt.Fprintf(c.App.Writer, "%s: %d keys, %d bytes\n", out.File, out.Keys, out.Bytes)
			return err
		},
	}
}
