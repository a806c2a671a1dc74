package cli_test

import (
	"fmt"
	"math/rand/v2"
	"os"
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
