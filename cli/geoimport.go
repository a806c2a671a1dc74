package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/geo"
	"github.com/paulmach/orb"
	"github.com/schollz/progressbar/v3"
	ucli "github.com/urfave/cli/v2"
)

func geoImportCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "import",
		Usage: "import points from CSV or TSV (with a header, or --columns), NDJSON, JSON, GeoJSON or XML (a GPX file's waypoints among it), compressed or not; all or nothing unless --skip-bad",
		UsageText: "keyspace geo import --index cities --id-col id --scope-cols country_code cities.csv\n" +
			"keyspace geo import --index places saved.gpx   # waypoints, each named by its name\n" +
			"cat points.ndjson | keyspace geo import --index fleet --format ndjson -\n" +
			"keyspace geo import --index fleet --fences zones positions.csv > crossings.ndjson\n" +
			"keyspace geo import --index fleet --roam 200m positions.csv > meetings.ndjson\n" +
			"keyspace geo import --index fleet --moves --fences zones ride.gpx   # replay a GPS track through the fences",
		ArgsUsage: "FILE|-",
		Flags: slices.Concat([]ucli.Flag{indexFlag()}, pointFileFlags("the"), []ucli.Flag{
			&ucli.StringFlag{Name: "scope-cols", Usage: "`COLUMNS` (comma-separated) whose values scope the points"},
			&ucli.StringFlag{Name: "payload-cols", Usage: "keep only these `COLUMNS` (comma-separated) in each point's payload", DefaultText: "every column but the id, latitude, longitude, scope and expiry ones"},
			&ucli.BoolFlag{Name: "skip-bad", Usage: "import the good rows and report the bad ones"},
			dryRunFlag(),
			typedFlag(),
			ttlFlag(),
			&ucli.StringFlag{Name: "expires-col", Usage: "the `COLUMN` of when each point expires (RFC 3339, as geo scan exports it; empty for never)"},
			&ucli.StringFlag{Name: "fences", Usage: "print, as NDJSON, the crossings each point's move makes through the fence set `NAME` (written in the same transaction)"},
			&ucli.StringFlag{Name: "roam", Usage: "print, as NDJSON, the other points each point's move came within `DISTANCE` of, left or stayed near, all moves of the batch made (Tile38's roaming geofences)"},
			&ucli.BoolFlag{Name: "moves", Usage: "each row a move of its point, in the file's order, so that ids repeat (a log of GPS fixes; a GPX file's track points, each a move of its track's point): the point ends where its last row puts it, and --fences and --roam print each move's crossings and meetings with the row's place"},
			detectFlag(),
		}, onlyIfFlags()),
		Action: geoImport,
	}
}

// pointFormats are the formats a file of points may be in: every import
// format.
var pointFormats = importFormats

// pointFileFlags are the flags of a command that reads a file of points
// (geo import, fence containing FILE, bench FILE): its columns, format,
// and the path to a JSON document's rows. whose begins the columns'
// usage: "the" id column, "a FILE's".
func pointFileFlags(whose string) []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: "id-col", Value: "id", Usage: whose + " id `COLUMN`"},
		&ucli.StringFlag{Name: "lat-col", Usage: whose + " latitude `COLUMN` (default: lat or latitude); in JSON rows any column flag may be a dotted path (location.lat, geometry.coordinates.1)"},
		&ucli.StringFlag{Name: "lon-col", Usage: whose + " longitude `COLUMN` (default: lon, lng or longitude)"},
		&ucli.StringFlag{Name: "wkt-col", Usage: whose + " `COLUMN` of WKT, as PostGIS's ST_AsText writes it (POINT(lon lat)), instead of a latitude and a longitude column"},
		formatFlag(pointFormats...),
		columnsFlag(),
		eachFlag(),
		withFlag(),
	}
}

// pointRows reads the rows of a file of points (geo import, bench, fence
// containing FILE) and finds their columns.
func pointRows(c *ucli.Context) ([]row, columnSpec, *badRows, error) {
	rows, format, bad, err := importRows(c, pointFormats)
	if err != nil {
		return nil, columnSpec{}, nil, err
	}
	spec, err := newColumnSpec(c, rows, format == "geojson")
	if err != nil {
		return nil, columnSpec{}, nil, fmt.Errorf("%s: %w", bad.name, err)
	}
	return rows, spec, bad, nil
}

// rowPoints makes rows the points of ix, each expiring at expires unless
// that is zero, and says where each was read (row.where). A row that is
// no point, or repeats an earlier row's id (it would move that point,
// and leave one where the file has two) unless the rows are moves, is a
// bad row: noted with --skip-bad, else the error that stops the import.
func rowPoints(ix *geo.Index, rows []row, spec columnSpec, bad *badRows, expires time.Time, moves bool) ([]geo.Point, []string, error) {
	var points []geo.Point
	var where []string
	firstAt := map[string]string{} // where each id was first read
	for _, r := range rows {
		p, err := spec.point(r)
		if err == nil && !expires.IsZero() {
			p.Expires = expires
		}
		if err == nil {
			err = ix.Validate(p) // what the CLI's parse leaves to the index: an id too long for a key
		}
		if err == nil && !moves {
			if first, seen := firstAt[p.ID]; seen {
				err = fmt.Errorf("id %q repeats %s (--moves takes rows as moves of their points)", p.ID, first)
			} else {
				firstAt[p.ID] = r.where()
			}
		}
		if err != nil {
			if err := bad.add(r.where(), err); err != nil {
				return nil, nil, err
			}
			continue
		}
		points, where = append(points, p), append(where, r.where())
	}
	return points, where, nil
}

func geoImport(c *ucli.Context) error {
	rows, spec, bad, err := pointRows(c)
	if err != nil {
		return err
	}
	expires, err := expiresFromTTL(c)
	if err != nil {
		return err
	}
	if spec.expires != "" && !expires.IsZero() {
		return usagef("--ttl and --expires-col both say when points expire; give one")
	}
	ix := geo.NewIndex(c.String("index"))
	moves := c.Bool("moves")
	points, where, err := rowPoints(ix, rows, spec, bad, expires, moves)
	if err != nil {
		return err
	}
	fences, roam := c.IsSet("fences"), c.IsSet("roam")
	keep, err := parseDetect(c)
	if err != nil {
		return err
	}
	only, err := parseOnlyIf(c)
	if err != nil {
		return err
	}
	if moves && only != everyPoint {
		return usagef("--moves moves points again and again; --nx and --xx say which points one write may make or move")
	}
	leftOut := 0 // points --nx or --xx left out
	var radius float64
	if roam {
		if radius, err = parseDistance(c.String("roam")); err != nil {
			return usagef("--roam: %v", err)
		}
	}
	s, err := openWrite(c)
	if err != nil {
		return err
	}
	defer s.Close()
	bar := newBar(c, len(points), "importing")
	var crossings [][]geo.Crossing
	var meetings [][]geo.Meeting
	err = s.UpdateContext(c.Context, func(tx keyspace.Tx) error {
		var err error
		if points, leftOut, err = only.kept(tx, ix, points); err != nil {
			return err
		}
		if moves {
			fs, err := fenceSetOf(c, tx)
			if err != nil {
				return err
			}
			crossings, meetings, err = replayMoves(tx, ix, fs, roam, radius, points, bar)
			return err
		}
		// Where the points were, before the import moves them.
		var before []*geo.Point
		if fences {
			b, err := pointsBefore(tx, ix, geo.NewFences(c.String("fences")), points)
			if err != nil {
				return err
			}
			before = b
		}
		// One PutAll writes one sorted run of keys (fast in bbolt) in one
		// transaction (all or nothing); PutAllRoaming too, around radius
		// queries. Ctrl-C before the commit stops it at its next write and
		// rolls it back.
		if roam {
			meetings, err = ix.PutAllRoaming(tx, points, radius)
		} else {
			err = ix.PutAll(tx, points)
		}
		if err != nil {
			return err
		}
		if fences {
			if crossings, err = crossingsOf(tx, geo.NewFences(c.String("fences")), before, points); err != nil {
				return err
			}
		}
		bar.Set(len(points))
		return nil
	})
	err = stoppedUpdate(err, "nothing imported")
	bar.Finish()
	if err != nil {
		return err
	}
	if fences || roam {
		for i := range crossings {
			crossings[i] = keep.crossings(crossings[i])
		}
		for i := range meetings {
			meetings[i] = keep.meetings(meetings[i])
		}
		if !moves {
			where = nil // a point is its id's one row
		}
		if err := writeNDJSON(c.App.Writer, movesOf(points, where, crossings, meetings)); err != nil {
			return err
		}
	}
	var notes []string
	if leftOut > 0 {
		notes = append(notes, only.leftOut(leftOut))
	}
	imported := count(len(points), "point")
	if moves {
		ids := map[string]bool{}
		for _, p := range points {
			ids[p.ID] = true
		}
		imported = count(len(points), "move") + " of " + count(len(ids), "point")
	}
	reportImport(c, imported, ix.Name(), bad.rows, notes...)
	return nil
}

// pointsBefore reads where each point of an import is before it: nil for
// a new point (or one that has expired). The fence set must hold fences.
func pointsBefore(tx keyspace.Tx, ix *geo.Index, fs *geo.Fences, points []geo.Point) ([]*geo.Point, error) {
	if err := requireFences(fs, tx); err != nil {
		return nil, err
	}
	before := make([]*geo.Point, len(points))
	for i, p := range points {
		switch old, err := ix.Get(tx, p.ID); {
		case err == nil:
			before[i] = &old
		case !errors.Is(err, keyspace.ErrNotFound):
			return nil, err
		}
	}
	return before, nil
}

// crossingsOf is the crossings of each point's move from before, in the
// order of the input.
func crossingsOf(tx keyspace.Tx, fs *geo.Fences, before []*geo.Point, points []geo.Point) ([][]geo.Crossing, error) {
	out := make([][]geo.Crossing, len(points))
	for i := range points {
		cs, err := fs.Crossings(tx, before[i], &points[i])
		if err != nil {
			return nil, err
		}
		out[i] = cs
	}
	return out, nil
}

// replayMoves writes points one by one, in order, each a move of its
// point from where the one before left it (geo import --moves, each as
// geo put moves it: movePoint), with its crossings through fs's fences
// (fs nil for none) and, with roam, its meetings.
func replayMoves(tx keyspace.Tx, ix *geo.Index, fs *geo.Fences, roam bool, radius float64, points []geo.Point, bar *progressbar.ProgressBar) (crossings [][]geo.Crossing, meetings [][]geo.Meeting, err error) {
	if fs != nil {
		crossings = make([][]geo.Crossing, len(points))
	}
	if roam {
		meetings = make([][]geo.Meeting, len(points))
	}
	for i, p := range points {
		cs, ms, err := movePoint(tx, ix, fs, p, roam, radius)
		if err != nil {
			return nil, nil, err
		}
		if fs != nil {
			crossings[i] = cs
		}
		if roam {
			meetings[i] = ms
		}
		bar.Set(i + 1)
	}
	return crossings, meetings, nil
}

// pointMoves is a line of geo import's NDJSON: what one point's move did,
// and with --moves where its row was.
type pointMoves struct {
	ID        string         `json:"id"`
	Row       string         `json:"row,omitempty"`
	Crossings []jsonCrossing `json:"crossings,omitempty"`
	Meetings  []jsonMeeting  `json:"meetings,omitempty"`
}

// movesOf is a line for each point whose move crossed a fence or met a
// point, in the order of the input, with where its row was when where
// is not nil; crossings or meetings may be nil (not asked for).
func movesOf(points []geo.Point, where []string, crossings [][]geo.Crossing, meetings [][]geo.Meeting) []pointMoves {
	var out []pointMoves
	for i, p := range points {
		m := pointMoves{ID: p.ID}
		if where != nil {
			m.Row = where[i]
		}
		if crossings != nil && len(crossings[i]) > 0 {
			m.Crossings = newPointCrossings(p.ID, crossings[i]).Crossings
		}
		if meetings != nil && len(meetings[i]) > 0 {
			m.Meetings = jsonMeetings(meetings[i])
		}
		if m.Crossings != nil || m.Meetings != nil {
			out = append(out, m)
		}
	}
	return out
}

// columnSpec says which columns hold what.
type columnSpec struct {
	id, lat, lon string
	// wkt is the column of WKT geometries (--wkt-col), "" for none: a
	// point's position, or with regions a fence's whole region, which
	// point then leaves to its caller (fence import's wktFences).
	wkt     string
	regions bool
	expires string // the column of expiries, if any
	scope   []string
	geojson bool
	typed   bool     // --typed: a CSV's numbers and booleans as JSON's (csvValue)
	also    []string // columns the caller reads itself, not the payload's (fence import's radius)
	keep    []string // --payload-cols: the only columns of the payload; nil for every other one
}

func newColumnSpec(c *ucli.Context, rows []row, geojson bool) (columnSpec, error) {
	spec := columnSpec{id: c.String("id-col"), lat: c.String("lat-col"), lon: c.String("lon-col"), expires: c.String("expires-col"),
		wkt: c.String("wkt-col"), geojson: geojson, typed: c.Bool("typed")}
	if spec.wkt != "" && (spec.lat != "" || spec.lon != "") {
		return spec, usagef("--wkt-col gives each row's position; it takes no --lat-col or --lon-col")
	}
	if spec.wkt != "" && geojson {
		return spec, usagef("--wkt-col reads rows of CSV, TSV, NDJSON, JSON or XML; a GeoJSON feature has its geometry")
	}
	if s := c.String("scope-cols"); s != "" {
		spec.scope = strings.Split(s, ",")
	}
	if s := c.String("payload-cols"); s != "" {
		spec.keep = strings.Split(s, ",")
	}
	if !c.IsSet("id-col") && strings.EqualFold(c.String("columns"), "geonames") {
		spec.id = geonamesColumns[0]
	}
	if len(rows) > 0 && rows[0].gpx != notGPX && !c.IsSet("id-col") {
		spec.id = rows[0].gpx.idField()
	}
	if len(rows) == 0 || spec.geojson || noRowReadable(rows) {
		return spec, nil // no columns to check: each row's own error says what is wrong
	}
	// The columns: a CSV's header, or every field any NDJSON object or XML
	// element has (an export's points carry "expires" only when they
	// expire).
	have := map[string]string{}
	for _, r := range rows {
		for k := range r.names() {
			have[k] = ""
		}
		if r.header != nil {
			break // every row has the header's
		}
	}
	// has: a column, or a dotted path into a JSON row (location.lat).
	has := func(col string) bool {
		_, ok := have[col]
		return ok || strings.Contains(col, ".") && anyRowHas(rows, col)
	}
	find := func(flag, given string, names ...string) (string, error) {
		if given != "" {
			if !has(given) {
				return "", fmt.Errorf("no column %q (--%s) in the header%s", given, flag, rowsHint(rows, given))
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
		return "", fmt.Errorf("no %s column in the header (looked for %s; name it with --%s)%s", flag[:3], strings.Join(names, ", "), flag, rowsHint(rows, names...))
	}
	var err error
	if spec.wkt != "" {
		if !has(spec.wkt) {
			return spec, fmt.Errorf("no column %q (--wkt-col) in the header%s", spec.wkt, rowsHint(rows, spec.wkt))
		}
	} else {
		if spec.lat, err = find("lat-col", spec.lat, "lat", "latitude"); err != nil {
			return spec, withWKTHint(err, rows)
		}
		if spec.lon, err = find("lon-col", spec.lon, "lon", "lng", "longitude", "long"); err != nil {
			return spec, withWKTHint(err, rows)
		}
	}
	if !c.IsSet("id-col") && !has(spec.id) {
		// The default id column, in any case, as the latitude and
		// longitude are found: ID, Id. The first in byte order, should
		// a header have two.
		for _, h := range slices.Sorted(maps.Keys(have)) {
			if strings.EqualFold(h, spec.id) {
				spec.id = h
				break
			}
		}
	}
	if !has(spec.id) {
		return spec, fmt.Errorf("no id column %q in the header (name it with --id-col)%s", spec.id, rowsHint(rows, spec.id))
	}
	for _, sc := range spec.scope {
		if !has(sc) {
			return spec, fmt.Errorf("no scope column %q in the header%s", sc, rowsHint(rows, sc))
		}
	}
	if spec.expires != "" && !has(spec.expires) {
		return spec, fmt.Errorf("no expiry column %q (--expires-col) in the header%s", spec.expires, rowsHint(rows, spec.expires))
	}
	for _, col := range spec.keep {
		_, ok := have[col]
		inExport := slices.ContainsFunc(rows, func(r row) bool { // an export's "payload" object's field
			inner, isObject := r.values["payload"].(map[string]any)
			_, has := inner[col]
			return isObject && has
		})
		if !ok && !inExport {
			return spec, fmt.Errorf("no payload column %q (--payload-cols) in the header%s", col, rowsHint(rows, col))
		}
	}
	return spec, nil
}

// point turns a row into a point, checking everything Put would.
func (s columnSpec) point(r row) (geo.Point, error) {
	if r.bad != nil {
		return geo.Point{}, r.bad
	}
	p := geo.Point{ID: r.get(s.id)}
	if s.geojson {
		switch {
		case r.point == nil && r.geometry != "":
			return p, fmt.Errorf("the feature's geometry is a %s, not a Point (fence import reads areas and lines)", r.geometry)
		case r.point == nil:
			return p, errors.New("the feature has no geometry, where geo import wants a Point")
		}
		p.Lon, p.Lat = r.point[0], r.point[1]
		if r.id != "" {
			p.ID = r.id
		}
	} else if s.wkt == "" {
		for _, c := range []struct {
			col, what string
			to        *float64
		}{{s.lat, "latitude", &p.Lat}, {s.lon, "longitude", &p.Lon}} {
			v, ok := r.field(c.col)
			if !ok { // an NDJSON object or XML element without it
				return p, fmt.Errorf("no %s: the row has no %s", c.what, c.col)
			}
			var err error
			if *c.to, err = number(v, c.what); err != nil {
				return p, err
			}
		}
	}
	if p.ID == "" {
		return p, fmt.Errorf("empty id (column %q)", s.id)
	}
	if s.wkt != "" && !s.regions {
		g, err := wktField(r, s.wkt)
		if err != nil {
			return p, err
		}
		pt, ok := g.(orb.Point)
		if !ok {
			return p, fmt.Errorf("column %q holds a %s, not a POINT", s.wkt, wktName(g))
		}
		p.Lon, p.Lat = pt[0], pt[1]
	}
	switch {
	case p.Lat < -90 || p.Lat > 90:
		return p, fmt.Errorf("latitude %v out of range [-90, 90]", p.Lat)
	case p.Lon < -180 || p.Lon > 180:
		return p, fmt.Errorf("longitude %v out of range [-180, 180]", p.Lon)
	}
	if v := strings.TrimSpace(r.get(s.expires)); s.expires != "" && v != "" {
		t, err := parseExpiry(v, fmt.Sprintf(" (column %q)", s.expires))
		if err != nil {
			return p, err
		}
		p.Expires = t
	}
	skip := map[string]bool{s.id: true}
	for _, col := range []string{s.lat, s.lon, s.wkt} {
		if col != "" { // lat and lon, or wkt
			skip[col] = true
		}
	}
	for _, col := range s.also {
		skip[col] = true
	}
	if s.expires != "" {
		skip[s.expires] = true
	}
	for _, sc := range s.scope {
		skip[sc] = true
		if _, ok := r.field(sc); !ok && (r.values != nil || r.feature) {
			continue // an NDJSON object or a feature without it: no part (an export's unscoped point)
		}
		if parts, ok := stringArray(r.values[sc]); ok { // an export's scope of several parts
			for _, part := range parts {
				p.Scope = append(p.Scope, part)
			}
			continue
		}
		p.Scope = append(p.Scope, r.get(sc))
	}
	if _, err := composite.Tuple(p.Scope).TryPack(); err != nil {
		return p, fmt.Errorf("scope: %w", err)
	}
	payload := map[string]any{}
	// An NDJSON object's "payload" object is the payload itself, as geo
	// scan --output ndjson (and every query's NDJSON) writes it, so that
	// an export imports back as it was; the object's other fields go
	// beside its fields.
	if inner, ok := r.values["payload"].(map[string]any); ok && !r.feature && !skip["payload"] {
		maps.Copy(payload, inner)
		skip["payload"] = true
	}
	for k := range r.names() {
		if skip[k] {
			continue
		}
		payload[k] = r.value(k, s.typed)
	}
	if s.keep != nil {
		maps.DeleteFunc(payload, func(k string, _ any) bool { return !slices.Contains(s.keep, k) })
	}
	if len(payload) > 0 {
		p.Payload, _ = marshal(payload)
	}
	// A "payload" that is not an object, and nothing beside it, is how an
	// export writes a payload that is not a JSON object: text as a JSON
	// string, other JSON as itself. It comes back as it was.
	if raw, ok := r.values["payload"]; ok && !r.feature && !skip["payload"] && len(payload) == 1 {
		if text, isText := raw.(string); isText {
			p.Payload = []byte(text)
		} else {
			p.Payload, _ = marshal(raw)
		}
	}
	return p, nil
}

// wktField reads the WKT geometry in a row's column col (readWKT): a
// bad row when it has none or it does not read.
func wktField(r row, col string) (orb.Geometry, error) {
	text, ok := r.field(col)
	if !ok || strings.TrimSpace(text) == "" {
		return nil, fmt.Errorf("no geometry: the row's %s is empty", col)
	}
	return readWKT([]byte(text), fmt.Sprintf("WKT %.40q (column %q)", text, col))
}

// wktName is a geometry's WKT keyword: POINT, MULTIPOLYGON.
func wktName(g orb.Geometry) string { return strings.ToUpper(g.GeoJSONType()) }

// wktColumnNames are the names a column of WKT geometries goes by in
// exports (PostGIS's and QGIS's), which an import without latitude and
// longitude columns points to.
var wktColumnNames = []string{"wkt", "geom", "the_geom", "geometry", "wkt_geom", "shape"}

// withWKTHint adds to err, an import's missing latitude or longitude
// column, that a column of the rows has the name of a WKT column, and
// --wkt-col reads it.
func withWKTHint(err error, rows []row) error {
	for _, col := range rowColumns(rows) {
		if slices.ContainsFunc(wktColumnNames, func(n string) bool { return strings.EqualFold(n, col) }) {
			return fmt.Errorf("%w; a column %q of WKT (POINT(lon lat)) is read with --wkt-col %s", err, col, col)
		}
	}
	return err
}

// typedFlag is --typed, for CSV imports.
func typedFlag() ucli.Flag {
	return &ucli.BoolFlag{Name: "typed", Usage: "store a CSV's values that read as JSON numbers (without a leading zero: ZIP code 02134 stays text) or as true or false as numbers and booleans, not text"}
}

// jsonNumber is the JSON grammar's number: no leading zeros, no NaN,
// no Inf, no hexadecimal.
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// csvValue is a CSV value as --typed stores it: a JSON number as a number
// (its digits as written), true and false as booleans, anything else as
// the text it is.
func csvValue(v string) any {
	switch {
	case v == "true":
		return true
	case v == "false":
		return false
	case jsonNumber.MatchString(v):
		if f, err := strconv.ParseFloat(v, 64); err == nil && !math.IsInf(f, 0) {
			return json.Number(v)
		}
	}
	return v
}

// stringArray is v as strings, if v is a JSON array of one or more
// strings (and nothing else).
func stringArray(v any) ([]string, bool) {
	items, ok := v.([]any)
	if !ok || len(items) == 0 {
		return nil, false
	}
	out := make([]string, len(items))
	for i, item := range items {
		if out[i], ok = item.(string); !ok {
			return nil, false
		}
	}
	return out, true
}

// parseExpiry reads an expiry written as RFC 3339 (as exports write it,
// to the nanosecond); where says which column or field, for the error.
func parseExpiry(v, where string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return t, fmt.Errorf("expiry %q%s is not an RFC 3339 time such as 2030-01-02T15:04:05Z", v, where)
	}
	if t.Unix() <= 0 || t.After(time.Unix(0, math.MaxInt64)) {
		return t, fmt.Errorf("expiry %q%s is out of range: after 1970 and before 2262", v, where)
	}
	return t, nil
}

// number reads a coordinate; what names it for the error.
func number(s, what string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || v != v {
		if dotted := strings.Replace(strings.TrimSpace(s), ",", ".", 1); decimalComma.MatchString(s) {
			// 52,52 from a spreadsheet in a locale that writes a comma
			// for the point (its CSV separated by semicolons).
			return 0, fmt.Errorf("%s %q is not a number: write a point for the decimal comma, %s", what, s, dotted)
		}
		return 0, fmt.Errorf("%s %q is not a number", what, s)
	}
	return v, nil
}

// decimalComma matches a number written with a decimal comma: 52,52.
var decimalComma = regexp.MustCompile(`^\s*[+-]?[0-9]+,[0-9]+\s*$`)
