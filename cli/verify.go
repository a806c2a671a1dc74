package cli

import (
	"fmt"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/enumkeys"
	"github.com/keyspacedb/keyspace/geo"
	"github.com/keyspacedb/keyspace/indextable"
	ucli "github.com/urfave/cli/v2"
)

// verifyCommand checks a whole file: every key readable, then every
// structure whose keys are derived from others against a recomputation.
func verifyCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "verify",
		Usage:     "read every key of the file, then check every table index and expiry entries, every log's time index and counters, every geo index's reverse and expiry entries, every fence set's cells, both lists of every relation and every series bucket; exit 1 on any problem",
		UsageText: "keyspace --db cities.db verify\nkeyspace --db cities.db verify --output json   # for a monitor: every check's problems, and exit 1 on any",
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
			bad, seriesBad := 0, 0 // seriesBad: of bad, a series' (no repair recomputes readings)
			type check struct {
				What     string   `json:"what"`
				Problems []string `json:"problems"`
			}
			doc := struct {
				File     string  `json:"file"`
				Keys     int     `json:"keys"`
				Checks   []check `json:"checks"`
				Problems int     `json:"problems"`
			}{File: s.Path(), Checks: []check{}}
			report := func(what string, problems []string) {
				bad += len(problems)
				if format == "json" { // every problem
					doc.Checks = append(doc.Checks, check{what, append([]string{}, problems...)})
					return
				}
				fmt.Fprintf(c.App.Writer, "%s: %s\n", what, count(len(problems), "problem"))
				for _, p := range problems[:min(len(problems), 10)] {
					fmt.Fprintln(c.App.Writer, "  ", p)
				}
			}
			err = s.ViewContext(c.Context, func(tx keyspace.Tx) error {
				// Every key and value first: a damaged page anywhere in
				// the keyspace is an error (keyspace.ErrCorrupt), even one
				// that no structure below would read.
				keys := 0
				for range tx.Scan(keyspace.Range{}) {
					keys++
				}
				if err := tx.Err(); err != nil {
					return err
				}
				doc.Keys = keys
				if format != "json" {
					fmt.Fprintf(c.App.Writer, "file %s: %s read\n", s.Path(), count(keys, "key"))
				}
				tables, err := composite.Groups(tx, composite.NewSubspace("meta", "table"), nil, 1)
				if err != nil {
					return err
				}
				for _, tt := range tables {
					name, _ := tt[0].(string)
					t, _, err := openTable(tx, name)
					if err != nil {
						return err
					}
					for _, ix := range t.Indexes() {
						what := fmt.Sprintf("table %s index %s", name, ix.Name())
						// An index still being built lacks the entries of
						// the records no batch has reached: one problem.
						if pending, err := ix.BuildPending(tx); err != nil {
							return err
						} else if pending {
							report(what, []string{fmt.Sprintf("not fully built: keyspace index build --table %s --name %s finishes it", name, ix.Name())})
							continue
						}
						problems, err := ix.Verify(tx)
						if err != nil {
							return err
						}
						report(what, problemStrings(problems))
					}
					// The expiry entries, of a table whose rows expire
					// or whose entries are out of step.
					problems, err := t.Verify(tx)
					if err != nil {
						return err
					}
					_, expiring, err := t.NextExpiry(tx)
					if err != nil {
						return err
					}
					if expiring || len(problems) > 0 {
						report(fmt.Sprintf("table %s expiry entries", name), problemStrings(problems))
					}
				}
				// Logs and geo indexes are the names under their layouts.
				for _, kind := range []struct {
					layout, what string
					verify       func(name string) repairer
				}{
					{"e", "log", func(name string) repairer { return enumkeys.NewLog(name).Verify }},
					{"g", "geo index", func(name string) repairer { return geo.NewIndex(name).Verify }},
					{"f", "fence set", func(name string) repairer { return geo.NewFences(name).Verify }},
				} {
					names, err := composite.Groups(tx, composite.NewSubspace(kind.layout), nil, 1)
					if err != nil {
						return err
					}
					for _, g := range names {
						name, _ := g[0].(string)
						problems, err := kind.verify(name)(tx)
						if err != nil {
							return err
						}
						report(kind.what+" "+name, problems)
					}
				}
				// Relations are the names under "x" with links ("l").
				parts, err := composite.Groups(tx, composite.NewSubspace("x"), nil, 2)
				if err != nil {
					return err
				}
				for _, p := range parts {
					name, _ := p[0].(string)
					var problems []string
					switch part, _ := p[1].(string); part {
					case "l":
						if problems, err = indextable.NewRelation(name).Verify(tx); err != nil {
							return err
						}
						report("relation "+name, problems)
					case "s": // a series' buckets
						if problems, err = indextable.NewSeries(name, nil).Verify(tx); err != nil {
							return err
						}
						seriesBad += len(problems)
						report("series "+name, problems)
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
			if format == "json" {
				doc.Problems = bad
				if err := writeJSON(c.App.Writer, doc); err != nil {
					return err
				}
			}
			switch {
			case bad > 0 && seriesBad == bad:
				return fmt.Errorf("%s in series buckets, which hold the readings themselves: no repair recomputes them (series drop, then import the readings again)", count(bad, "problem"))
			case seriesBad > 0:
				return fmt.Errorf("%s (keyspace index repair, table repair, geo repair, fence repair, rel repair and log repair fix them, but not the %d in series buckets, which hold the readings themselves)", count(bad, "problem"), seriesBad)
			case bad > 0:
				return fmt.Errorf("%s (keyspace index repair, table repair, geo repair, fence repair, rel repair and log repair fix them)", count(bad, "problem"))
			}
			return nil
		},
	}
}

// A repairer verifies or repairs one structure in tx and returns the
// problems it found or fixed (Verify and Repair of geo.Index, geo.Fences,
// indextable.Relation, enumkeys.Log).
type repairer func(tx keyspace.Tx) ([]string, error)

// repairCommand is a group's repair subcommand: it runs repair on the
// structure the flag names, in one transaction, prints the first problems
// it fixed and how many: "relation likes: repaired 2 problems".
func repairCommand(what string, flag ucli.Flag, usage, example string, repair func(name string) repairer) *ucli.Command {
	return &ucli.Command{
		Name: "repair", Usage: usage, UsageText: example,
		Flags: []ucli.Flag{flag},
		Action: func(c *ucli.Context) error {
			name := c.String(flag.Names()[0])
			var fixed []string
			err := updateDB(c, func(tx keyspace.Tx) (err error) {
				fixed, err = repair(name)(tx)
				return err
			})
			if err != nil {
				return err
			}
			for _, p := range fixed[:min(len(fixed), 20)] {
				fmt.Fprintln(c.App.Writer, p)
			}
			_, err = fmt.Fprintf(c.App.Writer, "%s %s: repaired %s\n", what, name, count(len(fixed), "problem"))
			return err
		},
	}
}

// problemStrings is how the command line prints an index's or a table's
// problems.
func problemStrings(problems []indextable.Problem) []string {
	texts := make([]string, len(problems))
	for i, p := range problems {
		texts[i] = p.String()
	}
	return texts
}
