package cli_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestWhereInAndPaths holds --where-in (Tile38's WHEREIN) and --where on
// a path into a payload's objects and arrays to brute force over the
// same NDJSON rows, imported as points (near, paged, and knn) and as a
// table (scan).
func TestWhereInAndPaths(t *testing.T) {
	type car struct {
		id, status, driver string
		rating             float64
		tags               []string
		lat, lon           float64
	}
	rng := rand.New(rand.NewPCG(71, 72))
	var cars []car
	var nd strings.Builder
	for i := range 600 {
		c := car{
			id:     fmt.Sprintf("car-%03d", i),
			status: []string{"free", "busy", "off", "idle"}[rng.IntN(4)],
			driver: []string{"Ann", "Smith, J", "Bo"}[rng.IntN(3)],
			rating: float64(rng.IntN(50)) / 10,
			lat:    59.9 + rng.NormFloat64()*0.03, lon: 10.75 + rng.NormFloat64()*0.06,
		}
		c.tags = [][]string{{"ev"}, {"van", "ev"}, {}, {"van"}}[rng.IntN(4)]
		cars = append(cars, c)
		tags, _ := json.Marshal(c.tags)
		fmt.Fprintf(&nd, `{"id":%q,"lat":%v,"lon":%v,"status":%q,"n":%d,"driver":{"name":%q,"rating":%v},"tags":%s,"a.b":"dotted"}`+"\n",
			c.id, c.lat, c.lon, c.status, i%5, c.driver, c.rating, tags)
	}
	db := filepath.Join(t.TempDir(), "k.db")
	if _, stderr, code := run(t, nd.String(), "--db", db, "--quiet", "geo", "import", "--index", "fleet", "--format", "ndjson", "-"); code != 0 {
		t.Fatalf("geo import: %s", stderr)
	}
	if _, stderr, code := run(t, nd.String(), "--db", db, "--quiet", "table", "import", "--table", "cars", "--key-cols", "id", "--format", "ndjson", "-"); code != 0 {
		t.Fatalf("table import: %s", stderr)
	}
	tag := func(c car, i int) string {
		if i < len(c.tags) {
			return c.tags[i]
		}
		return ""
	}
	lat, lon := 59.905, 10.76
	for _, tc := range []struct {
		flags []string
		keep  func(c car, i int) bool
	}{
		{[]string{"--where-in", "status=free,idle"}, func(c car, _ int) bool { return c.status == "free" || c.status == "idle" }},
		{[]string{"--where-in", "status=free", "--where-in", "status=free,busy"}, func(c car, _ int) bool { return c.status == "free" }},
		{[]string{"--where-in", `driver.name="Smith, J",Bo`}, func(c car, _ int) bool { return c.driver == "Smith, J" || c.driver == "Bo" }},
		{[]string{"--where-in", "n=1,3.0", "--where", "status!=off"}, func(c car, i int) bool { return (i%5 == 1 || i%5 == 3) && c.status != "off" }},
		{[]string{"--where", "driver.name=Smith, J"}, func(c car, _ int) bool { return c.driver == "Smith, J" }}, // one value, comma and all
		{[]string{"--where", "driver.rating>=4"}, func(c car, _ int) bool { return c.rating >= 4 }},
		{[]string{"--where", "driver.rating<1", "--where-in", "driver.name=Ann"}, func(c car, _ int) bool { return c.rating < 1 && c.driver == "Ann" }},
		{[]string{"--where", "tags.0=van"}, func(c car, _ int) bool { return tag(c, 0) == "van" }},
		{[]string{"--where", "tags.1!=ev"}, func(c car, _ int) bool { return tag(c, 1) != "ev" }},
		{[]string{"--where", "a.b=dotted"}, func(car, int) bool { return true }},     // the field named a.b, not a path
		{[]string{"--where-in", "driver=Ann"}, func(car, int) bool { return false }}, // an object is no value
		{[]string{"--where-in", "colour=red,blue"}, func(car, int) bool { return false }},
	} {
		var kept []city
		var keys []string
		for i, c := range cars {
			if tc.keep(c, i) {
				kept = append(kept, city{c.id, c.lat, c.lon})
				keys = append(keys, c.id)
			}
		}
		// near, a page of 7 at a time: the cursor is tied to the filters.
		var got []string
		for cursor, pages := "", 0; pages < 200; pages++ {
			args := append([]string{"--db", db, "--output", "json", "geo", "near", "--index", "fleet", "--lat", fmt.Sprint(lat), "--lon", fmt.Sprint(lon),
				"--radius", "3km", "--limit", "7", "--cursor", cursor}, tc.flags...)
			out, stderr, code := run(t, "", args...)
			if code != 0 {
				t.Fatalf("near %v: exit %d: %s", tc.flags, code, stderr)
			}
			var page struct {
				Results []struct{ ID string }
				Next    string
			}
			if err := json.Unmarshal([]byte(out), &page); err != nil {
				t.Fatal(err)
			}
			for _, r := range page.Results {
				got = append(got, r.ID)
			}
			if cursor = page.Next; cursor == "" {
				break
			}
		}
		if want := brute(kept, lat, lon, func(_ city, d float64) bool { return d <= 3000 }); !slices.Equal(got, want) {
			t.Errorf("near %v: %d points %v, brute force %d %v", tc.flags, len(got), got, len(want), want)
		}
		out, stderr, code := run(t, "", append([]string{"--db", db, "--output", "json", "geo", "knn", "--index", "fleet", "--lat", fmt.Sprint(lat), "--lon", fmt.Sprint(lon), "--k", "5"}, tc.flags...)...)
		if code != 0 {
			t.Fatalf("knn %v: exit %d: %s", tc.flags, code, stderr)
		}
		all := brute(kept, lat, lon, func(city, float64) bool { return true })
		if got, want := ids(decode(t, out)), all[:min(5, len(all))]; !slices.Equal(got, want) {
			t.Errorf("knn %v: %v, brute force %v", tc.flags, got, want)
		}
		out, stderr, code = run(t, "", append([]string{"--db", db, "--output", "json", "table", "scan", "--table", "cars"}, tc.flags...)...)
		var page struct{ Rows []struct{ Key string } }
		if err := json.Unmarshal([]byte(out), &page); code != 0 || err != nil {
			t.Fatalf("table scan %v: exit %d, %v: %s", tc.flags, code, err, stderr)
		}
		var rows []string
		for _, r := range page.Rows {
			rows = append(rows, r.Key)
		}
		if !slices.Equal(rows, keys) {
			t.Errorf("table scan %v: %d rows, brute force %d", tc.flags, len(rows), len(keys))
		}
	}
	for _, bad := range []struct{ value, says string }{
		{"status", "write FIELD=VALUE,VALUE…"},
		{"=free", "write FIELD=VALUE,VALUE…"},
		{`status="free`, "read as one CSV line"},
	} {
		_, stderr, code := run(t, "", "--db", db, "geo", "near", "--index", "fleet", "--lat", "59.9", "--lon", "10.7", "--radius", "1km", "--where-in", bad.value)
		if code != 2 || !strings.Contains(stderr, "--where-in") || !strings.Contains(stderr, bad.says) {
			t.Errorf("--where-in %q: exit %d, %q; want 2 and %q", bad.value, code, stderr, bad.says)
		}
	}
	// A cursor made under one --where-in is refused under another.
	out, _, _ := run(t, "", "--db", db, "--output", "json", "geo", "near", "--index", "fleet", "--lat", "59.9", "--lon", "10.75", "--radius", "3km", "--limit", "2", "--where-in", "status=free")
	var page struct{ Next string }
	if err := json.Unmarshal([]byte(out), &page); err != nil || page.Next == "" {
		t.Fatalf("no next page: %v %s", err, out)
	}
	if _, stderr, code := run(t, "", "--db", db, "geo", "near", "--index", "fleet", "--lat", "59.9", "--lon", "10.75", "--radius", "3km", "--limit", "2", "--where-in", "status=busy", "--cursor", page.Next); code == 0 || !strings.Contains(stderr, "another geo query") {
		t.Errorf("a cursor under another --where-in: exit %d, %q", code, stderr)
	}
}

// TestIndexWhere: index lookup and index scan keep the entries whose
// record --where and --where-in keep, a page of --limit kept entries at
// a time, against brute force over the rows imported.
func TestIndexWhere(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	rng := rand.New(rand.NewPCG(81, 82))
	type order struct {
		id, city, status string
		qty              int
	}
	var orders []order
	var csv strings.Builder
	csv.WriteString("id,city,status,qty\n")
	for i := range 200 {
		o := order{fmt.Sprintf("o%03d", i), []string{"Oslo", "Lima", "Rome"}[rng.IntN(3)], []string{"open", "shipped", "held"}[rng.IntN(3)], rng.IntN(20)}
		orders = append(orders, o)
		fmt.Fprintf(&csv, "%s,%s,%s,%d\n", o.id, o.city, o.status, o.qty)
	}
	for _, args := range [][]string{
		{"table", "import", "--table", "orders", "--key-cols", "id", "-"},
		{"index", "create", "--table", "orders", "--name", "by_city", "--fields", "city"},
	} {
		if _, stderr, code := run(t, csv.String(), append([]string{"--db", db, "--quiet"}, args...)...); code != 0 {
			t.Fatalf("%v: %s", args, stderr)
		}
	}
	for _, tc := range []struct {
		flags []string
		keep  func(o order) bool
	}{
		{[]string{"--where", "qty>=15"}, func(o order) bool { return o.qty >= 15 }},
		{[]string{"--where-in", "status=open,held", "--where", "qty<5"}, func(o order) bool { return o.status != "shipped" && o.qty < 5 }},
		{[]string{"--where", "colour=red"}, func(order) bool { return false }},
	} {
		// index lookup Oslo: the Oslo orders kept, in key order.
		var want []string
		for _, o := range orders {
			if o.city == "Oslo" && tc.keep(o) {
				want = append(want, o.id)
			}
		}
		out, stderr, code := run(t, "", append([]string{"--db", db, "--output", "json", "index", "lookup", "--table", "orders", "--name", "by_city", "Oslo"}, tc.flags...)...)
		var page struct {
			Entries []struct{ Key string }
			Next    string
		}
		if err := json.Unmarshal([]byte(out), &page); code != 0 || err != nil {
			t.Fatalf("lookup %v: exit %d, %v: %s", tc.flags, code, err, stderr)
		}
		var got []string
		for _, e := range page.Entries {
			got = append(got, e.Key)
		}
		if !slices.Equal(got, want) {
			t.Errorf("lookup Oslo %v: %v, brute force %v", tc.flags, got, want)
		}
		// index scan, every city, three kept entries a page.
		want = want[:0]
		for _, city := range []string{"Lima", "Oslo", "Rome"} {
			for _, o := range orders {
				if o.city == city && tc.keep(o) {
					want = append(want, o.id)
				}
			}
		}
		got = got[:0]
		for cursor, pages := "", 0; pages < 200; pages++ {
			out, stderr, code := run(t, "", append([]string{"--db", db, "--output", "json", "index", "scan", "--table", "orders", "--name", "by_city", "--limit", "3", "--cursor", cursor}, tc.flags...)...)
			page.Entries, page.Next = nil, ""
			if err := json.Unmarshal([]byte(out), &page); code != 0 || err != nil {
				t.Fatalf("scan %v: exit %d, %v: %s", tc.flags, code, err, stderr)
			}
			if len(page.Entries) > 3 {
				t.Fatalf("scan %v: a page of %d", tc.flags, len(page.Entries))
			}
			for _, e := range page.Entries {
				got = append(got, e.Key)
			}
			if cursor = page.Next; cursor == "" {
				break
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("scan %v: %v, brute force %v", tc.flags, got, want)
		}
	}
}
