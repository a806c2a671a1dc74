package cli

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/geo"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/encoding/wkt"
	"github.com/paulmach/orb/geojson"
	ucli "github.com/urfave/cli/v2"
)

// The geo queries on the command line: near, knn, box, within and
// along, each a queryFn that geoQuery asks and prints (a page at a time,
// with --explain, --svg and --store), and what they share: a centre, a
// sector, a polygon or line read from an argument or a file.

// centredQuery is geoQuery for a query around a centre: --lat and --lon,
// or --from, the point of an id, read in the query's own transaction
// (and whose scope the query searches unless --scope was given).
func centredQuery(c *ucli.Context, ask func(ix *geo.Index, tx keyspace.Tx, lat, lon float64, o *geo.QueryOptions) ([]geo.Result, geo.Stats, shape, error)) error {
	from := c.IsSet("from")
	switch {
	case from && (c.IsSet("lat") || c.IsSet("lon")):
		return usagef("give --lat and --lon, or --from, not both")
	case !from && (!c.IsSet("lat") || !c.IsSet("lon")):
		return usagef("give the centre: --lat and --lon, or --from ID")
	}
	return geoQuery(c, func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) ([]geo.Result, geo.Stats, shape, error) {
		lat, lon := c.Float64("lat"), c.Float64("lon")
		if from {
			p, err := getPoint(ix, tx, c.String("from"))
			if err != nil {
				return nil, geo.Stats{}, nil, err
			}
			lat, lon = p.Lat, p.Lon
			if !c.IsSet("scope") {
				o.Scope = p.Scope
			}
		}
		return ask(ix, tx, lat, lon, o)
	})
}

// sectorFlag is --sector: geo near and knn keep the points between two
// bearings from the centre.
func sectorFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "sector", Usage: "only the points at bearings from the centre between `FROM,TO` degrees, clockwise from north (Tile38's SECTOR): 300,360 is the sixth of the circle west of north, 90,270 its southern half"}
}

// sectorOf reads --sector's bearings; sector is false when it is not
// given.
func sectorOf(c *ucli.Context) (from, to float64, sector bool, err error) {
	if !c.IsSet("sector") {
		return 0, 0, false, nil
	}
	if from, to, err = parseSector(c.String("sector")); err != nil {
		return 0, 0, true, usageError{fmt.Errorf("--sector: %w", err)}
	}
	return from, to, true, nil
}

// parseSector reads --sector's two bearings, FROM,TO in degrees.
func parseSector(s string) (from, to float64, err error) {
	parts := strings.Split(s, ",")
	if len(parts) == 2 {
		from, err = strconv.ParseFloat(strings.TrimSpace(parts[0]), 64)
		if err == nil {
			to, err = strconv.ParseFloat(strings.TrimSpace(parts[1]), 64)
		}
		switch {
		case err == nil && (math.IsInf(from, 0) || math.IsInf(to, 0) || math.IsNaN(from) || math.IsNaN(to)):
		case err == nil && from == to:
			return 0, 0, fmt.Errorf("%q: the bearings are the same; a sector needs an angle between them (0,360 is the whole circle)", s)
		case err == nil:
			return from, to, nil
		}
	}
	return 0, 0, fmt.Errorf("%q: want two bearings in degrees clockwise from north, FROM,TO, such as 300,360", s)
}

// A queryFn asks a query in tx and returns what it found, and the outline
// of the region it asked about for --svg (nil for none).
type queryFn func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) ([]geo.Result, geo.Stats, shape, error)

// geoQuery opens the file read-only, checks the index exists and prints
// what fn finds (and, with --explain or --svg, how it found it).
//
// A query is paged by its --limit (knn's by --k): it asks for one result
// more than the page, which tells whether another page follows, and
// prints the next page's --cursor if so. The cursor is a geo.Cursor's
// token tied to the query's other flags (queryText), so a token is
// refused by any other query. fn finds the page size in o.Limit (one
// more than --limit or --k when positive).
func geoQuery(c *ucli.Context, fn queryFn) error {
	format, err := output(c, "table", "json", "ndjson", "geojson", "count", "ids")
	if err != nil {
		return err
	}
	fields, err := fieldsOf(c)
	if err != nil {
		return err
	}
	size, err := limitOf(c)
	if err != nil {
		return err
	}
	if c.Command.Name == "knn" {
		if size = c.Int("k"); size < 1 {
			return usagef("--k %d: want how many neighbours, 1 or more", size)
		}
	}
	anyOf := c.Bool("any")
	switch {
	case anyOf && size == 0:
		return usagef("--any wants --limit N: it stops at the first N points found (Redis's COUNT N ANY)")
	case anyOf && c.IsSet("cursor"):
		return usagef("--any does not page: its points are the first found, not the nearest, so nothing comes after them in order")
	}
	if c.String("store") != "" && c.IsSet("cursor") {
		return usagef("--store does not page: it stores every point the query finds, or the first --limit of them")
	}
	query := queryText(c)
	var after *geo.Cursor
	if token := c.String("cursor"); token != "" {
		if after, err = geo.ParseCursor(token, query); err != nil {
			return usageError{err}
		}
	}
	if dest := c.String("store"); dest != "" {
		if format != "table" && format != "json" {
			return usagef("--store prints how many points it stored: --output table or json, not %s", format)
		}
		if c.Bool("explain") || c.String("svg") != "" || c.IsSet("fields") {
			return usagef("--store prints how many points it stored, not how they were found or their fields: ask the query without it for --explain, --svg or --fields")
		}
		return storePoints(c, dest, format, func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) ([]geo.Result, error) {
			o.Limit, o.Any, o.FarthestFirst = size, anyOf, c.Bool("desc")
			rs, _, _, err := fn(ix, tx, o)
			return rs, err
		})
	}
	return viewPoints(c, func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) error {
		o.Limit, o.After, o.Any, o.FarthestFirst = size, after, anyOf, c.Bool("desc")
		if size > 0 && !anyOf {
			o.Limit++ // one past the page: is there another?
		}
		if c.Bool("explain") || c.String("svg") != "" {
			o.Explain = &geo.Explain{}
		}
		rs, st, outline, err := fn(ix, tx, o)
		if err != nil {
			return err
		}
		next := ""
		if size > 0 && len(rs) > size {
			rs = rs[:size]
			st.Results = size
			next = geo.CursorAfter(rs, after).Token(query)
		}
		if c.Bool("explain") {
			writeExplain(c.App.ErrWriter, o.Explain)
		}
		if path := c.String("svg"); path != "" {
			if err := writeSVG(path, o.Explain, outline, rs); err != nil {
				return err
			}
		}
		switch {
		case len(rs) == 0 && len(o.Scope) == 0 && after == nil:
			hintScopes(c, ix, tx)
		case len(rs) == 0 && after == nil:
			hintScope(c, ix, tx, o.Scope)
		}
		return writeResults(c.App.Writer, c.App.ErrWriter, format, projectResults(rs, fields), st, resultColumns{distance: true}, next)
	})
}

// viewPoints runs fn in a View of the database (which must exist) with
// the geo index --index names (which must hold points) and the options
// --scope, --where and --match give, checked before the file is opened.
func viewPoints(c *ucli.Context, fn func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) error) error {
	return queryPoints(c, viewDB, fn)
}

// queryPoints is viewPoints in the transaction run opens: viewDB's, or
// updateDB's for a query that writes what it finds (--store).
func queryPoints(c *ucli.Context, run func(*ucli.Context, func(keyspace.Tx) error) error, fn func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) error) error {
	scope, err := parseScope(c.String("scope"))
	if err != nil {
		return err
	}
	conds, err := parseWhere(c)
	if err != nil {
		return err
	}
	ix := geo.NewIndex(c.String("index"))
	return run(c, func(tx keyspace.Tx) error {
		if err := requireIndex(ix, tx); err != nil {
			return err
		}
		matches, _ := idMatcher(c)
		watch, filter := watchPayloads("point", conds, matches)
		if err := fn(ix, tx, &geo.QueryOptions{Scope: scope, Filter: filter}); err != nil {
			return err
		}
		if watch != nil && watch.kept == 0 {
			if note := watch.missing(); note != "" {
				addNote(c, "%s", note)
			}
		}
		return nil
	})
}

// storeFlag is a region or k-nearest query's --store, Redis's
// GEOSEARCHSTORE.
func storeFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "store", Usage: "write the points found (or the first --limit) into the geo index `NAME`, replacing what it held, in one transaction, and print how many (Redis's GEOSEARCHSTORE); each keeps its id, position, scope, payload and expiry"}
}

// storePoints runs a query's find in a write transaction and makes its
// points the whole of the geo index dest (which may be the index
// queried), as Redis's GEOSEARCHSTORE replaces its destination: the
// query and the write see the same snapshot and commit together, or
// neither does.
func storePoints(c *ucli.Context, dest, format string, find func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) ([]geo.Result, error)) error {
	var stored, replaced int
	err := queryPoints(c, updateDB, func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) error {
		rs, err := find(ix, tx, o)
		if err != nil {
			return err
		}
		// Results share no memory with the transaction (geo copies
		// their ids and payloads out of it), so the writes below
		// cannot change them.
		points := make([]geo.Point, len(rs))
		for i, r := range rs {
			points[i] = r.Point
		}
		to := geo.NewIndex(dest)
		if replaced, err = to.Drop(tx); err != nil {
			return err
		}
		stored = len(points)
		return to.PutAll(tx, points)
	})
	if err != nil {
		return err
	}
	if format == "json" {
		return writeJSON(c.App.Writer, struct {
			Stored   int    `json:"stored"`
			Index    string `json:"index"`
			Replaced int    `json:"replaced"`
		}{stored, dest, replaced})
	}
	held := ""
	if replaced > 0 {
		held = fmt.Sprintf(" (replacing %s)", count(replaced, "point"))
	}
	_, err = fmt.Fprintf(c.App.Writer, "stored %s in geo index %s%s\n", count(stored, "point"), dest, held)
	return err
}

// anyFlag is a region query's --any, Redis's ANY.
func anyFlag() ucli.Flag {
	return &ucli.BoolFlag{Name: "any", Usage: "with --limit N, stop at the first N points found, not necessarily the nearest (Redis's ANY): is anything near?"}
}

// descFlag is a region query's --desc, Redis's DESC.
func descFlag() ucli.Flag {
	return &ucli.BoolFlag{Name: "desc", Usage: "farthest from the centre first (Redis's DESC): with --limit N, the N farthest"}
}

// pageFlag is a geo query's --cursor.
func pageFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "cursor", Usage: "the next page after a previous page's `TOKEN` (the same query's, with any --limit or --k)"}
}

// queryText names the query a cursor token belongs to: the command and
// every flag set on it but those that only shape a page or its output.
// --from names its point, not its coordinates, so a page after a moved
// point is measured from where the point is now.
func queryText(c *ucli.Context) string {
	skip := map[string]bool{"limit": true, "k": true, "cursor": true, "explain": true, "svg": true, "output": true, "quiet": true, "db": true}
	var b strings.Builder
	b.WriteString(c.Command.Name)
	for _, f := range c.Command.Flags {
		name := f.Names()[0]
		if skip[name] || !c.IsSet(name) {
			continue
		}
		var v any = c.Value(name)
		if _, ok := f.(*ucli.StringSliceFlag); ok {
			v = c.StringSlice(name)
		}
		fmt.Fprintf(&b, "\x00%s=%q", name, fmt.Sprint(v))
	}
	return b.String()
}

// hintScopes tells someone whose query under no scope found nothing when
// every point of the index is under a scope: a query searches the one
// scope it names, and a newcomer who imported with --scope-cols and
// queried without --scope would otherwise see an empty answer and no
// reason.
func hintScopes(c *ucli.Context, ix *geo.Index, tx keyspace.Tx) {
	scopes, err := ix.Scopes(tx, 4) // the first few: an index may have millions
	if err != nil || len(scopes) == 0 || scopes[0] == nil {
		return
	}
	var some []string
	for _, s := range scopes[:min(3, len(scopes))] {
		some = append(some, scopeArg(s))
	}
	if len(scopes) > len(some) {
		some = append(some, "…")
	}
	addNote(c, "every point of index %s is under a scope, and a query searches only the scope it names: pass --scope, such as %s (keyspace geo scopes --index %s lists them)",
		ix.Name(), strings.Join(some, ", "), ix.Name())
}

// hintScope tells someone whose query (or scan) under a scope found
// nothing when no point is under that scope: a scope names every column the points
// were imported under, so --scope US finds none of the points under
// US:CA, and a misspelt scope finds none at all. Whether the scope holds
// a point is one search of the whole Earth that stops at the first (a
// few seeks); the hint reads the first scopesLooked scopes, and past
// them names none.
func hintScope(c *ucli.Context, ix *geo.Index, tx keyspace.Tx, scope composite.Tuple) {
	world := geo.Box{MinLat: -90, MinLon: -180, MaxLat: 90, MaxLon: 180}
	if rs, _, err := ix.Box(tx, world, &geo.QueryOptions{Scope: scope, Limit: 1, Any: true}); err != nil || len(rs) > 0 {
		return // it holds points: none of them is in the region
	}
	scopes, err := ix.Scopes(tx, scopesLooked+1)
	if err != nil {
		return
	}
	if len(scopes) > scopesLooked {
		addNote(c, "no point of index %s is under scope %s (keyspace geo scopes --index %s lists them)", ix.Name(), scopeArg(scope), ix.Name())
		return
	}
	prefix := scope.Pack()
	var under, all []string
	for _, s := range scopes {
		if bytes.HasPrefix(s.Pack(), prefix) {
			under = append(under, scopeArg(s))
		}
		all = append(all, scopeArg(s))
	}
	if len(under) > 0 {
		some := under[:min(3, len(under))]
		if len(under) > len(some) {
			some = append(some, "…")
		}
		addNote(c, "no point of index %s is under scope %s itself, and a query searches only the scope it names, every column of it; %s begins %s: %s (keyspace geo scopes --index %s lists them)",
			ix.Name(), scopeArg(scope), scopeArg(scope), count(len(under), "scope"), strings.Join(some, ", "), ix.Name())
		return
	}
	addNote(c, "no point of index %s is under scope %s%s (keyspace geo scopes --index %s lists them)",
		ix.Name(), scopeArg(scope), didYouMean(scopeArg(scope), all), ix.Name())
}

// scopesLooked is how many of an index's scopes hintScope reads.
const scopesLooked = 10_000

func geoBox(c *ucli.Context) error {
	b, corners, err := cornerBox(c)
	centred := c.IsSet("lat") || c.IsSet("lon") || c.IsSet("from") || c.IsSet("width") || c.IsSet("height")
	switch {
	case corners && centred:
		return usagef("geo box: give either --min-lat --min-lon --max-lat --max-lon (or --tile, --quadkey or --hash) or --lat --lon (or --from) --width --height, not both")
	case err != nil:
		return err
	case corners:
		return geoQuery(c, func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) ([]geo.Result, geo.Stats, shape, error) {
			rs, st, err := ix.Box(tx, b, o)
			return rs, st, boxShape(b), err
		})
	case centred:
		for _, f := range []string{"width", "height"} {
			if !c.IsSet(f) {
				return usagef("geo box: --%s is missing", f)
			}
		}
		w, err := parseDistance(c.String("width"))
		if err != nil {
			return usageError{err}
		}
		h, err := parseDistance(c.String("height"))
		if err != nil {
			return usageError{err}
		}
		return centredQuery(c, func(ix *geo.Index, tx keyspace.Tx, lat, lon float64, o *geo.QueryOptions) ([]geo.Result, geo.Stats, shape, error) {
			rs, st, err := ix.BoxAround(tx, lat, lon, w, h, o)
			return rs, st, nil, err
		})
	}
	return usagef("geo box: give --min-lat --min-lon --max-lat --max-lon, --tile, --quadkey or --hash, or --lat --lon (or --from) --width --height")
}

// cornerBox is the box --min-lat --min-lon --max-lat --max-lon give, or
// --tile, --quadkey or --hash (areaBox), and whether any of them is
// given: all four corners, or a usage error naming the first missing
// (geo box, geo cells).
func cornerBox(c *ucli.Context) (geo.Box, bool, error) {
	given := false
	for _, f := range []string{"min-lat", "min-lon", "max-lat", "max-lon"} {
		given = given || c.IsSet(f)
	}
	area, named, err := areaBox(c)
	switch {
	case named && given:
		return geo.Box{}, true, usagef("geo %s: give a box by its corners or by --tile, --quadkey or --hash, not both", c.Command.Name)
	case named:
		return area, true, err
	case !given:
		return geo.Box{}, false, nil
	}
	for _, f := range []string{"min-lat", "min-lon", "max-lat", "max-lon"} {
		if !c.IsSet(f) {
			return geo.Box{}, true, usagef("geo %s: --%s is missing", c.Command.Name, f)
		}
	}
	return geo.Box{MinLat: c.Float64("min-lat"), MinLon: c.Float64("min-lon"), MaxLat: c.Float64("max-lat"), MaxLon: c.Float64("max-lon")}, true, nil
}

// readPolygon reads a Polygon or MultiPolygon from a GeoJSON geometry,
// Feature or FeatureCollection (of one polygon feature), or from WKT as
// PostGIS's ST_AsText writes it (POLYGON((13 52, 14 52, …)), with or
// without EWKT's SRID=4326;): from the file arg names, from standard
// input for "-", or from arg itself when it is GeoJSON (begins with '{')
// or WKT, as Tile38's WITHIN … OBJECT takes it.
// A polygon with an edge longer than 180° of longitude gets a note on
// stderr of how it was read (longEdge).
func readPolygon(c *ucli.Context, arg string) (orb.Geometry, error) {
	g, err := readGeometry(c, arg, "--polygon", "Polygon or MultiPolygon")
	if err == nil {
		noteLongEdge(c, "--polygon", g)
	}
	return g, err
}

// readGeometry reads one GeoJSON geometry as readPolygon does, for the
// flag named flag, which wants a what ("LineString or MultiLineString",
// for its errors).
func readGeometry(c *ucli.Context, arg, flag, what string) (orb.Geometry, error) {
	var b []byte
	var err error
	from := arg
	switch {
	case strings.HasPrefix(strings.TrimSpace(arg), "{"), wktStart.MatchString(arg) && !isFile(arg):
		// WKT, unless a file has the name: polygon (1).geojson.
		b, from = []byte(arg), flag
	case strings.HasPrefix(strings.TrimSpace(arg), "["):
		return nil, usagef("%s %.40q: bare coordinates; give a GeoJSON geometry, as {\"type\":\"Polygon\",\"coordinates\":[[[lon,lat],…]]}, or WKT, as POLYGON((lon lat, …))", flag, arg)
	case arg == "-":
		b, err = io.ReadAll(c.App.Reader)
		from = "standard input"
	default:
		b, err = os.ReadFile(arg)
	}
	if err != nil {
		return nil, err
	}
	if flag == "--line" && isXML(b) {
		return gpxLines(b, from) // gpx.go
	}
	if wktStart.Match(b) {
		return readWKT(b, from)
	}
	if fc, err := orbGeoJSON(geojson.UnmarshalFeatureCollection, b); err == nil {
		if len(fc.Features) != 1 {
			return nil, fmt.Errorf("%s: %d features; give one %s", from, len(fc.Features), what)
		}
		if fc.Features[0] == nil || fc.Features[0].Geometry == nil {
			return nil, fmt.Errorf("%s: a feature with no geometry; give a %s", from, what)
		}
		return fc.Features[0].Geometry, nil
	}
	if f, err := orbGeoJSON(geojson.UnmarshalFeature, b); err == nil {
		if f.Geometry == nil {
			return nil, fmt.Errorf("%s: a feature with no geometry; give a %s", from, what)
		}
		return f.Geometry, nil
	}
	g, err := orbGeoJSON(geojson.UnmarshalGeometry, b)
	if err != nil {
		return nil, fmt.Errorf("%s: not GeoJSON: %w", from, err)
	}
	return g.Geometry(), nil
}

// isFile reports whether a file (or anything) is at path.
func isFile(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// wktStart matches the start of a WKT geometry, after EWKT's SRID if
// any: SRID=4326;MULTIPOLYGON(((…))), LINESTRING(…), in any case.
var wktStart = regexp.MustCompile(`^\s*(?i:SRID=([0-9]+)\s*;\s*)?(?i:MULTI)?(?i:POLYGON|LINESTRING|POINT)\s*[(ZzMmEe]`)

// readWKT reads one WKT geometry (orb's encoding/wkt), from names where
// it came from for its errors. Its coordinates are longitude then
// latitude, as GeoJSON's: an EWKT SRID other than 4326 (WGS 84) is
// refused, not read as degrees.
func readWKT(b []byte, from string) (g orb.Geometry, err error) {
	defer func() {
		if p := recover(); p != nil { // a bad file is an error naming it, not a crash
			g, err = nil, fmt.Errorf("%s: WKT that orb, its reader, could not read: %v", from, p)
		}
	}()
	text := strings.TrimSpace(string(b))
	if m := wktStart.FindStringSubmatch(text); m != nil && m[1] != "" {
		if m[1] != "4326" {
			return nil, fmt.Errorf("%s: SRID=%s; want longitude and latitude in degrees, SRID=4326 (PostGIS: ST_AsEWKT(ST_Transform(geom, 4326)))", from, m[1])
		}
		text = text[strings.IndexByte(text, ';')+1:]
	}
	g, err = wkt.Unmarshal(text)
	if err != nil {
		return nil, fmt.Errorf("%s: not WKT that orb reads (2D: lon lat pairs, no Z or M): %w", from, err)
	}
	return g, nil
}

// ringLines returns the rings of a Polygon or MultiPolygon as lines.
func ringLines(g orb.Geometry) orb.MultiLineString {
	var out orb.MultiLineString
	switch g := g.(type) {
	case orb.Polygon:
		for _, ring := range g {
			out = append(out, orb.LineString(ring))
		}
	case orb.MultiPolygon:
		for _, p := range g {
			out = append(out, ringLines(p)...)
		}
	}
	return out
}

// polygonsOf returns the polygons of a Polygon or MultiPolygon (none for
// another geometry).
func polygonsOf(g orb.Geometry) []orb.Polygon {
	switch g := g.(type) {
	case orb.Polygon:
		return []orb.Polygon{g}
	case orb.MultiPolygon:
		return g
	}
	return nil
}

// polygonShape is a polygon's rings for the SVG.
func polygonShape(g orb.Geometry) shape {
	var out shape
	for _, p := range polygonsOf(g) {
		for _, ring := range p {
			var r [][2]float64
			for _, pt := range ring {
				r = append(r, [2]float64{pt[0], pt[1]})
			}
			out = append(out, r)
		}
	}
	return out
}

// geoAlong searches the corridor within --radius of a line given on the
// command line.
func geoAlong(c *ucli.Context) error {
	radius, err := parseDistance(c.String("radius"))
	if err != nil {
		return usageError{err}
	}
	line, err := readLine(c)
	if err != nil {
		return err
	}
	if c.Bool("in-order") {
		return alongInOrder(c, line, radius)
	}
	return geoQuery(c, func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) ([]geo.Result, geo.Stats, shape, error) {
		rs, st, err := ix.Along(tx, line, radius, o)
		return rs, st, corridorShape(line, radius), err
	})
}

// alongInOrder answers geo along --in-order: the points within radius of
// the line in the order a drive along it passes them, by where along the
// line each one's nearest point of it lies (geo.Route), ties nearest the
// line first; the first --limit of them. Every point is found before
// they are ordered, so there are no pages.
func alongInOrder(c *ucli.Context, line orb.Geometry, radius float64) error {
	format, err := output(c, "table", "json", "ndjson", "geojson", "count", "ids")
	if err != nil {
		return err
	}
	for _, f := range []string{"cursor", "any", "desc", "store"} {
		if c.IsSet(f) {
			return usagef("--in-order orders every point along the line by where it is passed: not with --%s", f)
		}
	}
	size, err := limitOf(c)
	if err != nil {
		return err
	}
	fields, err := fieldsOf(c)
	if err != nil {
		return err
	}
	route, err := geo.NewRoute(line)
	if err != nil {
		return err
	}
	return viewPoints(c, func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) error {
		if c.Bool("explain") || c.String("svg") != "" {
			o.Explain = &geo.Explain{}
		}
		rs, st, err := ix.Along(tx, line, radius, o)
		if err != nil {
			return err
		}
		along := make([]float64, len(rs))
		for i, r := range rs {
			if along[i], _, err = route.Locate(r.Lat, r.Lon); err != nil {
				return err
			}
		}
		order := make([]int, len(rs))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(along[a], along[b]) })
		if size > 0 && len(order) > size {
			order = order[:size]
		}
		sorted, at := make([]geo.Result, len(order)), make([]float64, len(order))
		for i, k := range order {
			sorted[i], at[i] = rs[k], along[k]
		}
		st.Results = len(sorted)
		if c.Bool("explain") {
			writeExplain(c.App.ErrWriter, o.Explain)
		}
		if path := c.String("svg"); path != "" {
			if err := writeSVG(path, o.Explain, corridorShape(line, radius), sorted); err != nil {
				return err
			}
		}
		return writeResults(c.App.Writer, c.App.ErrWriter, format, projectResults(sorted, fields), st, resultColumns{distance: true, along: at}, "")
	})
}

// readLine reads --line, a LineString or MultiLineString, as readPolygon
// reads --polygon, or a GPX file's tracks and routes (gpx.go).
func readLine(c *ucli.Context) (orb.Geometry, error) {
	return readGeometry(c, c.String("line"), "--line", "LineString or MultiLineString")
}

// knnNearGeometry answers geo knn --line and --polygon: the k points nearest a
// line or a polygon.
func knnNearGeometry(c *ucli.Context) error {
	what, flag := "line", "--line"
	if c.IsSet("polygon") {
		what, flag = "polygon", "--polygon"
		if c.IsSet("line") {
			return usagef("geo knn takes --line or --polygon, not both")
		}
	}
	for _, f := range []string{"lat", "lon", "from", "sector"} {
		if c.IsSet(f) {
			return usagef("geo knn %s finds the points nearest the %s, not a centre: leave out --%s", flag, what, f)
		}
	}
	if what == "polygon" {
		poly, err := readPolygon(c, c.String("polygon"))
		if err != nil {
			return err
		}
		return geoQuery(c, func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) ([]geo.Result, geo.Stats, shape, error) {
			rs, st, err := ix.NearestPolygon(tx, poly, o.Limit, o) // k, or k+1 (geoQuery)
			return rs, st, polygonShape(poly), err
		})
	}
	line, err := readLine(c)
	if err != nil {
		return err
	}
	return geoQuery(c, func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) ([]geo.Result, geo.Stats, shape, error) {
		rs, st, err := ix.NearestAlong(tx, line, o.Limit, o) // k, or k+1 (geoQuery)
		return rs, st, corridorShape(line, 0), err
	})
}

// geoWithin searches a polygon given on the command line, or a stored
// fence's region (read in the query's own transaction).
func geoWithin(c *ucli.Context) error {
	byFence := c.IsSet("fences") || c.IsSet("fence")
	switch {
	case byFence == c.IsSet("polygon"):
		return usagef("geo within wants --polygon, or --fences and --fence")
	case byFence && (!c.IsSet("fences") || !c.IsSet("fence")):
		return usagef("--fence wants --fences, and --fences wants --fence")
	}
	buffer := -1.0 // none
	if c.IsSet("buffer") {
		var err error
		if buffer, err = parseDistance(c.String("buffer")); err != nil {
			return usageError{fmt.Errorf("--buffer: %w", err)}
		}
	}
	var poly orb.Geometry
	if !byFence {
		var err error
		if poly, err = readPolygon(c, c.String("polygon")); err != nil {
			return err
		}
	}
	return geoQuery(c, func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) ([]geo.Result, geo.Stats, shape, error) {
		if byFence {
			f, err := geo.NewFences(c.String("fences")).Get(tx, c.String("fence"))
			if err != nil {
				return nil, geo.Stats{}, nil, err
			}
			if buffer < 0 {
				rs, st, err := ix.InFence(tx, f, o)
				return rs, st, fenceShape(f), err
			}
			if f.Polygon == nil {
				return nil, geo.Stats{}, nil, usagef("--buffer goes with a polygon; fence %s is not one", f.ID)
			}
			poly = f.Polygon
		}
		if buffer >= 0 {
			rs, st, err := ix.NearPolygon(tx, poly, buffer, o)
			return rs, st, append(polygonShape(poly), corridorShape(ringLines(poly), buffer)...), err
		}
		rs, st, err := ix.Within(tx, poly, o)
		return rs, st, polygonShape(poly), err
	})
}
