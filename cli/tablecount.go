package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/indextable"
)

// tableCountCommand is table count: rows per group of leading key
// columns (Table.GroupCounts, reading keys only), or with --by per value
// of record fields, SQL's GROUP BY, read from an index over just those
// fields (Index.GroupCounts, reading entries only) where one serves.
func tableCountCommand() *ucli.Command {
	return &ucli.Command{
		Name: "count", Usage: "rows per group of the first D key columns, under an optional prefix (US, US:*, or US:C* for the states starting with C), or with --by per value of record fields (SQL's GROUP BY), read from an index where one serves; with --where, of the rows it keeps; --top for the largest groups",
		UsageText: "keyspace table count --table cities --depth 2 US\n" +
			"keyspace table count --table cities --by timezone --top 10",
		ArgsUsage: "[PREFIX]",
		Flags: []ucli.Flag{tableFlag(), &ucli.IntFlag{Name: "depth", Aliases: []string{"d"}, Usage: "group by this many key columns", DefaultText: "the prefix's columns, at least 1"},
			&ucli.StringFlag{Name: "by", Usage: "group by the values of record `FIELDS` (comma-separated, driver.rating for a field of an object; -field for its groups in descending order) rather than by key columns: a row counts once under each element of an array, and not at all without the field; read from an index over just these fields when no PREFIX is given and its --where and --where-in are the count's (none, or a partial index's own)"},
			&ucli.IntFlag{Name: "top", Usage: "only the `N` groups with the most rows, most first", DefaultText: "every group, in order"},
			&ucli.StringFlag{Name: "of", Usage: "also the numbers of record `FIELD` in each group: how many rows hold one (a JSON number, or text that reads as one), their sum (every digit of a sum of whole numbers), least, mean and greatest (SQL's SUM, MIN, AVG and MAX); reads the rows"},
			whereFlagOf("rows whose field"), whereInFlagOf("rows whose field"),
			&ucli.BoolFlag{Name: "no-index", Usage: "read the table's rows even where an index could serve --by or --where"},
			&ucli.BoolFlag{Name: "explain", Usage: "say on stderr what the count read: keys, index entries or rows, and how many groups"}},
		Action: tableCount,
	}
}

// A groupCount is one group of table count as it prints: its text (key
// columns as table scan takes them, or --by values as index lookup does)
// and its rows, and with --of the numbers of its rows' field.
type groupCount struct {
	text string
	rows int
	of   *aggregate
}

func tableCount(c *ucli.Context) error {
	format, err := output(c, "table", "json", "ndjson")
	if err != nil {
		return err
	}
	conds, err := parseWhere(c)
	if err != nil {
		return err
	}
	var by *indexDef // --by's fields, as an index over them would hold their values
	if c.IsSet("by") {
		if c.IsSet("depth") {
			return usagef("--depth groups by key columns and --by by record fields: give one of them")
		}
		fields := strings.Split(c.String("by"), ",")
		for i, f := range fields {
			if f == "" {
				return usagef("--by %q: field %d has no name", c.String("by"), i+1)
			}
		}
		by = &indexDef{Fields: fields, Numbers: orderedNumbers}
	}
	if c.IsSet("of") && c.String("of") == "" {
		return usagef("--of wants the FIELD whose numbers to add up")
	}
	if c.Int("top") < 0 {
		return usagef("--top %d: must be positive", c.Int("top"))
	}
	return viewTable(c, func(tx keyspace.Tx, t *indextable.Table[record], schema composite.Schema) error {
		// The prefix is a query as table scan takes it: US, US:* and US:CA
		// name whole columns; US:C* the states starting with C, whose
		// groups are those of US with the rest left out.
		var q composite.Query
		if p := c.Args().First(); p != "" && p != "*" {
			if q, err = composite.ParseQuery(p, schema); err != nil {
				return usageError{err}
			}
		}
		var groups []groupCount
		var read string // what the count read, for --explain
		if by != nil {
			groups, read, err = countBy(c, tx, t, schema, q, conds, *by)
		} else {
			groups, read, err = countByKey(c, tx, t, schema, q, conds)
		}
		if err != nil {
			return err
		}
		if c.Bool("explain") {
			fmt.Fprintf(c.App.ErrWriter, "%s read, %s\n", read, count(len(groups), "group"))
		}
		if n := c.Int("top"); n > 0 {
			slices.SortStableFunc(groups, func(a, b groupCount) int { return b.rows - a.rows })
			groups = groups[:min(n, len(groups))]
		}
		if c.IsSet("of") {
			return writeAggregates(c, format, groups)
		}
		switch format {
		case "json":
			out := map[string]int{}
			for _, g := range groups {
				out[g.text] = g.rows
			}
			return writeJSON(c.App.Writer, out)
		case "ndjson":
			type line struct {
				Group string `json:"group"`
				Rows  int    `json:"rows"`
			}
			out := make([]line, len(groups))
			for i, g := range groups {
				out[i] = line{g.text, g.rows}
			}
			return writeNDJSON(c.App.Writer, out)
		}
		tw := newTable(c.App.Writer)
		fmt.Fprintln(tw, "GROUP\tROWS")
		for _, g := range groups {
			fmt.Fprintf(tw, "%s\t%d\n", g.text, g.rows)
		}
		return tw.Flush()
	})
}

// countByKey counts rows per group of the first --depth key columns,
// from their keys alone (Table.GroupCounts), or from the rows --where
// keeps.
func countByKey(c *ucli.Context, tx keyspace.Tx, t *indextable.Table[record], schema composite.Schema, q composite.Query, conds []condition) ([]groupCount, string, error) {
	least := max(len(q.Prefix), 1)
	if q.Partial != nil {
		least = len(q.Prefix) + 1
	}
	depth := c.Int("depth")
	if !c.IsSet("depth") {
		depth = least
	}
	if depth < least || depth > len(schema) {
		return nil, "", usagef("--depth %d: want %d to %d", depth, least, len(schema))
	}
	var groups []composite.GroupCount
	var of []*aggregate // with --of, each group's
	ofField := c.String("of")
	watch := watchNamed(ofField)
	var read string
	if len(conds) > 0 || ofField != "" { // the rows --where keeps, grouped as they come, in key order
		var last []byte // the packed group of the last row
		rows, err := eachRowOf(c, tx, t, schema, q, conds, func(rec indextable.Record[record]) {
			group := rec.Key[:depth]
			if packed := group.Pack(); len(groups) > 0 && bytes.Equal(packed, last) {
				groups[len(groups)-1].Count++
			} else {
				groups, last = append(groups, composite.GroupCount{Group: group, Count: 1}), packed
				of = append(of, &aggregate{})
			}
			if ofField != "" {
				of[len(of)-1].add(field(rec.Value, ofField))
				watch.see(rec.Value)
			}
		})
		if err != nil {
			return nil, "", err
		}
		noteMissingFields(c, watch)
		read = rows
	} else {
		var err error
		if groups, err = t.GroupCounts(tx, q.Prefix, depth); err != nil {
			return nil, "", err
		}
		keys := 0
		for _, g := range groups {
			keys += g.Count
		}
		read = count(keys, "key")
	}
	var out []groupCount
	for i, g := range groups {
		if q.Partial != nil && !startsWith(g.Group, len(q.Prefix), *q.Partial) {
			continue
		}
		gc := groupCount{text: keyText(g.Group, schema), rows: g.Count}
		if of != nil {
			gc.of = of[i]
		}
		out = append(out, gc)
	}
	return out, read, nil
}

// startsWith reports whether group's element at i is text starting with
// partial (a query's US:C*).
func startsWith(group composite.Tuple, i int, partial string) bool {
	if len(group) <= i {
		return false
	}
	e := group[i]
	if d, ok := e.(composite.Desc); ok {
		e = d.V
	}
	s, ok := e.(string)
	return ok && strings.HasPrefix(s, partial)
}

// keyQueryRange is the range of rows a count reads, with the query's
// leading whole columns: a key query's, or with none, the range the
// conditions on leading key columns narrow (keyNarrowed).
func keyQueryRange(t *indextable.Table[record], schema composite.Schema, q composite.Query, conds []condition) (keyspace.Range, composite.Tuple) {
	switch {
	case q.Partial != nil:
		return q.Range(t.Records()), q.Prefix
	case len(q.Prefix) == 0:
		r, prefix, _ := keyNarrowed(t, schema, conds)
		return r, prefix
	}
	return t.RangeOf(q.Prefix), q.Prefix // US, US:* and US:CA name whole columns
}

// countBy counts rows per value of by's fields, as an index over them
// holds the values (so 7, "7" and 7.0 are one group, a row counts under
// each element of an array and not at all without the field), in the
// order of those values. With no key query, it reads the entries of an
// index that serves (countingIndex) rather than rows.
func countBy(c *ucli.Context, tx keyspace.Tx, t *indextable.Table[record], schema composite.Schema, q composite.Query, conds []condition, by indexDef) ([]groupCount, string, error) {
	show := func(group composite.Tuple) string { return keyText(by.shown(group), by.schema()) }
	if len(q.Prefix) == 0 && q.Partial == nil && !c.Bool("no-index") && !c.IsSet("of") {
		name, ix, err := countingIndex(tx, t, c.String("table"), by.Fields, c.StringSlice("where"), c.StringSlice("where-in"))
		if err != nil {
			return nil, "", err
		}
		if ix != nil {
			return groupsOfIndex(tx, name, ix, by, show)
		}
	}
	values := by.indexSpec().Values
	type tally struct {
		group composite.Tuple
		rows  int
		of    aggregate
	}
	counts := map[string]*tally{} // by the group's packed bytes
	ofField := c.String("of")
	watch := watchNamed(append(slices.Clone(by.Fields), ofField)...)
	read, err := eachRowOf(c, tx, t, schema, q, conds, func(rec indextable.Record[record]) {
		watch.see(rec.Value)
		seen := map[string]bool{} // an array's value twice counts once, as in an index
		for _, v := range values(rec.Value) {
			packed, err := v.TryPack()
			if err != nil || seen[string(packed)] {
				continue // a value no index could hold: counted by none
			}
			seen[string(packed)] = true
			g := counts[string(packed)]
			if g == nil {
				g = &tally{group: v}
				counts[string(packed)] = g
			}
			g.rows++
			if ofField != "" {
				g.of.add(field(rec.Value, ofField))
			}
		}
	})
	if err != nil {
		return nil, "", err
	}
	noteMissingFields(c, watch)
	keys := slices.Sorted(maps.Keys(counts))
	out := make([]groupCount, 0, len(keys))
	for _, k := range keys {
		g := counts[k]
		out = append(out, groupCount{text: show(g.group), rows: g.rows, of: &g.of})
	}
	return out, read, nil
}

// eachRowOf runs fn on each row a count reads: the rows of the key
// query q, or with conditions, those they keep, found as table scan
// finds them (through an index where one serves), in key order. It says
// how many it read, for --explain.
func eachRowOf(c *ucli.Context, tx keyspace.Tx, t *indextable.Table[record], schema composite.Schema, q composite.Query, conds []condition, fn func(indextable.Record[record])) (string, error) {
	r, prefix := keyQueryRange(t, schema, q, conds)
	if len(conds) == 0 { // a row at a time, rather than all of them at once
		n := 0
		err := t.Scan(tx, r, func(rec indextable.Record[record]) bool {
			n++
			fn(rec)
			return true
		})
		return count(n, "row"), err
	}
	records, err := rowsWhere(c, tx, t, r, prefix, conds)
	for _, rec := range records {
		fn(rec)
	}
	return count(len(records), "row") + " (those --where keeps, found as table scan finds them)", err
}

// countingIndex is an index that counts the rows --where and --where-in
// keep by fields as countBy does: one whose fields are those, each in
// either order (whatever order fields ask for), so a row has an entry under each value of them and none
// without them (an index with a field more leaves out the rows without
// it, and counts a row under each element of an array there); whose
// conditions are the count's, no more and no fewer (none, or a partial
// index's own: its entries are those of the rows they keep); built; and
// keeping numbers in order, so 7 and 7.0 are one value. nil when none
// is.
func countingIndex(tx keyspace.Tx, t *indextable.Table[record], table string, fields, where, whereIn []string) (string, *indextable.Index[record], error) {
	defs, err := loadIndexSpecs(tx, table)
	if err != nil {
		return "", nil, err
	}
	sameSet := func(a, b []string) bool { return subset(a, b) && subset(b, a) }
	for _, d := range defs {
		if len(d.Fields) != len(fields) || !sameSet(d.Where, where) || !sameSet(d.WhereIn, whereIn) || d.Numbers != orderedNumbers {
			continue
		}
		if !slices.EqualFunc(d.Fields, fields, func(f, want string) bool { return strings.TrimPrefix(f, "-") == strings.TrimPrefix(want, "-") }) {
			continue
		}
		ix := declaredIndex(t, d.Name)
		if ix == nil {
			continue
		}
		pending, err := ix.BuildPending(tx)
		if err != nil {
			return "", nil, err
		}
		if !pending {
			return d.Name, ix, nil
		}
	}
	return "", nil, nil
}

// groupsOfIndex counts rows per value of by's fields from the entries
// of an index over them (Index.GroupCounts), in the order by asks for
// (a -field descending) whatever the index's own.
func groupsOfIndex(tx keyspace.Tx, name string, ix *indextable.Index[record], by indexDef, show func(composite.Tuple) string) ([]groupCount, string, error) {
	groups, err := ix.GroupCounts(tx, nil, len(by.Fields))
	if err != nil {
		return nil, "", err
	}
	entries := 0
	for _, g := range groups {
		for i, e := range g.Group {
			if d, ok := e.(composite.Desc); ok {
				e = d.V
			}
			if strings.HasPrefix(by.Fields[i], "-") {
				e = composite.Desc{V: e}
			}
			g.Group[i] = e
		}
		entries += g.Count
	}
	slices.SortFunc(groups, func(a, b composite.GroupCount) int { return bytes.Compare(a.Group.Pack(), b.Group.Pack()) })
	out := make([]groupCount, len(groups))
	for i, g := range groups {
		out[i] = groupCount{text: show(g.Group), rows: g.Count}
	}
	return out, count(entries, "entry") + " of index " + name, nil
}

// writeAggregates prints table count --of's groups: each one's rows, and
// how many of them hold a number in the field, with their sum, least,
// mean and greatest (empty, or left out of the JSON, when none does).
func writeAggregates(c *ucli.Context, format string, groups []groupCount) error {
	switch format {
	case "json":
		out := make(map[string]aggregateJSON, len(groups))
		for _, g := range groups {
			out[g.text] = g.of.json(g.rows)
		}
		return writeJSON(c.App.Writer, out)
	case "ndjson":
		type line struct {
			Group string `json:"group"`
			aggregateJSON
		}
		out := make([]line, len(groups))
		for i, g := range groups {
			out[i] = line{g.text, g.of.json(g.rows)}
		}
		return writeNDJSON(c.App.Writer, out)
	}
	tw := newTable(c.App.Writer)
	fmt.Fprintln(tw, "GROUP\tROWS\tNUMBERS\tSUM\tMIN\tMEAN\tMAX")
	for _, g := range groups {
		a := g.of.json(g.rows)
		// The table shows a sum with a fraction to 15 significant digits
		// and a mean to 6, as series range does (1874.11, not
		// 1874.1099999999985, which adding decimals leaves); a whole sum,
		// exact however long, and the least and greatest, which are the
		// rows' own numbers, as they are. JSON has every digit.
		text := func(n *json.Number, digits int) string {
			if n == nil {
				return ""
			}
			if f, err := n.Float64(); err == nil && digits > 0 && strings.ContainsAny(n.String(), ".eE") {
				return strconv.FormatFloat(f, 'g', digits, 64)
			}
			return n.String()
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\t%s\t%s\n", g.text, g.rows, a.Numbers, text(a.Sum, 15), text(a.Min, 0), text(a.Mean, 6), text(a.Max, 0))
	}
	return tw.Flush()
}
