package cli

import (
	"errors"
	"fmt"

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
	return &ucli.Command{
		Name:      "rename",
		Usage:     fmt.Sprintf("give a %s a new NAME, which must hold nothing yet: everything in it moves, in one transaction", what),
		UsageText: example,
		ArgsUsage: "NAME",
		Flags:     []ucli.Flag{flag},
		Action: func(c *ucli.Context) error {
			if c.NArg() != 1 {
				return usagef("%s wants one NAME, the new one", commandName(c))
			}
			from, to := c.String(flag.Names()[0]), c.Args().First()
			err := updateDB(c, func(tx keyspace.Tx) error { return rename(tx, from, to) })
			if errors.Is(err, composite.ErrNotEmpty) {
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
	if err := requireKeys(tx, "log", from, "e"); err != nil {
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
	links := composite.NewSubspace("x", from, "l").Range()
	links.Limit = 1
	found := false
	for range tx.Scan(links) {
		found = true
	}
	if err := tx.Err(); err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("unknown relation %q: it holds no links (see keyspace stats)", from)
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
