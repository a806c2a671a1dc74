package cli_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/keyspacedb/keyspace/geo"
)

// TestGeoPages pages every geo query with --limit (knn with --k) and the
// --cursor each page prints, in every output format, and checks that the
// pages put together are the whole answer, which for near and knn is
// brute force over the imported points. Points share places, so pages
// break inside runs of equal distances. A point put between two pages
// farther than the cursor shows on a later page; a token is refused by
// another query, and a damaged one is a usage error. --any returns points
// of the region and no cursor. near --desc pages farthest first.
func TestGeoPages(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	r := rand.New(rand.NewPCG(71, 72))
	var cities []city
	var csv strings.Builder
	csv.WriteString("id,lat,lon\n")
	for i := range 60 {
		c := city{id: fmt.Sprintf("p%02d", i), lat: 10 + r.NormFloat64()*0.05, lon: 179.95 + r.NormFloat64()*0.05}
		if c.lon > 180 {
			c.lon -= 360
		}
		if i%4 == 1 { // on top of the point before
			c.lat, c.lon = cities[i-1].lat, cities[i-1].lon
		}
		cities = append(cities, c)
		fmt.Fprintf(&csv, "%s,%v,%v\n", c.id, c.lat, c.lon)
	}
	if _, stderr, code := run(t, csv.String(), "--db", db, "-q", "geo", "import", "--index", "pts", "-"); code != 0 {
		t.Fatal(stderr)
	}
	polygon := `{"type":"MultiPolygon","coordinates":[[[[179.9,9.9],[180,9.9],[180,10.1],[179.9,10.1],[179.9,9.9]]],[[[-180,9.9],[-179.9,9.9],[-179.9,10.1],[-180,10.1],[-180,9.9]]]]}`
	all := func(c city, d float64) bool { return true }
	queries := []struct {
		args  []string
		size  string // the flag that sets a page's size
		brute []string
	}{
		{[]string{"near", "--lat", "10", "--lon", "180", "--radius", "8km"}, "--limit", brute(cities, 10, 180, func(c city, d float64) bool { return d <= 8000 })},
		{[]string{"near", "--lat", "10", "--lon", "180", "--radius", "8km", "--desc"}, "--limit", farthestFirst(cities, 10, 180, 8000)},
		{[]string{"knn", "--lat", "10.01", "--lon", "-179.99"}, "--k", brute(cities, 10.01, -179.99, all)},
		{[]string{"knn", "--from", "p07"}, "--k", brute(cities, cities[7].lat, cities[7].lon, all)},
		{[]string{"box", "--min-lat", "9.95", "--min-lon", "179.9", "--max-lat", "10.05", "--max-lon", "-179.95"}, "--limit", nil},
		{[]string{"box", "--lat", "10", "--lon", "179.98", "--width", "9km", "--height", "9km"}, "--limit", nil},
		{[]string{"within", "--polygon", polygon}, "--limit", nil},
		{[]string{"box", "--lat", "10", "--lon", "179.98", "--width", "9km", "--height", "9km", "--desc"}, "--limit", nil},
		{[]string{"along", "--line", `{"type":"LineString","coordinates":[[179.9,9.98],[-179.95,10.03]]}`, "--radius", "4km"}, "--limit", nil},
		{[]string{"along", "--line", `{"type":"LineString","coordinates":[[179.9,9.98],[-179.95,10.03]]}`, "--radius", "4km", "--desc"}, "--limit", nil},
		{[]string{"knn", "--line", `{"type":"LineString","coordinates":[[179.9,9.98],[-179.95,10.03]]}`}, "--k", nil},
	}
	cursorLine := regexp.MustCompile(`(?m)^next page: --cursor (\S+)$`)
	ask := func(q []string, format string, extra ...string) (ids []string, next string, stderr string, code int) {
		t.Helper()
		args := append(append([]string{"--db", db, "--output", format, "geo"}, q[0], "--index", "pts"), q[1:]...)
		out, stderr, code := run(t, "", append(args, extra...)...)
		if code != 0 {
			return nil, "", stderr, code
		}
		switch format {
		case "json":
			var doc struct {
				Results []struct{ ID string }
				Next    string
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatalf("%v: %v\n%s", q, err, out)
			}
			for _, x := range doc.Results {
				ids = append(ids, x.ID)
			}
			return ids, doc.Next, stderr, code
		case "ndjson":
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				var x struct{ ID string }
				if line != "" {
					json.Unmarshal([]byte(line), &x)
					ids = append(ids, x.ID)
				}
			}
			if m := cursorLine.FindStringSubmatch(stderr); m != nil {
				next = m[1]
			}
			return ids, next, stderr, code
		}
		if m := cursorLine.FindStringSubmatch(out); m != nil {
			next = m[1]
		}
		for _, line := range strings.Split(out, "\n")[1:] { // under the header
			if f := strings.Fields(line); len(f) > 0 && strings.HasPrefix(f[0], "p") {
				ids = append(ids, f[0])
			}
		}
		return ids, next, stderr, code
	}
	for _, q := range queries {
		whole, next, stderr, code := ask(q.args, "json", q.size, "1000")
		if code != 0 || next != "" {
			t.Fatalf("%v: exit %d, next %q, %s", q.args, code, next, stderr)
		}
		if q.brute != nil && !slices.Equal(whole, q.brute) {
			t.Fatalf("%v: %v, brute force %v", q.args, whole, q.brute)
		}
		if len(whole) < 8 {
			t.Fatalf("%v: %d results, too few to page", q.args, len(whole))
		}
		for _, format := range []string{"json", "ndjson", "table"} {
			var got []string
			cursor := ""
			for pages := 0; ; pages++ {
				size := []string{"3", "4"}[pages%2] // a token is good for any page size
				page, next, stderr, code := ask(q.args, format, q.size, size, "--cursor", cursor)
				if code != 0 || pages > len(whole) {
					t.Fatalf("%v %s, page %d: exit %d: %s", q.args, format, pages, code, stderr)
				}
				got = append(got, page...)
				if cursor = next; cursor == "" {
					break
				}
			}
			if !slices.Equal(got, whole) {
				t.Errorf("%v %s, a page at a time: %v, want %v", q.args, format, got, whole)
			}
		}
	}

	// A token from near is refused by another query, even one that
	// differs only in its radius; a damaged token is a usage error.
	_, token, _, _ := ask(queries[0].args, "json", "--limit", "2")
	for _, q := range [][]string{
		{"near", "--lat", "10", "--lon", "180", "--radius", "9km"},
		queries[2].args,
		append(slices.Clone(queries[0].args), "--where", "x=1"),
		queries[1].args, // the same farthest first
	} {
		if _, _, stderr, code := ask(q, "json", "--cursor", token); code != 2 || !strings.Contains(stderr, "another geo query") {
			t.Errorf("%v with a token of %v: exit %d, %q", q, queries[0].args, code, stderr)
		}
	}
	if _, _, stderr, code := ask(queries[0].args, "json", "--cursor", "zzz"); code != 2 || !strings.Contains(stderr, "cursor") {
		t.Errorf("a damaged token: exit %d, %q", code, stderr)
	}

	// --any stops at the first N found: points of the region, no cursor;
	// it wants --limit, and does not page.
	for _, q := range [][]string{queries[0].args, queries[4].args, queries[6].args} {
		whole, _, _, _ := ask(q, "json")
		got, next, stderr, code := ask(q, "json", "--limit", "2", "--any")
		if code != 0 || len(got) != 2 || next != "" || !slices.Contains(whole, got[0]) || !slices.Contains(whole, got[1]) {
			t.Errorf("%v --any --limit 2: exit %d, %v, next %q, %s; the whole answer is %v", q, code, got, next, stderr, whole)
		}
		for _, bad := range [][]string{{"--any"}, {"--any", "--limit", "2", "--cursor", token}} {
			if _, _, stderr, code := ask(q, "json", bad...); code != 2 || !strings.Contains(stderr, "--any") {
				t.Errorf("%v %v: exit %d, %q", q, bad, code, stderr)
			}
		}
	}

	// Between two pages of knn, a point is put farther than the cursor
	// and another nearer: the later pages hold the first, not the second.
	first, token, _, _ := ask(queries[2].args, "json", "--k", "5")
	far := city{id: "pzz", lat: 10.3, lon: -179.99}
	near := city{id: "paa", lat: 10.01, lon: -179.99}
	for _, c := range []city{far, near} {
		if _, stderr, code := run(t, "", "--db", db, "geo", "put", "--index", "pts", "--lat", fmt.Sprint(c.lat), "--lon", fmt.Sprint(c.lon), c.id); code != 0 {
			t.Fatal(stderr)
		}
	}
	rest, _, stderr, code := ask(queries[2].args, "json", "--k", "1000", "--cursor", token)
	if code != 0 {
		t.Fatal(stderr)
	}
	want := brute(append(cities, far, near), 10.01, -179.99, all)
	want = slices.DeleteFunc(want, func(id string) bool { return slices.Contains(first, id) || id == near.id })
	if !slices.Equal(rest, want) {
		t.Errorf("after the first page and two puts: %v, want %v", rest, want)
	}
}

// farthestFirst is brute force for near --desc: the ids of the cities
// within radius metres of (lat, lon), farthest first, ties by id.
func farthestFirst(cities []city, lat, lon, radius float64) []string {
	type hit struct {
		id string
		d  float64
	}
	var hits []hit
	for _, c := range cities {
		if d := geo.Distance(lat, lon, c.lat, c.lon); d <= radius {
			hits = append(hits, hit{c.id, d})
		}
	}
	slices.SortFunc(hits, func(a, b hit) int { return cmp.Or(cmp.Compare(b.d, a.d), strings.Compare(a.id, b.id)) })
	var ids []string
	for _, h := range hits {
		ids = append(ids, h.id)
	}
	return ids
}
