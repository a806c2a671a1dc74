package geo_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mmcloughlin/geohash"

	"github.com/keyspacedb/keyspace/geo"
)

// tileEdges is the oracle for a tile's box: the Web Mercator formulas,
// written out here rather than taken from the library TileBox uses.
func tileEdges(z, x, y int) geo.Box {
	n := math.Exp2(float64(z))
	lat := func(y int) float64 { return math.Atan(math.Sinh(math.Pi*(1-2*float64(y)/n))) * 180 / math.Pi }
	return geo.Box{
		MinLat: lat(y + 1), MaxLat: lat(y),
		MinLon: 360*float64(x)/n - 180, MaxLon: 360*float64(x+1)/n - 180,
	}
}

// tileAt is the tile at zoom z that holds (lat, lon), by the inverse
// formulas: x from the longitude, y from ln(tan φ + sec φ).
func tileAt(z int, lat, lon float64) (x, y int) {
	n := math.Exp2(float64(z))
	phi := lat * math.Pi / 180
	x = int(math.Floor((lon + 180) / 360 * n))
	y = int(math.Floor((1 - math.Log(math.Tan(phi)+1/math.Cos(phi))/math.Pi) / 2 * n))
	return min(x, int(n)-1), min(y, int(n)-1)
}

// quadkeyOf spells tile z/x/y as a quadkey: a digit a zoom level, x's
// bit plus twice y's bit, most significant first.
func quadkeyOf(z, x, y int) string {
	var b strings.Builder
	for i := z - 1; i >= 0; i-- {
		b.WriteByte(byte('0' + (x>>i)&1 + 2*((y>>i)&1)))
	}
	return b.String()
}

func near(a, b geo.Box, tol float64) bool {
	return math.Abs(a.MinLat-b.MinLat) <= tol && math.Abs(a.MaxLat-b.MaxLat) <= tol &&
		math.Abs(a.MinLon-b.MinLon) <= tol && math.Abs(a.MaxLon-b.MaxLon) <= tol
}

func inBox(b geo.Box, lat, lon float64) bool {
	return b.MinLat <= lat && lat <= b.MaxLat && b.MinLon <= lon && lon <= b.MaxLon
}

func TestTileAndQuadkeyBoxes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 3000; i++ {
		z := rng.IntN(geo.MaxTileZoom + 1)
		n := 1 << z
		x, y := rng.IntN(n), rng.IntN(n)
		switch i % 4 { // the corners and edges of the map too
		case 0:
			x, y = 0, 0
		case 1:
			x, y = n-1, n-1
		}
		b, err := geo.TileBox(z, x, y)
		if err != nil {
			t.Fatalf("TileBox(%d, %d, %d): %v", z, x, y, err)
		}
		if want := tileEdges(z, x, y); !near(b, want, 1e-9) {
			t.Fatalf("TileBox(%d, %d, %d) = %+v, the formulas give %+v", z, x, y, b, want)
		}
		if z > 0 {
			q := quadkeyOf(z, x, y)
			qb, err := geo.QuadkeyBox(q)
			if err != nil || qb != b {
				t.Fatalf("QuadkeyBox(%q) = %+v, %v; TileBox(%d, %d, %d) = %+v", q, qb, err, z, x, y, b)
			}
		}
		// The four tiles below it share its edges and meet on its
		// middle lines exactly, so a point on no edge is in one of them.
		if z < geo.MaxTileZoom {
			var kids [4]geo.Box
			for d := range kids {
				kids[d], err = geo.TileBox(z+1, 2*x+d&1, 2*y+d>>1)
				if err != nil {
					t.Fatal(err)
				}
			}
			if kids[0].MaxLat != b.MaxLat || kids[0].MinLon != b.MinLon || kids[3].MinLat != b.MinLat || kids[3].MaxLon != b.MaxLon ||
				kids[0].MaxLon != kids[1].MinLon || kids[0].MinLat != kids[2].MaxLat || kids[2].MaxLon != kids[3].MinLon || kids[1].MinLat != kids[3].MaxLat {
				t.Fatalf("tile %d/%d/%d %+v: its children do not tile it: %+v", z, x, y, b, kids)
			}
		}
	}
	// A point within the Web Mercator square is in the tile the inverse
	// formulas put it in.
	limit := math.Atan(math.Sinh(math.Pi)) * 180 / math.Pi
	for i := 0; i < 3000; i++ {
		lat, lon := (rng.Float64()*2-1)*limit*0.999999, rng.Float64()*360-180
		z := rng.IntN(25)
		x, y := tileAt(z, lat, lon)
		b, err := geo.TileBox(z, x, y)
		if err != nil || !inBox(b, lat, lon) {
			t.Fatalf("(%v, %v) at zoom %d: tile %d/%d/%d, box %+v, %v", lat, lon, z, z, x, y, b, err)
		}
	}
	if b, _ := geo.TileBox(0, 0, 0); math.Abs(b.MaxLat-limit) > 1e-12 || b.MinLat != -b.MaxLat || b.MinLon != -180 || b.MaxLon != 180 {
		t.Errorf("tile 0/0/0 = %+v, want the whole Web Mercator square, latitudes to ±%v", b, limit)
	}
}

// hashCell is the oracle for a geohash's box: its bits halve longitude
// and latitude in turn, longitude first.
func hashCell(hash string) geo.Box {
	b := geo.Box{MinLat: -90, MaxLat: 90, MinLon: -180, MaxLon: 180}
	even := true
	for _, c := range hash {
		v := strings.IndexRune("0123456789bcdefghjkmnpqrstuvwxyz", c)
		for bit := 4; bit >= 0; bit-- {
			on := v>>bit&1 == 1
			if even {
				mid := (b.MinLon + b.MaxLon) / 2
				if on {
					b.MinLon = mid
				} else {
					b.MaxLon = mid
				}
			} else {
				mid := (b.MinLat + b.MaxLat) / 2
				if on {
					b.MinLat = mid
				} else {
					b.MaxLat = mid
				}
			}
			even = !even
		}
	}
	return b
}

func TestHashBox(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 3000; i++ {
		lat, lon := rng.Float64()*180-90, rng.Float64()*360-180
		n := 1 + rng.IntN(geo.MaxCellPrecision)
		h := geohash.EncodeWithPrecision(lat, lon, uint(n))
		b, err := geo.HashBox(h)
		if err != nil {
			t.Fatalf("HashBox(%q): %v", h, err)
		}
		if want := hashCell(h); !near(b, want, 1e-12) || !inBox(b, lat, lon) {
			t.Fatalf("HashBox(%q) = %+v: bisection gives %+v, and the point (%v, %v) it was made from", h, b, want, lat, lon)
		}
		if up, err := geo.HashBox(strings.ToUpper(h)); err != nil || up != b {
			t.Fatalf("HashBox(%q) = %+v, %v; in lower case %+v", strings.ToUpper(h), up, err, b)
		}
	}
}

func TestAreaNamesRefused(t *testing.T) {
	for _, c := range []struct {
		name string
		area func() (geo.Box, error)
		says string
	}{
		{"zoom below 0", func() (geo.Box, error) { return geo.TileBox(-1, 0, 0) }, "zoom -1 is outside 0 to 30"},
		{"zoom past the deepest", func() (geo.Box, error) { return geo.TileBox(31, 0, 0) }, "zoom 31"},
		{"x past the zoom's tiles", func() (geo.Box, error) { return geo.TileBox(3, 8, 0) }, "tile 3/8/0: zoom 3 has tiles 0 to 7"},
		{"y below 0", func() (geo.Box, error) { return geo.TileBox(3, 0, -1) }, "tile 3/0/-1"},
		{"empty quadkey", func() (geo.Box, error) { return geo.QuadkeyBox("") }, `quadkey "": want 1 to 30 digits`},
		{"quadkey digit 4", func() (geo.Box, error) { return geo.QuadkeyBox("0124") }, `'4' at 4 is not a digit 0 to 3`},
		{"quadkey too long", func() (geo.Box, error) { return geo.QuadkeyBox(strings.Repeat("1", 31)) }, "want 1 to 30 digits"},
		{"quadkey not ASCII", func() (geo.Box, error) { return geo.QuadkeyBox("0é1") }, `'é' at 2`},
		{"empty geohash", func() (geo.Box, error) { return geo.HashBox("") }, "want 1 to 12 characters"},
		{"geohash too long", func() (geo.Box, error) { return geo.HashBox("9q8yyk8yuv1zz") }, "want 1 to 12 characters"},
		{"geohash with an a", func() (geo.Box, error) { return geo.HashBox("9qa") }, `'a' at 3 is not a geohash character`},
		{"geohash with an o", func() (geo.Box, error) { return geo.HashBox("O") }, `'O' at 1`},
		{"geohash not ASCII", func() (geo.Box, error) { return geo.HashBox("9İ") }, `'İ' at 2`},
	} {
		_, err := c.area()
		if !errors.Is(err, geo.ErrBadQuery) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %v, want geo.ErrBadQuery saying %q", c.name, err, c.says)
		}
	}
}

// FuzzAreaNames holds any text to QuadkeyBox and HashBox: refused with
// ErrBadQuery, or the box of the very tile or cell the text names, found
// again from the box's centre by the inverse formulas and geohash.Encode.
func FuzzAreaNames(f *testing.F) {
	for _, s := range []string{"0", "3", "0231", "9q8yy", "DR5R", "s", "zzzzzzzzzzzz", "pbpbpbpbpbpb", "a", "", "\x00", "İ", strings.Repeat("3", 30)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if b, err := geo.QuadkeyBox(s); err != nil {
			if !errors.Is(err, geo.ErrBadQuery) {
				t.Fatalf("QuadkeyBox(%q): %v, not ErrBadQuery", s, err)
			}
		} else {
			lat, lon := (b.MinLat+b.MaxLat)/2, (b.MinLon+b.MaxLon)/2
			if x, y := tileAt(len(s), lat, lon); quadkeyOf(len(s), x, y) != s {
				t.Fatalf("QuadkeyBox(%q) = %+v, whose centre is in tile %d/%d/%d, quadkey %q", s, b, len(s), x, y, quadkeyOf(len(s), x, y))
			}
		}
		if b, err := geo.HashBox(s); err != nil {
			if !errors.Is(err, geo.ErrBadQuery) {
				t.Fatalf("HashBox(%q): %v, not ErrBadQuery", s, err)
			}
		} else {
			lat, lon := (b.MinLat+b.MaxLat)/2, (b.MinLon+b.MaxLon)/2
			if h := geohash.EncodeWithPrecision(lat, lon, uint(len(s))); h != strings.ToLower(s) {
				t.Fatalf("HashBox(%q) = %+v, whose centre's geohash is %q", s, b, h)
			}
		}
	})
}

func ExampleTileBox() {
	// The OpenStreetMap tile 12/655/1583 holds central San Francisco.
	b, err := geo.TileBox(12, 655, 1583)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.4f %.4f %.4f %.4f\n", b.MinLat, b.MinLon, b.MaxLat, b.MaxLon)
	_, err = geo.TileBox(12, 4096, 0)
	fmt.Println(err)
	// Output:
	// 37.7186 -122.4316 37.7881 -122.3438
	// geo: invalid query: tile 12/4096/0: zoom 12 has tiles 0 to 4095 across and down
}
