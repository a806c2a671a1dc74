package cli_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// xmlRows writes records as a Stack Exchange dump writes them: each an
// element under the root, its fields attributes. An empty field is left
// out, as a dump leaves out a deleted user's id.
func xmlRows(header []string, records [][]string) []byte {
	var b bytes.Buffer
	b.WriteString("\ufeff<?xml version=\"1.0\" encoding=\"utf-8\"?>\r\n<rows>\r\n")
	for _, rec := range records {
		b.WriteString("  <row")
		for i, h := range header {
			if rec[i] == "" {
				continue
			}
			fmt.Fprintf(&b, " %s=\"", h)
			xml.EscapeText(&b, []byte(rec[i]))
			b.WriteString("\"")
		}
		b.WriteString(" />\r\n")
	}
	b.WriteString("</rows>\r\n")
	return b.Bytes()
}

// xmlElementRows writes records as many XML exports do: each an element
// under the root, its fields elements of text inside it. An empty field
// is left out, as xmlRows leaves it out.
func xmlElementRows(header []string, records [][]string) []byte {
	var b bytes.Buffer
	b.WriteString("<?xml version=\"1.0\"?>\n<rows>\n")
	for _, rec := range records {
		b.WriteString("  <row>\n")
		for i, h := range header {
			if rec[i] == "" {
				continue
			}
			fmt.Fprintf(&b, "    <%s>", h)
			xml.EscapeText(&b, []byte(rec[i]))
			fmt.Fprintf(&b, "</%s>\n", h)
		}
		b.WriteString("  </row>\n")
	}
	b.WriteString("</rows>\n")
	return b.Bytes()
}

// csvRows writes records as a CSV, after a header unless header is nil.
func csvRows(header []string, records [][]string) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if header != nil {
		w.Write(header)
	}
	w.WriteAll(records)
	return b.Bytes()
}

// jsonRows writes records as a JSON array of objects whose fields are
// strings, as a CSV's are, but for empty ones, which are left out, and,
// when typed, numbers, as --typed reads a CSV's.
func jsonRows(header []string, records [][]string, typed bool) []byte {
	var objs []map[string]any
	for _, rec := range records {
		obj := map[string]any{}
		for i, h := range header {
			if _, err := strconv.ParseFloat(rec[i], 64); typed && err == nil {
				obj[h] = json.Number(rec[i])
			} else if rec[i] != "" {
				obj[h] = rec[i]
			}
		}
		objs = append(objs, obj)
	}
	b, _ := json.MarshalIndent(objs, "", "  ")
	return b
}

// nestedJSONRows writes records as jsonRows does, split among the "rows"
// arrays of the objects of a "groups" array, itself in an object, some
// groups empty: --each groups.rows finds them in order.
func nestedJSONRows(header []string, records [][]string, typed bool) []byte {
	var groups []json.RawMessage
	for i := 0; i < len(records); i += 7 {
		groups = append(groups, json.RawMessage(`{"name":"empty","rows":[]}`))
		g := fmt.Sprintf(`{"name":%q,"rows":%s}`, fmt.Sprint("g", i), jsonRows(header, records[i:min(i+7, len(records))], typed))
		groups = append(groups, json.RawMessage(g))
	}
	b, _ := json.Marshal(map[string]any{"groups": groups, "note": "x"})
	return b
}

// bzip2ed is b compressed by the bzip2 command, or nil where there is
// none (Go's standard library reads bzip2 but does not write it).
func bzip2ed(t *testing.T, b []byte) []byte {
	t.Helper()
	cmd := exec.Command("bzip2", "-c")
	cmd.Stdin = bytes.NewReader(b)
	out, err := cmd.Output()
	if err != nil {
		t.Logf("no bzip2 command, no bzip2 file: %v", err)
		return nil
	}
	return out
}

// semicolonRows writes records as csvRows does, but with semicolons
// between fields, as a spreadsheet writes CSV where the comma is the
// decimal mark.
func semicolonRows(header []string, records [][]string) []byte {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Comma = ';'
	w.Write(header)
	w.WriteAll(records)
	return b.Bytes()
}

// tsvRows writes records as GeoNames writes its dumps: fields joined by
// tabs, nothing quoted, after a header unless header is nil.
func tsvRows(header []string, records [][]string) []byte {
	var b bytes.Buffer
	if header != nil {
		b.WriteString(strings.Join(header, "\t") + "\n")
	}
	for _, rec := range records {
		b.WriteString(strings.Join(rec, "\t") + "\n")
	}
	return b.Bytes()
}

// TestImportFormatsAgree: geo, table and series imports of the same rows
// as XML (fields as attributes, and as elements of text), as TSV (a " in a field is a character, not a quote), and as CSV
// or TSV without a header (--columns) store what the rows imported as
// CSV store (the CSV imports are checked against brute force and
// recomputation elsewhere), compared by what each file exports.
func TestImportFormatsAgree(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(5, 6))
	names := []string{"Oslo", "Rome, Lazio", `"quoted"`, "a & b <c>", "ünï"}
	header := []string{"id", "country", "lat", "lon", "name", "pop"}
	var points [][]string
	for i := range 60 {
		points = append(points, []string{fmt.Sprint(i), []string{"NO", "IT"}[r.IntN(2)],
			fmt.Sprintf("%.5f", r.Float64()*10+50), fmt.Sprintf("%.5f", r.Float64()*10), names[r.IntN(len(names))], fmt.Sprint(r.IntN(900_000))})
	}
	readingHeader := []string{"sensor", "time", "value"}
	var readings [][]string
	base := time.Date(2014, 1, 21, 20, 0, 0, 0, time.UTC)
	for range 200 {
		at := base.Add(time.Duration(r.IntN(3*3600)) * time.Second)
		readings = append(readings, []string{fmt.Sprint("s", r.IntN(3)), at.Format(time.RFC3339), fmt.Sprintf("%.2f", r.NormFloat64()*10)})
	}
	var readingsNDJSON bytes.Buffer
	for _, rec := range readings {
		at, _ := time.Parse(time.RFC3339, rec[1])
		fmt.Fprintf(&readingsNDJSON, `{"sensor":%q,"time":%d,"value":%s}`+"\n", rec[0], at.Unix(), rec[2])
	}
	// Each case imports a file into a database of its own, and exports.
	imports := []struct {
		what    string
		body    []byte
		import_ []string
		export  [][]string
	}{
		{"geo", nil, []string{"geo", "import", "--index", "p", "--scope-cols", "country", "--typed"},
			[][]string{{"--output", "ndjson", "geo", "scan", "--index", "p"}}},
		{"table", nil, []string{"table", "import", "--table", "t", "--key-cols", "country,id"},
			[][]string{{"--output", "ndjson", "table", "scan", "--table", "t"}}},
		{"series", nil, []string{"series", "import", "--series", "s"},
			[][]string{{"--output", "json", "series", "range", "--series", "s", "--sensor", "s0"}, {"--output", "json", "series", "range", "--series", "s", "--sensor", "s2", "--every", "1h"}}},
	}
	// exportOf imports body as a file of the name given, with --format
	// format unless format is "", and exports.
	exportOf := func(t *testing.T, name, format string, body []byte, importArgs []string, exports [][]string) string {
		db, file := filepath.Join(t.TempDir(), "k.db"), filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(file, body, 0o644); err != nil {
			t.Fatal(err)
		}
		if format != "" {
			importArgs = append(slices.Clone(importArgs), "--format", format)
		}
		if _, stderr, code := run(t, "", append(append([]string{"--db", db}, importArgs...), file)...); code != 0 {
			t.Fatalf("%s %s %v: exit %d: %s", name, format, importArgs, code, stderr)
		}
		var all strings.Builder
		for _, args := range exports {
			out, stderr, code := run(t, "", append([]string{"--db", db}, args...)...)
			if code != 0 || strings.TrimSpace(out) == "" {
				t.Fatalf("%v: exit %d: %s", args, code, stderr)
			}
			all.WriteString(out)
		}
		return all.String()
	}
	for _, tc := range imports {
		t.Run(tc.what, func(t *testing.T) {
			h, recs := header, points
			if tc.what == "series" {
				h, recs = readingHeader, readings
			}
			want := exportOf(t, "rows.csv", "csv", csvRows(h, recs), tc.import_, tc.export)
			named := append(slices.Clone(tc.import_), "--columns", strings.Join(h, ","))
			nested := append(slices.Clone(tc.import_), "--each", "groups.rows")
			typed := slices.Contains(tc.import_, "--typed")
			for _, other := range []struct {
				name, format string // no format: found from the name or the bytes
				body         []byte
				args         []string
			}{
				{"rows.xml", "xml", xmlRows(h, recs), tc.import_},
				{"elements.xml", "xml", xmlElementRows(h, recs), tc.import_},
				{"rows.tsv", "tsv", tsvRows(h, recs), tc.import_},
				{"rows.tsv", "tsv", tsvRows(nil, recs), named},
				{"rows.csv", "csv", csvRows(nil, recs), named},
				{"rows.json", "json", jsonRows(h, recs, typed), tc.import_},
				{"rows.csv.gz", "", gzipped(string(csvRows(h, recs))), tc.import_},
				{"semicolons.csv", "", semicolonRows(h, recs), tc.import_},
				{"rows.txt", "", tsvRows(h, recs), tc.import_},
				{"rows.dat", "", []byte(" \n" + string(jsonRows(h, recs, typed))), tc.import_},
				{"rows", "", xmlRows(h, recs), tc.import_},
				{"rows.json.bz2", "", bzip2ed(t, jsonRows(h, recs, typed)), tc.import_},
				{"nested.json", "", nestedJSONRows(h, recs, typed), nested},
			} {
				if other.body == nil {
					continue // no bzip2 command
				}
				if got := exportOf(t, other.name, other.format, other.body, other.args, tc.export); got != want {
					t.Errorf("%s %s import %v exports\n%s\nCSV import\n%s", other.name, other.format, other.args, got, want)
				}
			}
			if tc.what == "series" {
				if got := exportOf(t, "rows.ndjson", "ndjson", readingsNDJSON.Bytes(), tc.import_, tc.export); got != want {
					t.Errorf("NDJSON import exports\n%s\nCSV import\n%s", got, want)
				}
			}
		})
	}
	// A row without a key attribute is a bad row, named, not a missing
	// column: other rows have it.
	file := filepath.Join(dir, "nokey.xml")
	os.WriteFile(file, xmlRows([]string{"id", "name"}, [][]string{{"", "first"}, {"2", "second"}}), 0o644)
	db := filepath.Join(dir, "nokey.db")
	_, stderr, code := run(t, "", "--db", db, "table", "import", "--table", "t", "--key-cols", "id", "--format", "xml", file)
	if code != 1 || !strings.Contains(stderr, "line 3: ") || !strings.Contains(stderr, "nothing imported") {
		t.Errorf("a row without its key: exit %d, %q", code, stderr)
	}
	_, stderr, code = run(t, "", "--db", db, "table", "import", "--table", "t", "--key-cols", "ID", "--format", "xml", file)
	if code != 1 || !strings.Contains(stderr, `no key column "ID"`) {
		t.Errorf("a key column no row has: exit %d, %q", code, stderr)
	}
}

// TestGeoNamesTSV imports GeoNames' cities15000 dump (a TSV without a
// header, when ../shared/data holds it) with --columns geonames (its ids
// its geonameid column) and no --format
// (its name, .txt, says none: its lines, with as many tabs each and
// commas in their alternate names, are found to be a TSV's), and checks
// near and knn queries against brute force over the file as encoding/csv
// reads it with tabs for commas.
func TestGeoNamesTSV(t *testing.T) {
	path, recs := datasetCSV(t, "geonames_cities15000.txt", '\t')
	var cities []city
	for _, rec := range recs {
		lat, _ := strconv.ParseFloat(rec[4], 64)
		lon, _ := strconv.ParseFloat(rec[5], 64)
		cities = append(cities, city{rec[0], lat, lon})
	}
	db := filepath.Join(t.TempDir(), "geonames.db")
	_, stderr, code := run(t, "", "--db", db, "geo", "import", "--index", "g", "--columns", "geonames", "--typed", path)
	if code != 0 || !strings.Contains(stderr, fmt.Sprintf("imported %d points into g", len(cities))) {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, c := range []city{cities[0], cities[len(cities)/2], {"pole", 78.2, 15.6}, {"dateline", -17.7, 179.9}} {
		nearAndKNN(t, db, "g", cities, c, 60000, 5)
	}
	// The payload holds the other columns, numbers as numbers (--typed).
	out, stderr, code := run(t, "", "--db", db, "--output", "json", "geo", "get", "--index", "g", recs[0][0])
	if code != 0 || !strings.Contains(out, `"population": `+recs[0][14]) || !strings.Contains(out, `"asciiname": "`+recs[0][2]+`"`) {
		t.Errorf("geo get %s: exit %d, %s%s", recs[0][0], code, out, stderr)
	}
}

// TestGeoNamesColumns: a file shaped as GeoNames' dumps (19 columns, tab
// separated, no header) imported without --columns is refused with a
// pointer to --columns geonames; with it, it imports as with the 19
// names written out and --id-col geonameid (geo scan prints the same),
// and a table import reads the same names.
func TestGeoNamesColumns(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "cities.txt")
	rows := "3040051\tles Escaldes\tles Escaldes\tEscaldes,Les Escaldes\t42.50729\t1.53414\tP\tPPLA\tAD\t\t08\t\t\t\t15853\t\t1033\tEurope/Andorra\t2008-10-15\n" +
		"3041563\tAndorra la Vella\tAndorra la Vella\tALV,Andorra\t42.50779\t1.52109\tP\tPPLC\tAD\t\t07\t\t\t\t20430\t\t1037\tEurope/Andorra\t2020-03-03\n"
	if err := os.WriteFile(file, []byte(rows), 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "g.db")
	if _, stderr, code := run(t, "", "--db", db, "geo", "import", "--index", "g", file); code != 1 || !strings.HasSuffix(stderr, "the first line looks like data, not a header: name the columns with --columns (--columns geonames for a GeoNames dump)\n") {
		t.Errorf("without --columns: exit %d, %q", code, stderr)
	}
	written := "geonameid,name,asciiname,alternatenames,latitude,longitude,feature_class,feature_code,country_code,cc2," +
		"admin1,admin2,admin3,admin4,population,elevation,dem,timezone,modified"
	runOK(t, "", "--db", db, "geo", "import", "--index", "preset", "--columns", "geonames", "--typed", file)
	runOK(t, "", "--db", db, "geo", "import", "--index", "written", "--columns", written, "--id-col", "geonameid", "--typed", file)
	preset := runOK(t, "", "--db", db, "-o", "ndjson", "geo", "scan", "--index", "preset")
	if want := runOK(t, "", "--db", db, "-o", "ndjson", "geo", "scan", "--index", "written"); preset != want || !strings.Contains(preset, `"id":"3041563"`) || !strings.Contains(preset, `"population":20430`) {
		t.Errorf("--columns geonames imported\n%s\nwant\n%s", preset, want)
	}
	runOK(t, "", "--db", db, "table", "import", "--table", "t", "--key-cols", "country_code,geonameid", "--columns", "geonames", file)
	if out := runOK(t, "", "--db", db, "-o", "json", "table", "get", "--table", "t", "AD:3040051"); !strings.Contains(out, `"asciiname": "les Escaldes"`) {
		t.Errorf("table get AD:3040051: %s", out)
	}
}

// TestColumnsAfterByteOrderMark: a headerless file that starts with a
// byte-order mark keys its first row by what follows the mark.
func TestColumnsAfterByteOrderMark(t *testing.T) {
	dir := t.TempDir()
	for _, format := range []string{"csv", "tsv"} {
		db, file := filepath.Join(dir, format+".db"), filepath.Join(dir, "rows."+format)
		os.WriteFile(file, []byte("\ufeff1"+map[string]string{"csv": ",", "tsv": "\t"}[format]+"Oslo\r\n"), 0o644)
		if _, stderr, code := run(t, "", "--db", db, "table", "import", "--table", "t", "--key-cols", "id", "--format", format, "--columns", "id,city", file); code != 0 {
			t.Fatalf("%s: exit %d: %s", format, code, stderr)
		}
		if out, stderr, code := run(t, "", "--db", db, "--output", "json", "table", "get", "--table", "t", "1"); code != 0 || !strings.Contains(out, `"city": "Oslo"`) {
			t.Errorf("%s: table get 1: exit %d: %s%s", format, code, out, stderr)
		}
	}
}

// TestOpenStreetMapXML: geo import --format xml reads an OpenStreetMap
// .osm file's nodes as points (id, lat and lon are its default columns),
// their <tag k v> elements as payload fields; the bounds, ways and
// relations are bad rows that --skip-bad names and leaves out. Queries
// find the nodes as brute force over them does.
func TestOpenStreetMapXML(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(13, 14))
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<osm version="0.6" generator="test">` + "\n")
	b.WriteString(`  <bounds minlat="52.50" minlon="13.35" maxlat="52.54" maxlon="13.43"/>` + "\n")
	var nodes []city
	names := map[string]string{}
	for i := range 40 {
		id := fmt.Sprint(1000 + i)
		lat, lon := 52.50+r.Float64()*0.04, 13.35+r.Float64()*0.08
		nodes = append(nodes, city{id, lat, lon})
		fmt.Fprintf(&b, `  <node id="%s" visible="true" version="2" lat="%.7f" lon="%.7f"`, id, lat, lon)
		if i%3 == 0 {
			b.WriteString("/>\n") // a node without tags
			continue
		}
		names[id] = fmt.Sprintf("Café & Bar %d", i)
		fmt.Fprintf(&b, ">\n    <tag k=\"name\" v=\"Café &amp; Bar %d\"/>\n    <tag k=\"amenity\" v=\"cafe\"/>\n  </node>\n", i)
	}
	b.WriteString(`  <way id="7"><nd ref="1000"/><nd ref="1001"/><tag k="highway" v="footway"/></way>` + "\n")
	b.WriteString(`  <relation id="8"><member type="node" ref="1000" role=""/></relation>` + "\n</osm>\n")
	file, db := filepath.Join(dir, "map.osm"), filepath.Join(dir, "osm.db")
	os.WriteFile(file, []byte(b.String()), 0o644)
	if _, stderr, code := run(t, "", "--db", db, "geo", "import", "--index", "osm", "--format", "xml", file); code != 1 || !strings.Contains(stderr, "line 3: no latitude: the row has no lat") {
		t.Errorf("without --skip-bad: exit %d, %q", code, stderr)
	}
	_, stderr, code := run(t, "", "--db", db, "geo", "import", "--index", "osm", "--format", "xml", "--skip-bad", file)
	if code != 0 || !strings.Contains(stderr, "imported 40 points into osm; skipped 3 bad rows") || !strings.Contains(stderr, "<nd> inside the row") || !strings.Contains(stderr, "<member> inside the row") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	out, stderr, code := run(t, "", "--db", db, "--output", "json", "geo", "near", "--index", "osm", "--lat", "52.52", "--lon", "13.39", "--radius", "1.5km")
	if code != 0 {
		t.Fatal(stderr)
	}
	got := decode(t, out)
	if want := brute(nodes, 52.52, 13.39, func(_ city, d float64) bool { return d <= 1500 }); !slices.Equal(ids(got), want) {
		t.Errorf("near: %v, brute force %v", ids(got), want)
	}
	for _, res := range got.Results {
		var payload struct{ Name, Amenity, Version string }
		json.Unmarshal(res.Payload, &payload)
		if payload.Name != names[res.ID] || payload.Version != "2" || (names[res.ID] != "") != (payload.Amenity == "cafe") {
			t.Errorf("node %s: payload %s, want name %q", res.ID, res.Payload, names[res.ID])
		}
	}
}

// TestTableJSONRoundTrip: a table's whole export as one JSON document
// (table scan --output json: {"rows": [{"key", "record"}, …]}) imports
// back with --each rows as the table it came from, JSON types, expiries
// and all, compared by their NDJSON exports.
func TestTableJSONRoundTrip(t *testing.T) {
	dir := t.TempDir()
	from, to, file := filepath.Join(dir, "from.db"), filepath.Join(dir, "to.db"), filepath.Join(dir, "export.json")
	rows := `{"id":1,"city":"Oslo","tags":["a",{"b":null}]}` + "\n" + `{"id":2,"city":"<Rome & co>","n":12345678901234567891}` + "\n"
	for _, args := range [][]string{
		{"table", "import", "--table", "t", "--key-cols", "id", "--format", "ndjson", "-"},
		{"table", "import", "--table", "t", "--key-cols", "id", "--ttl", "24h", "--format", "ndjson", "-"},
	} {
		stdin := rows
		if slices.Contains(args, "--ttl") {
			stdin = `{"id":3,"city":"Bergen"}` + "\n"
		}
		if _, stderr, code := run(t, stdin, append([]string{"--db", from}, args...)...); code != 0 {
			t.Fatal(stderr)
		}
	}
	export, stderr, code := run(t, "", "--db", from, "--output", "json", "table", "scan", "--table", "t")
	if code != 0 {
		t.Fatal(stderr)
	}
	os.WriteFile(file, []byte(export), 0o644)
	if _, stderr, code := run(t, "", "--db", to, "table", "import", "--table", "t", "--key-cols", "id", "--each", "rows", file); code != 0 {
		t.Fatal(stderr)
	}
	var exports []string
	for _, db := range []string{from, to} {
		out, stderr, code := run(t, "", "--db", db, "--output", "ndjson", "table", "scan", "--table", "t")
		if code != 0 {
			t.Fatal(stderr)
		}
		exports = append(exports, out)
	}
	if exports[0] != exports[1] || strings.Count(exports[0], "\n") != 3 || !strings.Contains(exports[0], `"expires"`) {
		t.Errorf("exported\n%s\nimported back\n%s", exports[0], exports[1])
	}
}

// TestIndexOnLentFields: an index over fields an --each import lent a row
// (".states.name", named with dots as jq writes the path) finds the rows
// whose state has that name, as a nested field ("address.city") is
// still found by its dotted path; both checked against the document.
func TestIndexOnLentFields(t *testing.T) {
	db, file := filepath.Join(t.TempDir(), "k.db"), filepath.Join(t.TempDir(), "world.json")
	type cityRow struct{ id, state, town string }
	var want []cityRow
	var doc []map[string]any
	r := rand.New(rand.NewPCG(1, 2))
	id := 0
	for c := range 3 {
		var states []any
		for s := range 3 {
			var cities []any
			for range r.IntN(4) {
				id++
				town := []string{"Oslo", "Rome", "Lima"}[r.IntN(3)]
				cities = append(cities, map[string]any{"id": id, "address": map[string]any{"town": town}})
				want = append(want, cityRow{fmt.Sprint(id), fmt.Sprint("S", s%2), town})
			}
			states = append(states, map[string]any{"name": fmt.Sprint("S", s%2), "cities": cities})
		}
		doc = append(doc, map[string]any{"code": fmt.Sprint("C", c), "states": states})
	}
	b, _ := json.Marshal(doc)
	os.WriteFile(file, b, 0o644)
	for _, args := range [][]string{
		{"table", "import", "--table", "t", "--each", "states.cities", "--key-cols", "id", "--with", ".states.name", file},
		{"index", "create", "--table", "t", "--name", "by_state", "--fields", ".states.name"},
		{"index", "create", "--table", "t", "--name", "by_town", "--fields", "address.town"},
	} {
		if _, stderr, code := run(t, "", append([]string{"--db", db}, args...)...); code != 0 {
			t.Fatalf("%v: %s", args, stderr)
		}
	}
	for _, q := range []struct{ index, value string }{{"by_state", "S0"}, {"by_state", "S1"}, {"by_town", "Rome"}, {"by_town", "Lima"}} {
		out, stderr, code := run(t, "", "--db", db, "--output", "ndjson", "index", "lookup", "--table", "t", "--name", q.index, q.value)
		if code != 0 {
			t.Fatalf("%v: %s", q, stderr)
		}
		var got, wanted []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var e struct{ Key string }
			if line != "" && json.Unmarshal([]byte(line), &e) == nil {
				got = append(got, e.Key)
			}
		}
		for _, c := range want {
			if q.index == "by_state" && c.state == q.value || q.index == "by_town" && c.town == q.value {
				wanted = append(wanted, c.id)
			}
		}
		slices.Sort(got)
		slices.Sort(wanted)
		if len(wanted) == 0 || !slices.Equal(got, wanted) {
			t.Errorf("%s %s: %v, the document %v", q.index, q.value, got, wanted)
		}
	}
}

// TestLentFieldHint: a column flag naming a field of the objects above
// an --each row that none has is answered with the plain fields those
// objects do have, at its path (.states.*, or the top's), compared as
// the names past the path: the nearest, or the list; a row's own missing
// column is answered from the row's.
func TestLentFieldHint(t *testing.T) {
	db, file := filepath.Join(t.TempDir(), "k.db"), filepath.Join(t.TempDir(), "world.json")
	doc := `[{"iso2":"DE","name":"Germany","langs":["de"],"states":[{"iso2":"BE","kind":"state","meta":{"a":1},"cities":[{"id":1,"name":"Berlin"}]}]}]`
	os.WriteFile(file, []byte(doc), 0o644)
	for _, c := range []struct{ keys, want string }{
		{".iso2,.states.iso,id", `no key column ".states.iso" in the header; did you mean ".states.iso2"?`},
		{".iso3,.states.iso2,id", `no key column ".iso3" in the header; did you mean ".iso2"?`},
		{".iso2,.states.state_code,id", `no key column ".states.state_code" in the header; the objects at .states have .states.iso2, .states.kind` + "\n"},
		{".code,.states.iso2,id", `no key column ".code" in the header; the objects at the top have .iso2, .name` + "\n"},
		{".iso2,.states.iso2,idd", `no key column "idd" in the header; did you mean "id"?`},
	} {
		_, stderr, code := run(t, "", "--db", db, "table", "import", "--table", "t", "--each", "states.cities", "--key-cols", c.keys, file)
		if code != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("--key-cols %s: exit %d, %q; want %q", c.keys, code, stderr, c.want)
		}
	}
}

// TestNestedColumns: a column flag names a field inside a JSON row's
// objects and arrays by its dotted path (location.lat,
// geometry.coordinates.1, address.city): points imported so, and a table
// keyed so, hold the values the generated rows hold; a path some row
// lacks is a bad row, and one no row has a missing column.
func TestNestedColumns(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(11, 12))
	type point struct {
		id       string
		lat, lon float64
		city     string
	}
	var points []point
	var nested, features strings.Builder
	features.WriteString(`{"type":"FeatureCollection-like","features":[`)
	for i := range 40 {
		p := point{fmt.Sprint("p", i), math.Round((r.Float64()*170-85)*1e5) / 1e5, math.Round((r.Float64()*360-180)*1e5) / 1e5, []string{"Oslo", "Rome"}[i%2]}
		points = append(points, p)
		fmt.Fprintf(&nested, `{"id":%q,"location":{"lat":%g,"lon":%g},"address":{"city":%q}}`+"\n", p.id, p.lat, p.lon, p.city)
		if i > 0 {
			features.WriteString(",")
		}
		fmt.Fprintf(&features, `{"id":%q,"geometry":{"coordinates":[%g,%g]}}`, p.id, p.lon, p.lat)
	}
	features.WriteString("]}")
	nestedFile, featuresFile := filepath.Join(dir, "nested.ndjson"), filepath.Join(dir, "features.json")
	os.WriteFile(nestedFile, []byte(nested.String()), 0o644)
	os.WriteFile(featuresFile, []byte(features.String()), 0o644)
	want := map[string][2]float64{}
	for _, p := range points {
		want[p.id] = [2]float64{p.lat, p.lon}
	}
	for _, args := range [][]string{
		{"--lat-col", "location.lat", "--lon-col", "location.lon", nestedFile},
		{"--each", "features", "--lat-col", "geometry.coordinates.1", "--lon-col", "geometry.coordinates.0", featuresFile},
	} {
		db := filepath.Join(t.TempDir(), "k.db")
		if _, stderr, code := run(t, "", append([]string{"--db", db, "geo", "import", "--index", "p"}, args...)...); code != 0 {
			t.Fatalf("%v: %s", args, stderr)
		}
		out, stderr, code := run(t, "", "--db", db, "--output", "ndjson", "geo", "scan", "--index", "p")
		if code != 0 {
			t.Fatal(stderr)
		}
		got := map[string][2]float64{}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var p struct {
				ID       string
				Lat, Lon float64
			}
			json.Unmarshal([]byte(line), &p)
			got[p.ID] = [2]float64{p.Lat, p.Lon}
		}
		if !maps.EqualFunc(got, want, func(a, b [2]float64) bool { return math.Abs(a[0]-b[0]) < 1e-6 && math.Abs(a[1]-b[1]) < 1e-6 }) {
			t.Errorf("%v: points %v, the rows %v", args, got, want)
		}
	}
	db := filepath.Join(t.TempDir(), "t.db")
	if _, stderr, code := run(t, "", "--db", db, "table", "import", "--table", "t", "--key-cols", "address.city,id", nestedFile); code != 0 {
		t.Fatal(stderr)
	}
	out, _, _ := run(t, "", "--db", db, "--output", "ndjson", "table", "scan", "--table", "t", "Rome:*")
	var keys, wantKeys []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var row struct{ Key string }
		json.Unmarshal([]byte(line), &row)
		keys = append(keys, row.Key)
	}
	for _, p := range points {
		if p.city == "Rome" {
			wantKeys = append(wantKeys, "Rome:"+p.id)
		}
	}
	slices.Sort(wantKeys)
	if !slices.Equal(keys, wantKeys) {
		t.Errorf("table keyed by address.city: %v, the rows %v", keys, wantKeys)
	}
	// A path one row lacks is that row's problem; one no row has, the
	// flag's.
	lacking := filepath.Join(dir, "lacking.ndjson")
	os.WriteFile(lacking, []byte(`{"id":"a","location":{"lat":1,"lon":2}}`+"\n"+`{"id":"b","location":{"lat":1}}`+"\n"), 0o644)
	if _, stderr, code := run(t, "", "--db", filepath.Join(t.TempDir(), "x.db"), "geo", "import", "--index", "p", "--lat-col", "location.lat", "--lon-col", "location.lon", lacking); code != 1 || !strings.Contains(stderr, "line 2: ") {
		t.Errorf("a row without the path: exit %d, %q", code, stderr)
	}
	if _, stderr, code := run(t, "", "--db", filepath.Join(t.TempDir(), "x.db"), "geo", "import", "--index", "p", "--lat-col", "location.latitude", "--lon-col", "location.lon", lacking); code != 1 || !strings.Contains(stderr, `no column "location.latitude"`) {
		t.Errorf("a path no row has: exit %d, %q", code, stderr)
	}
}

// TestGuessedFormatNamed: a format found from the input's first bytes,
// when the input does not read as it, is named in the error with the way
// out (--format), which then reads it.
func TestGuessedFormatNamed(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	csvText := "{a},b\n1,2\n"
	_, stderr, code := run(t, csvText, "--db", db, "table", "import", "--table", "t", "--key-cols", "b", "-")
	if code != 1 || !strings.Contains(stderr, "standard input, read as json (from its first bytes; --format names another): not JSON at byte 2") {
		t.Errorf("exit %d, %q", code, stderr)
	}
	if _, stderr, code := run(t, csvText, "--db", db, "table", "import", "--table", "t", "--key-cols", "b", "--format", "csv", "-"); code != 0 {
		t.Errorf("--format csv: exit %d, %q", code, stderr)
	}
	// A name that says the format is not second-guessed in the error.
	file := filepath.Join(t.TempDir(), "rows.ndjson")
	os.WriteFile(file, []byte(csvText), 0o644)
	if _, stderr, code := run(t, "", "--db", db, "table", "import", "--table", "t", "--key-cols", "b", file); code != 1 || strings.Contains(stderr, "read as") || !strings.Contains(stderr, "line 1: not a JSON object") {
		t.Errorf("a .ndjson file: exit %d, %q", code, stderr)
	}
}
