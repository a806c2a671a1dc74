package cli

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
	"unicode/utf8"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/geo"
	"github.com/keyspacedb/keyspace/indextable"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"
	ucli "github.com/urfave/cli/v2"
)

// resultColumns are the columns geo results are printed with beyond
// their own: each one's distance (from the query's centre, line or
// area), and its place along a route by result when along is not nil
// (geo along --in-order).
type resultColumns struct {
	distance bool
	along    []float64
}

// jsonResult is one geo result in JSON output.
type jsonResult struct {
	ID        string          `json:"id"`
	Lat       float64         `json:"lat"`
	Lon       float64         `json:"lon"`
	DistanceM *float64        `json:"distance_m,omitempty"`
	AlongM    *float64        `json:"along_m,omitempty"`
	Scope     any             `json:"scope,omitempty"`   // scopeJSON
	Expires   string          `json:"expires,omitempty"` // RFC 3339 to the nanosecond, UTC
	Payload   json.RawMessage `json:"payload,omitempty"`
}

type jsonStats struct {
	Cells      int `json:"cells"`
	Ranges     int `json:"ranges"`
	Candidates int `json:"candidates"`
	Results    int `json:"results"`
}

// payloadCell is a payload in a table's cell: tabs made spaces, and cut
// to 60 characters.
func payloadCell(p []byte) string {
	payload := strings.ReplaceAll(string(p), "\t", " ")
	if runes := []rune(payload); len(runes) > 60 { // cut between characters, not inside one
		payload = string(runes[:57]) + "..."
	}
	return payload
}

// payloadJSON returns a payload as JSON: itself when it is JSON (imports
// store the other columns as an object), else a JSON string.
func payloadJSON(p []byte) json.RawMessage {
	if len(p) == 0 {
		return nil
	}
	if json.Valid(p) {
		return p
	}
	b, _ := marshal(string(p))
	return b
}

// toJSON is the ith of a query's results, r, in JSON.
func toJSON(r geo.Result, i int, cols resultColumns) jsonResult {
	out := jsonResult{ID: r.ID, Lat: r.Lat, Lon: r.Lon, Expires: exactExpires(r.Expires), Payload: payloadJSON(r.Payload)}
	if cols.distance {
		d := r.Distance
		out.DistanceM = &d
	}
	if cols.along != nil {
		out.AlongM = &cols.along[i]
	}
	if len(r.Scope) > 0 {
		out.Scope = scopeJSON(r.Scope)
	}
	return out
}

// writeResults prints geo results in the chosen format, and the next
// page's cursor if there is one: in the table after its summary, in JSON
// as "next", and on errw for ndjson and geojson (whose stdout is the
// feed).
func writeResults(w, errw io.Writer, format string, rs []geo.Result, st geo.Stats, cols resultColumns, next string) error {
	if bare, err := writeBare(w, errw, format, rs, next); bare {
		return err
	}
	switch format {
	case "json":
		doc := struct {
			Results []jsonResult `json:"results"`
			Stats   jsonStats    `json:"stats"`
			Next    string       `json:"next,omitempty"`
		}{Results: jsonResults(rs, cols), Stats: jsonStats(st), Next: next}
		return writeJSON(w, doc)
	case "ndjson", "geojson":
		writeNextPage(errw, next)
		return writeFeed(w, format, rs, cols)
	}
	if err := writeTable(w, rs, cols); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%s; %s, %s read\n", count(st.Results, "result"), count(st.Ranges, "range"), count(st.Candidates, "candidate"))
	if err == nil {
		err = writeNextPage(w, next)
	}
	return err
}

// writeBare prints points as --output count or ids asks (Tile38's COUNT
// and IDS outputs), for a shell to read: how many, or their ids a line
// each (… -o ids | xargs keyspace geo del --index fleet), with the next
// page's cursor on errw. It reports whether format was one of those.
func writeBare(w, errw io.Writer, format string, rs []geo.Result, next string) (bool, error) {
	var b bytes.Buffer
	switch format {
	case "count":
		fmt.Fprintln(&b, len(rs))
	case "ids":
		for _, r := range rs {
			b.WriteString(r.ID)
			b.WriteByte('\n')
		}
	default:
		return false, nil
	}
	writeNextPage(errw, next)
	_, err := w.Write(b.Bytes())
	return true, err
}

// writeNextPage prints, when there is a next page, the flag that asks
// for it: "next page: --cursor NEXT".
func writeNextPage(w io.Writer, next string) error {
	if next == "" {
		return nil
	}
	_, err := fmt.Fprintf(w, "next page: --cursor %s\n", next)
	return err
}

// writeScan prints a page of `geo scan`: its points and, if there are
// more, the cursor of the next page (on stderr, errw, for ndjson and
// geojson, whose stdout is the export).
func writeScan(w, errw io.Writer, format string, rs []geo.Result, next string) error {
	if bare, err := writeBare(w, errw, format, rs, next); bare {
		return err
	}
	switch format {
	case "json":
		doc := struct {
			Points []jsonResult `json:"points"`
			Next   string       `json:"next,omitempty"`
		}{Points: jsonResults(rs, resultColumns{}), Next: next}
		return writeJSON(w, doc)
	case "ndjson", "geojson":
		writeNextPage(errw, next)
		return writeFeed(w, format, rs, resultColumns{})
	}
	if err := writeTable(w, rs, resultColumns{}); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, count(len(rs), "point"))
	if err == nil {
		err = writeNextPage(w, next)
	}
	return err
}

func jsonResults(rs []geo.Result, cols resultColumns) []jsonResult {
	out := make([]jsonResult, 0, len(rs))
	for i, r := range rs {
		out = append(out, toJSON(r, i, cols))
	}
	return out
}

// writeFeed prints points as NDJSON, a line each, or as a GeoJSON
// FeatureCollection whose features carry the payload's fields and the
// scope.
func writeFeed(w io.Writer, format string, rs []geo.Result, cols resultColumns) error {
	if format == "ndjson" {
		return writeNDJSON(w, jsonResults(rs, cols))
	}
	fc := geojson.NewFeatureCollection()
	for i, r := range rs {
		f := geojson.NewFeature(orb.Point{r.Lon, r.Lat})
		f.ID = r.ID
		if cols.distance {
			f.Properties["distance_m"] = r.Distance
		}
		if cols.along != nil {
			f.Properties["along_m"] = cols.along[i]
		}
		if len(r.Scope) > 0 {
			f.Properties["scope"] = scopeJSON(r.Scope)
		}
		if !r.Expires.IsZero() {
			f.Properties["expires"] = exactExpires(r.Expires)
		}
		var props map[string]any
		if decodeJSON(r.Payload, &props) == nil {
			for k, v := range props {
				f.Properties[k] = v
			}
		} else if len(r.Payload) > 0 {
			f.Properties["payload"] = string(r.Payload)
		}
		fc.Append(f)
	}
	b, err := json.MarshalIndent(fc, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", unescapeHTML(b))
	return err
}

// writeTable prints points as a table, payloads cut to 60 characters.
func writeTable(w io.Writer, rs []geo.Result, cols resultColumns) error {
	tw := newTable(w)
	scoped := slices.ContainsFunc(rs, func(r geo.Result) bool { return len(r.Scope) > 0 })
	expiring := slices.ContainsFunc(rs, func(r geo.Result) bool { return !r.Expires.IsZero() })
	names := []string{"ID"}
	if scoped {
		names = append(names, "SCOPE")
	}
	names = append(names, "LAT", "LON")
	if cols.along != nil {
		names = append(names, "ALONG")
	}
	if cols.distance {
		names = append(names, "DISTANCE")
	}
	if expiring {
		names = append(names, "EXPIRES")
	}
	fmt.Fprintln(tw, strings.Join(append(names, "PAYLOAD"), "\t"))
	for i, r := range rs {
		payload := payloadCell(r.Payload)
		row := []string{r.ID}
		if scoped {
			row = append(row, cmp.Or(scopeArg(r.Scope), "(none)"))
		}
		row = append(row, degrees(r.Lat), degrees(r.Lon))
		if cols.along != nil {
			row = append(row, formatDistance(cols.along[i]))
		}
		if cols.distance {
			row = append(row, formatDistance(r.Distance))
		}
		if expiring {
			row = append(row, cmp.Or(formatExpires(r.Expires), "never"))
		}
		fmt.Fprintln(tw, strings.Join(append(row, payload), "\t"))
	}
	return tw.Flush()
}

// count is n things: "1 point", "3 points".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	if strings.HasSuffix(thing, "y") && !strings.HasSuffix(thing, "ey") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(thing, "y")) // entries, not entrys
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// degrees writes a latitude or longitude for a table: six decimals
// (about 0.1 m), and no minus sign on a value that rounds to zero
// (-0.000000 for -0, or for -0.0000001, read as a place west of 0°).
func degrees(v float64) string {
	s := strconv.FormatFloat(v, 'f', 6, 64)
	if s == "-0.000000" {
		return s[1:]
	}
	return s
}

func formatDistance(m float64) string {
	if m >= 1000 {
		return fmt.Sprintf("%.3f km", m/1000)
	}
	return fmt.Sprintf("%.1f m", m)
}

// marshal is json.Marshal without its HTML escaping: a payload's <p> or
// a URL's & is written as it is, not as \u003c or \u0026, escapes that
// matter only to JSON pasted into HTML; it is the tables' JSON codec. The
// JSON the command line writes, to the file or to its output, goes
// through it or an encoder set so, and what orb's GeoJSON types escape
// themselves through unescapeHTML.
func marshal(v any) ([]byte, error) { return indextable.JSON{}.Marshal(v) }

// writeJSON writes v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(unescapeHTML(b.Bytes()))
	return err
}

// unescapeHTML undoes encoding/json's escapes of <, > and & (\u003c,
// \u003e, \u0026) in JSON text, which orb's GeoJSON types write from their
// own MarshalJSON whatever the encoder asks: a fence's or point's payload
// then prints as marshal writes it elsewhere. It reads escapes a pair of
// bytes at a time, so a backslash that is itself escaped (\\u003c, the
// text \u003c) is left as it is.
func unescapeHTML(b []byte) []byte {
	if !bytes.Contains(b, []byte(`\u00`)) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 == len(b) {
			out = append(out, b[i])
			continue
		}
		if b[i+1] == 'u' && i+6 <= len(b) {
			switch string(b[i+2 : i+6]) {
			case "003c":
				out, i = append(out, '<'), i+5
				continue
			case "003e":
				out, i = append(out, '>'), i+5
				continue
			case "0026":
				out, i = append(out, '&'), i+5
				continue
			}
		}
		out, i = append(out, b[i], b[i+1]), i+1
	}
	return out
}

// writeNDJSON writes one JSON line per item.
func writeNDJSON[T any](w io.Writer, items []T) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, it := range items {
		if err := enc.Encode(it); err != nil {
			return err
		}
	}
	return nil
}

// writeListing prints one page of a listing (table scan, index scan and
// lookup, log listings) in format:
//
//   - json: {"<key>": [rows…], "next": "<cursor>"}, next left out on the
//     last page;
//   - ndjson: a line a row on w, and the next page's cursor on errw, so
//     that a page piped into another program still says it is not the last
//     (as geo scan's export does);
//   - table: the header, a line a row, and the next page's cursor.
//
// line returns a row's table cells, tab-separated.
func writeListing[T any](w, errw io.Writer, format, key string, rows []T, next, header string, line func(T) string) error {
	switch format {
	case "json":
		if rows == nil {
			rows = []T{} // [] rather than null
		}
		body, err := marshal(rows)
		if err != nil {
			return err
		}
		name, _ := marshal(key)
		doc := append(append(append([]byte(`{`), name...), ':'), body...)
		if next != "" {
			cursor, _ := marshal(next)
			doc = append(append(doc, `,"next":`...), cursor...)
		}
		var out bytes.Buffer
		if err := json.Indent(&out, append(doc, '}'), "", "  "); err != nil {
			return err
		}
		out.WriteByte('\n')
		_, err = out.WriteTo(w)
		return err
	case "ndjson":
		writeNextPage(errw, next)
		return writeNDJSON(w, rows)
	}
	tw := newTable(w)
	fmt.Fprintln(tw, header)
	for _, r := range rows {
		fmt.Fprintln(tw, line(r))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return writeNextPage(w, next)
}

// writeCount writes a count: the number alone on a line, or {"count": n}.
func writeCount(w io.Writer, format string, n int) error {
	if format == "json" {
		return writeJSON(w, map[string]int{"count": n})
	}
	_, err := fmt.Fprintln(w, n)
	return err
}

// pageFlags are a paged listing's --limit (of noun per page), --cursor and
// --reverse (whose order reverse says).
func pageFlags(noun, reverse string) []ucli.Flag {
	return []ucli.Flag{
		&ucli.IntFlag{Name: "limit", Aliases: []string{"n"}, Usage: "at most `N` " + noun + " per page", DefaultText: "all"},
		&ucli.StringFlag{Name: "cursor", Usage: "continue from a previous page's `TOKEN`"},
		&ucli.BoolFlag{Name: "reverse", Usage: reverse},
	}
}

// wholeListing checks a paged listing of a whole structure (log parents,
// rel scan): its --output and its --limit. It returns the output format.
func wholeListing(c *ucli.Context) (string, error) {
	format, err := output(c, "table", "json", "ndjson")
	if err != nil {
		return "", err
	}
	if _, err := limitOf(c); err != nil {
		return "", err
	}
	return format, nil
}

// limitOf reads a listing's --limit (0 for all); a negative one is a usage
// error.
func limitOf(c *ucli.Context) (int, error) {
	if n := c.Int("limit"); n >= 0 {
		return n, nil
	}
	return 0, usagef("--limit %d: must be positive", c.Int("limit"))
}

// cursorUsage makes a --cursor the listing did not hand out a usage error,
// as a bad flag is; other errors pass as they are.
func cursorUsage(err error) error {
	if errors.Is(err, keyspace.ErrBadCursor) {
		return usageError{err}
	}
	return err
}

// A table is a tabwriter for the table output whose cells are shown
// safely: a control character in a cell (an id with a zero byte, a
// newline or a carriage return) is written as its Go escape (\x00, \n,
// \r), and a byte that is not UTF-8 as \xff, so that it neither vanishes
// nor breaks the table's lines. Each Write is a row or the start of one:
// tabs are the table's, and so is a newline that ends a Write.
type table struct{ tw *tabwriter.Writer }

func newTable(w io.Writer) *table { return &table{tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)} }

func (t *table) Write(p []byte) (int, error) {
	row, end := p, []byte(nil)
	if n := len(p); n > 0 && p[n-1] == '\n' {
		row, end = p[:n-1], p[n-1:]
	}
	out := p
	if escaped, changed := escapeControls(row); changed {
		out = append(escaped, end...)
	}
	_, err := t.tw.Write(out)
	return len(p), err
}

func (t *table) Flush() error { return t.tw.Flush() }

// escapeControls is p with every control character but tab, and every
// byte that is not UTF-8, escaped, and whether there were any.
func escapeControls(p []byte) ([]byte, bool) {
	clean := true
	for i := 0; i < len(p) && clean; {
		r, size := utf8.DecodeRune(p[i:])
		clean = !(r == utf8.RuneError && size == 1) && (r == '\t' || !unicode.IsControl(r))
		i += size
	}
	if clean {
		return p, false
	}
	out := make([]byte, 0, len(p)+8)
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRune(p[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			out = fmt.Appendf(out, `\x%02x`, p[i])
		case r != '\t' && unicode.IsControl(r):
			q := strconv.QuoteRune(r) // '\x00', '\n', '\u0085'
			out = append(out, q[1:len(q)-1]...)
		default:
			out = append(out, p[i:i+size]...)
		}
		i += size
	}
	return out, true
}
