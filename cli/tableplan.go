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
// An index serves when an = condition names each of its fields with a
// value that is text and no number: its entries for that value, (value…,
// primary key), then list the rows in key order, as the table does, so
// the scan's order, limit and cursor are the table's. A row the
// conditions hold for has such an entry: its field is that very text,
// which an index keeps as text (typed). A number is left to the table's
// rows because a record holds one in several forms (7, "7", "7.0") that
// an index keeps apart, and true and false because a JSON record's
// booleans are no text. A partial index serves only when its own
// conditions are among the scan's, and an index with a build pending
// never does. Every row read through an index is still tested against
// every condition and the key range, so an entry of a multikey index
// (one per element of an array, which = never holds for) or of a
// partial index adds no row the table's rows would not give.
type scanPlan struct {
	ix    *indextable.Index[record]
	def   indexDef
	value composite.Tuple // the index value the conditions fix
}

// planScan chooses how to read the rows of t that the conditions where
// and whereIn (as --where and --where-in gave them) keep: the index of
// most fields that serves, the first defined of those, else the table.
func planScan(tx keyspace.Tx, t *indextable.Table[record], where, whereIn []string) (scanPlan, error) {
	var plan scanPlan
	if len(where) == 0 {
		return plan, nil
	}
	defs, err := loadIndexSpecs(tx, t.Name())
	if err != nil {
		return plan, err
	}
	equals := map[string]string{} // field → the text an = condition fixes it to
	for _, w := range where {
		m := conditionSyntax.FindStringSubmatch(w)
		if m == nil || m[2] != "=" || !plainText(m[3]) {
			continue
		}
		if other, ok := equals[m[1]]; ok && other != m[3] {
			return plan, nil // no row has two values: the table scan says so
		}
		equals[m[1]] = m[3]
	}
	for _, d := range defs {
		if len(d.Fields) <= len(plan.value) || !subset(d.Where, where) || !subset(d.WhereIn, whereIn) {
			continue
		}
		value := make(composite.Tuple, 0, len(d.Fields))
		for _, f := range d.Fields {
			text, ok := equals[strings.TrimPrefix(f, "-")]
			if !ok {
				break
			}
			var v any = text
			if strings.HasPrefix(f, "-") {
				v = composite.Desc{V: text}
			}
			value = append(value, v)
		}
		if len(value) < len(d.Fields) {
			continue
		}
		i := slices.IndexFunc(t.Indexes(), func(ix *indextable.Index[record]) bool { return ix.Name() == d.Name })
		if i < 0 {
			continue
		}
		ix := t.Indexes()[i]
		pending, err := ix.BuildPending(tx)
		if err != nil {
			return plan, err
		}
		if !pending {
			plan = scanPlan{ix: ix, def: d, value: value}
		}
	}
	return plan, nil
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

// explain is the plan as --explain prints it.
func (p scanPlan) explain(query string) string {
	if p.ix == nil {
		return fmt.Sprintf("plan: the table's rows %s, each tested against --where", rowsText(query))
	}
	fields := make([]string, len(p.def.Fields))
	for i, f := range p.def.Fields {
		fields[i] = strings.TrimPrefix(f, "-") + "=" + fmt.Sprint(p.value[i])
		if d, ok := p.value[i].(composite.Desc); ok {
			fields[i] = strings.TrimPrefix(f, "-") + "=" + fmt.Sprint(d.V)
		}
	}
	return fmt.Sprintf("plan: index %s's entries for %s %s, in key order, each row tested against --where", p.ix.Name(), strings.Join(fields, ", "), rowsText(query))
}

func rowsText(query string) string {
	if query == "" || query == "*" {
		return "(all of them)"
	}
	return "under " + query
}

// scanIndexPage is scanPage through the plan's index: the rows in r
// (the table range of the scan's key query, whose leading whole columns
// prefix narrows the entries read) that keep keeps, a page of limit (0:
// all) after cursor, a cursor of r's. It returns the page and how many
// entries it read.
func scanIndexPage(tx keyspace.Tx, t *indextable.Table[record], p scanPlan, r keyspace.Range, prefix composite.Tuple, reverse bool, limit int, cursor string, keep func(record) bool) (recordPage, int, error) {
	if limit < 0 {
		return recordPage{}, 0, usagef("--limit %d: must be positive", limit)
	}
	r.Reverse = reverse
	rr, err := r.Resume(cursor)
	if err != nil {
		return recordPage{}, 0, usageError{err}
	}
	entries := p.ix.Equal(slices.Concat(p.value, prefix)...)
	if cursor != "" { // on after the row the last page ended at
		last := rr.End
		if !reverse {
			last = rr.Start[:len(rr.Start)-1] // Resume's last key and a zero byte
		}
		pk, err := t.Records().Unpack(last)
		if err != nil {
			return recordPage{}, 0, usageError{fmt.Errorf("%w: %v", keyspace.ErrBadCursor, err)}
		}
		at := p.ix.Equal(slices.Concat(p.value, pk)...)
		if reverse {
			entries.End = at.Start
		} else {
			entries.Start = at.End
		}
	}
	var page recordPage
	read := 0
	var kept []indextable.Record[record]
	var keepErr error
	opts := &indextable.ListOptions{Reverse: reverse, Keep: func(e indextable.Entry) bool {
		read++
		recs, err := p.ix.Records(tx, []indextable.Entry{e})
		if err != nil && keepErr == nil {
			keepErr = err
		}
		if err != nil || len(recs) != 1 || !inRange(r, slices.Concat(t.Records().Bytes(), recs[0].Key.Pack())) || keep != nil && !keep(recs[0].Value) {
			return false
		}
		kept = append(kept, recs[0])
		return true
	}}
	if limit > 0 {
		opts.Limit = limit + 1 // one more says whether a next page starts
	}
	if _, err := p.ix.Scan(tx, entries, opts); err != nil {
		return recordPage{}, read, err
	}
	if keepErr != nil {
		return recordPage{}, read, keepErr
	}
	if limit > 0 && len(kept) > limit {
		kept = kept[:limit]
		page.next = r.Cursor(slices.Concat(t.Records().Bytes(), kept[limit-1].Key.Pack()))
	}
	page.records = kept
	return page, read, nil
}

// inRange reports whether key lies in r's bounds.
func inRange(r keyspace.Range, key []byte) bool {
	return bytes.Compare(key, r.Start) >= 0 && (r.End == nil || bytes.Compare(key, r.End) < 0)
}
