package cli

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/geo"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"
	"github.com/schollz/progressbar/v3"
	ucli "github.com/urfave/cli/v2"
)

func geoImportCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "import",
		Usage: "import points from CSV (with a header), NDJSON or GeoJSON; all or nothing unless --skip-bad",
		UsageText: "keyspace geo import --index cities --id-col id --scope-cols country_code cities.csv\n" +
			"cat points.ndjson | keyspace geo import --index fleet --format ndjson -",
		ArgsUsage: "FILE|-",
		Flags: []ucli.Flag{indexFlag(),
			&ucli.StringFlag{Name: "id-col", Value: "id", Usage: "the id `COLUMN`"},
			&ucli.StringFlag{Name: "lat-col", Usage: "the latitude `COLUMN` (default: lat or latitude)"},
			&ucli.StringFlag{Name: "lon-col", Usage: "the longitude `COLUMN` (default: lon, lng or longitude)"},
			&ucli.StringFlag{Name: "scope-cols", Usage: "`COLUMNS` (comma-separated) whose values scope the points"},
			&ucli.StringFlag{Name: "format", Value: "csv", Usage: "csv, ndjson or geojson"},
			&ucli.BoolFlag{Name: "skip-bad", Usage: "import the good rows and report the bad ones"},
		},
		Action: geoImport,
	}
}

// row is one input record: its line number (a GeoJSON feature's number)
// and its fields by column.
type row struct {
	line    int
	feature bool // a GeoJSON feature: line counts features
	fields  map[string]string
	point   *orb.Point // GeoJSON geometry, when the input has one
	id      string     // GeoJSON feature id
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
	rows, err := readRows(in, format)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", name, err)
	}
	return rows, name, nil
}

// reportImport says on stderr what an import wrote, and the first bad rows
// it skipped: "imported 3 points into cities; skipped 1 bad row: line 4: …".
func reportImport(c *ucli.Context, imported, into string, bad []badRow) {
	fmt.Fprintf(c.App.ErrWriter, "imported %s into %s", imported, into)
	if len(bad) > 0 {
		fmt.Fprintf(c.App.ErrWriter, "; skipped %s: %s", count(len(bad), "bad row"), firstBad(bad))
	}
	fmt.Fprintln(c.App.ErrWriter)
}

func geoImport(c *ucli.Context) error {
	rows, name, err := importRows(c, c.String("format"))
	if err != nil {
		return err
	}
	spec, err := newColumnSpec(c, rows)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	var points []geo.Point
	var bad []badRow
	firstAt := map[string]string{} // where each id was first read
	for _, r := range rows {
		p, err := spec.point(r)
		if err == nil {
			// A repeated id would overwrite the earlier point (a move)
			// and leave one point where the file has two rows.
			if first, seen := firstAt[p.ID]; seen {
				err = fmt.Errorf("id %q repeats %s", p.ID, first)
			} else {
				firstAt[p.ID] = r.where()
			}
		}
		if err != nil {
			if !c.Bool("skip-bad") {
				return fmt.Errorf("%s: %s: %w (nothing imported)", name, r.where(), err)
			}
			bad = append(bad, badRow{r.where(), err})
			continue
		}
		points = append(points, p)
	}
	s, err := openWrite(c)
	if err != nil {
		return err
	}
	defer s.Close()
	ix := geo.NewIndex(c.String("index"))
	bar := newBar(c, len(points), "importing")
	err = s.Update(func(tx keyspace.Tx) error {
		// One PutAll writes one sorted run of keys (fast in bbolt) in one
		// transaction (all or nothing). Ctrl-C before the commit rolls back.
		if err := ix.PutAll(tx, points); err != nil {
			return err
		}
		bar.Set(len(points))
		if err := c.Context.Err(); err != nil {
			return fmt.Errorf("interrupted: %w (nothing imported)", err)
		}
		return nil
	})
	bar.Finish()
	if err != nil {
		return err
	}
	reportImport(c, count(len(points), "point"), ix.Name(), bad)
	return nil
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

// readRows reads every record of the input, with its line number.
func readRows(in io.Reader, format string) ([]row, error) {
	switch format {
	case "csv":
		r := csv.NewReader(in)
		r.ReuseRecord = false
		header, err := r.Read()
		if err != nil {
			return nil, fmt.Errorf("reading the CSV header: %w", err)
		}
		for i := range header {
			header[i] = strings.TrimSpace(strings.TrimPrefix(header[i], "\ufeff"))
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
			var obj map[string]any
			if err := json.Unmarshal([]byte(text), &obj); err != nil {
				return nil, fmt.Errorf("line %d: not a JSON object: %v (nothing imported)", line, err)
			}
			fields := map[string]string{}
			for k, v := range obj {
				fields[k] = jsonField(v)
			}
			rows = append(rows, row{line: line, fields: fields})
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
			r := row{line: i + 1, feature: true, fields: map[string]string{}}
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

func jsonField(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case nil:
		return ""
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// columnSpec says which columns hold what.
type columnSpec struct {
	id, lat, lon string
	scope        []string
	geojson      bool
}

func newColumnSpec(c *ucli.Context, rows []row) (columnSpec, error) {
	spec := columnSpec{id: c.String("id-col"), lat: c.String("lat-col"), lon: c.String("lon-col"), geojson: c.String("format") == "geojson"}
	if s := c.String("scope-cols"); s != "" {
		spec.scope = strings.Split(s, ",")
	}
	if len(rows) == 0 || spec.geojson {
		return spec, nil
	}
	have := rows[0].fields
	find := func(flag, given string, names ...string) (string, error) {
		if given != "" {
			if _, ok := have[given]; !ok {
				return "", fmt.Errorf("no column %q (--%s) in the header", given, flag)
			}
			return given, nil
		}
		for _, n := range names {
			for h := range have {
				if strings.EqualFold(h, n) {
					return h, nil
				}
			}
		}
		return "", fmt.Errorf("no %s column in the header (looked for %s; name it with --%s)", flag[:3], strings.Join(names, ", "), flag)
	}
	var err error
	if spec.lat, err = find("lat-col", spec.lat, "lat", "latitude"); err != nil {
		return spec, err
	}
	if spec.lon, err = find("lon-col", spec.lon, "lon", "lng", "longitude", "long"); err != nil {
		return spec, err
	}
	if _, ok := have[spec.id]; !ok {
		return spec, fmt.Errorf("no id column %q in the header (name it with --id-col)", spec.id)
	}
	for _, sc := range spec.scope {
		if _, ok := have[sc]; !ok {
			return spec, fmt.Errorf("no scope column %q in the header", sc)
		}
	}
	return spec, nil
}

// point turns a row into a point, checking everything Put would.
func (s columnSpec) point(r row) (geo.Point, error) {
	p := geo.Point{ID: r.fields[s.id]}
	if s.geojson {
		if r.point == nil {
			return p, errors.New("the feature's geometry is not a Point")
		}
		p.Lon, p.Lat = r.point[0], r.point[1]
		if r.id != "" {
			p.ID = r.id
		}
	} else {
		var err error
		if p.Lat, err = number(r.fields[s.lat], "latitude"); err != nil {
			return p, err
		}
		if p.Lon, err = number(r.fields[s.lon], "longitude"); err != nil {
			return p, err
		}
	}
	if p.ID == "" {
		return p, fmt.Errorf("empty id (column %q)", s.id)
	}
	switch {
	case p.Lat < -90 || p.Lat > 90:
		return p, fmt.Errorf("latitude %v out of range [-90, 90]", p.Lat)
	case p.Lon < -180 || p.Lon > 180:
		return p, fmt.Errorf("longitude %v out of range [-180, 180]", p.Lon)
	}
	skip := map[string]bool{s.id: true, s.lat: true, s.lon: true}
	for _, sc := range s.scope {
		p.Scope = append(p.Scope, r.fields[sc])
		skip[sc] = true
	}
	if _, err := composite.Tuple(p.Scope).TryPack(); err != nil {
		return p, fmt.Errorf("scope: %w", err)
	}
	payload := map[string]string{}
	for k, v := range r.fields {
		if !skip[k] {
			payload[k] = v
		}
	}
	if len(payload) > 0 {
		p.Payload, _ = json.Marshal(payload)
	}
	return p, nil
}

func number(s, what string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || v != v {
		return 0, fmt.Errorf("%s %q is not a number", what, s)
	}
	return v, nil
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
