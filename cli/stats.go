package cli

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	ucli "github.com/urfave/cli/v2"
)

// kindOf tells what a key group (its first three elements: the layout,
// the structure's name and the part) belongs to, and whether its keys
// count the structure's items: a geo index's points by their reverse
// entries, a log's items, a fence set's fences by their definitions, a
// table's records, a relation's links, a series' buckets; every catalog
// entry. Tables, relations and series
// share the "x" layout and tell themselves apart by their parts' tags.
func kindOf(layout, part string) (kind string, counts bool) {
	switch layout {
	case "g":
		return "geo index", part == "i"
	case "e":
		return "log", part == "m"
	case "f":
		return "fence set", part == "d"
	case "meta":
		return "catalog", true
	case "x":
		switch part {
		case "r", "i", "b", "e": // records, index entries, build progress, expiry entries
			return "table", part == "r"
		case "l", "f", "bk", "lf", "rf", "lc", "rc":
			return "relation", part == "l"
		case "s", "sm":
			return "series", part == "s"
		}
	}
	return layout, false
}

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
				Kind  string `json:"kind"`
				Name  string `json:"name"`
				Items int    `json:"items"` // points, records, items, links or buckets; entries for the catalog
				Keys  int    `json:"keys"`
			}
			var out struct {
				File      string  `json:"file"`
				Bytes     int64   `json:"bytes"`
				Format    uint64  `json:"format"` // keyspace.FormatVersion of the file; 0 from before versions were recorded
				Keys      int     `json:"keys"`
				Subspaces []entry `json:"subspaces"`
			}
			out.File, out.Subspaces = s.Path(), []entry{}
			if out.Bytes, err = s.Size(); err != nil {
				return err
			}
			if out.Format, err = s.Format(); err != nil {
				return err
			}
			err = s.ViewContext(c.Context, func(tx keyspace.Tx) error {
				groups, err := composite.GroupCounts(tx, composite.NewSubspace(), nil, 3)
				if err != nil {
					return err
				}
				// A table and a relation of the same name interleave in key
				// order, so entries are found by kind and name.
				at := map[[2]string]int{}
				for _, g := range groups {
					layout, name, part := groupParts(g.Group)
					kind, counts := kindOf(layout, part)
					i, ok := at[[2]string{kind, name}]
					if !ok {
						i = len(out.Subspaces)
						at[[2]string{kind, name}] = i
						out.Subspaces = append(out.Subspaces, entry{Kind: kind, Name: name})
					}
					e := &out.Subspaces[i]
					e.Keys += g.Count
					out.Keys += g.Count
					if counts {
						e.Items += g.Count
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
			if format == "json" {
				return writeJSON(c.App.Writer, out)
			}
			tw := newTable(c.App.Writer)
			fmt.Fprintln(tw, "KIND\tNAME\tITEMS\tKEYS")
			for _, e := range out.Subspaces {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\n", e.Kind, e.Name, e.Items, e.Keys)
			}
			tw.Flush()
			_, err = fmt.Fprintf(c.App.Writer, "%s: %s, %s, format %d\n", out.File, count(out.Keys, "key"), bytesText(out.Bytes), out.Format)
			return err
		},
	}
}

// groupParts returns a key group's first three elements as text: the
// layout ("g", "x", …), the structure's name and the part.
func groupParts(t composite.Tuple) (layout, name, part string) {
	var texts [3]string
	for i := range min(len(t), 3) {
		texts[i] = fmt.Sprint(t[i])
	}
	return texts[0], texts[1], texts[2]
}

// bytesText is a file's size in bytes, and in the largest binary unit it
// fills when that is KiB or more: "151126016 bytes, 144 MiB".
func bytesText(n int64) string {
	if u := sizeInUnits(n); u != "" {
		return fmt.Sprintf("%d bytes, %s", n, u)
	}
	return fmt.Sprintf("%d bytes", n)
}

// sizeInUnits is a size in the largest binary unit it fills, to three
// significant digits: "144 MiB", "4.27 GiB", "32 KiB"; "" under 1 KiB.
func sizeInUnits(n int64) string {
	units := []string{"KiB", "MiB", "GiB", "TiB"}
	if n < 1<<10 {
		return ""
	}
	v, unit := float64(n)/(1<<10), units[0]
	for _, u := range units[1:] {
		if v < 1<<10 {
			break
		}
		v, unit = v/(1<<10), u
	}
	decimals := 0 // three significant digits, or four from 1000 up
	switch {
	case v < 10:
		decimals = 2
	case v < 100:
		decimals = 1
	}
	text := strconv.FormatFloat(v, 'f', decimals, 64)
	if strings.Contains(text, ".") {
		text = strings.TrimRight(strings.TrimRight(text, "0"), ".")
	}
	return text + " " + unit
}
