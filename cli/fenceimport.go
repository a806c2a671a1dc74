package cli

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/geo"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"
	ucli "github.com/urfave/cli/v2"
)

// Importing fences: a GeoJSON FeatureCollection (its form is in
// fencejson.go), rows of circles or sectors, or a GPX file's routes and
// tracks as corridors and its waypoints as circles.

// fenceImport reads a FeatureCollection, a file of rows or a GPX file and
// puts its fences with one PutAll: a bad feature, row, track, route or
// waypoint, named by its place in the file, imports nothing, or with
// --skip-bad is left out and named in the report.
func fenceImport(c *ucli.Context) error {
	if c.NArg() != 1 {
		return usagef("fence import wants one FILE (- for standard input)")
	}
	expires, err := expiresFromTTL(c)
	if err != nil {
		return err
	}
	in, err := openImport(c, importFormats)
	if err != nil {
		return err
	}
	defer in.close()
	var fences []geo.Fence
	bad := newBadRows(c, in.name)
	gpx := in.format == "xml" && isGPX(in.in)
	radius := 0.0 // --radius: lines' width
	if c.IsSet("radius") {
		if !gpx && in.format != "geojson" {
			return usagef("--radius is the width of a GPX file's tracks and routes, or of a GeoJSON file's lines; a file of rows takes --radius-col")
		}
		if radius, err = parseDistance(c.String("radius")); err != nil {
			return usageError{fmt.Errorf("--radius: %w", err)}
		}
	}
	if c.IsSet("wkt-col") && (gpx || in.format == "geojson") {
		return usagef("--wkt-col reads rows of CSV, TSV, NDJSON, JSON or XML; a GeoJSON or GPX file has its geometries")
	}
	switch {
	case gpx:
		fences, err = gpxImport(in, radius, bad)
	case in.format == "geojson":
		fences, err = featureFences(c, in, radius, bad)
	case c.IsSet("wkt-col"):
		fences, err = wktFences(c, in, bad)
	default:
		fences, err = circleFences(c, in, bad)
	}
	if err != nil {
		return err
	}
	if !expires.IsZero() {
		for i := range fences {
			fences[i].Expires = expires // --ttl, over any expires property
		}
	}
	name := c.String("fences")
	err = updateDB(c, func(tx keyspace.Tx) error { return geo.NewFences(name).PutAll(tx, fences) })
	if err != nil {
		return err
	}
	if !c.Bool("quiet") {
		var notes []string
		if note := longEdgeFences(fences); note != "" {
			notes = append(notes, note)
		}
		reportImport(c, count(len(fences), "fence"), "fence set "+name, bad.rows, notes...)
	}
	return nil
}

// gpxImport reads a GPX file's tracks and routes as corridors (gpxFences),
// radius metres either side of them, and its waypoints as circles.
func gpxImport(in *importInput, radius float64, bad *badRows) ([]geo.Fence, error) {
	b, err := io.ReadAll(in.in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.name, err)
	}
	return gpxFences(b, in.name, radius, bad)
}

// featureFences reads the fences of a GeoJSON FeatureCollection
// (featureFence); a line with no radius property is a corridor radius
// metres wide. A feature that makes no fence is a bad row of bad.
func featureFences(c *ucli.Context, in *importInput, radius float64, bad *badRows) ([]geo.Fence, error) {
	b, err := io.ReadAll(in.in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.name, err)
	}
	fc, err := orbGeoJSON(geojson.UnmarshalFeatureCollection, b)
	if err != nil {
		return nil, fmt.Errorf("%s: not a GeoJSON FeatureCollection: %w", in.name, err)
	}
	numbered, err := numberedFeatures(b, len(fc.Features))
	if err != nil {
		return nil, fmt.Errorf("%s: not a GeoJSON FeatureCollection: %w", in.name, err)
	}
	fences := make([]geo.Fence, 0, len(fc.Features))
	for i, feat := range fc.Features {
		var f geo.Fence
		err := errNullFeature
		if feat != nil {
			f, err = featureFence(feat, numbered[i], c.String("id-property"), radius)
		}
		if err == nil {
			err = f.Validate()
		}
		if err != nil {
			if err := bad.add(fmt.Sprintf("feature %d of %d", i+1, len(fc.Features)), err); err != nil {
				return nil, err
			}
			continue
		}
		fences = append(fences, f)
	}
	return fences, nil
}

// circleFences reads circles from the rows of a CSV, TSV, NDJSON, JSON or
// XML file: each row's id, centre and radius (--id-col, --lat-col,
// --lon-col, --radius-col; the radius in metres, or a distance with its
// unit, 2km), the row's other fields its payload, as geo import makes a
// point's; with --sector-cols FROM,TO, sectors of those circles between
// the bearings in those columns. A bad row is a bad row of bad: it stops
// the import, named, with nothing written, or with --skip-bad is left
// out.
func circleFences(c *ucli.Context, in *importInput, bad *badRows) ([]geo.Fence, error) {
	rows, err := in.rows(c)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, nil
	}
	spec, err := newColumnSpec(c, rows, false)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.name, err)
	}
	radius := c.String("radius-col")
	if !anyRowHas(rows, radius) {
		return nil, fmt.Errorf("%s: no row has a %s column (name the radius with --radius-col; nothing imported)%s", in.name, radius, rowsHint(rows, radius))
	}
	spec.also = []string{radius}
	var bearings []string // the sectors' FROM and TO columns
	if c.IsSet("sector-cols") {
		bearings = strings.Split(c.String("sector-cols"), ",")
		if len(bearings) != 2 || strings.TrimSpace(bearings[0]) == "" || strings.TrimSpace(bearings[1]) == "" {
			return nil, usagef("--sector-cols %q: want the two columns of a sector's bearings, FROM,TO", c.String("sector-cols"))
		}
		for i, col := range bearings {
			bearings[i] = strings.TrimSpace(col)
			if !anyRowHas(rows, bearings[i]) {
				return nil, fmt.Errorf("%s: no row has a %s column (--sector-cols; nothing imported)%s", in.name, bearings[i], rowsHint(rows, bearings[i]))
			}
		}
		spec.also = append(spec.also, bearings...)
	}
	return fencesOfRows(rows, bad, func(r row) (geo.Fence, error) {
		p, err := spec.point(r)
		var metres float64
		if err == nil {
			text, ok := r.field(radius)
			if !ok {
				err = fmt.Errorf("no radius: the row has no %s", radius)
			} else if metres, err = parseDistance(strings.TrimSpace(text)); err != nil {
				err = fmt.Errorf("radius (column %q): %w", radius, err)
			}
		}
		f := geo.Fence{ID: p.ID, Circle: &geo.Circle{Lat: p.Lat, Lon: p.Lon, Radius: metres}, Payload: p.Payload}
		if bearings != nil && err == nil {
			var b [2]float64
			for i, col := range bearings {
				text, ok := r.field(col)
				if !ok {
					err = fmt.Errorf("no bearing: the row has no %s", col)
					break
				}
				if b[i], err = strconv.ParseFloat(strings.TrimSpace(text), 64); err != nil {
					err = fmt.Errorf("bearing (column %q): %q is not a number of degrees", col, text)
					break
				}
			}
			f.Circle, f.Sector = nil, &geo.Sector{Lat: p.Lat, Lon: p.Lon, Radius: metres, From: b[0], To: b[1]}
		}
		return f, err
	})
}

// fencesOfRows makes a fence of each row with fenceOf, checked by
// Validate: a row it fails on, or whose fence is not valid, is a bad row
// of bad, which stops the import, or with --skip-bad is left out.
func fencesOfRows(rows []row, bad *badRows, fenceOf func(r row) (geo.Fence, error)) ([]geo.Fence, error) {
	fences := make([]geo.Fence, 0, len(rows))
	for _, r := range rows {
		f, err := fenceOf(r)
		if err == nil {
			err = f.Validate()
		}
		if err != nil {
			if err := bad.add(r.where(), err); err != nil {
				return nil, err
			}
			continue
		}
		fences = append(fences, f)
	}
	return fences, nil
}

// wktFences reads fences from rows whose column --wkt-col holds each
// one's region in WKT, as PostGIS exports them (COPY (SELECT id, name,
// ST_AsText(geom) AS wkt FROM zones) TO … CSV HEADER): a POLYGON or
// MULTIPOLYGON is a polygon fence; a LINESTRING or MULTILINESTRING a
// corridor as wide either side as the row's --radius-col (none, or an
// empty one: the line itself, a road); a POINT a circle of that radius,
// which it must have. A polygon's row with a radius is a bad row, not a
// radius dropped. The other columns are the payload, as for circles.
func wktFences(c *ucli.Context, in *importInput, bad *badRows) ([]geo.Fence, error) {
	if c.IsSet("sector-cols") {
		return nil, usagef("--sector-cols makes sectors of rows' centres and radii (--lat-col, --lon-col, --radius-col); a --wkt-col row has its whole region")
	}
	rows, err := in.rows(c)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	spec, err := newColumnSpec(c, rows, false)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.name, err)
	}
	spec.regions = true
	radius := c.String("radius-col")
	spec.also = []string{radius}
	return fencesOfRows(rows, bad, func(r row) (geo.Fence, error) {
		p, err := spec.point(r)
		var g orb.Geometry
		if err == nil {
			g, err = wktField(r, spec.wkt)
		}
		metres, given := 0.0, ""
		if text, ok := r.field(radius); ok && strings.TrimSpace(text) != "" && err == nil {
			given = strings.TrimSpace(text)
			if metres, err = parseDistance(strings.TrimSpace(text)); err != nil {
				err = fmt.Errorf("radius (column %q): %w", radius, err)
			}
		}
		f := geo.Fence{ID: p.ID, Payload: p.Payload}
		if err == nil {
			switch g := g.(type) {
			case orb.Polygon, orb.MultiPolygon:
				f.Polygon = g
				if given != "" {
					err = fmt.Errorf("a %s takes no radius, and the row's %s is %s", wktName(g), radius, given)
				}
			case orb.LineString, orb.MultiLineString:
				f.Corridor = &geo.Corridor{Line: g, Radius: metres}
			case orb.Point:
				f.Circle = &geo.Circle{Lat: g[1], Lon: g[0], Radius: metres}
				if given == "" {
					err = fmt.Errorf("a POINT is a circle, which needs a radius, and the row has no %s", radius)
				}
			default:
				err = fmt.Errorf("column %q holds a %s, which is no fence: want a POLYGON, MULTIPOLYGON, LINESTRING, MULTILINESTRING or POINT", spec.wkt, wktName(g))
			}
		}
		return f, err
	})
}

// featureFence is the fence a GeoJSON feature describes (in the form
// fencejson.go writes); a line with no radius property is a corridor radius metres
// wide. numbered is its id and properties with their numbers as written,
// which its id and payload are taken from.
func featureFence(feat *geojson.Feature, numbered numberedFeature, idProperty string, radius float64) (f geo.Fence, err error) {
	id := numbered.ID
	if idProperty != "" {
		id = numbered.Properties[idProperty]
	}
	f.ID = jsonField(id) // a number as written: 1142170, not 1.14217e+06
	if f.ID == "" {
		if idProperty != "" {
			return f, fmt.Errorf("no %q property to take its id from", idProperty)
		}
		return f, errors.New("no id (give features an id, or name a property with --id-property)")
	}
	if feat.Geometry == nil {
		return f, fmt.Errorf("fence %q has no geometry", f.ID)
	}
	// The properties are the payload, less those that say the region.
	props := map[string]any{}
	for k, v := range numbered.Properties {
		props[k] = v
	}
	defer func() {
		if s, ok := props["payload"].(string); ok && len(props) == 1 {
			f.Payload = []byte(s) // a payload that is not a JSON object, as fenceFeature writes it
		} else if len(props) > 0 {
			f.Payload, _ = marshal(props)
		}
	}()
	if e, ok := feat.Properties["expires"]; ok {
		s, _ := e.(string)
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			b, _ := marshal(e)
			return f, fmt.Errorf("fence %q: expires property %s: want an RFC 3339 time, as fence get writes it", f.ID, b)
		}
		delete(props, "expires")
		f.Expires = t
	}
	if kind, _ := feat.Properties["fence"].(string); kind == "sector" {
		return sectorFeature(f, feat, props)
	}
	if kind, _ := feat.Properties["fence"].(string); kind == "box" {
		delete(props, "fence")
		if len(feat.BBox) != 4 {
			return f, fmt.Errorf("box %q wants a bbox of [west, south, east, north], has %v", f.ID, []float64(feat.BBox))
		}
		bb := feat.BBox
		f.Box = &geo.Box{MinLon: bb[0], MinLat: bb[1], MaxLon: bb[2], MaxLat: bb[3]}
		return f, nil
	}
	switch g := feat.Geometry.(type) {
	case orb.Point:
		r, ok := feat.Properties["radius"].(float64)
		if !ok {
			return f, fmt.Errorf("point %q wants a radius property in metres to be a circle", f.ID)
		}
		delete(props, "radius")
		f.Circle = &geo.Circle{Lat: g.Lat(), Lon: g.Lon(), Radius: r}
	case orb.Polygon, orb.MultiPolygon:
		f.Polygon = g
	case orb.LineString, orb.MultiLineString:
		f.Corridor = &geo.Corridor{Line: g, Radius: radius}
		if v, set := feat.Properties["radius"]; set {
			r, ok := v.(float64)
			if !ok {
				b, _ := marshal(v)
				return f, fmt.Errorf("corridor %q: radius property %s: want a number of metres", f.ID, b)
			}
			f.Corridor.Radius = r
			delete(props, "radius")
		}
	default:
		return f, fmt.Errorf("fence %q is a %s; give a Polygon, a MultiPolygon, a LineString or a Point with a radius", f.ID, feat.Geometry.GeoJSONType())
	}
	return f, nil
}

// sectorFeature reads a sector as fenceGeometry writes it: a Point, its
// apex, with the properties fence "sector", from and to (degrees) and
// radius (metres; none for the bearings alone). Those properties are
// taken out of props, the payload.
func sectorFeature(f geo.Fence, feat *geojson.Feature, props map[string]any) (geo.Fence, error) {
	apex, ok := feat.Geometry.(orb.Point)
	if !ok {
		return f, fmt.Errorf("sector %q wants a Point, its apex; has a %s", f.ID, feat.Geometry.GeoJSONType())
	}
	s := geo.Sector{Lat: apex.Lat(), Lon: apex.Lon(), Radius: math.Inf(1)}
	for _, p := range []struct {
		name string
		to   *float64
		need bool
	}{{"from", &s.From, true}, {"to", &s.To, true}, {"radius", &s.Radius, false}} {
		v, set := feat.Properties[p.name]
		n, isNumber := v.(float64)
		switch {
		case set && !isNumber:
			b, _ := marshal(v)
			return f, fmt.Errorf("sector %q: %s property %s: want a number", f.ID, p.name, b)
		case set:
			*p.to = n
		case p.need:
			return f, fmt.Errorf("sector %q wants a %s property: a bearing in degrees", f.ID, p.name)
		}
		delete(props, p.name)
	}
	delete(props, "fence")
	f.Sector = &s
	return f, nil
}
