package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paulmach/orb/geojson"
)

// TestGeoBounds: geo bounds gives the box a pass over the CSV gives (the
// latitudes' extremes; across ±180° for points either side of it), as
// JSON, and as GeoJSON cut in two at ±180°; --where narrows the points; a
// filter that keeps none is an error.
func TestGeoBounds(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	csv := "id,lat,lon,fleet\na,-17.5,178.25,fj\nb,-16,-179.5,fj\nc,-18.75,179.9,fj\nd,10,-60,x\ne,11,-61,x\n"
	if _, stderr, code := run(t, csv, "--db", db, "geo", "import", "--index", "p", "-"); code != 0 {
		t.Fatal(stderr)
	}
	type box struct {
		MinLat float64 `json:"min_lat"`
		MinLon float64 `json:"min_lon"`
		MaxLat float64 `json:"max_lat"`
		MaxLon float64 `json:"max_lon"`
		Points int
	}
	for _, c := range []struct {
		where string
		want  box
	}{
		{"fleet=fj", box{-18.75, 178.25, -16, -179.5, 3}},
		{"fleet=x", box{10, -61, 11, -60, 2}},
		{"", box{-18.75, 178.25, 11, -60, 5}}, // the widest gap is from -60 east to 178.25
	} {
		args := []string{"--db", db, "geo", "bounds", "--index", "p", "--output", "json"}
		if c.where != "" {
			args = append(args, "--where", c.where)
		}
		out, stderr, code := run(t, "", args...)
		var got box
		if code != 0 || json.Unmarshal([]byte(out), &got) != nil || got != c.want {
			t.Errorf("%v: exit %d, %s %s; want %+v", args, code, out, stderr, c.want)
		}
	}
	out, _, code := run(t, "", "--db", db, "geo", "bounds", "--index", "p", "--where", "fleet=fj", "--output", "geojson")
	f, err := geojson.UnmarshalFeature([]byte(out))
	if code != 0 || err != nil || f.Geometry.GeoJSONType() != "MultiPolygon" {
		t.Fatalf("geojson: exit %d, %v, %s", code, err, out)
	}
	if b := f.Geometry.Bound(); b.Min[0] != -180 || b.Max[0] != 180 || b.Min[1] != -18.75 || b.Max[1] != -16 {
		t.Errorf("geojson bound %v", b)
	}
	if _, stderr, code := run(t, "", "--db", db, "geo", "bounds", "--index", "p", "--where", "fleet=none"); code != 1 || !strings.Contains(stderr, "no points") {
		t.Errorf("no points: exit %d, %q", code, stderr)
	}
}
