package cli

import (
	"errors"
	"fmt"
	"os"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/geo"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"
	ucli "github.com/urfave/cli/v2"
)

func indexFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "index", Aliases: []string{"i"}, Required: true, Usage: "the geo index `NAME`"}
}

func scopeFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "scope", Usage: "the scope points were imported under, e.g. `US:CA`"}
}

// explainFlags are on every geo query.
func explainFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.BoolFlag{Name: "explain", Usage: "print the covering (cells and key ranges) to stderr"},
		&ucli.StringFlag{Name: "svg", Usage: "draw the query, its cells, results and rejected candidates into `FILE`"},
	}
}

func centreFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.Float64Flag{Name: "lat", Required: true, Usage: "centre latitude, degrees"},
		&ucli.Float64Flag{Name: "lon", Required: true, Usage: "centre longitude, degrees"},
	}
}

func geoCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "geo",
		Usage: "geohash proximity search: import points, then near, knn, box, within",
		Subcommands: []*ucli.Command{
			geoImportCommand(),
			{
				Name:      "near",
				Usage:     "points within a radius, nearest first",
				UsageText: "keyspace geo near --index cities --lat 37.7749 --lon -122.4194 --radius 2km --limit 10",
				Flags: append([]ucli.Flag{indexFlag(), scopeFlag(),
					&ucli.StringFlag{Name: "radius", Aliases: []string{"r"}, Required: true, Usage: "`DISTANCE`: 500m, 2km, 1.5mi, 300ft; bare numbers are metres"},
					&ucli.IntFlag{Name: "limit", Aliases: []string{"n"}, Usage: "at most `N` results"},
				}, append(centreFlags(), explainFlags()...)...),
				Action: func(c *ucli.Context) error {
					radius, err := parseDistance(c.String("radius"))
					if err != nil {
						return usageError{err}
					}
					return geoQuery(c, circleShape(c.Float64("lat"), c.Float64("lon"), radius), func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) ([]geo.Result, geo.Stats, error) {
						return ix.Radius(tx, c.Float64("lat"), c.Float64("lon"), radius, o)
					})
				},
			},
			{
				Name:      "knn",
				Usage:     "the k nearest points, exactly, with no radius",
				UsageText: "keyspace geo knn --index cities --lat 48.8566 --lon 2.3522 --k 5",
				Flags: append([]ucli.Flag{indexFlag(), scopeFlag(),
					&ucli.IntFlag{Name: "k", Value: 10, Usage: "how many neighbours"},
				}, append(centreFlags(), explainFlags()...)...),
				Action: func(c *ucli.Context) error {
					return geoQuery(c, nil, func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) ([]geo.Result, geo.Stats, error) {
						return ix.Nearest(tx, c.Float64("lat"), c.Float64("lon"), c.Int("k"), o)
					})
				},
			},
			{
				Name:  "box",
				Usage: "points in a latitude/longitude box (min/max, may cross ±180), or width × height around a centre like Redis BYBOX",
				UsageText: "keyspace geo box --index cities --min-lat 37.7 --min-lon -122.5 --max-lat 37.8 --max-lon -122.3\n" +
					"keyspace geo box --index cities --lat 37.77 --lon -122.42 --width 4km --height 2km",
				Flags: append([]ucli.Flag{indexFlag(), scopeFlag(),
					&ucli.Float64Flag{Name: "min-lat"}, &ucli.Float64Flag{Name: "min-lon"},
					&ucli.Float64Flag{Name: "max-lat"}, &ucli.Float64Flag{Name: "max-lon"},
					&ucli.Float64Flag{Name: "lat"}, &ucli.Float64Flag{Name: "lon"},
					&ucli.StringFlag{Name: "width", Usage: "`DISTANCE` east-west"}, &ucli.StringFlag{Name: "height", Usage: "`DISTANCE` north-south"},
					&ucli.IntFlag{Name: "limit", Aliases: []string{"n"}, Usage: "at most `N` results"},
				}, explainFlags()...),
				Action: geoBox,
			},
			{
				Name:      "within",
				Usage:     "points inside a GeoJSON Polygon or MultiPolygon (a geometry, Feature or FeatureCollection)",
				UsageText: "keyspace geo within --index cities --polygon bay-area.geojson",
				Flags: append([]ucli.Flag{indexFlag(), scopeFlag(),
					&ucli.StringFlag{Name: "polygon", Required: true, Usage: "GeoJSON `FILE`"},
					&ucli.IntFlag{Name: "limit", Aliases: []string{"n"}, Usage: "at most `N` results"},
				}, explainFlags()...),
				Action: func(c *ucli.Context) error {
					poly, err := readPolygon(c.String("polygon"))
					if err != nil {
						return err
					}
					return geoQuery(c, polygonShape(poly), func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) ([]geo.Result, geo.Stats, error) {
						return ix.Within(tx, poly, o)
					})
				},
			},
			{
				Name:      "get",
				Usage:     "one point by id",
				UsageText: "keyspace geo get --index cities 5128581",
				ArgsUsage: "ID",
				Flags:     []ucli.Flag{indexFlag()},
				Action: func(c *ucli.Context) error {
					if c.NArg() != 1 {
						return usagef("geo get wants one ID")
					}
					format, err := output(c, "table", "json", "ndjson", "geojson")
					if err != nil {
						return err
					}
					return viewDB(c, func(tx keyspace.Tx) error {
						p, err := geo.NewIndex(c.String("index")).Get(tx, c.Args().First())
						if errors.Is(err, keyspace.ErrNotFound) {
							return fmt.Errorf("no point %q in index %s", c.Args().First(), c.String("index"))
						}
						if err != nil {
							return err
						}
						return writeResults(c.App.Writer, format, []geo.Result{{Point: p}}, geo.Stats{Results: 1}, false)
					})
				},
			},
			{
				Name:      "put",
				Usage:     "add or move one point",
				UsageText: `keyspace geo put --index fleet --lat 37.77 --lon -122.42 --payload '{"driver":"ann"}' car-7`,
				ArgsUsage: "ID",
				Flags: append([]ucli.Flag{indexFlag(), scopeFlag(),
					&ucli.StringFlag{Name: "payload", Usage: "stored with the point and returned by queries"},
				}, centreFlags()...),
				Action: func(c *ucli.Context) error {
					if c.NArg() != 1 {
						return usagef("geo put wants one ID")
					}
					scope, err := parseScope(c.String("scope"))
					if err != nil {
						return err
					}
					s, err := openWrite(c)
					if err != nil {
						return err
					}
					defer s.Close()
					p := geo.Point{ID: c.Args().First(), Lat: c.Float64("lat"), Lon: c.Float64("lon"), Scope: scope}
					if v := c.String("payload"); v != "" {
						p.Payload = []byte(v)
					}
					return s.Update(func(tx keyspace.Tx) error { return geo.NewIndex(c.String("index")).Put(tx, p) })
				},
			},
			{
				Name:      "del",
				Usage:     "delete points by id",
				UsageText: "keyspace geo del --index fleet car-7 car-9",
				ArgsUsage: "ID...",
				Flags:     []ucli.Flag{indexFlag()},
				Action: func(c *ucli.Context) error {
					if c.NArg() == 0 {
						return usagef("geo del wants at least one ID")
					}
					s, err := openWrite(c)
					if err != nil {
						return err
					}
					defer s.Close()
					ix := geo.NewIndex(c.String("index"))
					return s.Update(func(tx keyspace.Tx) error {
						for _, id := range c.Args().Slice() {
							if err := ix.Delete(tx, id); err != nil {
								return err
							}
						}
						return nil
					})
				},
			},
		},
	}
}

type queryFn func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) ([]geo.Result, geo.Stats, error)

// geoQuery opens the file read-only, checks the index exists and prints
// what fn finds (and, with --explain or --svg, how it found it).
func geoQuery(c *ucli.Context, outline shape, fn queryFn) error {
	format, err := output(c, "table", "json", "ndjson", "geojson")
	if err != nil {
		return err
	}
	scope, err := parseScope(c.String("scope"))
	if err != nil {
		return err
	}
	if c.Int("limit") < 0 {
		return usagef("--limit %d: must be positive", c.Int("limit"))
	}
	s, err := openRead(c)
	if err != nil {
		return err
	}
	defer s.Close()
	ix := geo.NewIndex(c.String("index"))
	return s.View(func(tx keyspace.Tx) error {
		empty, err := ix.Empty(tx)
		if err != nil {
			return err
		}
		if empty {
			return fmt.Errorf("unknown geo index %q: it holds no points (see keyspace stats)", ix.Name())
		}
		o := &geo.QueryOptions{Scope: scope, Limit: c.Int("limit")}
		if c.Bool("explain") || c.String("svg") != "" {
			o.Explain = &geo.Explain{}
		}
		rs, st, err := fn(ix, tx, o)
		if err != nil {
			return err
		}
		if c.Bool("explain") {
			writeExplain(c.App.ErrWriter, o.Explain)
		}
		if path := c.String("svg"); path != "" {
			if err := writeSVG(path, o.Explain, outline, rs); err != nil {
				return err
			}
		}
		return writeResults(c.App.Writer, format, rs, st, true)
	})
}

func geoBox(c *ucli.Context) error {
	corners := c.IsSet("min-lat") || c.IsSet("min-lon") || c.IsSet("max-lat") || c.IsSet("max-lon")
	centred := c.IsSet("lat") || c.IsSet("lon") || c.IsSet("width") || c.IsSet("height")
	switch {
	case corners && centred:
		return usagef("geo box: give either --min-lat --min-lon --max-lat --max-lon or --lat --lon --width --height, not both")
	case corners:
		for _, f := range []string{"min-lat", "min-lon", "max-lat", "max-lon"} {
			if !c.IsSet(f) {
				return usagef("geo box: --%s is missing", f)
			}
		}
		b := geo.Box{MinLat: c.Float64("min-lat"), MinLon: c.Float64("min-lon"), MaxLat: c.Float64("max-lat"), MaxLon: c.Float64("max-lon")}
		return geoQuery(c, boxShape(b), func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) ([]geo.Result, geo.Stats, error) {
			return ix.Box(tx, b, o)
		})
	case centred:
		for _, f := range []string{"lat", "lon", "width", "height"} {
			if !c.IsSet(f) {
				return usagef("geo box: --%s is missing", f)
			}
		}
		w, err := parseDistance(c.String("width"))
		if err != nil {
			return usageError{err}
		}
		h, err := parseDistance(c.String("height"))
		if err != nil {
			return usageError{err}
		}
		return geoQuery(c, nil, func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) ([]geo.Result, geo.Stats, error) {
			return ix.BoxAround(tx, c.Float64("lat"), c.Float64("lon"), w, h, o)
		})
	}
	return usagef("geo box: give --min-lat --min-lon --max-lat --max-lon, or --lat --lon --width --height")
}

// readPolygon reads a Polygon or MultiPolygon from a GeoJSON geometry,
// Feature or FeatureCollection (of one polygon feature).
func readPolygon(path string) (orb.Geometry, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if fc, err := geojson.UnmarshalFeatureCollection(b); err == nil && len(fc.Features) > 0 {
		if len(fc.Features) != 1 {
			return nil, fmt.Errorf("%s: %d features; give one Polygon or MultiPolygon", path, len(fc.Features))
		}
		return fc.Features[0].Geometry, nil
	}
	if f, err := geojson.UnmarshalFeature(b); err == nil && f.Geometry != nil {
		return f.Geometry, nil
	}
	g, err := geojson.UnmarshalGeometry(b)
	if err != nil {
		return nil, fmt.Errorf("%s: not GeoJSON: %w", path, err)
	}
	return g.Geometry(), nil
}

func parseScope(s string) (composite.Tuple, error) {
	if s == "" {
		return nil, nil
	}
	t, err := composite.ParseText(s, nil)
	if err != nil {
		return nil, usagef("--scope %q: %v", s, err)
	}
	return t, nil
}

func formatScope(t composite.Tuple) string {
	s, err := composite.FormatText(t)
	if err != nil {
		return fmt.Sprint(t)
	}
	return s
}

// polygonShape is a polygon's rings for the SVG.
func polygonShape(g orb.Geometry) shape {
	var out shape
	var polys []orb.Polygon
	switch g := g.(type) {
	case orb.Polygon:
		polys = []orb.Polygon{g}
	case orb.MultiPolygon:
		polys = g
	}
	for _, p := range polys {
		for _, ring := range p {
			var r [][2]float64
			for _, pt := range ring {
				r = append(r, [2]float64{pt[0], pt[1]})
			}
			out = append(out, r)
		}
	}
	return out
}
