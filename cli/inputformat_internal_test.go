package cli

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestDecompressed: a gzip stream (of one member or several, as `cat a.gz
// b.gz` makes) and a bzip2 stream read as the text they hold, found by
// their first bytes; anything else reads as it is, and a stream cut short
// fails naming its compression.
func TestDecompressed(t *testing.T) {
	const text = "id,lat,lon\na,1,2\nb,3,4\n"
	gz := func(s string) []byte {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(s))
		zw.Close()
		return b.Bytes()
	}
	// bzip2.compress(text) by Python's bz2 module (Go writes no bzip2).
	bz := []byte("\x42\x5a\x68\x39\x31\x41\x59\x26\x53\x59\x4d\x4f\x2d\x00\x00\x00\x08\xd9\x80\x00\x10\x00\x04\x3c\x00\x34\x25\x84\x00\x20\x00\x21\xa9\xa3\x04\xf4\x04\x00\x00\xa5\x78\x79\x9f\xe1\x00\xda\x5a\x78\x62\x9d\x17\x72\x45\x38\x50\x90\x4d\x4f\x2d\x00")
	for _, c := range []struct {
		name string
		in   []byte
		want string
	}{
		{"plain", []byte(text), text},
		{"empty", nil, ""},
		{"one byte", []byte{0x1f}, "\x1f"},
		{"gzip", gz(text), text},
		{"gzip members", append(gz(text[:11]), gz(text[11:])...), text},
		{"bzip2", bz, text},
		{"BZh without a block size", []byte("BZhx,1\n"), "BZhx,1\n"},
	} {
		r, err := decompressed(bytes.NewReader(c.in))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, err := io.ReadAll(r)
		if err != nil || string(got) != c.want {
			t.Errorf("%s: read %q, %v; want %q", c.name, got, err, c.want)
		}
	}
	for _, c := range []struct {
		name string
		in   []byte
	}{{"gzip", gz(text)[:20]}, {"bzip2", bz[:30]}} {
		r, err := decompressed(bytes.NewReader(c.in))
		if err == nil {
			_, err = io.ReadAll(r)
		}
		if err == nil || !strings.Contains(err.Error(), "reading "+c.name) {
			t.Errorf("%s cut short: %v, want an error naming %s", c.name, err, c.name)
		}
	}
}

// TestFormatFound: the format a file's name says, its compression aside,
// and, where the name says none, the format its first bytes say.
func TestFormatFound(t *testing.T) {
	for name, want := range map[string]string{
		"a.csv": "csv", "A.CSV.GZ": "csv", "cities15000.tsv.bz2": "tsv", "x.tab": "tsv",
		"p.ndjson": "ndjson", "p.jsonl.gz": "ndjson", "z.geojson": "geojson", "berlin.osm.bz2": "xml", "Comments.xml": "xml",
		"p.json": "", "cities15000.txt": "", "-": "", "noext": "", "dir.csv/x": "",
	} {
		if got := formatByName(name); got != want {
			t.Errorf("formatByName(%q) = %q, want %q", name, got, want)
		}
	}
	for content, want := range map[string]string{
		"":               "csv",
		"id,lat,lon\n":   "csv",
		"id\tlat\tlon\n": "tsv",
		"3040051\tles Escaldes\tEscaldes,Escaldes-Engordany\n3041563\tAndorra la Vella\tALV,Ando-la-Vyey\n": "tsv", // GeoNames: commas in a TSV
		"name,note\nx,\"a\ttab\"\ny,none\n":                       "csv", // a tab in one field of a CSV
		"a\tb\nc\td\te\n":                                         "csv",
		"a\tb\nc\td\n\ne\tf":                                      "tsv", // an empty line, and a last line cut short
		"\ufeff  <?xml version=\"1.0\"?>":                         "xml",
		"\n [ {\"id\": 1} ]":                                      "json",
		"{\"id\":1}\n{\"id\":2}\n":                                "ndjson",
		"{\"id\":1}":                                              "ndjson",
		"{\n  \"rows\": [\n":                                      "json",
		"{\"type\": \"FeatureCollection\",":                       "geojson",
		"{\n \"features\": [],\n \"type\":\"FeatureCollection\"}": "geojson",
	} {
		if got := formatByContent(bufio.NewReader(strings.NewReader(content))); got != want {
			t.Errorf("formatByContent(%q) = %q, want %q", content, got, want)
		}
	}
}

// TestCSVComma: a semicolon separates a CSV's fields where its lines have
// as many each and its first line no comma, as a spreadsheet writes CSV
// where the comma is the decimal mark; otherwise a comma does.
func TestCSVComma(t *testing.T) {
	for content, want := range map[string]rune{
		"":                              ',',
		"id,lat,lon\na,1,2\n":           ',',
		"id;lat;lon\na;1,5;2,25\n":      ';',
		"\ufeffid;lat;lon\r\na;1;2\r\n": ';',
		"id;lat;lon\na;1;2\n\nb;3":      ';', // an empty line, and a last line cut short
		"id,note\na,x;y\n":              ',', // a comma on the first line
		"note\nx;y\n":                   ',', // no semicolon on the first line
		"a;b\nc;d;e\n":                  ',', // unequal counts
		"id;lat\n\"a;b\";1\n":           ',', // a quoted semicolon makes the counts differ: left to the comma
	} {
		if got := csvComma(bufio.NewReader(strings.NewReader(content))); got != want {
			t.Errorf("csvComma(%q) = %q, want %q", content, got, want)
		}
	}
}

// TestReadJSONEdges: what a JSON document's rows are in the cases a
// reader gets wrong, each row shown as its path and its fields.
func TestReadJSONEdges(t *testing.T) {
	everything := []string{"*"}
	for _, c := range []struct {
		name, doc string
		each      string
		with      []string
		want      []string // path fields-as-JSON, or path !error
		err       string
	}{
		{name: "array", doc: `[{"a":1},{"a":"x","b":null}]`, want: []string{`.[0] {"a":"1"}`, `.[1] {"a":"x","b":""}`}},
		{name: "one object", doc: ` {"a":[1,2]} `, want: []string{`. {"a":"[1,2]"}`}},
		{name: "empty array", doc: `[]`, want: nil},
		{name: "byte-order mark", doc: "\ufeff[{\"a\":1}]", want: []string{`.[0] {"a":"1"}`}},
		{name: "not objects", doc: `[1,"s",null,[{"a":1}]]`, want: []string{".[0] !a number, not an object", ".[1] !a string, not an object", ".[2] !null, not an object", `.[3][0] {"a":"1"}`}},
		{name: "nested", doc: `[{"k":"DE","o":{"x":1},"s":[{"n":"BE","c":[{"id":1},{"id":2}]},{"n":"HH","c":[]}]},{"k":"NO"}]`, each: "s.c", with: everything,
			want: []string{`.[0].s[0].c[0] {".k":"DE",".s.n":"BE","id":"1"}`, `.[0].s[0].c[1] {".k":"DE",".s.n":"BE","id":"2"}`}},
		{name: "kept fields only", doc: `{"k":"DE","v":2,"s":[{"n":"BE","m":3,"c":{"id":1}}]}`, each: ".s.c", with: []string{".k", ".s.*"},
			want: []string{`.s[0].c {".k":"DE",".s.m":"3",".s.n":"BE","id":"1"}`}},
		{name: "a key's value not an object", doc: `[{"s":"none"},{"s":[5]},{"s":null},{"s":[null]},{"s":{"c":null}}]`, each: "s.c",
			want: []string{".[0].s !a string where --each wants an object with a \"c\" key", ".[1].s[0] !a number where --each wants an object with a \"c\" key"}},
		{name: "own field named as a lent one", doc: `{"a":1,"c":[{".a":2}]}`, each: "c", with: everything,
			want: []string{`.c[0] !the row's own field ".a" has the name of a field of an object above it`}},
		{name: "key no object has", doc: `[{"s":[]},{"t":[{"x":1}]}]`, each: "t.c", err: `no object at .t has a "c" key`},
		{name: "key at the top no object has", doc: `[{"s":1}]`, each: "x", err: `no object at the top has a "x" key`},
		{name: "more after", doc: `{"a":1} {"a":2}`, err: "more follows it"},
		{name: "not JSON", doc: `[{"a":1},]`, err: "not JSON"},
		{name: "empty", doc: ``, err: "the input is empty"},
		{name: "cut short", doc: `[{"a":1}`, err: "not JSON"},
	} {
		path := jsonPath{with: c.with}
		if c.each != "" {
			path.keys = strings.Split(strings.TrimPrefix(c.each, "."), ".")
		}
		rows, err := readJSON(context.Background(), strings.NewReader(c.doc), path)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: %v, want an error with %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		var got []string
		for _, r := range rows {
			if r.bad != nil {
				got = append(got, r.where()+" !"+r.bad.Error())
				continue
			}
			b, _ := json.Marshal(textFields(r))
			got = append(got, r.where()+" "+string(b))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: rows\n%s\nwant\n%s", c.name, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
	}
}

// TestReadJSONAgainstFlattening: random documents of countries, states
// and cities (some countries without states, some states without
// cities, empty arrays, fields named alike at each level) read with
// --each states.cities give, in document order, exactly the rows a
// nested loop over the same Go values gives, each city's fields with its
// state's and country's kept ones.
func TestReadJSONAgainstFlattening(t *testing.T) {
	type city = map[string]any
	r := rand.New(rand.NewPCG(7, 8))
	for seed := range 200 {
		doc := []map[string]any{}
		var want []map[string]string
		for ci := range r.IntN(4) {
			country := map[string]any{"name": fmt.Sprint("c", ci), "pop": r.IntN(100), "tz": []any{"x"}}
			if r.IntN(4) > 0 {
				var states []any
				for si := range r.IntN(3) {
					state := map[string]any{"name": fmt.Sprint("s", si), "ok": r.IntN(2) == 0, "meta": map[string]any{"a": 1}}
					if r.IntN(4) > 0 {
						cities := []any{}
						for ki := range r.IntN(4) {
							c := city{"name": fmt.Sprint("k", ki), "id": seed*1000 + ci*100 + si*10 + ki}
							cities = append(cities, c)
							// The oracle: the city's fields, and the kept
							// plain fields above it.
							row := map[string]string{"name": fmt.Sprint("k", ki), "id": fmt.Sprint(c["id"]),
								".name": country["name"].(string), ".states.name": state["name"].(string), ".states.ok": fmt.Sprint(state["ok"])}
							want = append(want, row)
						}
						state["cities"] = cities
					}
					states = append(states, state)
				}
				country["states"] = states
			}
			doc = append(doc, country)
		}
		text, _ := json.Marshal(doc)
		rows, err := readJSON(context.Background(), bytes.NewReader(text), jsonPath{keys: []string{"states", "cities"}, with: []string{".name", ".states.*"}})
		if err != nil && !strings.Contains(err.Error(), "no object at") {
			t.Fatalf("seed %d: %v\n%s", seed, err, text)
		}
		var got []map[string]string
		for _, row := range rows {
			if row.bad != nil {
				t.Fatalf("seed %d: %s: %v", seed, row.where(), row.bad)
			}
			got = append(got, textFields(row))
		}
		if !slices.EqualFunc(got, want, maps.Equal) {
			t.Fatalf("seed %d: rows %v\nwant %v\nfrom %s", seed, got, want, text)
		}
		// The same countries as NDJSON, a line each, walked line by line.
		var lines bytes.Buffer
		for _, country := range doc {
			b, _ := json.Marshal(country)
			lines.Write(append(b, '\n'))
		}
		byLine, lineErr := readJSONLines(context.Background(), &lines, jsonPath{keys: []string{"states", "cities"}, with: []string{".name", ".states.*"}})
		if (lineErr == nil) != (err == nil) || len(byLine) != len(rows) {
			t.Fatalf("seed %d: as NDJSON %d rows (%v), as a document %d (%v)", seed, len(byLine), lineErr, len(rows), err)
		}
		for i, row := range byLine {
			if !maps.Equal(textFields(row), textFields(rows[i])) || !strings.HasPrefix(row.where(), "line ") {
				t.Fatalf("seed %d: NDJSON row %s %v, the document's %s %v", seed, row.where(), textFields(row), rows[i].where(), textFields(rows[i]))
			}
		}
	}
}

// TestRowNested: a dotted path finds a JSON row's field inside its objects
// and arrays, but only where no field has the whole name, and never in a
// CSV's row; an index out of range, a word for an index, or a step into a
// plain value finds nothing.
func TestRowNested(t *testing.T) {
	obj, err := decodeObject(`{"a":{"b":[10,{"c":"x"}],"n":null},"a.b":"literal","s":"text"}`)
	if err != nil {
		t.Fatal(err)
	}
	r := row{values: obj}
	for path, want := range map[string]string{
		"a.b": "literal", "a.b.0": "10", "a.b.1.c": "x", "a.n": "", "s": "text",
	} {
		if got, ok := r.field(path); !ok || got != want {
			t.Errorf("field(%q) = %q, %v; want %q", path, got, ok, want)
		}
	}
	for _, path := range []string{"a.b.2", "a.b.-1", "a.b.x", "s.x", "a.c", "a..b", "a.b.1.c.d", "x"} {
		if got, ok := r.field(path); ok {
			t.Errorf("field(%q) = %q, want none", path, got)
		}
	}
	csvRow := row{header: newHeader([]string{"a", "b"}), vals: []string{"1", "2"}}
	if _, ok := csvRow.field("a.b"); ok {
		t.Error("a CSV row found a dotted path")
	}
}

// textFields is a row's fields as text, as the columns read them.
func textFields(r row) map[string]string {
	out := map[string]string{}
	for k := range r.names() {
		out[k] = r.get(k)
	}
	return out
}
