package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"
)

// TestFenceTTL: fences that expire, end to end. Twelve circles round one
// place all hold it; a third carry an "expires" property an hour or more
// past, a third one ahead, a third none. Every reader must leave the
// expired ones out (containing, list, get, geo put --fences), the GeoJSON
// a list writes must import back with the same expiries, sweep must
// delete exactly the expired ones and name the next expiry, and expire,
// persist, put --ttl and import --ttl must set what they say; bad input
// changes nothing.
func TestFenceTTL(t *testing.T) {
	db := filepath.Join(t.TempDir(), "fences.db")
	ks, must := onDB(t, db)
	const lat, lon = 48.8566, 2.3522
	now := time.Now()
	fc := geojson.NewFeatureCollection()
	var all, live []string
	expires := map[string]time.Time{}
	for i := range 12 {
		id := fmt.Sprintf("c%02d", i)
		feat := geojson.NewFeature(orb.Point{lon, lat})
		feat.ID = id
		feat.Properties["radius"] = float64(1000 * (i + 1))
		feat.Properties["zone"] = i
		switch i % 3 {
		case 0:
			feat.Properties["expires"] = now.Add(-time.Duration(i+1) * time.Hour).UTC().Format(time.RFC3339Nano)
		case 1:
			expires[id] = now.Add(time.Duration(i+1) * time.Hour)
			feat.Properties["expires"] = expires[id].UTC().Format(time.RFC3339Nano)
			live = append(live, id)
		default:
			live = append(live, id)
		}
		all = append(all, id)
		fc.Append(feat)
	}
	file := filepath.Join(t.TempDir(), "zones.geojson")
	b, _ := json.Marshal(fc)
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	must("fence", "import", "--fences", "zones", file)

	// Lookups, list and get leave the expired fences out.
	var held struct{ Fences []string }
	json.Unmarshal([]byte(must("fence", "containing", "--fences", "zones", "--lat", fmt.Sprint(lat), "--lon", fmt.Sprint(lon), "-o", "json")), &held)
	if !slices.Equal(held.Fences, live) {
		t.Fatalf("containing: %v; the live fences are %v", held.Fences, live)
	}
	listed := must("fence", "list", "--fences", "zones")
	if !strings.Contains(listed, "EXPIRES") || !strings.Contains(listed, "never") || strings.Contains(listed, "c00") || !strings.Contains(listed, fmt.Sprintf("%d fences", len(live))) {
		t.Fatalf("fence list:\n%s", listed)
	}
	if _, stderr, code := ks("fence", "get", "--fences", "zones", "c03"); code != 1 || !strings.Contains(stderr, "expired") {
		t.Fatalf("fence get of an expired fence: exit %d, %s", code, stderr)
	}
	var got struct{ Fences []*geojson.Feature }
	json.Unmarshal([]byte(must("fence", "get", "--fences", "zones", "c01", "c02", "-o", "json")), &got)
	if len(got.Fences) != 2 || got.Fences[0].Properties["expires"] != expires["c01"].UTC().Format(time.RFC3339Nano) || got.Fences[1].Properties["expires"] != nil || got.Fences[0].Properties["zone"] != 1.0 {
		t.Fatalf("fence get -o json: %+v", got.Fences)
	}

	// A car driving in from far away enters the live fences only.
	must("geo", "put", "--index", "cars", "--lat", "40", "--lon", "2.3522", "car")
	var moved struct {
		Crossings []struct{ Fence, Kind string }
	}
	json.Unmarshal([]byte(must("-o", "json", "geo", "put", "--index", "cars", "--fences", "zones", "--lat", fmt.Sprint(lat), "--lon", fmt.Sprint(lon), "car")), &moved)
	var entered []string
	for _, c := range moved.Crossings {
		if c.Kind == "enter" {
			entered = append(entered, c.Fence)
		}
	}
	if !slices.Equal(entered, live) || len(moved.Crossings) != len(live) {
		t.Fatalf("the car's crossings: %+v; it should have entered %v", moved.Crossings, live)
	}

	// A list's GeoJSON imports back as the same fences, expiries to the
	// nanosecond.
	export := filepath.Join(t.TempDir(), "export.geojson")
	if err := os.WriteFile(export, []byte(must("fence", "list", "--fences", "zones", "-o", "geojson")), 0o644); err != nil {
		t.Fatal(err)
	}
	must("fence", "import", "--fences", "copy", export)
	for _, id := range live {
		a := must("fence", "get", "--fences", "zones", id, "-o", "json")
		if b := must("fence", "get", "--fences", "copy", id, "-o", "json"); a != b {
			t.Fatalf("fence %s imported back as\n%s\nnot\n%s", id, b, a)
		}
	}

	// Sweep deletes the four expired fences, and names the next expiry.
	swept := must("fence", "sweep", "--fences", "zones")
	if !strings.Contains(swept, "deleted 4 expired fences from fence set zones") || !strings.Contains(swept, "next expiry: "+expires["c01"].UTC().Format(time.RFC3339)) {
		t.Fatalf("fence sweep:\n%s", swept)
	}
	if again := must("fence", "sweep"); !strings.Contains(again, "deleted 0 expired fences from fence set copy") || !strings.Contains(again, "deleted 0 expired fences from fence set zones") {
		t.Fatalf("fence sweep of every set:\n%s", again)
	}
	for _, id := range all {
		_, _, code := ks("fence", "get", "--fences", "zones", id)
		if want := slices.Contains(live, id); (code == 0) != want {
			t.Fatalf("after the sweep, fence get %s: exit %d", id, code)
		}
	}

	// expire, persist, put --ttl, import --ttl.
	must("fence", "expire", "--fences", "zones", "--ttl", "30m", "c02", "c05")
	must("fence", "persist", "--fences", "zones", "c01")
	must("fence", "put", "--fences", "zones", "--lat", "1", "--lon", "2", "--radius", "1km", "--ttl", "2h", "new")
	ttlFile := filepath.Join(t.TempDir(), "ttl.geojson")
	os.WriteFile(ttlFile, []byte(`{"type":"FeatureCollection","features":[{"type":"Feature","id":"t1","geometry":{"type":"Point","coordinates":[2,1]},"properties":{"radius":50,"expires":"2001-01-01T00:00:00Z"}}]}`), 0o644)
	must("fence", "import", "--fences", "zones", "--ttl", "3h", ttlFile) // --ttl over the property
	after := time.Now()
	for id, within := range map[string][2]time.Duration{"c02": {29 * time.Minute, 31 * time.Minute}, "c05": {29 * time.Minute, 31 * time.Minute}, "new": {119 * time.Minute, 121 * time.Minute}, "t1": {179 * time.Minute, 181 * time.Minute}, "c01": {}} {
		var f struct{ Fences []*geojson.Feature }
		json.Unmarshal([]byte(must("fence", "get", "--fences", "zones", id, "-o", "json")), &f)
		e, _ := f.Fences[0].Properties["expires"].(string)
		at, err := time.Parse(time.RFC3339Nano, e)
		switch {
		case within == [2]time.Duration{}:
			if e != "" {
				t.Errorf("fence %s persisted, but expires %s", id, e)
			}
		case err != nil || at.Before(after.Add(within[0])) || at.After(after.Add(within[1])):
			t.Errorf("fence %s expires %q, want %v to %v from now", id, e, within[0], within[1])
		}
	}

	// Bad input: an error, and the file unchanged.
	before, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	badFile := filepath.Join(t.TempDir(), "bad.geojson")
	os.WriteFile(badFile, []byte(`{"type":"FeatureCollection","features":[{"type":"Feature","id":"ok","geometry":{"type":"Point","coordinates":[2,1]},"properties":{"radius":50}},{"type":"Feature","id":"bad","geometry":{"type":"Point","coordinates":[2,1]},"properties":{"radius":50,"expires":"tomorrow"}}]}`), 0o644)
	for _, bad := range []struct {
		code int
		says string
		args []string
	}{
		{1, "feature 2 of 2: fence \"bad\": expires property \"tomorrow\"", []string{"fence", "import", "--fences", "zones", badFile}},
		{1, "no fence \"nobody\"", []string{"fence", "expire", "--fences", "zones", "--ttl", "1h", "c02", "nobody"}},
		{1, "no fence \"c00\"", []string{"fence", "persist", "--fences", "zones", "c00"}}, // swept
		{2, "needs --ttl", []string{"fence", "expire", "--fences", "zones", "c02"}},
		{2, "--ttl 0s", []string{"fence", "put", "--fences", "zones", "--lat", "1", "--lon", "2", "--radius", "1km", "--ttl", "0s", "zero"}},
		{2, "--ttl -1m0s", []string{"fence", "import", "--fences", "zones", "--ttl", "-1m", ttlFile}},
		{2, "--limit -1", []string{"fence", "sweep", "--limit", "-1"}},
	} {
		_, stderr, code := ks(bad.args...)
		if code != bad.code || !strings.Contains(stderr, bad.says) {
			t.Errorf("keyspace %s: exit %d, %q; want exit %d saying %q", strings.Join(bad.args, " "), code, stderr, bad.code, bad.says)
		}
	}
	if now, _ := os.ReadFile(db); !bytes.Equal(now, before) {
		t.Fatal("bad input changed the database file")
	}
	if out, stderr, code := ks("verify"); code != 0 {
		t.Fatalf("verify: exit %d\n%s%s", code, out, stderr)
	}
}
