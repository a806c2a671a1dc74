package cli

import (
	"fmt"
	"strings"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/indextable"
	ucli "github.com/urfave/cli/v2"
)

// indexInfo is one index as index list and table info print it: its
// definition from the catalog, how many entries it holds and whether a
// build is pending (lookups refuse it until one finishes).
type indexInfo struct {
	Table   string   `json:"table"`
	Name    string   `json:"name"`
	Fields  []string `json:"fields"`
	Unique  bool     `json:"unique"`
	Cover   []string `json:"cover,omitempty"`
	Where   []string `json:"where,omitempty"`    // a partial index's conditions
	WhereIn []string `json:"where_in,omitempty"` // as index create took them
	Entries int      `json:"entries"`
	Built   bool     `json:"built"`
	Numbers string   `json:"numbers"` // "ordered", or "by kind" for an index from before format 8 (indexDef.Numbers)
}

// tableInfo is what table info prints: a table's key columns and their
// kinds, its rows (those that expire among them) and its indexes.
type tableInfo struct {
	Table    string         `json:"table"`
	Key      []schemaColumn `json:"key"`
	Rows     int            `json:"rows"`
	Expiring int            `json:"expiring"`
	Indexes  []indexInfo    `json:"indexes"`
}

// countKeys counts the keys in r.
func countKeys(tx keyspace.Tx, r keyspace.Range) (int, error) {
	n := 0
	for range tx.Scan(r) {
		n++
	}
	return n, tx.Err()
}

// declaredIndex returns the index of t called name, nil when t declares
// none (openTable declares every index the catalog defines).
func declaredIndex(t *indextable.Table[record], name string) *indextable.Index[record] {
	for _, ix := range t.Indexes() {
		if ix.Name() == name {
			return ix
		}
	}
	return nil
}

// indexesOf describes the indexes of the opened table t.
func indexesOf(tx keyspace.Tx, t *indextable.Table[record]) ([]indexInfo, error) {
	defs, err := loadIndexSpecs(tx, t.Name())
	if err != nil {
		return nil, err
	}
	out := make([]indexInfo, 0, len(defs))
	for _, d := range defs {
		ix := declaredIndex(t, d.Name)
		if ix == nil {
			return nil, fmt.Errorf("table %s: index %s is defined but not declared", t.Name(), d.Name)
		}
		info := indexInfo{Table: t.Name(), Name: d.Name, Fields: d.Fields, Unique: d.Unique, Cover: d.Cover, Where: d.Where, WhereIn: d.WhereIn, Numbers: "by kind"}
		if d.Numbers == orderedNumbers {
			info.Numbers = d.Numbers
		}
		if info.Entries, err = countKeys(tx, ix.All()); err != nil {
			return nil, err
		}
		pending, err := ix.BuildPending(tx)
		if err != nil {
			return nil, err
		}
		info.Built = !pending
		out = append(out, info)
	}
	return out, nil
}

// writeIndexes prints indexes as a table, with the table's name in the
// first column when withTable.
func writeIndexes(c *ucli.Context, indexes []indexInfo, withTable bool) {
	tw := newTable(c.App.Writer)
	header := "INDEX\tFIELDS\tUNIQUE\tCOVER\tWHERE\tENTRIES\tSTATE"
	if withTable {
		header = "TABLE\t" + header
	}
	fmt.Fprintln(tw, header)
	for _, ix := range indexes {
		unique, state := "no", "built"
		if ix.Unique {
			unique = "yes"
		}
		if !ix.Built {
			state = "building (keyspace index build finishes it)"
		}
		if ix.Numbers != orderedNumbers {
			state += "; whole numbers before the others (drop and create it to order numbers)"
		}
		if withTable {
			fmt.Fprintf(tw, "%s\t", ix.Table)
		}
		where := conditionsText(ix.Where, ix.WhereIn)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", ix.Name, strings.Join(ix.Fields, ","), unique, orDash(strings.Join(ix.Cover, ",")), where, ix.Entries, state)
	}
	tw.Flush()
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// indexList is index list: the indexes of one table (--table) or of
// every table, as MongoDB's getIndexes and SQL's \di list them.
func indexList(c *ucli.Context) error {
	format, err := output(c, "table", "json")
	if err != nil {
		return err
	}
	var out []indexInfo
	err = viewDB(c, func(tx keyspace.Tx) error {
		tables := []string{c.String("table")}
		if !c.IsSet("table") {
			var err error
			if tables, err = tableNames(tx); err != nil {
				return err
			}
		}
		for _, name := range tables {
			t, _, err := openTable(tx, name)
			if err != nil {
				return err
			}
			indexes, err := indexesOf(tx, t)
			if err != nil {
				return err
			}
			out = append(out, indexes...)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if format == "json" {
		if out == nil {
			out = []indexInfo{}
		}
		return writeJSON(c.App.Writer, out)
	}
	if len(out) == 0 {
		_, err := fmt.Fprintln(c.App.ErrWriter, "no indexes (keyspace index create makes one)")
		return err
	}
	writeIndexes(c, out, !c.IsSet("table"))
	return nil
}

// tableInfoAction is table info: how a table is keyed, how many rows it
// holds and its indexes (SQL's \d, Redis's FT.INFO).
func tableInfoAction(c *ucli.Context) error {
	format, err := output(c, "table", "json")
	if err != nil {
		return err
	}
	var info tableInfo
	var key string // the columns as a key is written: state:city:id
	err = viewTable(c, func(tx keyspace.Tx, t *indextable.Table[record], schema composite.Schema) (err error) {
		info.Table, key = t.Name(), keyColumns(schema)
		for _, col := range schema {
			info.Key = append(info.Key, schemaColumn{Name: col.Name, Kind: col.Kind.String()})
		}
		if info.Rows, err = countKeys(tx, t.Range()); err != nil {
			return err
		}
		if info.Expiring, err = countKeys(tx, composite.NewSubspace("x", t.Name(), "e").Range()); err != nil {
			return err
		}
		info.Indexes, err = indexesOf(tx, t)
		return err
	})
	if err != nil {
		return err
	}
	if format == "json" {
		return writeJSON(c.App.Writer, info)
	}
	cols := make([]string, len(info.Key))
	for i, col := range info.Key {
		cols[i] = col.Name + " " + col.Kind
	}
	fmt.Fprintf(c.App.Writer, "table %s: %s keyed %s (%s)", info.Table, count(info.Rows, "row"), key, strings.Join(cols, ", "))
	if info.Expiring > 0 {
		fmt.Fprintf(c.App.Writer, ", %d of them expiring", info.Expiring)
	}
	fmt.Fprintln(c.App.Writer)
	if len(info.Indexes) == 0 {
		_, err := fmt.Fprintln(c.App.Writer, "no indexes (keyspace index create makes one)")
		return err
	}
	writeIndexes(c, info.Indexes, false)
	return nil
}
