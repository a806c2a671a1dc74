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

// A dropper deletes the structure called name in tx and returns how many
// items went, or an error naming it as unknown when there is nothing by
// that name.
type dropper func(tx keyspace.Tx, name string) (int, error)

// dropCommand is a technique's drop subcommand: it deletes one whole
// structure (Redis's DEL, Tile38's DROP) in one transaction and says what
// went: "dropped geo index shops: 1 point".
func dropCommand(what, item string, flag ucli.Flag, example string, drop dropper) *ucli.Command {
	return &ucli.Command{
		Name:      "drop",
		Usage:     fmt.Sprintf("delete a %s and everything in it", what),
		UsageText: example,
		Flags:     []ucli.Flag{flag},
		Action: func(c *ucli.Context) error {
			name := c.String(flag.Names()[0])
			var n int
			err := updateDB(c, func(tx keyspace.Tx) (err error) {
				n, err = drop(tx, name)
				return err
			})
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(c.App.Writer, "dropped %s %s: %s\n", what, name, count(n, item))
			return err
		},
	}
}

func dropGeoIndex(tx keyspace.Tx, name string) (int, error) {
	ix := geo.NewIndex(name)
	if err := requireIndex(ix, tx); err != nil {
		return 0, err
	}
	return ix.Drop(tx)
}

// dropTable drops a command-line table's records and index entries and
// takes its schema and index definitions out of the catalog.
func dropTable(tx keyspace.Tx, name string) (int, error) {
	t, _, err := openTable(tx, name)
	if err != nil {
		return 0, err
	}
	n, err := t.Drop(tx)
	if err != nil {
		return 0, err
	}
	if err := tx.Delete(catalogKey(name)); err != nil {
		return 0, err
	}
	_, err = composite.Clear(tx, composite.NewSubspace("meta", "index", name))
	return n, err
}

func dropLog(tx keyspace.Tx, name string) (int, error) {
	if err := requireKeys(tx, "log", name, composite.NewSubspace("e", name), "nothing"); err != nil {
		return 0, err
	}
	return enumkeys.NewLog(name).Drop(tx)
}

func dropRelation(tx keyspace.Tx, name string) (int, error) {
	r := indextable.NewRelation(name)
	n, err := r.Drop(tx)
	if err == nil && n == 0 {
		err = fmt.Errorf("unknown relation %q: it holds no links (see keyspace stats)", name)
	}
	return n, err
}

// requireKeys is an error unless some key lies under the subspace of the
// structure what called name: a log or a relation, which has no catalog
// entry, exists while it holds keys there. The error says it holds
// nothing ("no links").
func requireKeys(tx keyspace.Tx, what, name string, under composite.Subspace, nothing string) error {
	for range tx.Scan(under.Range()) {
		return nil
	}
	if err := tx.Err(); err != nil {
		return err
	}
	return fmt.Errorf("unknown %s %q: it holds %s (see keyspace stats)", what, name, nothing)
}
