package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/paulmach/orb"
)

// FuzzGPX: any bytes read as GPX either are refused with an error, or
// give lines of at least one position each, as many as the document's
// track segments and routes, and fences (gpxFences) that are valid, with
// ids: corridors of those lines and a circle a waypoint; isGPX never
// panics.
func FuzzGPX(f *testing.F) {
	f.Add([]byte(`<?xml version="1.0"?><gpx xmlns="http://www.topografix.com/GPX/1/1"><rte><name>r</name><rtept lat="1" lon="1"/><rtept lat="1.5" lon="2"/></rte></gpx>`))
	f.Add([]byte(`<gpx><trk><name>t</name><trkseg><trkpt lat="1" lon="1"/><trkpt lat="2" lon="2"/></trkseg><trkseg><trkpt lat="3" lon="3"/><trkpt lat="4" lon="179.9"/></trkseg></trk></gpx>`))
	f.Add([]byte(`<gpx><wpt lat="1" lon="1"/></gpx>`))
	f.Add([]byte(`<gpx><trk><trkseg><trkpt lon="1"/></trkseg></trk></gpx>`))
	f.Add([]byte(`<gpx><rte><name>r</name><rtept lat="91" lon="1"/><rtept lat="1" lon="NaN"/></rte></gpx>`))
	f.Add([]byte(`{"type":"LineString"}`))
	f.Add([]byte("<gpx><trk><name> a </name><trkseg><trkpt lat=\"1\" lon=\"2\"/></trkseg><trkseg/></trk><trk><trkseg><trkpt lat=\"1\" lon=\"2\"><time>t</time></trkpt></trkseg></trk><wpt lat=\"1\" lon=\"1\"/></gpx>"))
	f.Add([]byte("<gpx>\n<wpt lat=\"1\" lon=\"2\"><name>a</name><link href=\"h\"><text>t</text></link><extensions><x/></extensions></wpt>\n<wpt lat=\"3\" lon=\"4\"><name>b</name><name>c</name></wpt></gpx>"))
	f.Fuzz(func(t *testing.T, b []byte) {
		isGPX(bufio.NewReader(bytes.NewReader(b)))
		checkWaypointRows(t, b)
		g, err := gpxLines(b, "f.gpx")
		if err != nil {
			return
		}
		lines := lineStrings(g)
		if m, ok := g.(orb.MultiLineString); ok && len(m) < 2 {
			t.Fatalf("a MultiLineString of %d lines", len(m))
		}
		if len(lines) == 0 {
			t.Fatalf("gpxLines gave %#v and no error", g)
		}
		// With --skip-bad, every track, route and waypoint is a fence or
		// a bad row, and the fences are what the whole import makes
		// when no row is bad.
		skipping := &badRows{skip: true, name: "f.gpx"}
		kept, err := gpxFences(b, "f.gpx", 100, skipping)
		if err != nil {
			return // a point of a track that is no position
		}
		for _, fc := range kept {
			if fc.ID == "" || fc.Validate() != nil {
				t.Fatalf("kept fence %+v", fc)
			}
		}
		fences, err := gpxFences(b, "f.gpx", 100, &badRows{name: "f.gpx"})
		if (err != nil) != (len(skipping.rows) > 0) {
			t.Fatalf("all or nothing: %v; skipping: %d bad rows", err, len(skipping.rows))
		}
		if err != nil {
			return
		}
		if len(fences) != len(kept) {
			t.Fatalf("%d fences, %d with --skip-bad and no bad row", len(fences), len(kept))
		}
		n, circles := 0, 0
		for _, fc := range fences {
			switch {
			case fc.ID == "" || fc.Validate() != nil:
				t.Fatalf("fence %+v", fc)
			case fc.Circle != nil:
				circles++
			default:
				n += len(lineStrings(fc.Corridor.Line))
			}
		}
		doc, err := parseGPX(b, "f.gpx")
		if err != nil {
			t.Fatal(err)
		}
		if n != len(lines) || circles != len(doc.Waypoints) {
			t.Fatalf("%d lines and %d circles in the fences, %d lines from gpxLines and %d waypoints", n, circles, len(lines), len(doc.Waypoints))
		}
	})
}

// checkWaypointRows: an import reading b as XML gets, from a GPX
// document, a row for each wpt element directly under its root, as
// encoding/xml's Unmarshal counts them, each holding the lat and lon
// attributes the element has; or an error.
func checkWaypointRows(t *testing.T, b []byte) {
	rows, err := readXML(context.Background(), bytes.NewReader(b), false)
	if err != nil || len(rows) == 0 || rows[0].gpx == notGPX {
		return
	}
	var doc struct {
		XMLName xml.Name `xml:"gpx"`
		Wpts    []struct {
			Lat *string `xml:"lat,attr"`
			Lon *string `xml:"lon,attr"`
		} `xml:"wpt"`
	}
	if xml.Unmarshal(b, &doc) != nil {
		return
	}
	if len(doc.Wpts) != len(rows) {
		t.Fatalf("%d rows from %d waypoints", len(rows), len(doc.Wpts))
	}
	// With moves, a row for each trkpt of each track segment, named by
	// its track.
	var tracks struct {
		XMLName xml.Name `xml:"gpx"`
		Trks    []struct {
			Name string `xml:"name"`
			Segs []struct {
				Pts []struct{} `xml:"trkpt"`
			} `xml:"trkseg"`
		} `xml:"trk"`
	}
	if xml.Unmarshal(b, &tracks) == nil {
		var want []string
		for i, trk := range tracks.Trks {
			name := strings.TrimSpace(trk.Name)
			if name == "" {
				name = fmt.Sprintf("track %d", i+1)
			}
			for _, seg := range trk.Segs {
				for range seg.Pts {
					want = append(want, name)
				}
			}
		}
		moves, err := readXML(context.Background(), bytes.NewReader(b), true)
		var got []string
		for _, r := range moves {
			if r.gpx != trackPoint {
				t.Fatalf("a move's row of kind %d", r.gpx)
			}
			got = append(got, r.fields["track"])
		}
		if (err == nil) != (len(want) > 0) || err == nil && !slices.Equal(got, want) {
			t.Fatalf("track points %q, %v; the document's %q", got, err, want)
		}
	}
	for i, r := range rows {
		for name, want := range map[string]*string{"lat": doc.Wpts[i].Lat, "lon": doc.Wpts[i].Lon} {
			got, ok := r.fields[name]
			if r.gpx != waypoint || ok != (want != nil) || ok && got != *want {
				t.Fatalf("row %d: %s %q (%v), the waypoint's %v", i, name, got, ok, want)
			}
		}
	}
}
