package cli_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/keyspacedb/keyspace/geo"
)

// corridorDistance is the oracle for a corridor fence: the least
// haversine distance from (lat, lon) to 401 points along each edge of
// line (straight in longitude and latitude), off by at most half a step.
func corridorDistance(line [][2]float64, lat, lon float64) (d, step float64) {
	d = math.Inf(1)
	for i := 1; i < len(line); i++ {
		a, b := line[i-1], line[i]
		const n = 400
		prevLat, prevLon := a[1], a[0]
		for k := range n + 1 {
			t := float64(k) / n
			plat, plon := a[1]+t*(b[1]-a[1]), a[0]+t*(b[0]-a[0])
			d = min(d, geo.Distance(lat, lon, plat, plon))
			if k > 0 {
				step = max(step, geo.Distance(prevLat, prevLon, plat, plon))
			}
			prevLat, prevLon = plat, plon
		}
	}
	return d, step
}

// TestFenceCorridors: routes (fence put --line --radius) and roads (no
// radius) round Paris as fences: fence containing at random points and
// the crossings of a car driving about against the oracle's distances;
// fence near's distances; the roads a move crosses; GeoJSON out and back
// in; geo within --fence; --svg; bad lines and radii.
func TestFenceCorridors(t *testing.T) {
	db := filepath.Join(t.TempDir(), "routes.db")
	ks, must := onDB(t, db)
	r := rand.New(rand.NewPCG(41, 42))
	type corridor struct {
		line   [][2]float64
		radius float64
	}
	routes := map[string]corridor{}
	for i := range 24 {
		lat, lon := 48.85+r.NormFloat64()*0.02, 2.35+r.NormFloat64()*0.03
		c := corridor{line: [][2]float64{{lon, lat}}}
		for range 1 + r.IntN(3) {
			lat, lon = lat+r.NormFloat64()*0.01, lon+r.NormFloat64()*0.015
			c.line = append(c.line, [2]float64{lon, lat})
		}
		line, _ := json.Marshal(map[string]any{"type": "LineString", "coordinates": c.line})
		id := fmt.Sprintf("route%02d", i)
		args := []string{"fence", "put", "--fences", "routes", "--line", string(line), id}
		if i%4 != 3 {
			c.radius = math.Round(100 + r.Float64()*700)
			args = append(args, "--radius", fmt.Sprintf("%gm", c.radius))
		}
		routes[id] = c
		must(args...)
	}
	// want is the oracle's answer at a point: the routes holding it, and
	// those within a metre of their edge, where either answer goes.
	want := func(lat, lon float64) (ids []string, unsure map[string]bool) {
		unsure = map[string]bool{}
		for _, id := range slices.Sorted(maps.Keys(routes)) {
			c := routes[id]
			d, step := corridorDistance(c.line, lat, lon)
			switch {
			case math.Abs(d-c.radius) <= step/2+1:
				unsure[id] = true
			case d <= c.radius:
				ids = append(ids, id)
			}
		}
		return ids, unsure
	}
	held := 0
	for range 150 {
		lat, lon := 48.85+r.NormFloat64()*0.03, 2.35+r.NormFloat64()*0.045
		var got struct{ Fences []string }
		if err := json.Unmarshal([]byte(must("-o", "json", "fence", "containing", "--fences", "routes", "--lat", fmt.Sprint(lat), "--lon", fmt.Sprint(lon))), &got); err != nil {
			t.Fatal(err)
		}
		ids, unsure := want(lat, lon)
		got.Fences = slices.DeleteFunc(got.Fences, func(id string) bool { return unsure[id] })
		if !slices.Equal(got.Fences, ids) {
			t.Fatalf("fence containing at %v, %v: %v, the oracle %v", lat, lon, got.Fences, ids)
		}
		held += len(ids)
		// fence near: each route's distance less its radius.
		var near struct {
			Fences []struct {
				ID       string
				Distance float64 `json:"distance_m"`
			}
		}
		if err := json.Unmarshal([]byte(must("-o", "json", "fence", "near", "--fences", "routes", "--lat", fmt.Sprint(lat), "--lon", fmt.Sprint(lon), "--radius", "3km")), &near); err != nil {
			t.Fatal(err)
		}
		for _, n := range near.Fences {
			c, ok := routes[n.ID]
			d, step := corridorDistance(c.line, lat, lon)
			if wantD := max(0, d-c.radius); !ok || math.Abs(n.Distance-wantD) > step/2+0.01 {
				t.Fatalf("fence near %v, %v: %s at %.3f m, the oracle %.3f", lat, lon, n.ID, n.Distance, wantD)
			}
		}
	}
	if held < 30 {
		t.Fatalf("only %d routes held a point: the test would not see much", held)
	}
	// A car driving about: each move's enter, exit and inside against the
	// oracle at its two places; roads it drives over are crossed.
	kinds := driveAbout(t, must, "routes", r, 48.85, 2.35, 0.006, 0.009, want)
	if kinds["enter"] < 3 || kinds["exit"] < 3 || kinds["inside"] < 3 || kinds["cross"] < 3 {
		t.Fatalf("too few of a kind of crossing: %v", kinds)
	}
	// A road crossed square on, and one passed by.
	must("fence", "put", "--fences", "roads", "--line", `{"type":"LineString","coordinates":[[2.30,48.80],[2.30,48.90]]}`, "north-south")
	if out := must("geo", "put", "--index", "bikes", "--fences", "roads", "--lat", "48.85", "--lon", "2.29", "bike"); strings.Contains(out, "north-south") {
		t.Errorf("a first position beside the road: %s", out)
	}
	out := must("geo", "put", "--index", "bikes", "--fences", "roads", "--lat", "48.85", "--lon", "2.31", "bike")
	if !strings.Contains(out, "north-south") || !strings.Contains(out, "cross") {
		t.Errorf("a move across the road: %s", out)
	}
	if out := must("geo", "put", "--index", "bikes", "--fences", "roads", "--lat", "49.0", "--lon", "2.29", "bike"); strings.Contains(out, "north-south") {
		t.Errorf("a move past the road's end: %s", out)
	}
	roundTrip(t, must, "routes")
	if out := must("fence", "list", "--fences", "routes", "--match", "route00"); !strings.Contains(out, "corridor") || !strings.Contains(out, "either side of") {
		t.Errorf("fence list: %s", out)
	}
	// The points inside a route, as geo along finds them.
	must("geo", "put", "--index", "stops", "--lat", fmt.Sprint(routes["route00"].line[0][1]), "--lon", fmt.Sprint(routes["route00"].line[0][0]), "stop-1")
	if out := must("geo", "within", "--index", "stops", "--fences", "routes", "--fence", "route00"); !strings.Contains(out, "stop-1") {
		t.Errorf("geo within --fence route00: %s", out)
	}
	svg := filepath.Join(t.TempDir(), "routes.svg")
	must("fence", "list", "--fences", "routes", "--svg", svg)
	if n := svgClasses(t, svg)["fence"]; n < len(routes) {
		t.Errorf("the SVG draws %d fences, want %d", n, len(routes))
	}
	// Bad lines and radii change nothing.
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--line", `{"type":"LineString","coordinates":[[2.3,48.8]]}`}, "line has 1 positions"},
		{[]string{"--line", `{"type":"LineString","coordinates":[[2.3,48.8],[2.3,98]]}`}, "latitude 98 out of range"},
		{[]string{"--line", `{"type":"Point","coordinates":[2.3,48.8]}`}, "LineString"},
		{[]string{"--line", `{"type":"LineString","coordinates":[[2.3,48.8],[2.4,48.9]]}`, "--radius", "-5m"}, "--radius"},
		{[]string{"--line", `{"type":"LineString","coordinates":[[2.3,48.8],[2.4,48.9]]}`, "--lat", "48"}, "one region"},
	} {
		_, stderr, code := ks(append(append([]string{"fence", "put", "--fences", "routes"}, c.args...), "bad")...)
		if code == 0 || !strings.Contains(stderr, c.msg) {
			t.Errorf("fence put %v: exit %d, %q; want an error naming %q", c.args, code, stderr, c.msg)
		}
	}
	if out := must("fence", "list", "--fences", "routes"); strings.Contains(out, "bad") {
		t.Errorf("a bad fence was stored: %s", out)
	}
}

// TestFenceWithinCorridorArea: fence within --line --radius, the zones
// wholly within a distance of a route, and fence within --fence naming a
// corridor fence, against the oracle for circles and a straight route
// (a capsule, convex: a circle lies in it exactly when its centre's
// distance from the line plus its radius is within the corridor's);
// fence intersecting --line gives fence along's answer.
func TestFenceWithinCorridorArea(t *testing.T) {
	db := filepath.Join(t.TempDir(), "zones.db")
	_, must := onDB(t, db)
	r := rand.New(rand.NewPCG(43, 44))
	line := [][2]float64{{2.30, 48.84}, {2.40, 48.87}}
	const radius = 2_000.0
	type circle struct{ lat, lon, radius float64 }
	zones := map[string]circle{}
	for i := range 60 {
		t := r.Float64()
		c := circle{lat: 48.84 + 0.03*t + r.NormFloat64()*0.015, lon: 2.30 + 0.10*t + r.NormFloat64()*0.02, radius: math.Round(50 + r.Float64()*1500)}
		id := fmt.Sprintf("zone%02d", i)
		zones[id] = c
		must("fence", "put", "--fences", "zones", "--lat", fmt.Sprint(c.lat), "--lon", fmt.Sprint(c.lon), "--radius", fmt.Sprintf("%gm", c.radius), id)
	}
	geojsonLine, _ := json.Marshal(map[string]any{"type": "LineString", "coordinates": line})
	must("fence", "put", "--fences", "zones", "--line", string(geojsonLine), "--radius", fmt.Sprintf("%gm", radius), "route")
	// The route as an area given, and as the stored fence: the same
	// answer, which leaves the route itself out only when named.
	var given, stored struct{ Fences []string }
	if err := json.Unmarshal([]byte(must("-o", "json", "fence", "within", "--fences", "zones", "--line", string(geojsonLine), "--radius", fmt.Sprintf("%gm", radius))), &given); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(must("-o", "json", "fence", "within", "--fences", "zones", "--fence", "route")), &stored); err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(given.Fences, "route") || !slices.Equal(slices.DeleteFunc(slices.Clone(given.Fences), func(id string) bool { return id == "route" }), stored.Fences) {
		t.Fatalf("fence within --line: %v; --fence route: %v", given.Fences, stored.Fences)
	}
	within, outside := 0, 0
	for _, id := range slices.Sorted(maps.Keys(zones)) {
		c := zones[id]
		d, step := corridorDistance(line, c.lat, c.lon)
		gap := d + c.radius - radius
		switch got := slices.Contains(stored.Fences, id); {
		case math.Abs(gap) <= step/2+5: // too near the edge for the oracle
		case got != (gap < 0):
			t.Errorf("%s (%.0f m round a centre %.0f m from the route): within %v, the oracle %v", id, c.radius, d, got, gap < 0)
		case got:
			within++
		default:
			outside++
		}
	}
	if within < 5 || outside < 5 {
		t.Fatalf("too few of one answer to mean much: %d within, %d not", within, outside)
	}
	// fence intersecting --line is fence along.
	along := must("fence", "along", "--fences", "zones", "--line", string(geojsonLine), "--radius", "500m")
	if got := must("fence", "intersecting", "--fences", "zones", "--line", string(geojsonLine), "--radius", "500m"); got != along {
		t.Errorf("fence intersecting --line:\n%s\nfence along:\n%s", got, along)
	}
}

// TestFenceAlongInOrder: fence along --in-order names the fences a drive
// along the parallel 45°N passes in the order it reaches them, each at
// the distance along the parallel to where it enters the circle (its
// centre's, on the route, less the radius; within 2 m), with payloads
// in JSON; a circle off the route by more than --radius is not named.
func TestFenceAlongInOrder(t *testing.T) {
	db := filepath.Join(t.TempDir(), "tolls.db")
	_, must := onDB(t, db)
	centres := map[string][2]float64{"t-a": {7.30, 600}, "t-b": {7.10, 900}, "t-c": {7.22, 300}, "t-d": {7.45, 1500}}
	for id, c := range centres {
		must("fence", "put", "--fences", "tolls", "--lat", "45", "--lon", fmt.Sprint(c[0]), "--radius", fmt.Sprintf("%gm", c[1]), "--payload", fmt.Sprintf(`{"toll":%q}`, id), id)
	}
	must("fence", "put", "--fences", "tolls", "--lat", "45.05", "--lon", "7.2", "--radius", "1km", "off-route") // 5.6 km north
	line := `{"type":"LineString","coordinates":[[7.0,45],[7.5,45]]}`
	var got struct {
		Fences []struct {
			ID      string
			At      float64 `json:"at_m"`
			Payload struct{ Toll string }
		}
	}
	if err := json.Unmarshal([]byte(must("-o", "json", "fence", "along", "--fences", "tolls", "--line", line, "--radius", "100m", "--in-order", "--payloads")), &got); err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, f := range got.Fences {
		order = append(order, f.ID)
		c := centres[f.ID]
		// Along the parallel: R·cos 45°·Δλ to the centre, less the radius
		// and --radius.
		want := geo.EarthRadius*math.Cos(math.Pi/4)*(c[0]-7.0)*math.Pi/180 - c[1] - 100
		if math.Abs(f.At-want) > 2 || f.Payload.Toll != f.ID {
			t.Errorf("%s at %.2f m, payload %+v; want %.2f m", f.ID, f.At, f.Payload, want)
		}
	}
	if want := []string{"t-b", "t-c", "t-a", "t-d"}; !slices.Equal(order, want) {
		t.Errorf("fence along --in-order: %v, want %v", order, want)
	}
	if out := must("fence", "along", "--fences", "tolls", "--line", line, "--radius", "100m", "--in-order"); !strings.HasPrefix(out, "FENCE  AT\nt-b") {
		t.Errorf("the table:\n%s", out)
	}
}

// TestGeoAlongInOrder: geo along --in-order lists the points within the
// radius of a road along the equator in the order a drive passes them,
// each at its longitude's distance along the equator (ALONG, to within a
// metre) and its latitude's from it (DISTANCE); --limit 2 keeps the first
// two passed; a point beyond the radius is not listed; --cursor, --desc
// and --any do not go with it.
func TestGeoAlongInOrder(t *testing.T) {
	db := filepath.Join(t.TempDir(), "stations.db")
	ks, must := onDB(t, db)
	lons := map[string]float64{"s-d": 0.9, "s-a": 0.1, "s-c": 0.55, "s-b": 0.3}
	for id, lon := range lons {
		must("geo", "put", "--index", "fuel", "--lat", "0.005", "--lon", fmt.Sprint(lon), id)
	}
	must("geo", "put", "--index", "fuel", "--lat", "0.05", "--lon", "0.5", "far") // 5.6 km off the road
	line := `{"type":"LineString","coordinates":[[0,0],[1,0]]}`
	var got struct {
		Results []struct {
			ID       string
			Along    float64 `json:"along_m"`
			Distance float64 `json:"distance_m"`
		}
	}
	if err := json.Unmarshal([]byte(must("-o", "json", "geo", "along", "--index", "fuel", "--line", line, "--radius", "1km", "--in-order")), &got); err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, r := range got.Results {
		order = append(order, r.ID)
		wantAlong, wantOff := geo.EarthRadius*lons[r.ID]*math.Pi/180, geo.EarthRadius*0.005*math.Pi/180
		if math.Abs(r.Along-wantAlong) > 1 || math.Abs(r.Distance-wantOff) > 1 {
			t.Errorf("%s: %.2f m along, %.2f m off; want %.2f and %.2f", r.ID, r.Along, r.Distance, wantAlong, wantOff)
		}
	}
	if want := []string{"s-a", "s-b", "s-c", "s-d"}; !slices.Equal(order, want) {
		t.Errorf("geo along --in-order: %v, want %v", order, want)
	}
	if out := must("geo", "along", "--index", "fuel", "--line", line, "--radius", "1km", "--in-order", "--limit", "2"); !strings.Contains(out, "ALONG") ||
		!strings.Contains(out, "s-a") || !strings.Contains(out, "s-b") || strings.Contains(out, "s-c") {
		t.Errorf("--in-order --limit 2:\n%s", out)
	}
	for _, flag := range [][]string{{"--cursor", "x"}, {"--desc"}, {"--any", "--limit", "1"}} {
		args := append([]string{"geo", "along", "--index", "fuel", "--line", line, "--radius", "1km", "--in-order"}, flag...)
		if _, stderr, code := ks(args...); code != 2 || !strings.Contains(stderr, "--in-order") {
			t.Errorf("geo along --in-order %v: exit %d, %q", flag, code, stderr)
		}
	}
}
