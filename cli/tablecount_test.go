package cli_test

import (
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestTableCountBy: table count --by against counts the test works out
// from its own rows: a row counts once under each distinct value of the
// fields (an array's elements, repeated or not), not at all without one,
// and numbers in any form (7, "7", "7.0") are one value; rows that have
// expired are left out. Each grouping is counted through an index where
// one serves (its --explain says so) and by reading the rows
// (--no-index), and must give the oracle's counts both ways; an index
// with a field more, a partial index (for a count without its
// conditions) and an index whose build is pending must not serve, and
// still give them. Under a key prefix and
// with --where, only the rows they name count, and a partial index
// serves a count whose conditions are its own. --top gives the largest
// groups, largest first. index lookup and index scan -o count count a
// value's records and entries.
func TestTableCountBy(t *testing.T) {
	db := filepath.Join(t.TempDir(), "count.db")
	r := rand.New(rand.NewPCG(49, 1))
	tzs := []any{"Oslo", "Lima", "Rome", "a b", nil}
	ns := []any{7, "7", "7.0", 7.5, "7.5", -3, 0, 12, "12", -2.25, nil}
	kinds := []any{"open", "done", true, nil}
	tagSets := []any{[]any{"x"}, []any{"x", "y", "x"}, []any{"z", "y"}, []any{}, "x", nil}
	type row struct {
		st     string
		id     int
		fields map[string]any
	}
	var rows []row
	var ndjson strings.Builder
	for id := range 400 {
		rec := map[string]any{"st": []string{"US", "FR", "NO"}[id%3], "id": id, "qty": r.IntN(10)}
		for f, vs := range map[string][]any{"tz": tzs, "n": ns, "kind": kinds, "tags": tagSets} {
			if v := vs[r.IntN(len(vs))]; v != nil {
				rec[f] = v
			}
		}
		if v := tzs[r.IntN(len(tzs))]; v != nil {
			rec["o"] = map[string]any{"k": v}
		}
		b, _ := json.Marshal(rec)
		ndjson.Write(append(b, '\n'))
		rows = append(rows, row{rec["st"].(string), id, rec})
	}
	runOK(t, ndjson.String(), "--db", db, "-q", "table", "import", "--table", "o", "--key-cols", "st,id", "--format", "ndjson", "-")
	expired := map[int]bool{}
	args := []string{"--db", db, "-q", "table", "expire", "--table", "o", "--ttl", "1ms"}
	for range 40 {
		id := r.IntN(len(rows))
		if !expired[id] {
			expired[id] = true
			args = append(args, fmt.Sprintf("%s:%d", rows[id].st, id))
		}
	}
	runOK(t, "", args...)
	time.Sleep(20 * time.Millisecond)
	for _, a := range [][]string{
		{"--name", "tz", "--fields", "tz"},
		{"--name", "n_desc", "--fields", "-n"},
		{"--name", "tags", "--fields", "tags"},
		{"--name", "tz_n", "--fields", "tz,-n"},
		{"--name", "kind_n", "--fields", "kind,n"},                       // a field more than --by kind
		{"--name", "tags_part", "--fields", "tags,tz", "--where", "n=7"}, // partial
		{"--name", "ok", "--fields", "o.k"},                              // pending
	} {
		runOK(t, "", slices.Concat([]string{"--db", db, "-q", "index", "create", "--table", "o"}, a)...)
	}
	markUnbuilt(t, db, "o", "ok")

	// canon is a value's group text as the oracle sees it: a number as
	// its shortest decimal, text as it is; ok is false for no value.
	canon := func(v any) []string {
		var elems []any
		switch v := v.(type) {
		case nil:
			return nil
		case []any:
			elems = v
		default:
			elems = []any{v}
		}
		var out []string
		for _, e := range elems {
			s := fmt.Sprint(e)
			if str, ok := e.(string); ok && slices.Contains(ns, any(str)) { // numbers as text
				f, _ := strconv.ParseFloat(str, 64)
				s = strconv.FormatFloat(f, 'f', -1, 64)
			} else if i, ok := e.(int); ok {
				s = strconv.Itoa(i)
			} else if f, ok := e.(float64); ok {
				s = strconv.FormatFloat(f, 'f', -1, 64)
			}
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
		return out
	}
	oracle := func(by []string, keep func(row) bool) map[string]int {
		want := map[string]int{}
		for _, rw := range rows {
			if expired[rw.id] || !keep(rw) {
				continue
			}
			groups := []string{""}
			for i, f := range by {
				v := rw.fields[f]
				if f == "o.k" && rw.fields["o"] != nil {
					v = rw.fields["o"].(map[string]any)["k"]
				}
				var next []string
				for _, g := range groups {
					for _, s := range canon(v) {
						if i > 0 {
							s = g + ":" + s
						}
						next = append(next, s)
					}
				}
				groups = next
			}
			for _, g := range groups {
				want[g]++
			}
		}
		return want
	}
	all := func(row) bool { return true }
	count := func(args ...string) (map[string]int, string) {
		out, stderr, code := run(t, "", slices.Concat([]string{"--db", db, "-o", "json", "table", "count", "--table", "o", "--explain"}, args)...)
		if code != 0 {
			t.Fatalf("table count %v: exit %d: %s", args, code, stderr)
		}
		var got map[string]int
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("table count %v: %v: %s", args, err, out)
		}
		return got, stderr
	}
	for _, c := range []struct {
		by    string
		index string // the index that serves, or ""
	}{{"tz", "tz"}, {"n", "n_desc"}, {"tags", "tags"}, {"tz,n", "tz_n"}, {"kind", ""}, {"tags,tz", ""}, {"o.k", ""}, {"qty", ""}} {
		want := oracle(strings.Split(c.by, ","), all)
		if len(want) < 3 {
			t.Fatalf("--by %s: only %d groups", c.by, len(want))
		}
		got, explain := count("--by", c.by)
		if through := strings.Contains(explain, "of index "+c.index+" read"); c.index != "" && !through || c.index == "" && strings.Contains(explain, "of index") {
			t.Errorf("--by %s: read %q, want index %q", c.by, explain, c.index)
		}
		if !maps.Equal(got, want) {
			t.Errorf("--by %s (%s): %v, worked out %v", c.by, strings.TrimSpace(explain), got, want)
		}
		if got, explain := count("--by", c.by, "--no-index"); !maps.Equal(got, want) || strings.Contains(explain, "index") {
			t.Errorf("--by %s --no-index (%s): %v, worked out %v", c.by, strings.TrimSpace(explain), got, want)
		}
	}
	if got, want := func() (map[string]int, map[string]int) {
		got, _ := count("--by", "tz", "US:*")
		return got, oracle([]string{"tz"}, func(rw row) bool { return rw.st == "US" })
	}(); !maps.Equal(got, want) {
		t.Errorf("--by tz US:*: %v, worked out %v", got, want)
	}
	for _, plan := range []string{"--explain", "--no-index"} { // through the index on tz, and not
		want := oracle([]string{"n"}, func(rw row) bool { return rw.fields["tz"] == "Rome" && rw.fields["qty"].(int) >= 5 })
		if got, _ := count("--by", "n", "--where", "qty>=5", "--where", "tz=Rome", plan); !maps.Equal(got, want) {
			t.Errorf("--by n --where qty>=5 --where tz=Rome %s: %v, worked out %v", plan, got, want)
		}
	}
	// A partial index serves a count whose conditions are its own, and
	// only that one.
	isSeven := func(rw row) bool { return slices.Equal(canon(rw.fields["n"]), []string{"7"}) }
	for _, c := range []struct {
		where []string
		index bool
		keep  func(row) bool
	}{
		{[]string{"--where", "n=7"}, true, isSeven},
		{[]string{"--where", "n=7", "--where", "n=7"}, true, isSeven},
		{[]string{"--where", "n=7", "--where", "kind=open"}, false, func(rw row) bool { return isSeven(rw) && rw.fields["kind"] == "open" }},
		{[]string{"--where", "n=7.0"}, false, isSeven},
	} {
		want := oracle([]string{"tags", "tz"}, c.keep)
		got, explain := count(slices.Concat([]string{"--by", "tags,tz"}, c.where)...)
		if !maps.Equal(got, want) || strings.Contains(explain, "of index tags_part") != c.index {
			t.Errorf("--by tags,tz %v (%s): %v, worked out %v", c.where, strings.TrimSpace(explain), got, want)
		}
	}

	// index lookup and index scan -o count: how many records and entries
	// a value has, of a page with --limit.
	byTZ := oracle([]string{"tz"}, all)
	for _, tz := range []string{"Rome", "Oslo", "nowhere"} {
		kept := oracle([]string{"tz"}, func(rw row) bool { return rw.fields["qty"].(int) >= 5 })[tz]
		for _, c := range []struct {
			args []string
			want int
		}{
			{[]string{"index", "lookup", "--table", "o", "--name", "tz", tz}, byTZ[tz]},
			{[]string{"index", "scan", "--table", "o", "--name", "tz", tz}, byTZ[tz]},
			{[]string{"index", "lookup", "--table", "o", "--name", "tz", tz, "--where", "qty>=5"}, kept},
			{[]string{"index", "lookup", "--table", "o", "--name", "tz", tz, "--limit", "3"}, min(3, byTZ[tz])},
		} {
			if got := strings.TrimSpace(runOK(t, "", slices.Concat([]string{"--db", db, "-o", "count"}, c.args)...)); got != strconv.Itoa(c.want) {
				t.Errorf("%v -o count: %s, want %d", c.args, got, c.want)
			}
		}
	}

	// index distinct: the values of an index's first fields, each once,
	// in its order (-n: numbers descending).
	distinct := func(args ...string) []string {
		out := runOK(t, "", slices.Concat([]string{"--db", db, "-o", "json", "index", "distinct", "--table", "o"}, args)...)
		var p struct{ Values []string }
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatal(out)
		}
		return p.Values
	}
	numbers := func(texts []string, desc bool) []string { // in the order of their values
		return slices.SortedFunc(slices.Values(texts), func(a, b string) int {
			x, _ := strconv.ParseFloat(a, 64)
			y, _ := strconv.ParseFloat(b, 64)
			if desc {
				return cmp.Compare(y, x)
			}
			return cmp.Compare(x, y)
		})
	}
	var romeN []string // tz_n is tz,-n: Rome's numbers descending
	for g := range oracle([]string{"tz", "n"}, all) {
		if n, ok := strings.CutPrefix(g, "Rome:"); ok {
			romeN = append(romeN, n)
		}
	}
	romeN = numbers(romeN, true)
	for i, n := range romeN {
		romeN[i] = "Rome:" + n
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--name", "tz"}, slices.Sorted(maps.Keys(oracle([]string{"tz"}, all)))},
		{[]string{"--name", "n_desc"}, numbers(slices.Collect(maps.Keys(oracle([]string{"n"}, all))), true)},
		{[]string{"--name", "tz_n", "Rome", "--depth", "2"}, romeN},
		{[]string{"--name", "tz", "--limit", "2"}, slices.Sorted(maps.Keys(oracle([]string{"tz"}, all)))[:2]},
	} {
		if got := distinct(c.args...); !slices.Equal(got, c.want) {
			t.Errorf("index distinct %v: %v, want %v", c.args, got, c.want)
		}
	}
	if got := strings.TrimSpace(runOK(t, "", "--db", db, "-o", "count", "index", "distinct", "--table", "o", "--name", "tags")); got != strconv.Itoa(len(oracle([]string{"tags"}, all))) {
		t.Errorf("index distinct --name tags -o count: %s, want %d", got, len(oracle([]string{"tags"}, all)))
	}
	if _, stderr, code := run(t, "", "--db", db, "index", "distinct", "--table", "o", "--name", "tz", "--depth", "2"); code != 2 || !strings.Contains(stderr, "--depth 2") {
		t.Errorf("index distinct --depth 2 of one field: exit %d, %s", code, stderr)
	}

	// The table's lines: in the order of the values (numbers by value;
	// --by -n descending, through the index or not), or with --top, the
	// most rows first.
	lines := func(args ...string) [][2]string {
		out := runOK(t, "", slices.Concat([]string{"--db", db, "table", "count", "--table", "o"}, args)...)
		var got [][2]string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
			f := strings.Fields(line)
			got = append(got, [2]string{strings.Join(f[:len(f)-1], " "), f[len(f)-1]})
		}
		return got
	}
	for _, args := range [][]string{{"--by", "n"}, {"--by", "n", "--no-index"}, {"--by=-n"}, {"--by=-n", "--no-index"}} {
		var last float64
		desc := args[0] == "--by=-n"
		got := lines(args...)
		for i, l := range got {
			n, err := strconv.ParseFloat(l[0], 64)
			if err != nil || i > 0 && (n <= last) != desc {
				t.Fatalf("%v: %q after %v, want numbers in order (descending: %v)", args, l[0], last, desc)
			}
			last = n
		}
		if len(got) != len(oracle([]string{"n"}, all)) {
			t.Fatalf("%v: %d groups, want %d", args, len(got), len(oracle([]string{"n"}, all)))
		}
	}
	want := oracle([]string{"tz"}, all)
	byRows := slices.SortedStableFunc(maps.Keys(want), func(a, b string) int { return want[b] - want[a] })
	top := lines("--by", "tz", "--top", "3")
	if len(top) != 3 {
		t.Fatalf("--top 3: %v", top)
	}
	for i, l := range top {
		if l[1] != strconv.Itoa(want[l[0]]) || l[1] != strconv.Itoa(want[byRows[i]]) {
			t.Errorf("--top 3: line %d is %v; worked out %v", i+1, l, want)
		}
	}
	// CSV (from NDJSON) keeps that order, where JSON's object cannot.
	csvOut := runOK(t, "", "--db", db, "-o", "csv", "table", "count", "--table", "o", "--by", "tz", "--top", "3")
	records, err := csv.NewReader(strings.NewReader(csvOut)).ReadAll()
	if err != nil || len(records) != 4 || strings.Join(records[0], ",") != "group,rows" {
		t.Fatalf("--top 3 -o csv: %q, %v", csvOut, err)
	}
	for i, rec := range records[1:] {
		if rec[0] != top[i][0] || rec[1] != top[i][1] {
			t.Errorf("--top 3 -o csv: line %d is %v, the table's %v", i+1, rec, top[i])
		}
	}
	byState := oracle([]string{"st"}, all)
	if top := lines("--top", "1"); len(top) != 1 || top[0][1] != strconv.Itoa(slices.Max(slices.Collect(maps.Values(byState)))) || top[0][1] != strconv.Itoa(byState[top[0][0]]) {
		t.Errorf("table count --top 1: %v; worked out %v", top, byState)
	}

	for _, bad := range [][]string{{"--by", "tz", "--depth", "1"}, {"--by", "tz,,n"}, {"--by", ""}, {"--top", "-1"}} {
		if _, stderr, code := run(t, "", slices.Concat([]string{"--db", db, "table", "count", "--table", "o"}, bad)...); code != 2 || !strings.Contains(stderr, bad[len(bad)-2]) {
			t.Errorf("table count %v: exit %d, %s; want a usage error naming %s", bad, code, stderr, bad[len(bad)-2])
		}
	}
}
