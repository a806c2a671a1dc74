package cli_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// storedPoint is a point as geo scan --output ndjson exports it.
type storedPoint struct {
	ID      string          `json:"id"`
	Lat     float64         `json:"lat"`
	Lon     float64         `json:"lon"`
	Scope   []any           `json:"scope"`
	Expires string          `json:"expires"`
	Payload json.RawMessage `json:"payload"`
}

// scanPoints exports geo index name, in id order, or nil when it holds
// no points.
func scanPoints(t *testing.T, db, name string) []storedPoint {
	t.Helper()
	out, stderr, code := run(t, "", "--db", db, "-o", "ndjson", "geo", "scan", "--index", name)
	if code != 0 {
		if strings.Contains(stderr, "unknown geo index") {
			return nil
		}
		t.Fatalf("scan %s: %s", name, stderr)
	}
	var ps []storedPoint
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var p storedPoint
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("scan %s: %v: %s", name, err, sc.Text())
		}
		ps = append(ps, p)
	}
	return ps
}

// TestStore asks near, knn, box and within with --store (Redis's
// GEOSEARCHSTORE) and checks the destination index against brute force
// over the imported points: the points a query finds, with their
// positions, payloads and expiries, replace whatever it held; the
// source may be the destination; a query that finds nothing leaves it
// empty; and a failed query, a page (--cursor) or an output that is not a
// count changes nothing.
func TestStore(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	r := rand.New(rand.NewPCG(5, 6))
	var cities []city
	byID := map[string]int{}
	var csv strings.Builder
	csv.WriteString("id,lat,lon,rank\n")
	for i := range 200 {
		c := city{id: fmt.Sprintf("c%03d", i), lat: 60 + r.NormFloat64()*0.1, lon: 10 + r.NormFloat64()*0.2}
		byID[c.id] = i
		cities = append(cities, c)
		fmt.Fprintf(&csv, "%s,%v,%v,%d\n", c.id, c.lat, c.lon, i)
	}
	if _, stderr, code := run(t, csv.String(), "--db", db, "-q", "geo", "import", "--index", "src", "--typed", "--ttl", "1h", "-"); code != 0 {
		t.Fatal(stderr)
	}
	source := scanPoints(t, db, "src")
	if len(source) != len(cities) || source[0].Expires == "" {
		t.Fatalf("imported %d points, the first %+v", len(source), source[0])
	}
	within := func(c city, d float64) bool { return d <= 9000 }
	inBox := func(c city, _ float64) bool { return c.lat >= 59.95 && c.lat <= 60.05 && c.lon >= 9.9 && c.lon <= 10.2 }
	all := func(city, float64) bool { return true }
	hexagon := `{"type":"Polygon","coordinates":[[[9.9,59.95],[10.2,59.95],[10.2,60.05],[9.9,60.05],[9.9,59.95]]]}`
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"near", "--lat", "60", "--lon", "10", "--radius", "9km"}, brute(cities, 60, 10, within)},
		{[]string{"near", "--lat", "60", "--lon", "10", "--radius", "9km", "--limit", "5"}, brute(cities, 60, 10, within)[:5]},
		{[]string{"near", "--lat", "60", "--lon", "10", "--radius", "9km", "--limit", "5", "--desc"}, farthestFirst(cities, 60, 10, 9000)[:5]},
		{[]string{"near", "--lat", "60", "--lon", "10", "--radius", "9km", "--where", "rank<50"}, brute(cities, 60, 10, func(c city, d float64) bool { return d <= 9000 && byID[c.id] < 50 })},
		{[]string{"knn", "--lat", "60.1", "--lon", "10.1", "--k", "7"}, brute(cities, 60.1, 10.1, all)[:7]},
		{[]string{"knn", "--from", "c010", "--k", "4"}, brute(cities, cities[10].lat, cities[10].lon, all)[:4]},
		{[]string{"box", "--min-lat", "59.95", "--min-lon", "9.9", "--max-lat", "60.05", "--max-lon", "10.2"}, brute(cities, 60, 10, inBox)},
		{[]string{"within", "--polygon", hexagon}, brute(cities, 60, 10, inBox)},
		{[]string{"near", "--lat", "0", "--lon", "0", "--radius", "1km"}, nil},
	}
	// The destination holds points of its own first: --store replaces them.
	if _, stderr, code := run(t, "", "--db", db, "geo", "put", "--index", "dest", "--lat", "1", "--lon", "1", "old"); code != 0 {
		t.Fatal(stderr)
	}
	for _, tc := range cases {
		before := len(scanPoints(t, db, "dest"))
		args := append([]string{"--db", db, "-o", "json", "geo", tc.args[0], "--index", "src", "--store", "dest"}, tc.args[1:]...)
		out, stderr, code := run(t, "", args...)
		if code != 0 {
			t.Fatalf("%v: %s", tc.args, stderr)
		}
		var report struct {
			Stored, Replaced int
			Index            string
		}
		if err := json.Unmarshal([]byte(out), &report); err != nil || report.Stored != len(tc.want) || report.Replaced != before || report.Index != "dest" {
			t.Errorf("%v: printed %s (%v); want %d stored, %d replaced", tc.args, out, err, len(tc.want), before)
		}
		got := scanPoints(t, db, "dest")
		var ids []string
		for _, p := range got {
			ids = append(ids, p.ID)
			want := source[byID[p.ID]]
			if p.Lat != want.Lat || p.Lon != want.Lon || string(p.Payload) != string(want.Payload) || p.Expires != want.Expires {
				t.Errorf("%v: stored %+v; the source holds %+v", tc.args, p, want)
			}
		}
		want := slices.Clone(tc.want)
		slices.Sort(want)
		if !slices.Equal(ids, want) {
			t.Errorf("%v: stored %v; brute force finds %v", tc.args, ids, want)
		}
	}

	// The source as its own destination: it keeps what the query found.
	out, stderr, code := run(t, "", "--db", db, "geo", "knn", "--index", "src", "--lat", "60", "--lon", "10", "--k", "3", "--store", "src")
	want := brute(cities, 60, 10, all)[:3]
	slices.Sort(want)
	var ids []string
	for _, p := range scanPoints(t, db, "src") {
		ids = append(ids, p.ID)
	}
	if code != 0 || out != "stored 3 points in geo index src (replacing 200 points)\n" || !slices.Equal(ids, want) {
		t.Errorf("knn --store src: exit %d, %q %q, src holds %v; want %v", code, out, stderr, ids, want)
	}

	// What is refused changes nothing.
	info, err := os.Stat(db)
	if err != nil {
		t.Fatal(err)
	}
	refused := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"near", "--index", "nope", "--lat", "60", "--lon", "10", "--radius", "9km", "--store", "src"}, 1, `unknown geo index "nope"`},
		{[]string{"near", "--index", "src", "--lat", "91", "--lon", "10", "--radius", "9km", "--store", "src"}, 1, "latitude 91"},
		{[]string{"near", "--index", "src", "--lat", "60", "--lon", "10", "--radius", "9km", "--store", "src", "-o", "ndjson"}, 2, "--store prints how many points it stored"},
		{[]string{"near", "--index", "src", "--lat", "60", "--lon", "10", "--radius", "9km", "--store", "src", "--explain"}, 2, "--store prints how many points it stored"},
		{[]string{"knn", "--index", "src", "--lat", "60", "--lon", "10", "--k", "1", "--store", "src", "--cursor", "AAAA"}, 2, "--store does not page"},
	}
	for _, tc := range refused {
		_, stderr, code := run(t, "", append([]string{"--db", db, "geo"}, tc.args...)...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
	ids = ids[:0]
	for _, p := range scanPoints(t, db, "src") {
		ids = append(ids, p.ID)
	}
	if after, err := os.Stat(db); err != nil || after.ModTime() != info.ModTime() || !slices.Equal(ids, want) {
		t.Errorf("a refused --store changed the file, or src: it holds %v", ids)
	}
	missing := filepath.Join(dir, "none.db")
	if _, stderr, code := run(t, "", "--db", missing, "geo", "knn", "--index", "src", "--lat", "0", "--lon", "0", "--store", "x"); code != 1 || !strings.Contains(stderr, "unknown geo index") {
		t.Errorf("--store on a new file: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(missing); !os.IsNotExist(err) {
		t.Errorf("--store on a new file left it: %v", err)
	}
}
