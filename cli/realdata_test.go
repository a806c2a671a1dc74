package cli_test

import (
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace/geo"
	"github.com/keyspacedb/keyspace/internal/dataset"
)

// datasetCSV reads a file of ../shared/data with encoding/csv, fields
// separated by comma, or skips t when it is absent.
func datasetCSV(t *testing.T, name string, comma rune) (string, [][]string) {
	t.Helper()
	path := dataset.Path(t, name)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comma = comma
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return path, recs
}

// datasetXML reads an XML file of ../shared/data into v with
// encoding/xml's Unmarshal, or skips t when it is absent.
func datasetXML(t *testing.T, name string, v any) string {
	t.Helper()
	path := dataset.Path(t, name)
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal(body, v); err != nil {
		t.Fatal(err)
	}
	return path
}

// nearAndKNN checks geo near (radius metres) and geo knn (k) of index at
// centre against brute force over pts, and both again with --sector.
func nearAndKNN(t *testing.T, db, index string, pts []city, centre city, metres float64, k int) {
	t.Helper()
	lat, lon := fmt.Sprint(centre.lat), fmt.Sprint(centre.lon)
	out, stderr, code := run(t, "", "--db", db, "--output", "json", "geo", "near", "--index", index, "--lat", lat, "--lon", lon, "--radius", fmt.Sprint(metres))
	if code != 0 {
		t.Fatal(stderr)
	}
	if got, want := ids(decode(t, out)), brute(pts, centre.lat, centre.lon, func(_ city, d float64) bool { return d <= metres }); !slices.Equal(got, want) {
		t.Errorf("near %s: %v, brute force %v", centre.id, got, want)
	}
	out, stderr, code = run(t, "", "--db", db, "--output", "json", "geo", "knn", "--index", index, "--lat", lat, "--lon", lon, "--k", fmt.Sprint(k))
	if code != 0 {
		t.Fatal(stderr)
	}
	if got, want := ids(decode(t, out)), brute(pts, centre.lat, centre.lon, func(city, float64) bool { return true })[:k]; !slices.Equal(got, want) {
		t.Errorf("knn %s: %v, brute force %v", centre.id, got, want)
	}
	// The same, in a slice of directions: 300° round to 60° (--sector),
	// by the bearing formula; a point where the centre is (the apex) is in.
	ahead := func(c city, d float64) bool {
		return d <= 1e-6 || math.Mod(bearingTo(centre.lat, centre.lon, c.lat, c.lon)-300+720, 360) <= 120
	}
	out, stderr, code = run(t, "", "--db", db, "--output", "json", "geo", "near", "--index", index, "--lat", lat, "--lon", lon, "--radius", fmt.Sprint(metres), "--sector", "300,60")
	if code != 0 {
		t.Fatal(stderr)
	}
	if got, want := ids(decode(t, out)), brute(pts, centre.lat, centre.lon, func(c city, d float64) bool { return d <= metres && ahead(c, d) }); !slices.Equal(got, want) {
		t.Errorf("near %s --sector 300,60: %v, brute force %v", centre.id, got, want)
	}
	out, stderr, code = run(t, "", "--db", db, "--output", "json", "geo", "knn", "--index", index, "--lat", lat, "--lon", lon, "--k", fmt.Sprint(k), "--sector", "300,60")
	if code != 0 {
		t.Fatal(stderr)
	}
	if got, want := ids(decode(t, out)), brute(pts, centre.lat, centre.lon, ahead); !slices.Equal(got, want[:min(k, len(want))]) {
		t.Errorf("knn %s --sector 300,60: %v, brute force %v", centre.id, got, want[:min(k, len(want))])
	}
}

// TestUSGSQuakes imports the USGS feed's month of earthquakes (newest
// first, when ../shared/data holds it) as points and as a log per
// network, and checks them against the file as encoding/csv reads it: the
// nearest quakes of magnitude 4 or more, by brute force with --typed
// magnitudes, and each network's log in time order, ids 1, 2, 3… from its
// oldest quake, whatever order the feed is in.
func TestUSGSQuakes(t *testing.T) {
	path, recs := datasetCSV(t, "usgs_all_month_2025-06-05.csv", ',')
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	type quake struct {
		id, net  string
		lat, lon float64
		mag      float64
		hasMag   bool
		at       time.Time
	}
	var quakes []quake
	var err error
	for _, r := range recs[1:] {
		q := quake{id: r[col["id"]], net: r[col["net"]]}
		q.lat, _ = strconv.ParseFloat(r[col["latitude"]], 64)
		q.lon, _ = strconv.ParseFloat(r[col["longitude"]], 64)
		q.mag, err = strconv.ParseFloat(r[col["mag"]], 64)
		q.hasMag = err == nil
		if q.at, err = time.Parse(time.RFC3339Nano, r[col["time"]]); err != nil {
			t.Fatal(err)
		}
		quakes = append(quakes, q)
	}
	db := filepath.Join(t.TempDir(), "quakes.db")
	for _, args := range [][]string{
		{"geo", "import", "--index", "quakes", "--typed", path},
		{"log", "import", "--log", "quakes", "--parent-col", "net", "--time-col", "time", "--data-col", "id", path},
	} {
		if _, stderr, code := run(t, "", append([]string{"--db", db}, args...)...); code != 0 || !strings.Contains(stderr, fmt.Sprintf("imported %d ", len(quakes))) {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	// The 5 nearest quakes of magnitude 4 or more to three places.
	for _, at := range []struct{ lat, lon float64 }{{35.68, 139.69}, {61.2, -149.9}, {-33.45, -70.66}} {
		out, stderr, code := run(t, "", "--db", db, "--output", "json", "geo", "knn", "--index", "quakes",
			"--lat", fmt.Sprint(at.lat), "--lon", fmt.Sprint(at.lon), "--k", "5", "--where", "mag>=4")
		if code != 0 {
			t.Fatal(stderr)
		}
		type hit struct {
			id string
			d  float64
		}
		var hits []hit
		for _, q := range quakes {
			if q.hasMag && q.mag >= 4 {
				hits = append(hits, hit{q.id, geo.Distance(at.lat, at.lon, q.lat, q.lon)})
			}
		}
		slices.SortFunc(hits, func(a, b hit) int {
			if a.d != b.d {
				return int(math.Copysign(1, a.d-b.d))
			}
			return strings.Compare(a.id, b.id)
		})
		var want []string
		for _, h := range hits[:5] {
			want = append(want, h.id)
		}
		if got := ids(decode(t, out)); !slices.Equal(got, want) {
			t.Errorf("knn mag>=4 near %v: %v, brute force %v", at, got, want)
		}
	}
	// Each network's log: its quakes oldest first (ties in the file's
	// order), ids from 1.
	byNet := map[string][]quake{}
	for _, q := range quakes {
		byNet[q.net] = append(byNet[q.net], q)
	}
	for net, qs := range byNet {
		slices.SortStableFunc(qs, func(a, b quake) int { return a.at.Compare(b.at) }) // the feed is newest first
		out, stderr, code := run(t, "", "--db", db, "--output", "json", "log", "range", "--log", "quakes", "--parent", net)
		var page struct {
			Items []struct {
				ID   uint64
				Time time.Time
				Data string
			}
		}
		if err := json.Unmarshal([]byte(out), &page); code != 0 || err != nil {
			t.Fatalf("log range %s: exit %d, %v: %s", net, code, err, stderr)
		}
		if len(page.Items) != len(qs) {
			t.Fatalf("network %s: %d items, %d quakes", net, len(page.Items), len(qs))
		}
		for i, it := range page.Items {
			if it.ID != uint64(i+1) || it.Data != qs[i].id || !it.Time.Equal(qs[i].at) {
				t.Errorf("network %s item %d: %d %s at %v, want %s at %v", net, i, it.ID, it.Data, it.Time, qs[i].id, qs[i].at)
				break
			}
		}
	}
}

// TestZIPCodesTies imports the 42,049 US ZIP code centroids (when
// ../shared/data holds them), many of which share a centroid, and checks
// near and knn against brute force, ties by id: 00501 and 00544 lie on
// one point. Leading zeros stay in the ids, with or without --typed.
func TestZIPCodesTies(t *testing.T) {
	path, recs := datasetCSV(t, "vega_zipcodes.csv", ',')
	var zips []city
	for _, r := range recs[1:] {
		lat, _ := strconv.ParseFloat(r[1], 64)
		lon, _ := strconv.ParseFloat(r[2], 64)
		zips = append(zips, city{r[0], lat, lon})
	}
	db := filepath.Join(t.TempDir(), "zips.db")
	if _, stderr, code := run(t, "", "--db", db, "geo", "import", "--index", "zips", "--id-col", "zip_code", "--typed", path); code != 0 {
		t.Fatal(stderr)
	}
	for _, z := range []city{zips[0], zips[100], zips[20000]} {
		nearAndKNN(t, db, "zips", zips, z, 3000, 12)
	}
}

// TestStackExchangeAnswers imports the Stack Exchange posts dump (when
// ../shared/data holds it) as a table keyed by id, with --typed, indexes
// each question's answers best first (ParentId, -Score), and checks the
// lookup of several questions against the dump read by encoding/xml's
// Unmarshal: their answers, highest score first, ties by id.
func TestStackExchangeAnswers(t *testing.T) {
	var dump struct {
		Rows []struct {
			ID       string `xml:"Id,attr"`
			ParentID string `xml:"ParentId,attr"`
			Score    int    `xml:"Score,attr"`
		} `xml:"row"`
	}
	path := datasetXML(t, "beer.stackexchange_Posts.xml", &dump)
	type answer struct {
		id    string
		score int
	}
	answers := map[string][]answer{}
	for _, r := range dump.Rows {
		if r.ParentID != "" {
			answers[r.ParentID] = append(answers[r.ParentID], answer{r.ID, r.Score})
		}
	}
	db := filepath.Join(t.TempDir(), "posts.db")
	for _, args := range [][]string{
		{"table", "import", "--table", "posts", "--key-cols", "Id", "--format", "xml", "--typed", path},
		{"index", "create", "--table", "posts", "--name", "answers", "--fields", "ParentId,-Score"},
	} {
		if _, stderr, code := run(t, "", append([]string{"--db", db}, args...)...); code != 0 {
			t.Fatalf("%v: %s", args, stderr)
		}
	}
	questions := slices.Sorted(maps.Keys(answers))
	slices.SortStableFunc(questions, func(a, b string) int { return len(answers[b]) - len(answers[a]) })
	for _, q := range slices.Concat(questions[:3], []string{"5", questions[len(questions)-1]}) {
		want := answers[q]
		// Scores descending; ties by primary key, an integer column here.
		slices.SortFunc(want, func(a, b answer) int {
			if a.score != b.score {
				return b.score - a.score
			}
			ai, _ := strconv.Atoi(a.id)
			bi, _ := strconv.Atoi(b.id)
			return ai - bi
		})
		out, stderr, code := run(t, "", "--db", db, "--output", "json", "index", "lookup", "--table", "posts", "--name", "answers", q)
		var page struct {
			Entries []struct {
				Key    string
				Record struct{ Score int }
			}
		}
		if err := json.Unmarshal([]byte(out), &page); code != 0 || err != nil {
			t.Fatalf("lookup %s: exit %d, %v: %s", q, code, err, stderr)
		}
		var got []answer
		for _, e := range page.Entries {
			got = append(got, answer{e.Key, e.Record.Score})
		}
		if !slices.Equal(got, want) {
			t.Errorf("question %s's answers: %v, want %v", q, got, want)
		}
	}
}

// TestCountriesStatesCitiesJSON imports the nested countries → states →
// cities document (gzip compressed, its format found from its bytes) with
// --each states.cities, as a table keyed country:state:id and as points
// scoped by country, and checks both against the document as
// encoding/json's Unmarshal reads it: every city's key, name and state
// name in three countries' scans, the count of rows, and near and knn by
// brute force; standard input, the same gzip stream piped, imports the
// same points.
func TestCountriesStatesCitiesJSON(t *testing.T) {
	path := dataset.Path(t, "dr5hn_countries+states+cities.json.gz")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var countries []struct {
		ISO2   string `json:"iso2"`
		States []struct {
			ISO2   string `json:"iso2"`
			Name   string `json:"name"`
			Cities []struct {
				ID        int    `json:"id"`
				Name      string `json:"name"`
				Latitude  string `json:"latitude"`
				Longitude string `json:"longitude"`
			} `json:"cities"`
		} `json:"states"`
	}
	if err := json.NewDecoder(zr).Decode(&countries); err != nil {
		t.Fatal(err)
	}
	type want struct{ name, state string }
	byKey := map[string]want{}
	country := map[string]string{} // a city's id, its country
	var cities []city
	for _, c := range countries {
		for _, s := range c.States {
			for _, x := range s.Cities {
				byKey[fmt.Sprintf("%s:%s:%d", c.ISO2, s.ISO2, x.ID)] = want{x.Name, s.Name}
				lat, _ := strconv.ParseFloat(x.Latitude, 64)
				lon, _ := strconv.ParseFloat(x.Longitude, 64)
				cities = append(cities, city{fmt.Sprint(x.ID), lat, lon})
				country[fmt.Sprint(x.ID)] = c.ISO2
			}
		}
	}
	db := filepath.Join(t.TempDir(), "world.db")
	for _, args := range [][]string{
		{"table", "import", "--table", "cities", "--each", "states.cities", "--key-cols", ".iso2,.states.iso2,id", "--with", ".states.name", path},
		{"geo", "import", "--index", "cities", "--each", "states.cities", "--lat-col", "latitude", "--lon-col", "longitude", "--scope-cols", ".iso2", path},
	} {
		_, stderr, code := run(t, "", append([]string{"--db", db}, args...)...)
		if code != 0 || !strings.HasPrefix(stderr, fmt.Sprintf("imported %d ", len(cities))) {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	if len(byKey) != len(cities) {
		t.Fatalf("%d cities under %d keys: the key columns do not name a city", len(cities), len(byKey))
	}
	for _, iso2 := range []string{"DE", "NO", "JP"} {
		out, stderr, code := run(t, "", "--db", db, "--output", "ndjson", "table", "scan", "--table", "cities", iso2+":*")
		if code != 0 {
			t.Fatal(stderr)
		}
		got := map[string]want{}
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var r struct {
				Key    string
				Record map[string]any
			}
			if err := json.Unmarshal([]byte(line), &r); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			got[r.Key] = want{fmt.Sprint(r.Record["name"]), fmt.Sprint(r.Record[".states.name"])}
			if _, ok := r.Record[".name"]; ok {
				t.Errorf("%s: the country's name, which no flag names, was kept: %v", r.Key, r.Record)
			}
		}
		wanted := maps.Collect(func(yield func(string, want) bool) {
			for k, v := range byKey {
				if strings.HasPrefix(k, iso2+":") && !yield(k, v) {
					return
				}
			}
		})
		if len(wanted) == 0 || !maps.Equal(got, wanted) {
			t.Errorf("%s: %d rows scanned, the document has %d", iso2, len(got), len(wanted))
		}
	}
	// Points scoped by a country's field: near Strasbourg, in France's
	// scope, only the French cities, though Germany's are as near.
	out, stderr, code := run(t, "", "--db", db, "--output", "json", "geo", "near", "--index", "cities", "--scope", "FR", "--lat", "48.58", "--lon", "7.75", "--radius", "30km")
	if code != 0 {
		t.Fatal(stderr)
	}
	french := slices.DeleteFunc(slices.Clone(cities), func(c city) bool { return country[c.id] != "FR" })
	if got, want := ids(decode(t, out)), brute(french, 48.58, 7.75, func(_ city, d float64) bool { return d <= 30_000 }); len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("near Strasbourg in FR: %v, brute force %v", got, want)
	}
	// The gzip stream on standard input, its format found from its
	// bytes, unscoped.
	gz, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	piped := filepath.Join(t.TempDir(), "piped.db")
	if _, stderr, code := run(t, string(gz), "--db", piped, "geo", "import", "--index", "cities", "--each", "states.cities", "--lat-col", "latitude", "--lon-col", "longitude", "-"); code != 0 {
		t.Fatal(stderr)
	}
	for _, centre := range []city{{"Berlin", 52.52, 13.405}, {"Tokyo", 35.68, 139.76}, {"dateline", -17.7, 179.9}} {
		nearAndKNN(t, piped, "cities", cities, centre, 20_000, 10)
	}
}
