package cli

import (
	"bytes"
	"fmt"
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
// An index serves when conditions = or --where-in name its leading
// fields with values that are text and no number, and every field after
// those has a condition that only a value holds for (any but !=):
//
//   - A row the conditions hold for then has an entry under one of the
//     values the leading fields may take. Each of its fields holds one
//     value, no array, and the leading ones hold that very text, which
//     an index keeps as text (typed). A number is left to the table's
//     rows because a record holds one in several forms (7, "7", "7.0")
//     that an index keeps apart, and true and false because a JSON
//     record's booleans are no text.
//   - When the values fix every field (full), the entries of one value,
//     (value…, primary key), list its rows in key order, as the table
//     does, and the rows of several values (an in, or two) merge in key
//     order, each value read for a page and one more; the query's
//     leading key columns narrow the entries read, and a cursor starts
//     them after its row.
//   - When they fix only the leading fields, the rows under each value
//     come in the order of the fields after them, so all of them are
//     read and sorted into key order, for every page.
//
// Either way the scan's order, limit and cursor are the table's. A
// partial index serves only when its own conditions are among the
// scan's, and an index with a build pending never does. Of the indexes
// that serve, one whose values fix every field is read before one whose
// values fix some, and of those the one with the most fields fixed, the
// first by name on a tie. Every row read through an index is still
// tested against every condition and the key range, so an entry of a
// multikey index (one per element of an array, which = never holds for)
// or of a partial index adds no row the table's rows would not give.
type scanPlan struct {
	ix     *indextable.Index[record]
	fields []string          // the index's fields, as defined (-name descending)
	texts  [][]string        // the texts each leading field may hold, sorted
	values []composite.Tuple // the index values they make: every combination
}

// full reports whether the plan's values fix every field of its index,
// so that the entries of one value come in key order.
func (p scanPlan) full() bool { return len(p.texts) == len(p.fields) }

// maxPlanValues is how many index values a plan reads at most; an in of
// more is read from the table's rows.
const maxPlanValues = 64

// planScan chooses how to read the rows of t that the conditions conds
// keep (where and whereIn as --where and --where-in gave them), as
// scanPlan says.
func planScan(tx keyspace.Tx, t *indextable.Table[record], conds []condition, where, whereIn []string) (scanPlan, error) {
	var plan scanPlan
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
	if len(texts) == 0 {
		return plan, nil
	}
	defs, err := loadIndexSpecs(tx, t.Name())
	if err != nil {
		return plan, err
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
		if len(candidate.texts) == 0 || len(candidate.values) == 0 || !plan.worse(candidate) {
			continue
		}
		if slices.ContainsFunc(d.Fields[len(candidate.texts):], func(f string) bool { return !valued[strings.TrimPrefix(f, "-")] }) {
			continue // a row with no value there has no entry
		}
		if candidate.ix = declaredIndex(t, d.Name); candidate.ix == nil {
			continue
		}
		pending, err := candidate.ix.BuildPending(tx)
		if err != nil {
			return plan, err
		}
		if !pending {
			plan = candidate
		}
	}
	return plan, nil
}

// worse reports whether the plan c would be read before p: any plan
// before the table's rows, a full one before one that is not, then the
// one with more fields fixed.
func (p scanPlan) worse(c scanPlan) bool {
	switch {
	case p.ix == nil:
		return true
	case p.full() != c.full():
		return c.full()
	}
	return len(c.texts) > len(p.texts)
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
	case p.ix == nil && conditions:
		return fmt.Sprintf("plan: the table's rows %s, each tested against --where", rowsText(query))
	case p.ix == nil:
		return fmt.Sprintf("plan: the table's rows %s", rowsText(query))
	}
	fields := make([]string, len(p.texts))
	for i, f := range p.fields[:len(p.texts)] {
		if len(p.texts[i]) == 1 {
			fields[i] = strings.TrimPrefix(f, "-") + "=" + p.texts[i][0]
		} else {
			fields[i] = strings.TrimPrefix(f, "-") + " in " + strings.Join(p.texts[i], ",")
		}
	}
	order := "in key order"
	if !p.full() {
		order = "sorted into key order"
	}
	return fmt.Sprintf("plan: index %s's entries for %s %s, %s, each row tested against --where", p.ix.Name(), strings.Join(fields, ", "), rowsText(query), order)
}

func rowsText(query string) string {
	if query == "" || query == "*" {
		return "(all of them)"
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
	type row struct {
		key []byte // the record's key in the table, by which rows merge
		rec indextable.Record[record]
	}
	var rows []row
	read := 0
	for _, value := range p.values {
		entries := p.ix.Equal(value...)
		if p.full() { // a row's entries follow its value with its key
			entries = p.ix.Equal(slices.Concat(value, prefix)...)
		}
		if after != nil && p.full() {
			at := p.ix.Equal(slices.Concat(value, after)...)
			if reverse {
				entries.End = at.Start
			} else {
				entries.Start = at.End
			}
		}
		var keepErr error
		opts := &indextable.ListOptions{Reverse: reverse, Keep: func(e indextable.Entry) bool {
			read++
			recs, err := p.ix.Records(tx, []indextable.Entry{e})
			if err != nil && keepErr == nil {
				keepErr = err
			}
			if err != nil || len(recs) != 1 {
				return false
			}
			key := slices.Concat(t.Records().Bytes(), recs[0].Key.Pack())
			if !inRange(rr, key) || keep != nil && !keep(recs[0].Value) { // rr: r after the cursor
				return false
			}
			rows = append(rows, row{key, recs[0]})
			return true
		}}
		if limit > 0 && p.full() {
			opts.Limit = limit + 1 // one more says whether a next page starts
		}
		if _, err := p.ix.Scan(tx, entries, opts); err != nil {
			return recordPage{}, read, err
		}
		if keepErr != nil {
			return recordPage{}, read, keepErr
		}
	}
	slices.SortFunc(rows, func(a, b row) int {
		if reverse {
			return bytes.Compare(b.key, a.key)
		}
		return bytes.Compare(a.key, b.key)
	})
	rows = slices.CompactFunc(rows, func(a, b row) bool { return bytes.Equal(a.key, b.key) })
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
