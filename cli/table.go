package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	ucli "github.com/urfave/cli/v2"
)

// catalogKey is where the command line keeps a table's key schema, so that
// later queries type "02134" and 42 as the import did.
func catalogKey(table string) []byte { return composite.Tuple{"meta", "table", table}.Pack() }

type schemaColumn struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
}

func tableFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "table", Aliases: []string{"t"}, Required: true, Usage: "the table `NAME`"}
}

func tableCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "table",
		Usage: "composite keys: import rows under keys like Country:State:City:id, scan by prefix, count groups",
		Subcommands: []*ucli.Command{
			{
				Name: "import", Usage: "import a CSV (with a header) keyed by some of its columns; all or nothing",
				UsageText: "keyspace table import --table cities --key-cols country_code,state_code,name,id cities.csv",
				ArgsUsage: "FILE|-",
				Flags: []ucli.Flag{tableFlag(),
					&ucli.StringFlag{Name: "key-cols", Required: true, Usage: "the key `COLUMNS`, comma-separated, most significant first"}},
				Action: tableImport,
			},
			{
				Name: "scan", Usage: "rows whose key matches a query: 'CA:*', 'CA:San Fran*', 'US:CA:Fresno:42'",
				UsageText: "keyspace table scan --table cities 'US:CA:San*' --limit 20",
				ArgsUsage: "[QUERY]",
				Flags: []ucli.Flag{tableFlag(),
					&ucli.BoolFlag{Name: "reverse", Usage: "descending key order"},
					&ucli.IntFlag{Name: "limit", Aliases: []string{"n"}, Usage: "rows per page"},
					&ucli.StringFlag{Name: "cursor", Usage: "continue from a previous page's `TOKEN`"}},
				Action: tableScan,
			},
			{
				Name: "count", Usage: "rows per group of the first D key columns, under an optional prefix",
				UsageText: "keyspace table count --table cities --depth 2 US",
				ArgsUsage: "[PREFIX]",
				Flags:     []ucli.Flag{tableFlag(), &ucli.IntFlag{Name: "depth", Aliases: []string{"d"}, Value: 1, Usage: "group by this many key columns"}},
				Action:    tableCount,
			},
		},
	}
}

func tableImport(c *ucli.Context) error {
	if c.NArg() != 1 {
		return usagef("table import wants one FILE (or - for standard input)")
	}
	in, name, closeIn, err := openInput(c, c.Args().First())
	if err != nil {
		return err
	}
	defer closeIn()
	rows, err := readRows(in, "csv")
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	keyCols := strings.Split(c.String("key-cols"), ",")
	if len(rows) > 0 {
		for _, k := range keyCols {
			if _, ok := rows[0].fields[k]; !ok {
				return fmt.Errorf("%s: no key column %q in the header", name, k)
			}
		}
	}
	// A key column is an integer if every value is one (without a leading
	// zero, so ZIP codes stay strings); otherwise a string.
	schema := make(composite.Schema, len(keyCols))
	for i, k := range keyCols {
		schema[i] = composite.Column{Name: k, Kind: composite.KindInt}
		for _, r := range rows {
			if !isPlainInt(r.fields[k]) {
				schema[i].Kind = composite.KindString
				break
			}
		}
	}
	table := composite.NewTable(c.String("table"), schema)
	s, err := openWrite(c)
	if err != nil {
		return err
	}
	defer s.Close()
	// Build and check every key first, then write them in key order: bbolt
	// takes a sorted run into one large transaction in linear time.
	type kv struct{ key, record []byte }
	var writes []kv
	for _, r := range rows {
		key := make(composite.Tuple, len(keyCols))
		for j, k := range keyCols {
			v := r.fields[k]
			if v == "" {
				return fmt.Errorf("%s: line %d: empty key column %q (nothing imported)", name, r.line, k)
			}
			key[j] = v
			if schema[j].Kind == composite.KindInt {
				key[j], _ = strconv.ParseInt(v, 10, 64)
			}
		}
		packed, err := table.Key(key)
		if err != nil {
			return fmt.Errorf("%s: line %d: %w (nothing imported)", name, r.line, err)
		}
		record, _ := json.Marshal(r.fields)
		writes = append(writes, kv{packed, record})
	}
	slices.SortStableFunc(writes, func(a, b kv) int { return bytes.Compare(a.key, b.key) })
	bar := newBar(c, len(writes), "importing")
	err = s.Update(func(tx keyspace.Tx) error {
		if err := saveSchema(tx, table.Name(), schema); err != nil {
			return err
		}
		for i, w := range writes {
			if i%65536 == 0 {
				if err := c.Context.Err(); err != nil {
					return fmt.Errorf("interrupted: %w (nothing imported)", err)
				}
				bar.Set(i)
			}
			if err := tx.Put(w.key, w.record); err != nil {
				return err
			}
		}
		return nil
	})
	bar.Finish()
	if err != nil {
		return err
	}
	fmt.Fprintf(c.App.ErrWriter, "imported %d rows into table %s keyed %s\n", len(rows), table.Name(), strings.Join(keyCols, ":"))
	return nil
}

func isPlainInt(s string) bool {
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return false
	}
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}

func saveSchema(tx keyspace.Tx, table string, schema composite.Schema) error {
	var cols []schemaColumn
	for _, col := range schema {
		cols = append(cols, schemaColumn{col.Name, col.Kind.String()})
	}
	b, _ := json.Marshal(cols)
	return tx.Put(catalogKey(table), b)
}

// loadTable returns a table with the schema its import saved.
func loadTable(tx keyspace.Tx, name string) (*composite.Table, error) {
	b, err := tx.Get(catalogKey(name))
	if errors.Is(err, keyspace.ErrNotFound) {
		return nil, fmt.Errorf("unknown table %q (import it first; see keyspace stats)", name)
	}
	if err != nil {
		return nil, err
	}
	var cols []schemaColumn
	if err := json.Unmarshal(b, &cols); err != nil {
		return nil, fmt.Errorf("table %s: corrupt schema: %w", name, err)
	}
	schema := make(composite.Schema, len(cols))
	for i, col := range cols {
		k, err := composite.ParseKind(col.Kind)
		if err != nil {
			return nil, fmt.Errorf("table %s: corrupt schema: %w", name, err)
		}
		schema[i] = composite.Column{Name: col.Name, Kind: k}
	}
	return composite.NewTable(name, schema), nil
}

func tableScan(c *ucli.Context) error {
	format, err := output(c, "table", "json", "ndjson")
	if err != nil {
		return err
	}
	s, err := openRead(c)
	if err != nil {
		return err
	}
	defer s.Close()
	return s.View(func(tx keyspace.Tx) error {
		t, err := loadTable(tx, c.String("table"))
		if err != nil {
			return err
		}
		r := t.Subspace().Range()
		if q := c.Args().First(); q != "" && q != "*" {
			if r, err = t.Query(q); err != nil {
				return usageError{err}
			}
		}
		page, err := t.Scan(tx, r, composite.ScanOptions{Reverse: c.Bool("reverse"), Limit: c.Int("limit"), Cursor: c.String("cursor")})
		if err != nil {
			return err
		}
		type jsonRow struct {
			Key    string          `json:"key"`
			Record json.RawMessage `json:"record"`
		}
		var out []jsonRow
		for _, row := range page.Rows {
			out = append(out, jsonRow{formatScope(row.Key), payloadJSON(row.Record)})
		}
		switch format {
		case "json":
			enc := json.NewEncoder(c.App.Writer)
			enc.SetIndent("", "  ")
			return enc.Encode(struct {
				Rows []jsonRow `json:"rows"`
				Next string    `json:"next,omitempty"`
			}{append([]jsonRow{}, out...), page.Next})
		case "ndjson":
			enc := json.NewEncoder(c.App.Writer)
			for _, r := range out {
				if err := enc.Encode(r); err != nil {
					return err
				}
			}
			return nil
		}
		tw := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "KEY\tRECORD")
		for _, r := range out {
			fmt.Fprintf(tw, "%s\t%s\n", r.Key, r.Record)
		}
		tw.Flush()
		if page.Next != "" {
			fmt.Fprintf(c.App.Writer, "next page: --cursor %s\n", page.Next)
		}
		return nil
	})
}

func tableCount(c *ucli.Context) error {
	format, err := output(c, "table", "json")
	if err != nil {
		return err
	}
	s, err := openRead(c)
	if err != nil {
		return err
	}
	defer s.Close()
	return s.View(func(tx keyspace.Tx) error {
		t, err := loadTable(tx, c.String("table"))
		if err != nil {
			return err
		}
		var prefix composite.Tuple
		if p := c.Args().First(); p != "" {
			n := strings.Count(p, ":") + 1 // a first guess, refined by the parser
			if n > len(t.Schema()) {
				return usagef("prefix %q has more parts than the key's %d columns", p, len(t.Schema()))
			}
			if prefix, err = composite.ParseText(p, t.Schema()[:n]); err != nil {
				return usageError{err}
			}
		}
		depth := c.Int("depth")
		if depth < len(prefix) || depth > len(t.Schema()) {
			return usagef("--depth %d: want %d to %d", depth, len(prefix), len(t.Schema()))
		}
		groups, err := t.Count(tx, prefix, depth)
		if err != nil {
			return err
		}
		if format == "json" {
			out := map[string]int{}
			for _, g := range groups {
				out[formatScope(g.Group)] = g.Count
			}
			enc := json.NewEncoder(c.App.Writer)
			enc.SetIndent("", "  ")
			return enc.Encode(out)
		}
		tw := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "GROUP\tROWS")
		for _, g := range groups {
			fmt.Fprintf(tw, "%s\t%d\n", formatScope(g.Group), g.Count)
		}
		return tw.Flush()
	})
}
