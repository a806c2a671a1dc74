package cli_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/keyspacedb/keyspace/geo"
)

// TestFenceIntersecting: fence intersecting against a computation of its
// own. Sixty circles of 200 m to 5 km are put round central Paris; areas
// are circles, boxes and a polygon. A circle meets a circle when their
// centres are at most the sum of their radii apart; a box or a polygon
// meets a circle when it holds the centre or a point of its outline,
// sampled every few metres, lies within the radius. Pairs within 5 m of
// touching may go either way. Then the flags' errors.
func TestFenceIntersecting(t *testing.T) {
	db := filepath.Join(t.TempDir(), "zones.db")
	ks := func(args ...string) (string, string, int) {
		return run(t, "", append([]string{"--db", db}, args...)...)
	}
	r := rand.New(rand.NewPCG(91, 92))
	fences := putZoneCircles(t, ks, r, 60, 4800)
	// ask runs fence intersecting with the area's flags, and compares
	// with gap: how far (metres) each fence's circle lies from the area,
	// negative when they overlap.
	met := 0
	ask := func(flags []string, gap func(c zoneCircle) float64) {
		t.Helper()
		out, stderr, code := ks(append([]string{"-o", "json", "fence", "intersecting", "--fences", "zones"}, flags...)...)
		if code != 0 {
			t.Fatalf("fence intersecting %v: exit %d: %s", flags, code, stderr)
		}
		var got struct{ Fences []string }
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		for _, id := range slices.Sorted(maps.Keys(fences)) {
			g := gap(fences[id])
			if math.Abs(g) < 5 {
				continue
			}
			if slices.Contains(got.Fences, id) != (g < 0) {
				t.Fatalf("fence intersecting %v: fence %s %+v (%.1f m from the area) reported: %v", flags, id, fences[id], g, !(g < 0))
			}
			if g < 0 {
				met++
			}
		}
	}
	// outlineGap is the gap for an area whose outline is the ring (lat,
	// lon pairs) and that holds a point when inside says so.
	outlineGap := func(ring [][2]float64, inside func(lat, lon float64) bool) func(c zoneCircle) float64 {
		return func(c zoneCircle) float64 {
			if inside(c.lat, c.lon) {
				return -c.radius
			}
			best := math.Inf(1)
			for i := 1; i < len(ring); i++ {
				for k := range 2001 {
					f := float64(k) / 2000
					lat, lon := ring[i-1][0]+f*(ring[i][0]-ring[i-1][0]), ring[i-1][1]+f*(ring[i][1]-ring[i-1][1])
					best = min(best, geo.Distance(c.lat, c.lon, lat, lon))
				}
			}
			return best - c.radius
		}
	}
	for range 15 {
		a := zoneCircle{48.85 + r.NormFloat64()*0.05, 2.35 + r.NormFloat64()*0.07, r.Float64() * 3000}
		ask([]string{"--lat", fmt.Sprint(a.lat), "--lon", fmt.Sprint(a.lon), "--radius", fmt.Sprintf("%gm", a.radius)}, func(c zoneCircle) float64 {
			return geo.Distance(a.lat, a.lon, c.lat, c.lon) - a.radius - c.radius
		})
		s, w := 48.85+r.NormFloat64()*0.05, 2.35+r.NormFloat64()*0.07
		n, e := s+r.Float64()*0.03, w+r.Float64()*0.05
		ask([]string{"--min-lat", fmt.Sprint(s), "--min-lon", fmt.Sprint(w), "--max-lat", fmt.Sprint(n), "--max-lon", fmt.Sprint(e)},
			outlineGap([][2]float64{{s, w}, {s, e}, {n, e}, {n, w}, {s, w}}, func(lat, lon float64) bool { return lat >= s && lat <= n && lon >= w && lon <= e }))
	}
	// A triangle, as a GeoJSON polygon.
	tri := [][2]float64{{48.82, 2.30}, {48.82, 2.40}, {48.88, 2.35}, {48.82, 2.30}}
	ask([]string{"--polygon", `{"type":"Polygon","coordinates":[[[2.30,48.82],[2.40,48.82],[2.35,48.88],[2.30,48.82]]]}`},
		outlineGap(tri, func(lat, lon float64) bool { // left of every edge, anticlockwise
			for i := 1; i < len(tri); i++ {
				a, b := tri[i-1], tri[i]
				if (b[1]-a[1])*(lat-a[0])-(b[0]-a[0])*(lon-a[1]) < 0 {
					return false
				}
			}
			return true
		}))
	// A stored fence as the area: what its circle meets, less itself.
	for _, id := range []string{"z00", "z07", "z31"} {
		c := fences[id]
		ask([]string{"--fence", id}, func(o zoneCircle) float64 {
			if o == c {
				return 1e9 // itself: left out
			}
			return geo.Distance(c.lat, c.lon, o.lat, o.lon) - c.radius - o.radius
		})
	}
	if met < 50 {
		t.Fatalf("only %d fences met an area: the test would not see much", met)
	}
	// fence list --match, against path.Match over the ids.
	for _, pattern := range []string{"z0?", "z*5", "*", "q*"} {
		out, stderr, code := ks("-o", "json", "fence", "list", "--fences", "zones", "--match", pattern)
		if code != 0 {
			t.Fatalf("fence list --match %s: exit %d: %s", pattern, code, stderr)
		}
		var got struct{ Fences []struct{ ID string } }
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		var ids, want []string
		for _, f := range got.Fences {
			ids = append(ids, f.ID)
		}
		for _, id := range slices.Sorted(maps.Keys(fences)) {
			if ok, _ := path.Match(pattern, id); ok {
				want = append(want, id)
			}
		}
		if !slices.Equal(ids, want) {
			t.Errorf("fence list --match %s: %v, want %v", pattern, ids, want)
		}
	}
	for _, bad := range []struct {
		says string
		args []string
	}{
		{"wants one region", []string{"fence", "intersecting", "--fences", "zones"}},
		{"a circle wants --lat, --lon and --radius", []string{"fence", "intersecting", "--fences", "zones", "--lat", "1"}},
		{"wants one region", []string{"fence", "intersecting", "--fences", "zones", "--lat", "1", "--lon", "2", "--radius", "1km", "--min-lat", "0", "--min-lon", "0", "--max-lat", "1", "--max-lon", "1"}},
		{"takes no arguments", []string{"fence", "intersecting", "--fences", "zones", "--lat", "1", "--lon", "2", "--radius", "1km", "extra"}},
		{"--fence or a region, not both", []string{"fence", "intersecting", "--fences", "zones", "--fence", "z00", "--min-lat", "1"}},
	} {
		if _, stderr, code := ks(bad.args...); code != 2 || !strings.Contains(stderr, bad.says) {
			t.Errorf("keyspace %s: exit %d, %q; want exit 2 saying %q", strings.Join(bad.args, " "), code, stderr, bad.says)
		}
	}
	if _, stderr, code := ks("fence", "intersecting", "--fences", "zones", "--lat", "91", "--lon", "2", "--radius", "1km"); code != 1 || !strings.Contains(stderr, "latitude") {
		t.Errorf("latitude 91: exit %d, %q", code, stderr)
	}
}

// TestFenceWithin: fence within against a computation of its own.
// Eighty circles of 200 m to 1.7 km are put round central Paris; areas are
// circles, boxes, a polygon and stored fences. A circle lies within a
// circle when the distance of their centres and its radius add up to at
// most the area's radius; within a box or a polygon when the area holds
// its centre and no point of the area's outline, sampled every few
// metres, lies nearer the centre than its radius. Pairs within 5 m of
// touching may go either way. Then the flags' errors.
func TestFenceWithin(t *testing.T) {
	db := filepath.Join(t.TempDir(), "zones.db")
	ks := func(args ...string) (string, string, int) {
		return run(t, "", append([]string{"--db", db}, args...)...)
	}
	r := rand.New(rand.NewPCG(95, 96))
	fences := putZoneCircles(t, ks, r, 80, 1500)
	// ask runs fence within with the area's flags, and compares with
	// beyond: how far (metres) each fence's circle reaches past the
	// area's edge, negative when it stays inside.
	within, not := 0, 0
	ask := func(flags []string, beyond func(c zoneCircle) float64) {
		t.Helper()
		out, stderr, code := ks(append([]string{"-o", "json", "fence", "within", "--fences", "zones"}, flags...)...)
		if code != 0 {
			t.Fatalf("fence within %v: exit %d: %s", flags, code, stderr)
		}
		var got struct{ Fences []string }
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		for _, id := range slices.Sorted(maps.Keys(fences)) {
			b := beyond(fences[id])
			if math.Abs(b) < 5 {
				continue
			}
			if slices.Contains(got.Fences, id) != (b < 0) {
				t.Fatalf("fence within %v: fence %s %+v (reaching %.1f m past the area) reported: %v", flags, id, fences[id], b, !(b < 0))
			}
			if b < 0 {
				within++
			} else {
				not++
			}
		}
	}
	outlineBeyond := func(ring [][2]float64, inside func(lat, lon float64) bool) func(c zoneCircle) float64 {
		return func(c zoneCircle) float64 {
			best := math.Inf(1)
			for i := 1; i < len(ring); i++ {
				for k := range 4001 {
					f := float64(k) / 4000
					lat, lon := ring[i-1][0]+f*(ring[i][0]-ring[i-1][0]), ring[i-1][1]+f*(ring[i][1]-ring[i-1][1])
					best = min(best, geo.Distance(c.lat, c.lon, lat, lon))
				}
			}
			if !inside(c.lat, c.lon) {
				return c.radius + best
			}
			return c.radius - best
		}
	}
	for range 12 {
		a := zoneCircle{48.85 + r.NormFloat64()*0.03, 2.35 + r.NormFloat64()*0.04, 2000 + r.Float64()*8000}
		ask([]string{"--lat", fmt.Sprint(a.lat), "--lon", fmt.Sprint(a.lon), "--radius", fmt.Sprintf("%gm", a.radius)}, func(c zoneCircle) float64 {
			return geo.Distance(a.lat, a.lon, c.lat, c.lon) + c.radius - a.radius
		})
		s, w := 48.80+r.NormFloat64()*0.03, 2.28+r.NormFloat64()*0.04
		n, e := s+0.03+r.Float64()*0.08, w+0.05+r.Float64()*0.1
		ask([]string{"--min-lat", fmt.Sprint(s), "--min-lon", fmt.Sprint(w), "--max-lat", fmt.Sprint(n), "--max-lon", fmt.Sprint(e)},
			outlineBeyond([][2]float64{{s, w}, {s, e}, {n, e}, {n, w}, {s, w}}, func(lat, lon float64) bool { return lat >= s && lat <= n && lon >= w && lon <= e }))
	}
	// A triangle, as a GeoJSON polygon.
	tri := [][2]float64{{48.80, 2.25}, {48.80, 2.45}, {48.92, 2.35}, {48.80, 2.25}}
	ask([]string{"--polygon", `{"type":"Polygon","coordinates":[[[2.25,48.80],[2.45,48.80],[2.35,48.92],[2.25,48.80]]]}`},
		outlineBeyond(tri, func(lat, lon float64) bool { // left of every edge, anticlockwise
			for i := 1; i < len(tri); i++ {
				a, b := tri[i-1], tri[i]
				if (b[1]-a[1])*(lat-a[0])-(b[0]-a[0])*(lon-a[1]) < 0 {
					return false
				}
			}
			return true
		}))
	// A stored fence as the area: the circles inside it, less itself.
	for _, id := range []string{"z00", "z07", "z31", "z52"} {
		c := fences[id]
		ask([]string{"--fence", id}, func(o zoneCircle) float64 {
			if o == c {
				return 1e9 // itself: left out
			}
			return geo.Distance(c.lat, c.lon, o.lat, o.lon) + o.radius - c.radius
		})
	}
	if within < 50 || not < 50 {
		t.Fatalf("%d fences within an area, %d not: the test would not see much", within, not)
	}
	for _, bad := range []struct {
		says string
		args []string
	}{
		{"wants one region", []string{"fence", "within", "--fences", "zones"}},
		{"--fence or a region, not both", []string{"fence", "within", "--fences", "zones", "--fence", "z00", "--min-lat", "1"}},
	} {
		if _, stderr, code := ks(bad.args...); code != 2 || !strings.Contains(stderr, bad.says) {
			t.Errorf("keyspace %s: exit %d, %q; want exit 2 saying %q", strings.Join(bad.args, " "), code, stderr, bad.says)
		}
	}
	if _, stderr, code := ks("fence", "within", "--fences", "zonse", "--lat", "1", "--lon", "2", "--radius", "1km"); code != 1 || !strings.Contains(stderr, "zonse") {
		t.Errorf("an unknown set: exit %d, %q", code, stderr)
	}
}

// TestFenceNear: fence near against the circles' own distances (how far
// the point is from the centre, less the radius; 0 inside), within radii
// of 0 to the whole sphere, all of them or the first k, from points among
// them and far off and from a geo point; then the flags' errors.
func TestFenceNear(t *testing.T) {
	db := filepath.Join(t.TempDir(), "zones.db")
	ks := func(args ...string) (string, string, int) {
		return run(t, "", append([]string{"--db", db}, args...)...)
	}
	r := rand.New(rand.NewPCG(93, 94))
	fences := putZoneCircles(t, ks, r, 30, 2000)
	type near struct {
		ID        string  `json:"id"`
		DistanceM float64 `json:"distance_m"`
	}
	found := 0
	check := func(lat, lon, radius float64, k int, args ...string) {
		t.Helper()
		args = append([]string{"-o", "json", "fence", "near", "--fences", "zones", "--radius", fmt.Sprintf("%gm", radius), "--k", fmt.Sprint(k)}, args...)
		out, stderr, code := ks(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var got struct{ Fences []near }
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		var want []near
		for id, c := range fences {
			if d := max(0, geo.Distance(lat, lon, c.lat, c.lon)-c.radius); d <= radius {
				want = append(want, near{id, d})
			}
		}
		slices.SortFunc(want, func(a, b near) int {
			return cmp.Or(cmp.Compare(a.DistanceM, b.DistanceM), strings.Compare(a.ID, b.ID))
		})
		if k > 0 {
			want = want[:min(k, len(want))]
		}
		if len(got.Fences) != len(want) {
			t.Fatalf("%v: %d fences, want %d", args, len(got.Fences), len(want))
		}
		for i := range want {
			if got.Fences[i].ID != want[i].ID || math.Abs(got.Fences[i].DistanceM-want[i].DistanceM) > 1e-6 {
				t.Fatalf("%v: %+v, want %+v", args, got.Fences, want)
			}
		}
		found += len(want)
	}
	for i := range 16 {
		lat, lon := 48.85+r.NormFloat64()*0.08, 2.35+r.NormFloat64()*0.1
		if i%4 == 3 {
			lat, lon = r.Float64()*170-85, r.Float64()*360-180 // anywhere
		}
		check(lat, lon, []float64{0, 1000, 5000, 2e7}[i%4], []int{0, 3}[i/4%2], "--lat", fmt.Sprint(lat), "--lon", fmt.Sprint(lon))
	}
	if _, stderr, code := ks("geo", "put", "--index", "fleet", "--lat", "48.86", "--lon", "2.36", "van"); code != 0 {
		t.Fatal(stderr)
	}
	check(48.86, 2.36, 3000, 3, "--index", "fleet", "--from", "van")
	if found < 40 {
		t.Fatalf("only %d fences found in all: the test would not see much", found)
	}
	for _, bad := range []struct {
		says string
		args []string
	}{
		{"wants --lat and --lon, or --index and --from", []string{"fence", "near", "--fences", "zones", "--radius", "1km"}},
		{"--lat wants --lon", []string{"fence", "near", "--fences", "zones", "--radius", "1km", "--lat", "1"}},
		{"--k -1", []string{"fence", "near", "--fences", "zones", "--radius", "1km", "--lat", "1", "--lon", "2", "--k", "-1"}},
		{"--radius", []string{"fence", "near", "--fences", "zones", "--radius", "far", "--lat", "1", "--lon", "2"}},
		{"takes no arguments", []string{"fence", "near", "--fences", "zones", "--radius", "1km", "--lat", "1", "--lon", "2", "x"}},
	} {
		if _, stderr, code := ks(bad.args...); code != 2 || !strings.Contains(stderr, bad.says) {
			t.Errorf("keyspace %s: exit %d, %q; want exit 2 saying %q", strings.Join(bad.args, " "), code, stderr, bad.says)
		}
	}
}

// A zoneCircle is a circle fence a test put, as the test's own oracle
// holds it.
// askDistances runs the command args, which answers fence ids as JSON,
// and checks them against beyond, how far each circle fence lies beyond
// what the command asks (negative within it): the fences within are
// reported and the others not, but for those within 5 m of the edge. It
// counts the decided fences in near and far, and returns the answer.
func askDistances(t *testing.T, ks func(args ...string) (string, string, int), fences map[string]zoneCircle, beyond func(c zoneCircle) float64, near, far *int, args ...string) []string {
	t.Helper()
	out, stderr, code := ks(args...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	var got struct{ Fences []string }
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	for _, id := range slices.Sorted(maps.Keys(fences)) {
		g := beyond(fences[id])
		if math.Abs(g) < 5 {
			continue
		}
		if slices.Contains(got.Fences, id) != (g < 0) {
			t.Fatalf("%v: fence %s %+v (%.1f m beyond) reported: %v", args, id, fences[id], g, g >= 0)
		}
		if g < 0 {
			*near++
		} else {
			*far++
		}
	}
	return got.Fences
}

type zoneCircle struct{ lat, lon, radius float64 }

// putZoneCircles puts n circle fences z00, z01, … into the fence set
// zones round central Paris, of 200 m to 200 m + spread metres, and
// returns them by id.
func putZoneCircles(t *testing.T, ks func(args ...string) (string, string, int), r *rand.Rand, n int, spread float64) map[string]zoneCircle {
	t.Helper()
	fences := map[string]zoneCircle{}
	for i := range n {
		c := zoneCircle{48.85 + r.NormFloat64()*0.05, 2.35 + r.NormFloat64()*0.07, 200 + r.Float64()*spread}
		id := fmt.Sprintf("z%02d", i)
		fences[id] = c
		if _, stderr, code := ks("fence", "put", "--fences", "zones", "--lat", fmt.Sprint(c.lat), "--lon", fmt.Sprint(c.lon), "--radius", fmt.Sprintf("%gm", c.radius), id); code != 0 {
			t.Fatal(stderr)
		}
	}
	return fences
}

// TestFenceAlong: fence along against a computation of its own. Sixty
// circles of 200 m to 5 km are put round central Paris, and asked for
// along a meridian through it: a circle comes within the radius of the
// meridian's segment when its centre does within the radius and its
// own, the centre's distance being the cross-track distance where the
// centre's latitude lies between the segment's ends, and the nearer
// end's beyond them. Fences within 5 m of the edge may go either way.
// Then a polygon the line crosses at radius 0, the SVG and the errors.
func TestFenceAlong(t *testing.T) {
	db := filepath.Join(t.TempDir(), "zones.db")
	ks := func(args ...string) (string, string, int) {
		return run(t, "", append([]string{"--db", db}, args...)...)
	}
	r := rand.New(rand.NewPCG(93, 94))
	fences := putZoneCircles(t, ks, r, 60, 4800)
	const lon0, lat0, lat1 = 2.35, 48.82, 48.88
	line := fmt.Sprintf(`{"type":"LineString","coordinates":[[%v,%v],[%v,%v]]}`, lon0, lat0, lon0, lat1)
	gap := func(c zoneCircle) float64 {
		switch {
		case c.lat < lat0:
			return geo.Distance(lat0, lon0, c.lat, c.lon) - c.radius
		case c.lat > lat1:
			return geo.Distance(lat1, lon0, c.lat, c.lon) - c.radius
		}
		return geo.EarthRadius*math.Abs(math.Asin(math.Sin((c.lon-lon0)*math.Pi/180)*math.Cos(c.lat*math.Pi/180))) - c.radius
	}
	var near, far, at300 int
	for _, radius := range []float64{0, 300, 2000} {
		got := askDistances(t, ks, fences, func(c zoneCircle) float64 { return gap(c) - radius }, &near, &far,
			"-o", "json", "fence", "along", "--fences", "zones", "--line", line, "--radius", fmt.Sprintf("%gm", radius))
		if radius == 300 {
			at300 = len(got)
		}
	}
	if near < 20 || far < 20 {
		t.Fatalf("%d fences near, %d far: too few of one to mean much", near, far)
	}
	// A triangle east of the meridian, which the line's second edge
	// crosses at radius 0, with no position inside it; the default radius
	// is 0.
	runOK(t, "", "--db", db, "fence", "put", "--fences", "zones", "--polygon", `{"type":"Polygon","coordinates":[[[2.40,48.80],[2.50,48.80],[2.45,48.90],[2.40,48.80]]]}`, "tri")
	bent := `{"type":"LineString","coordinates":[[2.35,48.85],[2.44,48.85],[2.44,48.60]]}`
	if out := runOK(t, "", "--db", db, "-o", "json", "fence", "along", "--fences", "zones", "--line", bent); !strings.Contains(out, `"tri"`) {
		t.Errorf("a line through the triangle: %s", out)
	}
	// --svg draws the corridor (the line and its edge's capsule) and
	// the fences found.
	svg := filepath.Join(t.TempDir(), "along.svg")
	runOK(t, "", "--db", db, "fence", "along", "--fences", "zones", "--line", line, "--radius", "300m", "--svg", svg)
	if classes := svgClasses(t, svg); classes["area"] != 2 || classes["fence held"] != at300 {
		t.Errorf("SVG classes %v: want 2 outlines of the area and %d fences", classes, at300)
	}
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--radius", "1km"}, "needs --line"},
		{[]string{"--line", line, "--radius", "-1km"}, "--radius"},
		{[]string{"--line", `{"type":"Point","coordinates":[2.35,48.85]}`}, "LineString"},
		{[]string{"--line", `{"type":"LineString","coordinates":[[2.35,48.85]]}`}, "at least 2"},
	} {
		if _, stderr, code := ks(append([]string{"fence", "along", "--fences", "zones"}, c.args...)...); code == 0 || !strings.Contains(stderr, c.says) {
			t.Errorf("fence along %v: exit %d, %q; want it to say %q", c.args, code, stderr, c.says)
		}
	}
}

// TestFenceIntersectingBuffer: fence intersecting --polygon --buffer
// against a computation of its own. Sixty circles round central Paris;
// the area is a square 0.04° on a side. A circle lies within the buffer
// of the square when its centre does within the buffer and its radius:
// the centre's distance from the square is 0 inside it, and outside it
// the least distance to its outline, sampled every few metres. Fences
// within 5 m of the edge may go either way. Then the errors.
func TestFenceIntersectingBuffer(t *testing.T) {
	db := filepath.Join(t.TempDir(), "zones.db")
	ks := func(args ...string) (string, string, int) {
		return run(t, "", append([]string{"--db", db}, args...)...)
	}
	r := rand.New(rand.NewPCG(97, 98))
	fences := putZoneCircles(t, ks, r, 60, 2000)
	square := [][2]float64{{48.83, 2.33}, {48.83, 2.37}, {48.87, 2.37}, {48.87, 2.33}, {48.83, 2.33}} // lat, lon
	polygon := `{"type":"Polygon","coordinates":[[[2.33,48.83],[2.37,48.83],[2.37,48.87],[2.33,48.87],[2.33,48.83]]]}`
	distance := func(c zoneCircle) float64 {
		if c.lat >= 48.83 && c.lat <= 48.87 && c.lon >= 2.33 && c.lon <= 2.37 {
			return 0
		}
		best := math.Inf(1)
		for i := 1; i < len(square); i++ {
			for k := range 4001 {
				f := float64(k) / 4000
				lat, lon := square[i-1][0]+f*(square[i][0]-square[i-1][0]), square[i-1][1]+f*(square[i][1]-square[i-1][1])
				best = min(best, geo.Distance(c.lat, c.lon, lat, lon))
			}
		}
		return best
	}
	var near, far int
	for _, buffer := range []float64{0, 500, 3000} {
		askDistances(t, ks, fences, func(c zoneCircle) float64 { return distance(c) - c.radius - buffer }, &near, &far,
			"-o", "json", "fence", "intersecting", "--fences", "zones", "--polygon", polygon, "--buffer", fmt.Sprintf("%gm", buffer))
	}
	if near < 20 || far < 20 {
		t.Fatalf("%d fences near, %d far: too few of one to mean much", near, far)
	}
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--lat", "48.85", "--lon", "2.35", "--radius", "1km", "--buffer", "1km"}, "--buffer goes with a polygon"},
		{[]string{"--fence", "z00", "--buffer", "1km"}, "z00 is not one"},
		{[]string{"--polygon", polygon, "--buffer", "-1km"}, "--buffer"},
	} {
		if _, stderr, code := ks(append([]string{"fence", "intersecting", "--fences", "zones"}, c.args...)...); code == 0 || !strings.Contains(stderr, c.says) {
			t.Errorf("fence intersecting %v: exit %d, %q; want it to say %q", c.args, code, stderr, c.says)
		}
	}
}
