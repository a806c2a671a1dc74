package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/enumkeys"
	"github.com/keyspacedb/keyspace/geo"
	"github.com/keyspacedb/keyspace/indextable"
	ucli "github.com/urfave/cli/v2"
)

// A renamer moves the structure called from to the name to in tx, or
// returns an error naming from as unknown when there is nothing by that
// name (with the nearest name that there is).
type renamer func(tx keyspace.Tx, from, to string) error

// renameCommand is a technique's rename subcommand (Tile38's RENAMENX,
// Redis's RENAMENX): it moves one whole structure to a new name in one
// transaction, refusing a name that holds one already, and says so:
// "renamed geo index quakes to eq".
func renameCommand(what string, flag ucli.Flag, example string, rename renamer) *ucli.Command {
	return renameCommandOf(what, []ucli.Flag{flag}, example, func(*ucli.Context) renamer { return rename })
}

// renameCommandOf is renameCommand for a structure named by several
// flags, the last of them its name (an index: --table and --name); the
// renamer is made from the command's flags.
func renameCommandOf(what string, flags []ucli.Flag, example string, rename func(c *ucli.Context) renamer) *ucli.Command {
	nameFlag := flags[len(flags)-1].Names()[0]
	return &ucli.Command{
		Name:      "rename",
		Usage:     fmt.Sprintf("give a%s %s a new NAME, which must hold nothing yet: everything in it moves, in one transaction", article(what), what),
		UsageText: example,
		ArgsUsage: "NAME",
		Flags:     flags,
		Action: func(c *ucli.Context) error {
			if c.NArg() != 1 {
				return usagef("%s wants one NAME, the new one", commandName(c))
			}
			from, to := c.String(nameFlag), c.Args().First()
			err := updateDB(c, func(tx keyspace.Tx) error { return rename(c)(tx, from, to) })
			if errors.Is(err, composite.ErrNotEmpty) || errors.Is(err, indextable.ErrDuplicateIndex) {
				return fmt.Errorf("%s %q holds something already: drop it first, or choose another name (nothing renamed)", what, to)
			}
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(c.App.Writer, "renamed %s %s to %s\n", what, from, to)
			return err
		},
	}
}

// article is " n" before a name that starts with a vowel ("an index"),
// else "".
func article(what string) string {
	if strings.ContainsAny(what[:1], "aeio") {
		return "n"
	}
	return ""
}

func renameGeoIndex(tx keyspace.Tx, from, to string) error {
	ix := geo.NewIndex(from)
	if err := requireIndex(ix, tx); err != nil {
		return err
	}
	_, err := ix.Rename(tx, to)
	return err
}

func renameFences(tx keyspace.Tx, from, to string) error {
	fs := geo.NewFences(from)
	if err := requireFences(fs, tx); err != nil {
		return err
	}
	_, err := fs.Rename(tx, to)
	return err
}

func renameLog(tx keyspace.Tx, from, to string) error {
	if err := requireKeys(tx, "log", from, composite.NewSubspace("e", from), "nothing"); err != nil {
		return err
	}
	_, err := enumkeys.NewLog(from).Rename(tx, to)
	return err
}

// renameTable renames a command-line table: its records, index entries
// and expiry entries (Table.Rename), and its schema and index
// definitions in the catalog, which are keyed by the table's name.
func renameTable(tx keyspace.Tx, from, to string) error {
	t, _, err := openTable(tx, from)
	if err != nil {
		return err
	}
	if err := t.Rename(tx, to); err != nil {
		return err
	}
	for _, catalog := range []string{"table", "index"} {
		if _, err := composite.Move(tx, composite.NewSubspace("meta", catalog, from), composite.NewSubspace("meta", catalog, to)); err != nil {
			return fmt.Errorf("table %s: rename to %q: %w", from, to, err)
		}
	}
	return nil
}

func renameRelation(tx keyspace.Tx, from, to string) error {
	if err := requireKeys(tx, "relation", from, composite.NewSubspace("x", from, "l"), "no links"); err != nil {
		return err
	}
	_, err := indextable.NewRelation(from).Rename(tx, to)
	return err
}

func renameSeries(tx keyspace.Tx, from, to string) error {
	s, err := loadSeries(tx, from)
	if err != nil {
		return err
	}
	_, err = s.Rename(tx, to)
	return err
}

// renameIndex renames the index of c's --table: its entries and build
// progress (Index.Rename), and its definition in the catalog, which is
// keyed by the index's name and holds it.
func renameIndex(c *ucli.Context) renamer {
	return func(tx keyspace.Tx, from, to string) error {
		_, ix, err := withIndex(tx, c)
		if err != nil {
			return err
		}
		// A name the catalog defines is declared (openTable): Rename
		// refuses it, ErrDuplicateIndex.
		table := c.String("table")
		if err := ix.Rename(tx, to); err != nil {
			return err
		}
		d, err := loadIndexDef(tx, table, from)
		if err != nil {
			return err
		}
		d.Name = to
		b, err := marshal(d)
		if err != nil {
			return err
		}
		if err := tx.Delete(indexKey(table, from)); err != nil {
			return err
		}
		return tx.Put(indexKey(table, to), b)
	}
}
