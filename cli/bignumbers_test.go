package cli_test

import (
	"encoding/json"
	"fmt"
	"math/big"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// bigSerials are JSON numbers a float64 rounds (past 2^53, past the
// int64s, past the uint64s) beside ones it holds, and numbers written
// with a fraction: 12345678901234567891 and …892 are one float64.
var bigSerials = []string{"12345678901234567891", "12345678901234567892", "9007199254740993", "9007199254740992",
	"-9007199254740993", "18446744073709551615", "123456789012345678901234", "42", "7.50", "-0.25"}

// TestBigNumbersKeepEveryDigit: a table's JSON numbers keep every digit
// through an import, a scan, table set, a unique index, index lookup and
// --where (with and without the index), and a geo payload's through geo
// fset and a GeoJSON export imported again. The oracle is the input's
// own text, compared as exact rationals (math/big).
func TestBigNumbersKeepEveryDigit(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	ok := func(stdin string, args ...string) string {
		t.Helper()
		return runOK(t, stdin, append([]string{"--db", db, "--quiet"}, args...)...)
	}
	var lines []string
	for i, s := range bigSerials {
		lines = append(lines, fmt.Sprintf(`{"id":%d,"serial":%s,"nested":{"n":[%s]}}`, i, s, s))
	}
	ok(strings.Join(lines, "\n")+"\n", "table", "import", "--table", "t", "--key-cols", "id", "--format", "ndjson", "-")
	ok("", "index", "create", "--table", "t", "--name", "by_serial", "--fields", "serial", "--unique")

	// serials reads every row's serial as written, and checks that its
	// nested copy is written alike while nested says they are copies.
	nested := true
	serials := func() map[string]string {
		t.Helper()
		out := map[string]string{}
		for _, line := range strings.Split(strings.TrimSpace(ok("", "--output", "ndjson", "table", "scan", "--table", "t", "*")), "\n") {
			var row struct {
				Key    string
				Record struct {
					Serial json.RawMessage
					Nested struct{ N []json.RawMessage }
				}
			}
			if err := json.Unmarshal([]byte(line), &row); err != nil {
				t.Fatalf("%v: %s", err, line)
			}
			if nested && (len(row.Record.Nested.N) != 1 || string(row.Record.Nested.N[0]) != string(row.Record.Serial)) {
				t.Errorf("row %s: nested %s, serial %s", row.Key, row.Record.Nested.N, row.Record.Serial)
			}
			out[row.Key] = string(row.Record.Serial)
		}
		return out
	}
	want := map[string]string{}
	for i, s := range bigSerials {
		want[fmt.Sprint(i)] = s
	}
	if got := serials(); !mapsEqual(got, want) {
		t.Fatalf("after import, serials %v, want %v", got, want)
	}

	// Each serial's lookup finds its row alone; --where = and > find
	// what exact comparison of the input's numbers finds, through the
	// index and without it.
	rat := func(s string) *big.Rat {
		r, ok := new(big.Rat).SetString(s)
		if !ok {
			t.Fatalf("%s is no number", s)
		}
		return r
	}
	keysOf := func(out string) []string { // the keys of NDJSON rows, sorted
		var keys []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var row struct{ Key string }
			if line == "" {
				continue
			}
			if err := json.Unmarshal([]byte(line), &row); err != nil {
				t.Fatalf("%v: %s", err, line)
			}
			keys = append(keys, row.Key)
		}
		slices.Sort(keys)
		return keys
	}
	for i, s := range bigSerials {
		if got := keysOf(ok("", "--output", "ndjson", "index", "lookup", "--table", "t", "--name", "by_serial", s)); !slices.Equal(got, []string{fmt.Sprint(i)}) {
			t.Errorf("index lookup %s: rows %v, want [%d]", s, got, i)
		}
		for _, op := range []string{"=", ">", "<="} {
			var expect []string
			for j, other := range bigSerials {
				c := rat(other).Cmp(rat(s))
				if op == "=" && c == 0 || op == ">" && c > 0 || op == "<=" && c <= 0 {
					expect = append(expect, fmt.Sprint(j))
				}
			}
			slices.Sort(expect)
			for _, noIndex := range []bool{false, true} {
				args := []string{"--output", "ndjson", "table", "scan", "--table", "t", "--where", "serial" + op + s}
				if noIndex {
					args = append(args, "--no-index")
				}
				if got := keysOf(ok("", args...)); !slices.Equal(got, expect) {
					t.Errorf("--where serial%s%s (--no-index %v): rows %v, want %v", op, s, noIndex, got, expect)
				}
			}
		}
	}

	// table set: another field leaves the serial's digits; a serial
	// that differs in its last digit is a change, the same one written
	// as it is is none.
	if out := ok("", "table", "set", "--table", "t", "0", "note=x"); strings.TrimSpace(out) != "1" {
		t.Errorf("table set note: %q changed, want 1", out)
	}
	if out := ok("", "table", "set", "--table", "t", "0", "serial=12345678901234567893"); strings.TrimSpace(out) != "1" {
		t.Errorf("table set serial …893: %q changed, want 1", out)
	}
	if out := ok("", "table", "set", "--table", "t", "0", "serial=12345678901234567893"); strings.TrimSpace(out) != "0" {
		t.Errorf("table set serial …893 again: %q changed, want 0", out)
	}
	want["0"] = "12345678901234567893"
	nested = false // row 0's nested copy keeps its …891
	got := serials()
	if !mapsEqual(got, want) {
		t.Errorf("after table set, serials %v, want %v", got, want)
	}
	if out := ok("", "index", "verify", "--table", "t", "--name", "by_serial"); !strings.Contains(out, "consistent") {
		t.Errorf("index verify: %q", out)
	}

	// A geo payload: fset to a serial one apart is a change, and a
	// GeoJSON export imported again keeps the digits.
	ok("", "geo", "put", "--index", "p", "--lat", "1", "--lon", "2", "--payload", `{"serial":12345678901234567891}`, "a")
	if out := ok("", "geo", "fset", "--index", "p", "a", "serial=12345678901234567892"); strings.TrimSpace(out) != "1" {
		t.Errorf("geo fset serial …892: %q changed, want 1", out)
	}
	export := ok("", "--output", "geojson", "geo", "scan", "--index", "p")
	if !strings.Contains(export, "12345678901234567892") {
		t.Errorf("the GeoJSON export rounds the serial: %s", export)
	}
	ok(export, "geo", "import", "--index", "again", "--format", "geojson", "-")
	if out := ok("", "--output", "ndjson", "geo", "scan", "--index", "again"); !strings.Contains(out, `"serial":12345678901234567892`) {
		t.Errorf("the export imported again: %s", out)
	}
}

// mapsEqual reports whether two maps of strings hold the same pairs.
func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
