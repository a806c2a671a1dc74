package cli_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeoWritesOnlyIf: geo import and geo put with --nx write only ids
// not in the index yet, leaving the others where they are, and with
// --xx only ids already there, leaving new ones out; each says how many
// it left, and the index ends as a model that applies the same rule
// holds it. --nx and --xx together are refused (exit 2).
func TestGeoWritesOnlyIf(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	r := rand.New(rand.NewPCG(81, 82))
	model := map[string][2]float64{}
	write := func(flag string, ids []string) (csv string, left int) {
		var b strings.Builder
		b.WriteString("id,lat,lon\n")
		for _, id := range ids {
			p := [2]float64{float64(r.IntN(80)), float64(r.IntN(170))}
			fmt.Fprintf(&b, "%s,%v,%v\n", id, p[0], p[1])
			_, there := model[id]
			if flag == "--nx" && there || flag == "--xx" && !there {
				left++
				continue
			}
			model[id] = p
		}
		return b.String(), left
	}
	check := func(when string) {
		t.Helper()
		out, stderr, code := run(t, "", "--db", db, "-o", "json", "geo", "scan", "--index", "v")
		if code != 0 {
			t.Fatal(stderr)
		}
		var doc struct {
			Points []struct {
				ID       string
				Lat, Lon float64
			}
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%s: %v\n%s", when, err, out)
		}
		got := map[string][2]float64{}
		for _, p := range doc.Points {
			got[p.ID] = [2]float64{p.Lat, p.Lon}
		}
		if fmt.Sprint(got) != fmt.Sprint(model) {
			t.Fatalf("%s: the index holds %v, the model %v", when, got, model)
		}
	}
	ids := func(from, to int) []string {
		var out []string
		for i := from; i < to; i++ {
			out = append(out, fmt.Sprintf("v%02d", i))
		}
		return out
	}
	for _, step := range []struct {
		flag     string
		from, to int
	}{{"", 0, 10}, {"--nx", 5, 15}, {"--xx", 10, 20}, {"--xx", 0, 3}, {"--nx", 0, 30}} {
		csv, left := write(step.flag, ids(step.from, step.to))
		args := []string{"--db", db, "-q", "geo", "import", "--index", "v"}
		if step.flag != "" {
			args = append(args, step.flag)
		}
		_, stderr, code := run(t, csv, append(args, "-")...)
		if code != 0 {
			t.Fatal(stderr)
		}
		if want := fmt.Sprintf("%d point", left); left > 0 && !strings.Contains(stderr, want) || left == 0 && strings.Contains(stderr, "left") {
			t.Errorf("import %s of v%02d…v%02d: %q; want it to say %d were left", step.flag, step.from, step.to-1, stderr, left)
		}
		check(fmt.Sprintf("after import %s of v%02d…v%02d", step.flag, step.from, step.to-1))
	}
	for _, put := range []struct {
		flag, id string
		writes   bool
	}{{"--nx", "v03", false}, {"--nx", "v99", true}, {"--xx", "v98", false}, {"--xx", "v04", true}} {
		_, stderr, code := run(t, "", "--db", db, "geo", "put", "--index", "v", "--lat", "1", "--lon", "2", put.flag, put.id)
		if code != 0 || put.writes == strings.Contains(stderr, put.flag) {
			t.Errorf("put %s %s: exit %d, %q", put.flag, put.id, code, stderr)
		}
		if put.writes {
			model[put.id] = [2]float64{1, 2}
		}
		check("after put " + put.flag + " " + put.id)
	}
	// The same through --roam, which reports the move's meetings.
	if _, stderr, code := run(t, "", "--db", db, "geo", "put", "--index", "v", "--lat", "1", "--lon", "2", "--roam", "100km", "--nx", "v03"); code != 0 || !strings.Contains(stderr, "--nx") {
		t.Errorf("put --roam --nx v03: exit %d, %q", code, stderr)
	}
	check("after put --roam --nx v03")
	for _, args := range [][]string{{"geo", "put", "--index", "v", "--lat", "1", "--lon", "2", "--nx", "--xx", "v50"}, {"geo", "import", "--index", "v", "--nx", "--xx", "-"}} {
		if _, stderr, code := run(t, "id,lat,lon\nv50,1,2\n", append([]string{"--db", db}, args...)...); code != 2 || !strings.Contains(stderr, "give one") {
			t.Errorf("%v: exit %d, %q", args, code, stderr)
		}
	}
	check("after refused writes")
}
