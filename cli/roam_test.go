package cli_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/keyspacedb/keyspace/geo"
)

// count is "1 point", "2 points": the command line's counts.
func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// TestGeoPutRoam: vehicles put with --roam, each move's meetings against
// a brute-force pass over where the oracle has every vehicle; batches of
// moves imported with --roam, each line against the same oracle over the
// batch's before and after; deletes with --roam, each one's exits; --roam
// with --fences prints both; a bad distance is a usage error that writes
// nothing.
func TestGeoPutRoam(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	r := rand.New(rand.NewPCG(9, 10))
	where := map[string][2]float64{}
	kinds := map[string]int{}
	for step := range 60 {
		id := fmt.Sprint("car-", r.IntN(12))
		// Around one block of Berlin, within a few hundred metres.
		lat, lon := 52.52+r.Float64()*0.01, 13.40+r.Float64()*0.015
		out, errOut, code := run(t, "", "--db", db, "-o", "json", "geo", "put", "--index", "fleet", "--lat", fmt.Sprint(lat), "--lon", fmt.Sprint(lon), "--roam", "300m", id)
		if code != 0 {
			t.Fatalf("step %d: exit %d: %s", step, code, errOut)
		}
		var got struct {
			ID       string
			Meetings []struct {
				ID, Kind string
				Distance float64
			}
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("step %d: %v\n%s", step, err, out)
		}
		var want []string
		old, had := where[id]
		for _, other := range slices.Sorted(func(yield func(string) bool) {
			for k := range where {
				if !yield(k) {
					return
				}
			}
		}) {
			if other == id {
				continue
			}
			q := where[other]
			d := geo.Distance(lat, lon, q[0], q[1])
			now, before := d <= 300, had && geo.Distance(old[0], old[1], q[0], q[1]) <= 300
			kind := map[[2]bool]string{{true, true}: "inside", {true, false}: "enter", {false, true}: "exit"}[[2]bool{now, before}]
			if kind != "" {
				want = append(want, fmt.Sprintf("%s %s %.3f", other, kind, d))
			}
		}
		var have []string
		for _, m := range got.Meetings {
			have = append(have, fmt.Sprintf("%s %s %.3f", m.ID, m.Kind, m.Distance))
			kinds[m.Kind]++
		}
		if got.ID != id || !slices.Equal(have, want) {
			t.Fatalf("step %d, %s to (%v, %v): %v; brute force %v", step, id, lat, lon, have, want)
		}
		where[id] = [2]float64{lat, lon}
	}
	if kinds["enter"] == 0 || kinds["exit"] == 0 || kinds["inside"] == 0 {
		t.Fatalf("the moves made too few kinds of meeting: %v", kinds)
	}

	// geo import --roam: batches of moves; each line is a vehicle's
	// meetings, the others where they were before the batch and where
	// they are after it, by brute force; a vehicle that met nobody has no
	// line.
	for round := range 3 {
		var in strings.Builder
		in.WriteString("id,lat,lon\n")
		after := maps.Clone(where)
		var order []string
		for _, i := range r.Perm(12)[:6] {
			id := fmt.Sprint("car-", i)
			lat, lon := 52.52+r.Float64()*0.01, 13.40+r.Float64()*0.015
			fmt.Fprintf(&in, "%s,%v,%v\n", id, lat, lon)
			after[id] = [2]float64{lat, lon}
			order = append(order, id)
		}
		out, errOut, code := run(t, in.String(), "--db", db, "geo", "import", "--index", "fleet", "--roam", "300m", "-")
		if code != 0 {
			t.Fatalf("geo import --roam, round %d: exit %d: %s", round, code, errOut)
		}
		var want []string
		for _, id := range order {
			old, had := where[id]
			now := after[id]
			var ms []string
			for _, other := range slices.Sorted(maps.Keys(after)) {
				if other == id {
					continue
				}
				q, qWas := after[other], where[other]
				_, wasThen := where[other]
				d := geo.Distance(now[0], now[1], q[0], q[1])
				nearNow, nearBefore := d <= 300, had && wasThen && geo.Distance(old[0], old[1], qWas[0], qWas[1]) <= 300
				if kind := map[[2]bool]string{{true, true}: "inside", {true, false}: "enter", {false, true}: "exit"}[[2]bool{nearNow, nearBefore}]; kind != "" {
					ms = append(ms, fmt.Sprintf("%s %s %.3f", other, kind, d))
				}
			}
			if len(ms) > 0 {
				want = append(want, id+": "+strings.Join(ms, ", "))
			}
		}
		var got []string
		for line := range strings.Lines(strings.TrimSpace(out)) {
			var m struct {
				ID       string
				Meetings []struct {
					ID, Kind string
					Distance float64
				}
			}
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("geo import --roam, round %d: %q: %v", round, line, err)
			}
			var ms []string
			for _, x := range m.Meetings {
				ms = append(ms, fmt.Sprintf("%s %s %.3f", x.ID, x.Kind, x.Distance))
			}
			got = append(got, m.ID+": "+strings.Join(ms, ", "))
		}
		if !slices.Equal(got, want) || len(want) == 0 {
			t.Fatalf("geo import --roam, round %d:\n%s\nbrute force:\n%s", round, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		where = after
	}

	// geo del --roam: each deleted vehicle's exits from those it was
	// near; an unknown id among them deletes none.
	// The two with the most neighbours within 300 m.
	ids := slices.Sorted(maps.Keys(where))
	neighbours := func(id string) (n int) {
		for _, other := range ids {
			if other != id && geo.Distance(where[id][0], where[id][1], where[other][0], where[other][1]) <= 300 {
				n++
			}
		}
		return n
	}
	slices.SortStableFunc(ids, func(a, b string) int { return neighbours(b) - neighbours(a) })
	gone := ids[:2]
	if _, errOut, code := run(t, "", "--db", db, "geo", "del", "--index", "fleet", "--roam", "300m", gone[0], "nobody"); code != 1 || !strings.Contains(errOut, "nobody") {
		t.Fatalf("geo del --roam with an unknown id: exit %d, %s", code, errOut)
	}
	out, errOut, code := run(t, "", "--db", db, "-o", "json", "geo", "del", "--index", "fleet", "--roam", "300m", gone[0], gone[1])
	if code != 0 {
		t.Fatalf("geo del --roam: exit %d, %s", code, errOut)
	}
	var del struct {
		Deleted []struct {
			ID       string
			Meetings []struct {
				ID, Kind string
				Distance float64
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &del); err != nil || len(del.Deleted) != 2 {
		t.Fatalf("geo del --roam: %v\n%s", err, out)
	}
	exits := 0
	for i, d := range del.Deleted {
		exits += len(d.Meetings)
		// The first is gone when the second's neighbours are found.
		var want, got []string
		p := where[d.ID]
		for _, other := range slices.Sorted(maps.Keys(where)) {
			if other == d.ID || i == 1 && other == gone[0] {
				continue
			}
			q := where[other]
			if dist := geo.Distance(p[0], p[1], q[0], q[1]); dist <= 300 {
				want = append(want, fmt.Sprintf("%s exit %.3f", other, dist))
			}
		}
		for _, m := range d.Meetings {
			got = append(got, fmt.Sprintf("%s %s %.3f", m.ID, m.Kind, m.Distance))
		}
		if d.ID != gone[i] || !slices.Equal(got, want) {
			t.Fatalf("geo del --roam, %s: %v; brute force %v", d.ID, got, want)
		}
	}
	if exits == 0 {
		t.Fatal("geo del --roam: the deleted vehicles were near nobody: the check tests nothing")
	}
	for _, id := range gone {
		delete(where, id)
	}

	// With --fences too: the crossings, then the meetings.
	if _, errOut, code := run(t, "", "--db", db, "fence", "put", "--fences", "zones", "--lat", "52.525", "--lon", "13.4075", "--radius", "100km", "city"); code != 0 {
		t.Fatal(errOut)
	}
	out, errOut, code = run(t, "", "--db", db, "geo", "put", "--index", "fleet", "--lat", "52.521", "--lon", "13.401", "--roam", "1km", "--fences", "zones", "newcomer")
	within := 0
	for _, q := range where {
		if geo.Distance(52.521, 13.401, q[0], q[1]) <= 1000 {
			within++
		}
	}
	lines := strings.Split(out, "\n")
	if code != 0 || len(lines) < 4 || strings.Join(strings.Fields(lines[1]), " ") != "city enter" || strings.Fields(lines[3])[0] != "NEAR" || !strings.Contains(out, fmt.Sprintf("\n%s\n", count(within, "point"))) {
		t.Fatalf("--roam with --fences: exit %d: %s%s", code, out, errOut)
	}

	// A bad distance writes nothing.
	before, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"-5m", "far", "NaN"} {
		if _, errOut, code := run(t, "", "--db", db, "geo", "put", "--index", "fleet", "--lat", "1", "--lon", "1", "--roam", bad, "car-1"); code != 2 || !strings.Contains(errOut, "--roam") {
			t.Errorf("--roam %s: exit %d, %s", bad, code, errOut)
		}
	}
	if after, _ := os.ReadFile(db); string(after) != string(before) {
		t.Error("a refused geo put --roam changed the file")
	}
}
