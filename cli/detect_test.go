package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDetect: --detect prints only the kinds it names. Two files get the
// same fences and the same moves (geo put with --fences and --roam, then
// geo import --fences --roam); one asks with --detect, and what it prints
// must be what the other prints, less the other kinds. Enough of each
// kind must occur, and a bad --detect is a usage error that writes
// nothing.
func TestDetect(t *testing.T) {
	dir := t.TempDir()
	all, some := filepath.Join(dir, "all.db"), filepath.Join(dir, "some.db")
	keep := map[string]bool{"enter": true, "cross": true}
	for _, db := range []string{all, some} {
		for i, f := range [][]string{
			{"--lat", "37.7749", "--lon", "-122.4194", "--radius", "2km"},
			{"--min-lat", "37.70", "--min-lon", "-122.52", "--max-lat", "37.82", "--max-lon", "-122.35"},
			{"--lat", "37.80", "--lon", "-122.27", "--radius", "3km"},
			{"--polygon", `{"type":"Polygon","coordinates":[[[-122.511,37.771],[-122.454,37.771],[-122.454,37.766],[-122.511,37.764],[-122.511,37.771]]]}`},
		} {
			if _, stderr, code := run(t, "", append([]string{"--db", db, "fence", "put", "--fences", "zones"}, append(f, fmt.Sprint("z", i))...)...); code != 0 {
				t.Fatal(stderr)
			}
		}
	}
	type move struct {
		Crossings []struct{ Fence, Kind string }
		Meetings  []struct {
			ID, Kind string
			Distance float64
		}
	}
	filtered := func(m move) move {
		m.Crossings = slices.DeleteFunc(m.Crossings, func(c struct{ Fence, Kind string }) bool { return !keep[c.Kind] })
		m.Meetings = slices.DeleteFunc(m.Meetings, func(x struct {
			ID, Kind string
			Distance float64
		}) bool {
			return !keep[x.Kind]
		})
		return m
	}
	r := rand.New(rand.NewPCG(95, 96))
	kinds := map[string]int{}
	for step := range 80 {
		id := fmt.Sprint("car-", r.IntN(6))
		lat, lon := 37.70+r.Float64()*0.14, -122.52+r.Float64()*0.28
		var got [2]move
		for i, db := range []string{all, some} {
			args := []string{"--db", db, "-o", "json", "geo", "put", "--index", "fleet", "--fences", "zones", "--roam", "3km", "--lat", fmt.Sprint(lat), "--lon", fmt.Sprint(lon), id}
			if db == some {
				args = append(args, "--detect", "enter,cross")
			}
			out, stderr, code := run(t, "", args...)
			if code != 0 {
				t.Fatalf("step %d: %s", step, stderr)
			}
			if err := json.Unmarshal([]byte(out), &got[i]); err != nil {
				t.Fatal(err)
			}
		}
		for _, c := range got[0].Crossings {
			kinds[c.Kind]++
		}
		for _, m := range got[0].Meetings {
			kinds[m.Kind]++
		}
		a, b := fmt.Sprint(filtered(got[0])), fmt.Sprint(got[1])
		if a != b {
			t.Fatalf("step %d: --detect enter,cross printed %s; all, less the rest, is %s", step, b, a)
		}
	}
	if kinds["enter"] < 5 || kinds["exit"] < 5 || kinds["inside"] < 5 || kinds["cross"] < 1 {
		t.Fatalf("too few of some kind to mean much: %v", kinds)
	}
	// An import: NDJSON lines, each filtered; lines left with nothing go.
	var csv strings.Builder
	csv.WriteString("id,lat,lon\n")
	for i := range 6 {
		fmt.Fprintf(&csv, "car-%d,%v,%v\n", i, 37.70+r.Float64()*0.14, -122.52+r.Float64()*0.28)
	}
	var lines [2][]move
	for i, db := range []string{all, some} {
		args := []string{"--db", db, "--quiet", "geo", "import", "--index", "fleet", "--fences", "zones", "--roam", "3km", "-"}
		if db == some {
			args = append(args, "--detect", "enter", "--detect", "cross")
		}
		out, stderr, code := run(t, csv.String(), args...)
		if code != 0 {
			t.Fatal(stderr)
		}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var m move
			if l != "" && json.Unmarshal([]byte(l), &m) == nil {
				lines[i] = append(lines[i], m)
			}
		}
	}
	var want []move
	for _, m := range lines[0] {
		if f := filtered(m); len(f.Crossings)+len(f.Meetings) > 0 {
			want = append(want, f)
		}
	}
	if fmt.Sprint(want) != fmt.Sprint(lines[1]) {
		t.Fatalf("import --detect printed %v; all, less the rest, is %v", lines[1], want)
	}
	before, err := os.ReadFile(some)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]string{
		{"geo", "put", "--index", "fleet", "--fences", "zones", "--lat", "1", "--lon", "2", "--detect", "near", "car-0"},
		{"geo", "put", "--index", "fleet", "--lat", "1", "--lon", "2", "--detect", "enter", "car-0"},
		{"geo", "import", "--index", "fleet", "--detect", "enter", "-"},
	} {
		_, stderr, code := run(t, csv.String(), append([]string{"--db", some}, bad...)...)
		if code != 2 || !strings.Contains(stderr, "--detect") {
			t.Errorf("keyspace %s: exit %d, %q", strings.Join(bad, " "), code, stderr)
		}
	}
	if after, _ := os.ReadFile(some); !bytes.Equal(after, before) {
		t.Fatal("a bad --detect changed the file")
	}
}
