package cli_test

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/geo"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"
	"github.com/paulmach/orb/planar"
)

// testFence is the oracle's copy of a fence the test imports.
type testFence struct {
	id     string
	circle *[3]float64 // lat, lon, radius
	box    *geo.Box
	poly   orb.Polygon
}

func (f testFence) holds(lat, lon float64) bool {
	switch {
	case f.circle != nil:
		return geo.Distance(f.circle[0], f.circle[1], lat, lon) <= f.circle[2]
	case f.box != nil:
		b := f.box
		if lat < b.MinLat || lat > b.MaxLat {
			return false
		}
		if b.MinLon <= b.MaxLon {
			return lon >= b.MinLon && lon <= b.MaxLon
		}
		return lon >= b.MinLon || lon <= b.MaxLon
	}
	return planar.PolygonContains(f.poly, orb.Point{lon, lat})
}

// crossed is the oracle of a Cross: whether the path from a to b (lat,
// lon; the straight line in longitude and latitude, the shorter way
// round) passes through f, by sampling it at 2,000 points. sure: a sample
// lies in f. maybe: a sample lies in f grown by a sample step and a half,
// so that the path may graze f between samples.
func (f testFence) crossed(a, b [2]float64) (sure, maybe bool) {
	const n = 2000
	dLon := b[1] - a[1]
	if dLon > 180 {
		dLon -= 360
	} else if dLon <= -180 {
		dLon += 360
	}
	dLat := b[0] - a[0]
	step := 1.5 * math.Hypot(dLat, dLon) / n // degrees
	for i := range n + 1 {
		lat, lon := a[0]+dLat*float64(i)/n, a[1]+dLon*float64(i)/n
		if lon > 180 {
			lon -= 360
		} else if lon < -180 {
			lon += 360
		}
		if f.holds(lat, lon) {
			return true, true
		}
		switch {
		case f.circle != nil:
			maybe = maybe || geo.Distance(f.circle[0], f.circle[1], lat, lon) <= f.circle[2]+step*111_200
		case f.box != nil:
			g := testFence{box: &geo.Box{MinLat: f.box.MinLat - step, MaxLat: f.box.MaxLat + step, MinLon: f.box.MinLon - step, MaxLon: f.box.MaxLon + step}}
			maybe = maybe || g.holds(lat, lon) || g.holds(lat, lon-360) || g.holds(lat, lon+360)
		default:
			for _, ring := range f.poly {
				for j := 1; j < len(ring); j++ {
					maybe = maybe || planar.DistanceFromSegment(ring[j-1], ring[j], orb.Point{lon, lat}) <= step
				}
			}
		}
	}
	return false, maybe
}

// A testCrossing is a crossing as the command line prints it in JSON.
type testCrossing struct{ Fence, Kind string }

// moveCrossings is the oracle's crossings of a move from a to b (nil for
// a new point), given the fences holding each end, and the fences a
// Cross of which is neither required nor wrong (the path grazes them).
func moveCrossings(fences []testFence, a *[2]float64, was []string, b [2]float64, is []string) (want []testCrossing, either map[string]bool) {
	either = map[string]bool{}
	for _, f := range fences {
		inWas, inIs := slices.Contains(was, f.id), slices.Contains(is, f.id)
		switch {
		case inWas && inIs:
			want = append(want, testCrossing{f.id, "inside"})
		case inWas:
			want = append(want, testCrossing{f.id, "exit"})
		case inIs:
			want = append(want, testCrossing{f.id, "enter"})
		case a != nil:
			sure, maybe := f.crossed(*a, b)
			if sure {
				want = append(want, testCrossing{f.id, "cross"})
			} else if maybe {
				either[f.id] = true
			}
		}
	}
	return want, either
}

// sameCrossings reports whether got is want, once the crosses of fences
// in either are left out of it.
func sameCrossings(got, want []testCrossing, either map[string]bool) bool {
	got = slices.DeleteFunc(slices.Clone(got), func(c testCrossing) bool { return c.Kind == "cross" && either[c.Fence] })
	return slices.Equal(got, want)
}

func (f testFence) feature() *geojson.Feature {
	var feat *geojson.Feature
	switch {
	case f.circle != nil:
		feat = geojson.NewFeature(orb.Point{f.circle[1], f.circle[0]})
		feat.Properties["radius"] = f.circle[2]
	case f.box != nil:
		feat = geojson.NewFeature(orb.Point{0, 0}) // the bbox is what counts
		feat.BBox = geojson.BBox{f.box.MinLon, f.box.MinLat, f.box.MaxLon, f.box.MaxLat}
		feat.Properties["fence"] = "box"
	default:
		feat = geojson.NewFeature(f.poly)
	}
	feat.Properties["name"] = f.id
	return feat
}

// TestFences: fences of every kind imported from GeoJSON (circles, boxes,
// one across ±180°, polygons), listed, exported and imported back; the
// fences holding random points, by --lat/--lon and by a geo point
// (--from), against the oracle's formulas; geo put --fences moving a
// point through them, each crossing against what the oracle says held
// it before and after; del and drop.
func TestFences(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	r := rand.New(rand.NewPCG(3, 4))
	var fences []testFence
	centre := func() (float64, float64) { return 40 + r.Float64()*4, 170 + r.Float64()*20 - 10 }
	for i := range 24 {
		f := testFence{id: fmt.Sprintf("zone-%02d", i)}
		lat, lon := centre()
		if lon > 180 {
			lon -= 360
		}
		switch i % 3 {
		case 0:
			f.circle = &[3]float64{lat, lon, 20_000 + r.Float64()*150_000}
		case 1:
			w, h := 0.2+r.Float64()*2, 0.2+r.Float64()*2
			west, east := lon-w, lon+w
			if west < -180 {
				west += 360
			}
			if east > 180 {
				east -= 360
			}
			f.box = &geo.Box{MinLat: lat - h, MinLon: west, MaxLat: lat + h, MaxLon: east}
		default:
			d := 0.3 + r.Float64()*1.5
			lo := math.Max(-180, lon-d)
			hi := math.Min(180, lon+d)
			f.poly = orb.Polygon{{{lo, lat - d}, {hi, lat - d}, {(lo + hi) / 2, lat + d}, {lo, lat - d}}}
		}
		fences = append(fences, f)
	}
	if !slices.ContainsFunc(fences, func(f testFence) bool { return f.box != nil && f.box.MinLon > f.box.MaxLon }) {
		t.Fatal("no box crosses ±180°: the seed tests less than it should")
	}
	fc := geojson.NewFeatureCollection()
	for _, f := range fences {
		fc.Append(f.feature())
	}
	src := filepath.Join(t.TempDir(), "zones.geojson")
	b, _ := json.Marshal(fc)
	if err := os.WriteFile(src, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := run(t, "", "--db", db, "fence", "import", "--fences", "zones", "--id-property", "name", src); code != 0 || !strings.Contains(errOut, "imported 24 fences") {
		t.Fatalf("import: %d %s", code, errOut)
	}

	// Exported and imported back under another name, the set reads the same.
	export, _, code := run(t, "", "--db", db, "fence", "list", "--fences", "zones", "-o", "geojson")
	if code != 0 {
		t.Fatal(export)
	}
	if _, errOut, code := run(t, export, "--db", db, "fence", "import", "--fences", "copy", "-"); code != 0 {
		t.Fatalf("import of the export: %s", errOut)
	}
	list := func(set string) string {
		out, errOut, code := run(t, "", "--db", db, "fence", "list", "--fences", set)
		if code != 0 {
			t.Fatal(errOut)
		}
		return out
	}
	if a, b := list("zones"), list("copy"); a != b || !strings.Contains(a, "24 fences") {
		t.Fatalf("the set and its copy differ:\n%s\n%s", a, b)
	}

	// stats counts each set's fences.
	out, _, _ := run(t, "", "--db", db, "stats", "-o", "json")
	var stats struct {
		Subspaces []struct {
			Kind, Name string
			Items      int
		}
	}
	if err := json.Unmarshal([]byte(out), &stats); err != nil {
		t.Fatal(err)
	}
	sets := 0
	for _, s := range stats.Subspaces {
		if s.Kind == "fence set" && s.Items == 24 && (s.Name == "zones" || s.Name == "copy") {
			sets++
		}
	}
	if sets != 2 {
		t.Fatalf("stats does not count the two sets' 24 fences: %s", out)
	}

	containing := func(args ...string) []string {
		t.Helper()
		out, errOut, code := run(t, "", append([]string{"--db", db, "fence", "containing", "-o", "json"}, args...)...)
		if code != 0 {
			t.Fatalf("containing %v: %s", args, errOut)
		}
		var got struct{ Fences []string }
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		return got.Fences
	}
	want := func(lat, lon float64) []string {
		ids := []string{}
		for _, f := range fences {
			if f.holds(lat, lon) {
				ids = append(ids, f.id)
			}
		}
		return ids
	}
	held := 0
	for i := range 40 {
		lat, lon := centre()
		if lon > 180 {
			lon -= 360
		}
		set := "zones"
		if i%2 == 1 {
			set = "copy"
		}
		got, w := containing("--fences", set, "--lat", fmt.Sprint(lat), "--lon", fmt.Sprint(lon)), want(lat, lon)
		if !slices.Equal(got, w) {
			t.Fatalf("fences holding (%v, %v): %v, the oracle %v", lat, lon, got, w)
		}
		held += len(w)
	}
	if held < 20 {
		t.Fatalf("only %d fences held the 40 points", held)
	}

	// --svg draws every fence of the set, and at a point the fences that
	// hold it, filled, titled with their ids.
	svgTitles := func(path string) (fenceIDs, held map[string]bool, points int) {
		t.Helper()
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		fenceIDs, held = map[string]bool{}, map[string]bool{}
		dec := xml.NewDecoder(f)
		class := ""
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				return
			}
			if err != nil {
				t.Fatalf("%s is not XML: %v", path, err)
			}
			switch tok := tok.(type) {
			case xml.StartElement:
				if tok.Name.Local == "polygon" || tok.Name.Local == "circle" {
					class = ""
					for _, a := range tok.Attr {
						if a.Name.Local == "class" {
							class = a.Value
						}
					}
					if class == "point" {
						points++
					}
				}
			case xml.CharData:
				if class == "fence" || class == "fence held" {
					fenceIDs[string(tok)] = true
					if class == "fence held" {
						held[string(tok)] = true
					}
					class = ""
				}
			}
		}
	}
	svg := filepath.Join(t.TempDir(), "zones.svg")
	if _, errOut, code := run(t, "", "--db", db, "fence", "list", "--fences", "zones", "--svg", svg); code != 0 {
		t.Fatal(errOut)
	}
	if drawn, _, _ := svgTitles(svg); len(drawn) != len(fences) {
		t.Fatalf("fence list --svg drew %d fences of %d", len(drawn), len(fences))
	}
	for i := 0; ; i++ {
		lat, lon := centre()
		if lon > 180 {
			lon -= 360
		}
		w := want(lat, lon)
		if len(w) == 0 {
			continue
		}
		if _, errOut, code := run(t, "", "--db", db, "fence", "containing", "--fences", "zones", "--lat", fmt.Sprint(lat), "--lon", fmt.Sprint(lon), "--svg", svg); code != 0 {
			t.Fatal(errOut)
		}
		drawn, held, points := svgTitles(svg)
		if len(drawn) != len(w) || len(held) != len(w) || points != 1 {
			t.Fatalf("fence containing --svg at (%v, %v) drew %v, %v filled, %d points; the oracle %v", lat, lon, drawn, held, points, w)
		}
		for _, id := range w {
			if !held[id] {
				t.Fatalf("fence containing --svg at (%v, %v): %s not filled", lat, lon, id)
			}
		}
		break
	}

	// geo within a stored fence finds the points the oracle says it holds.
	var csv strings.Builder
	csv.WriteString("id,lat,lon\n")
	var pts [][3]float64
	for i := range 300 {
		lat, lon := centre()
		if lon > 180 {
			lon -= 360
		}
		pts = append(pts, [3]float64{float64(i), lat, lon})
		fmt.Fprintf(&csv, "p%d,%v,%v\n", i, lat, lon)
	}
	if _, errOut, code := run(t, csv.String(), "--db", db, "geo", "import", "--index", "probes", "-"); code != 0 {
		t.Fatal(errOut)
	}
	inside := 0
	for _, f := range fences[:9] {
		out, errOut, code := run(t, "", "--db", db, "geo", "within", "--index", "probes", "--fences", "zones", "--fence", f.id, "-o", "json")
		if code != 0 {
			t.Fatal(errOut)
		}
		var got []string
		for _, r := range decode(t, out).Results {
			got = append(got, r.ID)
		}
		var want []string
		for _, p := range pts {
			if f.holds(p[1], p[2]) {
				want = append(want, fmt.Sprint("p", p[0]))
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("geo within fence %s: %v, the oracle %v", f.id, got, want)
		}
		inside += len(want)
	}
	if inside < 30 {
		t.Fatalf("only %d points inside the fences", inside)
	}
	// fence containing over the whole file of points, as NDJSON.
	out, errOut, code := run(t, csv.String(), "--db", db, "fence", "containing", "--fences", "zones", "-o", "ndjson", "-")
	if code != 0 {
		t.Fatal(errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(pts) {
		t.Fatalf("fence containing FILE: %d lines for %d points", len(lines), len(pts))
	}
	for i, line := range lines {
		var got struct {
			ID     string
			Fences []string
		}
		if err := json.Unmarshal([]byte(line), &got); err != nil {
			t.Fatal(err)
		}
		p := pts[i]
		if w := want(p[1], p[2]); got.ID != fmt.Sprint("p", p[0]) || !slices.Equal(got.Fences, w) {
			t.Fatalf("fence containing FILE, line %d: %s; the oracle %v", i+2, line, w)
		}
	}

	if _, errOut, code := run(t, "", "--db", db, "geo", "within", "--index", "probes", "--fences", "zones", "--fence", "nope"); code != 1 || !strings.Contains(errOut, `no fence "nope"`) {
		t.Fatalf("geo within an unknown fence: exit %d, %s", code, errOut)
	}

	// geo import --fences: two imports of the same vehicles, the second
	// moving them; each line of NDJSON is the oracle's crossings of that
	// vehicle's move, and vehicles that crossed nothing have no line.
	var last map[string][2]float64
	for round := range 2 {
		var in strings.Builder
		in.WriteString("id,lat,lon\n")
		now := map[string][2]float64{}
		for i := range 40 + 5*round {
			lat, lon := centre()
			if lon > 180 {
				lon -= 360
			}
			id := fmt.Sprint("v", i)
			now[id] = [2]float64{lat, lon}
			fmt.Fprintf(&in, "%s,%v,%v\n", id, lat, lon)
		}
		out, errOut, code := run(t, in.String(), "--db", db, "geo", "import", "--index", "vans", "--fences", "zones", "-")
		if code != 0 {
			t.Fatal(errOut)
		}
		got := map[string][]testCrossing{}
		for line := range strings.Lines(strings.TrimSpace(out)) {
			var m struct {
				ID        string
				Crossings []testCrossing
			}
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("geo import --fences, round %d: %q: %v", round, line, err)
			}
			got[m.ID] = m.Crossings
		}
		moved := 0
		for i := range 40 + 5*round {
			id := fmt.Sprint("v", i)
			var from *[2]float64
			var was []string
			if p, ok := last[id]; ok {
				from, was = &p, want(p[0], p[1])
			}
			w, either := moveCrossings(fences, from, was, now[id], want(now[id][0], now[id][1]))
			if !sameCrossings(got[id], w, either) {
				t.Fatalf("geo import --fences, round %d, %s: %v; the oracle %v (a cross either way for %v)", round, id, got[id], w, either)
			}
			if len(w) > 0 {
				moved++
			}
		}
		if moved < 5 {
			t.Fatalf("geo import --fences, round %d: only %d vehicles crossed anything", round, moved)
		}
		last = now
	}

	// A point moved through the fences: every crossing is what the
	// oracle's before and after imply, and containing --from agrees.
	var before []string
	var prev *[2]float64 // where the truck was
	kinds := map[string]int{}
	for step := range 15 {
		lat, lon := centre()
		if lon > 180 {
			lon -= 360
		}
		out, errOut, code := run(t, "", "--db", db, "geo", "put", "--index", "fleet", "--lat", fmt.Sprint(lat), "--lon", fmt.Sprint(lon), "--fences", "zones", "-o", "json", "truck")
		if code != 0 {
			t.Fatal(errOut)
		}
		var got struct {
			ID        string
			Crossings []testCrossing
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		after := want(lat, lon)
		w, either := moveCrossings(fences, prev, before, [2]float64{lat, lon}, after)
		if got.ID != "truck" || !sameCrossings(got.Crossings, w, either) {
			t.Fatalf("step %d, to (%v, %v): crossings %v, the oracle %v (a cross either way for %v)", step, lat, lon, got.Crossings, w, either)
		}
		for _, c := range w {
			kinds[c.Kind]++
		}
		if from := containing("--fences", "zones", "--index", "fleet", "--from", "truck"); !slices.Equal(from, after) {
			t.Fatalf("containing --from truck: %v, the oracle %v", from, after)
		}
		before, prev = after, &[2]float64{lat, lon}
	}
	if kinds["enter"] == 0 || kinds["exit"] == 0 || kinds["cross"] == 0 {
		t.Fatalf("the moves never entered, never left or never passed through a fence: %v", kinds)
	}
	// Deleted, the point leaves every fence that held it last.
	if len(before) == 0 {
		t.Fatal("the last move ended in no fence: the delete tests nothing")
	}
	out, errOut, code = run(t, "", "--db", db, "geo", "del", "--index", "fleet", "--fences", "zones", "-o", "json", "truck")
	if code != 0 {
		t.Fatal(errOut)
	}
	var del struct {
		Deleted []struct {
			ID        string
			Crossings []struct{ Fence, Kind string }
		}
	}
	json.Unmarshal([]byte(out), &del)
	var exits []string
	for _, c := range del.Deleted[0].Crossings {
		if c.Kind == "exit" {
			exits = append(exits, c.Fence)
		}
	}
	if len(del.Deleted) != 1 || del.Deleted[0].ID != "truck" || !slices.Equal(exits, before) || len(exits) != len(del.Deleted[0].Crossings) {
		t.Fatalf("geo del --fences: %s; the oracle: exits from %v", out, before)
	}

	// del takes fences out of every answer; drop empties the set.
	victim := fences[0]
	if _, errOut, code := run(t, "", "--db", db, "fence", "del", "--fences", "zones", victim.id); code != 0 {
		t.Fatal(errOut)
	}
	if got := containing("--fences", "zones", "--lat", fmt.Sprint(victim.circle[0]), "--lon", fmt.Sprint(victim.circle[1])); slices.Contains(got, victim.id) {
		t.Fatalf("a deleted fence still holds its centre: %v", got)
	}
	// A cell lost from the file: verify finds it, fence repair puts it
	// back, and the fence holds its centre again.
	store, err := keyspace.Open(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	holder := fences[3] // a circle
	lost := 0
	store.Update(func(tx keyspace.Tx) error {
		g, err := tx.Get(composite.NewSubspace("f", "zones", "d").Pack(composite.Tuple{holder.id}))
		if err != nil {
			return err
		}
		var def struct{ Cells [][4]uint64 }
		json.Unmarshal(g, &def)
		for _, c := range def.Cells {
			if err := tx.Delete(composite.NewSubspace("f", "zones", "c").Pack(composite.Tuple{c[0], c[1], c[2], holder.id})); err != nil {
				return err
			}
			lost++
		}
		return nil
	})
	store.Close()
	atCentre := []string{"--fences", "zones", "--lat", fmt.Sprint(holder.circle[0]), "--lon", fmt.Sprint(holder.circle[1])}
	if got := containing(atCentre...); slices.Contains(got, holder.id) {
		t.Fatalf("a fence with no cells still holds its centre: %v", got)
	}
	if out, _, code := run(t, "", "--db", db, "verify"); code != 1 || !strings.Contains(out, fmt.Sprintf("fence set zones: %d problems", lost)) {
		t.Fatalf("verify of %d lost cells: exit %d\n%s", lost, code, out)
	}
	// --output json: every check, with all its problems, and their total.
	jsonOut, _, code := run(t, "", "--db", db, "--output", "json", "verify")
	var doc struct {
		Keys   int
		Checks []struct {
			What     string
			Problems []string
		}
		Problems int
	}
	if err := json.Unmarshal([]byte(jsonOut), &doc); err != nil || code != 1 {
		t.Fatalf("verify --output json: exit %d, %v\n%s", code, err, jsonOut)
	}
	total, zones := 0, 0
	for _, ch := range doc.Checks {
		total += len(ch.Problems)
		switch {
		case ch.What == "fence set zones":
			zones = len(ch.Problems)
		case len(ch.Problems) > 0:
			t.Errorf("verify --output json: %s has problems %v", ch.What, ch.Problems)
		}
	}
	if zones != lost || total != lost || doc.Problems != lost || doc.Keys == 0 {
		t.Errorf("verify --output json: fence set zones %d problems, %d in the checks, %d in all, %d keys; want %d", zones, total, doc.Problems, doc.Keys, lost)
	}
	if out, errOut, code := run(t, "", "--db", db, "fence", "repair", "--fences", "zones"); code != 0 || !strings.Contains(out, fmt.Sprintf("repaired %d problems", lost)) {
		t.Fatalf("repair: %d %s %s", code, out, errOut)
	}
	if got := containing(atCentre...); !slices.Contains(got, holder.id) {
		t.Fatalf("a repaired fence does not hold its centre: %v", got)
	}
	if out, _, code := run(t, "", "--db", db, "verify"); code != 0 {
		t.Fatalf("verify after repair: %s", out)
	}

	if out, errOut, code := run(t, "", "--db", db, "fence", "drop", "--fences", "copy"); code != 0 || !strings.Contains(out, "24 fences") {
		t.Fatalf("drop: %d %s %s", code, out, errOut)
	}
	if _, errOut, code := run(t, "", "--db", db, "fence", "containing", "--fences", "copy", "--lat", "1", "--lon", "2"); code != 1 || !strings.Contains(errOut, `unknown fence set "copy"`) {
		t.Fatalf("a dropped set: exit %d, %s", code, errOut)
	}
}

// TestFenceBadInput: a bad feature (named by its place in the file), a
// fence with two regions or none, and a point out of range are errors
// that change nothing in the file.
func TestFenceBadInput(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	if _, errOut, code := run(t, "", "--db", db, "fence", "put", "--fences", "zones", "--lat", "1", "--lon", "2", "--radius", "5km", "spot"); code != 0 {
		t.Fatal(errOut)
	}
	file, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.geojson")
	os.WriteFile(bad, []byte(`{"type":"FeatureCollection","features":[
		{"type":"Feature","id":"a","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"radius":100}},
		{"type":"Feature","id":"b","geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]},"properties":{}},
		{"type":"Feature","id":"c","geometry":{"type":"Point","coordinates":[1,95]},"properties":{"radius":100}}]}`), 0o644)
	noID := filepath.Join(dir, "noid.geojson")
	os.WriteFile(noID, []byte(`{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"properties":{"radius":1}}]}`), 0o644)
	noLat := filepath.Join(dir, "nolat.csv")
	os.WriteFile(noLat, []byte("id,lon\na,1\n"), 0o644)
	badLat := filepath.Join(dir, "badlat.csv")
	os.WriteFile(badLat, []byte("id,lat,lon\na,1,2\nb,97,2\n"), 0o644)
	okCSV := filepath.Join(dir, "ok.csv")
	os.WriteFile(okCSV, []byte("id,lat,lon\na,1,2\n"), 0o644)
	points := filepath.Join(dir, "points.geojson") // no region
	os.WriteFile(points, []byte(`{"type":"FeatureCollection","features":[{"type":"Feature","id":"l","geometry":{"type":"MultiPoint","coordinates":[[1,2],[3,4]]},"properties":{}}]}`), 0o644)
	short := filepath.Join(dir, "short.geojson") // a corridor's line of one position
	os.WriteFile(short, []byte(`{"type":"FeatureCollection","features":[{"type":"Feature","id":"l","geometry":{"type":"LineString","coordinates":[[1,2]]},"properties":{"radius":10}}]}`), 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"fence", "import", "--fences", "zones", bad}, 1, "feature 3 of 3"},
		{[]string{"fence", "import", "--fences", "zones", noID}, 1, "no id"},
		{[]string{"fence", "import", "--fences", "zones", points}, 1, "MultiPoint"},
		{[]string{"fence", "import", "--fences", "zones", short}, 1, "line has 1 positions"},
		{[]string{"fence", "import", "--fences", "zones", filepath.Join(dir, "missing.geojson")}, 1, "missing.geojson"},
		{[]string{"fence", "put", "--fences", "zones", "--lat", "1", "--lon", "2", "--radius", "1km", "--min-lat", "0", "--min-lon", "0", "--max-lat", "1", "--max-lon", "1", "two"}, 2, "one region"},
		{[]string{"fence", "put", "--fences", "zones", "none"}, 2, "one region"},
		{[]string{"fence", "put", "--fences", "zones", "--lat", "1", "--lon", "2", "half"}, 2, "--radius"},
		{[]string{"fence", "put", "--fences", "zones", "--lat", "91", "--lon", "2", "--radius", "1km", "spot"}, 1, "latitude"},
		{[]string{"fence", "put", "--fences", "zones", "--min-lat", "5", "--min-lon", "0", "--max-lat", "4", "--max-lon", "1", "spot"}, 1, "invalid fence"},
		{[]string{"fence", "del", "--fences", "zones", "spot", "nope"}, 1, "nope"},
		{[]string{"fence", "containing", "--fences", "zones", "--lat", "1"}, 2, "--lon"},
		{[]string{"fence", "containing", "--fences", "zones", "--lat", "-91", "--lon", "0"}, 1, "latitude"},
		{[]string{"geo", "put", "--index", "fleet", "--lat", "95", "--lon", "0", "--fences", "zones", "car"}, 1, "latitude"},
		{[]string{"geo", "put", "--index", "fleet", "--lat", "5", "--lon", "0", "--fences", "zonse", "car"}, 1, `unknown fence set "zonse"`},
		{[]string{"fence", "containing", "--fences", "zonse", "--lat", "1", "--lon", "2"}, 1, `unknown fence set "zonse"`},
		{[]string{"geo", "del", "--index", "fleet", "--fences", "zonse", "car"}, 1, `unknown fence set "zonse"`},
		{[]string{"geo", "import", "--index", "fleet", "--fences", "zonse", badLat}, 1, "line 3"},
		{[]string{"geo", "import", "--index", "fleet", "--fences", "zonse", okCSV}, 1, `unknown fence set "zonse"`},
		{[]string{"fence", "containing", "--fences", "zones", noLat}, 1, "no lat column"},
		{[]string{"fence", "containing", "--fences", "zones", badLat}, 1, "line 3: latitude 97"},
		{[]string{"fence", "containing", "--fences", "zones", "--lat", "1", "--lon", "2", bad}, 2, "one of them"},
		{[]string{"fence", "list", "--fences", "zonse"}, 1, `unknown fence set "zonse"`},
		{[]string{"fence", "drop", "--fences", "zonse"}, 1, `unknown fence set "zonse"`},
	} {
		_, errOut, code := run(t, "", append([]string{"--db", db}, c.args...)...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want exit %d naming %q", c.args, code, errOut, c.code, c.want)
		}
		if after, err := os.ReadFile(db); err != nil || !slices.Equal(file, after) {
			t.Fatalf("%v changed the file", c.args)
		}
	}
	out, _, _ := run(t, "", "--db", db, "fence", "list", "--fences", "zones")
	if !strings.Contains(out, "spot") || !strings.Contains(out, "1 fence") {
		t.Fatalf("after bad input, the set reads:\n%s", out)
	}

	// A numeric feature id is the number as written, not 1.14217e+06.
	numeric := `{"type":"FeatureCollection","features":[{"type":"Feature","id":1142170,"geometry":{"type":"Point","coordinates":[1,2]},"properties":{"radius":5}}]}`
	if _, errOut, code := run(t, numeric, "--db", db, "fence", "import", "--fences", "numbered", "-"); code != 0 {
		t.Fatal(errOut)
	}
	if out, errOut, code := run(t, "", "--db", db, "fence", "get", "--fences", "numbered", "1142170"); code != 0 || !strings.Contains(out, "1142170") {
		t.Fatalf("fence get 1142170: %d %s %s", code, out, errOut)
	}

	// Payloads, a JSON object and plain text, come back from get, and
	// through an export and an import, as they were put.
	for id, payload := range map[string]string{"obj": `{"tariff":2,"name":"Mitte"}`, "text": "plain\ttext"} {
		if _, errOut, code := run(t, "", "--db", db, "fence", "put", "--fences", "paid", "--lat", "1", "--lon", "2", "--radius", "1km", "--payload", payload, id); code != 0 {
			t.Fatal(errOut)
		}
	}
	export, _, _ := run(t, "", "--db", db, "fence", "list", "--fences", "paid", "-o", "geojson")
	if _, errOut, code := run(t, export, "--db", db, "fence", "import", "--fences", "paid2", "-"); code != 0 {
		t.Fatal(errOut)
	}
	// fence containing --payloads names each fence with its payload: a
	// JSON object as itself, text as a JSON string.
	out, errOut, code := run(t, "", "--db", db, "fence", "containing", "--fences", "paid", "--lat", "1", "--lon", "2", "--payloads", "-o", "json")
	if code != 0 {
		t.Fatal(errOut)
	}
	var got struct {
		Fences []struct {
			ID      string
			Payload json.RawMessage
		}
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got.Fences) != 2 {
		t.Fatalf("containing --payloads: %v\n%s", err, out)
	}
	var obj map[string]any
	var text string
	if got.Fences[0].ID != "obj" || json.Unmarshal(got.Fences[0].Payload, &obj) != nil || obj["name"] != "Mitte" ||
		got.Fences[1].ID != "text" || json.Unmarshal(got.Fences[1].Payload, &text) != nil || text != "plain\ttext" {
		t.Fatalf("containing --payloads:\n%s", out)
	}

	store, err := keyspace.Open(db, &keyspace.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	store.View(func(tx keyspace.Tx) error {
		for _, set := range []string{"paid", "paid2"} {
			for id, want := range map[string]string{"obj": `{"tariff":2,"name":"Mitte"}`, "text": "plain\ttext"} {
				f, err := geo.NewFences(set).Get(tx, id)
				got := string(f.Payload)
				if id == "obj" && err == nil { // an object comes back as an equal object
					var a, b any
					json.Unmarshal(f.Payload, &a)
					json.Unmarshal([]byte(want), &b)
					if reflect.DeepEqual(a, b) {
						got = want
					}
				}
				if err != nil || got != want {
					t.Errorf("%s %s: payload %q, %v; want %q", set, id, f.Payload, err, want)
				}
			}
		}
		return nil
	})
}

// TestFenceImportRows imports circles from a CSV's rows (a radius in
// metres or with its unit, the other columns the payload) and from the
// same circles as nested JSON, and checks fence containing for 300 points
// against brute force over the circles; a bad radius, or no radius
// column, imports nothing.
func TestFenceImportRows(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(21, 22))
	type circle struct {
		id            string
		lat, lon, rad float64
	}
	var circles []circle
	csvText := "store,lat,lon,reach,name\n"
	var nested strings.Builder
	nested.WriteString(`{"chain":"x","stores":[`)
	for i := range 30 {
		c := circle{fmt.Sprint("s", i), 52 + r.Float64()*0.5, 13 + r.Float64()*0.5, 500 + float64(r.IntN(4500))}
		circles = append(circles, c)
		reach := fmt.Sprint(c.rad)
		if i%2 == 0 {
			reach = fmt.Sprintf("%gkm", c.rad/1000)
		}
		csvText += fmt.Sprintf("%s,%g,%g,%s,store %d\n", c.id, c.lat, c.lon, reach, i)
		if i > 0 {
			nested.WriteString(",")
		}
		fmt.Fprintf(&nested, `{"store":%q,"at":{"lat":%g,"lon":%g},"reach":%q}`, c.id, c.lat, c.lon, reach)
	}
	nested.WriteString("]}")
	var points strings.Builder
	points.WriteString("id,lat,lon\n")
	type pt struct{ lat, lon float64 }
	var pts []pt
	for i := range 300 {
		p := pt{52 + r.Float64()*0.5, 13 + r.Float64()*0.5}
		pts = append(pts, p)
		fmt.Fprintf(&points, "p%d,%g,%g\n", i, p.lat, p.lon)
	}
	csvFile, jsonFile, pointsFile := filepath.Join(dir, "stores.csv"), filepath.Join(dir, "stores.json"), filepath.Join(dir, "points.csv")
	os.WriteFile(csvFile, []byte(csvText), 0o644)
	os.WriteFile(jsonFile, []byte(nested.String()), 0o644)
	os.WriteFile(pointsFile, []byte(points.String()), 0o644)
	for _, args := range [][]string{
		{"--id-col", "store", "--radius-col", "reach", csvFile},
		{"--each", "stores", "--id-col", "store", "--lat-col", "at.lat", "--lon-col", "at.lon", "--radius-col", "reach", jsonFile},
	} {
		db := filepath.Join(t.TempDir(), "k.db")
		if _, stderr, code := run(t, "", append([]string{"--db", db, "fence", "import", "--fences", "d"}, args...)...); code != 0 || !strings.Contains(stderr, "imported 30 fences") {
			t.Fatalf("%v: exit %d, %s", args, code, stderr)
		}
		out, stderr, code := run(t, "", "--db", db, "--output", "ndjson", "fence", "containing", "--fences", "d", pointsFile)
		if code != 0 {
			t.Fatal(stderr)
		}
		for i, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var got struct {
				ID     string
				Fences []string
			}
			if err := json.Unmarshal([]byte(line), &got); err != nil || got.ID != fmt.Sprint("p", i) {
				t.Fatalf("%q: %v", line, err)
			}
			var want []string
			edge := false
			for _, c := range circles {
				d := geo.Distance(pts[i].lat, pts[i].lon, c.lat, c.lon)
				edge = edge || math.Abs(d-c.rad) < 1
				if d <= c.rad {
					want = append(want, c.id)
				}
			}
			slices.Sort(want)
			slices.Sort(got.Fences)
			if !edge && !slices.Equal(got.Fences, want) {
				t.Errorf("%v: point %d in %v, brute force %v", args, i, got.Fences, want)
			}
		}
		if args[0] == "--id-col" {
			out, _, _ := run(t, "", "--db", db, "--output", "json", "fence", "get", "--fences", "d", "s3")
			if !strings.Contains(out, `"name": "store 3"`) || strings.Contains(out, "reach") {
				t.Errorf("s3's payload: the other columns, not the radius:\n%s", out)
			}
		}
	}
	for _, bad := range []string{"id,lat,lon,radius\na,1,2,100\nb,1,2,far\n", "id,lat,lon\na,1,2\n", "id,lat,lon,radius\na,91,2,100\n"} {
		db := filepath.Join(t.TempDir(), "k.db")
		if _, stderr, code := run(t, bad, "--db", db, "fence", "import", "--fences", "d", "--format", "csv", "-"); code != 1 || !strings.Contains(stderr, "nothing imported") {
			t.Errorf("%q: exit %d, %q", bad, code, stderr)
		}
		if _, err := os.Stat(db); err == nil {
			out, _, _ := run(t, "", "--db", db, "fence", "list", "--fences", "d")
			if !strings.Contains(out, "0 fences") {
				t.Errorf("%q: a failed import left fences:\n%s", bad, out)
			}
		}
	}
}

// TestFenceImportSkipBad: fence import of a GeoJSON FeatureCollection, a
// CSV of circles and a GPX file, each with a bad feature, row or waypoint
// among good ones, imports nothing and names the bad one; with
// --skip-bad it imports the good ones, exactly those, and names the bad
// one in its report.
func TestFenceImportSkipBad(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		file, body string
		bad        string // what the error names
	}{
		{"zones.geojson", `{"type":"FeatureCollection","features":[` +
			`{"type":"Feature","id":"a","geometry":{"type":"Point","coordinates":[2,48]},"properties":{"radius":500}},` +
			`{"type":"Feature","id":"b","geometry":{"type":"Point","coordinates":[2,95]},"properties":{"radius":500}},` +
			`{"type":"Feature","id":"c","geometry":{"type":"Polygon","coordinates":[[[2,48],[2.1,48],[2.1,48.1],[2,48]]]}}]}`,
			"feature 2 of 3: fence \"b\""},
		{"stores.csv", "id,lat,lon,radius\na,48,2,1km\nb,48,2,wide\nc,48.1,2.1,300\n", `line 3: radius (column "radius")`},
		{"places.gpx", `<gpx><wpt lat="48" lon="2"><name>a</name></wpt><wpt lat="48.1"><name>b</name></wpt><wpt lat="48.2" lon="2.2"><name>c</name></wpt></gpx>`,
			"waypoint 2: no lon"},
	} {
		db := filepath.Join(dir, tc.file+".db")
		ks, must := onDB(t, db)
		file := writeTemp(t, dir, tc.file, tc.body)
		args := []string{"fence", "import", "--fences", "zones", "--radius", "200m", file}
		if strings.HasSuffix(tc.file, ".csv") {
			args = slices.Delete(args, 4, 6) // rows take their radius from a column
		}
		if _, stderr, code := ks(args...); code != 1 || !strings.Contains(stderr, tc.bad) || !strings.Contains(stderr, "nothing imported") {
			t.Errorf("%s: exit %d, %q; want exit 1 naming %q, nothing imported", tc.file, code, stderr, tc.bad)
		}
		if out, _, _ := ks("fence", "list", "--fences", "zones", "--output", "json"); strings.Contains(out, `"a"`) {
			t.Errorf("%s: a failed import stored fences: %s", tc.file, out)
		}
		_, stderr, code := ks(append([]string{"fence", "import", "--skip-bad"}, args[2:]...)...)
		if code != 0 || !strings.Contains(stderr, "imported 2 fences") || !strings.Contains(stderr, "skipped 1 bad row: ") || !strings.Contains(stderr, tc.bad) {
			t.Errorf("%s --skip-bad: exit %d, %q; want 2 fences and the bad one named (%q)", tc.file, code, stderr, tc.bad)
		}
		var list struct{ Fences []struct{ ID string } }
		if err := json.Unmarshal([]byte(must("fence", "list", "--fences", "zones", "--output", "json")), &list); err != nil {
			t.Fatalf("%s: fence list: %v", tc.file, err)
		}
		var ids []string
		for _, f := range list.Fences {
			ids = append(ids, f.ID)
		}
		if !slices.Equal(ids, []string{"a", "c"}) {
			t.Errorf("%s --skip-bad stored %v, want [a c]", tc.file, ids)
		}
	}
}

// TestFenceListPages: fence list --limit pages through a set by its
// --cursor, in id order, the pages together the whole list (with and
// without --match); JSON carries the cursor as "next", a GeoJSON
// FeatureCollection leaves it to stderr.
func TestFenceListPages(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	ks, must := onDB(t, db)
	r := rand.New(rand.NewPCG(71, 72))
	var ids []string
	for i := range 23 {
		id := fmt.Sprintf("%s-%02d", []string{"zone", "zone:a", "depot"}[r.IntN(3)], i)
		ids = append(ids, id)
		must("fence", "put", "--fences", "z", "--lat", fmt.Sprint(40+r.Float64()), "--lon", fmt.Sprint(r.Float64()), "--radius", "500", id)
	}
	slices.Sort(ids)
	list := func(args ...string) (got []string, next string) {
		t.Helper()
		var page struct {
			Fences []struct{ ID string }
			Next   string
		}
		if err := json.Unmarshal([]byte(must(append([]string{"fence", "list", "--fences", "z", "--output", "json"}, args...)...)), &page); err != nil {
			t.Fatal(err)
		}
		for _, f := range page.Fences {
			got = append(got, f.ID)
		}
		return got, page.Next
	}
	for _, match := range []string{"", "zone*"} {
		var want []string
		for _, id := range ids {
			if ok, _ := path.Match(match, id); match == "" || ok {
				want = append(want, id)
			}
		}
		var got []string
		for cursor, pages := "", 0; ; pages++ {
			size := 1 + r.IntN(6)
			page, next := list("--match", match, "--limit", fmt.Sprint(size), "--cursor", cursor)
			if len(page) > size || pages > len(want) {
				t.Fatalf("--match %q: page %d of %d fences, --limit %d", match, pages+1, len(page), size)
			}
			got = append(got, page...)
			if next == "" {
				break
			}
			if next != page[len(page)-1] {
				t.Fatalf("next %q after a page ending %q", next, page[len(page)-1])
			}
			cursor = next
		}
		if !slices.Equal(got, want) {
			t.Errorf("--match %q: pages gave %v, want %v", match, got, want)
		}
	}
	if _, stderr, code := ks("fence", "list", "--fences", "z", "--limit", "5", "--output", "geojson"); code != 0 || stderr != "next page: --cursor "+ids[4]+"\n" {
		t.Errorf("a GeoJSON page: exit %d, stderr %q", code, stderr)
	}
	if out := must("fence", "list", "--fences", "z", "--limit", "5", "--cursor", ids[17]); !strings.HasSuffix(out, "\n5 fences\n") {
		t.Errorf("the last page, exactly --limit long, names no next page:\n%s", out)
	}
}
