package cli_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"
)

// TestGeoMatch: --match keeps the points whose id matches a glob, in
// near, knn, box, within and scan (paged, so a page's filtered points
// lead to the next), alone and with --where,
// against brute force over the points whose ids path.Match (written
// apart from tidwall/match) says match.
func TestGeoMatch(t *testing.T) {
	r := rand.New(rand.NewPCG(63, 64))
	type row struct {
		id, status string
		lat, lon   float64
	}
	var rows []row
	var csvText strings.Builder
	csvText.WriteString("id,lat,lon,status\n")
	kinds := []string{"truck", "car", "bike", "trucker"}
	for i := range 900 {
		w := row{fmt.Sprintf("%s-%d", kinds[r.IntN(len(kinds))], i), []string{"free", "busy"}[r.IntN(2)], 59.9 + r.NormFloat64()*0.05, 10.75 + r.NormFloat64()*0.1}
		rows = append(rows, w)
		fmt.Fprintf(&csvText, "%s,%v,%v,%s\n", w.id, w.lat, w.lon, w.status)
	}
	db := filepath.Join(t.TempDir(), "k.db")
	if _, stderr, code := run(t, csvText.String(), "--db", db, "--quiet", "geo", "import", "--index", "fleet", "-"); code != 0 {
		t.Fatalf("import: %s", stderr)
	}
	lat, lon := 59.91, 10.76
	for _, tc := range []struct {
		pattern string
		where   []string
	}{
		{"truck-*", nil},
		{"truck*", nil},
		{"*-1?", nil},
		{"car-?", nil},
		{"b*7", nil},
		{"*", nil},
		{"nobody*", nil},
		{"car-*", []string{"--where", "status=free"}},
		{"*", []string{"--where", "status=free"}},
		{"truck*", []string{"--where", "status=free"}},
	} {
		var kept []city
		var keptIDs []string
		for _, w := range rows {
			if ok, _ := path.Match(tc.pattern, w.id); ok && (tc.where == nil || w.status == "free") {
				kept, keptIDs = append(kept, city{w.id, w.lat, w.lon}), append(keptIDs, w.id)
			}
		}
		ask := func(args ...string) []string {
			t.Helper()
			out, stderr, code := run(t, "", append(append([]string{"--db", db, "--output", "json", "geo"}, args...), append([]string{"--match", tc.pattern}, tc.where...)...)...)
			if code != 0 {
				t.Fatalf("%v --match %s: exit %d: %s", args, tc.pattern, code, stderr)
			}
			return ids(decode(t, out))
		}
		centre := []string{"--index", "fleet", "--lat", fmt.Sprint(lat), "--lon", fmt.Sprint(lon)}
		if got, want := ask(append([]string{"near", "--radius", "5km"}, centre...)...), brute(kept, lat, lon, func(_ city, d float64) bool { return d <= 5000 }); !slices.Equal(got, want) {
			t.Errorf("near --match %s: %d points, brute force %d", tc.pattern, len(got), len(want))
		}
		all := brute(kept, lat, lon, func(city, float64) bool { return true })
		if got, want := ask(append([]string{"knn", "--k", "9"}, centre...)...), all[:min(9, len(all))]; !slices.Equal(got, want) {
			t.Errorf("knn --match %s: %v, brute force %v", tc.pattern, got, want)
		}
		if got, want := ask("box", "--index", "fleet", "--min-lat", "59.88", "--max-lat", "59.93", "--min-lon", "10.7", "--max-lon", "10.8"), brute(kept, (59.88+59.93)/2, 10.75, func(c city, _ float64) bool {
			return c.lat >= 59.88 && c.lat <= 59.93 && c.lon >= 10.7 && c.lon <= 10.8
		}); !slices.Equal(got, want) {
			t.Errorf("box --match %s: %d points, brute force %d", tc.pattern, len(got), len(want))
		}
		tri := orb.Polygon{{{10.7, 59.88}, {10.8, 59.88}, {10.75, 59.95}, {10.7, 59.88}}}
		c, _ := planar.CentroidArea(tri)
		if got, want := ask("within", "--index", "fleet", "--polygon", `{"type":"Polygon","coordinates":[[[10.7,59.88],[10.8,59.88],[10.75,59.95],[10.7,59.88]]]}`), brute(kept, c.Lat(), c.Lon(), func(x city, _ float64) bool {
			return planar.PolygonContains(tri, orb.Point{x.lon, x.lat})
		}); !slices.Equal(got, want) {
			t.Errorf("within --match %s: %d points, brute force %d", tc.pattern, len(got), len(want))
		}
		// scan, paged 40 at a time.
		var scanned []string
		for cursor := ""; ; {
			out, stderr, code := run(t, "", append([]string{"--db", db, "--output", "json", "geo", "scan", "--index", "fleet", "--limit", "40", "--cursor", cursor, "--match", tc.pattern}, tc.where...)...)
			var p struct {
				Points []struct{ ID string }
				Next   string
			}
			if err := json.Unmarshal([]byte(out), &p); code != 0 || err != nil {
				t.Fatalf("scan --match %s: exit %d, %v: %s", tc.pattern, code, err, stderr)
			}
			for _, x := range p.Points {
				scanned = append(scanned, x.ID)
			}
			if cursor = p.Next; cursor == "" {
				break
			}
		}
		if slices.Sort(keptIDs); !slices.Equal(scanned, keptIDs) {
			t.Errorf("scan --match %s %v: %d ids, %d match", tc.pattern, tc.where, len(scanned), len(keptIDs))
		}
	}
}

// TestGeoDelMatch: geo del --match deletes exactly the points whose id
// the pattern matches (path.Match says which), all in one transaction,
// and says how many; with IDs as well it is a usage error, and on an
// index that holds nothing an error.
func TestGeoDelMatch(t *testing.T) {
	r := rand.New(rand.NewPCG(65, 66))
	db := filepath.Join(t.TempDir(), "k.db")
	left := map[string]bool{}
	var csvText strings.Builder
	csvText.WriteString("id,lat,lon\n")
	for i := range 300 {
		id := fmt.Sprintf("%s-%d", []string{"truck", "car", "trucker", "a*b"}[r.IntN(4)], i)
		left[id] = true
		fmt.Fprintf(&csvText, "%q,%v,%v\n", id, 59.9+r.Float64()/10, 10.7+r.Float64()/10)
	}
	if _, stderr, code := run(t, csvText.String(), "--db", db, "--quiet", "geo", "import", "--index", "fleet", "-"); code != 0 {
		t.Fatalf("import: %s", stderr)
	}
	for _, pattern := range []string{"truck-1*", "car-?", `a\*b-*`, "nobody*", "trucker-*"} {
		n := 0
		for id := range left {
			if ok, _ := path.Match(pattern, id); ok {
				delete(left, id)
				n++
			}
		}
		_, stderr, code := run(t, "", "--db", db, "geo", "del", "--index", "fleet", "--match", pattern)
		if want := fmt.Sprintf("deleted %d point", n); code != 0 || !strings.Contains(stderr, want) {
			t.Errorf("del --match %s: exit %d, %q; want %q", pattern, code, stderr, want)
		}
		out, stderr, code := run(t, "", "--db", db, "--output", "json", "geo", "scan", "--index", "fleet", "--limit", "1000")
		var p struct{ Points []struct{ ID string } }
		if err := json.Unmarshal([]byte(out), &p); code != 0 || err != nil {
			t.Fatalf("scan: exit %d, %v: %s", code, err, stderr)
		}
		var got []string
		for _, x := range p.Points {
			got = append(got, x.ID)
		}
		if want := slices.Sorted(maps.Keys(left)); !slices.Equal(got, want) {
			t.Fatalf("after del --match %s: %d points left, want %d", pattern, len(got), len(want))
		}
	}
	if _, stderr, code := run(t, "", "--db", db, "geo", "del", "--index", "fleet", "--match", "car-*", "car-1"); code != 2 || !strings.Contains(stderr, "not both") {
		t.Errorf("del with IDs and --match: exit %d, %q", code, stderr)
	}
	if _, stderr, code := run(t, "", "--db", db, "geo", "del", "--index", "nothing", "--match", "*"); code != 1 || !strings.Contains(stderr, "nothing") {
		t.Errorf("del --match on an empty index: exit %d, %q", code, stderr)
	}
}
