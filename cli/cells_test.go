package cli_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mmcloughlin/geohash"
	"github.com/paulmach/orb/geojson"
)

// TestGeoCells: geo cells over random points (some at the poles and
// either side of ±180°) gives, for the whole Earth and for boxes that
// cross ±180°, at several precisions, the cells and counts a pass over
// the CSV gives with geohash.EncodeWithPrecision, with the points' mean
// positions; --output geojson writes each cell's rectangle with its count;
// bad precisions and half a box are usage errors.
func TestGeoCells(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	r := rand.New(rand.NewPCG(5, 6))
	type pt struct{ lat, lon float64 }
	var pts []pt
	var csv strings.Builder
	csv.WriteString("id,lat,lon,kind\n")
	for i := range 600 {
		p := pt{r.Float64()*120 - 60, r.Float64()*40 - 20}
		switch i % 5 {
		case 0:
			p = pt{89 + r.Float64(), r.Float64()*359.98 - 179.99}
		case 1:
			p = pt{r.Float64()*10 - 5, 178 + r.Float64()*1.99}
		case 2:
			p.lon = -178 - r.Float64()*1.99
		}
		pts = append(pts, p)
		fmt.Fprintf(&csv, "p%d,%v,%v,%d\n", i, p.lat, p.lon, i%2)
	}
	if _, stderr, code := run(t, csv.String(), "--db", db, "geo", "import", "--index", "p", "-"); code != 0 {
		t.Fatal(stderr)
	}
	type cell struct {
		Geohash  string
		Count    int
		Lat, Lon float64
	}
	for _, q := range []struct {
		box       []string // --min-lat --min-lon --max-lat --max-lon, or none
		precision int
		where     string // kind=0, or ""
	}{
		{nil, 1, ""}, {nil, 3, ""}, {nil, 2, "kind=1"},
		{[]string{"-10", "170", "10", "-170"}, 3, ""}, // across ±180°
		{[]string{"80", "-180", "90", "180"}, 2, ""},  // the north polar cap
		{[]string{"-30", "-10", "30", "10"}, 4, "kind=0"},
	} {
		args := []string{"--db", db, "geo", "cells", "--index", "p", "--precision", fmt.Sprint(q.precision), "--output", "json"}
		in := func(p pt) bool { return true }
		if q.box != nil {
			var b [4]float64
			for i, s := range q.box {
				fmt.Sscan(s, &b[i])
			}
			args = append(args, "--min-lat", q.box[0], "--min-lon", q.box[1], "--max-lat", q.box[2], "--max-lon", q.box[3])
			in = func(p pt) bool {
				lonIn := p.lon >= b[1] && p.lon <= b[3]
				if b[1] > b[3] {
					lonIn = p.lon >= b[1] || p.lon <= b[3]
				}
				return p.lat >= b[0] && p.lat <= b[2] && lonIn
			}
		}
		if q.where != "" {
			args = append(args, "--where", q.where)
		}
		want := map[string]*cell{}
		for i, p := range pts {
			if !in(p) || q.where != "" && q.where != fmt.Sprint("kind=", i%2) {
				continue
			}
			h := geohash.EncodeWithPrecision(p.lat, p.lon, uint(q.precision))
			if want[h] == nil {
				want[h] = &cell{Geohash: h}
			}
			want[h].Count++
			want[h].Lat += p.lat
			want[h].Lon += p.lon
		}
		out, stderr, code := run(t, "", args...)
		if code != 0 {
			t.Fatalf("%v: %s", args, stderr)
		}
		var doc struct{ Cells []cell }
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if len(doc.Cells) != len(want) || len(want) == 0 {
			t.Fatalf("%v: %d cells; the CSV gives %d", args, len(doc.Cells), len(want))
		}
		for _, c := range doc.Cells {
			w := want[c.Geohash]
			if w == nil || c.Count != w.Count || math.Abs(c.Lat-w.Lat/float64(w.Count)) > 1e-9 || math.Abs(c.Lon-w.Lon/float64(w.Count)) > 1e-9 {
				t.Fatalf("%v: cell %+v; the CSV gives %+v", args, c, w)
			}
		}
	}
	out, stderr, code := run(t, "", "--db", db, "geo", "cells", "--index", "p", "--precision", "2", "--output", "geojson")
	fc, err := geojson.UnmarshalFeatureCollection([]byte(out))
	if code != 0 || err != nil || len(fc.Features) == 0 {
		t.Fatalf("geojson: exit %d, %v, %s", code, err, stderr)
	}
	total := 0
	for _, f := range fc.Features {
		h := f.Properties.MustString("geohash")
		bb := geohash.BoundingBox(h)
		if b := f.Geometry.Bound(); b.Min[0] != bb.MinLng || b.Min[1] != bb.MinLat || b.Max[0] != bb.MaxLng || b.Max[1] != bb.MaxLat {
			t.Errorf("cell %s: polygon %v, geohash box %+v", h, b, bb)
		}
		total += int(f.Properties.MustFloat64("count"))
	}
	if total != len(pts) {
		t.Errorf("geojson cells count %d points of %d", total, len(pts))
	}
	for _, bad := range [][]string{{"--precision", "0"}, {"--precision", "13"}, {"--min-lat", "1"}} {
		if _, stderr, code := run(t, "", append([]string{"--db", db, "geo", "cells", "--index", "p"}, bad...)...); code != 2 {
			t.Errorf("%v: exit %d, %q; want a usage error", bad, code, stderr)
		}
	}
}

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
