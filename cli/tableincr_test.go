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

// TestTableIncrAgainstModel: a random run of table incr, on rows that are
// there (their counts a CSV's text or JSON numbers) and rows it creates,
// prints and stores what a model of the rows says: whole numbers added
// as exact integers, others as float64s. An increment past the int64s
// or a float64's range, or of a field that holds text, fails and changes
// nothing (the whole command: its other fields too). An index over the
// count stays in step: index verify finds it consistent, and a lookup
// of each row's count finds the row.
func TestTableIncrAgainstModel(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	ok := func(stdin string, args ...string) string {
		t.Helper()
		return runOK(t, stdin, append([]string{"--db", db, "--quiet"}, args...)...)
	}
	ok("id,views,name\nhome,70,Home\nabout,3,About\n", "table", "import", "--table", "pages", "--key-cols", "id", "-")
	ok(`{"id":"blog","views":9223372036854775800,"score":1.5}`+"\n", "table", "import", "--table", "pages", "--key-cols", "id", "--format", "ndjson", "-")
	ok("", "index", "create", "--table", "pages", "--name", "by_views", "--fields", "views")

	// The model: each row's fields, numbers as their JSON text (number),
	// a CSV's text as csvText until incr makes it a number. Whole numbers
	// (written without a fraction or exponent) add as integers, which
	// must stay within the int64s (math/big says whether they do); any
	// other pair as float64s, written back as encoding/json writes one.
	model := map[string]map[string]any{
		"home":  {"id": "home", "views": csvText("70"), "name": "Home"},
		"about": {"id": "about", "views": csvText("3"), "name": "About"},
		"blog":  {"id": "blog", "views": number("9223372036854775800"), "score": number("1.5")},
	}
	add := func(have any, by string) (any, bool) { // have + by, or false where incr must fail
		var text string
		switch h := have.(type) {
		case nil:
			text = "0"
		case csvText:
			text = string(h)
		case number:
			text = string(h)
		default: // text that is no number
			return nil, false
		}
		if !strings.ContainsAny(text+by, ".eE") {
			a, _ := new(big.Int).SetString(text, 10)
			b, _ := new(big.Int).SetString(by, 10)
			sum := a.Add(a, b)
			if !sum.IsInt64() {
				return nil, false
			}
			return number(sum.String()), true
		}
		x, _ := strconv.ParseFloat(text, 64)
		y, _ := strconv.ParseFloat(by, 64)
		if math.IsInf(x+y, 0) {
			return nil, false
		}
		return number(jsonText(x + y)), true
	}
	r := rand.New(rand.NewPCG(9, 10))
	keys := []string{"home", "about", "blog", "new1", "new2"}
	steps := []string{"1", "-2", "7", "0.25", "-1.5", "3e2", "9223372036854775807", "1e308"}
	refused, changed := 0, 0
	for step := 0; step < 40; step++ {
		key := keys[r.IntN(len(keys))]
		fields := []string{"views", "score", "name"}[:1+r.IntN(3)]
		if r.IntN(3) == 0 {
			fields = fields[:1]
		}
		args := []string{"table", "incr", "--table", "pages", key}
		row := model[key]
		next := map[string]any{}
		for k, v := range row {
			next[k] = v
		}
		if row == nil {
			next = map[string]any{"id": key}
		}
		var want []string
		fails := false
		for _, f := range fields {
			by := steps[r.IntN(len(steps))]
			args = append(args, f+"="+by)
			sum, good := add(next[f], by)
			if !good {
				fails = true
				continue
			}
			next[f] = sum
			want = append(want, jsonText(sum))
		}
		out, stderr, code := run(t, "", append([]string{"--db", db, "--quiet"}, args...)...)
		if fails {
			if code != 1 || !strings.Contains(stderr, "field") {
				t.Fatalf("%v: exit %d, %q %q; want a refusal naming the field", args, code, out, stderr)
			}
			refused++
			continue // nothing changed: the model stays
		}
		if code != 0 || out != strings.Join(want, "\n")+"\n" {
			t.Fatalf("%v: exit %d, %q %q; want %q", args, code, out, stderr, want)
		}
		model[key] = next
		changed++
	}
	if refused == 0 || changed == 0 {
		t.Fatalf("%d increments refused and %d made: the run tests one kind only", refused, changed)
	}

	// The rows as stored, against the model.
	got := map[string]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(ok("", "--output", "ndjson", "table", "scan", "--table", "pages", "*")), "\n") {
		var row struct {
			Key    string
			Record map[string]json.RawMessage
		}
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatal(err)
		}
		fields := map[string]any{}
		for k, v := range row.Record {
			fields[k] = string(v)
		}
		got[row.Key] = fields
	}
	if len(got) != len(model) {
		t.Errorf("%d rows, the model %d", len(got), len(model))
	}
	for key, fields := range model {
		for k, v := range fields {
			if want := jsonText(v); got[key][k] != want {
				t.Errorf("row %s field %s: %v, the model %s", key, k, got[key][k], want)
			}
		}
		if len(got[key]) != len(fields) {
			t.Errorf("row %s: fields %v, the model %v", key, got[key], fields)
		}
	}
	if out := ok("", "index", "verify", "--table", "pages", "--name", "by_views"); !strings.Contains(out, "consistent") {
		t.Errorf("index verify: %q", out)
	}
	for key, fields := range model {
		v, has := fields["views"]
		if !has {
			continue
		}
		value := strings.Trim(jsonText(v), `"`) // a CSV's "70" is the index's 70
		out := ok("", "--output", "ndjson", "index", "lookup", "--table", "pages", "--name", "by_views", value)
		if !strings.Contains(out, fmt.Sprintf(`"key":%q`, key)) {
			t.Errorf("lookup views=%s: %q, want row %s", value, out, key)
		}
	}
}

// csvText is a CSV field's text, which a table stores as a JSON string.
type csvText string

// number is a JSON number's text.
type number string

// jsonText is a model's value as the table writes it in JSON.
func jsonText(v any) string {
	if n, ok := v.(number); ok {
		return string(n)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
