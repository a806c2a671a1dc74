package cli

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strconv"

	"github.com/paulmach/orb"
)

// GPX for --line: a GPS device's track or a route planner's route, as
// the lines geo along, geo knn --line, fence along and fence put --line
// take. Each segment of each track (trk, trkseg, trkpt) and each route
// (rte, rtept) is a line, in the file's order; one line is a LineString,
// more a MultiLineString. Waypoints (wpt) are no line and are left out.
// encoding/xml reads the file: GPX 1.0 and 1.1 name the same elements,
// and their namespaces do not matter to a match by local name.

// gpxFile is the part of a GPX document --line reads.
type gpxFile struct {
	XMLName xml.Name `xml:"gpx"`
	Tracks  []struct {
		Segments []struct {
			Points []gpxPoint `xml:"trkpt"`
		} `xml:"trkseg"`
	} `xml:"trk"`
	Routes []struct {
		Points []gpxPoint `xml:"rtept"`
	} `xml:"rte"`
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
	var doc gpxFile
	if err := xml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: not GPX: %w", from, err)
	}
	var lines orb.MultiLineString
	add := func(where string, pts []gpxPoint) error {
		line := make(orb.LineString, len(pts))
		for i, p := range pts {
			for _, a := range [][2]string{{"lat", p.Lat}, {"lon", p.Lon}} {
				if a[1] == "" {
					return fmt.Errorf("%s: %s point %d has no %s", from, where, i+1, a[0])
				}
			}
			lat, err := strconv.ParseFloat(p.Lat, 64)
			if err != nil {
				return fmt.Errorf("%s: %s point %d: lat %q is not a number", from, where, i+1, p.Lat)
			}
			lon, err := strconv.ParseFloat(p.Lon, 64)
			if err != nil {
				return fmt.Errorf("%s: %s point %d: lon %q is not a number", from, where, i+1, p.Lon)
			}
			line[i] = orb.Point{lon, lat}
		}
		lines = append(lines, line)
		return nil
	}
	for t, trk := range doc.Tracks {
		for s, seg := range trk.Segments {
			if err := add(fmt.Sprintf("track %d segment %d", t+1, s+1), seg.Points); err != nil {
				return nil, err
			}
		}
	}
	for r, rte := range doc.Routes {
		if err := add(fmt.Sprintf("route %d", r+1), rte.Points); err != nil {
			return nil, err
		}
	}
	switch len(lines) {
	case 0:
		return nil, fmt.Errorf("%s: a GPX document with no track segment or route", from)
	case 1:
		return lines[0], nil
	}
	return lines, nil
}
