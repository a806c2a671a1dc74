package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/keyspacedb/keyspace"
)

// tableIncrCommand is table incr, Redis's HINCRBY and HINCRBYFLOAT on a
// table's row: it adds to number fields of one row, creating the row and
// the fields when absent (as 0), keeping its expiry and its index entries
// in step, in one transaction (indextable.Table.Update): the seeds'
// atomic aggregate, a read-modify-write no other writer can interleave
// with.
func tableIncrCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "incr",
		Usage: "add to number fields of one row by its whole key, creating it and them (as 0) when absent, keeping its expiry and its indexes in step (Redis's HINCRBY, HINCRBYFLOAT); prints the new values",
		UsageText: "keyspace table incr --table pages home views=1\n" +
			"keyspace table incr --table stock 'NO:Oslo:17' count=-3 weight=0.25",
		ArgsUsage: "KEY FIELD=N [FIELD=N...]",
		Description: "Whole numbers add exactly, as int64s (a sum past them is an error, as Redis's is); any other number " +
			"as float64s, which must stay finite. A field must hold a number, or text written as a JSON number is (a CSV's \"70\", not the code \"07\"); " +
			"a field that holds anything else is an error, and nothing is written. It prints each field's new value, in " +
			"the order given (--output json: an object of them).",
		Flags:  []ucli.Flag{tableFlag()},
		Action: tableIncr,
	}
}

// increment is one FIELD=N of table incr.
type increment struct {
	field string
	by    json.Number
}

func tableIncr(c *ucli.Context) error {
	format, err := output(c, "table", "json")
	if err != nil {
		return err
	}
	if c.NArg() < 2 {
		return usagef("table incr wants a KEY, then FIELD=N pairs")
	}
	var incs []increment
	for _, arg := range c.Args().Tail() {
		field, n, ok := strings.Cut(arg, "=")
		if !ok || field == "" {
			return usagef("%q: want FIELD=N", arg)
		}
		if _, err := strconv.ParseFloat(n, 64); err != nil || !isJSONNumber(n) {
			return usagef("%q: %q is not a number to add", arg, n)
		}
		if slices.ContainsFunc(incs, func(i increment) bool { return i.field == field }) {
			return usagef("%q: field %s is given twice", arg, field)
		}
		incs = append(incs, increment{field, json.Number(n)})
	}
	values := make([]json.Number, len(incs))
	err = updateDB(c, func(tx keyspace.Tx) error {
		fields := make([]string, len(incs))
		for i, inc := range incs {
			fields[i] = inc.field
		}
		t, schema, key, err := rowToEdit(c, tx, fields)
		if err != nil {
			return err
		}
		_, err = t.Update(tx, key, func(r *record) error {
			if *r == nil { // no row (or one that expired)
				*r = newRow(key, schema)
			}
			for i, inc := range incs {
				sum, err := addTo((*r)[inc.field], inc.by)
				if err != nil {
					return fmt.Errorf("row %s field %s: %w", c.Args().First(), inc.field, err)
				}
				(*r)[inc.field], values[i] = sum, sum
			}
			return nil
		})
		return err
	})
	if err != nil {
		return err
	}
	if format == "json" {
		out := make(map[string]json.Number, len(incs))
		for i, inc := range incs {
			out[inc.field] = values[i]
		}
		return writeJSON(c.App.Writer, out)
	}
	for _, v := range values {
		fmt.Fprintln(c.App.Writer, v)
	}
	return nil
}

// errNotANumber is addTo's error for a field that holds no number.
var errNotANumber = errors.New("holds no number to add to")

// addTo is current + by: current a field's value (nil when absent: 0; a
// number; or text written as a JSON number is, so a CSV's "70" but not
// the code "07"). Two whole numbers add as int64s,
// exactly, and a sum past them is an error; any other pair as float64s,
// whose sum must be finite.
func addTo(current any, by json.Number) (json.Number, error) {
	var have string
	switch v := current.(type) {
	case nil:
		have = "0"
	case json.Number:
		have = v.String()
	case string:
		have = strings.TrimSpace(v)
		if _, err := strconv.ParseFloat(have, 64); err != nil || !isJSONNumber(have) {
			return "", fmt.Errorf("%w: %q", errNotANumber, v)
		}
	default:
		b, _ := marshal(v)
		return "", fmt.Errorf("%w: %s", errNotANumber, b)
	}
	if whole(have) && whole(by.String()) {
		a, errA := strconv.ParseInt(have, 10, 64)
		b, errB := strconv.ParseInt(by.String(), 10, 64)
		sum := a + b
		if errA != nil || errB != nil || (b > 0 && sum < a) || (b < 0 && sum > a) {
			return "", fmt.Errorf("%s + %s is past the int64s (-9223372036854775808 to 9223372036854775807), which whole numbers add in", have, by)
		}
		return json.Number(strconv.FormatInt(sum, 10)), nil
	}
	x, errX := strconv.ParseFloat(have, 64)
	y, errY := strconv.ParseFloat(by.String(), 64)
	sum := x + y
	if errX != nil || errY != nil || math.IsInf(sum, 0) || math.IsNaN(sum) {
		return "", fmt.Errorf("%s + %s is past a float64's range", have, by)
	}
	b, err := json.Marshal(sum) // as encoding/json writes a float64: 1000000, 1e+21
	return json.Number(b), err
}

// isJSONNumber reports whether s is written as a JSON number is: no
// leading +, no Inf or NaN, no hex (which strconv.ParseFloat reads).
func isJSONNumber(s string) bool {
	var n json.Number
	return json.Unmarshal([]byte(s), &n) == nil && n.String() == s
}
