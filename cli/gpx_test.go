package cli_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLineFromGPX: a GPX file's track segments and routes are --line's
// lines, in order: geo along, geo knn --line and fence along answer as
// they do for the same lines written as a GeoJSON MultiLineString, and
// fence put --line stores them so (fence get writes them back as that
// MultiLineString); waypoints are no line. A document with no line, a
// point with no lat or a lat that is no number, or bad XML is an error
// naming it, and stores nothing.
func TestLineFromGPX(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	ks, must := onDB(t, db)
	r := rand.New(rand.NewPCG(61, 62))
	var csv strings.Builder
	csv.WriteString("id,lat,lon\n")
	for i := range 400 {
		fmt.Fprintf(&csv, "p%d,%v,%v\n", i, 45+r.Float64()*0.2, 7+r.Float64()*0.3)
	}
	points := filepath.Join(dir, "points.csv")
	if err := os.WriteFile(points, []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	must("--quiet", "geo", "import", "--index", "p", points)
	// Two tracks (one of two segments) and a route, and a waypoint.
	lines := [][][2]float64{ // [lon, lat]
		{{7.02, 45.01}, {7.1, 45.05}, {7.12, 45.11}},
		{{7.2, 45.15}, {7.25, 45.18}},
		{{7.28, 45.02}, {7.21, 45.06}, {7.15, 45.03}},
		{{7.05, 45.19}, {7.06, 45.12}},
	}
	pt := func(tag string, p [2]float64) string {
		return fmt.Sprintf(`<%s lat="%v" lon="%v"><ele>200</ele></%s>`, tag, p[1], p[0], tag)
	}
	seg := func(tag string, line [][2]float64) string {
		var b strings.Builder
		for _, p := range line {
			b.WriteString(pt(tag, p))
		}
		return b.String()
	}
	gpx := `<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
<wpt lat="45.1" lon="7.1"><name>a waypoint, no line</name></wpt>
<trk><name>one</name><trkseg>` + seg("trkpt", lines[0]) + `</trkseg><trkseg>` + seg("trkpt", lines[1]) + `</trkseg></trk>
<trk><trkseg>` + seg("trkpt", lines[2]) + `</trkseg></trk>
<rte>` + seg("rtept", lines[3]) + `</rte>
</gpx>`
	gpxFile := filepath.Join(dir, "ride.gpx")
	if err := os.WriteFile(gpxFile, []byte(gpx), 0o644); err != nil {
		t.Fatal(err)
	}
	geojson, _ := json.Marshal(map[string]any{"type": "MultiLineString", "coordinates": lines})
	for _, args := range [][]string{
		{"geo", "along", "--index", "p", "--radius", "2km"},
		{"geo", "knn", "--index", "p", "--k", "7"},
	} {
		// The results, not the cursor, which names the --line as given.
		fromGPX := decode(t, must(append(append([]string{"-o", "json"}, args...), "--line", gpxFile)...)).Results
		fromJSON := decode(t, must(append(append([]string{"-o", "json"}, args...), "--line", string(geojson))...)).Results
		if fmt.Sprint(fromGPX) != fmt.Sprint(fromJSON) || len(fromGPX) < 5 {
			t.Errorf("%v --line ride.gpx: %v\nwith the GeoJSON: %v", args, fromGPX, fromJSON)
		}
	}
	must("fence", "put", "--fences", "rides", "--line", gpxFile, "--radius", "300m", "ride")
	var got struct {
		Fences []struct {
			Geometry struct {
				Type        string
				Coordinates [][][2]float64
			}
			Properties struct{ Radius float64 }
		}
	}
	if err := json.Unmarshal([]byte(must("-o", "json", "fence", "get", "--fences", "rides", "ride")), &got); err != nil {
		t.Fatal(err)
	}
	if f := got.Fences[0]; f.Geometry.Type != "MultiLineString" || fmt.Sprint(f.Geometry.Coordinates) != fmt.Sprint(lines) || f.Properties.Radius != 300 {
		t.Errorf("fence get ride: %+v, want the GPX's lines %v at 300 m", f, lines)
	}
	// One track segment alone is a LineString.
	one := filepath.Join(dir, "one.gpx")
	os.WriteFile(one, []byte(`<gpx><trk><trkseg>`+seg("trkpt", lines[1])+`</trkseg></trk></gpx>`), 0o644)
	must("fence", "put", "--fences", "rides", "--line", one, "short")
	if out := must("-o", "geojson", "fence", "get", "--fences", "rides", "short"); !strings.Contains(out, `"LineString"`) {
		t.Errorf("a GPX of one segment: %s", out)
	}
	for _, c := range []struct{ gpx, want string }{
		{`<gpx><wpt lat="1" lon="1"/></gpx>`, "no track segment or route"},
		{`<gpx><trk><trkseg><trkpt lon="1"/><trkpt lat="1" lon="2"/></trkseg></trk></gpx>`, "track 1 segment 1 point 1: no lat"},
		{`<gpx><rte><rtept lat="1" lon="1"/><rtept lat="north" lon="2"/></rte></gpx>`, `route 1 point 2: lat "north" is not a number`},
		{`<gpx><trk><trkseg><trkpt lat="1" lon="1"/></trkseg></trk></gpx>`, "line has 1 positions"},
		{`<gpx><trk>`, "not GPX"},
	} {
		bad := filepath.Join(dir, "bad.gpx")
		os.WriteFile(bad, []byte(c.gpx), 0o644)
		if _, stderr, code := ks("fence", "put", "--fences", "rides", "--line", bad, "bad"); code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("fence put --line %s: exit %d, %q; want an error naming %q", c.gpx, code, stderr, c.want)
		}
	}
	if out := must("fence", "list", "--fences", "rides"); strings.Contains(out, "bad") {
		t.Errorf("a bad GPX was stored: %s", out)
	}
}

// TestFenceImportGPX: fence import reads a GPX file's tracks and routes
// as corridors --radius wide, one fence each, named by its name (a track
// of two segments a MultiLineString), and its waypoints as circles of
// --radius, their description and elevation the payload; and a GeoJSON
// file's lines with no radius of their own as --radius wide; all or
// none: an unnamed route or waypoint, a bad point, a document of none of
// them, or --radius on a file of rows stores nothing.
func TestFenceImportGPX(t *testing.T) {
	dir := t.TempDir()
	ks, must := onDB(t, filepath.Join(dir, "k.db"))
	plan := filepath.Join(dir, "plan.gpx")
	os.WriteFile(plan, []byte(`<?xml version="1.0"?>
<gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1">
<wpt lat="37.8" lon="-122.4"><name>depot</name><desc>the yard</desc><ele>12</ele></wpt>
<rte><name>route-7</name><rtept lat="37.7955" lon="-122.3937"/><rtept lat="37.7793" lon="-122.4192"/></rte>
<trk><name> ride </name><trkseg><trkpt lat="37.76" lon="-122.43"/><trkpt lat="37.77" lon="-122.42"/></trkseg><trkseg><trkpt lat="37.78" lon="-122.41"/><trkpt lat="37.79" lon="-122.40"/></trkseg></trk>
</gpx>`), 0o644)
	must("fence", "import", "--fences", "plans", "--radius", "250m", plan)
	var got struct {
		Fences []struct {
			ID       string
			Geometry struct {
				Type        string
				Coordinates json.RawMessage
			}
			Properties struct{ Radius float64 }
		}
	}
	if err := json.Unmarshal([]byte(must("-o", "json", "fence", "list", "--fences", "plans")), &got); err != nil {
		t.Fatal(err)
	}
	want := []struct{ id, kind, coords string }{
		{"depot", "Point", `[-122.4,37.8]`},
		{"ride", "MultiLineString", `[[[-122.43,37.76],[-122.42,37.77]],[[-122.41,37.78],[-122.4,37.79]]]`},
		{"route-7", "LineString", `[[-122.3937,37.7955],[-122.4192,37.7793]]`},
	}
	if len(got.Fences) != len(want) {
		t.Fatalf("fence list after a GPX import: %+v, want %v", got.Fences, want)
	}
	for i, w := range want {
		f := got.Fences[i]
		var coords any
		json.Unmarshal(f.Geometry.Coordinates, &coords)
		compact, _ := json.Marshal(coords)
		if f.ID != w.id || f.Geometry.Type != w.kind || string(compact) != w.coords || f.Properties.Radius != 250 {
			t.Errorf("fence %d: %s %s %s radius %v; want %s %s %s radius 250", i, f.ID, f.Geometry.Type, compact, f.Properties.Radius, w.id, w.kind, w.coords)
		}
	}
	if out := must("fence", "get", "--fences", "plans", "depot"); !strings.Contains(out, `"desc":"the yard"`) || !strings.Contains(out, `"ele":"12"`) {
		t.Errorf("the depot's payload: %s", out)
	}
	// A GeoJSON file's lines take --radius unless they have their own.
	lines := filepath.Join(dir, "lines.geojson")
	os.WriteFile(lines, []byte(`{"type":"FeatureCollection","features":[`+
		`{"type":"Feature","id":"plain","geometry":{"type":"LineString","coordinates":[[1,1],[1,2]]},"properties":{}},`+
		`{"type":"Feature","id":"own","geometry":{"type":"LineString","coordinates":[[2,1],[2,2]]},"properties":{"radius":50}},`+
		`{"type":"Feature","id":"zone","geometry":{"type":"Point","coordinates":[3,1]},"properties":{"radius":70}}]}`), 0o644)
	must("fence", "import", "--fences", "lines", "--radius", "100m", lines)
	var imported struct {
		Features []struct {
			ID         string
			Geometry   struct{ Type string }
			Properties struct{ Radius float64 }
		}
	}
	if err := json.Unmarshal([]byte(must("-o", "geojson", "fence", "list", "--fences", "lines")), &imported); err != nil {
		t.Fatal(err)
	}
	radii := map[string]string{}
	for _, f := range imported.Features {
		radii[f.ID] = fmt.Sprintf("%s %g", f.Geometry.Type, f.Properties.Radius)
	}
	if want := map[string]string{"own": "LineString 50", "plain": "LineString 100", "zone": "Point 70"}; fmt.Sprint(radii) != fmt.Sprint(want) {
		t.Errorf("a GeoJSON import with --radius 100m: %v, want %v", radii, want)
	}
	for _, c := range []struct {
		file, body string
		args       []string
		want       string
	}{
		{"unnamed.gpx", `<gpx><rte><name>ok</name><rtept lat="1" lon="1"/><rtept lat="1" lon="2"/></rte><rte><rtept lat="1" lon="1"/><rtept lat="1" lon="2"/></rte></gpx>`, nil, "route 2: no name, which a fence needs as its id"},
		{"badpoint.gpx", `<gpx><trk><name>t</name><trkseg><trkpt lat="1" lon="east"/><trkpt lat="1" lon="2"/></trkseg></trk></gpx>`, nil, `lon "east" is not a number`},
		{"short.gpx", `<gpx><rte><name>r</name><rtept lat="1" lon="1"/></rte></gpx>`, nil, "line has 1 positions"},
		{"nameless.gpx", `<gpx><rte><name>ok</name><rtept lat="1" lon="1"/><rtept lat="1" lon="2"/></rte><wpt lat="1" lon="1"/></gpx>`, nil, "waypoint 1: no name"},
		{"north.gpx", `<gpx><wpt lat="91" lon="1"><name>n</name></wpt></gpx>`, nil, `waypoint 1: fence "n": invalid coordinates: latitude 91`},
		{"empty.gpx", `<gpx><metadata/></gpx>`, nil, "no track segment, route or waypoint"},
		{"rows.csv", "id,lat,lon,radius\na,1,1,5km\n", []string{"--radius", "1km"}, "--radius-col"},
		{"wide.gpx", `<gpx><rte><name>r</name><rtept lat="1" lon="1"/><rtept lat="1" lon="2"/></rte></gpx>`, []string{"--radius", "-1km"}, "--radius"},
	} {
		file := filepath.Join(dir, c.file)
		os.WriteFile(file, []byte(c.body), 0o644)
		args := append(append([]string{"fence", "import", "--fences", "bad"}, c.args...), file)
		if _, stderr, code := ks(args...); code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("fence import %s: exit %d, %q; want an error naming %q", c.file, code, stderr, c.want)
		}
	}
	if out, _, _ := ks("fence", "list", "--fences", "bad"); strings.Contains(out, "ok") || strings.Contains(out, "corridor") {
		t.Errorf("a bad import stored fences: %s", out)
	}
}

// TestGeoImportGPXWaypoints: geo import of a GPX file reads its
// waypoints, a point each named by its name (or --id-col's field), its
// other values the payload (its first link's href among them), against
// the values the file was written with; its tracks, routes, metadata and
// a waypoint's extensions are left out. A waypoint with no name, or a latitude out of range, is a
// bad row named by its line, which stops the import (nothing imported)
// or, with --skip-bad, is left out; a GPX document with no waypoint is
// an error. fence containing reads the same file's waypoints.
func TestGeoImportGPXWaypoints(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	ks, must := onDB(t, db)
	r := rand.New(rand.NewPCG(63, 64))
	type waypoint struct {
		name     string
		lat, lon float64
		ele      int
		sym      string
		link     string
	}
	var wpts []waypoint
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
<metadata><name>a day out</name><link href="https://example.org"><text>x</text></link></metadata>
`)
	for i := range 40 {
		w := waypoint{name: fmt.Sprintf("stop %d & more", i), lat: 45 + r.Float64(), lon: 7 + r.Float64(), ele: r.IntN(3000),
			sym: []string{"Flag", "Pin"}[r.IntN(2)], link: fmt.Sprintf("https://example.org/%d", i)}
		wpts = append(wpts, w)
		fmt.Fprintf(&b, "<wpt lat=\"%v\" lon=\"%v\">\n  <ele>%d</ele><name>%s</name><sym>%s</sym>\n  <link href=\"%s\"><text>page</text></link><link href=\"https://example.org/more\"/><extensions><speed>3</speed></extensions>\n</wpt>\n",
			w.lat, w.lon, w.ele, strings.ReplaceAll(w.name, "&", "&amp;"), w.sym, w.link)
		if i == 20 {
			b.WriteString(`<trk><name>walk</name><trkseg><trkpt lat="45" lon="7"/><trkpt lat="45.5" lon="7.5"/></trkseg></trk>` + "\n")
		}
	}
	b.WriteString("<rte><rtept lat=\"45\" lon=\"7\"/><rtept lat=\"46\" lon=\"8\"/></rte>\n</gpx>\n")
	file := filepath.Join(dir, "stops.gpx")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	must("--quiet", "geo", "import", "--index", "stops", file)
	var got struct {
		Points []struct {
			ID       string
			Lat, Lon float64
			Payload  map[string]any
		}
	}
	if err := json.Unmarshal([]byte(must("-o", "json", "geo", "scan", "--index", "stops")), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Points) != len(wpts) {
		t.Fatalf("%d points imported from %d waypoints", len(got.Points), len(wpts))
	}
	byID := map[string]waypoint{}
	for _, w := range wpts {
		byID[w.name] = w
	}
	for _, p := range got.Points {
		w, ok := byID[p.ID]
		want := map[string]any{"ele": fmt.Sprint(w.ele), "sym": w.sym, "link": w.link}
		if !ok || p.Lat != w.lat || p.Lon != w.lon || fmt.Sprint(p.Payload) != fmt.Sprint(want) {
			t.Fatalf("point %+v; the waypoint %+v, payload %v", p, w, want)
		}
	}
	// --id-col names another field; --typed keeps the elevation a number.
	must("--quiet", "geo", "import", "--index", "bylink", "--id-col", "link", "--typed", file)
	var one struct {
		Results []struct{ Payload map[string]any }
	}
	if err := json.Unmarshal([]byte(must("-o", "json", "geo", "get", "--index", "bylink", "https://example.org/7")), &one); err != nil {
		t.Fatal(err)
	}
	if len(one.Results) != 1 || one.Results[0].Payload["ele"] != float64(wpts[7].ele) || one.Results[0].Payload["name"] != wpts[7].name {
		t.Fatalf("geo get by link: %+v, want ele %d and name %q", one, wpts[7].ele, wpts[7].name)
	}
	// fence containing reads the waypoints as the points to test.
	must("fence", "put", "--fences", "zones", "--lat", fmt.Sprint(wpts[3].lat), "--lon", fmt.Sprint(wpts[3].lon), "--radius", "1m", "around-3")
	if out := must("fence", "containing", "--fences", "zones", file); !strings.Contains(out, wpts[3].name) || !strings.Contains(out, "around-3") {
		t.Errorf("fence containing %s: %s", file, out)
	}
	// Bad waypoints: by line; --skip-bad imports the rest.
	bad := filepath.Join(dir, "bad.gpx")
	os.WriteFile(bad, []byte("<gpx>\n<wpt lat=\"45\" lon=\"7\"><name>good</name></wpt>\n<wpt lat=\"45\" lon=\"7\"><ele>3</ele></wpt>\n<wpt lat=\"95\" lon=\"7\"><name>north</name></wpt>\n</gpx>\n"), 0o644)
	for _, c := range []struct {
		file, msg string
	}{
		{bad, "line 3"},
		{writeTemp(t, dir, "none.gpx", `<gpx><trk><trkseg><trkpt lat="1" lon="1"/></trkseg></trk></gpx>`), "no waypoint"},
		{writeTemp(t, dir, "twice.gpx", "<gpx>\n<wpt lat=\"1\" lon=\"1\"><name>a</name><name>b</name></wpt></gpx>"), "<name> twice"},
		{writeTemp(t, dir, "broken.gpx", "<gpx>\n<wpt lat=\"1\" lon=\"1\"><name>a</wpt></gpx>"), "line 2"},
	} {
		if _, stderr, code := ks("geo", "import", "--index", "bad", c.file); code == 0 || !strings.Contains(stderr, c.msg) {
			t.Errorf("geo import %s: exit %d, %q; want an error naming %q", filepath.Base(c.file), code, stderr, c.msg)
		}
	}
	if _, stderr, code := ks("geo", "import", "--index", "bad", "--skip-bad", bad); code != 0 || !strings.Contains(stderr, "line 4") {
		t.Errorf("geo import --skip-bad: exit %d, %q", code, stderr)
	}
	if out := must("geo", "scan", "--index", "bad"); !strings.Contains(out, "good") || strings.Contains(out, "north") || !strings.Contains(out, "1 point") {
		t.Errorf("after --skip-bad: %s", out)
	}
}

// writeTemp writes text to the file name in dir and returns its path.
func writeTemp(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
