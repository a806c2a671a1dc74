package cli

// What the imports share (geo, table, series, log and rel import): the
// input, read whole into rows with their line numbers before anything is
// written, so that a bad row stops an import with nothing written; what
// an import reports; and its progress bars.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"iter"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/keyspacedb/keyspace/composite"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"
	"github.com/schollz/progressbar/v3"
	ucli "github.com/urfave/cli/v2"
)

// row is one input record: its line number (a GeoJSON feature's number)
// and its fields by column. A CSV's or TSV's rows share their header and
// keep their values in its order, as read, where they kept a map a row:
// importing 1,000,000 rows of five columns took 1.87 GB and 8.7 s as a
// table and 1.90 GB and 7.7 s as a log, and takes 1.71 GB and 6.6 s,
// 1.47 GB and 6.9 s. The other formats' rows, whose fields may differ
// from row to row, keep a map: XML's of text, JSON's of decoded values,
// read as text (field) only where a column is (an id, a latitude): a
// JSON row kept both maps, and 1,000,000 NDJSON rows of four fields took
// 2.33–2.83 GB as a table, where they take 1.91–2.21 GB (two runs of
// each, in one hour).
type row struct {
	line    int
	feature bool    // a GeoJSON feature: line counts features
	gpx     gpxKind // a GPX waypoint's or track point's (readGPX)
	header  *header // CSV, TSV: the columns, shared
	vals    []string
	fields  map[string]string // XML
	// values are a JSON row's fields (NDJSON, JSON, a GeoJSON feature's
	// properties) as decoded, for a payload that keeps their JSON types
	// (1000 stays a number, [1,2] an array), and as text (jsonField) for
	// the columns read as text. Nil for CSV and XML, which have no types;
	// never nil for a JSON row.
	values map[string]any
	path   string     // a JSON document's row: where it is, as jq writes it (.[3].cities[0])
	point  *orb.Point // GeoJSON geometry, when the input has one
	// geometry is the GeoJSON type of a feature's geometry that is no
	// Point ("Polygon"), for its error; "" for a Point or none.
	geometry string
	id       string // GeoJSON feature id
	expires  string // a table export's expiry (RFC 3339), from unwrapRecord
	bad      error  // why the reader could not read the row (an XML element holding text)
	// lendable are the plain fields of the objects above a row of
	// --each, kept or not (.iso2, .states.name), shared by the rows.
	lendable *[]string
}

// markBad makes r a bad row for err, unless it is one already: the
// first reason stays.
func (r *row) markBad(err error) {
	if r.bad == nil {
		r.bad = err
	}
}

// header is a CSV's or TSV's columns and where each is in a row.
type header struct {
	names []string
	at    map[string]int
}

func newHeader(names []string) *header {
	h := &header{names: names, at: make(map[string]int, len(names))}
	for i, n := range names {
		h.at[n] = i
	}
	return h
}

// field returns the row's field k, and whether the row has it.
func (r row) field(k string) (string, bool) {
	if r.header != nil {
		i, ok := r.header.at[k]
		if !ok {
			return "", false
		}
		return r.vals[i], true
	}
	if r.values != nil {
		if v, ok := r.values[k]; ok {
			return jsonField(v), true
		}
	} else if v, ok := r.fields[k]; ok {
		return v, true
	}
	if v, ok := r.nested(k); ok {
		return jsonField(v), true
	}
	return "", false
}

// nested finds a JSON row's field by a dotted path through its objects
// and arrays, when no field has that name: location.lat, or
// geometry.coordinates.1 (an array's element by its index from 0).
func (r row) nested(path string) (any, bool) {
	if r.values == nil || !strings.Contains(path, ".") {
		return nil, false
	}
	return pathValue(r.values, path)
}

// pathValue finds the value at a dotted path through JSON objects and
// arrays (location.lat; geometry.coordinates.1, an array's element by its
// index from 0), and whether there is one.
func pathValue(v any, path string) (any, bool) {
	cur := v
	for _, part := range strings.Split(path, ".") {
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[part]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// get is the row's field k, or "" when it has none.
func (r row) get(k string) string {
	v, _ := r.field(k)
	return v
}

// names are the row's fields' names: a CSV's header in its order, the
// others' fields in no order.
func (r row) names() iter.Seq[string] {
	if r.header != nil {
		return slices.Values(r.header.names)
	}
	if r.values != nil {
		return maps.Keys(r.values)
	}
	return maps.Keys(r.fields)
}

// unwrapRecord makes a line of table scan --output ndjson, {"key": …,
// "record": {…}}, the row of its record's fields, so that an export
// imports back as it was.
func (r *row) unwrapRecord() {
	inner, ok := r.values["record"].(map[string]any)
	if !ok || len(r.values) > 3 { // key, record, and expires when it expires
		return
	}
	for k := range r.values {
		if k != "key" && k != "record" && k != "expires" {
			return
		}
	}
	r.expires = jsonField(r.values["expires"])
	r.values = inner
}

// value is field k as a record or payload stores it: with its JSON type
// when the input has types (NDJSON, GeoJSON), as a number or boolean when
// a CSV's or XML's text reads as one and typed (--typed) asks for that,
// and otherwise as the text it is.
func (r row) value(k string, typed bool) any {
	if v, ok := r.values[k]; ok {
		return v
	}
	if v, ok := r.nested(k); ok {
		return v
	}
	if typed {
		return csvValue(r.get(k))
	}
	return r.get(k)
}

// timeColumnForms is what a time column of an import may hold, for its
// flag's usage: what parseTimeField reads.
const timeColumnForms = "RFC 3339; without a zone, read as UTC (2014-01-21T20:34:28.740, 2014-01-21 20:34:28); a date; or Unix seconds"

// parseTimeField reads a time from an import's time column: RFC 3339;
// RFC 3339 without a zone, its T or a space between date and time, read
// as UTC (Stack Exchange's data dumps write 2014-01-21T20:34:28.740, SQL
// exports 2014-01-21 20:34:28); a date alone, its midnight UTC; or Unix
// seconds, with a fraction if any.
func parseTimeField(text string) (time.Time, error) {
	text = strings.TrimSpace(text)
	t, err := time.Parse(time.RFC3339Nano, text)
	for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999", time.DateOnly} {
		if err != nil {
			t, err = time.Parse(layout, text)
		}
	}
	if err != nil {
		secs, perr := strconv.ParseFloat(text, 64)
		if perr != nil || math.IsNaN(secs) || math.IsInf(secs, 0) {
			return time.Time{}, fmt.Errorf("time %q is not RFC 3339 (with or without a zone), a date or Unix seconds", text)
		}
		if math.Abs(secs) > 1e13 { // beyond the year 300,000: int64 nanoseconds would wrap
			return time.Time{}, fmt.Errorf("time %q is too far from 1970 for a key", text)
		}
		whole, frac := math.Modf(secs)
		t = time.Unix(int64(whole), int64(frac*1e9)).UTC()
	}
	if first, last := composite.TimeBounds(); t.Before(first) || t.After(last) {
		return time.Time{}, fmt.Errorf("time %s is outside %d–%d", t.Format(time.RFC3339), first.Year(), last.Year())
	}
	return t, nil
}

// anyRowHas reports whether a row has column col: for a CSV, whether the
// header names it; for NDJSON and XML, whose rows may each lack a field,
// whether any row has it (a column none has is a misspelt flag). Rows of
// which none could be read (a JSON array of numbers) lack no column: each
// row's own error says what is wrong with it.
func anyRowHas(rows []row, col string) bool {
	if len(rows) > 0 && rows[0].header != nil {
		_, ok := rows[0].field(col)
		return ok
	}
	return noRowReadable(rows) || slices.ContainsFunc(rows, func(r row) bool { _, ok := r.field(col); return ok })
}

// noRowReadable reports whether there are rows and the reader could read
// none of them (each has its bad), so that what they lack says nothing of
// the flags that name columns.
func noRowReadable(rows []row) bool {
	return len(rows) > 0 && !slices.ContainsFunc(rows, func(r row) bool { return r.bad == nil })
}

// recordFormats are the formats an import of records reads: all but
// GeoJSON.
var recordFormats = []string{"csv", "tsv", "ndjson", "json", "xml"}

// recordFileFlags are the flags every import of records (table, series,
// log, rel) takes for its file: its format, a headerless CSV's columns,
// a JSON document's rows, --dry-run and --skip-bad.
func recordFileFlags() []ucli.Flag {
	return []ucli.Flag{formatFlag(recordFormats...), columnsFlag(), eachFlag(), withFlag(), dryRunFlag(),
		&ucli.BoolFlag{Name: "skip-bad", Usage: "import the good rows and report the bad ones"}}
}

// recordRows reads the rows of an import of records (table, series, log
// and rel import: recordFormats) and checks that its column flags name
// columns the rows have.
func recordRows(c *ucli.Context, columnFlags ...string) ([]row, *badRows, error) {
	rows, _, bad, err := importRows(c, recordFormats)
	if err != nil {
		return nil, nil, err
	}
	if err := checkColumnFlags(c, rows, bad.name, columnFlags...); err != nil {
		return nil, nil, err
	}
	return rows, bad, nil
}

// checkColumnFlags refuses a column flag (--time-col) naming a column no
// row has: a misspelt flag, not a file of bad rows. A flag left empty
// names no column.
func checkColumnFlags(c *ucli.Context, rows []row, name string, flags ...string) error {
	for _, flag := range flags {
		if col := c.String(flag); col != "" && len(rows) > 0 && !anyRowHas(rows, col) {
			return fmt.Errorf("%s: no row has a %s column (choose one with --%s; nothing imported)%s", name, col, flag, rowsHint(rows, col))
		}
	}
	return nil
}

// where names the row for an error: "line 7", "feature 7", or a JSON
// document's ".[3].cities[0]".
func (r row) where() string {
	if r.path != "" {
		return r.path
	}
	if r.feature {
		return fmt.Sprintf("feature %d", r.line)
	}
	return fmt.Sprintf("line %d", r.line)
}

// badRow is a row that could not be imported.
type badRow struct {
	where string // row.where
	err   error
}

func (b badRow) Error() string { return fmt.Sprintf("%s: %v", b.where, b.err) }
func (b badRow) Unwrap() error { return b.err }

// badRows gathers an import's bad rows: with --skip-bad each is noted and
// the import goes on; without, the first stops it.
type badRows struct {
	skip bool   // --skip-bad
	name string // the input, as errors name it
	rows []badRow
}

func newBadRows(c *ucli.Context, name string) *badRows {
	return &badRows{skip: c.Bool("skip-bad"), name: name}
}

// add notes the bad row at where and returns nil, or, without
// --skip-bad, returns the error that stops the import.
func (b *badRows) add(where string, err error) error {
	if !b.skip {
		return fmt.Errorf("%s: %s: %w (nothing imported)", b.name, where, err)
	}
	b.rows = append(b.rows, badRow{where, err})
	return nil
}

// importRows reads the rows of an import's one FILE argument ("-" for
// standard input), gzip or bzip2 compressed or not, in one of formats
// (inputFormat), and returns them with the format and the import's
// collector of bad rows, which knows the name errors give the input. A
// row the reader could not read (an XML element holding text) has its
// reason in bad, which the import's reading of each row returns first,
// so that bad rows are met in the file's order.
func importRows(c *ucli.Context, formats []string) ([]row, string, *badRows, error) {
	in, err := openImport(c, formats)
	if err != nil {
		return nil, "", nil, err
	}
	defer in.close()
	rows, err := in.rows(c)
	if err != nil {
		return nil, "", nil, err
	}
	return rows, in.format, newBadRows(c, in.name), nil
}

// importInput is an import's FILE, open, and its format.
type importInput struct {
	in      *bufio.Reader
	name    string // as errors name it
	format  string
	guessed bool // the format was found from the first bytes
	close   func()
}

// openImport opens an import's one FILE argument ("-" for standard
// input), decompressed, and finds its format among formats (inputFormat).
func openImport(c *ucli.Context, formats []string) (*importInput, error) {
	if c.NArg() != 1 {
		return nil, usagef("%s %s wants one FILE (or - for standard input)", c.Lineage()[1].Command.Name, c.Command.Name)
	}
	in, name, closeIn, err := openInput(c, c.Args().First())
	if err != nil {
		return nil, err
	}
	format, guessed, err := inputFormat(c, c.Args().First(), name, in, formats)
	if err != nil {
		closeIn()
		return nil, err
	}
	return &importInput{in: in, name: name, format: format, guessed: guessed, close: closeIn}, nil
}

// rows reads the input's rows (readRows), with --columns and --each.
func (ii *importInput) rows(c *ucli.Context) ([]row, error) {
	columns, err := namedColumns(c)
	if err != nil {
		return nil, err
	}
	each, err := eachPath(c)
	if err != nil {
		return nil, err
	}
	rows, err := readRows(c.Context, ii.in, ii.format, columns, each, c.Bool("moves"))
	if err != nil && ii.guessed {
		return nil, fmt.Errorf("%s, read as %s (from its first bytes; --format names another): %w", ii.name, ii.format, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ii.name, err)
	}
	return rows, nil
}

// reportImport says on stderr what an import wrote, and the first bad rows
// it skipped: "imported 3 points into cities; skipped 1 bad row: line 4: …";
// with --dry-run, what it would have written.
func reportImport(c *ucli.Context, imported, into string, bad []badRow, notes ...string) {
	if dryRun(c) {
		notes = append(notes, "--dry-run: nothing written")
		fmt.Fprintf(c.App.ErrWriter, "would import %s into %s", imported, into)
	} else {
		fmt.Fprintf(c.App.ErrWriter, "imported %s into %s", imported, into)
	}
	for _, note := range notes {
		fmt.Fprintf(c.App.ErrWriter, "; %s", note)
	}
	if len(bad) > 0 {
		fmt.Fprintf(c.App.ErrWriter, "; skipped %s: %s", count(len(bad), "bad row"), firstBad(bad))
	}
	fmt.Fprintln(c.App.ErrWriter)
}

func firstBad(bad []badRow) string {
	var parts []string
	for _, b := range bad[:min(len(bad), 5)] {
		parts = append(parts, b.Error())
	}
	if len(bad) > 5 {
		parts = append(parts, "…")
	}
	return strings.Join(parts, "; ")
}

// openInput opens a file, or standard input for "-", uncompressed
// (decompressed): its bytes as a bufio.Reader, for a peek at its format.
func openInput(c *ucli.Context, path string) (*bufio.Reader, string, func(), error) {
	if path == "-" {
		in, err := decompressed(c.App.Reader)
		if err != nil {
			return nil, "", nil, fmt.Errorf("standard input: %w", err)
		}
		return in, "standard input", func() {}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, "", nil, err
	}
	var in io.Reader = bufio.NewReaderSize(f, 1<<20)
	// On a terminal, a bar follows the bytes read (reading and checking
	// the rows is most of an import's time; the write is one sorted run).
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && common(c, "quiet") != "true" && isTerminal(c.App.ErrWriter) {
		bar := progressbar.NewOptions64(st.Size(), progressbar.OptionSetWriter(c.App.ErrWriter), progressbar.OptionSetDescription("reading "+path),
			progressbar.OptionShowBytes(true), progressbar.OptionThrottle(100_000_000), progressbar.OptionClearOnFinish())
		r := progressbar.NewReader(in, bar)
		in = &r
	}
	out, err := decompressed(in)
	if err != nil {
		f.Close()
		return nil, "", nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, path, func() { f.Close() }, nil
}

// readRows reads every record of the input, with its line number,
// stopping at a row boundary once ctx is cancelled (Ctrl-C). columns
// names a CSV's or TSV's columns when its first line is not a header;
// each is the path to a JSON document's rows (--each); moves takes a GPX
// document's track points rather than its waypoints (gpxRows).
func readRows(ctx context.Context, in io.Reader, format string, columns []string, each jsonPath, moves bool) ([]row, error) {
	if columns != nil && format != "csv" && format != "tsv" {
		return nil, usagef("--columns names the columns of a CSV or TSV without a header, not of --format %s", format)
	}
	if each.keys != nil && format != "json" && format != "ndjson" {
		return nil, usagef("--each walks a JSON document or NDJSON's lines, not --format %s", format)
	}
	switch format {
	case "csv", "tsv":
		return readTable(ctx, in, format, columns)
	case "ndjson":
		if each.keys != nil {
			return readJSONLines(ctx, in, each)
		}
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 1<<20), 1<<26)
		var rows []row
		for line := 1; sc.Scan(); line++ {
			text := strings.TrimSpace(sc.Text())
			if text == "" {
				continue
			}
			if err := interrupted(ctx, len(rows)); err != nil {
				return nil, err
			}
			obj, err := decodeObject(text)
			if err != nil {
				return nil, fmt.Errorf("line %d: not a JSON object: %v (nothing imported)", line, err)
			}
			rows = append(rows, row{line: line, values: obj})
		}
		return rows, sc.Err()
	case "geojson":
		b, err := io.ReadAll(in)
		if err != nil {
			return nil, err
		}
		fc, err := orbGeoJSON(geojson.UnmarshalFeatureCollection, b)
		if err != nil {
			return nil, fmt.Errorf("not a GeoJSON FeatureCollection: %w", err)
		}
		numbered, err := numberedFeatures(b, len(fc.Features))
		if err != nil {
			return nil, fmt.Errorf("not a GeoJSON FeatureCollection: %w", err)
		}
		var rows []row
		for i, f := range fc.Features {
			if f == nil {
				rows = append(rows, row{line: i + 1, feature: true, bad: errNullFeature})
				continue
			}
			r := row{line: i + 1, feature: true, values: numbered[i].Properties}
			if r.values == nil {
				r.values = map[string]any{} // a JSON row, without properties
			}
			if p, ok := f.Geometry.(orb.Point); ok {
				r.point = &p
			} else if f.Geometry != nil {
				r.geometry = f.Geometry.GeoJSONType()
			}
			if id := numbered[i].ID; id != nil {
				r.id = jsonField(id)
			}
			rows = append(rows, r)
		}
		return rows, nil
	case "json":
		return readJSON(ctx, in, each)
	case "xml":
		return readXML(ctx, in, moves)
	}
	return nil, usagef("--format %q: want %s", format, strings.Join(importFormats, ", "))
}

// buffered is in as a bufio.Reader, for a peek: itself when it is one
// already (openInput's), so that no second buffer stands between.
func buffered(in io.Reader) *bufio.Reader {
	if br, ok := in.(*bufio.Reader); ok {
		return br
	}
	return bufio.NewReader(in)
}

// readTable reads a CSV (RFC 4180, by encoding/csv) or a TSV (IANA's
// text/tab-separated-values, as GeoNames' dumps are written: each line's
// fields split at its tabs, no quoting, so a " is a character like any
// other), its first line the header unless columns names the columns.
// Empty lines are skipped, and a line with another number of fields than
// the header's is refused, by its number.
func readTable(ctx context.Context, in io.Reader, format string, columns []string) ([]row, error) {
	var next func() (rec []string, line int, err error) // io.EOF after the last
	if format == "tsv" {
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 1<<20), 1<<26)
		line := 0
		next = func() ([]string, int, error) {
			for sc.Scan() {
				line++
				if text := strings.TrimSuffix(sc.Text(), "\r"); text != "" {
					return strings.Split(text, "\t"), line, nil
				}
			}
			if err := sc.Err(); err != nil {
				return nil, line + 1, err
			}
			return nil, line, io.EOF
		}
	} else {
		br := buffered(in)
		r := csv.NewReader(br)
		r.Comma = csvComma(br)
		r.FieldsPerRecord = -1 // checked below, as for a TSV
		next = func() ([]string, int, error) {
			rec, err := r.Read()
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				if pe.StartLine != pe.Line {
					// A quote left open swallows the lines after it: the
					// record to fix is where it starts, not where the
					// reader gave up.
					return nil, pe.StartLine, fmt.Errorf("%w (the record runs on to line %d: a quote left open?)", pe.Err, pe.Line)
				}
				return nil, pe.Line, pe.Err
			}
			if err != nil {
				return nil, 0, err
			}
			line, _ := r.FieldPos(0)
			return rec, line, nil
		}
	}
	names := columns
	if names == nil {
		rec, line, err := next()
		if err == io.EOF {
			return nil, fmt.Errorf("no %s header: the input is empty (nothing imported)", strings.ToUpper(format))
		}
		if err != nil && line == 0 { // not the CSV's fault: a gzip stream cut short
			return nil, fmt.Errorf("reading the %s header: %w (nothing imported)", strings.ToUpper(format), err)
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: reading the %s header: %v (nothing imported)", line, strings.ToUpper(format), err)
		}
		if err := checkHeader(rec); err != nil {
			if dataHeader(rec) {
				err = fmt.Errorf("%w%s", err, dataHeaderHint(rec))
			}
			return nil, err
		}
		names = rec
	}
	cols := newHeader(names)
	var rows []row
	for {
		rec, line, err := next()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil && line == 0 { // not the CSV's fault: a gzip stream cut short
			return nil, fmt.Errorf("%w (nothing imported)", err)
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %v (nothing imported)", line, err)
		}
		if columns != nil && len(rows) == 0 && len(rec) > 0 { // a byte-order mark before the first line, data
			rec[0] = strings.TrimPrefix(rec[0], "\ufeff")
		}
		if len(rec) != len(names) {
			return nil, fmt.Errorf("line %d: %s where the header has %d (nothing imported)", line, count(len(rec), "field"), len(names))
		}
		if err := interrupted(ctx, len(rows)); err != nil {
			return nil, err
		}
		rows = append(rows, row{line: line, header: cols, vals: rec})
	}
}

// readXML reads rows kept as the attributes of the elements under an XML
// document's root, one element a row, as a Stack Exchange data dump
// keeps its posts and comments:
//
//	<comments>
//	  <row Id="1" PostId="5" CreationDate="2014-01-21T20:34:28.740" UserId="10" />
//
// An element's attributes are its fields, and an attribute it lacks is a
// field it lacks, as a missing NDJSON field is. The elements <tag k="K"
// v="V"/> inside a row are fields too, K=V, as OpenStreetMap's XML keeps
// a node's tags:
//
//	<osm>
//	  <node id="240109189" lat="52.5170365" lon="13.3888599">
//	    <tag k="name" v="Berlin"/>
//
// so a .osm file's nodes import as points (their ways and relations,
// which hold <nd> and <member> elements, are bad rows, which --skip-bad
// leaves out). And an element of text inside a row, with no attributes,
// is a field, as many exports write their rows:
//
//	<row><id>2</id><name>Berlin</name></row>
//
// its text as written. A row is named by the line its start tag ends on.
// Text beside a row's elements, an element with attributes (but <tag>),
// or an element inside a field would be left out of it, and a field
// given twice (as an attribute, a tag or an element) would lose one of
// its values, so such a row is bad;
// a document that is not well-formed XML is an error. A GPX document
// (its root gpx) is read as its waypoints, or with moves its track
// points (gpx.go).
func readXML(ctx context.Context, in io.Reader, moves bool) ([]row, error) {
	d := xml.NewDecoder(in)
	var rows []row
	depth, root := 0, false
	// rowBad marks the row being read bad, keeping the first reason.
	rowBad := func(err error) { rows[len(rows)-1].markBad(err) }
	// The child element of a row being read as a field, "" for none, and
	// its text so far.
	var child, inner string // inner: the row's element being read, field or not
	var childText strings.Builder
	for {
		tok, err := d.Token()
		if err == io.EOF && !root {
			return nil, errors.New("not an XML document: no root element (nothing imported)")
		}
		if err == io.EOF {
			return rows, nil
		}
		line, _ := d.InputPos()
		if err != nil {
			return nil, xmlError(d, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth == 0 && t.Name.Local == "gpx" {
				rows, err := readGPX(ctx, d) // gpx.go
				if err != nil {
					return nil, err
				}
				return gpxRows(rows, moves)
			}
			depth, root = depth+1, true
			switch {
			case depth == 2:
				if err := interrupted(ctx, len(rows)); err != nil {
					return nil, err
				}
				rows = append(rows, row{line: line, fields: make(map[string]string, len(t.Attr))})
				for _, a := range t.Attr {
					if _, twice := rows[len(rows)-1].fields[a.Name.Local]; twice {
						rowBad(fmt.Errorf("<%s> has attribute %q twice", t.Name.Local, a.Name.Local))
					}
					rows[len(rows)-1].fields[a.Name.Local] = a.Value
				}
			case depth == 3 && isTag(t):
				inner = t.Name.Local
				k, v := t.Attr[0].Value, t.Attr[1].Value
				if t.Attr[0].Name.Local == "v" {
					k, v = v, k
				}
				if _, twice := rows[len(rows)-1].fields[k]; twice {
					rowBad(fmt.Errorf("<tag k=%q> (line %d) names a field the row has already", k, line))
				}
				rows[len(rows)-1].fields[k] = v
			case depth == 3 && len(t.Attr) == 0:
				child, inner = t.Name.Local, t.Name.Local // <name>Berlin</name>: a field
				childText.Reset()
			case depth == 3:
				inner = t.Name.Local
				rowBad(fmt.Errorf("<%s> inside the row (line %d): an XML import reads a row's attributes, its <tag k v> elements and its elements of text (<name>Berlin</name>), not elements with attributes", t.Name.Local, line))
			case depth > 3:
				child = ""
				rowBad(fmt.Errorf("<%s> inside <%s> (line %d): a row's elements are fields of text, not of other elements", t.Name.Local, inner, line))
			}
		case xml.EndElement:
			if depth == 3 && child != "" {
				if _, twice := rows[len(rows)-1].fields[child]; twice {
					rowBad(fmt.Errorf("<%s> (line %d) names a field the row has already", child, line))
				}
				rows[len(rows)-1].fields[child] = childText.String() // as written, spaces and all, as an attribute's value is
			}
			if depth == 3 {
				child = ""
			}
			depth--
		case xml.CharData:
			switch {
			case depth == 3 && child != "":
				childText.Write(t)
			case depth == 2 && len(bytes.TrimSpace(t)) > 0:
				rowBad(fmt.Errorf("text inside the row (line %d): an XML import reads a row's attributes and elements, not text beside them", line))
			case depth == 3 && len(bytes.TrimSpace(t)) > 0: // inside a <tag>, which says its field in attributes
				rowBad(fmt.Errorf("text inside <%s> (line %d): a <tag k v> has no text", inner, line))
			}
		}
	}
}

// xmlError is err, met reading the XML d decodes, as an import's error:
// a syntax error by its line, another by the line d had reached.
func xmlError(d *xml.Decoder, err error) error {
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("line %d: %s (nothing imported)", se.Line, se.Msg)
	}
	line, _ := d.InputPos()
	return fmt.Errorf("line %d: %w (nothing imported)", line, err)
}

// namedColumns reads --columns, the names of a CSV's or TSV's columns for
// a file without a header: nil when not given. Each must be named once;
// "geonames" stands for geonamesColumns.
func namedColumns(c *ucli.Context) ([]string, error) {
	if !c.IsSet("columns") {
		return nil, nil
	}
	if strings.EqualFold(c.String("columns"), "geonames") {
		return slices.Clone(geonamesColumns), nil
	}
	names := strings.Split(c.String("columns"), ",")
	if err := checkHeader(names); err != nil {
		return nil, usagef("--columns %q: %v", c.String("columns"), strings.TrimSuffix(strings.TrimPrefix(err.Error(), "line 1: "), " (nothing imported)"))
	}
	return names, nil
}

// columnsFlag is --columns, for imports of CSV and TSV.
func columnsFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "columns", Usage: "the `NAMES` of the columns (comma-separated), for a CSV or TSV whose first line is data, not a header; geonames for GeoNames' dumps (geonameid, name, asciiname, alternatenames, latitude, longitude, feature_class, feature_code, country_code, cc2, admin1 to admin4, population, elevation, dem, timezone, modified)"}
}

// checkHeader trims a CSV header's names (and a byte-order mark) in
// place and refuses a header that would lose data: a column without a
// name, or a name given twice, whose values would overwrite the first's.
func checkHeader(header []string) error {
	seen := make(map[string]int, len(header))
	for i := range header {
		header[i] = strings.TrimSpace(strings.TrimPrefix(header[i], "\ufeff"))
		name := header[i]
		if name == "" {
			return fmt.Errorf("line 1: column %d of the header has no name (nothing imported)", i+1)
		}
		if first, ok := seen[name]; ok {
			return fmt.Errorf("line 1: columns %d and %d of the header are both named %q (nothing imported)", first, i+1, name)
		}
		seen[name] = i + 1
	}
	return nil
}

// interrupted is an error once ctx is cancelled, checked every 1,024 rows
// (n is the rows read so far).
func interrupted(ctx context.Context, n int) error {
	if n%1024 != 0 {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("interrupted: %w (nothing imported)", err)
	}
	return nil
}

// stoppedUpdate turns the error of an Update stopped by Ctrl-C (its
// context cancelled; UpdateContext rolled it back) into the command's
// message, which says that nothing was done.
func stoppedUpdate(err error, nothing string) error {
	if errors.Is(err, context.Canceled) && !strings.Contains(err.Error(), "interrupted") {
		return fmt.Errorf("interrupted: %w (%s)", context.Canceled, nothing)
	}
	return err
}

// decodeObject decodes one NDJSON line, keeping its numbers' text
// (json.Number), so that an id of 12345678901234567890 is not rounded to
// a float64's 17 digits on its way to the payload; one object and nothing
// after it.
func decodeObject(text string) (map[string]any, error) {
	d := json.NewDecoder(strings.NewReader(text))
	d.UseNumber()
	var obj map[string]any
	if err := d.Decode(&obj); err != nil {
		return nil, err
	}
	if obj == nil {
		return nil, errors.New("null")
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, errors.New("more after the object")
	}
	return obj, nil
}

// jsonField is a decoded JSON value as a field's text: a string as it
// is, a number as written, null as empty, anything else as its JSON.
func jsonField(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case json.Number:
		return v.String()
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case nil:
		return ""
	}
	b, _ := marshal(v)
	return string(b)
}

// newBar returns a progress bar on a terminal, and a silent one on a pipe
// or with --quiet.
func newBar(c *ucli.Context, n int, what string) *progressbar.ProgressBar {
	if common(c, "quiet") == "true" || !isTerminal(c.App.ErrWriter) {
		return progressbar.DefaultSilent(int64(n), what)
	}
	return progressbar.NewOptions(n, progressbar.OptionSetWriter(c.App.ErrWriter), progressbar.OptionSetDescription(what),
		progressbar.OptionShowCount(), progressbar.OptionShowIts(), progressbar.OptionSetItsString("rows"),
		progressbar.OptionThrottle(100_000_000), progressbar.OptionClearOnFinish())
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// isTag reports whether e is an OpenStreetMap tag: <tag k="…" v="…"/>,
// its two attributes in either order.
func isTag(e xml.StartElement) bool {
	if e.Name.Local != "tag" || len(e.Attr) != 2 {
		return false
	}
	a, b := e.Attr[0].Name.Local, e.Attr[1].Name.Local
	return a == "k" && b == "v" || a == "v" && b == "k"
}
