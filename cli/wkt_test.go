package cli_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWKTGeometries: --polygon and --line read WKT (PostGIS's ST_AsText,
// and EWKT with SRID=4326), inline, in any case, or from a file, and
// find what the same shapes written as GeoJSON find: geo within, geo
// along, fence put and fence containing. The GeoJSON forms are checked
// against brute force elsewhere (TestGeoWithinAgainstBruteForce and the
// like); here the two forms must agree, on points scattered over both
// shapes. An SRID other than 4326, Z coordinates and bare coordinate
// arrays are errors that say what to give.
func TestWKTGeometries(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "wkt.db")
	r := rand.New(rand.NewPCG(52, 1))
	var rows strings.Builder
	rows.WriteString("id,lat,lon\n")
	for i := range 400 {
		fmt.Fprintf(&rows, "p%d,%f,%f\n", i, 51.5+r.Float64()*2, 12.5+r.Float64()*2)
	}
	runOK(t, rows.String(), "--db", db, "-q", "geo", "import", "--index", "g", "--format", "csv", "-")
	ids := func(args ...string) []string {
		out := runOK(t, "", append([]string{"--db", db, "-o", "ids"}, args...)...)
		got := strings.Fields(out)
		slices.Sort(got)
		return got
	}
	// A file whose name begins as WKT does (a browser's second download
	// of polygon.geojson) is read as the file it is.
	namedLikeWKT := filepath.Join(dir, "polygon (1).geojson")
	os.WriteFile(namedLikeWKT, []byte(`{"type":"Polygon","coordinates":[[[13,52],[14,52],[14,53],[13,53],[13,52]]]}`), 0o644)
	inDir := exec.Command(binary, "--db", db, "-o", "ids", "geo", "within", "--index", "g", "--polygon", filepath.Base(namedLikeWKT))
	inDir.Dir = dir // the name as typed in its directory, not a path that begins with /
	out, err := inDir.Output()
	got := strings.Fields(string(out))
	slices.Sort(got)
	if want := ids("geo", "within", "--index", "g", "--polygon", "POLYGON((13 52,14 52,14 53,13 53,13 52))"); err != nil || len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("--polygon 'polygon (1).geojson': %v, %v; want %v", got, err, want)
	}
	wktFile := filepath.Join(dir, "shape.wkt")
	os.WriteFile(wktFile, []byte("MULTIPOLYGON (((13 52, 14 52, 14 53, 13 53, 13 52), (13.2 52.2, 13.2 52.8, 13.8 52.8, 13.2 52.2)), ((12.6 51.6, 12.9 51.6, 12.6 51.9, 12.6 51.6)))\n"), 0o644)
	for _, c := range []struct {
		name           string
		geojson, other []string
	}{
		{"polygon", []string{"geo", "within", "--index", "g", "--polygon", `{"type":"Polygon","coordinates":[[[13,52],[14,52],[14,53],[13,53],[13,52]]]}`},
			[]string{"geo", "within", "--index", "g", "--polygon", "POLYGON((13 52,14 52,14 53,13 53,13 52))"}},
		{"ewkt, lower case", []string{"geo", "within", "--index", "g", "--polygon", `{"type":"Polygon","coordinates":[[[13,52],[14,52],[13.5,53],[13,52]]]}`},
			[]string{"geo", "within", "--index", "g", "--polygon", "SRID=4326; polygon ((13 52, 14 52, 13.5 53, 13 52))"}},
		{"multipolygon with a hole, from a file", []string{"geo", "within", "--index", "g", "--polygon", `{"type":"MultiPolygon","coordinates":[[[[13,52],[14,52],[14,53],[13,53],[13,52]],[[13.2,52.2],[13.2,52.8],[13.8,52.8],[13.2,52.2]]],[[[12.6,51.6],[12.9,51.6],[12.6,51.9],[12.6,51.6]]]]}`},
			[]string{"geo", "within", "--index", "g", "--polygon", wktFile}},
		{"line", []string{"geo", "along", "--index", "g", "--radius", "8km", "--line", `{"type":"LineString","coordinates":[[12.5,51.5],[13.5,52.5],[14.5,52]]}`},
			[]string{"geo", "along", "--index", "g", "--radius", "8km", "--line", "LINESTRING(12.5 51.5, 13.5 52.5, 14.5 52)"}},
	} {
		want, got := ids(c.geojson...), ids(c.other...)
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("%s: WKT found %d points, GeoJSON %d (%v, %v)", c.name, len(got), len(want), got, want)
		}
	}
	runOK(t, "", "--db", db, "fence", "put", "--fences", "f", "--polygon", "POLYGON((13 52,14 52,14 53,13 53,13 52))", "wkt")
	runOK(t, "", "--db", db, "fence", "put", "--fences", "f", "--polygon", `{"type":"Polygon","coordinates":[[[13,52],[14,52],[14,53],[13,53],[13,52]]]}`, "geojson")
	for _, at := range [][2]string{{"52.5", "13.5"}, {"51.9", "13.5"}, {"52", "14"}} {
		out := runOK(t, "", "--db", db, "-o", "json", "fence", "containing", "--fences", "f", "--lat", at[0], "--lon", at[1])
		inside := at[0] == "52.5" // the others lie outside, and on an edge
		if strings.Contains(out, `"wkt"`) != strings.Contains(out, `"geojson"`) || inside && !strings.Contains(out, `"wkt"`) {
			t.Errorf("fence containing %v: %q; the WKT and the GeoJSON fence disagree", at, out)
		}
	}
	for _, c := range []struct{ polygon, want string }{
		{"SRID=3857;POLYGON((13 52,14 52,14 53,13 53,13 52))", "SRID=3857; want longitude and latitude in degrees, SRID=4326"},
		{"POLYGON Z ((13 52 0,14 52 0,14 53 0,13 52 0))", "not WKT that orb reads (2D: lon lat pairs, no Z or M)"},
		{"[[13,52],[14,52],[14,53],[13,52]]", "bare coordinates; give a GeoJSON geometry"},
	} {
		_, stderr, code := run(t, "", "--db", db, "geo", "within", "--index", "g", "--polygon", c.polygon)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("--polygon %s: exit %d, %q; want %q", c.polygon, code, stderr, c.want)
		}
	}
}

// TestWKTColumns: --wkt-col reads each row's place from WKT, as a PostGIS
// export writes it (ST_AsText). geo import's POINT rows give the points
// the same rows with latitude and longitude columns give (the two scans
// compared); fence import's rows give the fences a GeoJSON
// FeatureCollection of the same regions gives (fence list compared):
// polygons, multipolygons, lines as corridors as wide as the row's
// radius, or none, and points as circles. A row whose WKT is not a POINT
// (geo import), not a region (fence import), empty or unreadable is a bad
// row; a missing latitude column points to a column named as WKT is.
func TestWKTColumns(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "cols.db")
	r := rand.New(rand.NewPCG(52, 2))
	var wktRows, latLonRows strings.Builder
	wktRows.WriteString("id,name,geom\n")
	latLonRows.WriteString("id,name,lat,lon\n")
	for i := range 60 {
		lat, lon := r.Float64()*180-90, r.Float64()*360-180
		fmt.Fprintf(&wktRows, "p%d,n%d,POINT(%v %v)\n", i, i, lon, lat)
		fmt.Fprintf(&latLonRows, "p%d,n%d,%v,%v\n", i, i, lat, lon)
	}
	runOK(t, wktRows.String(), "--db", db, "-q", "geo", "import", "--index", "w", "--wkt-col", "geom", "--format", "csv", "-")
	runOK(t, latLonRows.String(), "--db", db, "-q", "geo", "import", "--index", "l", "--format", "csv", "-")
	w := runOK(t, "", "--db", db, "-o", "ndjson", "geo", "scan", "--index", "w")
	l := runOK(t, "", "--db", db, "-o", "ndjson", "geo", "scan", "--index", "l")
	if w != l || strings.Count(w, "\n") != 60 {
		t.Errorf("geo import --wkt-col:\n%s\nthe same rows with lat and lon:\n%s", w, l)
	}

	regions := []struct{ id, radius, wkt, geojson string }{
		{"square", "", "POLYGON((13 52,14 52,14 53,13 53,13 52))", `{"type":"Polygon","coordinates":[[[13,52],[14,52],[14,53],[13,53],[13,52]]]}`},
		{"two", "", "MULTIPOLYGON(((0 0,1 0,1 1,0 0)),((2 2,3 2,3 3,2 2)))", `{"type":"MultiPolygon","coordinates":[[[[0,0],[1,0],[1,1],[0,0]]],[[[2,2],[3,2],[3,3],[2,2]]]]}`},
		{"route", "300", "LINESTRING(13 52,14 53,15 52)", `{"type":"LineString","coordinates":[[13,52],[14,53],[15,52]]}`},
		{"road", "", "MULTILINESTRING((0 0,1 1),(2 2,3 3))", `{"type":"MultiLineString","coordinates":[[[0,0],[1,1]],[[2,2],[3,3]]]}`},
		{"depot", "1500", "POINT(13.45 52.48)", `{"type":"Point","coordinates":[13.45,52.48]}`},
	}
	var csvRows strings.Builder
	csvRows.WriteString("id,radius,kind,wkt\n")
	var features []string
	for _, g := range regions {
		fmt.Fprintf(&csvRows, "%s,%s,k-%s,\"%s\"\n", g.id, g.radius, g.id, g.wkt)
		props := fmt.Sprintf(`{"kind":"k-%s"}`, g.id)
		if g.radius != "" {
			props = fmt.Sprintf(`{"kind":"k-%s","radius":%s}`, g.id, g.radius)
		}
		features = append(features, fmt.Sprintf(`{"type":"Feature","id":%q,"geometry":%s,"properties":%s}`, g.id, g.geojson, props))
	}
	runOK(t, csvRows.String(), "--db", db, "-q", "fence", "import", "--fences", "fw", "--wkt-col", "wkt", "--format", "csv", "-")
	runOK(t, `{"type":"FeatureCollection","features":[`+strings.Join(features, ",")+`]}`, "--db", db, "-q", "fence", "import", "--fences", "fg", "--format", "geojson", "-")
	fw := runOK(t, "", "--db", db, "-o", "geojson", "fence", "list", "--fences", "fw")
	fg := runOK(t, "", "--db", db, "-o", "geojson", "fence", "list", "--fences", "fg")
	if fw != fg || strings.Count(fw, `"Feature"`) != len(regions) {
		t.Errorf("fence import --wkt-col:\n%s\nthe same regions as GeoJSON:\n%s", fw, fg)
	}

	for _, c := range []struct {
		args  []string
		stdin string
		want  string
	}{
		{[]string{"geo", "import", "--index", "x", "--wkt-col", "geom"}, "id,geom\na,\"LINESTRING(0 0,1 1)\"\n", `line 2: column "geom" holds a LINESTRING, not a POINT`},
		{[]string{"geo", "import", "--index", "x", "--wkt-col", "geom"}, "id,geom\na,\n", `line 2: no geometry: the row's geom is empty`},
		{[]string{"geo", "import", "--index", "x", "--wkt-col", "geom"}, "id,geom\na,POINT(1)\n", `line 2: WKT "POINT(1)" (column "geom"): not WKT that orb reads`},
		{[]string{"geo", "import", "--index", "x"}, "id,geom\na,POINT(1 2)\n", `no lat column in the header (looked for lat, latitude; name it with --lat-col); the columns are id, geom; a column "geom" of WKT (POINT(lon lat)) is read with --wkt-col geom`},
		{[]string{"geo", "import", "--index", "x", "--wkt-col", "gem"}, "id,geom\na,POINT(1 2)\n", `no column "gem" (--wkt-col) in the header; did you mean "geom"?`},
		{[]string{"fence", "import", "--fences", "x", "--wkt-col", "wkt"}, "id,wkt\na,POINT(1 2)\n", `line 2: a POINT is a circle, which needs a radius, and the row has no radius`},
		{[]string{"fence", "import", "--fences", "x", "--wkt-col", "wkt"}, "id,radius,wkt\na,2km,\"POLYGON((0 0,1 0,1 1,0 0))\"\n", `line 2: a POLYGON takes no radius, and the row's radius is 2km`},
		{[]string{"fence", "import", "--fences", "x", "--wkt-col", "wkt"}, "id,wkt\na,\"GEOMETRYCOLLECTION(POINT(1 1))\"\n", `line 2: column "wkt" holds a GEOMETRYCOLLECTION, which is no fence`},
	} {
		_, stderr, code := run(t, c.stdin, append([]string{"--db", db}, append(c.args, "--format", "csv", "-")...)...)
		if code != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v on %q: exit %d, %q; want %q", c.args, c.stdin, code, stderr, c.want)
		}
	}
	if _, stderr, code := run(t, "id,geom\na,POINT(1 2)\n", "--db", db, "geo", "import", "--index", "x", "--wkt-col", "geom", "--lat-col", "y", "--format", "csv", "-"); code != 2 || !strings.Contains(stderr, "--wkt-col gives each row's position; it takes no --lat-col or --lon-col") {
		t.Errorf("--wkt-col with --lat-col: exit %d, %q", code, stderr)
	}
	for _, cmd := range [][]string{{"geo", "import", "--index", "x"}, {"fence", "import", "--fences", "x"}} {
		args := append(append([]string{"--db", db}, cmd...), "--wkt-col", "wkt", "--format", "geojson", "-")
		if _, stderr, code := run(t, `{"type":"FeatureCollection","features":[]}`, args...); code != 2 || !strings.Contains(stderr, "--wkt-col reads rows of CSV, TSV, NDJSON, JSON or XML") {
			t.Errorf("%v on GeoJSON: exit %d, %q", cmd, code, stderr)
		}
	}
}
