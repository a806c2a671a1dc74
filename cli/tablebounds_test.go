package cli_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestTableScanBounds: table scan --from and --to on the key column after
// a query's whole columns (the first, with none), against the rows the
// test picks from its own in key order, which it works out itself (text
// by bytes, then numbers by value): every bound of each column, inside,
// between and outside the keys, ends left open, both directions, pages
// whose cursors pass between a plan through an index and the table's
// rows, and --where. A bad bound, a bound after a query that names every
// column and one after a partial column are usage errors.
func TestTableScanBounds(t *testing.T) {
	db := filepath.Join(t.TempDir(), "bounds.db")
	r := rand.New(rand.NewPCG(49, 2))
	users := []string{"a", "ab", "b", "é", "a b"}
	type key struct {
		u      string
		ts, sq int
	}
	keys := map[key]int{} // the qty of each row
	var ndjson strings.Builder
	for len(keys) < 300 {
		k := key{users[r.IntN(len(users))], r.IntN(41) - 20, r.IntN(4)}
		if _, ok := keys[k]; ok {
			continue
		}
		keys[k] = r.IntN(10)
		b, _ := json.Marshal(map[string]any{"u": k.u, "ts": k.ts, "sq": k.sq, "qty": keys[k], "status": []string{"open", "done"}[r.IntN(2)]})
		ndjson.Write(append(b, '\n'))
	}
	runOK(t, ndjson.String(), "--db", db, "-q", "table", "import", "--table", "m", "--key-cols", "u,ts,sq", "--format", "ndjson", "-")
	runOK(t, "", "--db", db, "-q", "index", "create", "--table", "m", "--name", "status", "--fields", "status")
	sorted := slices.SortedFunc(func(yield func(key) bool) {
		for k := range keys {
			if !yield(k) {
				return
			}
		}
	}, func(a, b key) int {
		return cmp.Or(strings.Compare(a.u, b.u), cmp.Compare(a.ts, b.ts), cmp.Compare(a.sq, b.sq))
	})
	text := func(k key) string { return fmt.Sprintf("%s:%d:%d", k.u, k.ts, k.sq) }

	scan := func(args []string, limit int) []string {
		var got []string
		cursor := ""
		for page := 0; page < 400; page++ {
			a := slices.Concat([]string{"--db", db, "-o", "json", "table", "scan", "--table", "m"}, args)
			if limit > 0 {
				a = append(a, "--limit", strconv.Itoa(limit))
			}
			if cursor != "" {
				a = append(a, "--cursor", cursor)
			}
			if page%2 == 1 {
				a = append(a, "--no-index")
			}
			var p struct {
				Rows []struct{ Key string }
				Next string
			}
			if out := runOK(t, "", a...); json.Unmarshal([]byte(out), &p) != nil {
				t.Fatalf("%v: %s", a, out)
			}
			for _, row := range p.Rows {
				got = append(got, row.Key)
			}
			if cursor = p.Next; cursor == "" {
				break
			}
		}
		return got
	}
	type bounds struct {
		query    string // "" for none
		from, to string // "" for an open end
	}
	var cases []bounds
	for _, u := range []string{"a", "é", "zz"} {
		for _, from := range []string{"", "-21", "0", "7", "21"} {
			for _, to := range []string{"", "-20", "8"} {
				if from != "" || to != "" {
					cases = append(cases, bounds{u, from, to})
				}
			}
		}
		cases = append(cases, bounds{u + ":7", "1", "3"}, bounds{u + ":7:*", "", "2"}, bounds{u + ":*", "-3", "4"})
	}
	cases = append(cases, []bounds{{"", "a", "b"}, {"", "ab", ""}, {"", "", "ab"}, {"", "a b", "b"}, {"", "b", "a"}, {"*", "", "é"}}...)
	for i, c := range cases {
		var args []string
		if c.query != "" {
			args = append(args, c.query)
		}
		if c.from != "" {
			args = append(args, "--from", c.from)
		}
		if c.to != "" {
			args = append(args, "--to", c.to)
		}
		// The rows under the query's whole columns whose next column lies
		// in [from, to), and of those, the ones --where keeps.
		prefix := strings.Split(strings.TrimSuffix(strings.TrimSuffix(c.query, "*"), ":"), ":")
		if c.query == "" || c.query == "*" {
			prefix = nil
		}
		in := func(k key) bool {
			cols := []string{k.u, strconv.Itoa(k.ts), strconv.Itoa(k.sq)}
			if !slices.Equal(cols[:len(prefix)], prefix) {
				return false
			}
			next := len(prefix)
			less := func(a, b string) bool { // a < b in the column's order
				if next == 0 {
					return a < b
				}
				x, _ := strconv.Atoi(a)
				y, _ := strconv.Atoi(b)
				return x < y
			}
			return (c.from == "" || !less(cols[next], c.from)) && (c.to == "" || less(cols[next], c.to))
		}
		var want, wantKept []string
		for _, k := range sorted {
			if in(k) {
				want = append(want, text(k))
				if keys[k] >= 5 {
					wantKept = append(wantKept, text(k))
				}
			}
		}
		reversed := slices.Clone(want)
		slices.Reverse(reversed)
		where := []string{"--where", "qty>=5", "--where-in", "status=open,done"} // through the index on status
		for _, check := range []struct {
			args  []string
			limit int
			want  []string
		}{
			{args, 0, want}, {append(slices.Clone(args), "--reverse"), 6 + i%7, reversed}, {slices.Concat(args, where), 3 + i%5, wantKept},
		} {
			if got := scan(check.args, check.limit); !slices.Equal(got, check.want) {
				t.Fatalf("table scan %v (--limit %d): %v, want %v", check.args, check.limit, got, check.want)
			}
		}
	}

	// Number conditions on an integer key column after the columns = text
	// fixes (the first, in a table keyed ts,u,sq) bound the rows read.
	runOK(t, ndjson.String(), "--db", db, "-q", "table", "import", "--table", "n", "--key-cols", "ts,u,sq", "--format", "ndjson", "-")
	for _, c := range []struct {
		table string
		where []string
		keep  func(k key) bool
		read  int // rows read: -1 for as many as kept
	}{
		{"m", []string{"u=a", "ts>=-3", "ts<4"}, func(k key) bool { return k.u == "a" && k.ts >= -3 && k.ts < 4 }, -1},
		{"m", []string{"u=é", "ts=7"}, func(k key) bool { return k.u == "é" && k.ts == 7 }, -1},
		{"m", []string{"u=a", "ts>-3", "ts<4"}, func(k key) bool { return k.u == "a" && k.ts > -3 && k.ts < 4 }, -1},
		{"m", []string{"u=b", "ts>5", "ts<6"}, func(key) bool { return false }, 0},
		{"m", []string{"u=a b", "ts<=-20.5"}, func(k key) bool { return k.u == "a b" && k.ts <= -21 }, -1},
		{"m", []string{"ts>5.5", "ts<5.9", "u=b"}, func(key) bool { return false }, 0},
		{"m", []string{"u=b", "ts>=9007199254740993"}, func(key) bool { return false }, 0},
		{"m", []string{"u=b", "ts<-9223372036854775809"}, func(key) bool { return false }, 0},
		{"m", []string{"u=b", "ts>=-1e300", "qty>=5"}, func(k key) bool { return k.u == "b" && keys[k] >= 5 }, -2},
		{"n", []string{"ts>=18"}, func(k key) bool { return k.ts >= 18 }, -1},
		{"n", []string{"ts!=3", "ts<=-19"}, func(k key) bool { return k.ts <= -19 }, -1},
		{"n", []string{"ts=NaN"}, func(key) bool { return false }, 300},
	} {
		var args []string
		for _, w := range c.where {
			args = append(args, "--where", w)
		}
		var want []string
		order := sorted // keyed u,ts,sq
		if c.table == "n" {
			order = slices.SortedFunc(slices.Values(sorted), func(a, b key) int {
				return cmp.Or(cmp.Compare(a.ts, b.ts), strings.Compare(a.u, b.u), cmp.Compare(a.sq, b.sq))
			})
		}
		for _, k := range order {
			if c.keep(k) {
				want = append(want, text(k))
				if c.table == "n" {
					want[len(want)-1] = fmt.Sprintf("%d:%s:%d", k.ts, k.u, k.sq)
				}
			}
		}
		a := slices.Concat([]string{"--db", db, "-o", "json", "table", "scan", "--table", c.table, "--explain", "--no-index"}, args)
		out, stderr, code := run(t, "", a...)
		var p struct{ Rows []struct{ Key string } }
		if code != 0 || json.Unmarshal([]byte(out), &p) != nil {
			t.Fatalf("%v: exit %d, %s%s", a, code, out, stderr)
		}
		var got []string
		for _, row := range p.Rows {
			got = append(got, row.Key)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%v: %v, want %v", a, got, want)
		}
		read := c.read
		switch read {
		case -1:
			read = len(want)
		case -2: // every row of u=b
			read = 0
			for k := range keys {
				if k.u == "b" {
					read++
				}
			}
		}
		if wantRead := fmt.Sprintf(": %d rows read", read); read != 1 && !strings.Contains(stderr, wantRead) {
			t.Errorf("%v: %q, want %q", a, stderr, wantRead)
		}
	}

	for _, bad := range [][]string{{"a:1:2", "--from", "1"}, {"a*", "--to", "1"}, {"a", "--from", "x"}, {"a:1", "--to", "1.5"}} {
		if _, stderr, code := run(t, "", slices.Concat([]string{"--db", db, "table", "scan", "--table", "m"}, bad)...); code != 2 || !strings.Contains(stderr, "--") {
			t.Errorf("table scan %v: exit %d, %s; want a usage error", bad, code, stderr)
		}
	}
}

// TestCrossedBoundsNoted: --from and --to that do not come in the order
// read, which for a descending field is the largest first, find nothing
// and get a note saying why; bounds in order find rows and get no note.
// The rows each pair holds are the test's own count of the populations
// between the bounds in the field's order.
func TestCrossedBoundsNoted(t *testing.T) {
	db := filepath.Join(t.TempDir(), "crossed.db")
	pops := []int{3, 500, 800, 8000}
	var rows strings.Builder
	for i, p := range pops {
		fmt.Fprintf(&rows, "{\"state\":\"S%d\",\"pop\":%d}\n", i, p)
	}
	runOK(t, rows.String(), "--db", db, "-q", "table", "import", "--table", "c", "--key-cols", "state", "--format", "ndjson", "-")
	runOK(t, "", "--db", db, "-q", "index", "create", "--table", "c", "--name", "down", "--fields", "-pop")
	runOK(t, "", "--db", db, "-q", "index", "create", "--table", "c", "--name", "up", "--fields", "pop")
	for _, c := range []struct {
		args     []string
		from, to int
		desc     bool
	}{
		{[]string{"index", "lookup", "--name", "down"}, 900, 500, true},
		{[]string{"index", "lookup", "--name", "down"}, 500, 900, true},
		{[]string{"index", "lookup", "--name", "up"}, 500, 900, false},
		{[]string{"index", "lookup", "--name", "up"}, 900, 500, false},
		{[]string{"index", "lookup", "--name", "up"}, 500, 500, false},
	} {
		want := 0
		for _, p := range pops {
			if !c.desc && p >= c.from && p < c.to || c.desc && p <= c.from && p > c.to {
				want++
			}
		}
		args := slices.Concat([]string{"--db", db, "-o", "count"}, c.args, []string{"--table", "c", "--from", strconv.Itoa(c.from), "--to", strconv.Itoa(c.to)})
		out, errOut, code := run(t, "", args...)
		if code != 0 || strings.TrimSpace(out) != strconv.Itoa(want) {
			t.Errorf("%v: %q %q %d; want %d rows", args, out, errOut, code, want)
		}
		if noted := strings.Contains(errOut, "does not come before --to"); noted != (want == 0) {
			t.Errorf("%v: %d rows, note %q", args, want, errOut)
		}
	}
	_, errOut, _ := run(t, "", "--db", db, "table", "scan", "--table", "c", "--from", "S2", "--to", "S1")
	if !strings.Contains(errOut, `--from "S2" does not come before --to "S1" in state's order (ascending)`) {
		t.Errorf("table scan --from S2 --to S1: %q", errOut)
	}
}
