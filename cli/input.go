package cli

// What the imports share (geo import, table import, series import): the
// input, read whole into rows with their line numbers before anything is
// written, so that a bad row stops an import with nothing written; what
// an import reports; and its progress bars.

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"
	"github.com/schollz/progressbar/v3"
	ucli "github.com/urfave/cli/v2"
)

// row is one input record: its line number (a GeoJSON feature's number)
// and its fields by column.
type row struct {
	line    int
	feature bool // a GeoJSON feature: line counts features
	fields  map[string]string
	// values are an NDJSON object's or a GeoJSON feature's properties as
	// decoded, for a payload that keeps their JSON types (1000 stays a
	// number, [1,2] an array); fields holds them as text for the columns
	// read as text (id, latitude, scope). Nil for CSV, which has no types.
	values  map[string]any
	point   *orb.Point // GeoJSON geometry, when the input has one
	id      string     // GeoJSON feature id
	expires string     // a table export's expiry (RFC 3339), from unwrapRecord
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
	r.fields = make(map[string]string, len(inner))
	for k, v := range inner {
		r.fields[k] = jsonField(v)
	}
}

// where names the row for an error: "line 7", or "feature 7".
func (r row) where() string {
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

// importRows reads the rows of an import's one FILE argument ("-" for
// standard input), and returns them with the name errors give the input.
func importRows(c *ucli.Context, format string) ([]row, string, error) {
	if c.NArg() != 1 {
		return nil, "", usagef("%s %s wants one FILE (or - for standard input)", c.Lineage()[1].Command.Name, c.Command.Name)
	}
	in, name, closeIn, err := openInput(c, c.Args().First())
	if err != nil {
		return nil, "", err
	}
	defer closeIn()
	rows, err := readRows(c.Context, in, format)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", name, err)
	}
	return rows, name, nil
}

// reportImport says on stderr what an import wrote, and the first bad rows
// it skipped: "imported 3 points into cities; skipped 1 bad row: line 4: …".
func reportImport(c *ucli.Context, imported, into string, bad []badRow, notes ...string) {
	fmt.Fprintf(c.App.ErrWriter, "imported %s into %s", imported, into)
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

// openInput opens a file, or standard input for "-".
func openInput(c *ucli.Context, path string) (io.Reader, string, func(), error) {
	if path == "-" {
		return c.App.Reader, "standard input", func() {}, nil
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
	return in, path, func() { f.Close() }, nil
}

// readRows reads every record of the input, with its line number,
// stopping at a row boundary once ctx is cancelled (Ctrl-C).
func readRows(ctx context.Context, in io.Reader, format string) ([]row, error) {
	switch format {
	case "csv":
		r := csv.NewReader(in)
		r.ReuseRecord = false
		header, err := r.Read()
		if err != nil {
			return nil, fmt.Errorf("reading the CSV header: %w", err)
		}
		if err := checkHeader(header); err != nil {
			return nil, err
		}
		var rows []row
		for {
			rec, err := r.Read()
			if err == io.EOF {
				return rows, nil
			}
			if err != nil {
				var pe *csv.ParseError
				if errors.As(err, &pe) {
					return nil, fmt.Errorf("line %d: %v (nothing imported)", pe.Line, pe.Err)
				}
				return nil, err
			}
			if err := interrupted(ctx, len(rows)); err != nil {
				return nil, err
			}
			line, _ := r.FieldPos(0)
			fields := make(map[string]string, len(header))
			for i, h := range header {
				fields[h] = rec[i]
			}
			rows = append(rows, row{line: line, fields: fields})
		}
	case "ndjson":
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
			fields := map[string]string{}
			for k, v := range obj {
				fields[k] = jsonField(v)
			}
			rows = append(rows, row{line: line, fields: fields, values: obj})
		}
		return rows, sc.Err()
	case "geojson":
		b, err := io.ReadAll(in)
		if err != nil {
			return nil, err
		}
		fc, err := geojson.UnmarshalFeatureCollection(b)
		if err != nil {
			return nil, fmt.Errorf("not a GeoJSON FeatureCollection: %w", err)
		}
		var rows []row
		for i, f := range fc.Features {
			r := row{line: i + 1, feature: true, fields: map[string]string{}, values: f.Properties}
			for k, v := range f.Properties {
				r.fields[k] = jsonField(v)
			}
			if p, ok := f.Geometry.(orb.Point); ok {
				r.point = &p
			}
			if f.ID != nil {
				r.id = jsonField(f.ID)
			}
			rows = append(rows, r)
		}
		return rows, nil
	}
	return nil, usagef("--format %q: want csv, ndjson or geojson", format)
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
	b, _ := json.Marshal(v)
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
