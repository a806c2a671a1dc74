package cli_test

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	encbin "encoding/binary"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/geo"
)

// binary is the keyspace command, built once for the end-to-end tests.
var binary string

// commandTimeout is how long run lets one command take: the slowest
// take a few seconds under -race.
const commandTimeout = 2 * time.Minute

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "keyspace-cli")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "keyspace")
	if out, err := exec.Command("go", "build", "-o", binary, "./keyspace").CombinedOutput(); err != nil {
		panic(fmt.Sprintf("building the binary: %v\n%s", err, out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// run runs the binary and returns stdout, stderr and the exit code.
func run(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	// A command that hangs fails the test and is killed, rather than
	// hold the test until go test's timeout and then spin on, orphaned,
	// as three did when bbolt's Last looped (storetest's EmptiedPages).
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("keyspace %s: still running after %v: killed", strings.Join(args, " "), commandTimeout)
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	checkPrefixesOnce(t, errb.String())
	return out.String(), errb.String(), code
}

// checkPrefixesOnce fails t when a message on stderr names a package
// twice ("geo: fences z: fence \"c\": keyspace: key not found" once read
// "… keyspace: key not found" after "keyspace: "): each error gives its
// package once (internal/errctx). A --skip-bad report joins a message per
// row with "; ", so each of those is looked at alone.
func checkPrefixesOnce(t *testing.T, stderr string) {
	t.Helper()
	for _, line := range strings.Split(stderr, "\n") {
		for _, msg := range strings.Split(line, "; ") {
			for _, pkg := range []string{"keyspace: ", "geo: ", "indextable: ", "enumkeys: ", "composite: "} {
				if strings.Count(msg, pkg) > 1 {
					t.Errorf("%q names %q more than once: %s", msg, pkg, line)
				}
			}
		}
	}
}

type jsonResults struct {
	Results []struct {
		ID        string          `json:"id"`
		Lat       float64         `json:"lat"`
		Lon       float64         `json:"lon"`
		DistanceM float64         `json:"distance_m"`
		Payload   json.RawMessage `json:"payload"`
	} `json:"results"`
	Stats struct{ Ranges, Candidates, Results int } `json:"stats"`
}

func decode(t *testing.T, out string) jsonResults {
	t.Helper()
	var r jsonResults
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("output is not the JSON contract: %v\n%s", err, out)
	}
	if r.Stats.Results != len(r.Results) {
		t.Fatalf("stats say %d results, got %d", r.Stats.Results, len(r.Results))
	}
	return r
}

type city struct {
	id       string
	lat, lon float64
}

// brute is the oracle: every city, sorted by distance then id.
func brute(cities []city, lat, lon float64, keep func(c city, d float64) bool) []string {
	type hit struct {
		id string
		d  float64
	}
	var hits []hit
	for _, c := range cities {
		if d := geo.Distance(lat, lon, c.lat, c.lon); keep(c, d) {
			hits = append(hits, hit{c.id, d})
		}
	}
	slices.SortFunc(hits, func(a, b hit) int {
		if a.d != b.d {
			if a.d < b.d {
				return -1
			}
			return 1
		}
		return strings.Compare(a.id, b.id)
	})
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.id)
	}
	return ids
}

func ids(r jsonResults) []string {
	var out []string
	for _, x := range r.Results {
		out = append(out, x.ID)
	}
	return out
}

// TestCitiesEndToEnd imports the real cities file with the binary and checks
// each query kind against brute force over the same CSV.
func TestCitiesEndToEnd(t *testing.T) {
	path, recs := datasetCSV(t, "dr5hn_cities_flat.csv", ',')
	var cities []city
	for _, r := range recs[1:] {
		lat, _ := strconv.ParseFloat(r[8], 64)
		lon, _ := strconv.ParseFloat(r[9], 64)
		cities = append(cities, city{r[0], lat, lon})
	}
	db := filepath.Join(t.TempDir(), "cities.db")
	if _, stderr, code := run(t, "", "--db", db, "--quiet", "geo", "import", "--index", "cities", path); code != 0 {
		t.Fatalf("import exited %d: %s", code, stderr)
	}
	q := func(args ...string) jsonResults {
		t.Helper()
		out, stderr, code := run(t, "", append([]string{"--db", db, "--output", "json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v exited %d: %s", args, code, stderr)
		}
		return decode(t, out)
	}
	centres := []city{cities[100], cities[5000], cities[77777], {"pole", 89.9, 10}, {"dateline", -17.7, 179.9}}
	for _, c := range centres {
		lat, lon := fmt.Sprint(c.lat), fmt.Sprint(c.lon)
		got := q("geo", "near", "--index", "cities", "--lat", lat, "--lon", lon, "--radius", "25km")
		want := brute(cities, c.lat, c.lon, func(_ city, d float64) bool { return d <= 25000 })
		if !slices.Equal(ids(got), want) {
			t.Errorf("near %s: %v, brute force %v", c.id, ids(got), want)
		}
		got = q("geo", "knn", "--index", "cities", "--lat", lat, "--lon", lon, "--k", "7")
		want = brute(cities, c.lat, c.lon, func(city, float64) bool { return true })[:7]
		if !slices.Equal(ids(got), want) {
			t.Errorf("knn %s: %v, brute force %v", c.id, ids(got), want)
		}
		for i, r := range got.Results {
			if d := geo.Distance(c.lat, c.lon, r.Lat, r.Lon); math.Abs(d-r.DistanceM) > 1e-6*math.Max(1, d) {
				t.Errorf("result %d distance %v, recomputed %v", i, r.DistanceM, d)
			}
		}
		// A box of ±0.3° around the centre.
		minLat, maxLat := math.Max(-90, c.lat-0.3), math.Min(90, c.lat+0.3)
		got = q("geo", "box", "--index", "cities", "--min-lat", fmt.Sprint(minLat), "--max-lat", fmt.Sprint(maxLat),
			"--min-lon", fmt.Sprint(c.lon-0.3), "--max-lon", fmt.Sprint(math.Min(180, c.lon+0.3)))
		want = brute(cities, (minLat+maxLat)/2, c.lon+(math.Min(180, c.lon+0.3)-(c.lon-0.3))/2-0.3, func(x city, _ float64) bool {
			return x.lat >= minLat && x.lat <= maxLat && x.lon >= c.lon-0.3 && x.lon <= math.Min(180, c.lon+0.3)
		})
		if !slices.Equal(ids(got), want) {
			t.Errorf("box around %s: %d results, brute force %d", c.id, len(got.Results), len(want))
		}
	}
	// A polygon: a triangle around the first centre, as a GeoJSON Feature.
	c := centres[0]
	poly := fmt.Sprintf(`{"type":"Feature","properties":{},"geometry":{"type":"Polygon","coordinates":[[[%v,%v],[%v,%v],[%v,%v],[%v,%v]]]}}`,
		c.lon-0.5, c.lat-0.4, c.lon+0.5, c.lat-0.4, c.lon, c.lat+0.6, c.lon-0.5, c.lat-0.4)
	polyFile := filepath.Join(t.TempDir(), "triangle.geojson")
	os.WriteFile(polyFile, []byte(poly), 0o644)
	got := q("geo", "within", "--index", "cities", "--polygon", polyFile)
	n := 0
	for _, x := range cities {
		if inTriangle(x, c) {
			n++
		}
	}
	if len(got.Results) != n || n == 0 {
		t.Errorf("within the triangle: %d results, brute force %d", len(got.Results), n)
	}
	// The same polygon given inline, and on standard input.
	if inline := q("geo", "within", "--index", "cities", "--polygon", poly); !slices.Equal(ids(inline), ids(got)) {
		t.Errorf("within the inline triangle: %d results, from the file %d", len(inline.Results), len(got.Results))
	}
	out, stderr, code := run(t, poly, "--db", db, "--output", "json", "geo", "within", "--index", "cities", "--polygon", "-")
	if code != 0 {
		t.Fatalf("within, polygon on standard input: exit %d: %s", code, stderr)
	}
	if piped := decode(t, out); !slices.Equal(ids(piped), ids(got)) {
		t.Errorf("within the piped triangle: %d results, from the file %d", len(piped.Results), len(got.Results))
	}
	// What is not one polygon is refused, saying what it was.
	for _, bad := range []struct{ polygon, want string }{
		{`{"type":"FeatureCollection","features":[]}`, "--polygon: 0 features; give one Polygon or MultiPolygon"},
		{`{"type":"Feature","properties":{},"geometry":null}`, "--polygon: a feature with no geometry"},
		{`{"type":"Point","coordinates":[1,2]}`, "a Point is not a Polygon or MultiPolygon"},
		{`{"type":"Polygon",`, "--polygon: not GeoJSON"},
	} {
		_, stderr, code := run(t, "", "--db", db, "geo", "within", "--index", "cities", "--polygon", bad.polygon)
		if code != 1 || !strings.Contains(stderr, bad.want) {
			t.Errorf("within %s: exit %d, %q; want 1 and %q", bad.polygon, code, stderr, bad.want)
		}
	}
	// GeoJSON output parses and has one feature per result.
	out, _, _ = run(t, "", "--db", db, "geo", "near", "--index", "cities", "--lat", fmt.Sprint(c.lat), "--lon", fmt.Sprint(c.lon), "--radius", "10km", "--output", "geojson")
	var fc struct {
		Type     string `json:"type"`
		Features []json.RawMessage
	}
	if err := json.Unmarshal([]byte(out), &fc); err != nil || fc.Type != "FeatureCollection" {
		t.Errorf("geojson output: %v\n%s", err, out)
	}
}

// inTriangle is the point-in-triangle test for the polygon above, by signs
// of cross products (independent of orb).
func inTriangle(x, c city) bool {
	a := [2]float64{c.lon - 0.5, c.lat - 0.4}
	b := [2]float64{c.lon + 0.5, c.lat - 0.4}
	d := [2]float64{c.lon, c.lat + 0.6}
	p := [2]float64{x.lon, x.lat}
	cross := func(o, u, v [2]float64) float64 { return (u[0]-o[0])*(v[1]-o[1]) - (u[1]-o[1])*(v[0]-o[0]) }
	s1, s2, s3 := cross(a, b, p), cross(b, d, p), cross(d, a, p)
	return (s1 >= 0 && s2 >= 0 && s3 >= 0) || (s1 <= 0 && s2 <= 0 && s3 <= 0)
}

func TestBadImportsChangeNothing(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	good := "id,lat,lon,name\na,10,20,first\nb,11,21,second\n"
	if _, stderr, code := run(t, good, "--db", db, "geo", "import", "--index", "p", "-"); code != 0 {
		t.Fatalf("good import: %d %s", code, stderr)
	}
	before, _, _ := run(t, "", "--db", db, "stats", "--output", "json")
	bad := map[string]struct{ csv, want string }{
		"missing column":  {"id,lat,name\nc,1,x\n", "no lon column in the header (looked for lon, lng, longitude, long; name it with --lon-col); the columns are id, lat, name\n"},
		"misspelt id":     {"ID_,lat,lon\nc,1,2\n", `no id column "id" in the header (name it with --id-col); did you mean "ID_"?` + "\n"},
		"no header":       {"c,1,2\nd,3,4\n", "no lat column in the header (looked for lat, latitude; name it with --lat-col); the first line looks like data, not a header: name the columns with --columns\n"},
		"data twice":      {"c,1,1\nd,3,4\n", `line 1: columns 2 and 3 of the header are both named "1" (nothing imported); the first line looks like data, not a header: name the columns with --columns` + "\n"},
		"text in number":  {"id,lat,lon\nc,1,2\nd,north,3\n", `line 3: latitude "north" is not a number`},
		"latitude 91":     {"id,lat,lon\nc,91,2\n", "line 2: latitude 91 out of range"},
		"empty id":        {"id,lat,lon\nc,1,2\n,1,2\n", "line 3: empty id"},
		"truncated":       {"id,lat,lon\nc,1,2\nd,1", "line 3: 2 fields where the header has 3"},
		"id too long":     {"id,lat,lon\nc,1,2\n" + strings.Repeat("x", keyspace.MaxKeySize) + ",1,2\n", `line 3: geo: index p: point "xxx`},
		"column twice":    {"id,lat,lon,lat\nc,1,2,3\n", `line 1: columns 2 and 4 of the header are both named "lat"`},
		"unnamed column":  {"id,lat,lon,\nc,1,2,x\n", "line 1: column 4 of the header has no name"},
		"quote left open": {"id,lat,lon\nc,1,2\n\"d,1,2\ne,3,4\n", `line 3: extraneous or missing " in quoted-field (the record runs on to line 4`},
	}
	for name, tc := range bad {
		_, stderr, code := run(t, tc.csv, "--db", db, "geo", "import", "--index", "p", "-")
		if code != 1 || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%s: exit %d, stderr %q; want exit 1 and one line with %q", name, code, stderr, tc.want)
		}
		if after, _, _ := run(t, "", "--db", db, "stats", "--output", "json"); after != before {
			t.Errorf("%s: the database changed:\n%s\n%s", name, before, after)
		}
	}
	// GeoJSON rows are features, and are named so.
	fc := `{"type":"FeatureCollection","features":[{"type":"Feature","id":"c","geometry":{"type":"Point","coordinates":[1,2]},"properties":{}},` +
		`{"type":"Feature","id":"d","geometry":{"type":"LineString","coordinates":[[1,2],[3,4]]},"properties":{}}]}`
	if _, stderr, code := run(t, fc, "--db", db, "geo", "import", "--index", "p", "--format", "geojson", "-"); code != 1 || !strings.Contains(stderr, "feature 2: the feature's geometry is a LineString, not a Point (fence import reads areas and lines)") {
		t.Errorf("a LineString feature: exit %d, %q", code, stderr)
	}
	noGeometry := `{"type":"FeatureCollection","features":[{"type":"Feature","id":"e","geometry":null,"properties":{}}]}`
	if _, stderr, code := run(t, noGeometry, "--db", db, "geo", "import", "--index", "p", "--format", "geojson", "-"); code != 1 || !strings.Contains(stderr, "feature 1: the feature has no geometry, where geo import wants a Point") {
		t.Errorf("a feature with a null geometry: exit %d, %q", code, stderr)
	}
	if after, _, _ := run(t, "", "--db", db, "stats", "--output", "json"); after != before {
		t.Errorf("a LineString feature: the database changed:\n%s\n%s", before, after)
	}
	// --skip-bad imports the good rows and names the bad lines.
	_, stderr, code := run(t, "id,lat,lon\nc,1,2\nd,95,2\ne,3,4\n"+strings.Repeat("y", keyspace.MaxKeySize)+",5,6\n", "--db", db, "geo", "import", "--index", "p", "--skip-bad", "-")
	if code != 0 || !strings.Contains(stderr, "imported 2 points") || !strings.Contains(stderr, "line 3: latitude 95") || !strings.Contains(stderr, "line 5: geo: index p: point \"yyy") {
		t.Errorf("--skip-bad: exit %d, %q", code, stderr)
	}
}

func TestErrorsAndExitCodes(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	run(t, "id,lat,lon\na,1,2\n", "--db", db, "geo", "import", "--index", "p", "-")
	notDB := filepath.Join(dir, "notes.txt")
	os.WriteFile(notDB, bytes.Repeat([]byte("not a database "), 1000), 0o644)
	touched := filepath.Join(dir, "touched.db")
	os.WriteFile(touched, nil, 0o644)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--db", db, "geo", "near", "--index", "nope", "--lat", "1", "--lon", "1", "--radius", "1km"}, 1, "unknown geo index"},
		{[]string{"--db", filepath.Join(dir, "missing.db"), "stats"}, 1, "does not exist"},
		{[]string{"--db", notDB, "stats"}, 1, "is not a database file"},
		{[]string{"--db", dir, "stats"}, 1, "open " + dir + ": it is a directory, not a database file"},
		{[]string{"--db", touched, "geo", "scan", "--index", "p"}, 1, "keyspace: database " + touched + " is an empty file (0 bytes), not a database yet"},
		{[]string{"--db", dir, "geo", "import", "--index", "p", filepath.Join(dir, "none.csv")}, 1, "none.csv: no such file"},
		{[]string{"--db", filepath.Join(dir, "no", "such", "dir.db"), "geo", "put", "--index", "p", "--lat", "1", "--lon", "1", "a"}, 1, "keyspace: open " + filepath.Join(dir, "no", "such", "dir.db") + ": no such file or directory\n"},
		{[]string{"--db", db, "geo", "near", "--index", "p", "--lat", "1", "--lon", "1"}, 2, "keyspace: geo near needs --radius DISTANCE: 500m, 2km"},
		{[]string{"--db", db, "geo", "near", "--index", "p", "--lat", "1", "--lon", "1", "--radius", "3 parsecs"}, 2, "distance"},
		{[]string{"--db", db, "geo", "near", "--index", "p", "--lat", "1", "--lon", "1", "--radius", "1", "--bogus"}, 2, "bogus"},
		{[]string{"--db", db, "geo", "near", "--index", "p", "--lat", "91", "--lon", "1", "--radius", "1km"}, 1, "latitude 91"},
		{[]string{"--db", db, "geo", "knn", "--index", "p", "--lat", "1", "--lon", "1", "--k", "0"}, 2, "--k 0: want how many neighbours, 1 or more"},
		{[]string{"--db", db, "geo", "knn", "--index", "p", "--polygon", `{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}`, "--k", "-3"}, 2, "--k -3: want how many neighbours"},
		{[]string{"--db", db, "geo", "sweep", "extra"}, 2, "keyspace: geo sweep takes no arguments"},
		{[]string{"--db", db, "geo", "fset", "--index", "p"}, 2, "keyspace: geo fset wants an ID"},
	}
	for _, tc := range cases {
		_, stderr, code := run(t, "", tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "goroutine") {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}

func TestLockedDatabase(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	s, err := keyspace.Open(db, nil) // this process holds the file read-write
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	_, stderr, code := run(t, "id,lat,lon\na,1,2\n", "--db", db, "geo", "import", "--index", "p", "-")
	if code != 1 || !strings.Contains(stderr, "locked") {
		t.Errorf("second writer: exit %d, %q", code, stderr)
	}
	if waited := time.Since(start); waited > 20*time.Second {
		t.Errorf("the locked error took %v", waited) // the lock timeout is 3 s; this only catches a hang
	}
}

func TestLogAndTableCommands(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	for i, text := range []string{"hello", "lunch?", "bye"} {
		out, stderr, code := run(t, "", "--db", db, "log", "append", "--log", "inbox", "--parent", "alice",
			"--time", fmt.Sprintf("2026-11-21T%02d:00:00Z", 9+i*5), text)
		if code != 0 || strings.TrimSpace(out) != fmt.Sprint(i+1) {
			t.Fatalf("append %d: %q %q %d", i, out, stderr, code)
		}
	}
	out, _, _ := run(t, "", "--db", db, "log", "latest", "--log", "inbox", "--parent", "alice", "-n", "2", "--output", "json")
	var page struct{ Items []struct{ ID uint64 } }
	json.Unmarshal([]byte(out), &page)
	if len(page.Items) != 2 || page.Items[0].ID != 3 || page.Items[1].ID != 2 {
		t.Errorf("latest 2: %s", out)
	}
	// --limit, as log range and log day call it, is -n.
	if again, _, _ := run(t, "", "--db", db, "log", "latest", "--log", "inbox", "--parent", "alice", "--limit", "2", "--output", "json"); again != out {
		t.Errorf("latest --limit 2: %s, -n 2: %s", again, out)
	}
	out, _, _ = run(t, "", "--db", db, "log", "day", "--log", "inbox", "--parent", "alice", "--date", "2026-11-21", "--tz", "Asia/Tokyo", "--output", "json")
	page.Items = nil
	json.Unmarshal([]byte(out), &page)
	// Tokyo is UTC+9: 09:00Z and 14:00Z fall on the 21st there, 19:00Z on the 22nd.
	if len(page.Items) != 2 || page.Items[0].ID != 1 || page.Items[1].ID != 2 {
		t.Errorf("day in Tokyo: %s", out)
	}
	if _, stderr, code := run(t, "", "--db", db, "log", "get", "--log", "inbox", "--parent", "alice", "9"); code != 1 || !strings.Contains(stderr, "out of range") {
		t.Errorf("get 9: %d %q", code, stderr)
	}
	for arg, want := range map[string]string{
		"99999999999999999999": "past the largest id a log gives, 18446744073709551615",
		"-1":                   "not a positive integer",
		"0x1":                  "not a positive integer",
	} {
		if _, stderr, code := run(t, "", "--db", db, "log", "get", "--log", "inbox", "--parent", "alice", arg); code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("get %s: exit %d, %q; want a usage error saying %q", arg, code, stderr, want)
		}
	}

	csvText := "country,state,city,id\nUS,CA,San Francisco,9\nUS,CA,San Jose,10\nUS,CA,Fresno,11\nUS,NY,Albany,12\nUS,CA,San Diego,13\n"
	if _, stderr, code := run(t, csvText, "--db", db, "table", "import", "--table", "c", "--key-cols", "country,state,city,id", "-"); code != 0 {
		t.Fatal(stderr)
	}
	var keys []string
	cursor := ""
	for pages := 0; pages < 10; pages++ {
		args := []string{"--db", db, "table", "scan", "--table", "c", "US:CA:San*", "--limit", "2", "--output", "json"}
		if cursor != "" {
			args = append(args, "--cursor", cursor)
		}
		out, stderr, code := run(t, "", args...)
		if code != 0 {
			t.Fatal(stderr)
		}
		var p struct {
			Rows []struct{ Key string }
			Next string
		}
		json.Unmarshal([]byte(out), &p)
		for _, r := range p.Rows {
			keys = append(keys, r.Key)
		}
		if cursor = p.Next; cursor == "" {
			break
		}
	}
	want := []string{"US:CA:San Diego:13", "US:CA:San Francisco:9", "US:CA:San Jose:10"}
	if !slices.Equal(keys, want) {
		t.Errorf("paged scan: %v, want %v", keys, want)
	}
	out, _, _ = run(t, "", "--db", db, "table", "count", "--table", "c", "--depth", "2", "US", "--output", "json")
	var counts map[string]int
	json.Unmarshal([]byte(out), &counts)
	if counts["US:CA"] != 4 || counts["US:NY"] != 1 {
		t.Errorf("counts: %s", out)
	}
}

// TestTableKeysReadBack: the keys table scan and table count print are
// what their queries read with the table's schema: each scanned key,
// given back as a query, finds exactly its row, and each group, as a
// prefix, counts its rows. Text key columns whose values look like
// numbers, null or floats are written plainly (11, not \11), and only
// ':', '*' and '\' are escaped.
func TestTableKeysReadBack(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	rows := "country,state,city,id\nUS,11,Oslo,1\nUS,11,null,2\nUS,007,1.5,3\nUS,CA,a:b,4\nUS,CA,x*,5\nUS,CA,back\\slash,6\nNO,~7,true,7\n"
	if _, stderr, code := run(t, rows, "--db", db, "table", "import", "--table", "c", "--key-cols", "country,state,city,id", "-"); code != 0 {
		t.Fatal(stderr)
	}
	type page struct {
		Rows []struct {
			Key    string
			Record map[string]string
		}
	}
	scan := func(query string) page {
		t.Helper()
		out, stderr, code := run(t, "", "--db", db, "--output", "json", "table", "scan", "--table", "c", query)
		if code != 0 {
			t.Fatalf("scan %q: %s", query, stderr)
		}
		var p page
		if err := json.Unmarshal([]byte(out), &p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	all := scan("*")
	if len(all.Rows) != 7 {
		t.Fatalf("%d rows, want 7", len(all.Rows))
	}
	for _, r := range all.Rows {
		if strings.Contains(strings.NewReplacer(`\:`, "", `\*`, "", `\\`, "").Replace(r.Key), `\`) {
			t.Errorf("key %q escapes more than ':', '*' and '\\'", r.Key)
		}
		got := scan(r.Key)
		if len(got.Rows) != 1 || got.Rows[0].Key != r.Key || got.Rows[0].Record["id"] != r.Record["id"] {
			t.Errorf("scan %q found %+v, want row %s alone", r.Key, got.Rows, r.Record["id"])
		}
	}
	out, _, _ := run(t, "", "--db", db, "table", "count", "--table", "c", "--depth", "2", "--output", "json")
	var counts map[string]int
	json.Unmarshal([]byte(out), &counts)
	if len(counts) != 4 || counts["US:11"] != 2 || counts["US:007"] != 1 {
		t.Errorf("counts %v", counts)
	}
	for group, n := range counts {
		if got := scan(group + ":*"); len(got.Rows) != n {
			t.Errorf("group %q counts %d rows, its prefix scan finds %d", group, n, len(got.Rows))
		}
	}
}

// TestListingsPageInEveryFormat: table scan, index scan and lookup, log
// range and rel list, paged two at a time through the cursor each format
// gives (json's "next", the table's last line, and for ndjson a line on
// stderr, since its stdout is the rows), list exactly what one unlimited
// json page lists. An ndjson page had dropped its cursor, so a limited export
// looked complete.
func TestListingsPageInEveryFormat(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	rows := "id,city\n1,Oslo\n2,Lima\n3,Pune\n4,Oslo\n5,Rome\n"
	if _, stderr, code := run(t, rows, "--db", db, "table", "import", "--table", "c", "--key-cols", "id", "-"); code != 0 {
		t.Fatal(stderr)
	}
	for _, args := range [][]string{
		{"index", "create", "--table", "c", "--name", "by_city", "--fields", "city"},
		{"index", "build", "--table", "c", "--name", "by_city"},
	} {
		if _, stderr, code := run(t, "", append([]string{"--db", db}, args...)...); code != 0 {
			t.Fatalf("%v: %s", args, stderr)
		}
	}
	for i := range 5 {
		if _, stderr, code := run(t, "", "--db", db, "log", "append", "--log", "l", "--parent", "p", fmt.Sprint("m", i)); code != 0 {
			t.Fatal(stderr)
		}
		if _, stderr, code := run(t, "", "--db", db, "rel", "link", "--rel", "likes", "--time", fmt.Sprintf("2026-11-2%dT10:00:00Z", i), fmt.Sprint("u", i), "i1"); code != 0 {
			t.Fatal(stderr)
		}
	}
	cursorLine := regexp.MustCompile(`(?m)^next page: --cursor (\S+)$`)
	for _, listing := range []struct {
		key  string // the json key of the rows
		args []string
	}{
		{"rows", []string{"table", "scan", "--table", "c"}},
		{"entries", []string{"index", "scan", "--table", "c", "--name", "by_city"}},
		{"entries", []string{"index", "lookup", "--table", "c", "--name", "by_city"}},
		{"items", []string{"log", "range", "--log", "l", "--parent", "p"}},
		{"links", []string{"rel", "list", "--rel", "likes", "--right", "i1"}},
	} {
		// A cursor no listing handed out, and a negative limit, are usage
		// errors in every listing alike.
		for _, bad := range []struct{ flag, value, says string }{{"--cursor", "zzz", "cursor"}, {"--limit", "-1", "must be positive"}} {
			if _, stderr, code := run(t, "", append(append([]string{"--db", db}, listing.args...), bad.flag, bad.value)...); code != 2 || !strings.Contains(stderr, bad.says) {
				t.Errorf("%v %s %s: exit %d, %q; want 2 and %q", listing.args, bad.flag, bad.value, code, stderr, bad.says)
			}
		}
		list := func(format string, extra ...string) (rows []string, next string) {
			t.Helper()
			out, stderr, code := run(t, "", append(append([]string{"--db", db, "--output", format}, listing.args...), extra...)...)
			if code != 0 {
				t.Fatalf("%v %s: %d %s", listing.args, format, code, stderr)
			}
			switch format {
			case "json":
				var doc map[string]json.RawMessage
				if err := json.Unmarshal([]byte(out), &doc); err != nil {
					t.Fatalf("%v json: %v\n%s", listing.args, err, out)
				}
				var items []json.RawMessage
				json.Unmarshal(doc[listing.key], &items)
				for _, it := range items {
					rows = append(rows, string(it))
				}
				json.Unmarshal(doc["next"], &next)
			case "ndjson":
				rows = strings.Split(strings.TrimSuffix(out, "\n"), "\n")
				if m := cursorLine.FindStringSubmatch(stderr); m != nil {
					next = m[1]
				}
			default:
				if m := cursorLine.FindStringSubmatch(out); m != nil {
					next = m[1]
					out = out[:strings.Index(out, "next page:")]
				}
				lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
				rows = lines[1:] // under the header
			}
			return rows, next
		}
		all, next := list("json")
		if len(all) != 5 || next != "" {
			t.Fatalf("%v: one page of %d rows, next %q", listing.args, len(all), next)
		}
		var compact []string // the json rows as ndjson writes them
		for _, r := range all {
			var b bytes.Buffer
			json.Compact(&b, []byte(r))
			compact = append(compact, b.String())
		}
		for _, format := range []string{"json", "ndjson", "table"} {
			var got []string
			cursor := ""
			for pages := 0; ; pages++ {
				page, next := list(format, "--limit", "2", "--cursor", cursor)
				if len(page) > 2 || pages > 5 {
					t.Fatalf("%v %s: page %d of %d rows", listing.args, format, pages, len(page))
				}
				got = append(got, page...)
				if cursor = next; cursor == "" {
					break
				}
			}
			want := compact
			if format == "json" {
				want = all
			}
			if format == "table" && len(got) != len(all) || format != "table" && !slices.Equal(got, want) {
				t.Errorf("%v %s, two at a time: %q, want %q", listing.args, format, got, want)
			}
		}
	}
}

// TestTyposAndHelp: an unknown command or flag is a usage error (exit 2)
// that names the nearest known name when one is near, on one line; "help"
// where a command belongs shows the help of the commands after it.
func TestTyposAndHelp(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string // a part of stderr ("" for none at all)
		stdout string // a part of stdout
	}{
		{[]string{"geo", "neer"}, 2, `unknown command "neer" for "keyspace geo"; did you mean "near"?`, ""},
		{[]string{"geo", "georadius", "--index", "x"}, 2, `unknown command "georadius" for "keyspace geo"; did you mean "near"?`, ""},
		{[]string{"geo", "GEOADD"}, 2, `unknown command "GEOADD" for "keyspace geo"; did you mean "put"?`, ""},
		{[]string{"geo", "nearest"}, 2, `unknown command "nearest" for "keyspace geo"; did you mean "knn"?`, ""},
		{[]string{"-o", "jsonl", "stats"}, 2, `--output "jsonl": this command writes table, json; did you mean "json"?`, ""},
		{[]string{"-o", "jsonl", "geo", "scan", "--index", "x"}, 2, `--output "jsonl": this command writes table, json, ndjson, geojson, count, ids, csv; did you mean "ndjson"?`, ""},
		{[]string{"geo", "scan", "--index", "x", "-o", "josn"}, 2, `; did you mean "json"?`, ""},
		{[]string{"geo", "scan", "--index", "x", "-o", "yaml"}, 2, `--output "yaml": this command writes table, json, ndjson, geojson, count, ids, csv` + "\n", ""},
		{[]string{"geo", "import", "--index", "x", "--format", "jsonl", "-"}, 2, `--format "jsonl": want csv, tsv, ndjson, json, geojson, xml; did you mean "ndjson"?`, ""},
		{[]string{"bench", "--dataset", "cluster"}, 2, `--dataset "cluster": want one of [uniform clustered poles antimeridian cities]; did you mean "clustered"?`, ""},
		{[]string{"fence", "scan", "--fences", "zones"}, 2, `unknown command "scan" for "keyspace fence"; did you mean "list"?`, ""},
		{[]string{"table", "geoadd"}, 2, `unknown command "geoadd" for "keyspace table" (keyspace table --help lists them)`, ""},
		{[]string{"tabel", "scan", "--table", "x"}, 2, `unknown command "tabel" for "keyspace"; did you mean "table"?`, ""},
		{[]string{"log", "lates", "--log", "x"}, 2, `did you mean "latest"?`, ""},
		{[]string{"zzz"}, 2, `unknown command "zzz" for "keyspace" (keyspace --help lists them)`, ""},
		{[]string{"geo", "near", "--index", "x", "--lattitude", "3"}, 2, "-lattitude; did you mean --lat?", ""},
		{[]string{"--dbb", "x", "stats"}, 2, "did you mean --db?", ""},
		{[]string{"geo", "import", "--index", "x", "--id", "ref", "-"}, 2, "-id; did you mean --id-col?\n", ""},
		{[]string{"geo", "import", "--index", "x", "--lat", "y", "-"}, 2, "-lat; did you mean --lat-col?\n", ""},
		{[]string{"table", "import", "--table", "x", "--key", "id", "-"}, 2, "-key; did you mean --key-cols?\n", ""},
		{[]string{"fence", "near", "--fences", "x", "--lat", "1", "--lon", "2", "--distance", "5km"}, 2, "-distance; did you mean --radius?\n", ""},
		{[]string{"geo", "knn", "--index", "x", "--lat", "1", "--lon", "2", "--count", "3"}, 2, "-count; did you mean -k?\n", ""},
		{[]string{"geo", "import", "--index", "x", "--lng", "x", "-"}, 2, "-lng; did you mean --lon-col?\n", ""},
		{[]string{"fence", "near", "--fences", "x", "--lat", "1", "--lon", "2", "--limit", "3"}, 2, "--limit; did you mean -k?\n", ""},
		{[]string{"geo", "knn", "--index", "x", "--lat", "1", "--lon", "2", "-n", "3"}, 2, "-n; did you mean -k?\n", ""},
		{[]string{"index", "create", "--table", "t", "--index", "by_tz", "--fields", "tz"}, 2, "-index; did you mean --name?\n", ""},
		{[]string{"index", "create", "--table", "x", "--name", "y", "--cols", "a"}, 2, "-cols; did you mean --fields?\n", ""},
		{[]string{"table", "import", "--table", "x", "--cols", "id", "-"}, 2, "-cols; did you mean --key-cols?\n", ""},
		{[]string{"geo", "near", "--index", "x", "--qqqq", "3"}, 2, "flag provided but not defined: --qqqq\n", ""},
		// A flag's value that does not parse: the flag with its dashes, and
		// what its kind wants.
		{[]string{"geo", "near", "--index", "x", "--lat", "1", "--lon", "2", "-r", "1km", "--limit", "2.5"}, 2, `--limit "2.5": want a whole number` + "\n", ""},
		{[]string{"geo", "near", "--index", "x", "--lat", "1", "--lon", "2", "-r", "1km", "-n", "ten"}, 2, `-n "ten": want a whole number` + "\n", ""},
		{[]string{"log", "range", "--log", "x", "-p", "a", "--from", "-1"}, 2, `--from "-1": want a whole number, 0 or more` + "\n", ""},
		{[]string{"geo", "cells", "--index", "x", "--min-lat", "south"}, 2, `--min-lat "south": want a number` + "\n", ""},
		{[]string{"series", "add", "--series", "t", "--sensor", "s", "--keep-raw=maybe", "1"}, 2, "--keep-raw=maybe: --keep-raw is a switch, true or false", ""},
		{[]string{"geo", "near", "--index", "x", "--scope", "US:*", "--lat", "1", "--lon", "2", "-r", "1km"}, 2, `--scope "US:*": a scope is named whole, with no star, and a query searches one`, ""},
		{[]string{"log", "day", "--log", "x", "-p", "a", "--date", "2026-02-30"}, 2, `--date "2026-02-30": no such day (day out of range)` + "\n", ""},
		{[]string{"log", "day", "--log", "x", "-p", "a", "--date", "2026-2-3"}, 2, `--date "2026-2-3": want YYYY-MM-DD` + "\n", ""},
		{[]string{"log", "append", "--log", "x", "-p", "a", "--time", "yesterday", "hi"}, 2, `--time "yesterday": want RFC 3339 (2026-11-23T10:30:00Z; with no zone, UTC), a date (its midnight UTC) or Unix seconds, from 1677 to 2262` + "\n", ""},
		// A flag named as the command's argument: the argument is meant.
		{[]string{"geo", "put", "--index", "x", "--lat", "1", "--lon", "2", "--id", "car-7"}, 2, "-id; ID is an argument, not a flag: keyspace geo put [options] ID\n", ""},
		{[]string{"series", "add", "--series", "t", "--sensor", "s1", "--value", "3"}, 2, "-value; VALUE is an argument, not a flag: keyspace series add [options] VALUE\n", ""},
		{[]string{"table", "get", "--table", "t", "--key", "US:1"}, 2, "-key; KEY is an argument, not a flag: keyspace table get [options] KEY...\n", ""},
		{[]string{"geo", "import", "--index", "x", "--file", "a.csv"}, 2, "-file; FILE is an argument, not a flag: keyspace geo import [options] FILE|-\n", ""},
		{[]string{"table", "scan", "--table", "t", "--prefix", "US:CA"}, 2, "-prefix; QUERY is an argument, not a flag: keyspace table scan [options] [QUERY], as in keyspace table scan --table cities 'US:CA:San*' --limit 20\n", ""},
		{[]string{"table", "count", "--table", "t", "--pattern", "US"}, 2, "-pattern; PREFIX is an argument, not a flag: keyspace table count [options] [PREFIX], as in keyspace table count --table cities --depth 2 US\n", ""},
		{[]string{"help"}, 0, "", "keyspace - geospatial"},
		{[]string{"help", "geo", "near"}, 0, "", "keyspace geo near - points within a radius"},
		{[]string{"geo", "help", "knn"}, 0, "", "keyspace geo knn - the k nearest"},
		{[]string{"help", "geo", "neer"}, 2, `did you mean "near"?`, ""},
		{[]string{"geo", "get", "--index", "x", "car-7", "--help"}, 0, "", "keyspace geo get - points by id"},
		{[]string{"rel", "count", "--rel", "likes", "left", "u1"}, 2, `rel count takes no arguments, got "left" (did you mean --left u1?)`, ""},
		{[]string{"rel", "list", "--rel", "likes", "u1"}, 2, `rel list takes no arguments, got "u1" (did you mean --left u1, or --right u1?)`, ""},
		{[]string{"rel", "list", "--rel", "likes", "--left", "u1", "u2"}, 2, `rel list takes no arguments, got "u2" (keyspace rel list --help lists its flags)`, ""},
		{[]string{"geo", "sweep", "--index", "x", "quiet"}, 2, `geo sweep takes no arguments, got "quiet" (did you mean --quiet?)`, ""},
		{[]string{"table", "scan", "US:*", "-h", "--table", "x"}, 0, "", "keyspace table scan - rows whose key"},
	} {
		out, stderr, code := run(t, "", append([]string{"--db", db}, tc.args...)...)
		if code != tc.code || !strings.Contains(stderr, tc.stderr) || tc.stderr == "" && stderr != "" || !strings.Contains(out, tc.stdout) {
			t.Errorf("%v: exit %d, stderr %q, stdout %.80q; want exit %d, stderr with %q, stdout with %q", tc.args, code, stderr, out, tc.code, tc.stderr, tc.stdout)
		}
		if strings.Count(stderr, "\n") > 1 {
			t.Errorf("%v: stderr is more than one line: %q", tc.args, stderr)
		}
	}
}

// TestDamagedDatabase: a database whose leaf pages are damaged answers
// every command with one line naming the damage and exit 1: no panic, no
// stack trace.
func TestDamagedDatabase(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	var csvText strings.Builder
	csvText.WriteString("id,lat,lon\n")
	for i := range 2000 {
		fmt.Fprintf(&csvText, "p%d,%f,%f\n", i, 40+float64(i%100)/100, -3+float64(i/100)/100)
	}
	if _, stderr, code := run(t, csvText.String(), "--db", db, "--quiet", "geo", "import", "--index", "g", "-"); code != 0 {
		t.Fatal(stderr)
	}
	data, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	const pageSize, leafPage = 4096, 0x02
	// The top-level root page (which Open reads; its id is in each meta
	// page, after the page header and four 4-byte fields) is left alone,
	// so that the damage is found by the commands, after Open.
	roots := map[uint64]bool{}
	for meta := range 2 {
		roots[encbin.LittleEndian.Uint64(data[meta*pageSize+16+16:])] = true
	}
	damaged := 0
	for page := 2; page < len(data)/pageSize; page++ {
		head := data[page*pageSize:]
		if encbin.LittleEndian.Uint64(head) == uint64(page) && encbin.LittleEndian.Uint16(head[8:]) == leafPage && !roots[uint64(page)] {
			head[8] = 0xff // a leaf no more
			damaged++
		}
	}
	if damaged < 2 {
		t.Fatalf("found %d leaf pages to damage", damaged)
	}
	if err := os.WriteFile(db, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"geo", "near", "--index", "g", "--lat", "40.5", "--lon", "-2.5", "--radius", "20km"},
		{"geo", "scan", "--index", "g"},
		{"geo", "get", "--index", "g", "p7"},
		{"geo", "put", "--index", "g", "--lat", "1", "--lon", "2", "q1"},
		{"stats"},
		{"verify"},
	} {
		_, stderr, code := run(t, "", append([]string{"--db", db}, args...)...)
		t.Logf("%v: %s", args, stderr)
		if code != 1 || !strings.Contains(stderr, "is damaged") || strings.Count(stderr, "\n") != 1 || strings.Contains(stderr, "goroutine") {
			t.Errorf("%v on a damaged file: exit %d, stderr %q; want exit 1 and one line naming the damage", args, code, stderr)
		}
	}
}

func TestIndexRelAndVerifyCommands(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	orders := "id,status,created,city\n1,completed,100,Oslo\n2,open,200,Lima\n3,completed,300,Pune\n4,completed,200,Oslo\n"
	if _, stderr, code := run(t, orders, "--db", db, "table", "import", "--table", "orders", "--key-cols", "id", "-"); code != 0 {
		t.Fatal(stderr)
	}
	for _, args := range [][]string{
		{"index", "create", "--table", "orders", "--name", "status_created", "--fields", "status,-created", "--cover", "city"},
		{"index", "build", "--table", "orders", "--name", "status_created"},
		{"index", "verify", "--table", "orders", "--name", "status_created"},
	} {
		if _, stderr, code := run(t, "", append([]string{"--db", db}, args...)...); code != 0 {
			t.Fatalf("%v: %d %s", args, code, stderr)
		}
	}
	out, _, _ := run(t, "", "--db", db, "index", "lookup", "--table", "orders", "--name", "status_created", "completed", "--output", "json")
	var page struct {
		Entries []struct {
			Key     string
			Covered map[string]string
			Record  map[string]string
		}
	}
	if err := json.Unmarshal([]byte(out), &page); err != nil {
		t.Fatal(err, out)
	}
	var keys []string
	for _, e := range page.Entries {
		keys = append(keys, e.Key+"/"+e.Covered["city"]+"/"+e.Record["created"])
	}
	if want := []string{"3/Pune/300", "4/Oslo/200", "1/Oslo/100"}; !slices.Equal(keys, want) {
		t.Errorf("completed, newest first: %v, want %v", keys, want)
	}
	// The descending field's value is given and printed as it is: the
	// index knows created is descending (it was ~200 on both sides).
	out, _, _ = run(t, "", "--db", db, "index", "lookup", "--table", "orders", "--name", "status_created", "completed:200", "--output", "json")
	var one struct{ Entries []struct{ Value, Key string } }
	json.Unmarshal([]byte(out), &one)
	if len(one.Entries) != 1 || one.Entries[0].Key != "4" || one.Entries[0].Value != "completed:200" {
		t.Errorf("lookup completed:200: %s", out)
	}
	// --from and --to bound created in the index's order, newest first.
	for _, c := range []struct {
		bounds []string
		want   []string
	}{
		{[]string{"--from", "300", "--to", "100"}, []string{"3", "4"}},
		{[]string{"--from", "250"}, []string{"4", "1"}},
		{[]string{"--to", "200"}, []string{"3"}},
	} {
		out, stderr, _ := run(t, "", append([]string{"--db", db, "--output", "json", "index", "scan", "--table", "orders", "--name", "status_created", "completed"}, c.bounds...)...)
		var page struct{ Entries []struct{ Key string } }
		json.Unmarshal([]byte(out), &page)
		var got []string
		for _, e := range page.Entries {
			got = append(got, e.Key)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("scan completed %v: %v, want %v (%s)", c.bounds, got, c.want, stderr)
		}
	}
	// A star makes a prefix query of the last field named: every row
	// whose status starts so, newest first within a status, as the rows
	// above say; --from and --to want an exact value.
	type order struct{ id, status, created string }
	var rows []order
	for _, line := range strings.Split(strings.TrimSpace(orders), "\n")[1:] {
		f := strings.Split(line, ",")
		rows = append(rows, order{f[0], f[1], f[2]})
	}
	slices.SortStableFunc(rows, func(a, b order) int { // status up, created down
		return cmp.Or(strings.Compare(a.status, b.status), strings.Compare(b.created, a.created))
	})
	for _, q := range []string{"comp*", "o*", "*", "x*", "completed:*"} {
		out, stderr, code := run(t, "", "--db", db, "--output", "json", "index", "lookup", "--table", "orders", "--name", "status_created", q)
		var page struct{ Entries []struct{ Key string } }
		json.Unmarshal([]byte(out), &page)
		var got, want []string
		for _, e := range page.Entries {
			got = append(got, e.Key)
		}
		prefix := strings.TrimSuffix(strings.TrimSuffix(q, "*"), ":")
		for _, r := range rows {
			if strings.HasPrefix(r.status, prefix) {
				want = append(want, r.id)
			}
		}
		if code != 0 || !slices.Equal(got, want) {
			t.Errorf("lookup %s: exit %d, %v, want %v (%s)", q, code, got, want, stderr)
		}
	}
	if _, stderr, code := run(t, "", "--db", db, "index", "scan", "--table", "orders", "--name", "status_created", "comp*", "--from", "300"); code != 2 || !strings.Contains(stderr, "has a star") {
		t.Errorf("scan comp* --from 300: exit %d, %q", code, stderr)
	}
	// New rows keep the index in step.
	run(t, "id,status,created,city\n5,completed,400,Rome\n", "--db", db, "table", "import", "--table", "orders", "--key-cols", "id", "-")
	if out, stderr, code := run(t, "", "--db", db, "verify"); code != 0 || !strings.Contains(out, "index status_created: 0 problems") || !strings.Contains(out, " keys read\n") {
		t.Errorf("verify: %d %s %s", code, out, stderr)
	}
	// Relations: seed 000's likes.
	for _, l := range [][]string{{"u1", "i1", "2017-12-01T03:42:00Z"}, {"u1", "i2", "2017-12-01T06:28:40Z"}, {"u2", "i1", "2017-12-01T09:15:20Z"}} {
		if _, stderr, code := run(t, "", "--db", db, "rel", "link", "--rel", "likes", "--time", l[2],
			"--left-fields", fmt.Sprintf(`{"name":"%s"}`, map[string]string{"u1": "jerrylou", "u2": "gunsluo"}[l[0]]), l[0], l[1]); code != 0 {
			t.Fatal(stderr)
		}
	}
	out, _, _ = run(t, "", "--db", db, "rel", "list", "--rel", "likes", "--right", "i1", "--output", "json")
	var likers struct {
		Links []struct {
			ID     string
			Fields map[string]string
		}
	}
	json.Unmarshal([]byte(out), &likers)
	if len(likers.Links) != 2 || likers.Links[0].ID != "u2" || likers.Links[1].Fields["name"] != "jerrylou" {
		t.Errorf("who likes i1: %s", out)
	}
	// Counts, read from the keys link and unlink keep; unlinking what is
	// not linked is an error that changes nothing.
	relCount := func(side, id string) string {
		out, stderr, code := run(t, "", "--db", db, "rel", "count", "--rel", "likes", side, id)
		if code != 0 {
			t.Fatalf("count %s %s: %s", side, id, stderr)
		}
		return strings.TrimSpace(out)
	}
	if a, b, c := relCount("--right", "i1"), relCount("--left", "u1"), relCount("--right", "i9"); a != "2" || b != "2" || c != "0" {
		t.Errorf("counts: i1 %s, u1 %s, i9 %s; want 2, 2, 0", a, b, c)
	}
	if _, stderr, code := run(t, "", "--db", db, "rel", "unlink", "--rel", "likes", "u2", "i2"); code != 1 || !strings.Contains(stderr, "likes does not link u2 to i2") {
		t.Errorf("unlink u2 i2, never linked: exit %d, %q", code, stderr)
	}
	if _, stderr, code := run(t, "", "--db", db, "rel", "unlink", "--rel", "likes", "u1", "i1"); code != 0 {
		t.Errorf("unlink u1 i1: %s", stderr)
	}
	if a, b := relCount("--right", "i1"), relCount("--left", "u1"); a != "1" || b != "1" {
		t.Errorf("after unlinking u1 from i1, counts: i1 %s, u1 %s; want 1, 1", a, b)
	}
	// rel has: the links left (u1–i2 since 06:28:40, u2–i1), in the order asked.
	for _, tc := range []struct{ left, rights, want string }{
		{"u1", "i1 i2 i9", "i1=false i2=true@2017-12-01T06:28:40Z i9=false"},
		{"u2", "i2 i1", "i2=false i1=true@2017-12-01T09:15:20Z"},
		{"u9", "i1", "i1=false"},
	} {
		out, stderr, code := run(t, "", append([]string{"--db", db, "--output", "json", "rel", "has", "--rel", "likes", tc.left}, strings.Fields(tc.rights)...)...)
		var has struct {
			Links []struct {
				Right  string
				Linked bool
				Time   *time.Time
			}
		}
		json.Unmarshal([]byte(out), &has)
		var got []string
		for _, l := range has.Links {
			s := fmt.Sprintf("%s=%v", l.Right, l.Linked)
			if l.Time != nil {
				s += "@" + l.Time.Format(time.RFC3339)
			}
			got = append(got, s)
		}
		if code != 0 || strings.Join(got, " ") != tc.want {
			t.Errorf("rel has %s %s: exit %d, %v (%s); want %s", tc.left, tc.rights, code, got, stderr, tc.want)
		}
	}
	// A field without a name is refused, and no index is made.
	for _, fields := range [][]string{{"--fields", ""}, {"--fields", "status,,city"}, {"--fields", "-"}, {"--fields", "city", "--cover", "status,"}} {
		args := append([]string{"--db", db, "index", "create", "--table", "orders", "--name", "bad"}, fields...)
		if _, stderr, code := run(t, "", args...); code != 2 || !strings.Contains(stderr, "has no name") {
			t.Errorf("%v: exit %d, %q", fields, code, stderr)
		}
	}
	if _, stderr, code := run(t, "", "--db", db, "index", "lookup", "--table", "orders", "--name", "bad", "x"); code != 1 || !strings.Contains(stderr, "unknown index") {
		t.Errorf("after refused creates, index bad: exit %d, %q", code, stderr)
	}
	// A missing index: one line, exit 1.
	if _, stderr, code := run(t, "", "--db", db, "index", "lookup", "--table", "orders", "--name", "nope", "x"); code != 1 || !strings.Contains(stderr, "unknown index") {
		t.Errorf("unknown index: %d %q", code, stderr)
	}
}

// TestSVGAndExplain: the SVG parses as XML with one result element per
// result, and --explain prints the covering.
func TestSVGAndExplain(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	var csvText strings.Builder
	csvText.WriteString("id,lat,lon\n")
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&csvText, "p%d,%v,%v\n", i, 48.85+float64(i%20)*0.002, 2.35+float64(i/20)*0.003)
	}
	run(t, csvText.String(), "--db", db, "geo", "import", "--index", "paris", "-")
	svg := filepath.Join(dir, "q.svg")
	out, stderr, code := run(t, "", "--db", db, "geo", "near", "--index", "paris", "--lat", "48.86", "--lon", "2.36", "--radius", "800m",
		"--svg", svg, "--explain", "--output", "json")
	if code != 0 {
		t.Fatal(stderr)
	}
	res := decode(t, out)
	if !strings.Contains(stderr, "covering:") || !strings.Contains(stderr, "range ") {
		t.Errorf("--explain printed %q", stderr)
	}
	classes := svgClasses(t, svg)
	results, cells := classes["result"], classes["cell"]
	if results != len(res.Results) || results == 0 || cells == 0 {
		t.Errorf("SVG has %d result elements and %d cells for %d results", results, cells, len(res.Results))
	}
}

// onDB returns ks, which runs keyspace --db db with args, and must, which
// runs it too and fails t unless it exits 0, returning what it printed.
func onDB(t *testing.T, db string) (ks func(args ...string) (string, string, int), must func(args ...string) string) {
	ks = func(args ...string) (string, string, int) {
		return run(t, "", append([]string{"--db", db}, args...)...)
	}
	must = func(args ...string) string {
		t.Helper()
		out, stderr, code := ks(args...)
		if code != 0 {
			t.Fatalf("keyspace %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
		return out
	}
	return ks, must
}

// svgClasses counts the elements of the SVG file at path by their class,
// failing t unless the file is XML.
func svgClasses(t *testing.T, path string) map[string]int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec := xml.NewDecoder(f)
	classes := map[string]int{}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return classes
		}
		if err != nil {
			t.Fatalf("%s is not XML: %v", path, err)
		}
		if se, ok := tok.(xml.StartElement); ok {
			for _, a := range se.Attr {
				if a.Name.Local == "class" {
					classes[a.Value]++
				}
			}
		}
	}
}

func TestCompletion(t *testing.T) {
	out, _, code := run(t, "", "geo", "--generate-bash-completion")
	if code != 0 || !strings.Contains(out, "near") || !strings.Contains(out, "knn") {
		t.Errorf("geo completions: %d %q", code, out)
	}
	out, _, code = run(t, "", "completion", "bash")
	if code != 0 || !strings.Contains(out, "complete -o default -F _keyspace_complete keyspace") {
		t.Errorf("bash script: %d %q", code, out)
	}
	if _, _, code := run(t, "", "completion", "powershell"); code != 2 {
		t.Errorf("unknown shell: exit %d, want 2", code)
	}
}

// TestBashCompletesNames sources keyspace completion bash in bash and
// completes command lines as bash would at a Tab: after --index or
// --table the names the file holds that begin with the word typed, after
// --radius nothing (a distance is no name), and a flag's name. Where
// zsh is installed, its script is asked alike (what it offers _describe,
// which filters by the word typed), and where fish is, fish completes
// the same lines with its script (complete -C).
func TestBashCompletesNames(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "names.db")
	rows := filepath.Join(dir, "rows.csv")
	if err := os.WriteFile(rows, []byte("id,lat,lon\n1,59.9,10.7\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	runOK(t, "", "--db", db, "-q", "geo", "import", "--index", "quakes", rows)
	runOK(t, "", "--db", db, "-q", "geo", "import", "--index", "quarry", rows)
	runOK(t, "", "--db", db, "-q", "geo", "import", "--index", "cities", rows)
	runOK(t, "", "--db", db, "-q", "table", "import", "--table", "towns", "--key-cols", "id", rows)
	runOK(t, "", "--db", db, "-q", "index", "create", "--table", "towns", "--name", "by_lat", "--fields", "lat")
	runOK(t, "", "--db", db, "-q", "index", "create", "--table", "towns", "--name", "by_lon", "--fields", "lon")
	script, zshScript, fishScript := runOK(t, "", "completion", "bash"), runOK(t, "", "completion", "zsh"), runOK(t, "", "completion", "fish")
	// fish's script completes the command named keyspace, by name: the
	// test's binary, by its path.
	fishScript = strings.ReplaceAll(fishScript, "complete -c keyspace", "complete -p "+binary)
	for _, tc := range []struct {
		words string // the command line up to the cursor, its last word the one completed
		want  string // COMPREPLY, space-separated
	}{
		{"geo near --index qu", "quakes quarry"},
		{"geo near -i c", "cities"},
		{"table scan --table ", "towns"},
		{"fence containing --fences z", ""},
		{"geo near --index quakes --radius ", ""},
		{"geo near --index quakes --rad", "--radius"},
		{"index lookup --table towns --name by_l", "by_lat by_lon"},
		{"geo near --index quakes -o nd", "ndjson"},
	} {
		if zsh, err := exec.LookPath("zsh"); err == nil {
			// zsh's _describe filters by the word typed; here it prints
			// what it was offered, and compdef needs no compinit.
			offered := map[string]string{"geo near --index qu": "cities quakes quarry", "geo near -i c": "cities quakes quarry",
				"table scan --table ": "towns", "fence containing --fences z": "", "geo near --index quakes --radius ": "", "geo near --index quakes --rad": "--radius",
				"index lookup --table towns --name by_l": "by_lat by_lon", "geo near --index quakes -o nd": "table json ndjson csv geojson count ids"}[tc.words]
			words := append([]string{binary, "--db", db}, strings.Fields(tc.words)...)
			if strings.HasSuffix(tc.words, " ") {
				words = append(words, "")
			}
			line := "compdef() { :; }\n_describe() { print -r -- \"${(@P)2}\"; }\n" + zshScript +
				fmt.Sprintf("words=('%s'); _keyspace", strings.Join(words, "' '"))
			out, err := exec.Command(zsh, "-f", "-c", line).Output()
			if got := strings.TrimSpace(string(out)); err != nil || got != offered {
				t.Errorf("zsh completing %q: offered %q, %v; want %q", tc.words, got, err, offered)
			}
		}
		if fish, err := exec.LookPath("fish"); err == nil {
			// fish's complete -C completes a command line as a Tab would,
			// filtering what the script offers by the word typed.
			line := fishScript + fmt.Sprintf("\ncomplete -C '%s --db %s %s'", binary, db, tc.words)
			out, err := exec.Command(fish, "--no-config", "-c", line).Output()
			if got := strings.Join(strings.Fields(string(out)), " "); err != nil || got != tc.want {
				t.Errorf("fish completing %q: %q, %v; want %q", tc.words, got, err, tc.want)
			}
		}
		words := append([]string{binary, "--db", db}, strings.Fields(tc.words)...)
		if strings.HasSuffix(tc.words, " ") {
			words = append(words, "")
		}
		quoted := make([]string, len(words))
		for i, w := range words {
			quoted[i] = "'" + w + "'"
		}
		line := fmt.Sprintf("%s\nCOMP_WORDS=(%s); COMP_CWORD=%d; _keyspace_complete; echo \"${COMPREPLY[*]}\"", script, strings.Join(quoted, " "), len(words)-1)
		out, err := exec.Command(bash, "-c", line).Output()
		if got := strings.TrimSpace(string(out)); err != nil || got != tc.want {
			t.Errorf("bash completing %q: %q, %v; want %q", tc.words, got, err, tc.want)
		}
	}
}

// TestInterruptedImportChangesNothing sends Ctrl-C (SIGINT) to a large
// import at several points of its run (reading the file, sorting, writing
// inside PutAll): each time it exits 1, saying it was interrupted and
// imported nothing, and the database is as it was.
func TestInterruptedImportChangesNothing(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	run(t, "id,lat,lon\nfirst,1,2\n", "--db", db, "geo", "import", "--index", "p", "-")
	before, _, _ := run(t, "", "--db", db, "stats", "--output", "json")
	seed, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	var big strings.Builder
	big.WriteString("id,lat,lon,note\n")
	for i := 0; i < 200_000; i++ {
		fmt.Fprintf(&big, "p%d,%v,%v,some payload text\n", i, float64(i%1800)/20-45, float64(i%3600)/20-90)
	}
	file := filepath.Join(dir, "big.csv")
	os.WriteFile(file, []byte(big.String()), 0o644)
	// How long the whole import takes here and now, into a copy.
	whole := filepath.Join(dir, "whole.db")
	os.WriteFile(whole, seed, 0o644)
	began := time.Now()
	if _, stderr, code := run(t, "", "--db", whole, "--quiet", "geo", "import", "--index", "p", file); code != 0 {
		t.Fatalf("the import, not interrupted: exit %d: %s", code, stderr)
	}
	took := time.Since(began)
	for _, at := range []float64{0.2, 0.5, 0.8} {
		os.WriteFile(db, seed, 0o644)
		ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, binary, "--db", db, "--quiet", "geo", "import", "--index", "p", file) // killed if it hangs
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(at * float64(took)))
		cmd.Process.Signal(os.Interrupt)
		err := cmd.Wait()
		if err == nil {
			t.Logf("interrupted at %.0f%% of %v: the import finished first", at*100, took)
			continue
		}
		// Exit 130 would mean it did not stop within interruptGrace by
		// itself, as PutAll did before UpdateContext.
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(errb.String(), "interrupted") || !strings.Contains(errb.String(), "nothing imported") {
			t.Errorf("interrupted at %.0f%% of %v: %v, %q", at*100, took, err, errb.String())
		}
		if after, _, _ := run(t, "", "--db", db, "stats", "--output", "json"); after != before {
			t.Errorf("interrupted at %.0f%% of %v, the import changed the database:\n%s\n%s", at*100, took, before, after)
		}
	}
}

// TestBenchCommand runs `keyspace bench` small: its JSON is the bench
// package's report with recall 1 for every exact peer and the targets
// checked, --report writes the Markdown and the charts, the text ends with
// the targets, and bad flags are usage errors that run nothing.
func TestBenchCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "report")
	stdout, stderr, code := run(t, "", "bench", "--points", "2000", "--queries", "5", "--passes", "1", "--json", "--report", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep struct {
		Points  int `json:"points"`
		Results []struct {
			Peer   string  `json:"peer"`
			Recall float64 `json:"recall"`
			Exact  bool    `json:"exact"`
		} `json:"results"`
		Targets []struct {
			Goal string `json:"goal"`
			Met  bool   `json:"met"`
		} `json:"targets"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("--json output does not parse: %v\n%s", err, stdout)
	}
	if rep.Points != 2000 || len(rep.Results) == 0 || len(rep.Targets) == 0 {
		t.Fatalf("report: %d points, %d results, %d targets", rep.Points, len(rep.Results), len(rep.Targets))
	}
	for _, r := range rep.Results {
		if r.Exact && r.Recall != 1 {
			t.Errorf("%s: recall %v", r.Peer, r.Recall)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil || !strings.Contains(string(md), "## Targets") {
		t.Errorf("report README.md: %v\n%s", err, md)
	}
	for _, chart := range []string{"latency.svg", "candidates.svg"} {
		if svg, err := os.ReadFile(filepath.Join(dir, chart)); err != nil || !strings.HasPrefix(string(svg), "<svg") || !strings.Contains(string(md), "("+chart+")") {
			t.Errorf("%s: %v, linked: %v", chart, err, strings.Contains(string(md), chart))
		}
	}
	stdout, stderr, code = run(t, "", "bench", "--points", "1000", "--queries", "3", "--passes", "1", "--dataset", "uniform")
	if code != 0 || !strings.Contains(stdout, "targets (the targets are set for 1,000,000 clustered points; this run has 1,000 uniform points, so its verdicts, in brackets, are for reference") ||
		!strings.Contains(stdout, "\n  (met)  ") || strings.Contains(stdout, "MISSED") {
		t.Errorf("text report, exit %d: %s\n%s", code, stderr, stdout)
	}
	for _, bad := range [][]string{{"--points", "0"}, {"--dataset", "mars"}, {"--passes", "-1"}, {"--seed", "0"}} {
		_, stderr, code := run(t, "", append([]string{"bench"}, bad...)...)
		// The error names the flag and the value given, and no other flag.
		if code != 2 || !strings.Contains(stderr, bad[0]) || !strings.Contains(stderr, bad[1]) || strings.Count(stderr, "--") != 1 {
			t.Errorf("bench %v: exit %d, %q; want a usage error naming it", bad, code, stderr)
		}
	}
}

// TestBenchCompare saves a run with --json and compares a second run on
// the same points with it: the comparison's "before" ratio for each
// keyspace peer is the saved run's median over the R-tree's, as the JSON
// gives them. A saved run of other points, --json beside --compare, and
// a file that is no report are refused.
func TestBenchCompare(t *testing.T) {
	saved := filepath.Join(t.TempDir(), "before.json")
	args := []string{"bench", "--points", "1000", "--queries", "3", "--passes", "1", "--dataset", "uniform"}
	stdout, stderr, code := run(t, "", append(args, "--json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	os.WriteFile(saved, []byte(stdout), 0o644)
	var rep struct {
		Results []struct {
			Query struct {
				Kind   string  `json:"kind"`
				Metres float64 `json:"metres"`
			} `json:"query"`
			Peer   string  `json:"peer"`
			Median float64 `json:"median_us"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatal(err)
	}
	medians := map[string]float64{} // the keyspace peers' at 10 km
	tree := 0.0
	for _, r := range rep.Results {
		if r.Query.Kind == "radius" && r.Query.Metres == 10_000 {
			if strings.HasPrefix(r.Peer, "R-tree") {
				tree = r.Median
			} else if strings.HasPrefix(r.Peer, "keyspace") {
				medians[r.Peer] = r.Median
			}
		}
	}
	if tree == 0 || len(medians) != 2 {
		t.Fatalf("saved run: R-tree %v, keyspace %v", tree, medians)
	}
	dir := filepath.Join(t.TempDir(), "report")
	stdout, stderr, code = run(t, "", append(args, "--compare", saved, "--report", dir)...)
	if code != 0 {
		t.Fatalf("--compare: exit %d: %s", code, stderr)
	}
	if md, err := os.ReadFile(filepath.Join(dir, "README.md")); err != nil || !strings.Contains(string(md), "## Against the earlier run") {
		t.Errorf("--report with --compare: %v\n%s", err, md)
	}
	_, comparison, found := strings.Cut(stdout, "this run against the earlier one, on 1,000 uniform points (seed 1)")
	if !found {
		t.Fatalf("no comparison after the run:\n%s", stdout)
	}
	_, at10, _ := strings.Cut(comparison, "radius 10 km")
	at10, _, _ = strings.Cut(at10, "radius 100 km")
	for peer, median := range medians {
		want := fmt.Sprintf("%s %.2f×", peer, median/tree)
		if !strings.Contains(strings.Join(strings.Fields(at10), " "), want) {
			t.Errorf("radius 10 km lacks %q:\n%s", want, at10)
		}
	}
	hasAll := func(s string, parts ...string) bool {
		for _, p := range parts {
			if !strings.Contains(s, p) {
				return false
			}
		}
		return true
	}
	notReport := filepath.Join(t.TempDir(), "not-a-report.json")
	os.WriteFile(notReport, []byte(`{"points": 3}`), 0o644)
	for _, c := range []struct {
		args   []string
		code   int
		stderr []string
	}{
		{[]string{"--points", "1200"}, 1, []string{"not comparable", "1,000 uniform points", "1,200 uniform points"}},
		{[]string{"--json"}, 2, []string{"--compare", "--json"}},
	} {
		_, stderr, code := run(t, "", append(append(args[:len(args):len(args)], "--compare", saved), c.args...)...)
		if code != c.code || !hasAll(stderr, c.stderr...) {
			t.Errorf("%v: exit %d, %q", c.args, code, stderr)
		}
	}
	if _, stderr, code := run(t, "", "bench", "--compare", notReport); code != 1 || !hasAll(stderr, "not-a-report.json", "not a benchmark report") {
		t.Errorf("a file that is no report: exit %d, %q", code, stderr)
	}
}

// TestBenchFile runs `keyspace bench` on a file of points, as geo import
// reads it (here gzip-compressed NDJSON, its format found from its
// bytes): the report names the file and counts its points, every exact
// peer finds what brute force finds on them, --points takes the first N;
// a bad row stops it unless --skip-bad, which names it; an id given twice
// is a bad row (it would be one point in keyspace and two in the R-tree).
func TestBenchFile(t *testing.T) {
	dir := t.TempDir()
	var lines strings.Builder
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 1500 {
		// Clusters near the antimeridian and a pole, and spread points.
		lat, lon := r.Float64()*170-85, r.Float64()*360-180
		switch i % 3 {
		case 0:
			lat, lon = -17+r.NormFloat64()*0.2, 179.9+r.NormFloat64()*0.1
		case 1:
			lat, lon = 89.5+r.Float64()*0.5, r.Float64()*360-180
		}
		lon = math.Mod(lon+540, 360) - 180
		fmt.Fprintf(&lines, `{"id":"p%d","lat":%g,"lon":%g,"kind":"x"}`+"\n", i, lat, lon)
	}
	file := filepath.Join(dir, "mine.data")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(lines.String()))
	zw.Close()
	os.WriteFile(file, gz.Bytes(), 0o644)
	type report struct {
		Dataset string `json:"dataset"`
		Points  int    `json:"points"`
		Results []struct {
			Peer   string  `json:"peer"`
			Recall float64 `json:"recall"`
			Exact  bool    `json:"exact"`
		} `json:"results"`
	}
	for _, c := range []struct {
		args   []string
		points int
	}{{nil, 1500}, {[]string{"--points", "700"}, 700}} {
		stdout, stderr, code := run(t, "", append([]string{"bench", "--queries", "10", "--passes", "1", "--json", file}, c.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		var rep report
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		if rep.Dataset != "mine.data" || rep.Points != c.points || len(rep.Results) == 0 {
			t.Errorf("%v: dataset %q, %d points, %d results", c.args, rep.Dataset, rep.Points, len(rep.Results))
		}
		for _, res := range rep.Results {
			if res.Exact && res.Recall != 1 {
				t.Errorf("%v: %s: recall %v", c.args, res.Peer, res.Recall)
			}
		}
	}
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("id,lat,lon\na,1,2\nb,91,2\na,3,4\nc,5,6\n"), 0o644)
	if _, stderr, code := run(t, "", "bench", "--queries", "3", "--passes", "1", bad); code != 1 || !strings.Contains(stderr, "line 3: ") {
		t.Errorf("a bad row: exit %d, %q", code, stderr)
	}
	stdout, stderr, code := run(t, "", "bench", "--queries", "3", "--passes", "1", "--json", "--skip-bad", bad)
	var rep report
	if code != 0 || json.Unmarshal([]byte(stdout), &rep) != nil || rep.Points != 2 ||
		!strings.Contains(stderr, "left out 2 bad rows: line 3: ") || !strings.Contains(stderr, `line 4: id "a" repeats line 2`) {
		t.Errorf("--skip-bad: exit %d, %d points, %q", code, rep.Points, stderr)
	}
	for _, args := range [][]string{{"--dataset", "uniform", bad}, {bad, bad}} {
		if _, stderr, code := run(t, "", append([]string{"bench"}, args...)...); code != 2 {
			t.Errorf("bench %v: exit %d, %q; want a usage error", args, code, stderr)
		}
	}
}

// TestFromMemberAndDist checks --from (Redis's FROMMEMBER) on near, knn
// and box, and geo dist, against brute force over the generated points,
// scoped in two halves.
func TestFromMemberAndDist(t *testing.T) {
	type scoped struct {
		city
		scope string
	}
	var points []scoped
	var csvText strings.Builder
	csvText.WriteString("id,lat,lon,zone\n")
	for i := range 3000 {
		// A deterministic scatter over about 40 × 40 km around Lyon.
		p := scoped{city{fmt.Sprintf("p%d", i), 45.6 + float64((i*7919)%3000)/3000*0.36, 4.7 + float64((i*104729)%3001)/3001*0.5}, "A"}
		if i%2 == 1 {
			p.scope = "B"
		}
		points = append(points, p)
		fmt.Fprintf(&csvText, "%s,%s,%s,%s\n", p.id, strconv.FormatFloat(p.lat, 'g', -1, 64), strconv.FormatFloat(p.lon, 'g', -1, 64), p.scope)
	}
	db := filepath.Join(t.TempDir(), "k.db")
	if _, stderr, code := run(t, csvText.String(), "--db", db, "--quiet", "geo", "import", "--index", "fleet", "--scope-cols", "zone", "-"); code != 0 {
		t.Fatalf("import exited %d: %s", code, stderr)
	}
	in := func(scope string) []city {
		var out []city
		for _, p := range points {
			if p.scope == scope {
				out = append(out, p.city)
			}
		}
		return out
	}
	q := func(args ...string) jsonResults {
		t.Helper()
		out, stderr, code := run(t, "", append([]string{"--db", db, "--output", "json", "geo"}, args...)...)
		if code != 0 {
			t.Fatalf("%v exited %d: %s", args, code, stderr)
		}
		return decode(t, out)
	}
	for _, from := range []scoped{points[10], points[1501], points[2998]} {
		other := map[string]string{"A": "B", "B": "A"}[from.scope]
		// In the point's own scope unless --scope says otherwise.
		got := q("near", "--index", "fleet", "--from", from.id, "--radius", "3km")
		want := brute(in(from.scope), from.lat, from.lon, func(_ city, d float64) bool { return d <= 3000 })
		if !slices.Equal(ids(got), want) || len(want) < 2 || want[0] != from.id {
			t.Errorf("near --from %s: %v, brute force %v", from.id, ids(got), want)
		}
		got = q("near", "--index", "fleet", "--from", from.id, "--scope", other, "--radius", "3km")
		want = brute(in(other), from.lat, from.lon, func(_ city, d float64) bool { return d <= 3000 })
		if !slices.Equal(ids(got), want) || len(want) == 0 {
			t.Errorf("near --from %s --scope %s: %v, brute force %v", from.id, other, ids(got), want)
		}
		got = q("knn", "--index", "fleet", "--from", from.id, "--k", "5")
		want = brute(in(from.scope), from.lat, from.lon, func(city, float64) bool { return true })[:5]
		if !slices.Equal(ids(got), want) {
			t.Errorf("knn --from %s: %v, brute force %v", from.id, ids(got), want)
		}
		// A box around the point is the box around its coordinates.
		lat, lon := strconv.FormatFloat(from.lat, 'g', -1, 64), strconv.FormatFloat(from.lon, 'g', -1, 64)
		got = q("box", "--index", "fleet", "--from", from.id, "--width", "4km", "--height", "2km")
		around := q("box", "--index", "fleet", "--scope", from.scope, "--lat", lat, "--lon", lon, "--width", "4km", "--height", "2km")
		if !slices.Equal(ids(got), ids(around)) || len(ids(got)) < 2 {
			t.Errorf("box --from %s: %v; around its coordinates: %v", from.id, ids(got), ids(around))
		}
	}
	// geo dist: the distance on the sphere, between points of any scopes.
	a, b := points[10], points[2999]
	out, stderr, code := run(t, "", "--db", db, "--output", "json", "geo", "dist", "--index", "fleet", a.id, b.id)
	var dist struct {
		From, To  string
		DistanceM float64 `json:"distance_m"`
	}
	if err := json.Unmarshal([]byte(out), &dist); code != 0 || err != nil {
		t.Fatalf("dist: exit %d, %v: %s%s", code, err, out, stderr)
	}
	if want := geo.Distance(a.lat, a.lon, b.lat, b.lon); dist.From != a.id || dist.To != b.id || dist.DistanceM != want || want == 0 {
		t.Errorf("dist %s %s: %+v, want %v metres", a.id, b.id, dist, want)
	}
	if out, _, _ := run(t, "", "--db", db, "geo", "dist", "--index", "fleet", a.id, a.id); out != "0.0 m\n" {
		t.Errorf("dist of a point to itself: %q", out)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"near", "--index", "fleet", "--from", "nobody", "--radius", "1km"}, 1, `no point "nobody" in index fleet`},
		{[]string{"near", "--index", "fleet", "--from", a.id, "--lat", "45", "--radius", "1km"}, 2, "not both"},
		{[]string{"near", "--index", "fleet", "--lat", "45", "--radius", "1km"}, 2, "--lat and --lon, or --from"},
		{[]string{"knn", "--index", "fleet", "--k", "3"}, 2, "--lat and --lon, or --from"},
		{[]string{"box", "--index", "fleet", "--from", a.id, "--width", "1km"}, 2, "--height is missing"},
		{[]string{"dist", "--index", "fleet", a.id}, 2, "two IDs"},
		{[]string{"dist", "--index", "fleet", a.id, "nobody"}, 1, `no point "nobody"`},
	} {
		_, stderr, code := run(t, "", append([]string{"--db", db, "geo"}, tc.args...)...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want exit %d mentioning %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}

// TestGeoScan pages through an index with geo scan and checks the pages
// against the generated points, filters a scope, and exports the index
// as GeoJSON that imports into a second index holding the same points.
func TestGeoScan(t *testing.T) {
	var csvText strings.Builder
	csvText.WriteString("id,lat,lon,zone,name\n")
	type point struct{ id, zone string }
	var points []point
	for i := range 500 {
		p := point{fmt.Sprintf("c%03d", (i*37)%500), []string{"north", "south"}[i%2]}
		points = append(points, p)
		// A name with a tab and a multi-byte character, cut in the table.
		fmt.Fprintf(&csvText, "%s,%v,%v,%s,\"Zürich\tstraße %s %s\"\n", p.id, -60+float64(i)*0.24, -170+float64(i)*0.68, p.zone, strings.Repeat("é", 30), p.id)
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	if _, stderr, code := run(t, csvText.String(), "--db", db, "--quiet", "geo", "import", "--index", "a", "--scope-cols", "zone", "-"); code != 0 {
		t.Fatalf("import exited %d: %s", code, stderr)
	}
	type page struct {
		Points []struct {
			ID      string          `json:"id"`
			Lat     float64         `json:"lat"`
			Lon     float64         `json:"lon"`
			Scope   string          `json:"scope"`
			Payload json.RawMessage `json:"payload"`
		} `json:"points"`
		Next string `json:"next"`
	}
	scan := func(args ...string) page {
		t.Helper()
		out, stderr, code := run(t, "", append([]string{"--db", db, "--output", "json", "geo", "scan"}, args...)...)
		var p page
		if err := json.Unmarshal([]byte(out), &p); code != 0 || err != nil {
			t.Fatalf("geo scan %v: exit %d, %v: %s", args, code, err, stderr)
		}
		return p
	}
	all := func(index string, args ...string) (ids []string, whole page) {
		t.Helper()
		for cursor, pages := "", 0; ; pages++ {
			p := scan(append([]string{"--index", index, "--limit", "70", "--cursor", cursor}, args...)...)
			if len(p.Points) == 0 || len(p.Points) > 70 || pages > 500/70+1 {
				t.Fatalf("page %d of %d points (%v)", pages+1, len(p.Points), args)
			}
			for _, x := range p.Points {
				ids = append(ids, x.ID)
			}
			whole.Points = append(whole.Points, p.Points...)
			if cursor = p.Next; cursor == "" {
				return ids, whole
			}
		}
	}
	var want, wantNorth []string
	for _, p := range points {
		want = append(want, p.id)
		if p.zone == "north" {
			wantNorth = append(wantNorth, p.id)
		}
	}
	slices.Sort(want)
	slices.Sort(wantNorth)
	if got, _ := all("a"); !slices.Equal(got, want) {
		t.Errorf("paged scan: %d ids, want %d", len(got), len(want))
	}
	if got, _ := all("a", "--scope", "north"); !slices.Equal(got, wantNorth) {
		t.Errorf("scan --scope north: %v, want %v", got, wantNorth)
	}
	// Descending, paged by the same cursors: the ids reversed, alone,
	// under a scope and under a --match whose prefix bounds the scan.
	backwards := func(ids []string, keep func(string) bool) []string {
		var out []string
		for _, id := range slices.Backward(ids) {
			if keep(id) {
				out = append(out, id)
			}
		}
		return out
	}
	every := func(string) bool { return true }
	if got, _ := all("a", "--reverse"); !slices.Equal(got, backwards(want, every)) {
		t.Errorf("scan --reverse: %d ids, want %d", len(got), len(want))
	}
	if got, _ := all("a", "--desc", "--scope", "north"); !slices.Equal(got, backwards(wantNorth, every)) {
		t.Errorf("scan --desc --scope north: %v", got)
	}
	for _, pattern := range []string{"c1*", "c4?9", "c*", "c49*"} {
		matched := func(id string) bool { ok, _ := path.Match(pattern, id); return ok }
		if got, _ := all("a", "--reverse", "--match", pattern); !slices.Equal(got, backwards(want, matched)) {
			t.Errorf("scan --reverse --match %s: %v", pattern, got)
		}
	}
	// Export and import again: the same points, scopes and payloads.
	export, stderr, code := run(t, "", "--db", db, "--output", "geojson", "geo", "scan", "--index", "a")
	if code != 0 || stderr != "" {
		t.Fatalf("export: exit %d, %s", code, stderr)
	}
	if _, stderr, code := run(t, export, "--db", db, "--quiet", "geo", "import", "--index", "b", "--format", "geojson", "--scope-cols", "scope", "-"); code != 0 {
		t.Fatalf("import of the export exited %d: %s", code, stderr)
	}
	_, a := all("a")
	_, b := all("b")
	if !reflect.DeepEqual(a, b) || len(a.Points) != 500 {
		t.Errorf("the export imported again differs: %d points against %d", len(b.Points), len(a.Points))
	}
	// The table cuts payloads between characters.
	out, _, _ := run(t, "", "--db", db, "geo", "scan", "--index", "a", "--limit", "3")
	if !utf8.ValidString(out) || !strings.Contains(out, "3 points\nnext page: --cursor c002\n") {
		t.Errorf("table page:\n%s", out)
	}
	if out, _, _ := run(t, "", "--db", db, "geo", "scan", "--index", "a", "--limit", "1"); !strings.HasSuffix(out, "\n1 point\nnext page: --cursor c000\n") {
		t.Errorf("a page of one:\n%s", out)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--index", "nope"}, 1, "unknown geo index"},
		{[]string{"--index", "a", "--limit", "-1"}, 2, "--limit -1"},
	} {
		_, stderr, code := run(t, "", append([]string{"--db", db, "geo", "scan"}, tc.args...)...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want exit %d mentioning %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}

// TestLogCountAndDelete: log count (all, and per day in a zone) agrees
// with a recount of what was appended and deleted; a log del naming one
// id that is not there deletes none of them.
func TestLogCountAndDelete(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	oslo, _ := time.LoadLocation("Europe/Oslo")
	live := map[uint64]time.Time{}
	start := time.Date(2026, 3, 28, 20, 0, 0, 0, time.UTC) // across Oslo's change to summer time
	for i := range 30 {
		at := start.Add(time.Duration(i) * 3 * time.Hour)
		out, stderr, code := run(t, "", "--db", db, "log", "append", "--log", "inbox", "--parent", "ann", "--time", at.Format(time.RFC3339), fmt.Sprint("m", i))
		if code != 0 {
			t.Fatal(stderr)
		}
		id, _ := strconv.ParseUint(strings.TrimSpace(out), 10, 64)
		live[id] = at
	}
	count := func(args ...string) int {
		t.Helper()
		out, stderr, code := run(t, "", append([]string{"--db", db, "--output", "json", "log", "count", "--log", "inbox", "--parent", "ann"}, args...)...)
		if code != 0 {
			t.Fatalf("count %v: %s", args, stderr)
		}
		var c struct{ Count int }
		if err := json.Unmarshal([]byte(out), &c); err != nil {
			t.Fatal(err)
		}
		return c.Count
	}
	check := func() {
		t.Helper()
		if got := count(); got != len(live) {
			t.Errorf("count %d, want %d", got, len(live))
		}
		for d := range 5 {
			day := time.Date(2026, 3, 28+d, 12, 0, 0, 0, oslo)
			want := 0
			for _, at := range live {
				if y, m, dd := at.In(oslo).Date(); y == day.Year() && m == day.Month() && dd == day.Day() {
					want++
				}
			}
			if got := count("--date", day.Format("2006-01-02"), "--tz", "Europe/Oslo"); got != want {
				t.Errorf("count on %s in Oslo: %d, want %d", day.Format("2006-01-02"), got, want)
			}
		}
	}
	check()
	if _, stderr, code := run(t, "", "--db", db, "log", "del", "--log", "inbox", "--parent", "ann", "3", "31"); code != 1 || !strings.Contains(stderr, "not 31") {
		t.Errorf("del 3 31: exit %d, %q", code, stderr)
	}
	check() // nothing deleted
	if _, stderr, code := run(t, "", "--db", db, "log", "del", "--log", "inbox", "--parent", "ann", "3", "10", "11"); code != 0 {
		t.Fatal(stderr)
	}
	delete(live, 3)
	delete(live, 10)
	delete(live, 11)
	check()
	if _, stderr, code := run(t, "", "--db", db, "log", "del", "--log", "inbox", "--parent", "ann", "10"); code != 1 || !strings.Contains(stderr, "ann/10 was deleted") {
		t.Errorf("del 10 again: exit %d, %q", code, stderr)
	}
	if _, stderr, code := run(t, "", "--db", db, "log", "count", "--log", "inbox", "--parent", "ann", "--tz", "Asia/Tokyo"); code != 2 || !strings.Contains(stderr, "--tz reads --date") {
		t.Errorf("count --tz without --date: exit %d, %q", code, stderr)
	}
}

// TestSeriesAgainstReadings: series import and series add fold readings
// into buckets that match a recomputation from the readings (count, sum,
// min, max per sensor and minute); a writer asking for another width, and
// a bad row, change nothing; drop reports every bucket.
func TestSeriesAgainstReadings(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	r := rand.New(rand.NewPCG(19, 1))
	start := time.Date(2026, 11, 23, 23, 57, 0, 0, time.UTC) // across midnight
	type rd struct {
		sensor string
		at     time.Time
		v      float64
	}
	var readings []rd
	var csvText strings.Builder
	csvText.WriteString("sensor,time,value\n")
	for i := range 400 {
		x := rd{fmt.Sprint("s", r.IntN(3)), start.Add(time.Duration(r.IntN(6*60)) * time.Second), float64(r.IntN(2001)-1000) / 10}
		readings = append(readings, x)
		when := x.at.Format(time.RFC3339)
		if i%2 == 0 {
			when = fmt.Sprint(x.at.Unix()) // Unix seconds, the other form
		}
		fmt.Fprintf(&csvText, "%s,%s,%v\n", x.sensor, when, x.v)
	}
	if _, stderr, code := run(t, csvText.String(), "--db", db, "series", "import", "--series", "temps", "-"); code != 0 || !strings.Contains(stderr, "imported 400 readings") {
		t.Fatalf("import: exit %d, %s", code, stderr)
	}
	extra := rd{"s1", start.Add(90 * time.Second), 1234.5}
	if _, stderr, code := run(t, "", "--db", db, "series", "add", "--series", "temps", "--sensor", extra.sensor, "--time", extra.at.Format(time.RFC3339), fmt.Sprint(extra.v)); code != 0 {
		t.Fatal(stderr)
	}
	readings = append(readings, extra)
	// check compares series range with buckets every wide (--every, or the
	// series' minute) recomputed from the readings.
	check := func(every time.Duration) {
		t.Helper()
		args := []string{"--db", db, "--output", "json", "series", "range", "--series", "temps"}
		if every != time.Minute {
			args = append(args, "--every", every.String())
		}
		for _, sensor := range []string{"s0", "s1", "s2"} {
			type agg struct {
				count         int
				sum, min, max float64
			}
			want := map[time.Time]*agg{}
			for _, x := range readings {
				if x.sensor != sensor {
					continue
				}
				b := x.at.Truncate(every)
				a := want[b]
				if a == nil {
					a = &agg{min: math.Inf(1), max: math.Inf(-1)}
					want[b] = a
				}
				a.count++
				a.sum += x.v
				a.min, a.max = math.Min(a.min, x.v), math.Max(a.max, x.v)
			}
			out, stderr, code := run(t, "", append(args, "--sensor", sensor)...)
			if code != 0 {
				t.Fatal(stderr)
			}
			var got struct {
				Buckets []struct {
					Start               time.Time
					Count               int
					Sum, Min, Mean, Max float64
				}
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatal(err)
			}
			if len(got.Buckets) != len(want) {
				t.Errorf("%s: %d buckets, the readings make %d", sensor, len(got.Buckets), len(want))
			}
			for i, b := range got.Buckets {
				a := want[b.Start]
				if a == nil || b.Count != a.count || math.Abs(b.Sum-a.sum) > 1e-6 || b.Min != a.min || b.Max != a.max || math.Abs(b.Mean-a.sum/float64(a.count)) > 1e-9 {
					t.Errorf("%s bucket %s: %+v; the readings give %+v", sensor, b.Start, b, a)
				}
				if i > 0 && !b.Start.After(got.Buckets[i-1].Start) {
					t.Errorf("%s: buckets out of order at %d", sensor, i)
				}
			}
			// The table shows what the JSON holds, a line a bucket:
			// START COUNT SUM MIN MEAN MAX.
			table := strings.Split(strings.TrimSpace(runOK(t, "", append(slices.DeleteFunc(slices.Clone(args), func(a string) bool { return a == "--output" || a == "json" }), "--sensor", sensor)...)), "\n")
			if len(table) != len(got.Buckets)+1 || strings.Join(strings.Fields(table[0]), " ") != "START COUNT SUM MIN MEAN MAX" {
				t.Fatalf("%s: table %q, want a header and %d buckets", sensor, table, len(got.Buckets))
			}
			for i, b := range got.Buckets {
				f := strings.Fields(table[i+1])
				sum, err := strconv.ParseFloat(f[2], 64)
				// The sum to 15 significant digits: within 1e-14 of it.
				if f[0] != b.Start.Format(time.RFC3339) || f[1] != fmt.Sprint(b.Count) || err != nil || math.Abs(sum-b.Sum) > 1e-14*math.Abs(b.Sum) {
					t.Errorf("%s: table line %q, the JSON's bucket %+v", sensor, table[i+1], b)
				}
			}
		}
	}
	for _, every := range []time.Duration{time.Minute, 2 * time.Minute, time.Hour, 24 * time.Hour} {
		check(every)
	}
	// series sensors: each sensor's minutes, the first and the last.
	type span struct {
		Sensor      string
		Buckets     int
		First, Last time.Time
	}
	minutes := map[string]map[time.Time]bool{}
	for _, x := range readings {
		if minutes[x.sensor] == nil {
			minutes[x.sensor] = map[time.Time]bool{}
		}
		minutes[x.sensor][x.at.Truncate(time.Minute)] = true
	}
	var wantSpans []span
	for _, sensor := range slices.Sorted(maps.Keys(minutes)) {
		ms := slices.SortedFunc(maps.Keys(minutes[sensor]), time.Time.Compare)
		wantSpans = append(wantSpans, span{sensor, len(ms), ms[0], ms[len(ms)-1]})
	}
	out, stderr, code := run(t, "", "--db", db, "--output", "json", "series", "sensors", "--series", "temps")
	var spans struct{ Sensors []span }
	if err := json.Unmarshal([]byte(out), &spans); code != 0 || err != nil || !slices.EqualFunc(spans.Sensors, wantSpans, func(a, b span) bool {
		return a.Sensor == b.Sensor && a.Buckets == b.Buckets && a.First.Equal(b.First) && a.Last.Equal(b.Last)
	}) {
		t.Errorf("series sensors: exit %d, %v, %s %s; the readings give %+v", code, err, out, stderr, wantSpans)
	}
	if _, stderr, code := run(t, "", "--db", db, "series", "range", "--series", "temps", "--sensor", "s1", "--every", "90s"); code != 1 || !strings.Contains(stderr, "1m30s is not a whole number of the series' 1m0s buckets") {
		t.Errorf("--every 90s: exit %d, %q", code, stderr)
	}
	before, _, _ := run(t, "", "--db", db, "stats", "--output", "json")
	for _, bad := range []struct {
		args        []string
		stdin, want string
	}{
		{[]string{"series", "add", "--series", "temps", "--sensor", "s1", "--width", "1h", "5"}, "", "it has 1m0s buckets; this writer asks for 1h0m0s"},
		{[]string{"series", "import", "--series", "temps", "-"}, "sensor,time,value\ns1,2026-11-23T23:58:00Z,1\ns1,yesterday,2\n", `line 3: time "yesterday" is not RFC 3339`},
		{[]string{"series", "import", "--series", "temps", "-"}, "sensor,time,value\ns1,2026-11-23T23:58:00Z,NaN\n", `line 2: reading "NaN" is not a finite number`},
		{[]string{"series", "import", "--series", "temps", "-"}, "sensor,when,value\ns1,2026-11-23T23:58:00Z,1\n", "no row has a time column (choose one with --time-col; nothing imported); the columns are sensor, when, value\n"},
		{[]string{"series", "import", "--series", "temps", "-"}, "sensor,Time,value\ns1,2026-11-23T23:58:00Z,1\n", `no row has a time column (choose one with --time-col; nothing imported); did you mean "Time"?` + "\n"},
		{[]string{"series", "import", "--series", "temps", "-"}, "sensor,time,value\ns9,2026-11-23T23:58:00Z,1.7e308\ns9,2026-11-23T23:58:30Z,1e308\n",
			`line 3: bad reading: 1e+308 takes the sum of bucket "s9" 2026-11-23T23:58:00Z past the largest float64 (nothing imported)`},
		{[]string{"series", "import", "--series", "temps", "-"}, "sensor,time,value\ns9,2026-11-23T23:58:00Z,1\n" + strings.Repeat("s", keyspace.MaxKeySize) + ",2026-11-23T23:58:00Z,1\n",
			`line 3: sensor "ssssssss`},
	} {
		if _, stderr, code := run(t, bad.stdin, append([]string{"--db", db}, bad.args...)...); code != 1 || !strings.Contains(stderr, bad.want) {
			t.Errorf("%v: exit %d, %q; want 1 and %q", bad.args, code, stderr, bad.want)
		}
		if after, _, _ := run(t, "", "--db", db, "stats", "--output", "json"); after != before {
			t.Errorf("%v changed the database", bad.args)
		}
	}
	check(time.Minute)
	buckets := map[string]bool{}
	for _, x := range readings {
		buckets[x.sensor+x.at.Truncate(time.Minute).String()] = true
	}
	if out, stderr, code := run(t, "", "--db", db, "series", "drop", "--series", "temps"); code != 0 || out != fmt.Sprintf("dropped series temps: %d buckets\n", len(buckets)) {
		t.Errorf("drop: exit %d, %q, %q; want %d buckets", code, out, stderr, len(buckets))
	}
}

// TestTableDelete: table del removes rows and their index entries (the
// remaining rows and the index lookups match a model, and verify finds
// the index in step); a key with no row, or a partial key, deletes none.
func TestTableDelete(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	rows := "state,city,id\nCA,Fresno,1\nCA,Fresno,2\nCA,Oakland,3\nNY,Albany,4\nNY,Fresno,5\n"
	for _, args := range [][]string{
		{"table", "import", "--table", "c", "--key-cols", "state,city,id", "-"},
		{"index", "create", "--table", "c", "--name", "by_city", "--fields", "city"},
		{"index", "build", "--table", "c", "--name", "by_city"},
	} {
		if _, stderr, code := run(t, rows, append([]string{"--db", db}, args...)...); code != 0 {
			t.Fatalf("%v: %s", args, stderr)
		}
	}
	live := map[string]string{"CA:Fresno:1": "Fresno", "CA:Fresno:2": "Fresno", "CA:Oakland:3": "Oakland", "NY:Albany:4": "Albany", "NY:Fresno:5": "Fresno"}
	check := func() {
		t.Helper()
		out, _, _ := run(t, "", "--db", db, "--output", "json", "table", "scan", "--table", "c")
		var page struct{ Rows []struct{ Key string } }
		json.Unmarshal([]byte(out), &page)
		var got, want []string
		for _, r := range page.Rows {
			got = append(got, r.Key)
		}
		for k := range live {
			want = append(want, k)
		}
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("rows %v, model %v", got, want)
		}
		out, _, _ = run(t, "", "--db", db, "--output", "json", "index", "scan", "--table", "c", "--name", "by_city", "Fresno")
		var entries struct{ Entries []struct{ Key string } }
		json.Unmarshal([]byte(out), &entries)
		fresno := 0
		for _, city := range live {
			if city == "Fresno" {
				fresno++
			}
		}
		if len(entries.Entries) != fresno {
			t.Errorf("index finds %d rows in Fresno, model %d", len(entries.Entries), fresno)
		}
		if out, stderr, code := run(t, "", "--db", db, "verify"); code != 0 {
			t.Errorf("verify: %s %s", out, stderr)
		}
	}
	if _, stderr, code := run(t, "", "--db", db, "table", "del", "--table", "c", "CA:Fresno:2", "NY:Fresno:5"); code != 0 {
		t.Fatal(stderr)
	}
	delete(live, "CA:Fresno:2")
	delete(live, "NY:Fresno:5")
	check()
	for _, bad := range []struct {
		keys []string
		code int
		want string
	}{
		{[]string{"CA:Fresno:1", "CA:Fresno:2"}, 1, "table c has no row CA:Fresno:2 (nothing deleted)"},
		{[]string{"CA:Fresno"}, 2, "has 2 of the table's 3 key columns (state:city:id)"},
		{[]string{"CA:Fresno:x"}, 2, `"x" is not a valid int for id`},
	} {
		if _, stderr, code := run(t, "", append([]string{"--db", db, "table", "del", "--table", "c"}, bad.keys...)...); code != bad.code || !strings.Contains(stderr, bad.want) {
			t.Errorf("del %v: exit %d, %q; want %d and %q", bad.keys, code, stderr, bad.code, bad.want)
		}
	}
	check()
}

// TestGeoScopes: geo scopes lists the distinct scopes of the imported
// rows (ones with ':', '*' and '\' in them too), in key order, with
// counts that agree with a recount of the rows; each scope it prints,
// passed back as --scope, finds exactly that scope's points. A query
// without --scope on an index whose points all have one says so on
// stderr; once a point without a scope exists, it does not.
func TestGeoScopes(t *testing.T) {
	zones := []string{"north", "south", `a:b`, `*x`, `c\d`, "é"}
	var csvText strings.Builder
	csvText.WriteString("id,lat,lon,zone\n")
	byZone := map[string][]string{}
	for i := range 300 {
		id, zone := fmt.Sprintf("p%03d", i), zones[i%len(zones)]
		if i%5 == 0 {
			zone = zones[0] // counts that differ
		}
		byZone[zone] = append(byZone[zone], id)
		fmt.Fprintf(&csvText, "%s,%v,%v,\"%s\"\n", id, 10+float64(i%17)*0.01, 20+float64(i%13)*0.01, strings.ReplaceAll(zone, `"`, `""`))
	}
	db := filepath.Join(t.TempDir(), "k.db")
	if _, stderr, code := run(t, csvText.String(), "--db", db, "--quiet", "geo", "import", "--index", "z", "--scope-cols", "zone", "-"); code != 0 {
		t.Fatalf("import exited %d: %s", code, stderr)
	}
	var wantZones []string
	for z := range byZone {
		wantZones = append(wantZones, z)
	}
	slices.Sort(wantZones) // one text part each: the packed keys sort as the strings
	type listing struct {
		Scopes []struct {
			Scope  string `json:"scope"`
			Points *int   `json:"points"`
		} `json:"scopes"`
	}
	list := func(args ...string) listing {
		t.Helper()
		out, stderr, code := run(t, "", append([]string{"--db", db, "-o", "json", "geo", "scopes", "--index", "z"}, args...)...)
		var l listing
		if err := json.Unmarshal([]byte(out), &l); code != 0 || err != nil {
			t.Fatalf("geo scopes %v: exit %d, %v: %s", args, code, err, stderr)
		}
		return l
	}
	plain, counted := list(), list("--count")
	if len(plain.Scopes) != len(wantZones) || len(counted.Scopes) != len(wantZones) {
		t.Fatalf("scopes %+v and %+v, want %d: %v", plain, counted, len(wantZones), wantZones)
	}
	for i, s := range counted.Scopes {
		if plain.Scopes[i].Scope != s.Scope || plain.Scopes[i].Points != nil {
			t.Errorf("scope %d: %+v without --count, %+v with", i, plain.Scopes[i], s)
		}
		zone := wantZones[i]
		if s.Points == nil || *s.Points != len(byZone[zone]) {
			t.Errorf("scope %q (zone %q): %v points, want %d", s.Scope, zone, s.Points, len(byZone[zone]))
		}
		// What scopes prints is what --scope takes.
		out, stderr, code := run(t, "", "--db", db, "-o", "json", "geo", "scan", "--index", "z", "--scope", s.Scope)
		var page struct {
			Points []struct{ ID, Scope string } `json:"points"`
		}
		if err := json.Unmarshal([]byte(out), &page); code != 0 || err != nil {
			t.Fatalf("scan --scope %q: exit %d, %v: %s", s.Scope, code, err, stderr)
		}
		var got []string
		for _, p := range page.Points {
			got = append(got, p.ID)
		}
		want := slices.Sorted(slices.Values(byZone[zone]))
		if !slices.Equal(got, want) {
			t.Errorf("scan --scope %q: %v, want zone %q's %v", s.Scope, got, zone, want)
		}
	}
	out, _, _ := run(t, "", "--db", db, "geo", "scopes", "--index", "z", "--count")
	if !strings.HasSuffix(out, fmt.Sprintf("\n%d scopes, 300 points\n", len(wantZones))) {
		t.Errorf("table:\n%s", out)
	}
	// The note, on stderr, for an answer empty because no scope was named.
	near := []string{"--db", db, "geo", "near", "--index", "z", "--lat", "10", "--lon", "20", "--radius", "100km"}
	out, stderr, code := run(t, "", near...)
	if code != 0 || !strings.Contains(out, "0 results") || !strings.Contains(stderr, `pass --scope, such as \*x, a\:b, c\\d, …`) {
		t.Errorf("near without --scope: exit %d\n%s%s", code, out, stderr)
	}
	out, stderr, _ = run(t, "", append(near, "--scope", "north")...)
	if stderr != "" || !strings.Contains(out, "SCOPE") || !strings.Contains(out, fmt.Sprintf("%d results", len(byZone["north"]))) {
		t.Errorf("near --scope north:\n%s%s", out, stderr)
	}
	// A scope no point is under: the nearest that is, or the scopes it
	// begins, a query naming a scope's every column.
	if _, stderr, code := run(t, "", append(near, "--scope", "nrth")...); code != 0 || stderr != "keyspace: note: no point of index z is under scope nrth; did you mean \"north\"? (keyspace geo scopes --index z lists them)\n" {
		t.Errorf("near --scope nrth: exit %d, %q", code, stderr)
	}
	runOK(t, "", "--db", db, "geo", "put", "--index", "z", "--lat", "80", "--lon", "20", "--scope", "US:CA", "sf")
	if _, stderr, code := run(t, "", append(near, "--scope", "US")...); code != 0 || !strings.Contains(stderr, "no point of index z is under scope US itself, and a query searches only the scope it names, every column of it; US begins 1 scope: US:CA (") {
		t.Errorf("near --scope US: exit %d, %q", code, stderr)
	}
	if _, stderr, code := run(t, "", "--db", db, "geo", "scan", "--index", "z", "--scope", "US"); code != 0 || !strings.Contains(stderr, "US begins 1 scope: US:CA (") {
		t.Errorf("scan --scope US: exit %d, %q", code, stderr)
	}
	if _, stderr, code := run(t, "", append(near, "--scope", "US:CA")...); code != 0 || stderr != "" {
		t.Errorf("near --scope US:CA, its point far away: exit %d, %q", code, stderr)
	}
	runOK(t, "", "--db", db, "geo", "del", "--index", "z", "sf")
	if _, stderr, code := run(t, "", "--db", db, "geo", "put", "--index", "z", "--lat", "80", "--lon", "20", "free"); code != 0 {
		t.Fatalf("put: %s", stderr)
	}
	if _, stderr, _ := run(t, "", near...); stderr != "" {
		t.Errorf("near without --scope, with an unscoped point far away: %s", stderr)
	}
	if l := list(); len(l.Scopes) != len(wantZones)+1 || l.Scopes[0].Scope != "" {
		t.Errorf("after an unscoped put: %+v", l)
	}
}

// TestTableGet: table get prints the rows of the keys given, in the
// order given, each with the record its CSV row holds (keys with ':',
// '*' and a leading zero typed by the table's schema); a key with no row
// is exit 1 with nothing printed, a part of a key exit 2.
func TestTableGet(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	type row struct{ zip, city, id, name string }
	rows := []row{{"02134", "Boston", "1", "a"}, {"94103", "San Francisco", "2", "b"}, {"94103", "A:B*", "3", "c"}, {"10001", "New York", "4", "d"}}
	var csvText strings.Builder
	csvText.WriteString("zip,city,id,name\n")
	for _, r := range rows {
		fmt.Fprintf(&csvText, "%s,%s,%s,%s\n", r.zip, r.city, r.id, r.name)
	}
	if _, stderr, code := run(t, csvText.String(), "--db", db, "table", "import", "--table", "c", "--key-cols", "zip,city,id", "-"); code != 0 {
		t.Fatal(stderr)
	}
	keyOf := func(r row) string {
		return r.zip + ":" + strings.NewReplacer(":", `\:`, "*", `\*`).Replace(r.city) + ":" + r.id
	}
	order := []row{rows[2], rows[0], rows[3]}
	args := []string{"--db", db, "--output", "json", "table", "get", "--table", "c"}
	for _, r := range order {
		args = append(args, keyOf(r))
	}
	out, stderr, code := run(t, "", args...)
	var got struct {
		Rows []struct {
			Key    string
			Record map[string]string
		}
	}
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil {
		t.Fatalf("get: exit %d, %v: %s", code, err, stderr)
	}
	if len(got.Rows) != len(order) {
		t.Fatalf("%d rows for %d keys: %s", len(got.Rows), len(order), out)
	}
	for i, r := range order {
		g := got.Rows[i]
		if g.Key != keyOf(r) || g.Record["zip"] != r.zip || g.Record["city"] != r.city || g.Record["id"] != r.id || g.Record["name"] != r.name {
			t.Errorf("row %d: %+v, want the CSV's %+v", i, g, r)
		}
	}
	for _, bad := range []struct {
		keys []string
		code int
		want string
	}{
		{[]string{keyOf(rows[0]), "02134:Boston:9"}, 1, "table c has no row 02134:Boston:9"},
		{[]string{"02134:Boston"}, 2, "has 2 of the table's 3 key columns (zip:city:id)"},
		{nil, 2, "table get wants at least one KEY"},
	} {
		out, stderr, code := run(t, "", append([]string{"--db", db, "table", "get", "--table", "c"}, bad.keys...)...)
		if code != bad.code || !strings.Contains(stderr, bad.want) || out != "" {
			t.Errorf("get %v: exit %d, %q, printed %q; want %d and %q", bad.keys, code, stderr, out, bad.code, bad.want)
		}
	}
}

// TestGeoWhere: near, knn and box with --where keep exactly the points
// whose payload fields meet every condition, by brute force over the rows
// imported (text and numbers, = on numbers as numbers, a missing field);
// knn finds the k nearest such points however few there are. A condition
// that does not parse is exit 2.
func TestGeoWhere(t *testing.T) {
	type row struct {
		id, status string
		speed      float64
		lat, lon   float64
	}
	r := rand.New(rand.NewPCG(61, 62))
	var rows []row
	var csvText strings.Builder
	csvText.WriteString("id,lat,lon,status,speed\n")
	for i := range 800 {
		w := row{fmt.Sprintf("car-%d", i), []string{"free", "busy", "off", ""}[r.IntN(4)], float64(r.IntN(120)), 59.9 + r.NormFloat64()*0.05, 10.75 + r.NormFloat64()*0.1}
		rows = append(rows, w)
		speed := strconv.FormatFloat(w.speed, 'f', -1, 64)
		if i%9 == 0 {
			speed += ".0" // 7.0 = 7
		}
		fmt.Fprintf(&csvText, "%s,%v,%v,%s,%s\n", w.id, w.lat, w.lon, w.status, speed)
	}
	db := filepath.Join(t.TempDir(), "k.db")
	if _, stderr, code := run(t, csvText.String(), "--db", db, "--quiet", "geo", "import", "--index", "fleet", "-"); code != 0 {
		t.Fatalf("import: %s", stderr)
	}
	lat, lon := 59.91, 10.76
	for _, tc := range []struct {
		where []string
		keep  func(w row) bool
	}{
		{[]string{"status=free"}, func(w row) bool { return w.status == "free" }},
		{[]string{"status=free", "speed>=70"}, func(w row) bool { return w.status == "free" && w.speed >= 70 }},
		{[]string{"speed<10"}, func(w row) bool { return w.speed < 10 }},
		{[]string{"speed=7"}, func(w row) bool { return w.speed == 7 }},
		{[]string{"status!=busy", "speed>100"}, func(w row) bool { return w.status != "busy" && w.speed > 100 }},
		{[]string{"colour=red"}, func(row) bool { return false }},
		{[]string{"colour!=red"}, func(row) bool { return true }},
	} {
		var where []string
		for _, w := range tc.where {
			where = append(where, "--where", w)
		}
		var kept []city
		for _, w := range rows {
			if tc.keep(w) {
				kept = append(kept, city{w.id, w.lat, w.lon})
			}
		}
		ask := func(args ...string) []string {
			t.Helper()
			out, stderr, code := run(t, "", append(append([]string{"--db", db, "--output", "json", "geo"}, args...), where...)...)
			if code != 0 {
				t.Fatalf("%v %v: exit %d: %s", args, tc.where, code, stderr)
			}
			return ids(decode(t, out))
		}
		centre := []string{"--index", "fleet", "--lat", fmt.Sprint(lat), "--lon", fmt.Sprint(lon)}
		got := ask(append([]string{"near", "--radius", "5km"}, centre...)...)
		want := brute(kept, lat, lon, func(_ city, d float64) bool { return d <= 5000 })
		if !slices.Equal(got, want) {
			t.Errorf("near --where %v: %d points, brute force %d", tc.where, len(got), len(want))
		}
		got = ask(append([]string{"knn", "--k", "7"}, centre...)...)
		all := brute(kept, lat, lon, func(city, float64) bool { return true })
		if want := all[:min(7, len(all))]; !slices.Equal(got, want) {
			t.Errorf("knn --where %v: %v, brute force %v", tc.where, got, want)
		}
		got = ask("box", "--index", "fleet", "--min-lat", "59.88", "--max-lat", "59.93", "--min-lon", "10.7", "--max-lon", "10.8")
		want = brute(kept, (59.88+59.93)/2, 10.75, func(c city, _ float64) bool {
			return c.lat >= 59.88 && c.lat <= 59.93 && c.lon >= 10.7 && c.lon <= 10.8
		})
		if !slices.Equal(got, want) {
			t.Errorf("box --where %v: %d points, brute force %d", tc.where, len(got), len(want))
		}
	}
	for _, bad := range []string{"speed", "speed>fast", "=free"} {
		_, stderr, code := run(t, "", "--db", db, "geo", "near", "--index", "fleet", "--lat", "59.9", "--lon", "10.7", "--radius", "1km", "--where", bad)
		if code != 2 || !strings.Contains(stderr, "--where") {
			t.Errorf("--where %q: exit %d, %q", bad, code, stderr)
		}
	}
}

// TestGeoGetMany: geo get prints the points of the ids given, in that
// order, with the coordinates and payload each row was imported with; an
// id with no point is exit 1 and prints nothing.
func TestGeoGetMany(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	rows := "id,lat,lon,name\na,10.5,20.25,Ann\nb,-33.9,151.2,Bob\nc,89.99,-179.5,Cy\n"
	if _, stderr, code := run(t, rows, "--db", db, "--quiet", "geo", "import", "--index", "g", "-"); code != 0 {
		t.Fatal(stderr)
	}
	out, stderr, code := run(t, "", "--db", db, "--output", "json", "geo", "get", "--index", "g", "c", "a", "b")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		Results []struct {
			ID       string
			Lat, Lon float64
			Payload  map[string]string
		}
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	want := []struct {
		id       string
		lat, lon float64
		name     string
	}{{"c", 89.99, -179.5, "Cy"}, {"a", 10.5, 20.25, "Ann"}, {"b", -33.9, 151.2, "Bob"}}
	if len(got.Results) != len(want) {
		t.Fatalf("%d points: %s", len(got.Results), out)
	}
	for i, w := range want {
		g := got.Results[i]
		if g.ID != w.id || g.Lat != w.lat || g.Lon != w.lon || g.Payload["name"] != w.name {
			t.Errorf("point %d: %+v, want %+v", i, g, w)
		}
	}
	out, stderr, code = run(t, "", "--db", db, "geo", "get", "--index", "g", "a", "zz")
	if code != 1 || out != "" || !strings.Contains(stderr, `no point "zz" in index g`) {
		t.Errorf("get a zz: exit %d, printed %q, %q", code, out, stderr)
	}
}

// TestInterruptWhileReadingInput: Ctrl-C while a command waits on a
// standard input that never ends (a polygon, an import) ends it within
// the grace period with exit 130 and writes nothing; before, Ctrl-C was
// caught and ignored until the input ended.
func TestInterruptWhileReadingInput(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	if _, stderr, code := run(t, "id,lat,lon\na,1,2\n", "--db", db, "--quiet", "geo", "import", "--index", "g", "-"); code != 0 {
		t.Fatal(stderr)
	}
	before, _, _ := run(t, "", "--db", db, "stats", "--output", "json")
	for _, args := range [][]string{
		{"geo", "within", "--index", "g", "--polygon", "-"},
		{"--quiet", "geo", "import", "--index", "g", "-"},
	} {
		cmd := exec.Command(binary, append([]string{"--db", db}, args...)...)
		stdin, err := cmd.StdinPipe() // held open: the input never ends
		if err != nil {
			t.Fatal(err)
		}
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		io.WriteString(stdin, "id,lat,lon\nb,3,4\n")
		time.Sleep(300 * time.Millisecond)
		cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err = <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%v: still running 20 s after Ctrl-C", args)
		}
		stdin.Close()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 || !strings.Contains(errb.String(), "interrupted") {
			t.Errorf("%v after Ctrl-C: %v, %q; want exit 130", args, err, errb.String())
		}
	}
	if after, _, _ := run(t, "", "--db", db, "stats", "--output", "json"); after != before {
		t.Errorf("an interrupted command changed the database:\n%s\n%s", before, after)
	}
}

// TestDBFlagBeatsEnvironment: $KEYSPACE_DB names the database only when
// no --db is given, before the command or after it, and in the shell.
func TestDBFlagBeatsEnvironment(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	for _, db := range []string{a, b} {
		if _, stderr, code := run(t, "id,lat,lon\nx,1,2\n", "--db", db, "--quiet", "geo", "import", "--index", "in_"+filepath.Base(db), "-"); code != 0 {
			t.Fatal(stderr)
		}
	}
	withEnv := func(stdin string, args ...string) string {
		ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, binary, args...)
		cmd.Env = append(os.Environ(), "KEYSPACE_DB="+a)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	for _, tc := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{"", []string{"stats"}, "in_a.db"},
		{"", []string{"--db", b, "stats"}, "in_b.db"},
		{"", []string{"stats", "--db", b}, "in_b.db"},
		{"stats\n", []string{"--db", b, "shell"}, "in_b.db"},
		{"stats\n", []string{"shell"}, "in_a.db"},
		{"stats --db " + b + "\n", []string{"shell"}, "in_b.db"},
	} {
		out := withEnv(tc.stdin, tc.args...)
		if !strings.Contains(out, tc.want) || strings.Count(out, "in_") != 1 {
			t.Errorf("KEYSPACE_DB=a.db keyspace %v (stdin %q):\n%s\nwant the stats of %s", tc.args, tc.stdin, out, tc.want)
		}
	}
}

// TestTableScanShortKey: a scan query without a star that names fewer
// columns than the key has can match no row; it is a usage error that
// gives the query for the rows under it, and that query finds exactly
// the rows whose key starts so.
func TestTableScanShortKey(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	rows := "cc,city,id\nUS,Fresno,1\nUS,A:B,2\nUS,Fresnos,3\nCA,Toronto,4\nUS:,x,5\n"
	if _, stderr, code := run(t, rows, "--db", db, "--quiet", "table", "import", "--table", "t", "--key-cols", "cc,city,id", "-"); code != 0 {
		t.Fatal(stderr)
	}
	for _, tc := range []struct{ query, under, wantIDs string }{
		{"US", "US:*", "1,2,3"},
		{"US:", "US:*", "1,2,3"},
		{"US:Fresno", "US:Fresno:*", "1"},
		{`US:A\:B`, `US:A\:B:*`, "2"},
		{`US\:`, `US\::*`, "5"},
	} {
		_, stderr, code := run(t, "", "--db", db, "table", "scan", "--table", "t", tc.query)
		if code != 2 || !strings.Contains(stderr, "names no row") || !strings.Contains(stderr, fmt.Sprintf("%q scans the rows under it", tc.under)) {
			t.Errorf("scan %s: exit %d, %q; want exit 2 suggesting %s", tc.query, code, stderr, tc.under)
			continue
		}
		out, stderr, code := run(t, "", "--db", db, "table", "scan", "--table", "t", "--output", "ndjson", tc.under)
		if code != 0 {
			t.Fatalf("scan %s: %s", tc.under, stderr)
		}
		var ids []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var r struct{ Record struct{ ID string } }
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			ids = append(ids, r.Record.ID)
		}
		slices.Sort(ids)
		if got := strings.Join(ids, ","); got != tc.wantIDs {
			t.Errorf("scan %s: ids %s, want %s", tc.under, got, tc.wantIDs)
		}
	}
}

// TestVerifySeries: verify checks every series bucket; a damaged one is a
// problem it names, and it says no repair recomputes readings.
func TestVerifySeries(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	if _, stderr, code := run(t, "sensor,time,value\ns1,2026-11-23T10:00:05Z,1\ns1,2026-11-23T10:01:05Z,2\n", "--db", db, "--quiet", "series", "import", "--series", "temps", "-"); code != 0 {
		t.Fatal(stderr)
	}
	if out, stderr, code := run(t, "", "--db", db, "verify"); code != 0 || !strings.Contains(out, "series temps: 0 problems\n") {
		t.Fatalf("verify of a sound series: exit %d, %q %q", code, out, stderr)
	}
	s, err := keyspace.Open(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	key := composite.NewSubspace("x", "temps", "s").Pack(composite.Tuple{"s1", time.Date(2026, 11, 23, 10, 1, 0, 0, time.UTC)})
	if err := s.Update(func(tx keyspace.Tx) error {
		if _, err := tx.Get(key); err != nil {
			return fmt.Errorf("the bucket of 10:01: %w", err)
		}
		return tx.Put(key, []byte(`{"start":"2026-11-23T10:01:00Z","count":0}`))
	}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	out, stderr, code := run(t, "", "--db", db, "verify")
	if code != 1 || !strings.Contains(out, "series temps: 1 problem\n") || !strings.Contains(out, `bucket "s1" 2026-11-23T10:01:00Z: count 0`) || !strings.Contains(stderr, "no repair recomputes them") {
		t.Errorf("verify of a damaged bucket: exit %d, %q %q", code, out, stderr)
	}
}

// TestLogRangeByTime: log range --since/--until lists the items stamped
// in [since, until), in time order (ties by id) or newest first, page by
// page, as a filter of what was appended says.
func TestLogRangeByTime(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	r := rand.New(rand.NewPCG(8, 9))
	base := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	type item struct {
		id int
		at time.Time
	}
	var items []item
	for i := 1; i <= 30; i++ {
		at := base.Add(time.Duration(r.IntN(10*24)) * time.Hour) // out of order, some alike
		if _, stderr, code := run(t, "", "--db", db, "log", "append", "--log", "l", "--parent", "p", "--time", at.Format(time.RFC3339), fmt.Sprint("m", i)); code != 0 {
			t.Fatal(stderr)
		}
		items = append(items, item{i, at})
	}
	for _, tc := range []struct {
		since, until time.Time // zero: open
		reverse      bool
	}{
		{base.Add(48 * time.Hour), base.Add(120 * time.Hour), false},
		{base.Add(48 * time.Hour), base.Add(120 * time.Hour), true},
		{time.Time{}, base.Add(72 * time.Hour), false},
		{base.Add(200 * time.Hour), time.Time{}, true},
		{base.Add(500 * time.Hour), time.Time{}, false},
	} {
		var want []string
		for _, it := range items {
			if (tc.since.IsZero() || !it.at.Before(tc.since)) && (tc.until.IsZero() || it.at.Before(tc.until)) {
				want = append(want, fmt.Sprint(it.id))
			}
		}
		slices.SortStableFunc(want, func(a, b string) int {
			ia, _ := strconv.Atoi(a)
			ib, _ := strconv.Atoi(b)
			return cmp.Or(items[ia-1].at.Compare(items[ib-1].at), ia-ib)
		})
		if tc.reverse {
			slices.Reverse(want)
		}
		args := []string{"--db", db, "--output", "json", "log", "range", "--log", "l", "--parent", "p", "--limit", "4"}
		if !tc.since.IsZero() {
			args = append(args, "--since", tc.since.Format(time.RFC3339))
		}
		if !tc.until.IsZero() {
			args = append(args, "--until", tc.until.Format(time.RFC3339))
		}
		if tc.reverse {
			args = append(args, "--reverse")
		}
		var got []string
		for cursor, pages := "", 0; pages < 20; pages++ {
			out, stderr, code := run(t, "", append(args, "--cursor", cursor)...)
			var page struct {
				Items []struct{ ID int }
				Next  string
			}
			if err := json.Unmarshal([]byte(out), &page); code != 0 || err != nil {
				t.Fatalf("%v: exit %d, %v: %s", args, code, err, stderr)
			}
			for _, it := range page.Items {
				got = append(got, fmt.Sprint(it.ID))
			}
			if cursor = page.Next; cursor == "" {
				break
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("since %v until %v reverse %v: %v, want %v", tc.since, tc.until, tc.reverse, got, want)
		}
	}
	if _, stderr, code := run(t, "", "--db", db, "log", "range", "--log", "l", "--parent", "p", "--from", "2", "--since", base.Format(time.RFC3339)); code != 2 || !strings.Contains(stderr, "give one pair") {
		t.Errorf("--from with --since: exit %d, %q", code, stderr)
	}
}

// TestTableCountQueries: table count takes its prefix as table scan takes
// a query (US, US:*, US:C*, *), with --depth defaulting to the prefix's
// columns, and each count is the number of imported rows a recount of
// the CSV in the test puts in that group.
func TestTableCountQueries(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	countries := []string{"US", "NO", "UY"}
	states := []string{"CA", "CO", "NY", "C", "TX", "c"}
	var csvText strings.Builder
	csvText.WriteString("country,state,id\n")
	type row struct{ country, state string }
	var rows []row
	rnd := rand.New(rand.NewPCG(8, 25))
	for i := range 300 {
		r := row{countries[rnd.IntN(len(countries))], states[rnd.IntN(len(states))]}
		rows = append(rows, r)
		fmt.Fprintf(&csvText, "%s,%s,%d\n", r.country, r.state, i)
	}
	if _, stderr, code := run(t, csvText.String(), "--db", db, "table", "import", "--table", "c", "--key-cols", "country,state,id", "-"); code != 0 {
		t.Fatal(stderr)
	}
	recount := func(country, statePrefix string, depth int, exactState bool) map[string]int {
		want := map[string]int{}
		for _, r := range rows {
			if country != "" && r.country != country || !strings.HasPrefix(r.state, statePrefix) || exactState && r.state != statePrefix {
				continue
			}
			switch depth {
			case 1:
				want[r.country]++
			case 2:
				want[r.country+":"+r.state]++
			}
		}
		return want
	}
	for _, tc := range []struct {
		args []string
		want map[string]int
	}{
		{nil, recount("", "", 1, false)},
		{[]string{"*"}, recount("", "", 1, false)},
		{[]string{"--depth", "2"}, recount("", "", 2, false)},
		{[]string{"US"}, recount("US", "", 1, false)},
		{[]string{"US:*"}, recount("US", "", 1, false)},
		{[]string{"US:*", "--depth", "2"}, recount("US", "", 2, false)},
		{[]string{"US:C*"}, recount("US", "C", 2, false)},
		{[]string{"NO:c*"}, recount("NO", "c", 2, false)},
		{[]string{"US:CA"}, recount("US", "CA", 2, true)},
		{[]string{"US:CA:*"}, recount("US", "CA", 2, true)},
		{[]string{"UY:Z*"}, map[string]int{}},
	} {
		out, stderr, code := run(t, "", append([]string{"--db", db, "--output", "json", "table", "count", "--table", "c"}, tc.args...)...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", tc.args, code, stderr)
			continue
		}
		got := map[string]int{}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v: %v: %s", tc.args, err, out)
		}
		if !maps.Equal(got, tc.want) {
			t.Errorf("%v: counts %v, want %v", tc.args, got, tc.want)
		}
	}
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"US:C*", "--depth", "1"}, "--depth 1: want 2 to 3"},
		{[]string{"US:CA", "--depth", "4"}, "--depth 4: want 2 to 3"},
		{[]string{"US:CA:1:2"}, "4 components, but the key has 3 columns"},
		{[]string{"US:CA:x*"}, "'*' needs a string column"},
	} {
		if _, stderr, code := run(t, "", append([]string{"--db", db, "table", "count", "--table", "c"}, tc.args...)...); code != 2 || !strings.Contains(stderr, tc.stderr) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", tc.args, code, stderr, tc.stderr)
		}
	}
}
