package cli_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mmcloughlin/geohash"

	"github.com/keyspacedb/keyspace/geo"
)

// areaOracle is a named area's box worked out here, from the Web
// Mercator formulas and by bisecting a geohash's bits, not by the
// functions the command calls.
type areaOracle struct {
	flag, value                    string
	minLat, minLon, maxLat, maxLon float64
}

func tileOracle(z, x, y int) areaOracle {
	n := math.Exp2(float64(z))
	lat := func(y int) float64 { return math.Atan(math.Sinh(math.Pi*(1-2*float64(y)/n))) * 180 / math.Pi }
	return areaOracle{"--tile", fmt.Sprintf("%d/%d/%d", z, x, y), lat(y + 1), 360*float64(x)/n - 180, lat(y), 360*float64(x+1)/n - 180}
}

func quadkeyOracle(z, x, y int) areaOracle {
	a := tileOracle(z, x, y)
	var q strings.Builder
	for i := z - 1; i >= 0; i-- {
		q.WriteByte(byte('0' + (x>>i)&1 + 2*((y>>i)&1)))
	}
	a.flag, a.value = "--quadkey", q.String()
	return a
}

func hashOracle(h string) areaOracle {
	a := areaOracle{"--hash", h, -90, -180, 90, 180}
	lon := true
	for _, c := range h {
		v := strings.IndexRune("0123456789bcdefghjkmnpqrstuvwxyz", c)
		for bit := 4; bit >= 0; bit-- {
			lo, hi := &a.minLat, &a.maxLat
			if lon {
				lo, hi = &a.minLon, &a.maxLon
			}
			if mid := (*lo + *hi) / 2; v>>bit&1 == 1 {
				*lo = mid
			} else {
				*hi = mid
			}
			lon = !lon
		}
	}
	return a
}

// holds says whether the area holds the point, edges included, with
// longitudes 180 and -180 one meridian, as a geo.Box's.
func (a areaOracle) holds(lat, lon float64) bool {
	if lat < a.minLat || lat > a.maxLat {
		return false
	}
	in := func(lon float64) bool { return a.minLon <= lon && lon <= a.maxLon }
	return in(lon) || (math.Abs(lon) == 180 && in(-lon))
}

// TestAreaFlags holds geo box, geo cells, fence put and fence
// intersecting with --tile, --quadkey and --hash to brute force over the
// same points: around San Francisco, on a tile's edges, on the
// antimeridian and beyond Web Mercator's ±85.0511°.
func TestAreaFlags(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "areas.db")
	rng := rand.New(rand.NewPCG(11, 12))
	var pts []city
	add := func(lat, lon float64) { pts = append(pts, city{fmt.Sprintf("p%d", len(pts)), lat, lon}) }
	for range 500 {
		add(37.5+rng.Float64()*0.6, -122.8+rng.Float64()*0.8)
	}
	for range 60 {
		add(rng.Float64()*170-85, 179+rng.Float64())
		add(rng.Float64()*170-85, -180+rng.Float64())
	}
	// On the west and east edges of tile 12/655/1583 (longitudes exact in
	// binary), on the antimeridian, and nearer the poles than any tile.
	add(37.75, -122.431640625)
	add(37.75, -122.34375)
	add(10, 180)
	add(-20, -180)
	add(86, 10)
	add(-89.5, -40)
	var csv strings.Builder
	csv.WriteString("id,lat,lon\n")
	for _, p := range pts {
		fmt.Fprintf(&csv, "%s,%v,%v\n", p.id, p.lat, p.lon)
	}
	file := filepath.Join(dir, "points.csv")
	if err := os.WriteFile(file, []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := run(t, "", "--db", db, "geo", "import", "--index", "pts", file); code != 0 {
		t.Fatalf("import: %d %s", code, stderr)
	}

	tileOf := func(z int, lat, lon float64) (int, int) {
		n := math.Exp2(float64(z))
		phi := lat * math.Pi / 180
		x := math.Floor((lon + 180) / 360 * n)
		y := math.Floor((1 - math.Log(math.Tan(phi)+1/math.Cos(phi))/math.Pi) / 2 * n)
		return min(int(x), int(n)-1), min(int(y), int(n)-1)
	}
	var areas []areaOracle
	for _, z := range []int{0, 1, 3, 6, 9, 12, 14} {
		p := pts[rng.IntN(500)]
		x, y := tileOf(z, p.lat, p.lon)
		areas = append(areas, tileOracle(z, x, y))
		if z > 0 { // a quadkey has a digit a zoom level, so none at zoom 0
			areas = append(areas, quadkeyOracle(z, x, y))
		}
		// The first and last columns, which meet at the antimeridian.
		q := pts[500+rng.IntN(120)]
		_, y = tileOf(z, q.lat, q.lon)
		areas = append(areas, tileOracle(z, 0, y), tileOracle(z, (1<<z)-1, y))
	}
	// Tile 12/655/1583 and its neighbours west and east, which share the
	// points on its edges.
	areas = append(areas, tileOracle(12, 655, 1583), tileOracle(12, 654, 1583), tileOracle(12, 656, 1583), tileOracle(1, 1, 0))
	for n := 1; n <= 7; n++ {
		p := pts[rng.IntN(len(pts))]
		areas = append(areas, hashOracle(geohash.EncodeWithPrecision(p.lat, p.lon, uint(n))))
	}
	areas = append(areas, hashOracle("pbp"), hashOracle("0"), hashOracle("z"))

	found := 0 // the areas that hold a point, lest the test hold none
	for _, a := range areas {
		var want []string
		for _, p := range pts {
			if a.holds(p.lat, p.lon) {
				want = append(want, p.id)
			}
		}
		out, stderr, code := run(t, "", "--db", db, "geo", "box", "--index", "pts", a.flag, a.value, "--output", "ndjson")
		if code != 0 {
			t.Fatalf("geo box %s %s: %d %s", a.flag, a.value, code, stderr)
		}
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var r struct{ ID string }
			if line == "" {
				continue
			}
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("geo box %s %s: %v in %q", a.flag, a.value, err, line)
			}
			got = append(got, r.ID)
		}
		if len(want) > 0 {
			found++
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("geo box %s %s (%+v): %d points %v, brute force %d %v", a.flag, a.value, a, len(got), got, len(want), want)
		}

		out, stderr, code = run(t, "", "--db", db, "geo", "cells", "--index", "pts", "--precision", "4", a.flag, a.value, "--output", "ndjson")
		if code != 0 {
			t.Fatalf("geo cells %s %s: %d %s", a.flag, a.value, code, stderr)
		}
		counted := 0
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var c struct{ Count int }
			if line != "" {
				if err := json.Unmarshal([]byte(line), &c); err != nil {
					t.Fatal(err)
				}
			}
			counted += c.Count
		}
		if counted != len(want) {
			t.Errorf("geo cells %s %s: %d points counted, brute force %d", a.flag, a.value, counted, len(want))
		}
	}

	if found < len(areas)*3/4 {
		t.Errorf("only %d of %d areas hold a point", found, len(areas))
	}

	// Fences made of areas hold what the areas do, and an area meets the
	// fences its corners' box meets.
	fenced := []areaOracle{tileOracle(12, 655, 1583), quadkeyOracle(9, 81, 197), hashOracle("9q8y"), tileOracle(2, 3, 1)}
	for i, a := range fenced {
		if _, stderr, code := run(t, "", "--db", db, "fence", "put", "--fences", "zones", a.flag, a.value, fmt.Sprint("f", i)); code != 0 {
			t.Fatalf("fence put %s %s: %d %s", a.flag, a.value, code, stderr)
		}
	}
	fenceIDs := func(args ...string) []string {
		t.Helper()
		out, stderr, code := run(t, "", append([]string{"--db", db, "fence"}, append(args, "--fences", "zones", "--output", "json")...)...)
		if code != 0 {
			t.Fatalf("fence %v: %d %s", args, code, stderr)
		}
		var r struct{ Fences []string }
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		slices.Sort(r.Fences)
		return r.Fences
	}
	for _, p := range append(pts[:40:40], pts[len(pts)-6:]...) {
		var want []string
		for i, a := range fenced {
			if a.holds(p.lat, p.lon) {
				want = append(want, fmt.Sprint("f", i))
			}
		}
		if got := fenceIDs("containing", "--lat", fmt.Sprint(p.lat), "--lon", fmt.Sprint(p.lon)); !slices.Equal(got, want) {
			t.Errorf("fence containing (%v, %v): %v, brute force %v", p.lat, p.lon, got, want)
		}
	}
	for _, a := range append(fenced, hashOracle("9q8z"), tileOracle(13, 1311, 3166), quadkeyOracle(3, 1, 3)) {
		b := func() geo.Box {
			switch a.flag {
			case "--tile":
				var z, x, y int
				fmt.Sscanf(a.value, "%d/%d/%d", &z, &x, &y)
				b, _ := geo.TileBox(z, x, y)
				return b
			case "--quadkey":
				b, _ := geo.QuadkeyBox(a.value)
				return b
			}
			b, _ := geo.HashBox(a.value)
			return b
		}()
		byCorners := fenceIDs("intersecting", "--min-lat", fmt.Sprint(b.MinLat), "--min-lon", fmt.Sprint(b.MinLon), "--max-lat", fmt.Sprint(b.MaxLat), "--max-lon", fmt.Sprint(b.MaxLon))
		if got := fenceIDs("intersecting", a.flag, a.value); !slices.Equal(got, byCorners) || len(got) == 0 {
			t.Errorf("fence intersecting %s %s: %v; by the box's corners %v", a.flag, a.value, got, byCorners)
		}
	}

	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"geo", "box", "--index", "pts", "--tile", "12/4096/0"}, "--tile: geo: invalid query: tile 12/4096/0: zoom 12 has tiles 0 to 4095"},
		{[]string{"geo", "box", "--index", "pts", "--tile", "12/655"}, `--tile: "12/655": want the tile's zoom, x and y as Z/X/Y`},
		{[]string{"geo", "box", "--index", "pts", "--tile", "31/0/0"}, "zoom 31 is outside 0 to 30"},
		{[]string{"geo", "box", "--index", "pts", "--quadkey", "0241"}, `--quadkey: geo: invalid query: quadkey "0241": '4' at 3`},
		{[]string{"geo", "box", "--index", "pts", "--hash", "9qa"}, `--hash: geo: invalid query: geohash "9qa": 'a' at 3`},
		{[]string{"geo", "box", "--index", "pts", "--hash", "9q", "--tile", "1/0/0"}, "--tile and --hash name one area each"},
		{[]string{"geo", "box", "--index", "pts", "--hash", "9q", "--min-lat", "1"}, "give a box by its corners or by --tile, --quadkey or --hash, not both"},
		{[]string{"geo", "box", "--index", "pts", "--hash", "9q", "--lat", "1", "--lon", "2", "--width", "1km", "--height", "1km"}, "not both"},
		{[]string{"geo", "cells", "--index", "pts", "--quadkey", ""}, `quadkey "": want 1 to 30 digits`},
		{[]string{"fence", "put", "--fences", "zones", "--hash", "9q", "--lat", "1", "--lon", "2", "--radius", "1km", "x"}, "wants one region"},
		{[]string{"fence", "intersecting", "--fences", "zones", "--fence", "f0", "--tile", "1/0/0"}, "--fence or a region, not both"},
	} {
		_, stderr, code := run(t, "", append([]string{"--db", db}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.says) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, stderr, c.says)
		}
	}
}
