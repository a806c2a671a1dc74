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
