package cli

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/indextable"
	ucli "github.com/urfave/cli/v2"
)

func relImportCommand() *ucli.Command {
	return &ucli.Command{
		Name: "import", Usage: "link the pairs a CSV or TSV (with a header, or --columns), NDJSON, JSON or XML file's rows name (a user likes an item), in one transaction; all or nothing unless --skip-bad",
		UsageText: "keyspace rel import --rel likes --left-col user --right-col item --time-col at likes.csv\n" +
			"keyspace rel import --rel commented --left-col UserId --right-col PostId --time-col CreationDate --format xml --skip-bad Comments.xml",
		ArgsUsage: "FILE|-",
		Flags: append([]ucli.Flag{relFlag(),
			&ucli.StringFlag{Name: "left-col", Value: "left", Usage: "the `COLUMN` of each link's left side (a user)"},
			&ucli.StringFlag{Name: "right-col", Value: "right", Usage: "the `COLUMN` of each link's right side (an item)"},
			&ucli.StringFlag{Name: "time-col", Usage: "the `COLUMN` of each link's time: " + timeColumnForms, DefaultText: "every link made now"},
			&ucli.StringFlag{Name: "left-fields-cols", Usage: "`COLUMNS` (comma-separated) whose values, as a JSON object, show with each left in its rights' lists (rel link --left-fields; a left's last row sets them)"},
			&ucli.StringFlag{Name: "right-fields-cols", Usage: "`COLUMNS` (comma-separated) whose values show with each right in its lefts' lists (rel link --right-fields)"},
		}, recordFileFlags()...),
		Action: relImport,
	}
}

// relImport links a file's pairs with one LinkAll: as rel link of each
// row in the file's order would (a pair named twice is linked at its last
// row's time), its keys written in order. With --left-fields-cols and
// --right-fields-cols it records each entity's fields, from its last row,
// before the links copy them.
func relImport(c *ucli.Context) error {
	rows, bad, err := recordRows(c, "left-col", "right-col", "time-col")
	if err != nil {
		return err
	}
	name := bad.name
	var fieldCols [2][]string // the left's and the right's
	for i, flag := range []string{"left-fields-cols", "right-fields-cols"} {
		if c.String(flag) == "" {
			continue
		}
		for _, col := range strings.Split(c.String(flag), ",") {
			if len(rows) > 0 && !anyRowHas(rows, col) {
				return fmt.Errorf("%s: no row has a %s column (choose others with --%s; nothing imported)%s", name, col, flag, rowsHint(rows, col))
			}
			fieldCols[i] = append(fieldCols[i], col)
		}
	}
	leftCol, rightCol, timeCol := c.String("left-col"), c.String("right-col"), c.String("time-col")
	rel := indextable.NewRelation(c.String("rel"))
	fields := [2]map[string][]byte{{}, {}} // each left's and right's, from its last row
	now := time.Now()
	var edges []indextable.Edge
	var wheres []string // each edge's row
	for _, r := range rows {
		e, err := edgeOf(r, leftCol, rightCol, timeCol, now)
		if err == nil {
			err = rel.ValidateLink(e.Left, e.Right, e.At)
		}
		if err != nil {
			if err := bad.add(r.where(), err); err != nil {
				return err
			}
			continue
		}
		edges, wheres = append(edges, e), append(wheres, r.where())
		for i, id := range []string{e.Left, e.Right} {
			if fieldCols[i] != nil {
				obj := map[string]any{}
				for _, col := range fieldCols[i] {
					if _, ok := r.field(col); ok {
						obj[col] = r.value(col, false)
					}
				}
				fields[i][id], _ = marshal(obj)
			}
		}
	}
	if err := updateDB(c, func(tx keyspace.Tx) error {
		// The entities' fields first, in key order, so that the links
		// copy them; then the links.
		for i, set := range []func(keyspace.Tx, string, []byte) (int, error){rel.SetLeftFields, rel.SetRightFields} {
			for _, id := range slices.Sorted(maps.Keys(fields[i])) {
				if _, err := set(tx, id, fields[i][id]); err != nil {
					return err
				}
			}
		}
		err := rel.LinkAll(tx, edges)
		if ee := (*indextable.EdgeError)(nil); errors.As(err, &ee) {
			return bad.add(wheres[ee.Index], ee.Err)
		}
		return err
	}); err != nil {
		return err
	}
	type pair struct{ left, right string }
	distinct := map[pair]bool{}
	for _, e := range edges {
		distinct[pair{e.Left, e.Right}] = true
	}
	var notes []string
	if n := len(edges) - len(distinct); n > 0 {
		notes = append(notes, fmt.Sprintf("%s named a pair an earlier row did (linked at the last one's time)", count(n, "row")))
	}
	notes = append(notes, unreadTimes(c, rows, "link")...)
	reportImport(c, count(len(distinct), "link"), "relation "+c.String("rel"), bad.rows, notes...)
	return nil
}

// edgeOf reads a row's left, right and time.
func edgeOf(r row, leftCol, rightCol, timeCol string, now time.Time) (indextable.Edge, error) {
	e := indextable.Edge{At: now}
	if r.bad != nil {
		return e, r.bad
	}
	for _, side := range []struct {
		col string
		to  *string
	}{{leftCol, &e.Left}, {rightCol, &e.Right}} {
		v, ok := r.field(side.col)
		switch {
		case !ok:
			return e, fmt.Errorf("the row has no %s", side.col)
		case v == "":
			return e, fmt.Errorf("%s is empty", side.col)
		}
		*side.to = v
	}
	if timeCol != "" {
		text, ok := r.field(timeCol)
		if !ok {
			return e, fmt.Errorf("the row has no %s", timeCol)
		}
		at, err := parseTimeField(text)
		if err != nil {
			return e, err
		}
		e.At = at
	}
	return e, nil
}
