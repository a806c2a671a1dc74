package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/keyspacedb/keyspace/geo"
	"github.com/paulmach/orb"
)

// GPX for --line: a GPS device's track or a route planner's route, as
// the lines geo along, geo knn --line, fence along and fence put --line
// take. Each segment of each track (trk, trkseg, trkpt) and each route
// (rte, rtept) is a line, in the file's order; one line is a LineString,
// more a MultiLineString. Waypoints (wpt) are no line and are left out.
// fence import reads a GPX file as corridors, a fence for each track and
// each route, named by its name, and circles round its waypoints. An
// import of rows (geo import, fence
// containing FILE, table import) reads its waypoints instead, a row each
// (readGPX).
// encoding/xml reads the file: GPX 1.0 and 1.1 name the same elements,
// and their namespaces do not matter to a match by local name.

// gpxFile is the part of a GPX document --line and fence import read.
type gpxFile struct {
	XMLName xml.Name `xml:"gpx"`
	Tracks  []struct {
		Name     string `xml:"name"`
		Segments []struct {
			Points []gpxPoint `xml:"trkpt"`
		} `xml:"trkseg"`
	} `xml:"trk"`
	Routes []struct {
		Name   string     `xml:"name"`
		Points []gpxPoint `xml:"rtept"`
	} `xml:"rte"`
	Waypoints []gpxWaypoint `xml:"wpt"`
}

// gpxWaypoint is a wpt as fence import reads it: a point, its name, and
// the values its fence's payload keeps.
type gpxWaypoint struct {
	gpxPoint
	Name string `xml:"name"`
	Ele  string `xml:"ele"`
	Desc string `xml:"desc"`
	Cmt  string `xml:"cmt"`
	Sym  string `xml:"sym"`
	Type string `xml:"type"`
}

// gpxPath is one track or route of a GPX document: its name, where it
// is (for errors), and its lines.
type gpxPath struct {
	name, where string
	lines       orb.MultiLineString
}

// gpxPoint is a trkpt or rtept: its lat and lon attributes, kept as text
// so that a missing one is an error, not 0.
type gpxPoint struct {
	Lat string `xml:"lat,attr"`
	Lon string `xml:"lon,attr"`
}

// isXML reports whether b begins, past any spaces, with '<': not
// GeoJSON, which begins with '{'.
func isXML(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '<'
}

// gpxLines reads the lines of the GPX document b (from names where it
// came from, for errors): a LineString for one, a MultiLineString for
// more. A document with no track or route, or a point whose lat or lon
// is missing or not a number, is an error naming it.
func gpxLines(b []byte, from string) (orb.Geometry, error) {
	paths, err := gpxPaths(b, from)
	if err != nil {
		return nil, err
	}
	var lines orb.MultiLineString
	for _, p := range paths {
		lines = append(lines, p.lines...)
	}
	return oneOrMany(lines), nil
}

// oneOrMany is lines as a LineString when there is one.
func oneOrMany(lines orb.MultiLineString) orb.Geometry {
	if len(lines) == 1 {
		return lines[0]
	}
	return lines
}

// gpxPaths reads the tracks (each segment a line) and routes of the GPX
// document b, in order, as gpxLines describes.
func gpxPaths(b []byte, from string) ([]gpxPath, error) {
	doc, err := parseGPX(b, from)
	if err != nil {
		return nil, err
	}
	paths, err := doc.paths(from)
	if err == nil && len(paths) == 0 {
		err = fmt.Errorf("%s: a GPX document with no track segment or route", from)
	}
	return paths, err
}

// parseGPX reads the GPX document b (from names where it came from).
func parseGPX(b []byte, from string) (*gpxFile, error) {
	var doc gpxFile
	if err := xml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: not GPX: %w", from, err)
	}
	return &doc, nil
}

// at is the point's position, or what is wrong with it: no lat or lon,
// or not a number.
func (p gpxPoint) at() (orb.Point, error) {
	for _, a := range [][2]string{{"lat", p.Lat}, {"lon", p.Lon}} {
		if a[1] == "" {
			return orb.Point{}, fmt.Errorf("no %s", a[0])
		}
	}
	lat, err := strconv.ParseFloat(p.Lat, 64)
	if err != nil {
		return orb.Point{}, fmt.Errorf("lat %q is not a number", p.Lat)
	}
	lon, err := strconv.ParseFloat(p.Lon, 64)
	if err != nil {
		return orb.Point{}, fmt.Errorf("lon %q is not a number", p.Lon)
	}
	return orb.Point{lon, lat}, nil
}

// paths is the document's tracks and routes, in order, none when it has
// none.
func (doc *gpxFile) paths(from string) ([]gpxPath, error) {
	line := func(where string, pts []gpxPoint) (orb.LineString, error) {
		line := make(orb.LineString, len(pts))
		for i, p := range pts {
			var err error
			if line[i], err = p.at(); err != nil {
				return nil, fmt.Errorf("%s: %s point %d: %w", from, where, i+1, err)
			}
		}
		return line, nil
	}
	var paths []gpxPath
	for t, trk := range doc.Tracks {
		p := gpxPath{name: strings.TrimSpace(trk.Name), where: fmt.Sprintf("track %d", t+1)}
		for s, seg := range trk.Segments {
			l, err := line(fmt.Sprintf("track %d segment %d", t+1, s+1), seg.Points)
			if err != nil {
				return nil, err
			}
			p.lines = append(p.lines, l)
		}
		if len(p.lines) > 0 {
			paths = append(paths, p)
		}
	}
	for r, rte := range doc.Routes {
		where := fmt.Sprintf("route %d", r+1)
		l, err := line(where, rte.Points)
		if err != nil {
			return nil, err
		}
		paths = append(paths, gpxPath{name: strings.TrimSpace(rte.Name), where: where, lines: orb.MultiLineString{l}})
	}
	return paths, nil
}

// isGPX reports whether the XML in in (not consumed) has a gpx root
// element, from its first 64 KB.
func isGPX(in *bufio.Reader) bool {
	head, _ := in.Peek(64 << 10)
	dec := xml.NewDecoder(bytes.NewReader(head))
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if se, ok := tok.(xml.StartElement); ok {
			return se.Name.Local == "gpx"
		}
	}
}

// gpxFences reads a GPX document as fences of radius metres (fence
// import): its tracks and routes as corridors, a track of several
// segments a MultiLineString, and its waypoints as circles, whose
// payload is their elevation, description, comment, symbol and type
// (those they have). Each is named by its name, which it must have. A
// document with none of them is an error. A track, route or waypoint
// that makes no fence (no name, or a position or width Validate
// refuses) is a bad row of bad, which stops the import or, with
// --skip-bad, is left out; a point of a track or route that is no
// position stops it.
func gpxFences(b []byte, from string, radius float64, bad *badRows) ([]geo.Fence, error) {
	doc, err := parseGPX(b, from)
	if err != nil {
		return nil, err
	}
	paths, err := doc.paths(from)
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 && len(doc.Waypoints) == 0 {
		return nil, fmt.Errorf("%s: a GPX document with no track segment, route or waypoint", from)
	}
	var fences []geo.Fence
	add := func(f geo.Fence, where string) error {
		var err error
		if f.ID == "" {
			err = errors.New("no name, which a fence needs as its id")
		} else {
			err = f.Validate() // which names the fence
		}
		if err != nil {
			return bad.add(where, err)
		}
		fences = append(fences, f)
		return nil
	}
	for _, p := range paths {
		if err := add(geo.Fence{ID: p.name, Corridor: &geo.Corridor{Line: oneOrMany(p.lines), Radius: radius}}, p.where); err != nil {
			return nil, err
		}
	}
	for i, w := range doc.Waypoints {
		where := fmt.Sprintf("waypoint %d", i+1)
		at, err := w.at()
		if err != nil {
			if err := bad.add(where, err); err != nil {
				return nil, err
			}
			continue
		}
		f := geo.Fence{ID: strings.TrimSpace(w.Name), Circle: &geo.Circle{Lat: at.Lat(), Lon: at.Lon(), Radius: radius}}
		payload := map[string]string{}
		for k, v := range map[string]string{"ele": w.Ele, "desc": w.Desc, "cmt": w.Cmt, "sym": w.Sym, "type": w.Type} {
			if v = strings.TrimSpace(v); v != "" {
				payload[k] = v
			}
		}
		if len(payload) > 0 {
			f.Payload, _ = json.Marshal(payload) // strings: no error
		}
		if err := add(f, where); err != nil {
			return nil, err
		}
	}
	return fences, nil
}

// gpxKind is what a row read from a GPX document is.
type gpxKind uint8

const (
	notGPX     gpxKind = iota
	waypoint           // a wpt: a place, named by its name
	trackPoint         // a trkpt: a move of its track's point (geo import --moves)
)

// kindTag is the element a GPX row of kind k was read from.
func kindTag(k gpxKind) string {
	if k == trackPoint {
		return "trkpt"
	}
	return "wpt"
}

// idField is the field that names a GPX row's point unless --id-col
// says: a waypoint's name, a track point's track.
func (k gpxKind) idField() string {
	if k == trackPoint {
		return "track"
	}
	return "name"
}

// readGPX reads the waypoints and track points of a GPX document, whose
// gpx root element d has just read, as rows (readXML's, for an import):
// a wpt or trkpt element a row, its lat and lon attributes and the text
// of each of its child elements its fields (name, ele, time, desc, sym,
// …), its first link's href its "link" field; its extensions are left
// out, and so are the document's routes and metadata. A track point's
// "track" field is its track's name ("track N" for the Nth track when it
// has none). An import takes the waypoints, or with geo import --moves
// the track points (gpxRows). A row is named by the line its start tag
// ends on; a child given twice (but a link, of which GPX allows many),
// or one holding elements other than a link's, is a bad row.
func readGPX(ctx context.Context, d *xml.Decoder) ([]row, error) {
	var rows []row
	tracks := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return nil, errors.New("not a GPX document: its gpx element is not closed (nothing imported)")
		}
		if err != nil {
			return nil, xmlError(d, err)
		}
		line, _ := d.InputPos()
		switch t := tok.(type) {
		case xml.EndElement: // the gpx element's
			return rows, nil
		case xml.StartElement:
			switch t.Name.Local {
			case "wpt":
				r, err := readGPXPoint(ctx, d, t, line, waypoint, len(rows))
				if err != nil {
					return nil, err
				}
				rows = append(rows, r)
			case "trk":
				tracks++
				if rows, err = readTrack(ctx, d, rows, tracks); err != nil {
					return nil, err
				}
			default: // a route, metadata
				if err := d.Skip(); err != nil {
					return nil, xmlError(d, err)
				}
			}
		}
	}
}

// readTrack reads the points of the nth trk element, which d has just
// begun, to its end, appending them to rows (readGPX).
func readTrack(ctx context.Context, d *xml.Decoder, rows []row, n int) ([]row, error) {
	name := "" // its last <name>'s
	from := len(rows)
	depth := 1 // in trk
	for depth > 0 {
		tok, err := d.Token()
		if err != nil {
			return nil, xmlError(d, err)
		}
		line, _ := d.InputPos()
		switch t := tok.(type) {
		case xml.EndElement:
			depth--
		case xml.StartElement:
			switch {
			case depth == 1 && t.Name.Local == "name":
				if err := d.DecodeElement(&name, &t); err != nil {
					return nil, xmlError(d, err)
				}
			case depth == 1 && t.Name.Local == "trkseg":
				depth++
			case depth == 2 && t.Name.Local == "trkpt":
				r, err := readGPXPoint(ctx, d, t, line, trackPoint, len(rows))
				if err != nil {
					return nil, err
				}
				rows = append(rows, r)
			default:
				if err := d.Skip(); err != nil {
					return nil, xmlError(d, err)
				}
			}
		}
	}
	if name = strings.TrimSpace(name); name == "" {
		name = fmt.Sprintf("track %d", n)
	}
	for i := from; i < len(rows); i++ {
		if _, twice := rows[i].fields["track"]; twice {
			rows[i].markBad(errors.New("the track point has a <track> element, which would hide its track's name"))
		}
		rows[i].fields["track"] = name
	}
	return rows, nil
}

// readGPXPoint reads the wpt or trkpt element start, which d has just
// begun on line, as a row of kind; read is how many rows came before.
func readGPXPoint(ctx context.Context, d *xml.Decoder, start xml.StartElement, line int, kind gpxKind, read int) (row, error) {
	if err := interrupted(ctx, read); err != nil {
		return row{}, err
	}
	r := row{line: line, gpx: kind, fields: map[string]string{}}
	for _, a := range start.Attr {
		r.fields[a.Name.Local] = a.Value
	}
	if err := readWaypoint(d, &r); err != nil {
		return row{}, xmlError(d, err)
	}
	return r, nil
}

// gpxRows is the rows of a GPX document an import takes: its track
// points for moves (geo import --moves), else its waypoints. None is an
// error that says where the others go.
func gpxRows(rows []row, moves bool) ([]row, error) {
	want := waypoint
	if moves {
		want = trackPoint
	}
	rows = slices.DeleteFunc(rows, func(r row) bool { return r.gpx != want })
	switch {
	case len(rows) > 0:
		return rows, nil
	case moves:
		return nil, errors.New("a GPX document with no track point (trkpt) for --moves: its waypoints are places, imported without it (nothing imported)")
	}
	return nil, errors.New("a GPX document with no waypoint (wpt) to import: its tracks are moves for geo import --moves, and lines for --line and fence import (nothing imported)")
}

// readWaypoint reads the children of the wpt or trkpt element d has just
// begun, to its end, into r's fields (readGPX).
func readWaypoint(d *xml.Decoder, r *row) error {
	for {
		tok, err := d.Token()
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.EndElement:
			return nil
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				r.markBad(fmt.Errorf("text inside the <%s>, outside its elements", kindTag(r.gpx)))
			}
		case xml.StartElement:
			name := t.Name.Local
			var text string
			switch name {
			case "extensions":
				if err := d.Skip(); err != nil {
					return err
				}
				continue
			case "link":
				if err := d.Skip(); err != nil { // its text and type
					return err
				}
				if _, seen := r.fields[name]; seen {
					continue // a later link
				}
				for _, a := range t.Attr {
					if a.Name.Local == "href" {
						text = a.Value
					}
				}
			default:
				var child struct {
					Text  string `xml:",chardata"`
					Inner []struct {
						XMLName xml.Name
					} `xml:",any"`
				}
				if err := d.DecodeElement(&child, &t); err != nil {
					return err
				}
				if len(child.Inner) > 0 {
					r.markBad(fmt.Errorf("<%s> holds elements, not a value", name))
				}
				text = strings.TrimSpace(child.Text)
			}
			if _, twice := r.fields[name]; twice {
				r.markBad(fmt.Errorf("the <%s> has <%s> twice", kindTag(r.gpx), name))
			}
			r.fields[name] = text
		}
	}
}
