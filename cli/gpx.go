package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
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
// each route, named by its name. An import of rows (geo import, fence
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
	var doc gpxFile
	if err := xml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: not GPX: %w", from, err)
	}
	line := func(where string, pts []gpxPoint) (orb.LineString, error) {
		line := make(orb.LineString, len(pts))
		for i, p := range pts {
			for _, a := range [][2]string{{"lat", p.Lat}, {"lon", p.Lon}} {
				if a[1] == "" {
					return nil, fmt.Errorf("%s: %s point %d has no %s", from, where, i+1, a[0])
				}
			}
			lat, err := strconv.ParseFloat(p.Lat, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: %s point %d: lat %q is not a number", from, where, i+1, p.Lat)
			}
			lon, err := strconv.ParseFloat(p.Lon, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: %s point %d: lon %q is not a number", from, where, i+1, p.Lon)
			}
			line[i] = orb.Point{lon, lat}
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
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s: a GPX document with no track segment or route", from)
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

// gpxFences reads the tracks and routes of a GPX document as corridor
// fences of radius metres (fence import): each named by its name, which
// it must have; a track of several segments is a MultiLineString.
func gpxFences(b []byte, from string, radius float64) ([]geo.Fence, error) {
	paths, err := gpxPaths(b, from)
	if err != nil {
		return nil, err
	}
	fences := make([]geo.Fence, len(paths))
	for i, p := range paths {
		if p.name == "" {
			return nil, fmt.Errorf("%s: %s has no name, which a fence needs as its id", from, p.where)
		}
		fences[i] = geo.Fence{ID: p.name, Corridor: &geo.Corridor{Line: oneOrMany(p.lines), Radius: radius}}
		if err := fences[i].Validate(); err != nil {
			return nil, fmt.Errorf("%s: %s (%s): %w", from, p.where, p.name, err)
		}
	}
	return fences, nil
}

// readGPX reads the waypoints of a GPX document, whose gpx root element
// d has just read, as rows (readXML's, for an import of points): a wpt
// element a row, its lat and lon attributes and the text of each of its
// child elements its fields (name, ele, time, desc, sym, …), a link's
// href its "link" field; its extensions, and the document's tracks,
// routes and metadata, are left out. A waypoint's name is its id unless
// --id-col names another field (row.gpx). A row is named by the line its
// start tag ends on; a child given twice, or one holding elements other
// than a link's, is a bad row. A document with no waypoint is an error
// that says where its tracks and routes go.
func readGPX(ctx context.Context, d *xml.Decoder) ([]row, error) {
	var rows []row
	bad := func(r *row, err error) {
		if r.bad == nil {
			r.bad = err
		}
	}
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
			if len(rows) == 0 {
				return nil, errors.New("a GPX document with no waypoint (wpt) to import: its tracks and routes are lines, for --line and fence import (nothing imported)")
			}
			return rows, nil
		case xml.StartElement:
			if t.Name.Local != "wpt" {
				if err := d.Skip(); err != nil { // a track, a route, metadata
					return nil, xmlError(d, err)
				}
				continue
			}
			if err := interrupted(ctx, len(rows)); err != nil {
				return nil, err
			}
			r := row{line: line, gpx: true, fields: map[string]string{}}
			for _, a := range t.Attr {
				r.fields[a.Name.Local] = a.Value
			}
			if err := readWaypoint(d, &r, bad); err != nil {
				return nil, xmlError(d, err)
			}
			rows = append(rows, r)
		}
	}
}

// readWaypoint reads the children of the wpt element d has just begun,
// to its end, into r's fields (readGPX).
func readWaypoint(d *xml.Decoder, r *row, bad func(*row, error)) error {
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
				bad(r, fmt.Errorf("text inside the waypoint, outside its elements"))
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
				for _, a := range t.Attr {
					if a.Name.Local == "href" {
						text = a.Value
					}
				}
				if err := d.Skip(); err != nil { // its text and type
					return err
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
					bad(r, fmt.Errorf("<%s> holds elements, not a value", name))
				}
				text = strings.TrimSpace(child.Text)
			}
			if _, twice := r.fields[name]; twice {
				bad(r, fmt.Errorf("the waypoint has <%s> twice", name))
			}
			r.fields[name] = text
		}
	}
}
