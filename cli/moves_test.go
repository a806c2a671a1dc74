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

	"github.com/keyspacedb/keyspace/geo"
)

// TestGeoImportMoves: geo import --moves replays a log of positions
// through fences, a move a row in the file's order: three vans
// interleaved in a CSV, and a GPX file's two tracks (one without a name,
// "track 2") whose waypoint is left out. Each move's enter and exit, as
// printed with the row's line, are those of circles at the positions
// before and after it (the van's previous row; nothing before its first),
// against the haversine oracle (moves ending within a metre of an edge
// aside); each van ends at its last row; --roam meets a parked van as
// the moving one comes within the radius and leaves it. Without --moves
// a repeated id is a bad row; --moves with --nx, a GPX file without
// track points, or a bad row (nothing imported unless --skip-bad) are
// errors.
func TestGeoImportMoves(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	ks, must := onDB(t, db)
	r := rand.New(rand.NewPCG(71, 72))
	type circle struct{ lat, lon, radius float64 }
	zones := map[string]circle{}
	for i := range 8 {
		c := circle{45 + r.Float64()*0.1, 7 + r.Float64()*0.1, 1000 + r.Float64()*3000}
		id := fmt.Sprintf("zone%d", i)
		zones[id] = c
		must("fence", "put", "--fences", "zones", "--lat", fmt.Sprint(c.lat), "--lon", fmt.Sprint(c.lon), "--radius", fmt.Sprintf("%gm", c.radius), id)
	}
	// held is the zones holding a position, and whether it lies within a
	// metre of a zone's edge, where the oracle does not judge.
	held := func(lat, lon float64) (map[string]bool, bool) {
		in, edge := map[string]bool{}, false
		for id, c := range zones {
			d := geo.Distance(c.lat, c.lon, lat, lon)
			in[id] = d <= c.radius
			edge = edge || math.Abs(d-c.radius) < 1
		}
		return in, edge
	}
	type fix struct {
		id       string
		lat, lon float64
		line     int
	}
	// A walk of n fixes a step of about 1 km from (lat, lon).
	walk := func(id string, n int) []fix {
		lat, lon := 45+r.Float64()*0.1, 7+r.Float64()*0.1
		var out []fix
		for range n {
			lat, lon = lat+r.NormFloat64()*0.006, lon+r.NormFloat64()*0.008
			out = append(out, fix{id: id, lat: lat, lon: lon})
		}
		return out
	}
	// check compares the NDJSON of an import of fixes (their lines set)
	// with the oracle, and the vans' places after it with their last fixes.
	check := func(what, out string, fixes []fix, index string) {
		t.Helper()
		type move struct {
			ID        string
			Row       string
			Crossings []struct{ Fence, Kind string }
		}
		printed := map[string]move{}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var m move
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("%s: %q: %v", what, l, err)
			}
			printed[m.Row] = m
		}
		prev := map[string]fix{}
		enters, exits := 0, 0
		for _, f := range fixes {
			m := printed[fmt.Sprintf("line %d", f.line)]
			if m.Row != "" && m.ID != f.id {
				t.Fatalf("%s: line %d printed as %s's move, the file's is %s's", what, f.line, m.ID, f.id)
			}
			kinds := map[string]string{}
			for _, c := range m.Crossings {
				kinds[c.Fence] = c.Kind
			}
			after, edge := held(f.lat, f.lon)
			before := map[string]bool{}
			if p, ok := prev[f.id]; ok {
				var e bool
				before, e = held(p.lat, p.lon)
				edge = edge || e
			}
			prev[f.id] = f
			if edge {
				continue
			}
			for id := range zones {
				want := ""
				switch {
				case after[id] && !before[id]:
					want = "enter"
				case before[id] && !after[id]:
					want = "exit"
				}
				if got := kinds[id]; (got == "enter" || got == "exit" || want != "") && got != want {
					t.Fatalf("%s: line %d, %s's move into %s: %q, the oracle %q", what, f.line, f.id, id, got, want)
				}
				enters += boolInt(want == "enter")
				exits += boolInt(want == "exit")
			}
		}
		if enters < 3 || exits < 3 {
			t.Fatalf("%s: %d enters and %d exits: too few to mean much", what, enters, exits)
		}
		var scan struct {
			Points []struct {
				ID       string
				Lat, Lon float64
			}
		}
		if err := json.Unmarshal([]byte(must("-o", "json", "geo", "scan", "--index", index)), &scan); err != nil {
			t.Fatal(err)
		}
		if len(scan.Points) != len(prev) {
			t.Fatalf("%s: %d points after, %d ids moved", what, len(scan.Points), len(prev))
		}
		for _, p := range scan.Points {
			if last := prev[p.ID]; p.Lat != last.lat || p.Lon != last.lon {
				t.Fatalf("%s: %s ends at %v, %v; its last row says %v, %v", what, p.ID, p.Lat, p.Lon, last.lat, last.lon)
			}
		}
	}

	// Three vans interleaved in a CSV.
	var fixes []fix
	vans := [][]fix{walk("van-1", 60), walk("van-2", 60), walk("van-3", 60)}
	for len(vans[0])+len(vans[1])+len(vans[2]) > 0 {
		i := r.IntN(3)
		if len(vans[i]) == 0 {
			continue
		}
		fixes, vans[i] = append(fixes, vans[i][0]), vans[i][1:]
	}
	var csv strings.Builder
	csv.WriteString("id,lat,lon\n")
	for i := range fixes {
		fixes[i].line = i + 2
		fmt.Fprintf(&csv, "%s,%v,%v\n", fixes[i].id, fixes[i].lat, fixes[i].lon)
	}
	log := filepath.Join(dir, "log.csv")
	os.WriteFile(log, []byte(csv.String()), 0o644)
	if _, stderr, code := ks("geo", "import", "--index", "vans", "--fences", "zones", log); code == 0 || !strings.Contains(stderr, "repeats") || !strings.Contains(stderr, "--moves") {
		t.Fatalf("geo import of repeated ids without --moves: exit %d, %q", code, stderr)
	}
	out, stderr, code := ks("geo", "import", "--index", "vans", "--moves", "--fences", "zones", log)
	if code != 0 || !strings.Contains(stderr, "imported 180 moves of 3 points into vans") {
		t.Fatalf("geo import --moves: exit %d, %q", code, stderr)
	}
	check("a CSV's moves", out, fixes, "vans")

	// A GPX file's two tracks, each a van.
	var gpx strings.Builder
	gpx.WriteString("<?xml version=\"1.0\"?>\n<gpx version=\"1.1\" creator=\"test\">\n<wpt lat=\"45\" lon=\"7\"><name>depot</name></wpt>\n")
	line := 3
	fixes = nil
	for _, name := range []string{"truck-7", ""} {
		id := name
		gpx.WriteString("<trk>")
		if name != "" {
			gpx.WriteString("<name>" + name + "</name>")
		} else {
			id = "track 2"
		}
		gpx.WriteString("<trkseg>\n")
		line++
		for i, f := range walk(id, 50) {
			if i == 25 {
				gpx.WriteString("</trkseg><trkseg>\n") // a second segment: the same track
				line++
			}
			line++
			f.line = line
			fixes = append(fixes, f)
			fmt.Fprintf(&gpx, "<trkpt lat=\"%v\" lon=\"%v\"><time>2026-11-27T10:%02d:00Z</time></trkpt>\n", f.lat, f.lon, i)
		}
		gpx.WriteString("</trkseg></trk>\n")
		line++
	}
	gpx.WriteString("</gpx>\n")
	ride := filepath.Join(dir, "ride.gpx")
	os.WriteFile(ride, []byte(gpx.String()), 0o644)
	check("a GPX file's tracks", must("geo", "import", "--index", "trucks", "--moves", "--fences", "zones", ride), fixes, "trucks")
	if out := must("geo", "get", "--index", "trucks", "truck-7"); !strings.Contains(out, "10:49:00Z") {
		t.Errorf("truck-7's payload is its last fix's time: %s", out)
	}
	// --roam: a van parked, another driving past it and on.
	must("geo", "put", "--index", "roam", "--lat", "45", "--lon", "7", "parked")
	var pass strings.Builder
	pass.WriteString("id,lat,lon\n")
	for i := range 11 {
		fmt.Fprintf(&pass, "moving,45,%v\n", 6.95+0.01*float64(i)) // 3.9 km west to 3.9 km east, 790 m a step
	}
	out = must("geo", "import", "--index", "roam", "--moves", "--roam", "1km", writeTemp(t, dir, "pass.csv", pass.String()))
	var kinds []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m struct {
			Row      string
			Meetings []struct{ ID, Kind string }
		}
		json.Unmarshal([]byte(l), &m)
		for _, x := range m.Meetings {
			kinds = append(kinds, m.Row+" "+x.ID+" "+x.Kind)
		}
	}
	// Within 1 km of the parked van: 45,6.99 (787 m) to 45,7.01.
	if want := []string{"line 6 parked enter", "line 7 parked inside", "line 8 parked inside", "line 9 parked exit"}; !slices.Equal(kinds, want) {
		t.Errorf("--moves --roam: %v, want %v", kinds, want)
	}

	// Errors change nothing.
	before := must("geo", "scan", "--index", "vans")
	bad := writeTemp(t, dir, "bad.csv", "id,lat,lon\nvan-1,45,7\nvan-1,95,7\nvan-2,45.1,7.1\n")
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--moves", "--nx", log}, "--nx"},
		{[]string{"--moves", bad}, "line 3: latitude 95"},
		{[]string{"--moves", writeTemp(t, dir, "places.gpx", `<gpx><wpt lat="45" lon="7"><name>a</name></wpt></gpx>`)}, "no track point"},
	} {
		if _, stderr, code := ks(append([]string{"geo", "import", "--index", "vans", "--fences", "zones"}, c.args...)...); code == 0 || !strings.Contains(stderr, c.msg) {
			t.Errorf("geo import %v: exit %d, %q; want an error naming %q", c.args, code, stderr, c.msg)
		}
	}
	if after := must("geo", "scan", "--index", "vans"); after != before {
		t.Errorf("a failed import changed the index:\n%s\nwas\n%s", after, before)
	}
	if _, stderr, code := ks("geo", "import", "--index", "vans", "--moves", "--skip-bad", bad); code != 0 || !strings.Contains(stderr, "imported 2 moves of 2 points") {
		t.Errorf("--moves --skip-bad: exit %d, %q", code, stderr)
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
