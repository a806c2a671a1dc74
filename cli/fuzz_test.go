package cli_test

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/cli"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/enumkeys"
	"github.com/keyspacedb/keyspace/geo"
	"github.com/keyspacedb/keyspace/indextable"
	"github.com/paulmach/orb/geojson"
)

// FuzzImport feeds any bytes to `geo import` as CSV, NDJSON or GeoJSON,
// to `table import` as CSV, NDJSON, XML or TSV keyed by its id column, to
// `series import` as sensor,time,value CSV, to `log import` as XML rows
// with parent U and time T, or to `rel import` as CSV linking id to city,
// in process, and holds them to all or nothing: an import exits 0 having
// imported exactly the points, rows, readings, items or links it says,
// which the file then holds (the readings as its buckets' counts; the
// log's time index and counters and the relation's lists and counts
// verify), or exits 1 with one line on stderr and leaves no key behind;
// it never panics.
func FuzzImport(f *testing.F) {
	f.Add([]byte("id,lat,lon\na,1,2\nb,3,4\n"), uint8(0), false)
	f.Add([]byte("id,lat,lon\na,91,2\nb,3,4\n"), uint8(0), true)
	f.Add([]byte("id,lat,lon\na,1\n"), uint8(0), false)
	f.Add([]byte("id,lat,lon\na,1,2\na,3,4\n"), uint8(0), false) // a repeated id
	f.Add([]byte("id,lat,lon\na,1,2\na,3,4\n"), uint8(0), true)
	f.Add([]byte("\ufeffid,lat,lon,name\n\"x,y\",-90,180,\"a\"\"b\"\n"), uint8(0), false)
	f.Add([]byte(`{"id":"a","lat":1,"lon":2}`+"\n"+`{"id":7,"lat":"1","lon":2}`+"\n"), uint8(1), false)
	f.Add([]byte("id,lat,lon,lat\na,1,2,3\n"), uint8(0), false) // a column named twice
	f.Add([]byte("id,lat,lon,\na,1,2,\n"), uint8(0), true)      // a column without a name
	f.Add([]byte(`{"id":"a","lat":1,"lon":2,"n":12345678901234567891,"o":{"x":[1,null]}}`+"\n"+`{"id":"b","lat":1,"lon":2} {}`+"\n"), uint8(1), true)
	f.Add([]byte(`{"type":"FeatureCollection","features":[{"type":"Feature","id":"a","geometry":{"type":"Point","coordinates":[2,1]},"properties":{}}]}`), uint8(2), false)
	f.Add([]byte(`{"type":"FeatureCollection","features":[{"type":"Feature","geometry":null,"properties":{"id":"b"}}]}`), uint8(2), true)
	f.Add([]byte(`{"type":"FeatureCollection","features":[null,{"type":"Feature","id":"c","geometry":{"type":"GeometryCollection","geometries":[null]}}]}`), uint8(2), true)
	f.Add([]byte("id,city\n1,Oslo\n2,\"Rome, Lazio\"\n"), uint8(3), false) // table import
	f.Add([]byte("id,city\n1,Oslo\n1,Rome\n"), uint8(3), false)
	f.Add([]byte("city,id\nOslo,\n"), uint8(3), false)
	f.Add([]byte(`{"id":1,"tags":["a"]}`+"\n"+`{"key":"2","expires":"2030-01-02T15:04:05Z","record":{"id":2}}`+"\n"), uint8(5), false) // table import, NDJSON
	f.Add([]byte(`{"id":1}`+"\n"+`{"id":1}`+"\n"+`{"key":"3","expires":"soon","record":{"id":3}}`+"\n"), uint8(5), true)
	f.Add([]byte("sensor,time,value\ns1,2026-11-23T10:00:05Z,1.5\ns1,1763892000,2\ns2,2026-11-23T10:00:05Z,-3\n"), uint8(4), false) // series import
	f.Add([]byte("sensor,time,value\ns1,yesterday,1\ns1,1763892000,NaN\n,1,1\n"), uint8(4), true)
	f.Add([]byte("id,city\nu1,Oslo\nu1,Rome\nu1,Oslo\n,Oslo\n"), uint8(9), true) // rel import
	f.Add([]byte("id,city\nu1,Oslo\n"), uint8(9), false)
	f.Add([]byte("id\tcity\n1\t\"Oslo\n2\tRome\t\n\n3\r\n"), uint8(8), false) // table import, TSV
	f.Add([]byte("id\tcity\n1\tOslo\n1\tRome\n"), uint8(8), true)
	f.Add([]byte("<r>\n<row id=\"1\" city=\"Oslo\"/>\n<row id=\"2\" city=\"&amp;\"/></r>"), uint8(7), false) // table import, XML
	f.Add([]byte("<r><row id=\"1\"/><row id=\"1\" id=\"2\"/><row><x/></row></r>"), uint8(7), true)
	f.Add([]byte("<r>\n<row><id>1</id><city> Oslo </city></row>\n<row id=\"2\"><city>a&amp;b</city><x><y/></x></row><row><id>3</id><id>4</id></row></r>"), uint8(7), true)                                         // fields as elements
	f.Add([]byte("\ufeff<?xml version=\"1.0\"?>\r\n<c>\r\n<row U=\"1\" T=\"2014-01-21T20:34:28.740\" X=\"a\"/>\r\n<row U=\"1\" T=\"1390336468\"/><row U=\"2\" T=\"2014-01-21T20:34:28Z\"/></c>"), uint8(6), false) // log import
	f.Add([]byte("<c><row T=\"2014-01-21T20:34:28Z\"/><row U=\"1\" T=\"soon\"/><row U=\"\" T=\"0\"/><row U=\"1\" T=\"-1e12\"/></c>"), uint8(6), true)
	f.Add([]byte(`[{"id":"a","lat":1,"lon":2},{"id":"b","lat":"3","lon":4}]`), uint8(20), false)                               // geo import, --format json
	f.Add([]byte(`[{"id":"a","lat":1,"lon":2}, 7, {"id":"b"}] `), uint8(20), true)                                             // elements that are not rows
	f.Add([]byte(`[{"n":"x","c":[{"id":"a","lat":1,"lon":2}]},{"c":{"id":"b","lat":1,"lon":3}},{"c":"no"}]`), uint8(30), true) // --each c
	f.Add([]byte(`{"id":"p","c":[[{"id":"a","lat":1,"lon":2}],[]]}`), uint8(30), false)                                        // arrays within arrays
	f.Add([]byte(`{"c":[{"id":1,".id":2}],"id":9}`), uint8(33), false)                                                         // table import: a lent field's name taken
	f.Add([]byte(`{"rows":[{"key":"1","record":{"id":1}}]}`), uint8(23), false)                                                // table import: table scan --output json
	f.Add([]byte("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xffJ\xcc\x01\x00\x00\x00\xff\xff"), uint8(10), false)                   // a gzip stream, cut short
	f.Add(gzipped("id,lat,lon\na,1,2\nb,3,4\n"), uint8(10), false)                                                             // a gzip stream
	f.Add(gzipped(`[{"id":1}]`), uint8(13), false)
	f.Add([]byte("BZh91AY&SY"), uint8(13), true)                   // a bzip2 stream, cut short
	f.Add([]byte("id\tlat\tlon\na\t1\t2\n"), uint8(10), false)     // found to be a TSV
	f.Add([]byte("id,lat,lon\na,1,2\nb,91,4\n"), uint8(240), true) // a dry run
	f.Add([]byte("id,city\n1,Oslo\n"), uint8(243), false)
	imported := regexp.MustCompile(`^imported (\d+) (?:points? into p|rows? into table t keyed id|readings? into series s|items? into log l under \d+ parents?|links? into relation r(?:; \d+ rows? named a pair an earlier row did \(linked at the last one's time\))?)` +
		// The notes of rows whose time or data column no flag named.
		`(?:; every (?:link|item) stamped now, not at the rows' time column \(--time-col time reads it\))?` +
		`(?:; each item's data the row's other fields as a JSON object, not its data column \(--data-col data reads it\))?` +
		`(; skipped \d+ bad rows?: .*)?\n$`)
	f.Fuzz(func(t *testing.T, data []byte, format uint8, skipBad bool) {
		db := filepath.Join(t.TempDir(), "f.db")
		table, series, log, rel := format%10 == 3 || format%10 == 5 || format%10 == 7 || format%10 == 8, format%10 == 4, format%10 == 6, format%10 == 9
		args := []string{"keyspace", "--db", db, "--quiet", "geo", "import", "--index", "p"}
		formatName := []string{"csv", "ndjson", "geojson"}[min(format%10, 2)]
		switch {
		case table:
			args = []string{"keyspace", "--db", db, "--quiet", "table", "import", "--table", "t", "--key-cols", "id"}
			formatName = map[uint8]string{3: "csv", 5: "ndjson", 7: "xml", 8: "tsv"}[format%10]
		case series:
			args, formatName = []string{"keyspace", "--db", db, "--quiet", "series", "import", "--series", "s"}, "csv"
		case log:
			args, formatName = []string{"keyspace", "--db", db, "--quiet", "log", "import", "--log", "l", "--parent-col", "U", "--time-col", "T"}, "xml"
		case rel:
			args, formatName = []string{"keyspace", "--db", db, "--quiet", "rel", "import", "--rel", "r", "--left-col", "id", "--right-col", "city"}, "csv"
		}
		// format/10 varies how the input's format is named: 0 names it
		// (--format), 1 leaves it to be found from the bytes, 2 reads
		// them as one JSON document (--format json), and 3 as the rows
		// under each "c" key of one (--each c), which keep every field of
		// the objects above them (--with '*').
		switch format / 10 % 4 {
		case 0:
			args = append(args, "--format", formatName)
		case 2:
			args = append(args, "--format", "json")
		case 3:
			args = append(args, "--each", "c", "--with", "*")
		}
		args = append(args, "-")
		if skipBad {
			args = append(args, "--skip-bad")
		}
		// format/40 == 6 (240 and up) is a dry run: it says what it
		// would import, as the import itself would, and leaves no file.
		dry := format >= 240
		if dry {
			args = append(args, "--dry-run")
		}
		var stdout, stderr bytes.Buffer
		code := cli.Run(args, bytes.NewReader(data), &stdout, &stderr)
		keys, points, readings, buckets, records, items, counters, links := 0, 0, 0, 0, 0, 0, 0, 0
		if _, err := os.Stat(db); err == nil {
			s, err := keyspace.Open(db, &keyspace.Options{ReadOnly: true})
			if err != nil {
				t.Fatalf("the file an import left does not open: %v", err)
			}
			s.View(func(tx keyspace.Tx) error {
				for range tx.Scan(keyspace.Range{}) {
					keys++
				}
				for _, v := range tx.Scan(composite.NewSubspace("x", "s", "s").Range()) {
					var b indextable.Bucket
					if err := json.Unmarshal(v, &b); err != nil {
						t.Fatalf("bucket %q: %v", v, err)
					}
					buckets++
					readings += b.Count
				}
				// A table's records, whose expiry entries must match them.
				tb := indextable.New[map[string]any]("t", nil)
				for range tx.Scan(tb.Range()) {
					records++
				}
				if problems, err := tb.Verify(tx); err != nil || len(problems) > 0 {
					t.Fatalf("the table's expiry entries: %v, %v", problems, err)
				}
				// A log's items, whose time index and counters must
				// match them.
				for range tx.Scan(composite.NewSubspace("e", "l", "m").Range()) {
					items++
				}
				for range tx.Scan(composite.NewSubspace("e", "l", "c").Range()) {
					counters++
				}
				if problems, err := enumkeys.NewLog("l").Verify(tx); err != nil || len(problems) > 0 {
					t.Fatalf("the log's time index and counters: %v, %v", problems, err)
				}
				// A relation's links, whose lists and counts must match
				// them.
				for range tx.Scan(composite.NewSubspace("x", "r", "l").Range()) {
					links++
				}
				if problems, err := indextable.NewRelation("r").Verify(tx); err != nil || len(problems) > 0 {
					t.Fatalf("the relation's lists and counts: %v, %v", problems, err)
				}
				return geo.NewIndex("p").Scan(tx, "", func(geo.Point) bool { points++; return true })
			})
			s.Close() // before exportImportsBack writes
		} else if !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		if dry && code == 0 {
			said := strings.Replace(strings.Replace(stderr.String(), "; --dry-run: nothing written", "", 1), "would import ", "imported ", 1)
			if keys != 0 || !strings.HasPrefix(stderr.String(), "would import ") || !imported.MatchString(said) {
				t.Fatalf("a dry run said %q and left %d keys", stderr.String(), keys)
			}
			return
		}
		switch code {
		case 0:
			m := imported.FindStringSubmatch(stderr.String() + stdout.String())
			if m == nil {
				t.Fatalf("exit 0 without saying what it imported: stdout %q, stderr %q", stdout.String(), stderr.String())
			}
			n, _ := strconv.Atoi(m[1])
			if series && (n != readings || n > 0 && keys != buckets+1) { // the buckets and the series' options
				t.Fatalf("said %s readings; the buckets count %d readings in %d buckets, and the file holds %d keys", m[1], readings, buckets, keys)
			}
			if rel && n != links {
				t.Fatalf("said %s links; the relation holds %d", m[1], links)
			}
			if log && (n != items || keys != 2*items+counters) { // each item's two keys, a counter per parent
				t.Fatalf("said %s items; the log holds %d items and %d counters in %d keys", m[1], items, counters, keys)
			}
			if !table && !series && !log && !rel && (n != points || keys != 2*points) {
				t.Fatalf("said %s points; the index holds %d points in %d keys", m[1], points, keys)
			}
			if !table && !series && !log && !rel && points > 0 {
				exportImportsBack(t, db)
			}
			// The rows, the table's schema in the catalog, and (NDJSON
			// or JSON rows with "expires", which an input whose format
			// is not named may be) expiry entries, which Verify matched
			// with the records.
			if table && (n != records || keys < n+1 || format%10 != 5 && format/10%4 == 0 && keys != n+1) {
				t.Fatalf("said %s rows; the file holds %d records in %d keys", m[1], records, keys)
			}
		case 1:
			checkFailedImport(t, stderr.String(), keys)
		default:
			t.Fatalf("exit %d (%q) for input data", code, fmt.Sprint(stderr.String()))
		}
	})
}

// FuzzFenceImport feeds any bytes to `fence import` in process and holds
// it to all or nothing: it exits 0 having imported exactly the fences it
// says, one for each distinct id of the collection's features (read here
// with orb's geojson, apart from the command), in a set whose cells
// verify clean; or it exits 1 with one line on stderr and leaves no key
// behind; it never panics.
func FuzzFenceImport(f *testing.F) {
	feature := func(id, geometry, props string) string {
		return `{"type":"Feature","id":` + id + `,"geometry":` + geometry + `,"properties":` + props + `}`
	}
	collection := func(features ...string) []byte {
		return []byte(`{"type":"FeatureCollection","features":[` + strings.Join(features, ",") + `]}`)
	}
	circle := `{"type":"Point","coordinates":[2,1]}`
	square := `{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,1],[0,0]]]}`
	f.Add(collection(feature(`"a"`, circle, `{"radius":500}`)))
	f.Add(collection(feature(`"a"`, circle, `{"radius":500,"name":"x"}`), feature(`"b"`, square, `{}`), feature(`"a"`, square, `{}`)))
	f.Add(collection(feature(`7`, square, `{"fence":"box"}`)))
	f.Add(collection(feature(`"box"`, square, `{"fence":"box"}`)[:len(feature(`"box"`, square, `{"fence":"box"}`))-1] + `,"bbox":[179,-10,-179,10]}`))
	f.Add(collection(feature(`"far"`, `{"type":"Point","coordinates":[2,95]}`, `{"radius":5}`)))
	f.Add(collection(feature(`"line"`, `{"type":"LineString","coordinates":[[0,0],[1,1]]}`, `{}`)))
	f.Add(collection(feature(`"route"`, `{"type":"MultiLineString","coordinates":[[[179,0],[-179,1]],[[0,89],[180,89]]]}`, `{"radius":500,"name":"r"}`), feature(`"short"`, `{"type":"LineString","coordinates":[[0,0]]}`, `{"radius":"wide"}`)))
	f.Add(collection(feature(`"bow"`, `{"type":"Polygon","coordinates":[[[0,0],[1,1],[1,0],[0,1],[0,0]]]}`, `{}`)))
	band := `{"type":"Polygon","coordinates":[[[170,0],[-170,0],[-170,1],[170,0]]]}` // an edge of 340°: a note
	f.Add(collection(feature(`"band"`, band, `{}`)))
	f.Add(collection(feature(`"band"`, band, `{}`), feature(`"b2"`, band, `{}`), feature(`"a"`, square, `{}`)))
	f.Add(collection(feature(`null`, circle, `{"radius":1}`)))
	f.Add(collection(feature(`"soon"`, circle, `{"radius":500,"expires":"2200-01-01T00:00:00Z"}`), feature(`"gone"`, square, `{"expires":"2001-01-01T00:00:00.5Z"}`)))
	f.Add(collection(feature(`"bad"`, circle, `{"radius":500,"expires":"tomorrow"}`)))
	f.Add(collection(feature(`"old"`, circle, `{"radius":500,"expires":"1900-01-01T00:00:00Z"}`)))
	f.Add(collection())
	f.Add([]byte(`not json`))
	imported := regexp.MustCompile(`^imported (\d+) fences? into fence set z(?:; (?:fence "[^"]*"|\d+ polygons) ha(?:s|ve) an edge .*)?\n$`) // the note on edges longer than 180°
	f.Fuzz(func(t *testing.T, data []byte) {
		db := filepath.Join(t.TempDir(), "f.db")
		var stdout, stderr bytes.Buffer
		code := cli.Run([]string{"keyspace", "--db", db, "fence", "import", "--fences", "z", "--format", "geojson", "-"}, bytes.NewReader(data), &stdout, &stderr)
		keys, fences, problems := fenceSetLeft(t, db, nil)
		switch code {
		case 0:
			m := imported.FindStringSubmatch(stderr.String())
			if m == nil {
				t.Fatalf("exit 0 without saying what it imported: %q", stderr.String())
			}
			fc, err := geojson.UnmarshalFeatureCollection(data)
			if err != nil {
				t.Fatalf("exit 0 for what orb does not read as a FeatureCollection: %v", err)
			}
			// The distinct ids, each live unless its last feature's
			// expires property has passed.
			ids := map[string]bool{}
			for _, feat := range fc.Features {
				id := fmt.Sprint(feat.ID)
				if n, ok := feat.ID.(float64); ok { // every digit: 1142170 and 1142171 are two ids
					id = strconv.FormatFloat(n, 'g', -1, 64)
				}
				e, _ := feat.Properties["expires"].(string)
				at, err := time.Parse(time.RFC3339Nano, e)
				ids[id] = err != nil || at.After(time.Now())
			}
			live := 0
			for _, ok := range ids {
				if ok {
					live++
				}
			}
			if n, _ := strconv.Atoi(m[1]); n != len(fc.Features) || fences != live || len(problems) > 0 {
				t.Fatalf("said %s fences of %d features; the set holds %d of %d distinct ids live, %d problems: %v", m[1], len(fc.Features), fences, live, len(problems), problems)
			}
		case 1:
			checkFailedImport(t, stderr.String(), keys)
		default:
			t.Fatalf("exit %d (%q)", code, stderr.String())
		}
	})
}

// exportImportsBack holds geo scan --output ndjson of index p, imported
// into another index with --format ndjson (--scope-cols scope and
// --expires-col expires when a point has them), to exporting the same
// points, scopes, expiries and payloads.
func exportImportsBack(t *testing.T, db string) {
	t.Helper()
	run := func(stdin string, args ...string) string {
		var stdout, stderr bytes.Buffer
		if code := cli.Run(append([]string{"keyspace", "--db", db, "--quiet"}, args...), strings.NewReader(stdin), &stdout, &stderr); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
		}
		return stdout.String()
	}
	export := run("", "--output", "ndjson", "geo", "scan", "--index", "p")
	args := []string{"geo", "import", "--index", "p2", "--format", "ndjson"}
	if strings.Contains(export, `"scope":`) { // the columns must be somewhere in the file
		args = append(args, "--scope-cols", "scope")
	}
	if strings.Contains(export, `"expires":`) {
		args = append(args, "--expires-col", "expires")
	}
	run(export, append(args, "-")...)
	// The same JSON values, line by line: a payload's key that was not
	// UTF-8 is "\ufffd" in one and "�" in the other.
	decode := func(ndjson string) []any {
		var out []any
		for _, line := range strings.Split(strings.TrimSpace(ndjson), "\n") {
			d := json.NewDecoder(strings.NewReader(line))
			d.UseNumber()
			var v any
			if err := d.Decode(&v); err != nil {
				t.Fatalf("export line %q: %v", line, err)
			}
			out = append(out, v)
		}
		return out
	}
	if again := run("", "--output", "ndjson", "geo", "scan", "--index", "p2"); !reflect.DeepEqual(decode(again), decode(export)) {
		t.Fatalf("the export imported again exports as\n%s\nnot\n%s", again, export)
	}
}

// FuzzFenceImportRows feeds any bytes to `fence import --format csv`,
// circles from rows, in process, and holds it to all or nothing: it exits
// 0 having imported as many fences as the CSV (read here by encoding/csv)
// has rows, one for each distinct id, circles whose cells verify clean;
// or it exits 1 with one line on stderr and leaves no key behind; it
// never panics.
func FuzzFenceImportRows(f *testing.F) {
	f.Add([]byte("id,lat,lon,radius\na,1,2,500\nb,1.5,2,2km\n"))
	f.Add([]byte("id,lat,lon,radius,name\na,1,2,500,x\na,3,4,1mi,y\n")) // an id twice: the last row's circle
	f.Add([]byte("id,lat,lon,radius\na,91,2,500\n"))
	f.Add([]byte("id,lat,lon,radius\na,1,2,-5\n"))
	f.Add([]byte("id,lat,lon,radius\n,1,2,5\n"))
	f.Add([]byte("id,lat,lon\na,1,2\n"))
	f.Add([]byte("id,lat,lon,radius\na,1,2,1e9\n"))
	f.Add([]byte("id,lat,lon,radius\n\"a,b\",-90,180,0\n"))
	imported := regexp.MustCompile(`^imported (\d+) fences? into fence set z(?:; (?:fence "[^"]*"|\d+ polygons) ha(?:s|ve) an edge .*)?\n$`) // the note on edges longer than 180°
	f.Fuzz(func(t *testing.T, data []byte) {
		if bytes.ContainsRune(data, ';') {
			return // a CSV of semicolons, which the oracle's encoding/csv would read with commas (TestCSVComma)
		}
		db := filepath.Join(t.TempDir(), "f.db")
		var stdout, stderr bytes.Buffer
		code := cli.Run([]string{"keyspace", "--db", db, "fence", "import", "--fences", "z", "--format", "csv", "-"}, bytes.NewReader(data), &stdout, &stderr)
		keys, fences, problems := fenceSetLeft(t, db, func(f geo.Fence) {
			if f.Circle == nil || !(f.Circle.Radius >= 0) {
				t.Fatalf("fence %+v: want a circle", f)
			}
		})
		checkFenceRowsImport(t, data, code, stderr.String(), imported, keys, fences, problems)
	})
}

// checkFenceRowsImport checks what a fence import of the CSV data did,
// exiting code with stderr: with 0 it said (imported) it imported every
// row, and the set holds a fence for each distinct id, verified; with 1
// it left nothing (checkFailedImport, keys the file's); nothing else.
func checkFenceRowsImport(t *testing.T, data []byte, code int, stderr string, imported *regexp.Regexp, keys, fences int, problems []string) {
	t.Helper()
	switch code {
	case 0:
		m := imported.FindStringSubmatch(stderr)
		recs, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\ufeff")))).ReadAll()
		if m == nil || err != nil || len(recs) == 0 {
			t.Fatalf("exit 0: %q, and encoding/csv: %v", stderr, err)
		}
		col := slices.Index(recs[0], "id")
		ids := map[string]bool{}
		for _, rec := range recs[1:] {
			if col >= 0 && col < len(rec) {
				ids[rec[col]] = true
			}
		}
		if n, _ := strconv.Atoi(m[1]); n != len(recs)-1 || fences != len(ids) || len(problems) > 0 {
			t.Fatalf("said %s fences of %d rows; the set holds %d of %d distinct ids, %d problems: %v", m[1], len(recs)-1, fences, len(ids), len(problems), problems)
		}
	case 1:
		checkFailedImport(t, stderr, keys)
	default:
		t.Fatalf("exit %d (%q)", code, stderr)
	}
}

// FuzzFenceImportWKT: fence import --wkt-col on rows whatever their WKT
// holds (a polygon, a line, a point, a collection, text orb cannot read,
// text that made readWKT panic before it checked its pattern matched)
// either imports every row, each id's last fence in the set and verified
// (the fences' cells what their regions imply), or fails naming a row and
// leaves nothing behind: never a panic, never a usage error.
func FuzzFenceImportWKT(f *testing.F) {
	f.Add([]byte("id,radius,wkt\na,,\"POLYGON((0 0,1 0,1 1,0 0))\"\nb,200m,\"LINESTRING(0 0,1 1)\"\nc,1km,POINT(2 3)\n"))
	f.Add([]byte("id,radius,wkt\nx,1km,\"GEOMETRYCOLLECTION(POINT(1 1))\"\n")) // readWKT indexed a failed match
	f.Add([]byte("id,radius,wkt\nm,,\"MULTIPOLYGON(((0 0,1 0,1 1,0 0)),((2 2,3 2,3 3,2 2)))\"\nr,,\"MULTILINESTRING((0 0,1 1),(2 2,3 3))\"\n"))
	f.Add([]byte("id,radius,wkt\np,5km,\"POLYGON((0 0,1 0,1 1,0 0))\"\n"))                  // a polygon with a radius
	f.Add([]byte("id,radius,wkt\nq,,POINT(1 1)\n"))                                         // a point without one
	f.Add([]byte("id,radius,wkt\ns,,\"SRID=4326;POLYGON((170 0,-170 0,-170 1,170 0))\"\n")) // a long edge, noted
	f.Add([]byte("id,radius,wkt\nt,,\"SRID=3857;POINT(1 1)\"\nu,,POLYGON EMPTY\nv,,\"POINT(1 2 3)\"\n"))
	imported := regexp.MustCompile(`^imported (\d+) fences? into fence set z(?:; (?:fence "[^"]*"|\d+ polygons) ha(?:s|ve) an edge .*)?\n$`)
	f.Fuzz(func(t *testing.T, data []byte) {
		if bytes.ContainsRune(data, ';') && !bytes.Contains(data, []byte("SRID=")) {
			return // a CSV of semicolons, which the oracle's encoding/csv would read with commas (TestCSVComma)
		}
		db := filepath.Join(t.TempDir(), "f.db")
		var stdout, stderr bytes.Buffer
		code := cli.Run([]string{"keyspace", "--db", db, "fence", "import", "--fences", "z", "--wkt-col", "wkt", "--format", "csv", "-"}, bytes.NewReader(data), &stdout, &stderr)
		keys, fences, problems := fenceSetLeft(t, db, nil)
		checkFenceRowsImport(t, data, code, stderr.String(), imported, keys, fences, problems)
	})
}

// fenceSetLeft opens what a fence import left at db, if anything, and
// counts its keys and the fences of set z, hands each fence to check
// unless that is nil, and returns what Verify finds wrong with the set.
func fenceSetLeft(t *testing.T, db string, check func(geo.Fence)) (keys, fences int, problems []string) {
	t.Helper()
	if _, err := os.Stat(db); errors.Is(err, os.ErrNotExist) {
		return 0, 0, nil
	} else if err != nil {
		t.Fatal(err)
	}
	s, err := keyspace.Open(db, &keyspace.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("the file an import left does not open: %v", err)
	}
	defer s.Close()
	s.View(func(tx keyspace.Tx) error {
		for range tx.Scan(keyspace.Range{}) {
			keys++
		}
		fs := geo.NewFences("z")
		ids, err := fs.IDs(tx)
		if err != nil {
			t.Fatal(err)
		}
		fences = len(ids)
		for _, id := range ids {
			f, err := fs.Get(tx, id)
			if err != nil {
				t.Fatalf("fence %q: %v", id, err)
			}
			if check != nil {
				check(f)
			}
		}
		if problems, err = fs.Verify(tx); err != nil {
			t.Fatal(err)
		}
		return nil
	})
	return keys, fences, problems
}

// gzipped is text as a gzip stream.
func gzipped(text string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(text))
	zw.Close()
	return b.Bytes()
}

// checkFailedImport fails t unless an import that exited 1 left no key
// and said why in one line.
func checkFailedImport(t *testing.T, stderr string, keys int) {
	t.Helper()
	if keys != 0 {
		t.Fatalf("a failed import (%q) left %d keys", stderr, keys)
	}
	if strings.Count(stderr, "\n") != 1 {
		t.Fatalf("a failed import said %q: want one line", stderr)
	}
}
