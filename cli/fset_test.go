package cli_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestGeoFset: random geo fset and --del calls on points with JSON
// payloads (some expiring) are checked against a model of each payload's
// fields: the payload geo get returns afterwards, and the count of fields
// changed that fset prints, which the model counts by comparing decoded
// values; every point keeps its place and expiry. A missing point is an
// error unless --xx (then 0 changed), a payload that is not a JSON object
// is refused, and neither changes the file. A query's --where sees the
// fields fset set.
func TestGeoFset(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	var csv strings.Builder
	csv.WriteString("id,lat,lon,expires,speed\n")
	for i := range 12 {
		expires := ""
		if i%3 == 0 {
			expires = "2099-01-01T00:00:00Z"
		}
		fmt.Fprintf(&csv, "car-%d,%d.5,%d.25,%s,%d\n", i, i, -i, expires, i*10)
	}
	if _, stderr, code := run(t, csv.String(), "--db", db, "geo", "import", "--index", "fleet", "--expires-col", "expires", "-"); code != 0 {
		t.Fatal(stderr)
	}
	type point struct {
		ID       string
		Lat, Lon float64
		Expires  string
		Payload  map[string]any
	}
	get := func(id string) point {
		t.Helper()
		out, stderr, code := run(t, "", "--db", db, "geo", "get", "--index", "fleet", "--output", "json", id)
		if code != 0 {
			t.Fatalf("get %s: %s", id, stderr)
		}
		var doc struct{ Results []point }
		if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Results) != 1 {
			t.Fatalf("get %s: %v %s", id, err, out)
		}
		return doc.Results[0]
	}
	model := map[string]point{}
	for i := range 12 {
		id := fmt.Sprint("car-", i)
		model[id] = get(id)
	}
	r := rand.New(rand.NewPCG(3, 4))
	values := []struct {
		arg  string
		want any
	}{{"70", 70.0}, {"70.0", 70.0}, {"busy", "busy"}, {`"70"`, "70"}, {"true", true}, {"null", nil}, {`[1,2]`, []any{1.0, 2.0}}, {"1e400", "1e400"}, {"", ""}}
	fields := []string{"speed", "status", "note"}
	for step := range 60 {
		id := fmt.Sprint("car-", r.IntN(12))
		want := model[id]
		payload := maps.Clone(want.Payload)
		if payload == nil {
			payload = map[string]any{}
		}
		args := []string{"--db", db, "geo", "fset", "--index", "fleet"}
		touched := map[string]bool{}
		for range r.IntN(3) {
			f := fields[r.IntN(len(fields))]
			args = append(args, "--del", f)
			delete(payload, f)
			touched[f] = true
		}
		args = append(args, id)
		for range 1 + r.IntN(3) { // --del first, then the pairs in order, as fset does
			f, v := fields[r.IntN(len(fields))], values[r.IntN(len(values))]
			args = append(args, f+"="+v.arg)
			payload[f] = v.want
			touched[f] = true
		}
		changed := 0
		for f := range touched {
			old, had := want.Payload[f]
			now, has := payload[f]
			if had != has || !reflect.DeepEqual(old, now) {
				changed++
			}
		}
		out, stderr, code := run(t, "", args...)
		if code != 0 || strings.TrimSpace(out) != fmt.Sprint(changed) {
			t.Fatalf("step %d: %v: exit %d, %q %q; the model changed %d fields", step, args, code, out, stderr, changed)
		}
		got := get(id)
		want.Payload = payload
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("step %d: %v: get gives %+v, the model %+v", step, args, got, want)
		}
		model[id] = want
	}
	// Refusals change nothing.
	before, _, _ := run(t, "", "--db", db, "geo", "scan", "--index", "fleet", "--output", "json")
	if _, stderr, code := run(t, "", "--db", db, "geo", "fset", "--index", "fleet", "car-99", "a=1"); code != 1 || !strings.Contains(stderr, `no point "car-99" in index fleet`) {
		t.Errorf("fset of a missing point: exit %d, %q", code, stderr)
	}
	if out, stderr, code := run(t, "", "--db", db, "geo", "fset", "--index", "fleet", "--xx", "car-99", "a=1"); code != 0 || out != "0\n" {
		t.Errorf("fset --xx of a missing point: exit %d, %q %q", code, out, stderr)
	}
	if after, _, _ := run(t, "", "--db", db, "geo", "scan", "--index", "fleet", "--output", "json"); after != before {
		t.Errorf("an fset of a missing point changed the index")
	}
	if _, stderr, code := run(t, "", "--db", db, "geo", "put", "--index", "fleet", "--lat", "1", "--lon", "1", "--payload", "plain text", "odd"); code != 0 {
		t.Fatal(stderr)
	}
	before, _, _ = run(t, "", "--db", db, "geo", "scan", "--index", "fleet", "--output", "json")
	if _, stderr, code := run(t, "", "--db", db, "geo", "fset", "--index", "fleet", "odd", "a=1"); code != 1 || !strings.Contains(stderr, "not a JSON object") {
		t.Errorf("fset of a payload that is not an object: exit %d, %q", code, stderr)
	}
	if after, _, _ := run(t, "", "--db", db, "geo", "scan", "--index", "fleet", "--output", "json"); after != before {
		t.Errorf("a refused fset changed the index")
	}
	// --where sees what fset set.
	if _, stderr, code := run(t, "", "--db", db, "geo", "fset", "--index", "fleet", "car-4", "speed=999"); code != 0 {
		t.Fatal(stderr)
	}
	out, _, _ := run(t, "", "--db", db, "geo", "near", "--index", "fleet", "--lat", "4.5", "--lon", "-4.25", "--radius", "2000km", "--where", "speed>=999", "--output", "json")
	if ids := expiringPoints(t, out); len(ids) != 1 || ids["car-4"] != "" && ids["car-4"] != model["car-4"].Expires {
		t.Errorf("near --where speed>=999 finds %v", ids)
	}
}
