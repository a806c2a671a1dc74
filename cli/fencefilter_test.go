package cli_test

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/keyspacedb/keyspace/geo"
)

// TestFenceFiltersAgainstBruteForce: fence containing, near (with --k),
// intersecting, within and list (a page at a time) take --where,
// --where-in and --match as geo queries do, on the fences' payloads and
// ids; each answer is checked against circles tested by distance and the
// payloads filtered here.
func TestFenceFiltersAgainstBruteForce(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	r := rand.New(rand.NewPCG(51, 4))
	type circle struct {
		id           string
		lat, lon, r  float64
		tariff       string
		n            int
		plainPayload bool
	}
	tariffs := []string{"express", "standard", "night"}
	var fences []circle
	for i := range 60 {
		fences = append(fences, circle{id: fmt.Sprintf("%s-%d", []string{"zone", "depot"}[i%2], i), lat: 10 + r.Float64(), lon: 20 + r.Float64(), r: 5000 + r.Float64()*40000,
			tariff: tariffs[r.IntN(3)], n: r.IntN(10), plainPayload: i%7 == 0})
	}
	for _, c := range fences {
		payload := fmt.Sprintf(`{"tariff":%q,"n":%d}`, c.tariff, c.n)
		if c.plainPayload {
			payload = "no fields"
		}
		runOK(t, "", "--db", db, "fence", "put", "-f", "z", "--lat", fmt.Sprint(c.lat), "--lon", fmt.Sprint(c.lon), "--radius", fmt.Sprint(c.r), "--payload", payload, c.id)
	}
	filters := []struct {
		args []string
		keep func(circle) bool
	}{
		{[]string{"--where", "tariff=express"}, func(c circle) bool { return !c.plainPayload && c.tariff == "express" }},
		{[]string{"--where", "n >= 5", "--match", "zone-*"}, func(c circle) bool {
			return !c.plainPayload && c.n >= 5 && strings.HasPrefix(c.id, "zone-")
		}},
		{[]string{"--where-in", "tariff=night,standard", "--where", "tariff!=night"}, func(c circle) bool { return !c.plainPayload && c.tariff == "standard" }},
		{[]string{"--match", "depot-*"}, func(c circle) bool { return strings.HasPrefix(c.id, "depot-") }},
		{[]string{"--where", "n!=3"}, func(c circle) bool { return c.plainPayload || c.n != 3 }}, // no field: != holds
	}
	ids := func(out string) []string {
		var doc struct{ Fences []struct{ ID string } }
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		var got []string
		for _, f := range doc.Fences {
			got = append(got, f.ID)
		}
		return got
	}
	plain := func(out string) []string {
		var doc struct{ Fences []string }
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		return doc.Fences
	}
	checked := 0
	for q := range 30 {
		lat, lon := 10+r.Float64(), 20+r.Float64()
		at := []string{"--lat", fmt.Sprint(lat), "--lon", fmt.Sprint(lon)}
		f := filters[q%len(filters)]
		var holding []string
		type near struct {
			id string
			d  float64
		}
		var nears []near
		for _, c := range fences {
			d := geo.Distance(lat, lon, c.lat, c.lon)
			if !f.keep(c) {
				continue
			}
			if math.Abs(d-c.r) < 1 {
				continue // on the edge, within rounding: either answer
			}
			if d < c.r {
				holding = append(holding, c.id)
			}
			edge := math.Max(0, d-c.r)
			if edge < 1 {
				edge = 0 // holds the point, or all but: nearest first, then by id
			}
			if edge <= 30000 {
				nears = append(nears, near{c.id, edge})
			}
		}
		got := plain(runOK(t, "", append(append([]string{"--db", db, "-o", "json", "fence", "containing", "-f", "z"}, at...), f.args...)...))
		slices.Sort(got)
		slices.Sort(holding)
		if !slices.Equal(got, holding) {
			t.Errorf("containing at %v %v: %v, brute force %v", at, f.args, got, holding)
		}
		slices.SortFunc(nears, func(a, b near) int {
			if c := cmp.Compare(a.d, b.d); c != 0 {
				return c
			}
			return strings.Compare(a.id, b.id)
		})
		var want []string
		for _, n := range nears[:min(3, len(nears))] {
			want = append(want, n.id)
		}
		gotNear := ids(runOK(t, "", append(append([]string{"--db", db, "-o", "json", "fence", "near", "-f", "z", "--radius", "30km", "--k", "3"}, at...), f.args...)...))
		if !slices.Equal(gotNear, want) {
			t.Errorf("near --k 3 at %v %v: %v, brute force %v", at, f.args, gotNear, want)
		}
		checked += len(holding) + len(want)
	}
	if checked < 60 {
		t.Errorf("only %d fences found over the queries", checked)
	}
	// intersecting and within a big circle: every fence meets it, and
	// those inside it are the ones whose circles fit.
	big := []string{"--lat", "10.5", "--lon", "20.5", "--radius", "60km"}
	for _, f := range filters {
		var meet, inside []string
		for _, c := range fences {
			if !f.keep(c) {
				continue
			}
			d := geo.Distance(10.5, 20.5, c.lat, c.lon)
			if math.Abs(d-60000-c.r) < 1 || math.Abs(d+c.r-60000) < 1 {
				t.Fatalf("fence %s lies on the area's edge, within rounding: choose another seed", c.id)
			}
			if d <= 60000+c.r {
				meet = append(meet, c.id)
			}
			if d+c.r <= 60000 {
				inside = append(inside, c.id)
			}
		}
		for _, q := range []struct {
			cmd  string
			want []string
		}{{"intersecting", meet}, {"within", inside}} {
			got := plain(runOK(t, "", append(append([]string{"--db", db, "-o", "json", "fence", q.cmd, "-f", "z"}, big...), f.args...)...))
			slices.Sort(got)
			slices.Sort(q.want)
			if !slices.Equal(got, q.want) {
				t.Errorf("%s %v: %v, brute force %v", q.cmd, f.args, got, q.want)
			}
		}
	}
	// fence list, a page of 7 at a time: every kept fence once, in id
	// order.
	for _, f := range filters {
		var want []string
		for _, c := range fences {
			if f.keep(c) {
				want = append(want, c.id)
			}
		}
		slices.Sort(want)
		var got []string
		cursor := ""
		for pages := 0; ; pages++ {
			if pages > len(fences) {
				t.Fatalf("list %v: pages without end", f.args)
			}
			args := append([]string{"--db", db, "-o", "json", "fence", "list", "-f", "z", "--limit", "7"}, f.args...)
			if cursor != "" {
				args = append(args, "--cursor", cursor)
			}
			var page struct {
				Fences []struct{ ID string }
				Next   string
			}
			if err := json.Unmarshal([]byte(runOK(t, "", args...)), &page); err != nil {
				t.Fatal(err)
			}
			for _, fence := range page.Fences {
				got = append(got, fence.ID)
			}
			if page.Next == "" {
				break
			}
			if len(page.Fences) != 7 {
				t.Errorf("list %v: a page of %d before the last", f.args, len(page.Fences))
			}
			cursor = page.Next
		}
		if !slices.Equal(got, want) {
			t.Errorf("list %v: %v, the fences kept %v", f.args, got, want)
		}
	}
	_, stderr, code := run(t, "", "--db", db, "fence", "containing", "-f", "z", "--lat", "10.5", "--lon", "20.5", "--where", "tarif=express")
	if code != 0 || !strings.Contains(stderr, `note: no fence read has a payload field "tarif" (did you mean "tariff"?)`) {
		t.Errorf("a misspelt field: exit %d, %q", code, stderr)
	}
}
