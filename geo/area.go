package geo

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/mmcloughlin/geohash"
	"github.com/paulmach/orb/maptile"
)

// Areas named the way maps and other tools name them: a web map's tile
// (z/x/y), a Bing Maps quadkey and a geohash cell. Each is a Box, edges
// included as in every Box query, so Box, CellCounts and a box Fence take
// them, as Tile38's WITHIN and INTERSECTS take TILE, QUADKEY and HASH. A
// point on the edge two areas share is in both.

// MaxTileZoom is the deepest zoom TileBox and QuadkeyBox take: 2^30 tiles
// across, each about 4 cm wide at the equator.
const MaxTileZoom = 30

// TileBox returns the box of the web map tile z/x/y (the XYZ or "slippy
// map" scheme of OpenStreetMap and Google Maps: 2^z × 2^z tiles of the
// Web Mercator projection, x from 180° W eastwards, y from the north
// edge southwards).
//
// The Web Mercator square runs from latitude −L to L, where
// L = atan(sinh π) ≈ 85.0511°; a tile's edges are at longitude
// 360°·x/2^z − 180° and latitude atan(sinh(π·(1 − 2y/2^z))). So no tile
// holds a point nearer a pole than L, as no web map shows one.
func TileBox(z, x, y int) (Box, error) {
	if z < 0 || z > MaxTileZoom {
		return Box{}, fmt.Errorf("%w: tile %d/%d/%d: zoom %d is outside 0 to %d", ErrBadQuery, z, x, y, z, MaxTileZoom)
	}
	n := 1 << z
	if x < 0 || x >= n || y < 0 || y >= n {
		return Box{}, fmt.Errorf("%w: tile %d/%d/%d: zoom %d has tiles 0 to %d across and down", ErrBadQuery, z, x, y, z, n-1)
	}
	return tileBox(maptile.New(uint32(x), uint32(y), maptile.Zoom(z))), nil
}

// QuadkeyBox returns the box of the Bing Maps tile quadkey names: one
// digit a zoom level, most significant first, each 0 (north-west),
// 1 (north-east), 2 (south-west) or 3 (south-east) of the tile above it.
// "" would be the whole map and is refused, as a key no tool writes.
func QuadkeyBox(quadkey string) (Box, error) {
	if quadkey == "" || len(quadkey) > MaxTileZoom {
		return Box{}, fmt.Errorf("%w: quadkey %q: want 1 to %d digits", ErrBadQuery, quadkey, MaxTileZoom)
	}
	var k uint64
	for i := 0; i < len(quadkey); i++ {
		d := quadkey[i] - '0'
		if d > 3 {
			return Box{}, fmt.Errorf("%w: quadkey %q: %q at %d is not a digit 0 to 3", ErrBadQuery, quadkey, charAt(quadkey, i), utf8.RuneCountInString(quadkey[:i])+1)
		}
		k = k<<2 | uint64(d)
	}
	return tileBox(maptile.FromQuadkey(k, maptile.Zoom(len(quadkey)))), nil
}

func tileBox(t maptile.Tile) Box {
	b := t.Bound()
	return Box{MinLat: b.Min.Lat(), MinLon: b.Min.Lon(), MaxLat: b.Max.Lat(), MaxLon: b.Max.Lon()}
}

// hashAlphabet is the geohash base-32 alphabet: the digits and the
// letters but a, i, l and o.
const hashAlphabet = "0123456789bcdefghjkmnpqrstuvwxyz"

// HashBox returns the box of the geohash cell hash names (1 to 12
// characters, either case: 9q8yy, as geo hash and geohash.org write
// them). The cell's own points are those whose hash begins with it; the
// box holds those and any on its north and east edges.
func HashBox(hash string) (Box, error) {
	if hash == "" || len(hash) > MaxCellPrecision {
		return Box{}, fmt.Errorf("%w: geohash %q: want 1 to %d characters", ErrBadQuery, hash, MaxCellPrecision)
	}
	lower := make([]byte, len(hash))
	for i := 0; i < len(hash); i++ {
		c := hash[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		// geohash.BoundingBox reads a character outside the alphabet as
		// some other cell without a word: check first.
		if strings.IndexByte(hashAlphabet, c) < 0 {
			return Box{}, fmt.Errorf("%w: geohash %q: %q at %d is not a geohash character (0-9 and b-z but i, l, o)", ErrBadQuery, hash, charAt(hash, i), utf8.RuneCountInString(hash[:i])+1)
		}
		lower[i] = c
	}
	b := geohash.BoundingBox(string(lower))
	return Box{MinLat: b.MinLat, MinLon: b.MinLng, MaxLat: b.MaxLat, MaxLon: b.MaxLng}, nil
}

// Geohash returns the geohash of a point, chars characters long (1 to
// MaxCellPrecision): the cell of that precision that holds it, as Redis's
// GEOHASH (11 characters) and geohash.org write it, and HashBox reads it.
// A point on a cell's south or west edge is in that cell, as the standard
// bisection puts it; latitude 90 is in the northernmost row, and
// longitude 180 in the easternmost column (github.com/mmcloughlin/geohash
// alone would put them at −90 and −180: its scaling of the range to 32
// bits overflows there), and a point within a rounding error of an edge
// is on its own side of it (encode).
func Geohash(lat, lon float64, chars int) (string, error) {
	if err := validate(lat, lon); err != nil {
		return "", err
	}
	if chars < 1 || chars > MaxCellPrecision {
		return "", fmt.Errorf("%w: geohash of %d characters: want 1 to %d", ErrBadQuery, chars, MaxCellPrecision)
	}
	bits := uint(5 * chars)
	return geohash.ConvertIntToString(encode(lat, lon)>>(MaxBits-bits), uint(chars)), nil
}

// charAt is the character that begins at byte i of s, for an error.
func charAt(s string, i int) rune {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r
}
