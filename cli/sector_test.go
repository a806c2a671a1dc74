package cli_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/keyspacedb/keyspace/geo"
)

// bearingTo is the initial bearing in degrees [0, 360) from (lat1, lon1)
// to (lat2, lon2), by the textbook formula: the oracle for --sector.
func bearingTo(lat1, lon1, lat2, lon2 float64) float64 {
	φ1, φ2, Δλ := lat1*math.Pi/180, lat2*math.Pi/180, (lon2-lon1)*math.Pi/180
	β := math.Atan2(math.Sin(Δλ)*math.Cos(φ2), math.Cos(φ1)*math.Sin(φ2)-math.Sin(φ1)*math.Cos(φ2)*math.Cos(Δλ))
	return math.Mod(β*180/math.Pi+360, 360)
}

// TestNearSector: geo near --sector FROM,TO finds the points of its
// circle whose bearing from the centre lies clockwise from FROM to TO,
// against brute force over the imported points (with --lat/--lon and
// with --from, across north, wider than half, with --desc and --limit),
// and geo knn --sector the k nearest in those directions;
// --svg draws it; bad bearings are usage errors.
func TestNearSector(t *testing.T) {
	var cities []city
	var csvText strings.Builder
	csvText.WriteString("id,lat,lon\n")
	for i := range 2000 {
		// A deterministic scatter over about 40 × 40 km around Lyon.
		c := city{fmt.Sprintf("p%d", i), 45.6 + float64((i*7919)%2000)/2000*0.36, 4.7 + float64((i*104729)%2001)/2001*0.5}
		cities = append(cities, c)
		fmt.Fprintf(&csvText, "%s,%s,%s\n", c.id, strconv.FormatFloat(c.lat, 'g', -1, 64), strconv.FormatFloat(c.lon, 'g', -1, 64))
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	if _, stderr, code := run(t, csvText.String(), "--db", db, "--quiet", "geo", "import", "--index", "lyon", "-"); code != 0 {
		t.Fatalf("import exited %d: %s", code, stderr)
	}
	q := func(args ...string) jsonResults {
		t.Helper()
		out, stderr, code := run(t, "", append([]string{"--db", db, "--output", "json", "geo", "near", "--index", "lyon", "--radius", "8km"}, args...)...)
		if code != 0 {
			t.Fatalf("%v exited %d: %s", args, code, stderr)
		}
		return decode(t, out)
	}
	centre := cities[777]
	lat, lon := strconv.FormatFloat(centre.lat, 'g', -1, 64), strconv.FormatFloat(centre.lon, 'g', -1, 64)
	for _, sc := range [][2]float64{{45, 135}, {315, 45}, {90, 300}, {-10, 10}, {0, 360}} {
		sector := fmt.Sprintf("%g,%g", sc[0], sc[1])
		span := math.Mod(math.Mod(sc[1]-sc[0], 360)+360, 360)
		want := brute(cities, centre.lat, centre.lon, func(c city, d float64) bool {
			turn := math.Mod(bearingTo(centre.lat, centre.lon, c.lat, c.lon)-sc[0]+720, 360)
			return d <= 8000 && (span == 0 || turn <= span || c.id == centre.id)
		})
		got := q("--lat", lat, "--lon", lon, "--sector", sector)
		if !slices.Equal(ids(got), want) || len(want) < 5 {
			t.Errorf("near --sector %s: %d results %v, brute force %d %v", sector, len(got.Results), ids(got), len(want), want)
		}
		if got := q("--from", centre.id, "--sector", sector); !slices.Equal(ids(got), want) {
			t.Errorf("near --from %s --sector %s: %v, brute force %v", centre.id, sector, ids(got), want)
		}
		// The k nearest in those directions, with no radius.
		ahead := brute(cities, centre.lat, centre.lon, func(c city, d float64) bool {
			turn := math.Mod(bearingTo(centre.lat, centre.lon, c.lat, c.lon)-sc[0]+720, 360)
			return span == 0 || turn <= span || c.id == centre.id
		})
		k := min(25, len(ahead)-1) // fewer than there are
		out, stderr, code := run(t, "", "--db", db, "--output", "json", "geo", "knn", "--index", "lyon", "--from", centre.id, "--k", strconv.Itoa(k), "--sector", sector)
		if code != 0 {
			t.Fatalf("knn --sector %s: exit %d: %s", sector, code, stderr)
		}
		if got := decode(t, out); !slices.Equal(ids(got), ahead[:k]) || k < 10 {
			t.Errorf("knn --k %d --sector %s: %v, brute force %v", k, sector, ids(got), ahead[:k])
		}
		far := slices.Clone(want)
		slices.Reverse(far) // no two points are as far as each other here
		if got := q("--from", centre.id, "--sector", sector, "--desc", "--limit", "3"); !slices.Equal(ids(got), far[:3]) {
			t.Errorf("near --sector %s --desc --limit 3: %v, brute force %v", sector, ids(got), far[:3])
		}
	}
	svg := filepath.Join(dir, "sector.svg")
	if _, stderr, code := run(t, "", "--db", db, "geo", "near", "--index", "lyon", "--from", centre.id, "--radius", "5km", "--sector", "300,30", "--svg", svg); code != 0 {
		t.Fatal(stderr)
	}
	query := svgClasses(t, svg)["query"]
	if query != 1 {
		t.Errorf("the SVG draws %d query shapes", query)
	}
	if _, stderr, code := run(t, "", "--db", db, "geo", "near", "--index", "lyon", "--lat", lat, "--lon", lon, "--radius", "1km", "--bearings", "0,90"); code != 2 || !strings.Contains(stderr, "did you mean --sector?") {
		t.Errorf("--bearings: exit %d, %q", code, stderr)
	}
	for _, tc := range []struct{ sector, want string }{
		{"30", `--sector: "30": want two bearings`},
		{"30,30", "the bearings are the same"},
		{"a,b", "want two bearings"},
		{"10,Inf", "want two bearings"},
	} {
		for _, query := range [][]string{{"near", "--radius", "1km"}, {"knn", "--k", "3"}} {
			_, stderr, code := run(t, "", append(append([]string{"--db", db, "geo"}, query...), "--index", "lyon", "--lat", lat, "--lon", lon, "--sector", tc.sector)...)
			if code != 2 || !strings.Contains(stderr, tc.want) {
				t.Errorf("%s --sector %s: exit %d, %q; want a usage error mentioning %q", query[0], tc.sector, code, stderr, tc.want)
			}
		}
	}
	// k = 0 is refused with --sector as without it, not taken for no limit.
	if out, stderr, code := run(t, "", "--db", db, "geo", "knn", "--index", "lyon", "--lat", lat, "--lon", lon, "--k", "0", "--sector", "0,90"); code != 2 || !strings.Contains(stderr, "--k 0: want how many neighbours") {
		t.Errorf("knn --k 0 --sector: exit %d, %q, %d bytes out", code, stderr, len(out))
	}
}

// roundTrip exports the fence set with fence list --output geojson,
// imports it into the set "copy" and checks that fence list gives the
// same fences for both.
func roundTrip(t *testing.T, must func(args ...string) string, set string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), set+".geojson")
	if err := os.WriteFile(file, []byte(must("-o", "geojson", "fence", "list", "--fences", set)), 0o644); err != nil {
		t.Fatal(err)
	}
	must("fence", "import", "--fences", "copy", file)
	if a, b := must("-o", "json", "fence", "list", "--fences", set), must("-o", "json", "fence", "list", "--fences", "copy"); a != b {
		t.Errorf("fence import of fence list's GeoJSON:\n%s\nwant\n%s", b, a)
	}
}

// driveAbout drives a car about from (lat, lon) in 60 moves of random
// steps (sd dLat and dLon degrees), each put with geo put --fences set,
// and checks each move's enter, exit and inside against want at its two
// places (its ids holding a point, and those it is unsure of, where
// either answer goes), and that every fence holding the car is
// reported; it returns how many crossings of each kind there were.
func driveAbout(t *testing.T, must func(args ...string) string, set string, r *rand.Rand, lat, lon, dLat, dLon float64, want func(lat, lon float64) ([]string, map[string]bool)) map[string]int {
	t.Helper()
	prevLat, prevLon := lat, lon
	kinds := map[string]int{}
	for i := range 60 {
		lat, lon := prevLat+r.NormFloat64()*dLat, prevLon+r.NormFloat64()*dLon
		var got struct {
			Crossings []struct{ Fence, Kind string }
		}
		if err := json.Unmarshal([]byte(must("-o", "json", "geo", "put", "--index", "cars", "--fences", set, "--lat", fmt.Sprint(lat), "--lon", fmt.Sprint(lon), "car")), &got); err != nil {
			t.Fatal(err)
		}
		before, unsureBefore := want(prevLat, prevLon)
		after, unsureAfter := want(lat, lon)
		if i == 0 {
			before = nil
		}
		for _, c := range got.Crossings {
			kinds[c.Kind]++
			if unsureBefore[c.Fence] || unsureAfter[c.Fence] || c.Kind == "cross" {
				continue
			}
			wasIn, isIn := slices.Contains(before, c.Fence), slices.Contains(after, c.Fence)
			if wantKind := map[[2]bool]string{{false, true}: "enter", {true, false}: "exit", {true, true}: "inside"}[[2]bool{wasIn, isIn}]; c.Kind != wantKind {
				t.Fatalf("move %d to %v, %v: %s %s, the oracle says %q", i, lat, lon, c.Fence, c.Kind, wantKind)
			}
		}
		for _, id := range after {
			if !slices.ContainsFunc(got.Crossings, func(c struct{ Fence, Kind string }) bool { return c.Fence == id }) {
				t.Fatalf("move %d to %v, %v: %s holds the car but is not reported", i, lat, lon, id)
			}
		}
		prevLat, prevLon = lat, lon
	}
	return kinds
}

// destinationOf is the point d metres from (lat, lon) along bearing β
// degrees, by the textbook formula.
func destinationOf(lat, lon, d, β float64) (float64, float64) {
	φ, λ, δ, b := lat*math.Pi/180, lon*math.Pi/180, d/geo.EarthRadius, β*math.Pi/180
	φ2 := math.Asin(math.Sin(φ)*math.Cos(δ) + math.Cos(φ)*math.Sin(δ)*math.Cos(b))
	λ2 := λ + math.Atan2(math.Sin(b)*math.Sin(δ)*math.Cos(φ), math.Cos(δ)-math.Sin(φ)*math.Sin(φ2))
	return φ2 * 180 / math.Pi, λ2 * 180 / math.Pi
}

// TestFenceSectorArea: fence intersecting and fence within with --sector
// against a computation of their own. Circle fences are put round
// central Paris; each area is a slice of a circle (or, with no --radius,
// the bearings alone out to 30 km, beyond every fence). A point lies in
// it when its bearing from the centre is among the slice's (bearingTo)
// and it is within the radius; a circle fence meets the area when that
// holds its centre or a point of the area's outline (its two sides and
// its arc, sampled every few metres) lies within its radius, and lies
// within the area when that holds its centre and no point of the
// outline lies nearer it than its radius. Pairs within 5 m of touching
// may go either way. Then --svg, which draws the area and the fences
// found, and the flags' errors.
func TestFenceSectorArea(t *testing.T) {
	db := filepath.Join(t.TempDir(), "zones.db")
	ks := func(args ...string) (string, string, int) {
		return run(t, "", append([]string{"--db", db}, args...)...)
	}
	r := rand.New(rand.NewPCG(97, 98))
	fences := putZoneCircles(t, ks, r, 60, 2500)
	counts := map[string]int{}
	for i := range 16 {
		lat, lon := 48.85+r.NormFloat64()*0.03, 2.35+r.NormFloat64()*0.04
		from := math.Round(r.Float64()*360) - 90
		to := from + 20 + math.Round(r.Float64()*300)
		radius := 2000 + r.Float64()*8000
		flags := []string{"--lat", fmt.Sprint(lat), "--lon", fmt.Sprint(lon), "--sector", fmt.Sprintf("%g,%g", from, to)}
		if i%4 == 3 {
			radius = 30_000 // no --radius: the bearings alone, which no fence here reaches past
		} else {
			flags = append(flags, "--radius", fmt.Sprintf("%gm", radius))
		}
		span := math.Mod(to-from+720, 360)
		inside := func(plat, plon float64) bool {
			turn := math.Mod(bearingTo(lat, lon, plat, plon)-from+720, 360)
			return geo.Distance(lat, lon, plat, plon) <= radius && turn <= span
		}
		var outline [][2]float64
		for k := range 2001 {
			d := radius * float64(k) / 2000
			for _, b := range []float64{from, to} {
				plat, plon := destinationOf(lat, lon, d, b)
				outline = append(outline, [2]float64{plat, plon})
			}
			plat, plon := destinationOf(lat, lon, radius, from+span*float64(k)/2000)
			outline = append(outline, [2]float64{plat, plon})
		}
		// gap is how far c's centre lies from the area's outline, negative inside.
		gap := func(c zoneCircle) float64 {
			best := math.Inf(1)
			for _, p := range outline {
				best = min(best, geo.Distance(c.lat, c.lon, p[0], p[1]))
			}
			if inside(c.lat, c.lon) {
				return -best
			}
			return best
		}
		for _, cmd := range []string{"intersecting", "within"} {
			out, stderr, code := ks(append([]string{"-o", "json", "fence", cmd, "--fences", "zones"}, flags...)...)
			if code != 0 {
				t.Fatalf("fence %s %v: exit %d: %s", cmd, flags, code, stderr)
			}
			var got struct{ Fences []string }
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatal(err)
			}
			for _, id := range slices.Sorted(maps.Keys(fences)) {
				c := fences[id]
				g := gap(c)
				// Intersecting: the centre inside (g < 0), or the outline within the radius.
				margin, want := math.Abs(g-c.radius), g < c.radius
				if cmd == "within" {
					margin, want = math.Abs(-g-c.radius), -g > c.radius
				}
				if margin < 5 {
					continue
				}
				if slices.Contains(got.Fences, id) != want {
					t.Fatalf("fence %s %v: fence %s %+v (%.1f m from the outline) reported: %v", cmd, flags, id, c, g, !want)
				}
				counts[fmt.Sprint(cmd, " ", want)]++
			}
		}
	}
	for _, k := range []string{"intersecting true", "intersecting false", "within true", "within false"} {
		if counts[k] < 30 {
			t.Fatalf("too few of one answer to mean much: %v", counts)
		}
	}
	// --svg draws the area and the fences found, filled; with a sector
	// and without, with no radius, and with a stored fence as the area.
	for _, flags := range [][]string{
		{"--lat", "48.85", "--lon", "2.35", "--radius", "3km", "--sector", "300,60"},
		{"--lat", "48.85", "--lon", "2.35", "--sector", "80,100"},
		{"--min-lat", "48.84", "--min-lon", "2.33", "--max-lat", "48.86", "--max-lon", "2.37"},
		{"--fence", "z03"},
	} {
		for _, cmd := range []string{"intersecting", "within"} {
			svg := filepath.Join(t.TempDir(), "area.svg")
			out, stderr, code := ks(append([]string{"-o", "json", "fence", cmd, "--fences", "zones", "--svg", svg}, flags...)...)
			if code != 0 {
				t.Fatalf("fence %s %v --svg: exit %d: %s", cmd, flags, code, stderr)
			}
			var got struct{ Fences []string }
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatal(err)
			}
			classes := svgClasses(t, svg)
			if classes["area"] != 1 || classes["fence held"] != len(got.Fences) || classes["fence"] != 0 {
				t.Errorf("fence %s %v --svg: %v for %d fences found", cmd, flags, classes, len(got.Fences))
			}
		}
	}
	for _, bad := range []struct {
		says string
		args []string
	}{
		{"a sector wants --lat and --lon", []string{"fence", "within", "--fences", "zones", "--sector", "0,90"}},
		{"the bearings are the same", []string{"fence", "intersecting", "--fences", "zones", "--lat", "1", "--lon", "2", "--sector", "30,30"}},
		{"want two bearings", []string{"fence", "intersecting", "--fences", "zones", "--lat", "1", "--lon", "2", "--sector", "north"}},
		{"wants one region", []string{"fence", "intersecting", "--fences", "zones", "--lat", "1", "--lon", "2", "--sector", "0,90", "--min-lat", "0", "--min-lon", "0", "--max-lat", "1", "--max-lon", "1"}},
		{"--fence or a region, not both", []string{"fence", "within", "--fences", "zones", "--fence", "z00", "--sector", "0,90"}},
	} {
		if _, stderr, code := ks(bad.args...); code != 2 || !strings.Contains(stderr, bad.says) {
			t.Errorf("keyspace %s: exit %d, %q; want exit 2 saying %q", strings.Join(bad.args, " "), code, stderr, bad.says)
		}
	}
	if _, stderr, code := ks("fence", "within", "--fences", "zones", "--lat", "91", "--lon", "2", "--sector", "0,90"); code != 1 || !strings.Contains(stderr, "latitude") {
		t.Errorf("latitude 91: exit %d, %q", code, stderr)
	}
}

// TestFenceSectorFences: sectors put as fences (fence put --sector, a
// camera's view) hold the points the bearing formula puts in them (fence
// containing, against brute force over 400 points, those within a metre
// of an edge left out), report a moving point's enter, exit and inside
// as that formula says of its two places (geo put --fences), come back
// the same from fence get -o geojson through fence import, import as
// rows of a CSV file (--sector-cols) that hold what the put ones do, and
// list as sectors; bad ones are refused and write nothing.
func TestFenceSectorFences(t *testing.T) {
	db := filepath.Join(t.TempDir(), "cams.db")
	ks, must := onDB(t, db)
	r := rand.New(rand.NewPCG(99, 100))
	type sector struct{ lat, lon, radius, from, to float64 }
	cams := map[string]sector{}
	for i := range 30 {
		s := sector{48.85 + r.NormFloat64()*0.02, 2.35 + r.NormFloat64()*0.03, 300 + r.Float64()*2700, math.Round(r.Float64()*360) - 90, 0}
		s.to = s.from + 20 + math.Round(r.Float64()*300)
		id := fmt.Sprintf("cam%02d", i)
		args := []string{"fence", "put", "--fences", "cams", "--lat", fmt.Sprint(s.lat), "--lon", fmt.Sprint(s.lon), "--sector", fmt.Sprintf("%g,%g", s.from, s.to), id}
		if i%6 == 5 {
			s.radius = math.Inf(1) // the bearings alone
		} else {
			args = append(args, "--radius", fmt.Sprintf("%gm", s.radius))
		}
		cams[id] = s
		must(args...)
	}
	// The cameras with a radius again, as rows of a CSV file, imported
	// with --sector-cols: the same sectors.
	var rows strings.Builder
	rows.WriteString("id,lat,lon,reach,left,right,owner\n")
	for _, id := range slices.Sorted(maps.Keys(cams)) {
		if s := cams[id]; !math.IsInf(s.radius, 1) {
			fmt.Fprintf(&rows, "%s,%v,%v,%vm,%v,%v,city\n", id, s.lat, s.lon, s.radius, s.from, s.to)
		}
	}
	csvFile := filepath.Join(t.TempDir(), "cams.csv")
	if err := os.WriteFile(csvFile, []byte(rows.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	must("fence", "import", "--fences", "rows", "--radius-col", "reach", "--sector-cols", "left,right", csvFile)
	// holds says whether s holds the point, and whether it lies within a
	// metre of s's edges, where either answer goes.
	holds := func(s sector, lat, lon float64) (in, near bool) {
		d := geo.Distance(s.lat, s.lon, lat, lon)
		span := math.Mod(s.to-s.from+720, 360)
		turn := math.Mod(bearingTo(s.lat, s.lon, lat, lon)-s.from+720, 360)
		across := min(turn, 360-turn, math.Abs(turn-span), 360-math.Abs(turn-span)) * math.Pi / 180 * d
		return d <= s.radius && turn <= span, math.Abs(d-s.radius) < 1 || across < 1
	}
	want := func(lat, lon float64) (ids []string, unsure map[string]bool) {
		unsure = map[string]bool{}
		for _, id := range slices.Sorted(maps.Keys(cams)) {
			in, near := holds(cams[id], lat, lon)
			if near {
				unsure[id] = true
			} else if in {
				ids = append(ids, id)
			}
		}
		return ids, unsure
	}
	held := 0
	for range 400 {
		lat, lon := 48.85+r.NormFloat64()*0.03, 2.35+r.NormFloat64()*0.045
		out := must("-o", "json", "fence", "containing", "--fences", "cams", "--lat", fmt.Sprint(lat), "--lon", fmt.Sprint(lon))
		var got struct{ Fences []string }
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		ids, unsure := want(lat, lon)
		got.Fences = slices.DeleteFunc(got.Fences, func(id string) bool { return unsure[id] })
		if !slices.Equal(got.Fences, ids) {
			t.Fatalf("fence containing at %v, %v: %v, the bearing formula %v", lat, lon, got.Fences, ids)
		}
		held += len(ids)
		var fromRows struct{ Fences []string }
		if err := json.Unmarshal([]byte(must("-o", "json", "fence", "containing", "--fences", "rows", "--lat", fmt.Sprint(lat), "--lon", fmt.Sprint(lon))), &fromRows); err != nil {
			t.Fatal(err)
		}
		fromRows.Fences = slices.DeleteFunc(fromRows.Fences, func(id string) bool { return unsure[id] })
		withRadius := slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return math.IsInf(cams[id].radius, 1) })
		if !slices.Equal(fromRows.Fences, withRadius) {
			t.Fatalf("fence containing at %v, %v among the imported rows: %v, the bearing formula %v", lat, lon, fromRows.Fences, withRadius)
		}
	}
	if held < 100 {
		t.Fatalf("only %d sectors held a point: the test would not see much", held)
	}
	// A car driving about: each move's enter, exit and inside against
	// the formula at its two places.
	kinds := driveAbout(t, must, "cams", r, 48.85, 2.35, 0.008, 0.012, want)
	if kinds["enter"] < 5 || kinds["exit"] < 5 || kinds["inside"] < 5 {
		t.Fatalf("too few of a kind of crossing: %v", kinds)
	}
	roundTrip(t, must, "cams")
	if out := must("fence", "list", "--fences", "cams", "--match", "cam05"); !strings.Contains(out, "sector") || !strings.Contains(out, "bearings") {
		t.Errorf("fence list: %s", out)
	}
	for _, bad := range []struct {
		code int
		says string
		args []string
	}{
		{2, "the bearings are the same", []string{"fence", "put", "--fences", "cams", "--lat", "1", "--lon", "2", "--radius", "1km", "--sector", "30,30", "bad"}},
		{2, "a sector wants --lat and --lon", []string{"fence", "put", "--fences", "cams", "--sector", "0,90", "bad"}},
		{1, "latitude", []string{"fence", "put", "--fences", "cams", "--lat", "95", "--lon", "2", "--sector", "0,90", "bad"}},
	} {
		if _, stderr, code := ks(bad.args...); code != bad.code || !strings.Contains(stderr, bad.says) {
			t.Errorf("keyspace %s: exit %d, %q; want exit %d saying %q", strings.Join(bad.args, " "), code, stderr, bad.code, bad.says)
		}
	}
	badRow := "id,lat,lon,radius,left,right\nc1,48.8,2.3,1km,10,20\nc2,48.8,2.3,1km,north,20\n"
	if _, stderr, code := run(t, badRow, "--db", db, "fence", "import", "--fences", "bad", "--sector-cols", "left,right", "-"); code != 1 || !strings.Contains(stderr, "line 3") || !strings.Contains(stderr, `"north" is not a number`) {
		t.Errorf("a row with a bearing north: exit %d, %q", code, stderr)
	}
	if _, stderr, code := run(t, badRow, "--db", db, "fence", "import", "--fences", "bad", "--sector-cols", "left", "-"); code != 2 || !strings.Contains(stderr, "FROM,TO") {
		t.Errorf("--sector-cols of one column: exit %d, %q", code, stderr)
	}
	if out := must("stats"); strings.Contains(out, " bad ") {
		t.Errorf("a refused import wrote the set: %s", out)
	}
	noFrom := `{"type":"FeatureCollection","features":[{"type":"Feature","id":"x","geometry":{"type":"Point","coordinates":[2,48]},"properties":{"fence":"sector","to":90,"radius":100}}]}`
	if _, stderr, code := run(t, noFrom, "--db", db, "fence", "import", "--fences", "cams", "-"); code != 1 || !strings.Contains(stderr, "from property") {
		t.Errorf("a sector with no from: exit %d, %q", code, stderr)
	}
	if out := must("-o", "json", "fence", "list", "--fences", "cams"); strings.Contains(out, `"bad"`) || strings.Contains(out, `"x"`) {
		t.Errorf("refused fences were written: %s", out)
	}
}
