package cli

import (
	"fmt"

	"github.com/paulmach/orb/geojson"
	ucli "github.com/urfave/cli/v2"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/geo"
)

// geoCellsCommand is geo cells: geo.Index.CellCounts on the command line.
func geoCellsCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "cells",
		Usage: "points counted by geohash cell, with their mean position (Elasticsearch's geohash_grid): a map's marker clusters, or a heat map with --output geojson; in a box, a map tile (--tile, --quadkey) or a geohash cell (--hash), or everywhere",
		UsageText: "keyspace geo cells --index cities --precision 2\n" +
			"keyspace geo cells --index cities --precision 5 --min-lat 37.7 --min-lon -122.5 --max-lat 37.8 --max-lon -122.3 --output geojson\n" +
			"keyspace geo cells --index cities --precision 6 --tile 12/655/1583 --output geojson",
		Flags: append([]ucli.Flag{indexFlag(), scopeFlag(), whereFlag(), whereInFlag(), matchFlag("points"),
			&ucli.IntFlag{Name: "precision", Aliases: []string{"p"}, Value: 3, Usage: fmt.Sprintf("geohash `CHARS`, 1 to %d: 1 is cells of 45° × 45°, 3 of 1.4° × 1.4°, 5 of about 5 × 5 km, 7 of about 150 × 150 m", geo.MaxCellPrecision)},
			&ucli.Float64Flag{Name: "min-lat", Usage: "the box's southern edge, degrees", DefaultText: "-90"},
			&ucli.Float64Flag{Name: "min-lon", Usage: "its western edge (east of --max-lon to cross ±180°)", DefaultText: "-180"},
			&ucli.Float64Flag{Name: "max-lat", Usage: "its northern edge", DefaultText: "90"},
			&ucli.Float64Flag{Name: "max-lon", Usage: "its eastern edge", DefaultText: "180"},
		}, areaFlags()...),
		Action: geoCells,
	}
}

// jsonCell is a geo.CellCount as --output json and ndjson write it.
type jsonCell struct {
	Geohash string  `json:"geohash"`
	Count   int     `json:"count"`
	Lat     float64 `json:"lat"` // the mean of the cell's points
	Lon     float64 `json:"lon"`
}

func geoCells(c *ucli.Context) error {
	format, err := output(c, "table", "json", "ndjson", "geojson")
	if err != nil {
		return err
	}
	b, given, err := cornerBox(c)
	switch {
	case err != nil:
		return err
	case !given:
		b = geo.Box{MinLat: -90, MinLon: -180, MaxLat: 90, MaxLon: 180} // everywhere
	}
	precision := c.Int("precision")
	if precision < 1 || precision > geo.MaxCellPrecision {
		return usagef("--precision %d: want 1 to %d geohash characters", precision, geo.MaxCellPrecision)
	}
	return viewPoints(c, func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) error {
		cells, st, err := ix.CellCounts(tx, b, precision, o)
		if err != nil {
			return err
		}
		if format == "geojson" {
			fc := geojson.NewFeatureCollection()
			for _, cell := range cells {
				f := geojson.NewFeature(boxGeometry(cell.Bounds))
				f.ID = cell.Hash
				f.Properties = geojson.Properties{"geohash": cell.Hash, "count": cell.Count, "lat": cell.Lat, "lon": cell.Lon}
				fc.Append(f)
			}
			return writeJSON(c.App.Writer, fc)
		}
		out := make([]jsonCell, len(cells))
		for i, cell := range cells {
			out[i] = jsonCell{cell.Hash, cell.Count, cell.Lat, cell.Lon}
		}
		if format == "json" {
			return writeJSON(c.App.Writer, struct {
				Cells []jsonCell `json:"cells"`
				Stats jsonStats  `json:"stats"`
			}{out, jsonStats(st)})
		}
		err = writeListing(c.App.Writer, c.App.ErrWriter, format, "cells", out, "", "GEOHASH\tCOUNT\tLAT\tLON", func(cell jsonCell) string {
			return fmt.Sprintf("%s\t%d\t%s\t%s", cell.Geohash, cell.Count, degrees(cell.Lat), degrees(cell.Lon))
		})
		if err == nil && format == "table" {
			_, err = fmt.Fprintf(c.App.Writer, "%s holding %s; %s, %s read\n", count(len(cells), "cell"), count(st.Results, "point"), count(st.Ranges, "range"), count(st.Candidates, "candidate"))
		}
		return err
	})
}
