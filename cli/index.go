package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/indextable"
	ucli "github.com/urfave/cli/v2"
)

// indexDef is an index the command line created, kept in the catalog at
// ("meta", "index", table, name): record fields (dotted paths; a leading
// "-" makes the component descending; an array field makes the index
// multikey), uniqueness, covered fields and the conditions of a partial
// index.
type indexDef struct {
	Name   string   `json:"name"`
	Fields []string `json:"fields"`
	Unique bool     `json:"unique,omitempty"`
	Cover  []string `json:"cover,omitempty"`
	// Where and WhereIn make the index partial: only the records whose
	// fields meet every condition, written as a query's --where and
	// --where-in take them, have entries (MongoDB's partial indexes, the
	// Record Layer's filtered ones). A unique partial index refuses a
	// repeated value among those records only.
	Where   []string `json:"where,omitempty"`
	WhereIn []string `json:"where_in,omitempty"`
	// Numbers is how the index keeps numbers: "ordered" (every index
	// created since session 48) keeps every number of up to 2^53 as a
	// float64, so numbers sort as numbers whatever their form (7, "7.0",
	// 7.5, "8"), and a VALUE, --from or --to given as 7 finds them all;
	// "" (an index created before) keeps whole numbers as int64s and the
	// others as float64s, every whole number before every other (typed).
	Numbers string `json:"numbers,omitempty"`

	keep func(map[string]any) bool // the conditions' test; nil for none
}

// orderedNumbers is indexDef.Numbers for an index that keeps its numbers
// in order.
const orderedNumbers = "ordered"

// parseConditions reads d's conditions into d.keep; bad ones are an error
// (a usage error, from parseConditions).
func (d *indexDef) parseConditions() error {
	conds, err := parseConditions(d.Where, d.WhereIn)
	d.keep = recordFilter(conds)
	return err
}

// conditions are d's conditions as text (conditionsText).
func (d indexDef) conditions() string { return conditionsText(d.Where, d.WhereIn) }

// conditionsText is conditions as --where and --where-in give them, as
// text, "-" for none: status=open and city in Oslo,Lima.
func conditionsText(where, whereIn []string) string {
	texts := slices.Clone(where)
	for _, w := range whereIn {
		field, values, _ := strings.Cut(w, "=")
		texts = append(texts, field+" in "+values)
	}
	return orDash(strings.Join(texts, " and "))
}

// orderedIndexFormat is the keyspace.FormatVersion of a catalog that
// holds an index whose numbers are ordered (indexDef.Numbers); a partial
// index needed 7.
const orderedIndexFormat = 8

func indexKey(table, name string) []byte { return composite.Tuple{"meta", "index", table, name}.Pack() }

func loadIndexSpecs(tx keyspace.Tx, table string) ([]indexDef, error) {
	var out []indexDef
	sub := composite.NewSubspace("meta", "index", table)
	for _, v := range tx.Scan(sub.Range()) {
		var d indexDef
		if err := json.Unmarshal(v, &d); err != nil {
			return nil, fmt.Errorf("table %s: corrupt index definition: %w", table, err)
		}
		if err := d.parseConditions(); err != nil {
			return nil, fmt.Errorf("table %s: corrupt index definition of %s: %w", table, d.Name, err)
		}
		out = append(out, d)
	}
	return out, tx.Err()
}

// field reads a field of a record: the one named path when the record
// has it (a field an --each import lent, ".states.name"), else the
// dotted path through its objects and arrays ("address.city", "tags.0").
func field(r record, path string) any {
	if v, ok := r[path]; ok {
		return v
	}
	v, _ := pathValue(r, path)
	return v
}

// typed turns a field into a tuple element: numbers from CSV text become
// numbers (so 9 sorts before 10), the rest stay strings. With ordered
// set (indexDef.Numbers), a number is then made one of a single kind
// (orderNumber).
func typed(v any, ordered bool) (any, bool) {
	x, ok := typedByKind(v)
	if ordered {
		x = orderNumber(x)
	}
	return x, ok
}

// maxExact is the largest magnitude up to which every whole number is a
// float64 exactly.
const maxExact = 1 << 53

// orderNumber is the element an ordered index keeps for x: a whole
// number of up to 2^53 as the float64 it equals, and −0 as 0, so that
// numbers sort by value among the float64s (the tuple encoding keeps
// int64s and float64s apart, every int64 first). A whole number past
// 2^53 stays an int64, exact, sorting before every float64: a float64
// would round it (2^53+1 to 2^53), and a unique index would take two
// such ids for one. Anything else is x.
func orderNumber(x any) any {
	switch n := x.(type) {
	case int64:
		if -maxExact <= n && n <= maxExact {
			return float64(n)
		}
	case float64:
		if n == 0 {
			return 0.0
		}
	case composite.Desc:
		return composite.Desc{V: orderNumber(n.V)}
	}
	return x
}

// typedByKind is typed for an index created before numbers were ordered.
func typedByKind(v any) (any, bool) {
	switch v := v.(type) {
	case nil:
		return nil, false
	case string:
		if n, ok := plainInteger(v); ok {
			return n, true
		}
		if f, err := strconv.ParseFloat(v, 64); err == nil && strings.ContainsAny(v, ".eE") {
			return f, true
		}
		return v, true
	case json.Number:
		return numberElement(v), true
	case float64:
		if v == float64(int64(v)) {
			return int64(v), true
		}
		return v, true
	case bool:
		return v, true
	}
	b, _ := marshal(v)
	return string(b), true
}

func (d indexDef) indexSpec() indextable.IndexSpec[record] {
	spec := indextable.IndexSpec[record]{Name: d.Name, Unique: d.Unique}
	spec.Values = func(r record) []composite.Tuple {
		if d.keep != nil && !d.keep(r) {
			return nil // left out of a partial index
		}
		out := []composite.Tuple{{}}
		for _, f := range d.Fields {
			desc := strings.HasPrefix(f, "-")
			v := field(r, strings.TrimPrefix(f, "-"))
			elems := []any{v}
			if arr, ok := v.([]any); ok { // multikey: one value per element
				elems = arr
			}
			var next []composite.Tuple
			for _, t := range out {
				for _, e := range elems {
					x, ok := typed(e, d.Numbers == orderedNumbers)
					if !ok {
						continue
					}
					if desc {
						x = composite.Desc{V: x}
					}
					next = append(next, append(append(composite.Tuple{}, t...), x))
				}
			}
			out = next
		}
		return out
	}
	if len(d.Cover) > 0 {
		spec.Cover = func(r record) any {
			c := record{}
			for _, f := range d.Cover {
				c[f] = field(r, f)
			}
			return c
		}
	}
	return spec
}

// boundFlags are --from and --to, which bound the field after an index
// read's VALUE.
func boundFlags() []ucli.Flag {
	return boundFlagsOf("the field after VALUE (the first, with none) starts at `V`, in the index's order (for a -field, the largest first)")
}

// boundFlagsOf are --from and --to, the first's usage from.
func boundFlagsOf(from string) []ucli.Flag {
	return []ucli.Flag{&ucli.StringFlag{Name: "from", Usage: from}, &ucli.StringFlag{Name: "to", Usage: "… and stops before `V`"}}
}

// boundsOf reads --from and --to as values of col (nil for a bound not
// given); a value that is not one is a usage error naming its flag.
func boundsOf(c *ucli.Context, col composite.Column) (from, to composite.Tuple, err error) {
	for _, b := range []struct {
		flag string
		into *composite.Tuple
	}{{"from", &from}, {"to", &to}} {
		if !c.IsSet(b.flag) {
			continue
		}
		t, err := composite.ParseText(c.String(b.flag), composite.Schema{col})
		if err != nil || len(t) != 1 {
			return nil, nil, usagef("--%s %q: one value of %s (%v)", b.flag, c.String(b.flag), col.Name, err)
		}
		*b.into = t
	}
	return from, to, nil
}

// noteBoundsCrossed notes why r, a read bounded by both --from and --to
// on col, holds nothing when it is empty: --from does not come before
// --to in col's order, which for a descending column is the largest
// first (--from 900 --to 500 on -pop, not --from 500 --to 900).
func noteBoundsCrossed(c *ucli.Context, r keyspace.Range, col composite.Column) {
	if !c.IsSet("from") || !c.IsSet("to") || bytes.Compare(r.Start, r.End) < 0 {
		return
	}
	order := "ascending"
	if col.Desc {
		order = "descending, the largest first"
	}
	addNote(c, "--from %q does not come before --to %q in %s's order (%s), so nothing lies between them", c.String("from"), c.String("to"), col.Name, order)
}

func indexFlags(extra ...ucli.Flag) []ucli.Flag {
	return append([]ucli.Flag{tableFlag(), &ucli.StringFlag{Name: "name", Required: true, Usage: "the index `NAME`"}}, extra...)
}

// withIndex opens the table and finds the named index.
func withIndex(tx keyspace.Tx, c *ucli.Context) (*indextable.Table[record], *indextable.Index[record], error) {
	t, _, err := openTable(tx, c.String("table"))
	if err != nil {
		return nil, nil, err
	}
	ix, err := findIndex(c, t)
	return t, ix, err
}

// findIndex finds the index --name of the opened table.
func findIndex(c *ucli.Context, t *indextable.Table[record]) (*indextable.Index[record], error) {
	var names []string
	for _, ix := range t.Indexes() {
		if ix.Name() == c.String("name") {
			return ix, nil
		}
		names = append(names, ix.Name())
	}
	return nil, fmt.Errorf("unknown index %q on table %s (see keyspace index create)%s", c.String("name"), c.String("table"), didYouMean(c.String("name"), names))
}

func indexCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "index",
		Usage: "secondary indexes on a table: create, build, lookup, scan, distinct, list, verify, repair, rename, drop",
		Subcommands: []*ucli.Command{
			{
				Name: "create", Usage: "create an index over record fields (-field for descending; array fields are multikey; --where for a partial index) and build it, in resumable batches; all or nothing, unless interrupted",
				UsageText: "keyspace index create --table cities --name by_state_name --fields state_code,-name --cover name",
				Flags: indexFlags(
					&ucli.StringFlag{Name: "fields", Required: true, Usage: "`FIELDS`, comma-separated, most significant first: -name for descending; a field named as given, else a dotted path through objects (address.city); an array field gives an entry per element"},
					&ucli.BoolFlag{Name: "unique", Usage: "refuse two records with one value"},
					&ucli.StringFlag{Name: "cover", Usage: "`FIELDS` to copy into the index entries"},
					&ucli.StringSliceFlag{Name: "where", Usage: "a partial index: only the records whose `FIELD<OP>VALUE` holds have entries, and lookups find those only (status=open, qty>=5, as a query's --where; repeat it: all must hold), as MongoDB's partialFilterExpression"},
					&ucli.StringSliceFlag{Name: "where-in", Usage: "a partial index of the records whose FIELD is one of `FIELD=VALUE,VALUE…` (status=open,held, as a query's --where-in)"},
					batchFlag()),
				Action: indexCreate,
			},
			{
				Name: "build", Usage: "finish building an index whose create was interrupted, or build one again from the table's records, in resumable batches",
				UsageText: "keyspace index build --table cities --name by_state_name",
				Flags:     indexFlags(batchFlag()),
				Action:    indexBuild,
			},
			{
				Name: "lookup", Usage: "records in the index's order (SQL's ORDER BY its fields; --reverse for descending) whose index value starts with VALUE (text form: completed, or completed:300 on status,-created; a descending field as it is), or matches a VALUE ending in a star (CA:San*), or all of them; the next field in [--from, --to), a page at a time",
				UsageText: "keyspace index lookup --table cities --name by_state_name CA\n" +
					"keyspace index lookup --table cities --name by_state_name 'CA:San*'\n" +
					"keyspace index lookup --table cities --name by_latitude --reverse --limit 10   # the ten northernmost",
				ArgsUsage: "[VALUE]",
				Flags: indexFlags(append(slices.Concat(pageFlags("records", "descending"), boundFlags()),
					whereFlagOf("records whose field"), whereInFlagOf("records whose field"), fieldsFlag("record"))...),
				Action: func(c *ucli.Context) error { return indexRead(c, true) },
			},
			{
				Name: "scan", Usage: "index entries (value, key, covered fields) under an optional value prefix, the next field in [--from, --to), a page at a time",
				UsageText: "keyspace index scan --table cities --name by_state_name CA --limit 20\n" +
					"keyspace index scan --table orders --name status_created completed --from 300 --to 100   # created is descending: 300 down to 101",
				ArgsUsage: "[VALUE]",
				Flags: indexFlags(append(slices.Concat(pageFlags("entries", "descending"), boundFlags()),
					whereFlagOf("entries whose record's field"), whereInFlagOf("entries whose record's field"))...),
				Action: func(c *ucli.Context) error { return indexRead(c, false) },
			},
			{
				Name: "distinct", Usage: "the distinct values of the index's first fields (SQL's SELECT DISTINCT, MongoDB's distinct), under an optional VALUE prefix, in the index's order: a skip scan that reads one entry a value however many records hold it",
				UsageText: "keyspace index distinct --table cities --name by_timezone   # every timezone a city has\n" +
					"keyspace index distinct --table cities --name by_country_state US --depth 2   # the states of US",
				ArgsUsage: "[VALUE]",
				Flags: indexFlags(&ucli.IntFlag{Name: "depth", Aliases: []string{"d"}, Usage: "values of this many fields", DefaultText: "VALUE's fields and one more, at least 1"},
					&ucli.IntFlag{Name: "limit", Aliases: []string{"n"}, Usage: "at most `N` values", DefaultText: "all"}),
				Action: indexDistinct,
			},
			{
				Name: "list", Usage: "the indexes of a table, or of every table: fields, uniqueness, covered fields, a partial index's conditions, entries, and whether a build is pending (MongoDB's getIndexes)",
				UsageText: "keyspace index list --table cities",
				Flags:     []ucli.Flag{&ucli.StringFlag{Name: "table", Aliases: []string{"t"}, Usage: "only the table `NAME`'s indexes", DefaultText: "every table"}},
				Action:    indexList,
			},
			{
				Name: "verify", Usage: "compare an index with a recomputation from its table; exit 1 on any problem",
				UsageText: "keyspace index verify --table cities --name by_state_name",
				Flags:     indexFlags(),
				Action: func(c *ucli.Context) error {
					return viewDB(c, func(tx keyspace.Tx) error {
						_, ix, err := withIndex(tx, c)
						if err != nil {
							return err
						}
						return reportProblems(c, ix)(tx)
					})
				},
			},
			{
				Name: "repair", Usage: "make an index what its table implies: stale entries go, missing ones are written",
				UsageText: "keyspace index repair --table cities --name by_state_name",
				Flags:     indexFlags(),
				Action:    indexRepair,
			},
			renameCommandOf("index", indexFlags(), "keyspace index rename --table cities --name by_state_name by_state", renameIndex),
			{
				Name: "drop", Usage: "delete an index and its definition",
				UsageText: "keyspace index drop --table cities --name by_state_name",
				Flags:     indexFlags(),
				Action: func(c *ucli.Context) error {
					return updateDB(c, func(tx keyspace.Tx) error {
						_, ix, err := withIndex(tx, c)
						if err != nil {
							return err
						}
						if err := ix.Drop(tx); err != nil {
							return err
						}
						return tx.Delete(indexKey(c.String("table"), c.String("name")))
					})
				},
			},
		},
	}
}

func batchFlag() ucli.Flag {
	return &ucli.IntFlag{Name: "batch", Value: 100_000, Usage: "records per transaction"}
}

// indexCreate declares the index, marks it unbuilt (lookups refuse it
// until it is whole) and builds it. A build that fails takes the index
// away again, so that a unique index over values that repeat is not left
// half made and refusing writes; one that is interrupted stays, for
// index build to finish.
func indexCreate(c *ucli.Context) error {
	d := indexDef{Name: c.String("name"), Fields: strings.Split(c.String("fields"), ","), Unique: c.Bool("unique"),
		Where: c.StringSlice("where"), WhereIn: c.StringSlice("where-in"), Numbers: orderedNumbers}
	if cv := c.String("cover"); cv != "" {
		d.Cover = strings.Split(cv, ",")
	}
	if err := d.parseConditions(); err != nil {
		return err
	}
	for _, list := range []struct {
		flag  string
		names []string
	}{{"fields", d.Fields}, {"cover", d.Cover}} {
		for i, f := range list.names {
			if strings.TrimPrefix(f, "-") == "" {
				return usagef("--%s %q: field %d has no name", list.flag, c.String(list.flag), i+1)
			}
		}
	}
	s, err := openWrite(c)
	if err != nil {
		return err
	}
	defer s.Close()
	table := c.String("table")
	var ix *indextable.Index[record]
	total := 0
	err = s.UpdateContext(c.Context, func(tx keyspace.Tx) error {
		if _, _, err := openTable(tx, table); err != nil {
			return err
		}
		if _, err := tx.Get(indexKey(table, d.Name)); err == nil {
			return fmt.Errorf("index %s already exists on table %s", d.Name, table)
		}
		b, _ := marshal(d)
		if err := tx.Put(indexKey(table, d.Name), b); err != nil {
			return err
		}
		// A build before 7 would index every record, one before 8 keep
		// whole numbers apart from the others.
		if err := keyspace.RequireFormat(tx, orderedIndexFormat); err != nil {
			return err
		}
		t, x, err := withIndex(tx, c)
		if err != nil {
			return err
		}
		ix = x
		if total, err = countKeys(tx, t.Range()); err != nil {
			return err
		}
		return ix.MarkUnbuilt(tx)
	})
	if err != nil {
		return err
	}
	n, entries, err := fillIndex(c, s, ix, total)
	switch {
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("interrupted: index %s is partly built, and lookups refuse it until keyspace index build --table %s --name %s finishes it", d.Name, table, d.Name)
	case err != nil:
		if derr := s.Update(func(tx keyspace.Tx) error {
			if err := ix.Drop(tx); err != nil {
				return err
			}
			return tx.Delete(indexKey(table, d.Name))
		}); derr != nil {
			return errors.Join(err, derr)
		}
		return fmt.Errorf("index %s not created: %w", d.Name, err)
	}
	reportBuilt(c, s, table, "created", ix, n, entries, total, d)
	return nil
}

// indexBuild is index build: Build from where a build stopped, or from
// the start.
func indexBuild(c *ucli.Context) error {
	s, err := openWrite(c)
	if err != nil {
		return err
	}
	defer s.Close()
	var ix *indextable.Index[record]
	var def indexDef
	var total int
	err = s.ViewContext(c.Context, func(tx keyspace.Tx) error {
		t, x, err := withIndex(tx, c)
		if err != nil {
			return err
		}
		ix = x
		if def, err = loadIndexDef(tx, c.String("table"), ix.Name()); err != nil {
			return err
		}
		total, err = countKeys(tx, t.Range())
		return err
	})
	if err != nil {
		return err
	}
	n, entries, err := fillIndex(c, s, ix, total)
	if err != nil {
		return err
	}
	reportBuilt(c, s, c.String("table"), "built", ix, n, entries, total, def)
	return nil
}

// fillIndex runs ix's Build with a progress bar over total records, and
// counts the entries it leaves.
func fillIndex(c *ucli.Context, s keyspace.Store, ix *indextable.Index[record], total int) (records, entries int, err error) {
	bar := newBar(c, total, "building")
	records, err = ix.Build(s, &indextable.BuildOptions{BatchSize: c.Int("batch"), Progress: func(done int) error {
		bar.Set(done)
		return c.Context.Err()
	}})
	bar.Finish()
	if err != nil {
		return records, 0, err
	}
	err = s.View(func(tx keyspace.Tx) (err error) {
		entries, err = countKeys(tx, ix.All())
		return err
	})
	return records, entries, err
}

// reportBuilt says what a create or build of the index defined by d, on
// the table of store s, did. An index with no entry most likely names a
// field no record has: the first records of the table are read for the
// fields they have, to name the one most like it.
func reportBuilt(c *ucli.Context, s keyspace.Store, table, what string, ix *indextable.Index[record], records, entries, total int, d indexDef) {
	fmt.Fprintf(c.App.ErrWriter, "%s index %s over %s: %s", what, ix.Name(), count(records, "record"), count(entries, "entry"))
	if entries == 0 && total > 0 {
		check := "check their names"
		if missing := fieldsNoRecordHas(s, table, d.Fields); missing != "" {
			check = missing
		}
		if d.keep != nil {
			fmt.Fprintf(c.App.ErrWriter, "; no record both meets %s and has a value for the index's fields (%s)", d.conditions(), check)
		} else {
			fmt.Fprintf(c.App.ErrWriter, "; no record has a value for the index's fields (%s)", check)
		}
	}
	fmt.Fprintln(c.App.ErrWriter)
}

// fieldsNoRecordHas is the note on the fields (an index's, "-" for
// descending) that none of a table's first 100 records has, with the
// field most like each; "" when each is in one, or on an error.
func fieldsNoRecordHas(s keyspace.Store, table string, fields []string) string {
	watch := watchNamed(fields...)
	watch.what = "record"
	s.View(func(tx keyspace.Tx) error {
		t, _, err := openTable(tx, table)
		if err != nil {
			return err
		}
		return t.Scan(tx, t.Range(), func(rec indextable.Record[record]) bool {
			watch.see(rec.Value)
			return watch.tested < 100
		})
	})
	return watch.missing()
}

// notBuilt is an error when ix has a build to finish: until then its
// lookups would miss the records no batch has reached.
func notBuilt(c *ucli.Context, ix *indextable.Index[record], tx keyspace.Tx) error {
	pending, err := ix.BuildPending(tx)
	if err == nil && pending {
		err = fmt.Errorf("index %s on table %s is not fully built: keyspace index build --table %s --name %s finishes it", ix.Name(), c.String("table"), c.String("table"), ix.Name())
	}
	return err
}

// builtIndex is the index --name of the table t and its definition, for
// a read: one whose build is pending is an error (notBuilt).
func builtIndex(c *ucli.Context, tx keyspace.Tx, t *indextable.Table[record]) (*indextable.Index[record], indexDef, error) {
	ix, err := findIndex(c, t)
	if err != nil {
		return nil, indexDef{}, err
	}
	if err := notBuilt(c, ix, tx); err != nil {
		return nil, indexDef{}, err
	}
	def, err := loadIndexDef(tx, c.String("table"), c.String("name"))
	return ix, def, err
}

// reportProblems prints Verify's findings and fails if there are any.
func reportProblems(c *ucli.Context, ix *indextable.Index[record]) func(tx keyspace.Tx) error {
	return func(tx keyspace.Tx) error {
		if err := notBuilt(c, ix, tx); err != nil {
			return err
		}
		problems, err := ix.Verify(tx)
		if err != nil {
			return err
		}
		for _, p := range problems[:min(len(problems), 20)] {
			fmt.Fprintln(c.App.Writer, p)
		}
		if len(problems) > 0 {
			return fmt.Errorf("index %s: %d problems (keyspace index repair fixes missing and stale entries)", ix.Name(), len(problems))
		}
		fmt.Fprintf(c.App.Writer, "index %s: consistent\n", ix.Name())
		return nil
	}
}

// indexRepair repairs the index in one transaction and says what it
// fixed. Two records under one value of a unique index are not fixed
// (which keeps the value is the owner's choice): they are listed and the
// command exits 1.
func indexRepair(c *ucli.Context) error {
	return updateDB(c, func(tx keyspace.Tx) error {
		_, ix, err := withIndex(tx, c)
		if err != nil {
			return err
		}
		problems, err := ix.Repair(tx)
		if err != nil {
			return err
		}
		fixed, duplicates := 0, 0
		for _, p := range problems {
			if p.Kind == "duplicate" {
				duplicates++
				fmt.Fprintln(c.App.Writer, p)
			} else {
				fixed++
			}
		}
		fmt.Fprintf(c.App.Writer, "index %s: repaired %s\n", ix.Name(), count(fixed, "entry"))
		if duplicates > 0 {
			return fmt.Errorf("index %s: %s of a unique value left for you to resolve (delete or change all but one record)", ix.Name(), count(duplicates, "duplicate"))
		}
		return nil
	})
}

// element is the index's form of values a command line gave (VALUE,
// --from, --to), which the index's schema read from text: for an index
// whose numbers are ordered, each number as orderNumber makes it, so
// that 7 finds 7.0.
func (d indexDef) element(values composite.Tuple) composite.Tuple {
	return d.eachElement(values, orderNumber)
}

// shown is an index value as the command line prints it: for an index
// whose numbers are ordered, a float64 that is a whole number of up to
// 2^53 as that whole number (200, not 200.0), which element reads back
// as the same float64.
func (d indexDef) shown(value composite.Tuple) composite.Tuple {
	return d.eachElement(value, wholeNumber)
}

// eachElement is values with f applied to each element, for an index
// whose numbers are ordered, and values as they are for another.
func (d indexDef) eachElement(values composite.Tuple, f func(any) any) composite.Tuple {
	if d.Numbers != orderedNumbers {
		return values
	}
	out := make(composite.Tuple, len(values))
	for i, v := range values {
		out[i] = f(v)
	}
	return out
}

// wholeNumber undoes orderNumber for printing.
func wholeNumber(v any) any {
	switch n := v.(type) {
	case float64:
		if n == math.Trunc(n) && math.Abs(n) <= maxExact {
			return int64(n)
		}
	case composite.Desc:
		return composite.Desc{V: wholeNumber(n.V)}
	}
	return v
}

// schema is how an index's values read and print: a column a field,
// descending for a -field, of the kind each value's text says (typed).
func (d indexDef) schema() composite.Schema {
	s := make(composite.Schema, len(d.Fields))
	for i, f := range d.Fields {
		s[i] = composite.Column{Name: strings.TrimPrefix(f, "-"), Kind: composite.KindAny, Desc: strings.HasPrefix(f, "-")}
	}
	return s
}

// loadIndexDef reads one index's definition.
func loadIndexDef(tx keyspace.Tx, table, name string) (indexDef, error) {
	var d indexDef
	b, err := tx.Get(indexKey(table, name))
	if err != nil {
		return d, fmt.Errorf("index %s on table %s: %w", name, table, err)
	}
	if err := json.Unmarshal(b, &d); err != nil {
		return d, fmt.Errorf("table %s: corrupt index definition: %w", table, err)
	}
	if err := d.parseConditions(); err != nil {
		return d, fmt.Errorf("table %s: corrupt index definition of %s: %w", table, name, err)
	}
	return d, nil
}

func indexRead(c *ucli.Context, records bool) error {
	format, err := output(c, "table", "json", "ndjson", "count")
	if err != nil {
		return err
	}
	conds, err := parseWhere(c)
	if err != nil {
		return err
	}
	where := recordFilter(conds)
	fields, err := fieldsOf(c)
	if err != nil {
		return err
	}
	return viewTable(c, func(tx keyspace.Tx, t *indextable.Table[record], keys composite.Schema) error {
		ix, def, err := builtIndex(c, tx, t)
		if err != nil {
			return err
		}
		values := def.schema()
		r := ix.All()
		var prefix composite.Tuple
		if v := c.Args().First(); v != "" {
			// With the index's schema, a descending field's value is
			// given as it is (completed:300), not as ~300; a star ends
			// a prefix query (completed:*, San Fran*).
			q, err := composite.ParseQuery(v, values)
			if err != nil {
				return usageError{err}
			}
			if !q.Exact && (c.IsSet("from") || c.IsSet("to")) {
				return usagef("--from and --to bound the field after an exact VALUE, and %q has a star", v)
			}
			q.Prefix = def.element(q.Prefix)
			prefix, r = q.Prefix, ix.Match(q)
		}
		if c.IsSet("from") || c.IsSet("to") {
			if len(prefix) >= len(values) {
				return usagef("--from and --to bound the field after VALUE, and VALUE names all %d fields", len(values))
			}
			from, to, err := boundsOf(c, values[len(prefix)])
			if err != nil {
				return err
			}
			r = ix.Between(prefix, def.element(from), def.element(to))
			noteBoundsCrossed(c, r, values[len(prefix)])
		}
		limit, err := limitOf(c)
		if err != nil {
			return err
		}
		opts := &indextable.ListOptions{Limit: limit, Cursor: c.String("cursor"), Reverse: c.Bool("reverse")}
		var keepErr error
		if where != nil { // --where on each entry's record, read as the scan goes
			opts.Keep = func(e indextable.Entry) bool {
				recs, err := ix.Records(tx, []indextable.Entry{e})
				if err != nil && keepErr == nil {
					keepErr = err
				}
				return err == nil && len(recs) == 1 && where(recs[0].Value)
			}
		}
		page, err := ix.Scan(tx, r, opts)
		if err == nil {
			err = keepErr
		}
		if err != nil {
			return cursorUsage(err)
		}
		type row struct {
			Value   string          `json:"value"`
			Key     string          `json:"key"`
			Covered json.RawMessage `json:"covered,omitempty"`
			Record  any             `json:"record,omitempty"` // a record, or its --fields (projectRecord)
		}
		if format == "count" && !records { // how many entries (of the page, with --limit), as table scan's -o count
			writeNextPage(c.App.ErrWriter, page.Next)
			_, err := fmt.Fprintln(c.App.Writer, len(page.Entries))
			return err
		}
		var out []row
		for _, e := range page.Entries {
			out = append(out, row{Value: keyText(def.shown(e.Value), values), Key: keyText(e.Key, keys), Covered: payloadJSON(e.Covered)})
		}
		if records {
			recs, err := ix.Records(tx, page.Entries)
			if err != nil {
				return err
			}
			// Records leaves out a row that expired after its entry
			// was read.
			byKey := make(map[string]record, len(recs))
			for _, rec := range recs {
				byKey[string(rec.Key.Pack())] = rec.Value
			}
			kept := out[:0]
			for i, e := range page.Entries {
				if v, ok := byKey[string(e.Key.Pack())]; ok {
					out[i].Record = v
					if fields != nil {
						out[i].Record = projectRecord(v, fields)
					}
					kept = append(kept, out[i])
				}
			}
			out = kept
		}
		if format == "count" { // how many records (a row that expired after its entry was read is left out)
			writeNextPage(c.App.ErrWriter, page.Next)
			_, err := fmt.Fprintln(c.App.Writer, len(out))
			return err
		}
		return writeListing(c.App.Writer, c.App.ErrWriter, format, "entries", out, page.Next, "VALUE\tKEY\tDATA", func(r row) string {
			data := []byte(r.Covered)
			if records {
				data, _ = marshal(r.Record)
			}
			return r.Value + "\t" + r.Key + "\t" + string(data)
		})
	})
}

// indexDistinct is index distinct: the distinct values of an index's
// first fields under an optional exact VALUE (Index.Distinct).
func indexDistinct(c *ucli.Context) error {
	format, err := output(c, "table", "json", "ndjson", "count")
	if err != nil {
		return err
	}
	limit, err := limitOf(c)
	if err != nil {
		return err
	}
	return viewTable(c, func(tx keyspace.Tx, t *indextable.Table[record], _ composite.Schema) error {
		ix, def, err := builtIndex(c, tx, t)
		if err != nil {
			return err
		}
		values := def.schema()
		var prefix composite.Tuple
		if v := c.Args().First(); v != "" {
			if prefix, err = composite.ParseText(v, values); err != nil {
				return usageError{err}
			}
			prefix = def.element(prefix)
		}
		depth := c.Int("depth")
		if !c.IsSet("depth") {
			depth = min(len(prefix)+1, len(values))
		}
		if depth < max(len(prefix), 1) || depth > len(values) {
			return usagef("--depth %d: want %d to %d (VALUE has %d of the index's %d fields)", depth, max(len(prefix), 1), len(values), len(prefix), len(values))
		}
		groups, err := ix.Distinct(tx, prefix, depth, limit)
		if err != nil {
			return err
		}
		if format == "count" {
			_, err := fmt.Fprintln(c.App.Writer, len(groups))
			return err
		}
		out := make([]string, len(groups))
		for i, g := range groups {
			out[i] = keyText(def.shown(g), values[:depth])
		}
		return writeListing(c.App.Writer, c.App.ErrWriter, format, "values", out, "", "VALUE", func(v string) string { return v })
	})
}
