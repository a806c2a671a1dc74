package cli

import (
	"errors"
	"fmt"
	"slices"

	ucli "github.com/urfave/cli/v2"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/indextable"
)

// tableSetCommand is table set, Redis's HSET on a table's row: it sets
// fields of one row, creating the row when there is none, keeping its
// expiry, with its index entries, in one transaction
// (indextable.Table.Update).
func tableSetCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "set",
		Usage: "set fields of one row by its whole key, creating it when absent, keeping its expiry and its indexes in step (Redis's HSET); --del removes fields",
		UsageText: "keyspace table set --table orders 17 status=shipped\n" +
			"keyspace table set --table cities 'US:CA:Fresno:42' population=542107 --del note",
		ArgsUsage: "KEY [FIELD=VALUE...]",
		Description: "A VALUE that reads as JSON (70, true, null, [1,2]) is set as that value, any other as a string, as geo fset does. " +
			"The key columns are the row's key and cannot be set; a new row gets them from KEY, as an import writes them. " +
			"It prints how many fields changed.",
		Flags: []ucli.Flag{tableFlag(),
			&ucli.StringSliceFlag{Name: "del", Usage: "remove `FIELD` from the row (repeat it)"},
			&ucli.BoolFlag{Name: "xx", Usage: "only a row that is there: with none, nothing is written, and 0 fields changed (Redis's SET XX)"},
		},
		Action: tableSet,
	}
}

func tableSet(c *ucli.Context) error {
	set, del, err := fieldEdits(c, "a KEY")
	if err != nil {
		return err
	}
	changed := 0
	err = updateDB(c, func(tx keyspace.Tx) error {
		t, schema, key, err := rowToEdit(c, tx, append(fieldNames(set), del...))
		if err != nil {
			return err
		}
		if c.Bool("xx") {
			if _, err := t.Get(tx, key); errors.Is(err, keyspace.ErrNotFound) {
				return nil
			} else if err != nil {
				return err
			}
		}
		_, err = t.Update(tx, key, func(r *record) error {
			if *r == nil { // no row (or one that expired): Update passes the zero record
				*r = newRow(key, schema)
			}
			body, err := marshal(*r)
			if err != nil {
				return err
			}
			body, changed, err = setFields(body, set, del)
			if err != nil {
				return err
			}
			next := record{}
			if err := decodeJSON(body, &next); err != nil {
				return err
			}
			*r = next
			return nil
		})
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(c.App.Writer, changed)
	return nil
}

// rowToEdit opens --table and reads the whole KEY of the row that table
// set or incr edits; editing one of its key columns, among fields, is a
// usage error (the row's KEY says them).
func rowToEdit(c *ucli.Context, tx keyspace.Tx, fields []string) (*indextable.Table[record], composite.Schema, composite.Tuple, error) {
	t, schema, err := openTable(tx, c.String("table"))
	if err != nil {
		return nil, nil, nil, err
	}
	key, err := wholeKey(c.Args().First(), schema)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, name := range fields {
		if slices.ContainsFunc(schema, func(col composite.Column) bool { return col.Name == name }) {
			return nil, nil, nil, usagef("%q is a key column of table %s: the row's KEY says it (to move a row, del it and set the new key)", name, t.Name())
		}
	}
	return t, schema, key, nil
}

// fieldNames are the fields of set.
func fieldNames(set []fieldValue) []string {
	names := make([]string, len(set))
	for i, f := range set {
		names[i] = f.field
	}
	return names
}

// newRow is a new row's record: its key columns, as text, as an import
// writes them.
func newRow(key composite.Tuple, schema composite.Schema) record {
	r := record{}
	for i, col := range schema {
		r[col.Name] = fmt.Sprint(key[i])
	}
	return r
}
