package cli

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"testing"

	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/indextable"
)

// FuzzNumberRangesHoldEveryMatch: whenever a number condition (< <= > >=
// =, or --where-in) holds for a record's field, the field's index entry
// lies in one of the ranges a plan reads for it (scanPlan.numberRanges)
// and is not passed over as text that reads as no number
// (readsAsNumber): on ascending and descending indexes, whose numbers
// are ordered or kept by kind. The field is text (as a CSV gives it) or
// a JSON number; the condition's own test (condition.holds) is the
// oracle, so a range that leaves out a row the table's rows would give
// fails here.
func FuzzNumberRangesHoldEveryMatch(f *testing.F) {
	for _, seed := range []struct {
		value    string
		isNumber bool
		op       uint8
		bound    string
		other    string
	}{
		{"7", true, 3, "7", ""}, {"7", false, 4, "7.0", ""}, {"-0.0", false, 4, "0", ""}, {"0", true, 1, "-0", ""},
		{"9007199254740993", false, 1, "9007199254740992", ""}, {"-9007199254740993", false, 3, "-9007199254740992", ""},
		{"9007199254740995", false, 3, "9007199254740996", ""}, {"9223372036854775807", false, 2, "9.2e18", ""},
		{"-9223372036854775808", false, 0, "-9e18", ""}, {"07", false, 4, "7", ""}, {"Inf", false, 2, "1e308", ""},
		{"0x1p3", false, 4, "8", ""}, {"1e1", false, 0, "10.5", ""}, {"7.5", true, 5, "7.5", "abc"},
		{"1e300", true, 5, "1e300", "-1"}, {"abc", false, 4, "abc", ""}, {"+7", false, 5, "7", "8"},
		{"infinity", false, 2, "0", ""}, {"-Inf", false, 0, "0", ""}, {".5", false, 4, "0.5", ""}, {"+Inf", false, 3, "1", ""},
		{"99999999999999999999", false, 3, "1e19", ""}, {"NaN", false, 5, "NaN", "1"},
		{"12345678901234567891", true, 4, "12345678901234567891", ""}, {"12345678901234567892", true, 2, "12345678901234567891", ""},
		{"18446744073709551615", true, 3, "1.8446744073709552e19", ""}, {"9007199254740993", true, 4, "9007199254740993", ""},
		{"123456789012345678901234", true, 2, "1e23", ""}, {"7.50", true, 5, "7.5", "8"},
	} {
		f.Add(seed.value, seed.isNumber, seed.op, seed.bound, seed.other)
	}
	f.Fuzz(func(t *testing.T, value string, isNumber bool, op uint8, bound, other string) {
		var v any = value
		if isNumber { // a JSON number, as a record holds one: finite, every digit kept
			n, err := strconv.ParseFloat(value, 64)
			var decoded any
			if err != nil || math.IsInf(n, 0) || decodeJSON([]byte(value), &decoded) != nil {
				return
			}
			if v, isNumber = decoded.(json.Number); !isNumber {
				return
			}
		}
		var where, whereIn []string
		if ops := []string{"<", "<=", ">", ">=", "="}; int(op)%6 < len(ops) {
			where = []string{"n" + ops[int(op)%6] + bound}
		} else {
			whereIn = []string{"n=" + strconv.Quote(bound) + "," + strconv.Quote(other)}
		}
		conds, err := parseConditions(where, whereIn)
		if err != nil {
			return
		}
		rec := record{"n": v}
		if !conds[0].holds(rec) {
			return
		}
		r := numberRanges(conds)["n"]
		if r == nil {
			if conds[0].op != "=" && conds[0].op != "in" {
				t.Fatalf("%v %v holds for %#v, and gives no range", where, whereIn, v)
			}
			return // = text, or an in with text: not a number range
		}
		for _, field := range []string{"n", "-n"} {
			for _, numbers := range []string{"", orderedNumbers} {
				d := indexDef{Name: "n", Fields: []string{field}, Numbers: numbers}
				tab := indextable.New[record]("t", nil)
				ix, err := tab.AddIndex(d.indexSpec())
				if err != nil {
					t.Fatal(err)
				}
				plan := scanPlan{ix: ix, fields: d.Fields, values: []composite.Tuple{{}}, ranged: r}
				ranges := plan.numberRanges(composite.Tuple{})
				for _, entry := range d.indexSpec().Values(rec) {
					at := ix.Equal(entry...)
					in := false
					for _, rr := range ranges {
						in = in || bytes.Compare(rr.Start, at.Start) <= 0 && bytes.Compare(at.End, rr.End) <= 0
					}
					if !in || !readsAsNumber(entry, 0) {
						t.Fatalf("%v %v holds for %#v, whose entry %#v (index %s, numbers %q) the plan's ranges leave out (read as a number: %v)",
							where, whereIn, v, entry, field, numbers, readsAsNumber(entry, 0))
					}
				}
			}
		}
	})
}
