package cli_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/keyspacedb/keyspace/geo"
)

// TestGeoAlong imports points at known distances from a meridian and asks
// geo along for those within 1 km of a line up it. A meridian is a great
// circle, so a point's distance from it is the cross-track distance
// R·asin(sin Δλ · cos φ), and past the line's ends the distance from the
// end: an oracle in closed form, apart from the package's search. Points
// within a metre of the radius are left out of the import.
func TestGeoAlong(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	const lon0, lat0, lat1, radius = 10.0, 45.0, 45.5, 1000.0
	type pt struct {
		id       string
		lat, lon float64
		d        float64 // the oracle's distance from the line
	}
	var pts []pt
	var csv strings.Builder
	csv.WriteString("id,lat,lon\n")
	add := func(lat, lon float64) {
		var d float64
		switch {
		case lat < lat0:
			d = geo.Distance(lat0, lon0, lat, lon) // past the south end
		case lat > lat1:
			d = geo.Distance(lat1, lon0, lat, lon)
		default:
			d = geo.EarthRadius * math.Abs(math.Asin(math.Sin((lon-lon0)*math.Pi/180)*math.Cos(lat*math.Pi/180)))
		}
		if math.Abs(d-radius) < 1 {
			return
		}
		p := pt{fmt.Sprintf("p%03d", len(pts)), lat, lon, d}
		pts = append(pts, p)
		fmt.Fprintf(&csv, "%s,%v,%v\n", p.id, lat, lon)
	}
	for i := range 120 {
		// Across the line from 2 km west to 2 km east, at latitudes on it
		// and a little past either end.
		lat := lat0 - 0.02 + (lat1-lat0+0.04)*float64(i%40)/39
		offset := (float64(i%13)/6 - 1) * 2000 // metres east, −2 to 2 km
		add(lat, lon0+offset/(geo.EarthRadius*math.Cos(lat*math.Pi/180))*180/math.Pi)
	}
	if _, stderr, code := run(t, csv.String(), "--db", db, "-q", "geo", "import", "--index", "pts", "-"); code != 0 {
		t.Fatal(stderr)
	}
	line := fmt.Sprintf(`{"type":"LineString","coordinates":[[%v,%v],[%v,%v]]}`, lon0, lat0, lon0, lat1)
	var want []pt
	distance := map[string]float64{}
	for _, p := range pts {
		distance[p.id] = p.d
		if p.d <= radius {
			want = append(want, p)
		}
	}
	slices.SortFunc(want, func(a, b pt) int {
		if a.d != b.d {
			return map[bool]int{true: -1, false: 1}[a.d < b.d]
		}
		return strings.Compare(a.id, b.id)
	})
	got := decode(t, runOK(t, "", "--db", db, "--output", "json", "geo", "along", "--index", "pts", "--line", line, "--radius", "1km"))
	if len(got.Results) != len(want) || len(want) < 20 {
		t.Fatalf("%d results, the oracle %d", len(got.Results), len(want))
	}
	// Each result is one the oracle keeps, at the oracle's distance, in
	// its order but for ties within a millimetre (points on the line lie
	// at 0 m or a few nanometres, as rounding has it).
	oracle := map[string]float64{}
	for _, p := range want {
		oracle[p.id] = p.d
	}
	for i, r := range got.Results {
		d, ok := oracle[r.ID]
		delete(oracle, r.ID)
		if !ok || math.Abs(r.DistanceM-d) > 1e-3 || math.Abs(d-want[i].d) > 1e-3 {
			t.Fatalf("result %d is %s at %v m, the oracle's %s at %v m (kept: %v)", i, r.ID, r.DistanceM, want[i].id, want[i].d, ok)
		}
	}
	// The same line from a file, as a Feature, and on standard input.
	file := filepath.Join(t.TempDir(), "route.geojson")
	os.WriteFile(file, []byte(`{"type":"Feature","properties":{"name":"up the meridian"},"geometry":`+line+`}`), 0o644)
	fromFile := decode(t, runOK(t, "", "--db", db, "--output", "json", "geo", "along", "--index", "pts", "--line", file, "--radius", "1000"))
	piped := decode(t, runOK(t, line, "--db", db, "--output", "json", "geo", "along", "--index", "pts", "--line", "-", "-r", "0.621371mi"))
	if !slices.Equal(ids(fromFile), ids(got)) || !slices.Equal(ids(piped), ids(got)) {
		t.Errorf("from a file %d results, piped %d, inline %d", len(fromFile.Results), len(piped.Results), len(got.Results))
	}
	// The nearest 5, and the farthest 5.
	near := decode(t, runOK(t, "", "--db", db, "--output", "json", "geo", "along", "--index", "pts", "--line", line, "--radius", "1km", "--limit", "5"))
	if !slices.Equal(ids(near), ids(got)[:5]) {
		t.Errorf("--limit 5: %v, want %v", ids(near), ids(got)[:5]) // the whole answer's first five, ties and all
	}
	far := decode(t, runOK(t, "", "--db", db, "--output", "json", "geo", "along", "--index", "pts", "--line", line, "--radius", "1km", "--limit", "5", "--desc"))
	for i, r := range far.Results {
		if w := want[len(want)-1-i]; math.Abs(r.DistanceM-w.d) > 1e-3 {
			t.Errorf("--desc result %d at %v m, the oracle's %d-th farthest at %v m", i, r.DistanceM, i+1, w.d)
		}
	}
	// The 7 nearest the line with no radius (knn --line): the oracle's 7
	// nearest distances.
	knn := decode(t, runOK(t, "", "--db", db, "--output", "json", "geo", "knn", "--index", "pts", "--line", line, "--k", "7"))
	if len(knn.Results) != 7 {
		t.Fatalf("knn --line --k 7: %d results", len(knn.Results))
	}
	for i, r := range knn.Results {
		if math.Abs(r.DistanceM-want[i].d) > 1e-3 || math.Abs(r.DistanceM-distance[r.ID]) > 1e-3 {
			t.Errorf("knn --line result %d: %s at %v m, the oracle's %d-th nearest at %v m", i, r.ID, r.DistanceM, i+1, want[i].d)
		}
	}
	if _, stderr, code := run(t, "", "--db", db, "geo", "knn", "--index", "pts", "--line", line, "--lat", "1", "--lon", "2"); code != 2 || !strings.Contains(stderr, "leave out --lat") {
		t.Errorf("knn --line with --lat: exit %d, %q", code, stderr)
	}
	// --svg draws the results and the corridor; GeoJSON output parses.
	svg := filepath.Join(t.TempDir(), "along.svg")
	runOK(t, "", "--db", db, "geo", "along", "--index", "pts", "--line", line, "--radius", "1km", "--svg", svg)
	if classes := svgClasses(t, svg); classes["result"] != len(want) || classes["query"] != 2 {
		t.Errorf("SVG classes %v: want %d results and 2 outlines (the line, the edge's capsule)", classes, len(want))
	}
	var fc struct {
		Type     string
		Features []json.RawMessage
	}
	out := runOK(t, "", "--db", db, "--output", "geojson", "geo", "along", "--index", "pts", "--line", line, "--radius", "1km")
	if err := json.Unmarshal([]byte(out), &fc); err != nil || fc.Type != "FeatureCollection" || len(fc.Features) != len(want) {
		t.Errorf("geojson: %v, %d features\n%s", err, len(fc.Features), out)
	}
	// What is not a line is refused, saying what was wrong, with exit 1;
	// a missing flag is a usage error (exit 2).
	for _, bad := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--line", `{"type":"Point","coordinates":[1,2]}`, "--radius", "1km"}, 1, "a Point is not a LineString or MultiLineString"},
		{[]string{"--line", `{"type":"LineString","coordinates":[[1,2]]}`, "--radius", "1km"}, 1, "line has 1 positions; a line needs at least 2"},
		{[]string{"--line", `{"type":"LineString","coordinates":[[1,2],[1,95]]}`, "--radius", "1km"}, 1, "line position 1: invalid coordinates: latitude 95 out of range"},
		{[]string{"--line", `{"type":"FeatureCollection","features":[]}`, "--radius", "1km"}, 1, "--line: 0 features; give one LineString or MultiLineString"},
		{[]string{"--line", `{"type":"LineString",`, "--radius", "1km"}, 1, "--line: not GeoJSON"},
		{[]string{"--line", line, "--radius", "-3km"}, 2, "distance"},
		{[]string{"--line", line}, 2, "geo along needs --radius DISTANCE"},
		{[]string{"--radius", "1km"}, 2, "geo along needs --line FILE"},
	} {
		_, stderr, code := run(t, "", append([]string{"--db", db, "geo", "along", "--index", "pts"}, bad.args...)...)
		if code != bad.code || !strings.Contains(stderr, bad.want) {
			t.Errorf("along %v: exit %d, %q; want %d and %q", bad.args, code, stderr, bad.code, bad.want)
		}
	}
}

// runOK runs the binary and fails t unless it exits 0, returning its
// standard output.
func runOK(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	out, stderr, code := run(t, stdin, args...)
	if code != 0 {
		t.Fatalf("keyspace %s: exit %d: %s", strings.Join(args, " "), code, stderr)
	}
	return out
}

// TestGeoWithinBuffer imports points inside a square, in its hole, and
// due north of it at known distances, and asks geo within --buffer for
// those within 1 km of it, and geo knn --polygon for the 45 nearest it. A point due north of the square's top edge
// (a parallel) is as far from it as from the edge's point below it: its
// latitude's difference, as an arc of a meridian. Points inside the
// square, and none in the hole farther than the buffer from its edges,
// are at 0 m.
func TestGeoWithinBuffer(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	const degree = geo.EarthRadius * math.Pi / 180
	var csv strings.Builder
	csv.WriteString("id,lat,lon\n")
	want := map[string]float64{}
	for i := range 40 {
		north := float64(i)*50 + 7 // metres north of the square's top edge, 7 to 1,957: none at the buffer
		id := fmt.Sprintf("n%02d", i)
		fmt.Fprintf(&csv, "%s,%v,21.5\n", id, 12+north/degree)
		if north <= 1000 {
			want[id] = north
		}
		id = fmt.Sprintf("in%02d", i)
		fmt.Fprintf(&csv, "%s,%v,%v\n", id, 10.2+float64(i)*0.01, 20.2+float64(i)*0.01) // along the diagonal, below the hole
		if 10.2+float64(i)*0.01 < 10.9 {
			want[id] = 0
		}
	}
	csv.WriteString("hole,11,21\n") // 10.9 km from the hole's edges
	if _, stderr, code := run(t, csv.String(), "--db", db, "-q", "geo", "import", "--index", "pts", "-"); code != 0 {
		t.Fatal(stderr)
	}
	square := `{"type":"Polygon","coordinates":[[[20,10],[22,10],[22,12],[20,12],[20,10]],[[20.9,10.9],[21.1,10.9],[21.1,11.1],[20.9,11.1],[20.9,10.9]]]}`
	got := decode(t, runOK(t, "", "--db", db, "--output", "json", "geo", "within", "--index", "pts", "--polygon", square, "--buffer", "1km"))
	found := 0
	for i, r := range got.Results {
		d, ok := want[r.ID]
		if !ok || math.Abs(r.DistanceM-d) > 1e-3 {
			t.Fatalf("result %d: %s at %v m; the oracle: %v m (kept: %v)", i, r.ID, r.DistanceM, d, ok)
		}
		if i > 0 && r.DistanceM < got.Results[i-1].DistanceM {
			t.Fatalf("result %d at %v m after one at %v m", i, r.DistanceM, got.Results[i-1].DistanceM)
		}
		found++
	}
	if found != len(want) {
		t.Fatalf("%d results, the oracle %d", found, len(want))
	}
	// The square as a stored polygon fence, buffered as --polygon is; a
	// circle fence has no polygon to buffer.
	runOK(t, "", "--db", db, "fence", "put", "--fences", "zones", "--polygon", square, "square")
	runOK(t, "", "--db", db, "fence", "put", "--fences", "zones", "--lat", "11", "--lon", "21", "--radius", "1km", "round")
	byFence := decode(t, runOK(t, "", "--db", db, "--output", "json", "geo", "within", "--index", "pts", "--fences", "zones", "--fence", "square", "--buffer", "1km"))
	if !slices.Equal(ids(byFence), ids(got)) {
		t.Errorf("--fence square --buffer 1km: %v, --polygon: %v", ids(byFence), ids(got))
	}
	// The 45 nearest the square with no radius (knn --polygon): the 40
	// inside it at 0 m, in id order, then the 5 nearest north of it.
	knn := decode(t, runOK(t, "", "--db", db, "--output", "json", "geo", "knn", "--index", "pts", "--polygon", square, "--k", "45"))
	if len(knn.Results) != 45 {
		t.Fatalf("knn --polygon --k 45: %d results", len(knn.Results))
	}
	for i, r := range knn.Results {
		wantID, wantM := fmt.Sprintf("in%02d", i), 0.0
		if i >= 40 {
			wantID, wantM = fmt.Sprintf("n%02d", i-40), float64(i-40)*50+7
		}
		if r.ID != wantID || math.Abs(r.DistanceM-wantM) > 1e-3 {
			t.Errorf("knn --polygon result %d: %s at %v m, want %s at %v m", i, r.ID, r.DistanceM, wantID, wantM)
		}
	}
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--fences", "zones", "--fence", "round", "--buffer", "1km"}, "round is not one"},
		{[]string{"--polygon", square, "--buffer", "-1km"}, "--buffer"},
	} {
		if _, stderr, code := run(t, "", append([]string{"--db", db, "geo", "within", "--index", "pts"}, c.args...)...); code != 2 || !strings.Contains(stderr, c.says) {
			t.Errorf("geo within %v: exit %d, %q; want 2 saying %q", c.args, code, stderr, c.says)
		}
	}
}
