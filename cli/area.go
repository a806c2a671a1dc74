package cli

import (
	"fmt"
	"strconv"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/keyspacedb/keyspace/geo"
)

// areaFlags name a box as maps and other tools name areas, as Tile38's
// TILE, QUADKEY and HASH do: geo box, geo cells, fence put and fence
// intersecting take them beside --min-lat … --max-lon (areaBox reads
// them).
func areaFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: "tile", Usage: "the box of the web map tile `Z/X/Y` (OpenStreetMap's and Google's scheme: 12/655/1583; Web Mercator's, so latitudes to ±85.0511° only)"},
		&ucli.StringFlag{Name: "quadkey", Usage: "the box of the Bing Maps tile `QUADKEY` (a digit 0-3 a zoom level: 023010)"},
		&ucli.StringFlag{Name: "hash", Usage: "the box of the geohash cell `GEOHASH` (9q8yy, as geo hash writes them)"},
	}
}

// areaBox is the box --tile, --quadkey or --hash names, and whether one
// of them is given; two of them are a usage error.
func areaBox(c *ucli.Context) (geo.Box, bool, error) {
	var named []string
	for _, f := range []string{"tile", "quadkey", "hash"} {
		if c.IsSet(f) {
			named = append(named, "--"+f)
		}
	}
	switch len(named) {
	case 0:
		return geo.Box{}, false, nil
	case 1:
	default:
		return geo.Box{}, true, usagef("%s name one area each: give one", strings.Join(named, " and "))
	}
	var b geo.Box
	var err error
	switch {
	case c.IsSet("tile"):
		z, x, y, perr := parseTile(c.String("tile"))
		if perr != nil {
			return geo.Box{}, true, usageError{fmt.Errorf("--tile: %w", perr)}
		}
		b, err = geo.TileBox(z, x, y)
	case c.IsSet("quadkey"):
		b, err = geo.QuadkeyBox(c.String("quadkey"))
	default:
		b, err = geo.HashBox(c.String("hash"))
	}
	if err != nil {
		return geo.Box{}, true, usageError{fmt.Errorf("%s: %w", named[0], err)}
	}
	return b, true, nil
}

// parseTile reads a tile's Z/X/Y, as a tile's URL spells it.
func parseTile(s string) (z, x, y int, err error) {
	parts := strings.Split(s, "/")
	if len(parts) == 3 {
		var n [3]int
		for i, p := range parts {
			if n[i], err = strconv.Atoi(strings.TrimSpace(p)); err != nil {
				break
			}
		}
		if err == nil {
			return n[0], n[1], n[2], nil
		}
	}
	return 0, 0, 0, fmt.Errorf("%q: want the tile's zoom, x and y as Z/X/Y, such as 12/655/1583", s)
}
