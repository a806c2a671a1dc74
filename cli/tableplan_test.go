package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/keyspacedb/keyspace/cli"
)

// TestScanPlanAgainstTableRows: table scan --where through an index (the
// plan --explain names) against the same scan reading the table's rows
// (--no-index), with = and --where-in conditions (the rows of several
// index values merged), over records whose fields are text, numbers in several
// forms, booleans, arrays (a multikey index), objects and missing, with
// compound, descending, partial and pending indexes, key queries, both
// directions and pages whose cursors pass between the two plans: every
// scan keeps the same rows in the same order, and many went through an
// index. table count --where counts the rows the scan lists, and table
// del --where deletes just those.
func TestScanPlanAgainstTableRows(t *testing.T) {
	db := filepath.Join(t.TempDir(), "plan.db")
	r := rand.New(rand.NewPCG(11, 12))
	values := []any{"open", "done", "7", 7, 7.5, "7.0", true, "true", "", "a b", []any{"open", "done"}, []any{"x"}, map[string]any{"a": 1}, nil}
	// Numbers in every form an index keeps apart: whole, fractional and
	// text of both (int64, float64, string: typed), text that reads as a
	// number but is kept as text, zeros of both signs, and whole numbers
	// past 2^53, where a float64 rounds them.
	numbers := []any{0, -3, 7, 7.5, 8, "7", "7.0", "07", "+7", "-0.0", "0.0", "1e3", "Inf", "0x1p3", "abc", "", 9007199254740993, "9007199254740993", "9007199254740995", "-9007199254740993", "-9223372036854775808", 1e300, []any{3, 8}, true, nil}
	var ndjson strings.Builder
	for i := range 300 {
		rec := map[string]any{"st": []string{"US", "FR", "NO"}[i%3], "id": i}
		for _, f := range []string{"status", "city", "kind"} {
			if v := values[r.IntN(len(values))]; v != nil {
				rec[f] = v
			}
		}
		rec["qty"] = r.IntN(10)
		if v := numbers[r.IntN(len(numbers))]; v != nil {
			rec["n"] = v
		}
		b, _ := json.Marshal(rec)
		ndjson.Write(append(b, '\n'))
	}
	runOK(t, ndjson.String(), "--db", db, "-q", "table", "import", "--table", "o", "--key-cols", "st,id", "--format", "ndjson", "-")
	for _, args := range [][]string{
		{"--name", "status", "--fields", "status"},
		{"--name", "status_city", "--fields", "status,-city"},
		{"--name", "kind_open", "--fields", "kind", "--where", "status=open"},
		{"--name", "pending", "--fields", "city"},
		{"--name", "kind_qty", "--fields", "kind,-qty,city"}, // kind fixed, the rest read and sorted
		{"--name", "n_desc", "--fields", "-n"},               // a number range, descending
		{"--name", "kind_n", "--fields", "kind,n"},           // kind fixed, a number range after it
	} {
		runOK(t, "", slices.Concat([]string{"--db", db, "-q", "index", "create", "--table", "o"}, args)...)
	}
	markUnbuilt(t, db, "o", "pending")
	texts := []string{"open", "done", "7", "7.0", "true", "", "a b", "x", "nothing"}
	// Bounds for n: zeros of both signs, and whole numbers at and past
	// 2^53 (2^53+3 rounds up to 2^53+4, -2^53-1 to -2^53).
	bounds := []string{"-1", "0", "-0", "7", "7.5", "8", "1000", "9007199254740992", "9007199254740994", "9007199254740996", "-9007199254740992", "-9223372036854775808", "1e300", "Inf", "NaN"}
	ops := []string{"<", "<=", ">", ">=", "="}
	scan := func(args []string, plans []bool) ([]string, int) {
		var keys []string
		cursor, viaIndex := "", 0
		for page := 0; ; page++ {
			a := slices.Concat([]string{"--db", db, "-o", "json", "table", "scan", "--table", "o", "--explain"}, args)
			if cursor != "" {
				a = append(a, "--cursor", cursor)
			}
			if !plans[page%len(plans)] {
				a = append(a, "--no-index")
			}
			out, stderr, code := run(t, "", a...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", a, code, stderr)
			}
			if strings.HasPrefix(stderr, "plan: index") {
				viaIndex++
			}
			var p struct {
				Rows []struct{ Key string }
				Next string
			}
			if err := json.Unmarshal([]byte(out), &p); err != nil {
				t.Fatalf("%v: %v\n%s", a, err, out)
			}
			for _, row := range p.Rows {
				keys = append(keys, row.Key)
			}
			if cursor = p.Next; cursor == "" || page > 400 {
				return keys, viaIndex
			}
		}
	}
	conditions := func() []string {
		var args []string
		for _, f := range []string{"status", "city", "kind"} {
			if r.IntN(3) > 0 {
				args = append(args, "--where", f+"="+texts[r.IntN(len(texts))])
			}
		}
		switch r.IntN(10) {
		case 0:
			args = append(args, "--where", fmt.Sprintf("qty>=%d", r.IntN(10)))
		case 1:
			args = append(args, "--where-in", "qty=1,2,3")
		case 2:
			args = append(args, "--where", "status=open") // a repeated condition, or one a partial index needs
		case 3, 4: // values that merge, or (a number, true) that send the scan to the table
			for _, f := range []string{"status", "city", "kind"} {
				if r.IntN(2) == 0 {
					in := []string{texts[r.IntN(len(texts))], texts[r.IntN(len(texts))], texts[r.IntN(len(texts))]}
					args = append(args, "--where-in", f+"="+strings.Join(in[:1+r.IntN(3)], ","))
				}
			}
		case 5: // only values that merge, each held by many rows
			args = []string{"--where-in", "status=open,done,a b"}
			if r.IntN(2) == 0 {
				args = append(args, "--where-in", "city=open,,done")
			}
		case 6: // a plan that fixes kind and reads the rows under it whole
			args = []string{"--where-in", "kind=open,done,", "--where", fmt.Sprintf("qty<%d", r.IntN(12)), "--where", "city!=x"}
			if r.IntN(2) == 0 {
				args = append(args, "--where", "city>=0") // a value there: the plan serves
			}
		case 7, 8: // number ranges, = a number and --where-in numbers: read through n's indexes
			for range 1 + r.IntN(2) {
				op := ops[r.IntN(len(ops))]
				args = append(args, "--where", "n"+op+bounds[r.IntN(len(bounds))])
			}
			if r.IntN(3) == 0 {
				args = append(args, "--where-in", "n="+bounds[r.IntN(len(bounds))]+","+bounds[r.IntN(len(bounds))])
			}
		}
		return args
	}
	viaIndex := 0
	for q := range 150 {
		args := conditions()
		if query := []string{"", "", "US:*", "FR:*", "NO:4", "*"}[r.IntN(6)]; query != "" {
			args = append(args, query)
		}
		if r.IntN(3) == 0 {
			args = append(args, "--reverse")
		}
		whole, _ := scan(slices.Concat(args, []string{"--no-index"}), []bool{false})
		var plans []bool
		if r.IntN(2) == 0 {
			args = append(args, "--limit", fmt.Sprint(1+r.IntN(4)))
			plans = []bool{true, false, true} // cursors pass between plans
		} else {
			plans = []bool{true}
		}
		got, n := scan(args, plans)
		viaIndex += n
		if !slices.Equal(got, whole) {
			t.Fatalf("query %d, table scan %q: %q through the plan, %q reading the table", q, args, got, whole)
		}
		if !slices.Contains(args, "--limit") { // --output count: how many the scan lists
			if n := runOK(t, "", slices.Concat([]string{"--db", db, "-o", "count", "table", "scan", "--table", "o"}, args)...); n != fmt.Sprintln(len(whole)) {
				t.Fatalf("query %d, table scan %q -o count: %q, want %d", q, args, n, len(whole))
			}
		}
	}
	if viaIndex < 50 {
		t.Errorf("only %d pages were read through an index", viaIndex)
	}
	// Every bound with every operator on n alone, and pairs of them, read
	// through n's index, keep the rows reading the table's rows keeps.
	var ranges [][]string
	for _, op := range ops {
		for _, bound := range bounds {
			ranges = append(ranges, []string{"--where", "n" + op + bound})
		}
	}
	for range 40 {
		pair := []string{"--where", "n" + ops[r.IntN(len(ops))] + bounds[r.IntN(len(bounds))]}
		if r.IntN(2) == 0 {
			pair = append(pair, "--where", "n"+ops[r.IntN(len(ops))]+bounds[r.IntN(len(bounds))])
		} else {
			pair = append(pair, "--where-in", "n="+bounds[r.IntN(len(bounds))]+","+bounds[r.IntN(len(bounds))])
		}
		ranges = append(ranges, pair)
	}
	for _, args := range ranges {
		if r.IntN(2) == 0 {
			args = append(args, "--reverse")
		}
		whole, _ := scan(slices.Concat(args, []string{"--no-index"}), []bool{false})
		got, n := scan(args, []bool{true})
		if !slices.Equal(got, whole) || n == 0 && !strings.Contains(strings.Join(args, " "), "NaN") { // a NaN narrows nothing
			t.Fatalf("table scan %q: %q through the plan (%d pages through an index), %q reading the table", args, got, n, whole)
		}
	}
	// An index with a build pending is never the plan, and --explain
	// says which is.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--where", "city=x"}, "plan: the table's rows (all of them), each tested against --where: 300 rows read"},
		{[]string{"FR:*", "--limit", "3"}, "plan: the table's rows under FR:*: 4 rows read, 3 rows kept"},
		{nil, "plan: the table's rows (all of them): 300 rows read, 300 rows kept"},
		{[]string{"--where", "status=done", "US:*"}, "plan: index status's entries for status=done under US:*"},
		{[]string{"--where", "status=done", "--where", "city=x"}, "plan: index status_city's entries for status=done, city=x"},
		{[]string{"--where", "kind=x"}, "plan: the table's rows"},
		{[]string{"--where", "kind=x", "--where", "status=open"}, "plan: index kind_open's entries for kind=x"},
		{[]string{"--where", "status=7"}, "plan: index status's entries for status=7 (all of them), sorted into key order"}, // a number: its forms' ranges
		{[]string{"--where", "n>=7", "--where", "n<8"}, "plan: index n_desc's entries for n>=7, n<8 (all of them), sorted into key order"},
		{[]string{"--where", "kind=open", "--where-in", "n=1,7"}, "plan: index kind_n's entries for kind=open, n in 1,7 (all of them), sorted into key order"},
		{[]string{"--where", "status=open", "--where", "n>=7"}, "plan: index status's entries for status=open"}, // full before a range
		{[]string{"--where", "n!=7"}, "plan: the table's rows"},
		{[]string{"--where", "n>=-1e300", "--limit", "1"}, "plan: the table's rows (all of them), each tested against --where (index n_desc's entries for n>=-1e300 number more than 64, 64 for each row of the page)"},
		{[]string{"--where", "n>=1e300", "--limit", "1"}, "plan: index n_desc's entries for n>=1e300 (all of them), sorted into key order"},
		{[]string{"--where", "status=true"}, "plan: the table's rows"},
		{[]string{"--where", "status=open", "--where", "status=done"}, "plan: the table's rows"},
		{[]string{"--where-in", "status=open,done", "--where-in", "city=x,a b"}, "plan: index status_city's entries for status in done,open, city in a b,x (all of them)"},
		{[]string{"--where-in", "status=open,done,x", "--where", "status=x"}, "plan: index status's entries for status=x"},
		{[]string{"--where-in", "status=open,7"}, "plan: the table's rows"},
		{[]string{"--where", "kind=open", "--where", "qty>=3", "--where", "city=7"}, "plan: index kind_qty's entries for kind=open, qty>=3 (all of them), sorted into key order"},
		{[]string{"--where", "kind=open", "--where", "qty>=3", "--where", "city!=7"}, "plan: the table's rows"},       // a row with no city has no entry
		{[]string{"--where", "kind=open", "--where", "status=open"}, "plan: index kind_open's entries for kind=open"}, // a tie: the first by name
		// Of the plans that serve, the one that reads the fewest entries,
		// for the page asked: status_city's open rows with a number for a
		// city, or a page (and one more) of status's open rows.
		{[]string{"--where", "status=open", "--where", "city>=0"}, "plan: index status_city's entries for status=open, city>=0 (all of them), sorted into key order, each row tested against --where (the fewest: "},
		{[]string{"--where", "status=open", "--where", "city>=0", "--limit", "2"}, "plan: index status's entries for status=open"},
	} {
		_, stderr, code := run(t, "", slices.Concat([]string{"--db", db, "table", "scan", "--table", "o", "--explain"}, c.args)...)
		if code != 0 || !strings.HasPrefix(stderr, c.want) {
			t.Errorf("%q: exit %d, %q; want %q", c.args, code, stderr, c.want)
		}
	}

	// table count --where counts the rows table scan --where --no-index
	// lists, by their first column, or by the whole key.
	for round := range 20 {
		args := conditions()
		query := []string{"", "US", "FR:*", "*"}[r.IntN(4)]
		depth := 1 + r.IntN(2)
		under := query // as table scan takes it: US names no row, US:* the rows under it
		if query == "US" {
			under = "US:*"
		}
		listed, _ := scan(slices.Concat(args, []string{"--no-index", under}), []bool{false})
		want := map[string]int{}
		for _, key := range listed {
			if depth == 1 {
				key, _, _ = strings.Cut(key, ":")
			}
			want[key]++
		}
		var got map[string]int
		out := runOK(t, "", slices.Concat([]string{"--db", db, "-o", "json", "table", "count", "--table", "o", "--depth", fmt.Sprint(depth), query}, args)...)
		if err := json.Unmarshal([]byte(out), &got); err != nil || !maps.Equal(got, want) {
			t.Fatalf("round %d: table count --depth %d %q %q: %v %v, want %v", round, depth, query, args, got, err, want)
		}
	}

	// table del --where deletes what table scan --where --no-index
	// lists, and leaves every other row and a sound file.
	runOK(t, "", "--db", db, "-q", "index", "build", "--table", "o", "--name", "pending")
	for round := range 20 {
		args := conditions()
		if len(args) == 0 {
			continue
		}
		all, _ := scan(nil, []bool{false})
		matched, _ := scan(slices.Concat(args, []string{"--no-index"}), []bool{false})
		_, stderr, code := run(t, "", slices.Concat([]string{"--db", db, "table", "del", "--table", "o"}, args)...)
		if code != 0 || !strings.HasPrefix(stderr, fmt.Sprintf("deleted %d row", len(matched))) {
			t.Fatalf("round %d: table del %q: exit %d, %q; the scan matched %d rows", round, args, code, stderr, len(matched))
		}
		left, _ := scan(nil, []bool{false})
		if want := slices.DeleteFunc(all, func(k string) bool { return slices.Contains(matched, k) }); !slices.Equal(left, want) {
			t.Fatalf("round %d: table del %q left %d rows, want %d", round, args, len(left), len(want))
		}
		if out, stderr, code := run(t, "", "--db", db, "verify"); code != 0 {
			t.Fatalf("round %d: verify after table del %q: exit %d\n%s%s", round, args, code, out, stderr)
		}
	}
}

// BenchmarkTableScanWhere: table scan --where status=s7 --where qty>=0
// over 50,000 rows of 20 statuses on bbolt, through the index on status
// (its entries in key order), through one on status,-qty (its entries
// under s7 read whole and sorted) and reading the table's rows
// (--no-index); and --where qty>=5 through status,-qty (the entries
// under s7 of 5 and 6 only) and reading the rows; as the command runs
// it: open the file, plan, read, print.
func BenchmarkTableScanWhere(b *testing.B) {
	db := filepath.Join(b.TempDir(), "bench.db")
	var csv strings.Builder
	csv.WriteString("id,status,qty\n")
	for i := range 50_000 {
		fmt.Fprintf(&csv, "%d,s%d,%d\n", i, i%20, i%7)
	}
	for _, step := range []struct {
		stdin string
		args  []string
	}{
		{csv.String(), []string{"table", "import", "--table", "o", "--key-cols", "id", "-"}},
		{"", []string{"index", "create", "--table", "o", "--name", "by_status", "--fields", "status"}},
		{csv.String(), []string{"table", "import", "--table", "p", "--key-cols", "id", "-"}},
		{"", []string{"index", "create", "--table", "p", "--name", "status_qty", "--fields", "status,-qty"}},
	} {
		var out, errb bytes.Buffer
		if code := cli.Run(slices.Concat([]string{"keyspace", "--db", db, "-q"}, step.args), strings.NewReader(step.stdin), &out, &errb); code != 0 {
			b.Fatal(errb.String())
		}
	}
	ranged := 0 // the rows of s7 with a quantity of 5 or 6
	for i := 7; i < 50_000; i += 20 {
		if i%7 >= 5 {
			ranged++
		}
	}
	for _, plan := range []struct {
		name, table, flag string
		rows              int
		qty               string
	}{
		{"index", "o", "--explain", 2500, "qty>=0"}, {"no-index", "o", "--no-index", 2500, "qty>=0"},
		// status_qty's entries under s7, read whole and sorted into key order
		{"index-fixed-in-part", "p", "--explain", 2500, "qty>=0"}, {"no-index-p", "p", "--no-index", 2500, "qty>=0"},
		// status_qty's entries under s7 with a quantity of 5 or more
		{"index-range", "p", "--explain", ranged, "qty>=5"}, {"no-index-range", "p", "--no-index", ranged, "qty>=5"},
	} {
		b.Run(plan.name, func(b *testing.B) {
			args := []string{"keyspace", "--db", db, "-o", "ndjson", "table", "scan", "--table", plan.table, "--where", "status=s7", "--where", plan.qty, plan.flag}
			for b.Loop() {
				var out, errb bytes.Buffer
				if code := cli.Run(args, strings.NewReader(""), &out, &errb); code != 0 || strings.Count(out.String(), "\n") != plan.rows {
					b.Fatalf("exit %d, %d rows: %s", code, strings.Count(out.String(), "\n"), errb.String())
				}
			}
		})
	}
}

// TestPlanReadsFewestEntries: of two indexes that serve a scan, one on a
// status and one on a population, table scan --where reads through the
// one with fewer entries for the conditions, as the test counts them
// from the rows it wrote (the open rows, or those of population X or
// more), whichever side of the other the bound puts it; --explain says
// how many entries each held, and the rows are those reading the
// table's rows finds.
func TestPlanReadsFewestEntries(t *testing.T) {
	db := filepath.Join(t.TempDir(), "fewest.db")
	r := rand.New(rand.NewPCG(48, 2))
	var csv strings.Builder
	csv.WriteString("id,status,pop\n")
	pops := make([]int, 9000) // more entries than entries counts at once (countPage)
	open := 0
	for i := range pops {
		status := []string{"open", "done"}[r.IntN(2)]
		if status == "open" {
			open++
		}
		pops[i] = r.IntN(10000)
		fmt.Fprintf(&csv, "%d,%s,%d\n", i, status, pops[i])
	}
	runOK(t, csv.String(), "--db", db, "-q", "table", "import", "--table", "c", "--key-cols", "id", "-")
	runOK(t, "", "--db", db, "-q", "index", "create", "--table", "c", "--name", "by_pop", "--fields", "pop")
	runOK(t, "", "--db", db, "-q", "index", "create", "--table", "c", "--name", "by_status", "--fields", "status")
	for _, bound := range []int{0, 1000, 5000, 5500, 8000, 9990, 9999, 10000} {
		atLeast := 0
		for _, p := range pops {
			if p >= bound {
				atLeast++
			}
		}
		args := []string{"--where", "status=open", "--where", fmt.Sprintf("pop>=%d", bound)}
		_, stderr, code := run(t, "", slices.Concat([]string{"--db", db, "-o", "count", "table", "scan", "--table", "c", "--explain"}, args)...)
		want := fmt.Sprintf("plan: index by_status's entries for status=open (all of them), in key order, each row tested against --where: %d entries read", open)
		if atLeast < open {
			want = fmt.Sprintf("plan: index by_pop's entries for pop>=%d (all of them), sorted into key order, each row tested against --where (the fewest: %s, where index by_status's are %d entries): %s read",
				bound, entriesText(atLeast), open, entriesText(atLeast))
		}
		if code != 0 || !strings.HasPrefix(stderr, want) {
			t.Errorf("pop>=%d (%d rows; %d open): exit %d, %q; want %q", bound, atLeast, open, code, stderr, want)
		}
		got, _ := scanKeys(t, db, args)
		whole, _ := scanKeys(t, db, append(args, "--no-index"))
		if !slices.Equal(got, whole) {
			t.Errorf("pop>=%d: %v through the plan, %v reading the table", bound, got, whole)
		}
	}
}

// entriesText is count's "1 entry", "2 entries".
func entriesText(n int) string {
	if n == 1 {
		return "1 entry"
	}
	return fmt.Sprintf("%d entries", n)
}

// scanKeys is the keys of the rows table scan --table c lists with args,
// and its stderr.
func scanKeys(t *testing.T, db string, args []string) ([]string, string) {
	t.Helper()
	out, stderr, code := run(t, "", slices.Concat([]string{"--db", db, "-o", "json", "table", "scan", "--table", "c"}, args)...)
	var p struct{ Rows []struct{ Key string } }
	if code != 0 || json.Unmarshal([]byte(out), &p) != nil {
		t.Fatalf("table scan %q: exit %d, %s%s", args, code, out, stderr)
	}
	var keys []string
	for _, row := range p.Rows {
		keys = append(keys, row.Key)
	}
	return keys, stderr
}

// TestWhereNarrowsByKey: = conditions with text values on a table's
// leading key columns read only the rows under those columns (--explain
// names the range), and table scan, count and del --where find the rows
// the test picks from the whole table itself: those whose field is that
// very text. The key columns hold text, numbers and booleans (an NDJSON
// import keys a row by their text), so 7 and "7" share a key, and only
// the text holds for a condition on it.
func TestWhereNarrowsByKey(t *testing.T) {
	db := filepath.Join(t.TempDir(), "narrow.db")
	r := rand.New(rand.NewPCG(48, 3))
	ccs := []any{"NO", "SE", "N", "NO:X", "7", 7, "7.0", true, "true", ""}
	cities := []any{"Oslo", "Bergen", "B", 3, "3"}
	var ndjson strings.Builder
	for id := range 300 {
		cc, city := ccs[r.IntN(len(ccs))], cities[r.IntN(len(cities))]
		if cc == "" {
			cc = "NO" // a key column is never empty
		}
		b, _ := json.Marshal(map[string]any{"cc": cc, "city": city, "id": id})
		ndjson.Write(append(b, '\n'))
	}
	runOK(t, ndjson.String(), "--db", db, "-q", "table", "import", "--table", "c", "--key-cols", "cc,city,id", "--format", "ndjson", "-")
	type row struct {
		Key    string
		Record map[string]any
	}
	all := func() []row {
		var p struct{ Rows []row }
		if out := runOK(t, "", "--db", db, "-o", "json", "table", "scan", "--table", "c"); json.Unmarshal([]byte(out), &p) != nil {
			t.Fatal(out)
		}
		return p.Rows
	}
	for _, c := range []struct {
		cc, city string // "" for no condition
	}{{"NO", ""}, {"SE", "Oslo"}, {"N", ""}, {"NO:X", "Bergen"}, {"NO", "B"}, {"7", ""}, {"true", ""}, {"x", ""}, {"NO", "3"}} {
		var args []string
		under := "(all of them)"
		if c.cc != "" {
			args = append(args, "--where", "cc="+c.cc)
			if c.cc != "7" && c.cc != "true" { // a number, true: no text a key holds
				under = "under " + strings.ReplaceAll(c.cc, ":", "\\:") + ":*"
			}
		}
		if c.city != "" {
			args = append(args, "--where", "city="+c.city)
			if c.city != "3" && under != "(all of them)" {
				under = strings.TrimSuffix(under, "*") + c.city + ":*"
			}
		}
		// equal is = as --where means it: numbers as numbers, true as
		// its text, other text as itself.
		equal := func(v any, want string) bool {
			if w, err := strconv.ParseFloat(want, 64); err == nil {
				switch v := v.(type) {
				case float64:
					return v == w
				case string:
					n, err := strconv.ParseFloat(v, 64)
					return err == nil && n == w
				}
				return false
			}
			switch v := v.(type) {
			case string:
				return v == want
			case bool:
				return fmt.Sprint(v) == want
			}
			return false
		}
		var want []string
		groups := map[string]int{}
		for _, row := range all() {
			if equal(row.Record["cc"], c.cc) && (c.city == "" || equal(row.Record["city"], c.city)) {
				want = append(want, row.Key)
				first, _, _ := strings.Cut(strings.ReplaceAll(row.Key, "\\:", "\x00"), ":")
				groups[strings.ReplaceAll(first, "\x00", "\\:")]++
			}
		}
		got, stderr := scanKeys(t, db, slices.Concat(args, []string{"--explain", "--limit", "1000"}))
		if !slices.Equal(got, want) || !strings.HasPrefix(stderr, "plan: the table's rows "+under+",") {
			t.Errorf("table scan %q: %v, %q; want %v, the rows %s", args, got, stderr, want, under)
		}
		var counted map[string]int
		if out := runOK(t, "", slices.Concat([]string{"--db", db, "-o", "json", "table", "count", "--table", "c", "--depth", "1"}, args)...); json.Unmarshal([]byte(out), &counted) != nil || !maps.Equal(counted, groups) {
			t.Errorf("table count %q: %s, want %v", args, out, groups)
		}
	}
	// table del --where deletes just those rows, and leaves a sound file.
	before := all()
	_, stderr, code := run(t, "", "--db", db, "table", "del", "--table", "c", "--where", "cc=NO")
	var left []string
	for _, row := range before {
		if row.Record["cc"] != "NO" {
			left = append(left, row.Key)
		}
	}
	var after []string
	for _, row := range all() {
		after = append(after, row.Key)
	}
	if code != 0 || !slices.Equal(after, left) || !strings.HasPrefix(stderr, fmt.Sprintf("deleted %d rows", len(before)-len(left))) {
		t.Errorf("table del --where cc=NO: exit %d, %q; %d rows left, want %d", code, stderr, len(after), len(left))
	}
	runOK(t, "", "--db", db, "verify")
}
