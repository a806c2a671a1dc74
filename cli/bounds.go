package cli

import (
	"fmt"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"
	ucli "github.com/urfave/cli/v2"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/geo"
)

// geoBoundsCommand is geo bounds: geo.Index.Bounds on the command line.
func geoBoundsCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "bounds",
		Usage:     "the smallest box holding an index's points (Tile38's BOUNDS), across ±180° when that is narrower: a map's view of them",
		UsageText: "keyspace geo bounds --index fleet\nkeyspace geo bounds --index cities --scope NZ --output geojson",
		Flags:     []ucli.Flag{indexFlag(), scopeFlag(), whereFlag(), whereInFlag(), matchFlag("points")},
		Action:    geoBounds,
	}
}

func geoBounds(c *ucli.Context) error {
	format, err := output(c, "table", "json", "geojson")
	if err != nil {
		return err
	}
	return viewPoints(c, func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) error {
		b, n, err := ix.Bounds(tx, o)
		if err != nil {
			return err
		}
		switch {
		case n == 0:
			return fmt.Errorf("no points in index %s match (no bounds)", ix.Name())
		case format == "json":
			return writeJSON(c.App.Writer, struct {
				MinLat float64 `json:"min_lat"`
				MinLon float64 `json:"min_lon"`
				MaxLat float64 `json:"max_lat"`
				MaxLon float64 `json:"max_lon"`
				Points int     `json:"points"`
			}{b.MinLat, b.MinLon, b.MaxLat, b.MaxLon, n})
		case format == "geojson":
			f := geojson.NewFeature(boxGeometry(b))
			f.Properties = geojson.Properties{"points": n, "min_lat": b.MinLat, "min_lon": b.MinLon, "max_lat": b.MaxLat, "max_lon": b.MaxLon}
			return writeJSON(c.App.Writer, f)
		}
		return writeListing(c.App.Writer, c.App.ErrWriter, format, "", []geo.Box{b}, "", "MIN LAT\tMIN LON\tMAX LAT\tMAX LON\tPOINTS", func(b geo.Box) string {
			crossing := ""
			if b.MinLon > b.MaxLon {
				crossing = " (across ±180°)"
			}
			return fmt.Sprintf("%s\t%s\t%s\t%s\t%d%s", degrees(b.MinLat), degrees(b.MinLon), degrees(b.MaxLat), degrees(b.MaxLon), n, crossing)
		})
	})
}

// boxGeometry is b as GeoJSON: a Polygon, or a MultiPolygon of its two
// halves when it crosses ±180°, cut there as RFC 7946 §3.1.9 asks.
func boxGeometry(b geo.Box) orb.Geometry {
	outline := func(west, east float64) orb.Polygon {
		return orb.Polygon{{{west, b.MinLat}, {east, b.MinLat}, {east, b.MaxLat}, {west, b.MaxLat}, {west, b.MinLat}}}
	}
	if b.MinLon > b.MaxLon {
		return orb.MultiPolygon{outline(b.MinLon, 180), outline(-180, b.MaxLon)}
	}
	return outline(b.MinLon, b.MaxLon)
}
