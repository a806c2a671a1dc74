package cli_test

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/cli"
)

// commandLines are what FuzzCommandLine builds command lines from: each
// command that reads or writes a file holding every kind of structure,
// with its required flags; a $slot is filled from that slot's words, so
// most lines get past the flags to the command's work, good or bad.
var commandLines = []string{
	"geo near --index p --lat $n --lon $n --radius $d",
	"geo knn --index p --lat $n --lon $n --k $l",
	"geo box --index p --min-lat $n --min-lon $n --max-lat $n --max-lon $n",
	"geo within --index p --polygon $poly",
	"geo get --index p $id", "geo scan --index p", "geo dist --index p $id $id", "geo scopes --index p", "geo hash --index p $id",
	"geo put --index p --lat $n --lon $n $id", "geo del --index p $id", "geo cells --index p --precision $l", "geo bounds --index p",
	"geo fset --index p $id $fv", "geo expire --index p --ttl $dur $id", "geo persist --index p $id", "geo sweep", "geo repair --index p",
	"fence put --fences z --lat $n --lon $n --radius $d $id", "fence put --fences z --polygon $poly $id",
	"fence put --fences z --min-lat $n --min-lon $n --max-lat $n --max-lon $n $id",
	"fence get --fences z $id", "fence list --fences z", "fence containing --fences z --lat $n --lon $n",
	"fence near --fences z --lat $n --lon $n --radius $d", "fence intersecting --fences z --lat $n --lon $n --radius $d",
	"fence within --fences z --lat $n --lon $n --radius $d", "fence within --fences z --polygon $poly", "fence within --fences z --fence $id",
	"fence del --fences z $id", "fence expire --fences z --ttl $dur $id", "fence persist --fences z $id", "fence sweep",
	"table scan --table t $q", "table get --table t $key", "table count --table t", "table set --table t $key $fv",
	"table del --table t $key", "table expire --table t --ttl $dur $key", "table persist --table t $key", "table sweep",
	"index lookup --table t --name by_city $q", "index scan --table t --name by_city", "index verify --table t --name by_city",
	"index repair --table t --name by_city", "index create --table t --name $id --fields $fields", "index build --table t --name $id",
	"rel link --rel likes $id $id", "rel unlink --rel likes $id $id", "rel list --rel likes --left $id", "rel has --rel likes $id $id",
	"rel count --rel likes --right $id", "rel scan --rel likes",
	"log append --log inbox --parent $id $id", "log get --log inbox --parent $id $l", "log latest --log inbox --parent $id",
	"log range --log inbox --parent $id --since $time", "log day --log inbox --parent $id --date 2026-11-23", "log count --log inbox --parent $id", "log parents --log inbox", "log scan --log inbox",
	"log del --log inbox --parent $id $l", "log trim --log inbox --max-len $l", "log trim --log inbox --older-than $dur",
	"series add --series temps --sensor $id --time $time $n", "series range --series temps --sensor $id --every $dur",
	"series sensors --series temps", "stats",
	"geo drop --index p", "fence drop --fences z", "table drop --table t", "index drop --table t --name by_city",
	"rel drop --rel likes", "log drop --log inbox", "series drop --series temps",
	"fence repair --fences z", "table repair --table t", "rel repair --rel likes", "log repair --log inbox",
	"geo del --index p --match $id", "rel link --rel likes --left-fields $fv $id $id", "log trim --log inbox --parent $id --before $time",
	"geo box --index p --tile $tile", "geo box --index p --quadkey $quadkey", "geo box --index p --hash $hash",
	"geo cells --index p --precision $l --tile $tile", "fence put --fences z --hash $hash $id", "fence intersecting --fences z --tile $tile",
	"geo near --index p --lat $n --lon $n --radius $d --where-in $in", "geo knn --index p --lat $n --lon $n --k $l --where $path",
	"geo near --index p --lat $n --lon $n --radius $d --store q", "geo knn --index p --lat $n --lon $n --k $l --store p",
	"geo along --index p --line $line --radius $d", "geo knn --index p --line $line --k $l", "fence along --fences z --line $line --radius $d",
	"geo within --index p --polygon $poly --buffer $d", "fence intersecting --fences z --polygon $poly --buffer $d",
	"geo knn --index p --polygon $poly --k $l",
	"fence put --fences z --line $line --radius $d $id", "fence put --fences z --line $line $id",
	// A centre as arguments or in one flag, as Redis's users and maps
	// write it: a usage error with the flags it stands for.
	"geo near $id $n $n $d", "geo knn --index p $n $n $l", "geo put $id $n $n $id", "fence put --fences z --radius $d $n $n $id",
	"geo near --index p --lat $pair --lon $n --radius $d", "fence containing $id $n $n",
	"geo rename --index p $id", "fence rename --fences z $id", "log rename --log inbox $id",
	"table rename --table t $id", "rel rename --rel likes $id", "series rename --series temps $id",
	"index rename --table t --name by_city $id", "index list", "index list --table $id", "table info --table t",
	"index create --table t --name $id --fields $fields --where $path", "index create --table t --name $id --fields $fields --where-in $in --unique",
	"table scan --table t $q --where $eq --explain", "table scan --table t --where $eq --where $eq --limit $l --reverse",
	"table del --table t --where $eq", "table del --table t --where-in $in", "table count --table t $q --where $eq",
	"geo near --index p --lat $n --lon $n --radius $d --fields $fields", "table scan --table t $q --fields $fields", "geo scan --index p --fields $fields",
	"geo near --index p --lat $n --lon $n --radius $d -o ids", "geo scan --index p -o count",
	// Rows into the indexed table, their numbers in the forms JSON
	// writes them (importFiles).
	"table import --table t --key-cols id $rows", "table import --table t --key-cols id --typed $rows",
	"index lookup --table t --name by_city --from $q --to $q --reverse --limit $l", "index lookup --table t --name by_city $q --from $eq",
	"table scan --table t --where $eq --where $eq --limit $l --explain",
	// A table keyed by its city: --where city=… reads the rows under it.
	"table scan --table u --where $eq --explain", "table count --table u --where $eq", "table del --table u --where $eq --where $eq",
	// GROUP BY a field: through the index on city, or reading rows.
	"table count --table t --by $fields --top $l --explain", "table count --table t $q --by $fields --where $eq --no-index",
	// A range of the key column after the query's.
	"table scan --table t --from $key --to $key --reverse --limit $l", "table scan --table u $q --from $key --to $key --where $eq",
	// A relation's links, and a log's items, of a period.
	"rel list --rel likes --left $id --since $time --until $time", "rel count --rel likes --right $id --since $time",
	"log count --log inbox --parent $id --since $time --until $time",
	"index distinct --table t --name by_city $q --depth $l --limit $l",
	// An atomic aggregate on the indexed field, and the numbers of a
	// field per group.
	"table incr --table t $key city=$n n=$l", "table count --table t --by $fields --of city --top $l", "table count --table t $q --of n --where $eq",
	// Fence queries filtered by payload and id; counts as NDJSON.
	"fence near --fences z --lat $n --lon $n --radius $d --k $l --where $path", "fence containing --fences z --lat $n --lon $n --match $id --where-in $in",
	"table count --table t --by $fields --of $fields --output ndjson",
}

// importFiles are the files a $rows slot names (as @name, a file in the
// run's directory: withFiles): rows whose numbers are written in several
// forms (7.50, 1e2, -0, and whole numbers past 2^53 and past the int64s),
// in fields the table's index on city covers, and one past a float64's
// range.
var importFiles = map[string]string{
	"rows.ndjson": `{"id":3,"city":7.50,"o":{"a":1.50}}` + "\n" + `{"id":1,"city":"Oslo","n":[1e2,-0]}` + "\n" +
		`{"id":7,"city":12345678901234567891,"n":9007199254740993}` + "\n",
	"rows.json":  `[{"id":4,"city":{"x":1e2}},{"id":2,"city":[7.50,"Lima"]}]`,
	"typed.csv":  "id,city\n5,1e2\n1,7.50\n",
	"big.ndjson": `{"id":6,"city":1e999}` + "\n",
}

// withFiles writes importFiles into dir and makes line's @name words
// their paths.
func withFiles(t *testing.T, dir string, line []string) []string {
	out := slices.Clone(line)
	for i, w := range out {
		if name, ok := strings.CutPrefix(w, "@"); ok {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(importFiles[name]), 0o644); err != nil {
				t.Fatal(err)
			}
			out[i] = filepath.Join(dir, name)
		}
	}
	return out
}

// slotWords are each slot's words, good and bad; extras are the optional
// flags a line may end with.
var (
	slotWords = map[string][]string{
		"n":      {"0", "1", "1.5", "2", "-1", "90", "-90", "91", "180", "-180", "181", "NaN", "1e400", "0.001", "Inf", "x"},
		"d":      {"1km", "500m", "0", "-1km", "100km", "1e9", "2mi", "x"},
		"l":      {"0", "1", "2", "3", "10", "-1", "99999999999999999999", "x"},
		"id":     {"a", "b", "c", "e", "f1", "f2", "u1", "i1", "ann", "s1", "new", "", "x:y", "\x00", "é", "*", "1", "2"},
		"time":   {"2026-11-23T10:00:00Z", "1969-01-01T00:00:00Z", "9999-01-01T00:00:00Z", "2026-11-23", "x", "1764000000", "2026-11-23 10:00:00", "2026-02-30"},
		"key":    {"1", "2", "3", "x", "1:2", "", "-1"},
		"q":      {"1", "*", "Osl*", "Oslo", "1:*", "", "\\"},
		"fv":     {"status=free", "a=1", "speed=70", "city=Rome", `x={"a":1}`, "=1", "id=9", "city=", "n=null"},
		"dur":    {"1h", "2d", "0s", "-1h", "1ms", "1w", "x"},
		"fields": {"city", "-status", "city,status", "", "x,,y"},
		"poly": {`{"type":"Polygon","coordinates":[[[0,0],[3,0],[3,3],[0,3],[0,0]]]}`, `{"type":"Point","coordinates":[1,1]}`, "{}", "x",
			`{"type":"Polygon","coordinates":[[[170,0],[-170,0],[-170,1],[170,0]]]}`,
			// WKT, as PostGIS writes it, and what it must refuse.
			"POLYGON((0 0,3 0,3 3,0 3,0 0))", "SRID=4326;MULTIPOLYGON(((0 0,1 0,1 1,0 0)))", "SRID=3857;POLYGON((0 0,1 0,1 1,0 0))",
			"GEOMETRYCOLLECTION(POINT(1 1))", "POLYGON EMPTY", "POLYGON((0 0,1 0,1 1))", "[[0,0],[1,0]]"},
		"line": {`{"type":"LineString","coordinates":[[0,0],[2,2]]}`, `{"type":"MultiLineString","coordinates":[[[1,1],[1,1]],[[179,0],[-179,1]]]}`,
			`{"type":"LineString","coordinates":[[0,0]]}`, `{"type":"LineString","coordinates":[[0,0],[0,91]]}`, `{"type":"Point","coordinates":[1,1]}`, "x",
			"LINESTRING(0 0,2 2)", "MULTILINESTRING((0 0,1 1),(179 0,-179 1))", "LINESTRING(0 0 1,1 1 1)"},
		"tile":    {"0/0/0", "1/1/0", "3/4/3", "12/2147/1420", "30/0/0", "31/0/0", "3/8/0", "1/0", "x", "-1/0/0"},
		"quadkey": {"0", "3", "1202", "", "4", strings.Repeat("1", 31), "é"},
		"hash":    {"s", "u4", "9q8yy", "zzzzzzzzzzzz", "", "a", "9q8yyk8yuv1zz", "DR5R"},
		"in":      {"status=free,busy", "speed=7,70.0", `status="free",x`, "status=", "=x", `status="x`, "x"},
		"path":    {"a.b=1", "tags.0=ev", "driver.rating>=4", "status.x!=1", "driver.rating >= 4", " = 1"},
		"eq":      {"city=Oslo", "city=Lima", "status=open", "city=", "city=7", "city=true", "id=1", "city>=1", "id<3", "id>=9007199254740993", "id=-0", "city<=NaN", "city = Oslo", "id >= 2", "city= Oslo"},
		"pair":    {"1,2", "1, 2", "36.7N", "116.3W", "1S", "x,y", "91,0", "1;2", "N"},
		"rows":    {"@rows.ndjson", "@rows.json", "@typed.csv", "@big.ndjson"},
	}
	extras = []string{
		"--scope US", "--scope FR", "--scope US:CA", "--where status=free", "--where speed>=7", "--match a*", "--limit 1",
		"--limit 2", "--ttl 1h", "--ttl 2d", "--desc", "--any", "--xx", "--nx", "--del status", "--del city", "--output json",
		"--output ndjson", "--output geojson", "--k 2", "--cursor a", "--reverse", "--skip-bad", "--fences z", "--roam 1km",
		"--explain", "--every 1h", "--unique", "--cover status", "--output csv", "--where-in status=free,busy",
	}
)

// readOnly are the commands that only read: the file is the same byte
// for byte after them.
var readOnly = map[string]bool{
	"geo near": true, "geo knn": true, "geo box": true, "geo within": true, "geo get": true, "geo scan": true,
	"geo dist": true, "geo scopes": true, "geo hash": true, "geo cells": true, "geo bounds": true,
	"fence get": true, "fence list": true, "fence containing": true, "fence near": true, "fence intersecting": true, "fence within": true,
	"table scan": true, "table get": true, "table count": true, "index lookup": true, "index scan": true, "index verify": true, "index distinct": true,
	"rel list": true, "rel has": true, "rel scan": true, "rel count": true, "log get": true, "log latest": true, "log range": true, "log parents": true, "log scan": true,
	"log day": true, "log count": true, "series range": true, "series sensors": true, "geo along": true, "fence along": true,
}

var (
	templateOnce sync.Once
	template     []byte
)

// fuzzTemplate is a small file holding one of every structure.
func fuzzTemplate(tb testing.TB) []byte {
	templateOnce.Do(func() {
		db := filepath.Join(tb.TempDir(), "template.db")
		for _, step := range []struct {
			stdin string
			args  string
		}{
			{"id,lat,lon,status,cc\na,1,1,free,US\nb,1.01,1,busy,US\nc,2,2,free,FR\n", "geo import --index p --scope-cols cc -"},
			{"", "geo put --index p --lat 1.5 --lon 1.5 --ttl 1h e"},
			{"", "fence put --fences z --lat 1 --lon 1 --radius 5km f1"},
			{"", "fence put --fences z --min-lat 0 --min-lon 0 --max-lat 2 --max-lon 2 --ttl 1h f2"},
			{"", `fence put --fences z --line {"type":"LineString","coordinates":[[0.5,0.5],[1.5,1.2]]} --radius 2km f3`},
			{"id,city,status\n1,Oslo,open\n2,Lima,shipped\n", "table import --table t --key-cols id -"},
			{"id,city,status\n1,Oslo,open\n2,Lima,shipped\n3,Oslo,shipped\n", "table import --table u --key-cols city,id -"},
			{"", "index create --table t --name by_city --fields city"},
			{"", "index build --table t --name by_city"},
			{"", "rel link --rel likes u1 i1"},
			{"", "log append --log inbox --parent ann hello"},
			{"", "series add --series temps --sensor s1 --time 2026-11-23T10:00:00Z 5"},
		} {
			var out, errb bytes.Buffer
			args := append([]string{"keyspace", "--db", db, "--quiet"}, strings.Fields(step.args)...)
			if code := cli.Run(args, strings.NewReader(step.stdin), &out, &errb); code != 0 {
				tb.Fatalf("%s: %s", step.args, errb.String())
			}
		}
		var err error
		if template, err = os.ReadFile(db); err != nil {
			tb.Fatal(err)
		}
	})
	return template
}

// commandLine builds the arguments data says: its first byte picks the
// line, the next fill its slots in turn, and any left add extras.
func commandLine(data []byte) []string {
	next := func() int {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return int(b)
	}
	var args []string
	for _, word := range strings.Fields(commandLines[next()%len(commandLines)]) {
		if slot, ok := strings.CutPrefix(word, "$"); ok {
			words := slotWords[slot]
			word = words[next()%len(words)]
		}
		args = append(args, word)
	}
	for len(data) > 0 {
		args = append(args, strings.Fields(extras[next()%len(extras)])...)
	}
	return args
}

// FuzzCommandLine runs up to three command lines built from data (its
// parts between 0xff bytes, each a commandLine) one after another on a
// copy of a file holding every structure, and holds the command line to
// its contract whatever the words: it never panics, exits 0, 1 or 2, says
// a failure in one line on stderr that names each package once, writes
// CSV that reads back with --output csv, and
// leaves a file that keyspace verify finds sound (a write that fails
// changes nothing; one that succeeds keeps every index, list and cell in
// step).
func FuzzCommandLine(f *testing.F) {
	for i := range commandLines {
		f.Add([]byte{byte(i), 1, 2, 3, 4})
	}
	f.Add([]byte{9, 3, 3, 17})         // geo put of a new point
	f.Add([]byte{33, 0, 0, 9, 16, 17}) // table set with --del
	f.Add([]byte{45, 10, 0, 0xff, 42, 10, 1, 0xff, 38, 3})
	// A regression: index create then verify, when create only declared
	// the index and verify counted its every entry missing.
	f.Add([]byte{byte(slices.Index(commandLines, "index create --table t --name $id --fields $fields")), 6, 0})
	// A regression: numbers imported into the indexed table were indexed
	// from their text, and verify found the entries stale.
	for _, line := range []string{"table import --table t --key-cols id $rows", "table import --table t --key-cols id --typed $rows"} {
		for file := range slotWords["rows"] {
			f.Add([]byte{byte(slices.Index(commandLines, line)), byte(file)})
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		parts := bytes.Split(data, []byte{0xff})
		if len(data) == 0 || len(data) > 48 || len(parts) > 3 {
			return
		}
		db := filepath.Join(t.TempDir(), "k.db")
		if err := os.WriteFile(db, fuzzTemplate(t), 0o644); err != nil {
			t.Fatal(err)
		}
		var lines [][]string
		for _, part := range parts {
			if len(part) == 0 {
				continue
			}
			line := withFiles(t, filepath.Dir(db), commandLine(part))
			lines = append(lines, line)
			args := append([]string{"keyspace", "--db", db, "--quiet"}, line...)
			before, err := os.ReadFile(db)
			if err != nil {
				t.Fatal(err)
			}
			var stdout, stderr bytes.Buffer
			code := cli.Run(args, strings.NewReader(""), &stdout, &stderr)
			if line[0] == "stats" || readOnly[line[0]+" "+line[1]] && !slices.Contains(line, "--store") {
				if after, err := os.ReadFile(db); err != nil || !bytes.Equal(after, before) {
					t.Fatalf("%q, a read, changed the file (%v)", lines, err)
				}
			}
			if code < 0 || code > 2 {
				t.Fatalf("%q: exit %d: %s", lines, code, stderr.String())
			}
			// --output csv is made from the NDJSON a command writes: it
			// must write nothing else, and the CSV must read back.
			if strings.Contains(stderr.String(), "--output csv: ") {
				t.Fatalf("%q: %s", lines, stderr.String())
			}
			output := "" // the last --output given, which is the one that counts
			for i, w := range line[:len(line)-1] {
				if w == "--output" {
					output = line[i+1]
				}
			}
			if code == 0 && output == "csv" {
				if _, err := csv.NewReader(bytes.NewReader(stdout.Bytes())).ReadAll(); err != nil {
					t.Fatalf("%q: the CSV does not read: %v\n%s", lines, err, stdout.String())
				}
			}
			if code != 0 {
				msg := strings.TrimSuffix(stderr.String(), "\n")
				if msg == "" || strings.Contains(msg, "\n") {
					t.Fatalf("%q: exit %d, stderr %q: want one line", lines, code, stderr.String())
				}
				for _, pkg := range []string{"keyspace: ", "geo: ", "indextable: ", "enumkeys: ", "composite: "} {
					if strings.Count(msg, pkg) > 1 {
						t.Fatalf("%q: %q names %q twice", lines, msg, pkg)
					}
				}
			}
			var vout, verr bytes.Buffer
			if vc := cli.Run([]string{"keyspace", "--db", db, "verify"}, strings.NewReader(""), &vout, &verr); vc != 0 {
				t.Fatalf("after %q (exit %d, %q): verify exits %d:\n%s%s", lines, code, stderr.String(), vc, vout.String(), verr.String())
			}
		}
	})
}

// FuzzAtomicScript runs up to four command lines built from data as one
// shell --atomic script on a copy of a file holding every structure, and
// holds it to all or nothing: it exits 0, 1 or 2; a script that fails
// leaves the file byte for byte as it was; one that commits says how many
// lines it ran, leaves a file keyspace verify finds sound, and holds as
// many keys as the same lines run one by one on another copy, each of
// which succeeds too.
func FuzzAtomicScript(f *testing.F) {
	f.Add([]byte{9, 3, 3, 17, 0xff, 33, 0, 0, 9})
	f.Add([]byte{45, 10, 0, 0xff, 42, 10, 1, 0xff, 38, 3})
	f.Add([]byte{byte(slices.Index(commandLines, "stats")), 0xff, 9, 3, 3, 17})
	f.Add([]byte{byte(slices.Index(commandLines, "index create --table t --name $id --fields $fields")), 6, 0, 0xff, 33, 0, 0, 9})
	quote := func(w string) string { return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'" }
	keys := func(t *testing.T, db string) int {
		s, err := keyspace.Open(db, &keyspace.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		n := 0
		s.View(func(tx keyspace.Tx) error {
			for range tx.Scan(keyspace.Range{}) {
				n++
			}
			return nil
		})
		return n
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		parts := bytes.Split(data, []byte{0xff})
		if len(data) == 0 || len(data) > 64 || len(parts) > 4 {
			return
		}
		dir := t.TempDir()
		atomic, oneByOne := filepath.Join(dir, "atomic.db"), filepath.Join(dir, "lines.db")
		for _, db := range []string{atomic, oneByOne} {
			if err := os.WriteFile(db, fuzzTemplate(t), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var lines [][]string
		var script strings.Builder
		for _, part := range parts {
			if len(part) == 0 {
				continue
			}
			line := withFiles(t, dir, commandLine(part))
			if strings.ContainsRune(strings.Join(line, " "), 0) {
				return // a script's line holds no zero byte
			}
			lines = append(lines, line)
			for i, w := range line {
				if i > 0 {
					script.WriteByte(' ')
				}
				script.WriteString(quote(w))
			}
			script.WriteByte('\n')
		}
		var stdout, stderr bytes.Buffer
		code := cli.Run([]string{"keyspace", "--db", atomic, "--quiet", "shell", "--atomic"}, strings.NewReader(script.String()), &stdout, &stderr)
		after, err := os.ReadFile(atomic)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case code < 0 || code > 2:
			t.Fatalf("%q: exit %d: %s", lines, code, stderr.String())
		case code != 0:
			if !bytes.Equal(after, fuzzTemplate(t)) {
				t.Fatalf("%q failed (exit %d, %s) and changed the file", lines, code, stderr.String())
			}
			return
		}
		if want := fmt.Sprintf("committed %s in one transaction\n", plural(len(lines), "line")); !strings.HasSuffix(stderr.String(), want) {
			t.Fatalf("%q: stderr %q, want it to end %q", lines, stderr.String(), want)
		}
		var vout, verr bytes.Buffer
		if vc := cli.Run([]string{"keyspace", "--db", atomic, "verify"}, strings.NewReader(""), &vout, &verr); vc != 0 {
			t.Fatalf("after %q: verify exits %d:\n%s%s", lines, vc, vout.String(), verr.String())
		}
		for _, line := range lines {
			var out, errb bytes.Buffer
			if c := cli.Run(append([]string{"keyspace", "--db", oneByOne, "--quiet"}, line...), strings.NewReader(""), &out, &errb); c != 0 {
				t.Fatalf("%q committed as a script, but %q alone exits %d: %s", lines, line, c, errb.String())
			}
		}
		if a, b := keys(t, atomic), keys(t, oneByOne); a != b {
			t.Fatalf("%q: the script left %d keys, its lines one by one %d", lines, a, b)
		}
	})
}

// plural is count's "1 line", "2 lines".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
