package cli

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/indextable"
)

// A scanPlan is how table scan reads the rows its --where keeps: through
// an index that lists just the rows its conditions can hold for, or
// (ix nil) through the table's own rows in the query's key range.
//
// An index serves when conditions = or --where-in fix its leading
// fields to values that are text and no number, or conditions that hold
// only for numbers narrow the field after them (its first field, when
// none is fixed), or both, and every field after those has a condition
// that only a value holds for (any but !=):
//
//   - A row the conditions hold for then has an entry under one of the
//     values the leading fields may take. Each of its fields holds one
//     value, no array, and the leading ones hold that very text, which
//     an index keeps as text (typed). A number is no such value: a
//     record holds one in several forms (7, "7", "7.0", "07") that an
//     index keeps apart (as text, or by kind in an index from before
//     numbers were ordered), so = a number narrows a field as a number
//     range does (below). Nor are true and false, as a JSON record's
//     booleans are no text.
//   - When the values fix every field (full), the entries of one value,
//     (value…, primary key), list its rows in key order, as the table
//     does, and the rows of several values (an in, or two) merge in key
//     order, each value read for a page and one more; the query's
//     leading key columns narrow the entries read, and a cursor starts
//     them after its row.
//   - When they fix only the leading fields, the rows under each value
//     come in the order of the fields after them, so all of them are
//     read and sorted into key order, for every page.
//   - The field after the fixed ones (the first field, when none is)
//     may have conditions that hold only for numbers: <, <=, >, >=, = a
//     number, or --where-in numbers. Then only the entries under each
//     value whose next field can hold such a number are read
//     (numberRanges: the whole numbers and the others in the range, and
//     the text that reads as a number), and sorted into key order.
//
// Either way the scan's order, limit and cursor are the table's. A
// partial index serves only when its own conditions are among the
// scan's, and an index with a build pending never does. Of the indexes
// that serve, the one with the fewest entries to read for the page is
// read (choosePlan counts them); on a tie, one whose values fix every
// field before one whose values fix some, then the one with the most
// fields fixed, then one with a number range, then the first by name.
// For a page (--limit), forPage turns from a plan that is not full to
// the table's rows when its entries are many. Every row read through an
// index is still tested against every condition and the key range, so
// an entry of a multikey index (one per element of an array, which =
// never holds for) or of a partial index adds no row the table's rows
// would not give.
type scanPlan struct {
	ix     *indextable.Index[record]
	fields []string          // the index's fields, as defined (-name descending)
	texts  [][]string        // the texts each leading field may hold, sorted
	values []composite.Tuple // the index values they make: every combination
	ranged *numberRange      // the numbers the field after them may hold (nil: any value)
	passed string            // why the table's rows were read rather than an index (forPage)
	chosen string            // why this index, of several that serve (choosePlan)
}

// full reports whether the plan's values fix every field of its index,
// so that the entries of one value come in key order.
func (p scanPlan) full() bool { return len(p.texts) == len(p.fields) }

// maxPlanValues is how many index values a plan reads at most; an in of
// more is read from the table's rows.
const maxPlanValues = 64

// planScan chooses how to read the rows of t that the conditions conds
// keep (where and whereIn as --where and --where-in gave them), for a
// page of limit rows (0: all of them), as scanPlan says.
func planScan(tx keyspace.Tx, t *indextable.Table[record], conds []condition, where, whereIn []string, limit int) (scanPlan, error) {
	var serving []scanPlan // the plans that serve, by worse's order
	// The texts each field may hold, by the conditions that say so: an
	// = one, an in several; two conditions on a field, those both allow.
	// And the fields that must hold a value for a condition to hold.
	texts, valued := map[string][]string{}, map[string]bool{}
	for _, cond := range conds {
		if cond.op != "!=" {
			valued[cond.field] = true
		}
		var allowed []string
		switch cond.op {
		case "=":
			allowed = []string{cond.value}
		case "in":
			allowed = slices.Clone(cond.values)
		default:
			continue
		}
		if slices.ContainsFunc(allowed, func(v string) bool { return !plainText(v) }) {
			continue
		}
		slices.Sort(allowed)
		allowed = slices.Compact(allowed)
		if before, ok := texts[cond.field]; ok {
			allowed = slices.DeleteFunc(allowed, func(v string) bool { return !slices.Contains(before, v) })
		}
		texts[cond.field] = allowed
	}
	ranges := numberRanges(conds)
	if len(texts) == 0 && len(ranges) == 0 {
		return scanPlan{}, nil
	}
	defs, err := loadIndexSpecs(tx, t.Name())
	if err != nil {
		return scanPlan{}, err
	}
	for _, d := range defs {
		if !subset(d.Where, where) || !subset(d.WhereIn, whereIn) {
			continue
		}
		candidate := scanPlan{fields: d.Fields, values: []composite.Tuple{{}}}
		for _, f := range d.Fields {
			allowed, ok := texts[strings.TrimPrefix(f, "-")]
			if !ok {
				break
			}
			if len(candidate.values)*len(allowed) > maxPlanValues {
				candidate.values = nil
				break
			}
			candidate.texts = append(candidate.texts, allowed)
			var next []composite.Tuple
			for _, value := range candidate.values {
				for _, text := range allowed {
					var v any = text
					if strings.HasPrefix(f, "-") {
						v = composite.Desc{V: text}
					}
					next = append(next, slices.Concat(value, composite.Tuple{v}))
				}
			}
			candidate.values = next
		}
		fixed := len(candidate.texts)
		if len(candidate.values) > 0 && fixed < len(d.Fields) {
			candidate.ranged = ranges[strings.TrimPrefix(d.Fields[fixed], "-")]
		}
		if fixed == 0 && candidate.ranged == nil || len(candidate.values) == 0 {
			continue
		}
		if slices.ContainsFunc(d.Fields[fixed:], func(f string) bool { return !valued[strings.TrimPrefix(f, "-")] }) {
			continue // a row with no value there has no entry
		}
		if candidate.ix = declaredIndex(t, d.Name); candidate.ix == nil {
			continue
		}
		pending, err := candidate.ix.BuildPending(tx)
		if err != nil {
			return scanPlan{}, err
		}
		if !pending {
			serving = append(serving, candidate)
		}
	}
	if len(serving) == 0 {
		return scanPlan{}, nil
	}
	slices.SortStableFunc(serving, func(a, b scanPlan) int { // stable: by name on a tie
		switch {
		case b.worse(a):
			return -1
		case a.worse(b):
			return 1
		}
		return 0
	})
	best, entries, err := choosePlan(tx, serving, limit)
	if err != nil {
		return best, err
	}
	return best.forPage(tx, limit, entries)
}

// choosePlan is the plan, of those that serve (in worse's order), that
// reads the fewest entries for a page of limit rows (0: all of them),
// as each one's entries count (scanPlan.entries), the first on a tie:
// MongoDB's planner races its candidate plans for the same reason. With
// no statistics, an order of plans alone reads the 50,000 entries of
// status=open where an index on population holds the 40 rows of
// population>=1000000. The first plan is counted whole, and each after
// it only until it holds as many as the fewest so far, so the counting
// costs at most one read of the entries of each plan that serves, and
// nothing when one plan serves.
// It returns the plan's entries too, or -1 when it counted none.
func choosePlan(tx keyspace.Tx, serving []scanPlan, limit int) (scanPlan, int, error) {
	best := serving[0]
	if len(serving) == 1 {
		return best, -1, nil
	}
	fewest, err := best.entries(tx, limit, math.MaxInt-1)
	if err != nil {
		return best, -1, err
	}
	for _, p := range serving[1:] {
		if fewest == 0 {
			break
		}
		n, err := p.entries(tx, limit, fewest-1)
		if err != nil {
			return best, -1, err
		}
		if n < fewest {
			p.chosen = fmt.Sprintf("%s, where index %s's are %s", count(n, "entry"), best.ix.Name(), count(fewest, "entry"))
			best, fewest = p, n
		}
	}
	return best, fewest, nil
}

// entries counts the entries the plan reads for a page of limit rows (0:
// all), until there are more than most: every value's entries, at most
// limit+1 of them in a full plan (the page's rows and the one after), and
// of a number range's text those that read as numbers.
func (p scanPlan) entries(tx keyspace.Tx, limit, most int) (int, error) {
	n := 0
	for _, value := range p.values {
		var keep func(indextable.Entry) bool // those whose rows are read
		if p.ranged != nil {
			keep = func(e indextable.Entry) bool { return readsAsNumber(e.Value, len(value)) }
		}
		ofValue := 0
		for _, entries := range p.ranges(value, nil, nil, false) {
			cursor := ""
			for {
				want := most + 1 - n
				if p.full() && limit > 0 {
					want = min(want, limit+1-ofValue)
				}
				if want <= 0 {
					break
				}
				// A page at a time, so that counting holds no more
				// than a page of entries.
				page, err := p.ix.Scan(tx, entries, &indextable.ListOptions{Limit: min(want, countPage), Keep: keep, Cursor: cursor})
				if err != nil {
					return n, err
				}
				n, ofValue = n+len(page.Entries), ofValue+len(page.Entries)
				if n > most {
					return n, nil
				}
				if cursor = page.Next; cursor == "" {
					break
				}
			}
		}
	}
	return n, nil
}

// countPage is how many entries scanPlan.entries holds at once.
const countPage = 4096

// entriesPerPageRow is how many entries a plan that is not full may
// hold for each row of a page (forPage).
const entriesPerPageRow = 64

// forPage is the plan for a page of limit rows (0: all of them). A plan
// that is not full reads all of its entries for any page, while the
// table's rows, in key order, stop where the page ends; so when its
// entries number more than entriesPerPageRow for each row of the page,
// the table's rows are read instead (its entries counted, not their
// rows; of a number range's text, those that read as numbers). If the
// conditions hold for a share s of the table's N rows, the page is then
// found among fewer than N/entriesPerPageRow of them
// (limit/s, with s·N above limit·entriesPerPageRow), where the index
// would read all s·N entries and their rows. On the 153,728 cities,
// latitude>=45 (54,078 rows) with --limit 100 read 1,679 rows in 0.01
// s, where an index on latitude read them all in 0.42 s; latitude>=69
// (96) read its entries in under 0.01 s, against 0.28 s for the 77,519
// rows before its tenth.
//
// entries is the plan's entries when choosePlan counted them, else -1.
func (p scanPlan) forPage(tx keyspace.Tx, limit, entries int) (scanPlan, error) {
	if p.ix == nil || p.full() || limit <= 0 {
		return p, nil
	}
	most := entriesPerPageRow * limit
	if entries < 0 {
		var err error
		if entries, err = p.entries(tx, limit, most); err != nil {
			return p, err
		}
	}
	if entries <= most {
		return p, nil
	}
	return scanPlan{passed: fmt.Sprintf("index %s's entries %s number more than %d, %d for each row of the page", p.ix.Name(), p.forText(), most, entriesPerPageRow)}, nil
}

// worse reports whether the plan c would be read before p on a tie of
// their entries (choosePlan): any plan
// before the table's rows, a full one before one that is not, then the
// one with more fields fixed, then one whose next field has a number
// range.
func (p scanPlan) worse(c scanPlan) bool {
	switch {
	case p.ix == nil:
		return true
	case p.full() != c.full():
		return c.full()
	case len(c.texts) != len(p.texts):
		return len(c.texts) > len(p.texts)
	}
	return c.ranged != nil && p.ranged == nil
}

// plainText reports whether an = condition's value is text that an
// index keeps as that text (typed): no number, and neither true nor
// false.
func plainText(v string) bool {
	if _, err := strconv.ParseFloat(v, 64); err == nil {
		return false
	}
	return v != "true" && v != "false"
}

// subset reports whether every one of some is among all.
func subset(some, all []string) bool {
	for _, s := range some {
		if !slices.Contains(all, s) {
			return false
		}
	}
	return true
}

// explain is the plan as --explain prints it, for a scan with
// conditions or without.
func (p scanPlan) explain(query string, conditions bool) string {
	switch {
	case p.passed != "":
		return fmt.Sprintf("plan: the table's rows %s, each tested against --where (%s)", rowsText(query), p.passed)
	case p.ix == nil && conditions:
		return fmt.Sprintf("plan: the table's rows %s, each tested against --where", rowsText(query))
	case p.ix == nil:
		return fmt.Sprintf("plan: the table's rows %s", rowsText(query))
	}
	order := "in key order"
	if !p.full() {
		order = "sorted into key order"
	}
	plan := fmt.Sprintf("plan: index %s's entries %s %s, %s, each row tested against --where", p.ix.Name(), p.forText(), rowsText(query), order)
	if p.chosen != "" {
		plan += " (the fewest: " + p.chosen + ")"
	}
	return plan
}

// forText says which of the index's entries the plan reads: "for
// status=open, qty>=3".
func (p scanPlan) forText() string {
	fields := make([]string, len(p.texts))
	for i, f := range p.fields[:len(p.texts)] {
		if len(p.texts[i]) == 1 {
			fields[i] = strings.TrimPrefix(f, "-") + "=" + p.texts[i][0]
		} else {
			fields[i] = strings.TrimPrefix(f, "-") + " in " + strings.Join(p.texts[i], ",")
		}
	}
	if p.ranged != nil {
		fields = append(fields, p.ranged.text...)
	}
	return "for " + strings.Join(fields, ", ")
}

func rowsText(query string) string {
	switch {
	case query == "" || query == "*":
		return "(all of them)"
	case strings.HasPrefix(query, "where "): // a bound on the first key column (keyNarrowed)
		return query
	}
	return "under " + query
}

// scanIndexPage is scanPage through the plan's index: the rows in r
// (the table range of the scan's key query, whose leading whole columns
// are prefix) that keep keeps, a page of limit (0: all) after cursor, a
// cursor of r's. Each of the plan's values is read, for up to limit+1
// rows when the plan is full (the page's rows and the one after it are
// among them), whole when it is not; the rows are sorted into key order.
// It returns the page and how many entries it read.
func scanIndexPage(tx keyspace.Tx, t *indextable.Table[record], p scanPlan, r keyspace.Range, prefix composite.Tuple, reverse bool, limit int, cursor string, keep func(record) bool) (recordPage, int, error) {
	if limit < 0 {
		return recordPage{}, 0, usagef("--limit %d: must be positive", limit)
	}
	r.Reverse = reverse
	rr, err := r.Resume(cursor)
	if err != nil {
		return recordPage{}, 0, usageError{err}
	}
	var after composite.Tuple // the primary key the last page ended at
	if cursor != "" {
		last := rr.End
		if !reverse {
			last = rr.Start[:len(rr.Start)-1] // Resume's last key and a zero byte
		}
		if after, err = t.Records().Unpack(last); err != nil {
			return recordPage{}, 0, usageError{fmt.Errorf("%w: %v", keyspace.ErrBadCursor, err)}
		}
	}
	var rows []indexedRow
	read := 0
	for _, value := range p.values {
		for _, entries := range p.ranges(value, prefix, after, reverse) {
			if err := scanEntries(tx, t, p, value, entries, rr, reverse, limit, keep, &read, &rows); err != nil {
				return recordPage{}, read, err
			}
		}
	}
	slices.SortFunc(rows, func(a, b indexedRow) int {
		if reverse {
			return bytes.Compare(b.key, a.key)
		}
		return bytes.Compare(a.key, b.key)
	})
	rows = slices.CompactFunc(rows, func(a, b indexedRow) bool { return bytes.Equal(a.key, b.key) })
	var page recordPage
	if limit > 0 && len(rows) > limit {
		rows = rows[:limit]
		page.next = r.Cursor(rows[limit-1].key)
	}
	for _, row := range rows {
		page.records = append(page.records, row.rec)
	}
	return page, read, nil
}

// ranges are the ranges of the plan index's entries to read under one
// of its values: those of a number range (numberRanges), or the value's
// own; in a full plan, only the entries of rows under the key query's
// leading columns (prefix) and past the row a cursor ended at (after).
func (p scanPlan) ranges(value, prefix, after composite.Tuple, reverse bool) []keyspace.Range {
	if p.ranged != nil {
		return p.numberRanges(value)
	}
	if !p.full() {
		return []keyspace.Range{p.ix.Equal(value...)}
	}
	entries := p.ix.Equal(slices.Concat(value, prefix)...) // a row's entries follow its value with its key
	if after != nil {
		at := p.ix.Equal(slices.Concat(value, after)...)
		if reverse {
			entries.End = at.Start
		} else {
			entries.Start = at.End
		}
	}
	return []keyspace.Range{entries}
}

// An indexedRow is a record read through an index, with its key in the
// table, by which rows merge.
type indexedRow struct {
	key []byte
	rec indextable.Record[record]
}

// scanEntries reads the plan index's entries in one range (of those
// under value), adding to rows the rows they name that lie in rr and
// keep keeps, up to limit+1 of them in a full plan (the page's rows and
// the one after it are among them), and counting the entries in read.
func scanEntries(tx keyspace.Tx, t *indextable.Table[record], p scanPlan, value composite.Tuple, entries, rr keyspace.Range, reverse bool, limit int, keep func(record) bool, read *int, rows *[]indexedRow) error {
	var keepErr error
	opts := &indextable.ListOptions{Reverse: reverse, Keep: func(e indextable.Entry) bool {
		*read++
		if p.ranged != nil && !readsAsNumber(e.Value, len(value)) {
			return false
		}
		recs, err := p.ix.Records(tx, []indextable.Entry{e})
		if err != nil && keepErr == nil {
			keepErr = err
		}
		if err != nil || len(recs) != 1 {
			return false
		}
		key := slices.Concat(t.Records().Bytes(), recs[0].Key.Pack())
		if !inRange(rr, key) || keep != nil && !keep(recs[0].Value) { // rr: the key query's range after the cursor
			return false
		}
		*rows = append(*rows, indexedRow{key, recs[0]})
		return true
	}}
	if limit > 0 && p.full() {
		opts.Limit = limit + 1 // one more says whether a next page starts
	}
	if _, err := p.ix.Scan(tx, entries, opts); err != nil {
		return err
	}
	return keepErr
}

// scan reads a page of the rows in r (a key query's range, whose leading
// whole columns are prefix) that keep keeps (nil: all), as the plan says:
// through its index (scanIndexPage), or the table's own rows (scanPage).
// It returns the page and how many entries or rows it read; the table's
// rows are counted only when countRows is set or keep is given, as counting
// every row read takes a page's one-more limit off the scan.
func (p scanPlan) scan(tx keyspace.Tx, t *indextable.Table[record], r keyspace.Range, prefix composite.Tuple, reverse bool, limit int, cursor string, keep func(record) bool, countRows bool) (recordPage, int, error) {
	if p.ix != nil {
		return scanIndexPage(tx, t, p, r, prefix, reverse, limit, cursor, keep)
	}
	read := 0
	counted := keep // keep, counting the rows it tests
	switch {
	case keep != nil:
		counted = func(r record) bool { read++; return keep(r) }
	case countRows: // every row read is kept
		counted = func(record) bool { read++; return true }
	}
	page, err := scanPage(tx, t, r, reverse, limit, cursor, counted)
	return page, read, err
}

// inRange reports whether key lies in r's bounds.
func inRange(r keyspace.Range, key []byte) bool {
	return bytes.Compare(key, r.Start) >= 0 && (r.End == nil || bytes.Compare(key, r.End) < 0)
}
