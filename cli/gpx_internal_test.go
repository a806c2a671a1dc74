package cli

import (
	"bufio"
	"bytes"
	"testing"

	"github.com/paulmach/orb"
)

// FuzzGPX: any bytes read as GPX either are refused with an error, or
// give lines of at least one position each, as many as the document's
// track segments and routes, and fences (gpxFences) that are valid
// corridors with ids; isGPX never panics.
func FuzzGPX(f *testing.F) {
	f.Add([]byte(`<?xml version="1.0"?><gpx xmlns="http://www.topografix.com/GPX/1/1"><rte><name>r</name><rtept lat="1" lon="1"/><rtept lat="1.5" lon="2"/></rte></gpx>`))
	f.Add([]byte(`<gpx><trk><name>t</name><trkseg><trkpt lat="1" lon="1"/><trkpt lat="2" lon="2"/></trkseg><trkseg><trkpt lat="3" lon="3"/><trkpt lat="4" lon="179.9"/></trkseg></trk></gpx>`))
	f.Add([]byte(`<gpx><wpt lat="1" lon="1"/></gpx>`))
	f.Add([]byte(`<gpx><trk><trkseg><trkpt lon="1"/></trkseg></trk></gpx>`))
	f.Add([]byte(`<gpx><rte><name>r</name><rtept lat="91" lon="1"/><rtept lat="1" lon="NaN"/></rte></gpx>`))
	f.Add([]byte(`{"type":"LineString"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		isGPX(bufio.NewReader(bytes.NewReader(b)))
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
		fences, err := gpxFences(b, "f.gpx", 100)
		if err != nil {
			return
		}
		n := 0
		for _, fc := range fences {
			if fc.ID == "" || fc.Corridor == nil || fc.Validate() != nil {
				t.Fatalf("fence %+v", fc)
			}
			n += len(lineStrings(fc.Corridor.Line))
		}
		if n != len(lines) {
			t.Fatalf("%d lines in the fences, %d from gpxLines", n, len(lines))
		}
	})
}
