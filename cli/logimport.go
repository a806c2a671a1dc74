package cli

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/enumkeys"
	ucli "github.com/urfave/cli/v2"
)

func logImportCommand() *ucli.Command {
	return &ucli.Command{
		Name: "import", Usage: "append the rows of a CSV or TSV (with a header, or --columns), NDJSON, JSON or XML file as items, each under its parent, in time order; all or nothing unless --skip-bad",
		UsageText: "keyspace log import --log comments --parent-col UserId --time-col CreationDate --format xml --skip-bad Comments.xml\n" +
			"keyspace log scan --log inbox --output ndjson | keyspace --db copy.db log import --log inbox --parent-col parent --time-col time --data-col data --format ndjson -",
		ArgsUsage: "FILE|-",
		Flags: append([]ucli.Flag{
			&ucli.StringFlag{Name: "log", Required: true, Usage: "the log `NAME`"},
			&ucli.StringFlag{Name: "parent-col", Value: "parent", Usage: "the `COLUMN` naming each item's parent (a user), unless --parent is given"},
			&ucli.StringFlag{Name: "parent", Aliases: []string{"p"}, Usage: "every item's `PARENT`, for a file of one parent's items"},
			&ucli.StringFlag{Name: "time-col", Usage: "the `COLUMN` of each item's time: " + timeColumnForms, DefaultText: "every item stamped now"},
			&ucli.StringFlag{Name: "data-col", Usage: "the `COLUMN` whose text is each item's data", DefaultText: "the row's other fields as a JSON object"},
			typedFlag(),
		}, recordFileFlags()...),
		Action: logImport,
	}
}

// logEntry is a row of a log import, read and checked: the item it
// appends, and the row it came from.
type logEntry struct {
	enumkeys.Entry
	where string
}

// logImport appends a file's rows to a log in one transaction. The items
// are appended in time order (ties in the file's order), so that, as in a
// log written as things happened, a parent's ids follow its items' times
// and log latest shows the newest, whatever order the file is in (the
// USGS feed is newest first). Each parent's ids continue from its last.
func logImport(c *ucli.Context) error {
	columns := []string{"time-col", "data-col"}
	switch {
	case c.IsSet("parent") && c.IsSet("parent-col"):
		return usagef("log import takes --parent-col (each row's parent) or --parent (one parent for every row), not both")
	case !c.IsSet("parent"):
		columns = append(columns, "parent-col") // "parent" unless given
	}
	rows, bad, err := recordRows(c, columns...)
	if err != nil {
		return err
	}
	now := time.Now()
	l := enumkeys.NewLog(c.String("log"))
	var entries []logEntry
	cols := newLogColumns(c)
	for _, r := range rows {
		e, err := cols.entry(r, now)
		if err == nil {
			err = l.Validate(e.Parent, e.At) // what Append refuses: a parent too long for a key
		}
		if err != nil {
			if err := bad.add(r.where(), err); err != nil {
				return err
			}
			continue
		}
		entries = append(entries, logEntry{e, r.where()})
	}
	slices.SortStableFunc(entries, func(a, b logEntry) int { return a.At.Compare(b.At) })
	batch := make([]enumkeys.Entry, len(entries))
	parents := map[string]bool{}
	for i, e := range entries {
		batch[i] = e.Entry
		parents[e.Parent] = true
	}
	// One AppendAll: each parent's counter read and written once, the
	// keys written in order (as bbolt needs a large transaction's).
	if err := updateDB(c, func(tx keyspace.Tx) error {
		_, err := l.AppendAll(tx, batch)
		if ee := (*enumkeys.EntryError)(nil); errors.As(err, &ee) {
			return bad.add(entries[ee.Index].where, ee.Err)
		}
		return err
	}); err != nil {
		return err
	}
	notes := unreadTimes(c, rows, "item")
	if !c.IsSet("data-col") && anyRowHas(rows, "data") {
		notes = append(notes, "each item's data the row's other fields as a JSON object, not its data column (--data-col data reads it)")
	}
	reportImport(c, count(len(batch), "item"), fmt.Sprintf("log %s under %s", l.Name(), count(len(parents), "parent")), bad.rows, notes...)
	return nil
}

// unreadTimes is the import note for rows with a time column that
// --time-col did not name, so that every what (item, link) was stamped
// now: a log scan or rel scan piped into an import without --time-col
// time lost its times without a word.
func unreadTimes(c *ucli.Context, rows []row, what string) []string {
	if c.IsSet("time-col") || !anyRowHas(rows, "time") {
		return nil
	}
	return []string{fmt.Sprintf("every %s stamped now, not at the rows' time column (--time-col time reads it)", what)}
}

// logColumns is what a log import reads from each row, its flags read
// once: the parent (a column, or one for every row), the time and the
// data columns, and --typed.
type logColumns struct {
	parent, parentCol, timeCol, dataCol string
	typed                               bool
}

func newLogColumns(c *ucli.Context) logColumns {
	parentCol := c.String("parent-col")
	if c.IsSet("parent") {
		parentCol = ""
	}
	return logColumns{c.String("parent"), parentCol, c.String("time-col"), c.String("data-col"), c.Bool("typed")}
}

// entry reads a row's parent, time and data.
func (lc logColumns) entry(r row, now time.Time) (enumkeys.Entry, error) {
	e := enumkeys.Entry{Parent: lc.parent, At: now}
	if r.bad != nil {
		return e, r.bad
	}
	if lc.parentCol != "" {
		p, err := logField(r, "parent", lc.parentCol)
		if err == nil && p == "" {
			err = fmt.Errorf("no parent: %s is empty", lc.parentCol)
		}
		if err != nil {
			return e, err
		}
		e.Parent = p
	}
	if lc.timeCol != "" {
		text, err := logField(r, "time", lc.timeCol)
		if err != nil {
			return e, err
		}
		if e.At, err = parseTimeField(text); err != nil {
			return e, err
		}
	}
	if lc.dataCol != "" {
		text, err := logField(r, "data", lc.dataCol)
		e.Data = []byte(text)
		return e, err
	}
	obj := map[string]any{}
	for k := range r.names() {
		if k != lc.parentCol && k != lc.timeCol {
			obj[k] = r.value(k, lc.typed)
		}
	}
	e.Data, _ = marshal(obj)
	return e, nil
}

// logField is a row's column col, which says the item's what; a row
// without it (an XML element or NDJSON object lacking it) is bad.
func logField(r row, what, col string) (string, error) {
	v, ok := r.field(col)
	if !ok {
		return "", fmt.Errorf("no %s: the row has no %s", what, col)
	}
	return v, nil
}
