package cli

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/indextable"
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
		Usage: "composite keys: import rows under keys like Country:State:City:id (--ttl to expire them), scan by prefix, get by key, set fields of a row, count groups, info; del, expire, persist, sweep, repair, drop",
		Subcommands: []*ucli.Command{
			{
				Name: "import", Usage: "import a CSV or TSV (with a header, or --columns), NDJSON, JSON or XML keyed by some of its columns; all or nothing",
				UsageText: "keyspace table import --table cities --key-cols country_code,state_code,name,id cities.csv\n" +
					"keyspace table scan --table orders --output ndjson | keyspace --db copy.db table import --table orders --key-cols id --format ndjson -",
				ArgsUsage: "FILE|-",
				Flags: append([]ucli.Flag{tableFlag(),
					&ucli.StringFlag{Name: "key-cols", Required: true, Usage: "the key `COLUMNS`, comma-separated, most significant first"},
					&ucli.StringFlag{Name: "record-cols", Usage: "keep only these `COLUMNS` (comma-separated) in each row's record, beside the key columns", DefaultText: "every column"},
					typedFlag(),
					rowTTLFlag()}, recordFileFlags()...),
				Action: tableImport,
			},
			{
				Name: "scan", Usage: "rows whose key matches a query: 'CA:*', 'CA:San Fran*', 'US:CA:Fresno:42'; --where reads through an index where one serves (--explain)",
				UsageText: "keyspace table scan --table cities 'US:CA:San*' --limit 20\n" +
					"keyspace table scan --table messages u42 --from 1700000000 --to 1700086400   # the key column after u42 (keyed user,ts) from one value to before another",
				ArgsUsage: "[QUERY]",
				Flags: slices.Concat([]ucli.Flag{tableFlag(),
					&ucli.BoolFlag{Name: "reverse", Usage: "descending key order"},
					&ucli.IntFlag{Name: "limit", Aliases: []string{"n"}, Usage: "at most `N` rows per page", DefaultText: "all"},
					&ucli.StringFlag{Name: "cursor", Usage: "continue from a previous page's `TOKEN`"},
					whereFlagOf("rows whose field"), whereInFlagOf("rows whose field"),
					&ucli.BoolFlag{Name: "explain", Usage: "print to stderr how the rows were read: through the index with the fewest entries of those whose leading fields --where (=) or --where-in fix to text or a number condition narrows, or the table's rows (under the key columns = fixes, and within the number range conditions give the integer key column after them), and how many were read"},
					&ucli.BoolFlag{Name: "no-index", Usage: "read the table's rows even where an index could serve --where"},
					fieldsFlag("row's record")},
					boundFlagsOf("the key column after QUERY's whole columns (the first, with no QUERY) starts at `V` (a value of its kind: table info lists them)")),
				Action: tableScan,
			},
			{
				Name: "get", Usage: "rows by their whole keys (Redis's GET, MGET), in the order given",
				UsageText: "keyspace table get --table cities 'US:CA:San Francisco:125809'",
				ArgsUsage: "KEY...",
				Flags:     []ucli.Flag{tableFlag(), fieldsFlag("row's record")},
				Action:    tableGet,
			},
			tableCountCommand(),
			{
				Name: "del", Usage: "delete rows by their whole key, or every row --where holds for, with their index entries; all or none",
				UsageText: "keyspace table del --table cities 'US:CA:Fresno:42' 'US:CA:Fresno:43'\n" +
					"keyspace table del --table orders --where status=cancelled --where 'qty<1'",
				ArgsUsage: "KEY...",
				Flags: []ucli.Flag{tableFlag(),
					&ucli.StringSliceFlag{Name: "where", Usage: "instead of KEYs, every row whose `FIELD<OP>VALUE` holds (status=cancelled, qty<1; repeat it: all must hold), found as table scan --where finds them, through an index where one serves (MongoDB's deleteMany)"},
					&ucli.StringSliceFlag{Name: "where-in", Usage: "instead of KEYs, every row whose FIELD is one of `FIELD=VALUE,VALUE…` (with every --where)"}},
				Action: tableDelete,
			},
			tableSetCommand(),
			tableIncrCommand(),
			tableExpiry().expire(),
			tableExpiry().persist(),
			tableSweepCommand(),
			repairCommand("table", tableFlag(), "make a table's expiry entries what its rows imply (its indexes: keyspace index repair)",
				"keyspace table repair --table sessions", func(name string) repairer {
					return func(tx keyspace.Tx) ([]string, error) {
						t, _, err := openTable(tx, name)
						if err != nil {
							return nil, err
						}
						problems, err := t.Repair(tx)
						return problemStrings(problems), err
					}
				}),
			dropCommand("table", "record", tableFlag(), "keyspace table drop --table cities", dropTable),
			{
				Name: "info", Usage: "a table's key columns and their kinds, its rows (and how many expire) and its indexes (SQL's \\d)",
				UsageText: "keyspace table info --table cities --output json",
				Flags:     []ucli.Flag{tableFlag()},
				Action:    tableInfoAction,
			},
			renameCommand("table", tableFlag(), "keyspace table rename --table cities towns", renameTable),
		},
	}
}

func tableImport(c *ucli.Context) error {
	rows, bad, err := recordRows(c)
	if err != nil {
		return err
	}
	name := bad.name
	for i := range rows {
		rows[i].unwrapRecord()
	}
	expires, err := expiresFromTTL(c)
	if err != nil {
		return err
	}
	keyCols := strings.Split(c.String("key-cols"), ",")
	typed := c.Bool("typed")
	for _, k := range keyCols {
		if len(rows) > 0 && !anyRowHas(rows, k) {
			return fmt.Errorf("%s: no key column %q in the header%s", name, k, rowsHint(rows, k))
		}
	}
	var keep []string // --record-cols, and the key columns beside them
	if cols := c.String("record-cols"); cols != "" {
		keep = append(strings.Split(cols, ","), keyCols...)
		for _, k := range keep {
			if len(rows) > 0 && !anyRowHas(rows, k) {
				return fmt.Errorf("%s: no column %q (--record-cols) in the header%s", name, k, rowsHint(rows, k))
			}
		}
	}
	// A key column is an integer if every value is one (without a leading
	// zero, so ZIP codes stay strings); otherwise a string. Empty values
	// are bad rows, and say nothing of the kind.
	schema := make(composite.Schema, len(keyCols))
	for i, k := range keyCols {
		schema[i] = composite.Column{Name: k, Kind: composite.KindInt}
		for _, r := range rows {
			if v := r.get(k); v != "" && !isPlainInt(v) {
				schema[i].Kind = composite.KindString
				break
			}
		}
	}
	s, err := openWrite(c)
	if err != nil {
		return err
	}
	defer s.Close()
	bar := newBar(c, len(rows), "importing")
	imported := 0
	err = s.UpdateContext(c.Context, func(tx keyspace.Tx) error {
		// A table imported before keeps its key: rows keyed by other
		// columns, or an integer column filled with text, would sit
		// beside the old rows under a schema that no longer reads them.
		table, saved, err := openTable(tx, c.String("table"))
		switch {
		case err == nil:
			if err := sameKey(saved, keyCols); err != nil {
				return fmt.Errorf("%s: table %s %w", name, c.String("table"), err)
			}
			schema = saved
		case errors.Is(err, errUnknownTable):
			if err := saveSchema(tx, c.String("table"), schema); err != nil {
				return err
			}
			if table, _, err = openTable(tx, c.String("table")); err != nil {
				return err
			}
		default:
			return err
		}
		batch := make([]indextable.Row[record], 0, len(rows))
		firstAt := make(map[string]string, len(rows)) // where each key was first read
		for _, r := range rows {
			rec, err := importedRecord(r, keep, keyCols, typed)
			var key composite.Tuple
			if err == nil || r.bad != nil { // why the reader could not read it comes first
				key, err = rowKey(r, keyCols, schema, firstAt)
			}
			row := indextable.Row[record]{Key: key, Value: rec, Expires: expires}
			if err == nil && r.expires != "" && expires.IsZero() { // an export's row that expires; --ttl overrides it
				row.Expires, err = parseExpiry(r.expires, "")
			}
			if err == nil {
				err = table.Validate(row) // what the table refuses: keys too long, of the record or an index entry
			}
			if err != nil {
				if err := bad.add(r.where(), err); err != nil {
					return err
				}
				continue
			}
			batch = append(batch, row)
		}
		imported = len(batch)
		// One PutAll: indexes kept in step, one sorted run of writes.
		if err := table.PutAll(tx, batch); err != nil {
			return err
		}
		bar.Set(len(rows))
		return nil
	})
	err = stoppedUpdate(err, "nothing imported")
	bar.Finish()
	if err != nil {
		return err
	}
	reportImport(c, count(imported, "row"), fmt.Sprintf("table %s keyed %s", c.String("table"), strings.Join(keyCols, ":")), bad.rows)
	return nil
}

// importedRecord is the record table import writes for r: its columns
// (those of keep, when given), a CSV's as text unless typed (and its key
// columns always, as the key reads them), NDJSON's and JSON's with their
// JSON types, each as the table reads it back (storable).
func importedRecord(r row, keep, keyCols []string, typed bool) (record, error) {
	rec := record{}
	for k := range r.names() {
		if keep != nil && !slices.Contains(keep, k) {
			continue
		}
		v := r.value(k, typed && !slices.Contains(keyCols, k))
		if err := storable(v); err != nil {
			return nil, fmt.Errorf("field %q: %w", k, err)
		}
		rec[k] = v
	}
	return rec, nil
}

// storable checks an imported value for a number past a float64's range
// (1e999), in objects and arrays too: an error naming it, not a row whose
// field neither a condition nor an index could read as a number. Numbers
// are stored as written, every digit kept (jsonnumber.go): a read gives
// back the json.Number the import wrote, so the index entries written
// with the row are those a read of it computes.
func storable(v any) error {
	switch v := v.(type) {
	case json.Number:
		if _, err := v.Float64(); err != nil {
			return fmt.Errorf("%s is past a float64's range, which a table's record holds numbers in", v)
		}
	case map[string]any:
		for _, e := range v {
			if err := storable(e); err != nil {
				return err
			}
		}
	case []any:
		for _, e := range v {
			if err := storable(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// rowKey is r's primary key under the table's schema, or why r has none:
// why the reader could not read it (row.bad), an empty key column, text in an integer column, a key too deep to pack,
// or a key an earlier row has (firstAt, which rowKey fills). A repeated key
// would overwrite the earlier row and leave one record where the file has
// two: key columns that do not name each row once (cities by name alone)
// would lose rows silently.
func rowKey(r row, keyCols []string, schema composite.Schema, firstAt map[string]string) (composite.Tuple, error) {
	if r.bad != nil {
		return nil, r.bad
	}
	key := make(composite.Tuple, len(keyCols))
	for j, k := range keyCols {
		v := r.get(k)
		if v == "" {
			return nil, fmt.Errorf("empty key column %q", k)
		}
		key[j] = v
		if schema[j].Kind == composite.KindInt {
			if !isPlainInt(v) {
				return nil, fmt.Errorf("key column %q is %q, not an integer like the table's other keys", k, v)
			}
			key[j], _ = strconv.ParseInt(v, 10, 64)
		}
	}
	packed, err := key.TryPack()
	if err != nil {
		return nil, err
	}
	if first, seen := firstAt[string(packed)]; seen {
		return nil, fmt.Errorf("key %s repeats %s; choose key columns that name each row once", keyText(key, schema), first)
	}
	firstAt[string(packed)] = r.where()
	return key, nil
}

// keyText writes a table's key (or a prefix of it) as its queries read
// it, with the table's schema: the state code "11" is 11, where the text
// form without a schema writes \11 to keep it from reading as a number.
func keyText(key composite.Tuple, schema composite.Schema) string {
	if s, err := schema.Format(key); err == nil {
		return s
	}
	return formatScope(key) // not of the schema: the form that says each part's kind
}

func isPlainInt(s string) bool {
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return false
	}
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}

// errUnknownTable is openTable's error for a name with no saved schema.
var errUnknownTable = errors.New("unknown table")

// sameKey is an error unless keyCols are the saved schema's columns, in
// order.
func sameKey(saved composite.Schema, keyCols []string) error {
	names := make([]string, len(saved))
	for i, col := range saved {
		names[i] = col.Name
	}
	if !slices.Equal(names, keyCols) {
		return fmt.Errorf("is keyed %s, not %s: import it with --key-cols %s, or drop it first (keyspace table drop)",
			strings.Join(names, ":"), strings.Join(keyCols, ":"), strings.Join(names, ","))
	}
	return nil
}

func saveSchema(tx keyspace.Tx, table string, schema composite.Schema) error {
	var cols []schemaColumn
	for _, col := range schema {
		cols = append(cols, schemaColumn{col.Name, col.Kind.String()})
	}
	b, _ := marshal(cols)
	return tx.Put(catalogKey(table), b)
}

// record is a command-line table's record: the CSV row's fields.
type record = map[string]any

// openTable returns a table with the key schema its import saved and the
// indexes created on it (see index.go).
func openTable(tx keyspace.Tx, name string) (*indextable.Table[record], composite.Schema, error) {
	b, err := tx.Get(catalogKey(name))
	if errors.Is(err, keyspace.ErrNotFound) {
		return nil, nil, fmt.Errorf("%w %q (import it first; see keyspace stats)%s", errUnknownTable, name, didYouMeanIn(tx, name, tableNames))
	}
	if err != nil {
		return nil, nil, err
	}
	var cols []schemaColumn
	if err := json.Unmarshal(b, &cols); err != nil {
		return nil, nil, fmt.Errorf("table %s: corrupt schema: %w", name, err)
	}
	schema := make(composite.Schema, len(cols))
	for i, col := range cols {
		k, err := composite.ParseKind(col.Kind)
		if err != nil {
			return nil, nil, fmt.Errorf("table %s: corrupt schema: %w", name, err)
		}
		schema[i] = composite.Column{Name: col.Name, Kind: k}
	}
	t := indextable.New[record](name, &indextable.Options{Codec: recordCodec{}})
	specs, err := loadIndexSpecs(tx, name)
	if err != nil {
		return nil, nil, err
	}
	for _, spec := range specs {
		if _, err := t.AddIndex(spec.indexSpec()); err != nil {
			return nil, nil, err
		}
	}
	return t, schema, nil
}

// viewTable runs fn in a read transaction on the table --table names.
func viewTable(c *ucli.Context, fn func(tx keyspace.Tx, t *indextable.Table[record], schema composite.Schema) error) error {
	return viewDB(c, func(tx keyspace.Tx) error {
		t, schema, err := openTable(tx, c.String("table"))
		if err != nil {
			return err
		}
		return fn(tx, t, schema)
	})
}

func tableScan(c *ucli.Context) error {
	format, err := output(c, "table", "json", "ndjson", "count")
	if err != nil {
		return err
	}
	if _, err := fieldsOf(c); err != nil { // before reading, not after (writeRows)
		return err
	}
	conds, err := parseWhere(c)
	if err != nil {
		return err
	}
	watch, keep := watchFields(conds)
	return viewTable(c, func(tx keyspace.Tx, t *indextable.Table[record], schema composite.Schema) error {
		r := t.Range()
		var prefix composite.Tuple // the query's leading whole columns
		bounded := c.IsSet("from") || c.IsSet("to")
		if q := c.Args().First(); q != "" && q != "*" {
			pq, err := composite.ParseQuery(q, schema)
			if err != nil {
				return usageError{err}
			}
			if pq.Exact && len(pq.Prefix) < len(schema) && !bounded { // no row's key is that short
				return usagef("%q has %d of the table's %d key columns (%s), so it names no row; %q scans the rows under it",
					q, len(pq.Prefix), len(schema), keyColumns(schema), underQuery(q))
			}
			r, prefix = pq.Range(t.Records()), pq.Prefix
			if bounded && pq.Partial != nil {
				return usagef("--from and --to bound the key column after QUERY's whole columns, and %q ends in part of one", q)
			}
		}
		if bounded { // the column after the query's
			if len(prefix) >= len(schema) {
				return usagef("--from and --to bound the key column after QUERY's, and QUERY names all %d (%s)", len(schema), keyColumns(schema))
			}
			from, to, err := boundsOf(c, schema[len(prefix)])
			if err != nil {
				return err
			}
			r = t.Between(prefix, from, to)
			noteBoundsCrossed(c, r, schema[len(prefix)])
		}
		query := c.Args().First()
		if (query == "" || query == "*") && !bounded {
			var numbers string // the number conditions that bound the next key column
			if r, prefix, numbers = keyNarrowed(t, schema, conds); prefix != nil {
				query = underQuery(keyText(prefix, schema[:len(prefix)]))
			}
			if numbers != "" {
				query = strings.TrimSpace(query + " where " + numbers)
			}
		}
		var plan scanPlan
		if !c.Bool("no-index") {
			if plan, err = planScan(tx, t, conds, c.StringSlice("where"), c.StringSlice("where-in"), c.Int("limit")); err != nil {
				return err
			}
		}
		page, read, err := plan.scan(tx, t, r, prefix, c.Bool("reverse"), c.Int("limit"), c.String("cursor"), keep, c.Bool("explain"))
		if err != nil {
			return err
		}
		if c.Bool("explain") {
			what := "row"
			if plan.ix != nil {
				what = "entry"
			}
			fmt.Fprintf(c.App.ErrWriter, "%s: %s read, %s kept\n", plan.explain(query, keep != nil), count(read, what), count(len(page.records), "row"))
		}
		if len(page.records) == 0 {
			noteMissingFields(c, watch)
		}
		if format == "count" { // how many rows (of the page, with --limit), as geo's --output count
			writeNextPage(c.App.ErrWriter, page.next)
			_, err := fmt.Fprintln(c.App.Writer, len(page.records))
			return err
		}
		var out []jsonRow
		for _, rec := range page.records {
			out = append(out, rowOf(rec, schema))
		}
		return writeRows(c, format, out, page.next)
	})
}

// underQuery is the query for the rows under the key text q: US:* for
// US or US: (a colon at the end starts an empty column, which a user
// seldom means), but US\::* for US\:, whose colon is text.
func underQuery(q string) string {
	if strings.HasSuffix(q, ":") {
		backslashes := len(q) - 1 - len(strings.TrimRight(q[:len(q)-1], "\\"))
		if backslashes%2 == 0 {
			return q + "*"
		}
	}
	return q + ":*"
}

// tableDelete deletes the rows named by their whole keys, and their index
// entries, in one transaction: a key with no row deletes none of them.
func tableDelete(c *ucli.Context) error {
	if c.IsSet("where") || c.IsSet("where-in") {
		return tableDeleteWhere(c)
	}
	return eachRow(c, "deleted", func(t *indextable.Table[record], tx keyspace.Tx, key composite.Tuple) error {
		return t.Delete(tx, key)
	})
}

// keyNarrowed is the range of the rows a --where with no key query can
// hold for, and the leading key columns it fixes (nil when it fixes
// none): = conditions whose values are text (no number, neither true nor
// false: plainText) on the table's first columns, while they are string
// columns; then, when the next column holds integers, the number
// conditions on it (<, <=, >, >=, = a number, --where-in numbers:
// numberRanges) bound it. A row's key columns are its fields' text (an
// import keys a row by them, table set's new rows hold their key as
// text, and table set refuses to change one), so a row whose
// country_code field is NO lies under the key NO: --where
// country_code=NO on a table keyed country_code,state_code,name,id
// reads the rows the query NO:* reads, not all of them, and --where
// user=u42 --where 'ts>=100' on a table keyed user,ts only those of u42
// from 100 on. The conditions still test every row, so a bound need only
// hold every row they keep: a field's number is a float64, which rounds
// a whole number past 2^53, and the integers are read as wholeBounds
// widens them. bounded is the number conditions that bound the range, as
// --explain prints them ("" for none).
func keyNarrowed(t *indextable.Table[record], schema composite.Schema, conds []condition) (r keyspace.Range, fixed composite.Tuple, bounded string) {
	for _, col := range schema {
		i := slices.IndexFunc(conds, func(cond condition) bool {
			return cond.field == col.Name && cond.op == "=" && plainText(cond.value)
		})
		if col.Kind != composite.KindString || i < 0 {
			break
		}
		fixed = append(fixed, conds[i].value)
	}
	r = t.RangeOf(fixed)
	if len(fixed) == len(schema) || schema[len(fixed)].Kind != composite.KindInt {
		return r, fixed, ""
	}
	nr := numberRanges(conds)[schema[len(fixed)].Name]
	if nr == nil {
		return r, fixed, ""
	}
	from, to, ok := wholeBounds(nr.lo, nr.hi)
	for _, cond := range conds { // < 100 ends at 99, > 100 starts at 101
		if n := cond.number; cond.field == schema[len(fixed)].Name && n == math.Trunc(n) && math.Abs(n) < maxExact {
			switch cond.op {
			case "<":
				to = min(to, int64(n)-1)
			case ">":
				from = max(from, int64(n)+1)
			}
		}
	}
	ok = ok && from <= to
	if !ok { // no integer: no row
		return keyspace.Range{Start: r.Start, End: r.Start}, fixed, strings.Join(nr.text, ", ")
	}
	var lo, hi composite.Tuple
	if from != math.MinInt64 {
		lo = composite.Tuple{from}
	}
	if to != math.MaxInt64 {
		hi = composite.Tuple{to + 1}
	}
	return t.Between(fixed, lo, hi), fixed, strings.Join(nr.text, ", ")
}

// rowsWhere returns the rows in r (a key query's range, whose leading
// whole columns are prefix) that c's --where and --where-in, read as
// conds, keep, in key order, read as table scan reads them: through an
// index where one serves, unless --no-index is given.
func rowsWhere(c *ucli.Context, tx keyspace.Tx, t *indextable.Table[record], r keyspace.Range, prefix composite.Tuple, conds []condition) ([]indextable.Record[record], error) {
	var plan scanPlan
	if !c.Bool("no-index") { // table count's
		var err error
		if plan, err = planScan(tx, t, conds, c.StringSlice("where"), c.StringSlice("where-in"), 0); err != nil {
			return nil, err
		}
	}
	watch, keep := watchFields(conds)
	page, _, err := plan.scan(tx, t, r, prefix, false, 0, "", keep, false)
	if err == nil && len(page.records) == 0 {
		noteMissingFields(c, watch)
	}
	return page.records, err
}

// noteMissingFields says on stderr which --where fields no row a scan
// tested had, when it kept none (fieldWatch).
func noteMissingFields(c *ucli.Context, watch *fieldWatch) {
	if note := watch.missing(); note != "" {
		addNote(c, "%s", note)
	}
}

// tableDeleteWhere is table del --where (MongoDB's deleteMany, SQL's
// DELETE … WHERE): the rows the conditions hold for, found as table scan
// finds them (through an index where one serves), deleted with their
// index entries in one transaction. It says how many on stderr, as geo
// del --match does.
func tableDeleteWhere(c *ucli.Context) error {
	if c.NArg() > 0 {
		return usagef("table del takes KEYs or --where, not both")
	}
	conds, err := parseWhere(c)
	if err != nil {
		return err
	}
	deleted := 0
	err = updateDB(c, func(tx keyspace.Tx) error {
		t, schema, err := openTable(tx, c.String("table"))
		if err != nil {
			return err
		}
		r, prefix, _ := keyNarrowed(t, schema, conds)
		records, err := rowsWhere(c, tx, t, r, prefix, conds)
		if err != nil {
			return err
		}
		for _, rec := range records {
			if err := t.Delete(tx, rec.Key); err != nil {
				return err
			}
		}
		deleted = len(records)
		return nil
	})
	if err == nil {
		fmt.Fprintf(c.App.ErrWriter, "deleted %s where %s\n", count(deleted, "row"), conditionsText(c.StringSlice("where"), c.StringSlice("where-in")))
	}
	return err
}

// eachRow runs fn on each row the arguments name by whole key, in one
// transaction: a key with no row (or one that has expired) is an error
// and nothing is done ("nothing deleted").
func eachRow(c *ucli.Context, done string, fn func(t *indextable.Table[record], tx keyspace.Tx, key composite.Tuple) error) error {
	if c.NArg() == 0 {
		return usagef("%s wants at least one KEY", commandName(c))
	}
	return updateDB(c, func(tx keyspace.Tx) error {
		t, schema, err := openTable(tx, c.String("table"))
		if err != nil {
			return err
		}
		for _, text := range c.Args().Slice() {
			key, err := wholeKey(text, schema)
			if err != nil {
				return err
			}
			if _, err := t.Get(tx, key); err != nil {
				if errors.Is(err, keyspace.ErrNotFound) {
					return fmt.Errorf("table %s has no row %s (nothing %s)", c.String("table"), keyText(key, schema), done)
				}
				return err
			}
			if err := fn(t, tx, key); err != nil {
				return err
			}
		}
		return nil
	})
}

// wholeKey reads a row's whole key, as its table's schema types it.
func wholeKey(text string, schema composite.Schema) (composite.Tuple, error) {
	key, err := composite.ParseText(text, schema)
	if err != nil {
		return nil, usageError{fmt.Errorf("key %q: %w", text, err)}
	}
	if len(key) != len(schema) {
		return nil, usagef("key %q has %d of the table's %d key columns (%s); give the whole key", text, len(key), len(schema), keyColumns(schema))
	}
	return key, nil
}

// tableGet prints the rows named by their whole keys, in the order given
// (Redis's GET and MGET): a key with no row is an error, after which
// nothing is printed.
func tableGet(c *ucli.Context) error {
	if c.NArg() == 0 {
		return usagef("table get wants at least one KEY")
	}
	format, err := output(c, "table", "json", "ndjson")
	if err != nil {
		return err
	}
	if _, err := fieldsOf(c); err != nil { // before reading, not after (writeRows)
		return err
	}
	return viewTable(c, func(tx keyspace.Tx, t *indextable.Table[record], schema composite.Schema) error {
		var rows []jsonRow
		for _, text := range c.Args().Slice() {
			key, err := wholeKey(text, schema)
			if err != nil {
				return err
			}
			rec, err := t.Get(tx, key)
			if errors.Is(err, keyspace.ErrNotFound) {
				return fmt.Errorf("table %s has no row %s", c.String("table"), keyText(key, schema))
			}
			if err != nil {
				return err
			}
			rows = append(rows, rowOf(rec, schema))
		}
		return writeRows(c, format, rows, "")
	})
}

// jsonRow is a table row as listings print it.
type jsonRow struct {
	Key     string `json:"key"`
	Expires string `json:"expires,omitempty"` // RFC 3339 to the nanosecond, UTC
	Record  any    `json:"record"`            // a record, or the fields --fields names of it (projectRecord)
}

func rowOf(rec indextable.Record[record], schema composite.Schema) jsonRow {
	return jsonRow{Key: keyText(rec.Key, schema), Expires: exactExpires(rec.Expires), Record: rec.Value}
}

// writeRows prints table rows, and the next page's cursor if any; an
// EXPIRES column when some row expires.
func writeRows(c *ucli.Context, format string, rows []jsonRow, next string) error {
	fields, err := fieldsOf(c)
	if err != nil {
		return err
	}
	if fields != nil {
		for i := range rows {
			rows[i].Record = projectRecord(rows[i].Record.(record), fields)
		}
	}
	expiring := slices.ContainsFunc(rows, func(r jsonRow) bool { return r.Expires != "" })
	header := "KEY\tRECORD"
	if expiring {
		header = "KEY\tEXPIRES\tRECORD"
	}
	return writeListing(c.App.Writer, c.App.ErrWriter, format, "rows", rows, next, header, func(r jsonRow) string {
		b, _ := marshal(r.Record)
		if expiring {
			at, _ := time.Parse(time.RFC3339Nano, r.Expires)
			return r.Key + "\t" + cmp.Or(formatExpires(at), "never") + "\t" + string(b)
		}
		return r.Key + "\t" + string(b)
	})
}

// keyColumns names a schema's columns as the key is written: state:city:id.
func keyColumns(schema composite.Schema) string {
	names := make([]string, len(schema))
	for i, col := range schema {
		names[i] = col.Name
	}
	return strings.Join(names, ":")
}

// recordPage is a page of records and the next cursor.
type recordPage struct {
	records []indextable.Record[record]
	next    string
}

// scanPage reads one page of records in r, with a cursor for the next.
// scanPage reads a page of up to limit records of r (all for 0) after
// cursor, of those keep keeps (all when keep is nil), and the next page's
// cursor.
func scanPage(tx keyspace.Tx, t *indextable.Table[record], r keyspace.Range, reverse bool, limit int, cursor string, keep func(record) bool) (recordPage, error) {
	if limit < 0 {
		return recordPage{}, usagef("--limit %d: must be positive", limit)
	}
	r.Reverse = reverse
	rr, err := r.Resume(cursor)
	if err != nil {
		return recordPage{}, usageError{err}
	}
	if limit > 0 && keep == nil {
		rr.Limit = limit + 1 // a key a record: one more says whether a next page starts
	}
	var p recordPage
	var last []byte
	err = t.Scan(tx, rr, func(rec indextable.Record[record]) bool {
		if keep != nil && !keep(rec.Value) {
			return true
		}
		if limit > 0 && len(p.records) == limit {
			p.next = r.Cursor(last)
			return false
		}
		p.records = append(p.records, rec)
		last = append(append(last[:0], t.Records().Bytes()...), rec.Key.Pack()...)
		return true
	})
	return p, err
}
