package cli_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestTableCountOfAgainstRows: table count --of against figures the
// test works out from its own rows with exact rationals (math/big): per
// group of a key column (--depth) and of a record field (--by), with and
// without --where, how many rows hold a number in the field (a JSON
// number, or text that reads as a finite one; not other text, true, an
// array, null or no field), their sum (exact where every number is
// whole, past 2^64 too), least, greatest and mean.
func TestTableCountOfAgainstRows(t *testing.T) {
	db := filepath.Join(t.TempDir(), "agg.db")
	r := rand.New(rand.NewPCG(50, 2))
	pops := []string{`7`, `-3`, `0`, `12345678901234567891`, `18446744073709551615`, `2.5`, `-0.125`, `1e3`, `"42"`, `"07"`,
		`"x"`, `true`, `[1]`, `null`, `"1e999"`, ``}
	kinds := []string{"a", "b"}
	type row struct {
		country, kind, pop string // pop as JSON, "" for no field
	}
	var rows []row
	var lines []string
	for id := range 120 {
		rw := row{[]string{"NO", "SE", "DK", "FI"}[r.IntN(4)], kinds[r.IntN(2)], pops[r.IntN(len(pops))]}
		if r.IntN(9) == 0 { // a group of whole numbers alone
			rw.country, rw.pop = "IS", []string{`5`, `12345678901234567891`, `"9"`}[r.IntN(3)]
		}
		rows = append(rows, rw)
		field := ""
		if rw.pop != "" {
			field = `,"pop":` + rw.pop
		}
		lines = append(lines, fmt.Sprintf(`{"id":%d,"country":%q,"kind":%q%s}`, id, rw.country, rw.kind, field))
	}
	if _, stderr, code := run(t, strings.Join(lines, "\n")+"\n", "--db", db, "--quiet", "table", "import", "--table", "c", "--key-cols", "country,id", "--format", "ndjson", "-"); code != 0 {
		t.Fatal(stderr)
	}
	// number is the oracle's reading of a pop: exact, and whether it is
	// a number and a whole one.
	number := func(pop string) (*big.Rat, bool, bool) {
		text := pop
		if s, err := strconv.Unquote(pop); err == nil {
			text = s
		} else if pop == "" || pop == "true" || pop == "null" || strings.HasPrefix(pop, "[") {
			return nil, false, false
		}
		f, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsInf(f, 0) {
			return nil, false, false
		}
		q, _ := new(big.Rat).SetString(text)
		return q, true, !strings.ContainsAny(text, ".eE")
	}
	type figures struct {
		Rows, Numbers       int
		Sum, Min, Mean, Max *json.Number
	}
	if _, stderr, code := run(t, "", "--db", db, "table", "count", "--table", "c", "--of", ""); code != 2 || !strings.Contains(stderr, "--of wants the FIELD") {
		t.Errorf("--of with no field: exit %d, %q; want a usage error", code, stderr)
	}
	for _, tc := range []struct {
		args  []string
		group func(row) string
		keep  func(row) bool
	}{
		{[]string{"--depth", "1"}, func(rw row) string { return rw.country }, func(row) bool { return true }},
		{[]string{"--by", "kind"}, func(rw row) string { return rw.kind }, func(row) bool { return true }},
		{[]string{"--by", "country", "--where", "kind=a"}, func(rw row) string { return rw.country }, func(rw row) bool { return rw.kind == "a" }},
	} {
		args := append([]string{"--db", db, "--output", "json", "table", "count", "--table", "c", "--of", "pop"}, tc.args...)
		out, stderr, code := run(t, "", args...)
		if code != 0 {
			t.Fatalf("%v: %s", tc.args, stderr)
		}
		var got map[string]figures
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v: %v: %s", tc.args, err, out)
		}
		type oracle struct {
			rows, numbers int
			sum, min, max *big.Rat
			whole         bool
		}
		want := map[string]*oracle{}
		for _, rw := range rows {
			if !tc.keep(rw) {
				continue
			}
			o := want[tc.group(rw)]
			if o == nil {
				o = &oracle{sum: new(big.Rat), whole: true}
				want[tc.group(rw)] = o
			}
			o.rows++
			q, isNumber, whole := number(rw.pop)
			if !isNumber {
				continue
			}
			o.numbers++
			o.sum.Add(o.sum, q)
			o.whole = o.whole && whole
			if o.min == nil || q.Cmp(o.min) < 0 {
				o.min = q
			}
			if o.max == nil || q.Cmp(o.max) > 0 {
				o.max = q
			}
		}
		if len(got) != len(want) {
			t.Errorf("%v: groups %v, want %d", tc.args, got, len(want))
		}
		// NDJSON (and so CSV) is a line a group, in the table's order,
		// each with the JSON's figures.
		args[3] = "ndjson"
		lines := strings.Split(strings.TrimSpace(runOK(t, "", args...)), "\n")
		if len(lines) != len(got) {
			t.Errorf("%v: %d NDJSON lines for %d groups", tc.args, len(lines), len(got))
		}
		args[3] = "table"
		table := strings.Split(strings.TrimSpace(runOK(t, "", args...)), "\n")[1:]
		for i, line := range lines {
			var l struct {
				Group string
				figures
			}
			if err := json.Unmarshal([]byte(line), &l); err != nil {
				t.Fatalf("%v: NDJSON line %q: %v", tc.args, line, err)
			}
			ndjson, _ := json.Marshal(l.figures)
			want, _ := json.Marshal(got[l.Group])
			if string(ndjson) != string(want) || i >= len(table) || strings.Fields(table[i])[0] != l.Group {
				t.Errorf("%v: NDJSON line %d %q; the JSON's group %s, the table's line %q", tc.args, i, line, want, table[min(i, len(table)-1)])
				continue
			}
			// The table's line: the JSON's figures, a whole sum exact, a
			// sum with a fraction to 15 significant digits and a mean to 6.
			if f := strings.Fields(table[i]); l.Numbers > 0 && len(f) == 7 {
				sum, errSum := strconv.ParseFloat(f[3], 64)
				mean, errMean := strconv.ParseFloat(f[5], 64)
				jsonSum, _ := l.Sum.Float64()
				jsonMean, _ := l.Mean.Float64()
				exact := !strings.ContainsAny(l.Sum.String(), ".eE")
				if errSum != nil || errMean != nil || exact && f[3] != l.Sum.String() || !exact && math.Abs(sum-jsonSum) > 1e-14*math.Abs(jsonSum) ||
					math.Abs(mean-jsonMean) > 5e-6*math.Abs(jsonMean) || f[4] != l.Min.String() || f[6] != l.Max.String() {
					t.Errorf("%v: table line %q; the JSON's figures %s", tc.args, table[i], want)
				}
			} else if l.Numbers > 0 {
				t.Errorf("%v: table line %q has no figures; the JSON's %s", tc.args, table[i], want)
			}
		}
		rat := func(n *json.Number) *big.Rat {
			if n == nil {
				return nil
			}
			q, _ := new(big.Rat).SetString(n.String())
			return q
		}
		near := func(got, want *big.Rat) bool { // within 1e-12 of want, relatively
			if got == nil {
				return false
			}
			d := new(big.Rat).Sub(got, want)
			d.Abs(d)
			tol := new(big.Rat).Abs(want)
			tol.Mul(tol, big.NewRat(1, 1e12))
			return d.Cmp(tol) <= 0
		}
		for g, w := range want {
			f, ok := got[g]
			switch {
			case !ok || f.Rows != w.rows || f.Numbers != w.numbers:
				t.Errorf("%v group %s: %+v, want %d rows, %d numbers", tc.args, g, f, w.rows, w.numbers)
			case w.numbers == 0:
				if f.Sum != nil || f.Min != nil || f.Max != nil || f.Mean != nil {
					t.Errorf("%v group %s: figures %+v of no numbers", tc.args, g, f)
				}
			case rat(f.Min).Cmp(w.min) != 0 || rat(f.Max).Cmp(w.max) != 0:
				t.Errorf("%v group %s: min %v max %v, want %v and %v", tc.args, g, f.Min, f.Max, w.min.RatString(), w.max.RatString())
			case w.whole && rat(f.Sum).Cmp(w.sum) != 0, !w.whole && !near(rat(f.Sum), w.sum):
				t.Errorf("%v group %s: sum %v, want %v (whole: %v)", tc.args, g, f.Sum, w.sum.RatString(), w.whole)
			case !near(rat(f.Mean), new(big.Rat).Quo(w.sum, big.NewRat(int64(w.numbers), 1))):
				t.Errorf("%v group %s: mean %v of sum %v over %d", tc.args, g, f.Mean, w.sum.RatString(), w.numbers)
			}
		}
	}
}
