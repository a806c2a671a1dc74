package cli

import (
	"fmt"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"
	ucli "github.com/urfave/cli/v2"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/geo"
)

// geoCellsCommand is geo cells: geo.Index.CellCounts on the command line.
func geoCellsCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "cells",
		Usage: "points counted by geohash cell, with their mean position (Elasticsearch's geohash_grid): a map's marker clusters, or a heat map with --output geojson; in a box, or everywhere",
		UsageText: "keyspace geo cells --index cities --precision 2\n" +
			"keyspace geo cells --index cities --precision 5 --min-lat 37.7 --min-lon -122.5 --max-lat 37.8 --max-lon -122.3 --output geojson",
		Flags: []ucli.Flag{indexFlag(), scopeFlag(), whereFlag(), matchFlag("points"),
			&ucli.IntFlag{Name: "precision", Aliases: []string{"p"}, Value: 3, Usage: fmt.Sprintf("geohash `CHARS`, 1 to %d: 1 is cells of 45° × 45°, 3 of 1.4° × 1.4°, 5 of about 5 × 5 km, 7 of about 150 × 150 m", geo.MaxCellPrecision)},
			&ucli.Float64Flag{Name: "min-lat", Usage: "the box's southern edge, degrees", DefaultText: "-90"},
			&ucli.Float64Flag{Name: "min-lon", Usage: "its western edge (east of --max-lon to cross ±180°)", DefaultText: "-180"},
			&ucli.Float64Flag{Name: "max-lat", Usage: "its northern edge", DefaultText: "90"},
			&ucli.Float64Flag{Name: "max-lon", Usage: "its eastern edge", DefaultText: "180"},
		},
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
	b := geo.Box{MinLat: -90, MinLon: -180, MaxLat: 90, MaxLon: 180}
	if set := countSet(c, "min-lat", "min-lon", "max-lat", "max-lon"); set > 0 {
		if set < 4 {
			return usagef("geo cells: give all of --min-lat --min-lon --max-lat --max-lon, or none (everywhere)")
		}
		b = geo.Box{MinLat: c.Float64("min-lat"), MinLon: c.Float64("min-lon"), MaxLat: c.Float64("max-lat"), MaxLon: c.Float64("max-lon")}
	}
	precision := c.Int("precision")
	if precision < 1 || precision > geo.MaxCellPrecision {
		return usagef("--precision %d: want 1 to %d geohash characters", precision, geo.MaxCellPrecision)
	}
	scope, err := parseScope(c.String("scope"))
	if err != nil {
		return err
	}
	conds, err := parseWhere(c)
	if err != nil {
		return err
	}
	s, err := openRead(c)
	if err != nil {
		return err
	}
	defer s.Close()
	ix := geo.NewIndex(c.String("index"))
	return s.ViewContext(c.Context, func(tx keyspace.Tx) error {
		if err := requireIndex(ix, tx); err != nil {
			return err
		}
		matches, _ := idMatcher(c)
		cells, st, err := ix.CellCounts(tx, b, precision, &geo.QueryOptions{Scope: scope, Filter: pointFilter(conds, matches)})
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
			return fmt.Sprintf("%s\t%d\t%.6f\t%.6f", cell.Geohash, cell.Count, cell.Lat, cell.Lon)
		})
		if err == nil && format == "table" {
			_, err = fmt.Fprintf(c.App.Writer, "%s holding %s; %s, %s read\n", count(len(cells), "cell"), count(st.Results, "point"), count(st.Ranges, "range"), count(st.Candidates, "candidate"))
		}
		return err
	})
}

// countSet is how many of the named flags are set.
func countSet(c *ucli.Context, names ...string) int {
	n := 0
	for _, name := range names {
		if c.IsSet(name) {
			n++
		}
	}
	return n
}

// geoBoundsCommand is geo bounds: geo.Index.Bounds on the command line.
func geoBoundsCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "bounds",
		Usage:     "the smallest box holding an index's points (Tile38's BOUNDS), across ±180° when that is narrower: a map's view of them",
		UsageText: "keyspace geo bounds --index fleet\nkeyspace geo bounds --index cities --scope NZ --output geojson",
		Flags:     []ucli.Flag{indexFlag(), scopeFlag(), whereFlag(), matchFlag("points")},
		Action:    geoBounds,
	}
}

func geoBounds(c *ucli.Context) error {
	format, err := output(c, "table", "json", "geojson")
	if err != nil {
		return err
	}
	scope, err := parseScope(c.String("scope"))
	if err != nil {
		return err
	}
	conds, err := parseWhere(c)
	if err != nil {
		return err
	}
	s, err := openRead(c)
	if err != nil {
		return err
	}
	defer s.Close()
	ix := geo.NewIndex(c.String("index"))
	return s.ViewContext(c.Context, func(tx keyspace.Tx) error {
		if err := requireIndex(ix, tx); err != nil {
			return err
		}
		matches, _ := idMatcher(c)
		b, n, err := ix.Bounds(tx, &geo.QueryOptions{Scope: scope, Filter: pointFilter(conds, matches)})
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
		crossing := ""
		if b.MinLon > b.MaxLon {
			crossing = " (across ±180°)"
		}
		_, err = fmt.Fprintf(c.App.Writer, "MIN LAT     MIN LON      MAX LAT     MAX LON      POINTS\n%-11.6f %-12.6f %-11.6f %-12.6f %d%s\n", b.MinLat, b.MinLon, b.MaxLat, b.MaxLon, n, crossing)
		return err
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
