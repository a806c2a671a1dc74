package cli_test

import (
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
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
	if out, stderr, code := run(t, "", "--db", db, "geo", "knn", "--index", "lyon", "--lat", lat, "--lon", lon, "--k", "0", "--sector", "0,90"); code != 1 || !strings.Contains(stderr, "k = 0") {
		t.Errorf("knn --k 0 --sector: exit %d, %q, %d bytes out", code, stderr, len(out))
	}
}
