package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
)

// infoIndex is an index as index list and table info print it in JSON.
type infoIndex struct {
	Table   string   `json:"table"`
	Name    string   `json:"name"`
	Fields  []string `json:"fields"`
	Unique  bool     `json:"unique"`
	Cover   []string `json:"cover"`
	Where   []string `json:"where"`
	Entries int      `json:"entries"`
	Built   bool     `json:"built"`
}

// markUnbuilt leaves the index of table in the file at db with a build
// pending, as an interrupted index create leaves it.
func markUnbuilt(t *testing.T, db, table, index string) {
	t.Helper()
	s, err := keyspace.Open(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Update(func(tx keyspace.Tx) error {
		return tx.Put(composite.NewSubspace("x", table, "b").Pack(composite.Tuple{index}), []byte{})
	}); err != nil {
		t.Fatal(err)
	}
}

// TestIndexListAndTableInfo checks index list and table info against
// what the test wrote: the rows it imported (and those it imported with
// a TTL), the key columns and kinds it asked for, and each index's
// entries counted from the generated rows (a row with no value for the
// field has none); an index whose build is pending says so, in the text
// table too.
func TestIndexListAndTableInfo(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "info.db")
	// Rows 0–44 from a CSV, each with a mayor; rows 45–59 from NDJSON
	// with a TTL, a third of them without a mayor, each with from 0 to
	// 2 tags (one repeated: it counts once).
	var csv, ndjson strings.Builder
	csv.WriteString("country,city,id,pop,mayor\n")
	withMayor, tags := 45, 0
	for i := range 60 {
		if i < 45 {
			fmt.Fprintf(&csv, "c%d,city%d,%d,%d,m%d\n", i%4, i, i, i*10, i)
			continue
		}
		row := map[string]any{"country": fmt.Sprint("c", i%4), "city": fmt.Sprint("city", i), "id": i, "pop": i * 10}
		if i%3 != 0 {
			row["mayor"] = fmt.Sprint("m", i)
			withMayor++
		}
		var ts []string
		for j := range i % 3 {
			ts = append(ts, fmt.Sprint("t", j))
		}
		if i%5 == 0 {
			ts = append(ts, "t0", "t0")
		}
		row["tags"] = ts
		seen := map[string]bool{}
		for _, tag := range ts {
			if i*10 >= 500 && !seen[tag] { // by_tag indexes the rows of pop 500 and more
				seen[tag] = true
				tags++
			}
		}
		line, _ := json.Marshal(row)
		ndjson.Write(append(line, '\n'))
	}
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	a, b := write("a.csv", csv.String()), write("b.ndjson", ndjson.String())
	for _, args := range [][]string{
		{"table", "import", "--table", "cities", "--key-cols", "country,city,id", a},
		{"table", "import", "--table", "cities", "--key-cols", "country,city,id", "--ttl", "1h", b},
		{"table", "import", "--table", "towns", "--key-cols", "id", a},
		{"table", "import", "--table", "empty_of_indexes", "--key-cols", "id", a},
		{"index", "create", "--table", "cities", "--name", "by_pop", "--fields", "-pop", "--unique"},
		{"index", "create", "--table", "cities", "--name", "by_mayor", "--fields", "mayor", "--cover", "pop,city"},
		{"index", "create", "--table", "cities", "--name", "by_tag", "--fields", "tags", "--where", "pop>=500"},
		{"index", "create", "--table", "towns", "--name", "by_country", "--fields", "country,pop"},
	} {
		runOK(t, "", slices.Concat([]string{"--db", db, "-q"}, args)...)
	}
	byPop := infoIndex{Table: "cities", Name: "by_pop", Fields: []string{"-pop"}, Unique: true, Entries: 60, Built: true}
	byMayor := infoIndex{Table: "cities", Name: "by_mayor", Fields: []string{"mayor"}, Cover: []string{"pop", "city"}, Entries: withMayor, Built: true}
	byTag := infoIndex{Table: "cities", Name: "by_tag", Fields: []string{"tags"}, Where: []string{"pop>=500"}, Entries: tags, Built: true}
	byCountry := infoIndex{Table: "towns", Name: "by_country", Fields: []string{"country", "pop"}, Entries: 45, Built: true}
	list := func(args ...string) []infoIndex {
		var got []infoIndex
		out := runOK(t, "", slices.Concat([]string{"--db", db, "-o", "json", "index", "list"}, args)...)
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("index list %v: %v\n%s", args, err, out)
		}
		return got
	}
	sortIndexes := func(ixs []infoIndex) []infoIndex {
		slices.SortFunc(ixs, func(a, b infoIndex) int { return strings.Compare(a.Table+"\x00"+a.Name, b.Table+"\x00"+b.Name) })
		return ixs
	}
	if got, want := sortIndexes(list()), sortIndexes([]infoIndex{byPop, byMayor, byTag, byCountry}); !reflect.DeepEqual(got, want) {
		t.Errorf("index list:\n got %+v\nwant %+v", got, want)
	}
	if got, want := list("--table", "towns"), []infoIndex{byCountry}; !reflect.DeepEqual(got, want) {
		t.Errorf("index list --table towns:\n got %+v\nwant %+v", got, want)
	}
	if got := list("--table", "empty_of_indexes"); got == nil || len(got) != 0 {
		t.Errorf("index list of a table without indexes: %+v, want []", got)
	}

	var info struct {
		Table string `json:"table"`
		Key   []struct {
			Name string `json:"name"`
			Kind string `json:"kind"`
		} `json:"key"`
		Rows     int         `json:"rows"`
		Expiring int         `json:"expiring"`
		Indexes  []infoIndex `json:"indexes"`
	}
	out := runOK(t, "", "--db", db, "-o", "json", "table", "info", "--table", "cities")
	if err := json.Unmarshal([]byte(out), &info); err != nil {
		t.Fatal(err)
	}
	keys := fmt.Sprint(info.Key)
	if info.Table != "cities" || info.Rows != 60 || info.Expiring != 15 || keys != "[{country string} {city string} {id int}]" ||
		!reflect.DeepEqual(sortIndexes(info.Indexes), sortIndexes([]infoIndex{byPop, byMayor, byTag})) {
		t.Errorf("table info: %+v", info)
	}

	markUnbuilt(t, db, "cities", "by_mayor")
	byMayor.Built = false
	if got, want := sortIndexes(list("--table", "cities")), sortIndexes([]infoIndex{byPop, byMayor, byTag}); !reflect.DeepEqual(got, want) {
		t.Errorf("index list with a build pending:\n got %+v\nwant %+v", got, want)
	}
	text := runOK(t, "", "--db", db, "table", "info", "--table", "cities")
	for _, want := range []string{
		"table cities: 60 rows keyed country:city:id (country string, city string, id int), 15 of them expiring\n",
		"INDEX     FIELDS  UNIQUE  COVER     WHERE     ENTRIES  STATE\n",
		fmt.Sprintf("by_mayor  mayor   no      pop,city  -         %-7d  building", withMayor),
		"by_pop    -pop    yes     -         -         60       built\n",
		fmt.Sprintf("by_tag    tags    no      -         pop>=500  %-7d  built\n", tags),
	} {
		if !strings.Contains(text, want) {
			t.Errorf("table info's text lacks %q:\n%s", want, text)
		}
	}
	if text := runOK(t, "", "--db", db, "table", "info", "--table", "towns"); !strings.HasPrefix(text, "table towns: 45 rows keyed id (id int)\n") {
		t.Errorf("table info of towns:\n%s", text)
	}

	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"table", "info", "--table", "citys"}, 1, `unknown table "citys" (import it first; see keyspace stats); did you mean "cities"?`},
		{[]string{"index", "list", "--table", "town"}, 1, `did you mean "towns"?`},
		{[]string{"table", "info", "--table", "cities", "extra"}, 2, `table info takes no arguments, got "extra"`},
		{[]string{"index", "list", "cities"}, 2, `index list takes no arguments, got "cities"`},
		{[]string{"-o", "ndjson", "index", "list"}, 2, "ndjson"},
	} {
		if _, stderr, code := run(t, "", slices.Concat([]string{"--db", db}, c.args)...); code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want exit %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
}

// TestIndexRename renames an index beside one whose name begins with
// its own: lookups under the new name answer what they answered under
// the old, a pending build moves with it (lookups refuse it until index
// build finishes it), verify finds the file sound, and the old name is
// unknown. A rename onto another index's name, of an unknown index, or
// without a new name, changes nothing.
func TestIndexRename(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "rename.db")
	path := filepath.Join(dir, "people.csv")
	var b strings.Builder
	b.WriteString("id,city,age\n")
	for i := range 80 {
		fmt.Fprintf(&b, "%d,c%d,%d\n", i, i%7, 20+i%30)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"table", "import", "--table", "people", "--key-cols", "id", path},
		{"index", "create", "--table", "people", "--name", "by", "--fields", "city,-age", "--cover", "age"},
		{"index", "create", "--table", "people", "--name", "by_age", "--fields", "age"},
	} {
		runOK(t, "", slices.Concat([]string{"--db", db, "-q"}, args)...)
	}
	lookups := func(name string, values ...string) string {
		var out strings.Builder
		for _, value := range values {
			out.WriteString(runOK(t, "", "--db", db, "-o", "json", "index", "lookup", "--table", "people", "--name", name, value))
		}
		out.WriteString(runOK(t, "", "--db", db, "-o", "json", "index", "scan", "--table", "people", "--name", name))
		return out.String()
	}
	byCity, byAge := []string{"c1", "c3:40", "c*"}, []string{"25", "4*"}
	before, neighbour := lookups("by", byCity...), lookups("by_age", byAge...)
	listing := func() string { return runOK(t, "", "--db", db, "-o", "json", "index", "list") }
	listed := listing()
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--name", "by", "by_age"}, 1, `index "by_age" holds something already: drop it first, or choose another name (nothing renamed)`},
		{[]string{"--name", "by", "by"}, 1, `index "by" holds something already`},
		{[]string{"--name", "bye", "x"}, 1, `unknown index "bye" on table people (see keyspace index create); did you mean "by"?`},
		{[]string{"--name", "by", ""}, 1, "an index needs a name"},
		{[]string{"--name", "by"}, 2, "index rename wants one NAME, the new one"},
	} {
		args := slices.Concat([]string{"--db", db, "index", "rename", "--table", "people"}, c.args)
		if _, stderr, code := run(t, "", args...); code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want exit %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
	if listing() != listed {
		t.Fatal("a refused rename changed the indexes")
	}
	// A build pending on the renamed index goes with it.
	markUnbuilt(t, db, "people", "by")
	if out := runOK(t, "", "--db", db, "index", "rename", "--table", "people", "--name", "by", "by_city"); out != "renamed index by to by_city\n" {
		t.Errorf("rename said %q", out)
	}
	if _, stderr, code := run(t, "", "--db", db, "index", "lookup", "--table", "people", "--name", "by_city", "c1"); code != 1 || !strings.Contains(stderr, "index by_city on table people is not fully built") {
		t.Errorf("a lookup of the renamed index with its build pending: exit %d, %q", code, stderr)
	}
	runOK(t, "", "--db", db, "-q", "index", "build", "--table", "people", "--name", "by_city")
	if after := lookups("by_city", byCity...); after != before {
		t.Errorf("under its new name the index answers\n%s\nwhere before it answered\n%s", after, before)
	}
	if lookups("by_age", byAge...) != neighbour {
		t.Error("the index whose name begins with the renamed one's changed")
	}
	if _, stderr, code := run(t, "", "--db", db, "index", "lookup", "--table", "people", "--name", "by", "c1"); code != 1 || !strings.Contains(stderr, `unknown index "by"`) {
		t.Errorf("the old name after the rename: exit %d, %q", code, stderr)
	}
	if out, stderr, code := run(t, "", "--db", db, "verify"); code != 0 {
		t.Errorf("verify after the rename: exit %d\n%s%s", code, out, stderr)
	}
	// Writes keep the index under its new name in step.
	runOK(t, "", "--db", db, "table", "set", "--table", "people", "500", "city=c1", "age=99")
	if out := runOK(t, "", "--db", db, "-o", "ndjson", "index", "lookup", "--table", "people", "--name", "by_city", "c1:99"); !strings.Contains(out, `"key":"500"`) {
		t.Errorf("a row written after the rename is not found under the new name: %q", out)
	}
}
