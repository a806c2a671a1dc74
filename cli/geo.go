package cli

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/geo"
	ucli "github.com/urfave/cli/v2"
)

// The geo command group: its flags, its commands, and the commands on
// points by id (get, dist, hash, scan). geoimport.go imports points,
// geoquery.go holds the queries, geoscope.go the scopes points are put
// under, fset.go fset, expiry.go expire, persist and sweep.

// indexFlag is --index, the geo index a command reads or writes.
func indexFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "index", Aliases: []string{"i"}, Required: true, Usage: "the geo index `NAME`"}
}

// limitFlag is a query's --limit, which Redis users know as COUNT.
func limitFlag() ucli.Flag {
	return &ucli.IntFlag{Name: "limit", Aliases: []string{"n", "count"}, Usage: "at most `N` results, nearest first (Redis's COUNT)", DefaultText: "all"}
}

func scopeFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "scope", Usage: "the scope points were imported under, e.g. `US:CA`"}
}

// queryOutputFlags are on every geo query: how it found its points
// (--explain, --svg), and which of their payloads' fields to print.
func queryOutputFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.BoolFlag{Name: "explain", Usage: "print the covering (cells and key ranges) to stderr"},
		&ucli.StringFlag{Name: "svg", Usage: "draw the query, its cells, results and rejected candidates into `FILE`"},
		fieldsFlag("point's payload"),
	}
}

// centreFlags are a query's centre: --lat and --lon, or --from, the point
// of an id (Redis GEOSEARCH's FROMMEMBER).
func centreFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.Float64Flag{Name: "lat", Usage: "centre latitude, degrees", DefaultText: "none"},
		&ucli.Float64Flag{Name: "lon", Usage: "centre longitude, degrees", DefaultText: "none"},
		fromFlag(),
	}
}

func fromFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "from", Usage: "centre on the point `ID` (Redis's FROMMEMBER), searching its scope unless --scope is given"}
}

// requireIndex is an error unless ix holds points: an index that holds
// none was never imported, or was misspelt.
func requireIndex(ix *geo.Index, tx keyspace.Tx) error {
	empty, err := ix.Empty(tx)
	if err == nil && empty {
		err = fmt.Errorf("unknown geo index %q: it holds no points (see keyspace stats)%s", ix.Name(), didYouMeanIn(tx, ix.Name(), geoIndexNames))
	}
	return err
}

// getPoint is ix.Get with an error that names the id and the index.
func getPoint(ix *geo.Index, tx keyspace.Tx, id string) (geo.Point, error) {
	p, err := ix.Get(tx, id)
	return p, noPoint(ix, id, err)
}

func geoCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "geo",
		Usage: "geohash proximity search: import or put points (--ttl to expire them), then near, knn, box, within, along (--where on payload fields); cells (points per geohash cell), bounds; get, dist, hash, scan by id; fset payload fields; scopes; expire, persist, sweep; repair, drop",
		Subcommands: []*ucli.Command{
			geoImportCommand(),
			{
				Name:  "near",
				Usage: "points within a radius, nearest first (--desc: farthest first); --sector for those between two bearings",
				UsageText: "keyspace geo near --index cities --lat 37.7749 --lon -122.4194 --radius 2km --limit 10\n" +
					"keyspace geo near --index fleet --from car-7 --radius 500m\n" +
					"keyspace geo near --index places --from ferry --radius 5km --sector 300,360",
				Flags: append([]ucli.Flag{indexFlag(), scopeFlag(), whereFlag(), whereInFlag(), matchFlag("points"),
					&ucli.StringFlag{Name: "radius", Aliases: []string{"r"}, Required: true, Usage: "`DISTANCE`: 500m, 2km, 1.5mi, 300ft; bare numbers are metres"},
					sectorFlag(),
					limitFlag(), anyFlag(), descFlag(), pageFlag(), storeFlag(),
				}, append(centreFlags(), queryOutputFlags()...)...),
				Action: func(c *ucli.Context) error {
					radius, err := parseDistance(c.String("radius"))
					if err != nil {
						return usageError{err}
					}
					from, to, sector, err := sectorOf(c)
					if err != nil {
						return err
					}
					return centredQuery(c, func(ix *geo.Index, tx keyspace.Tx, lat, lon float64, o *geo.QueryOptions) ([]geo.Result, geo.Stats, shape, error) {
						if sector {
							rs, st, err := ix.Sector(tx, lat, lon, radius, from, to, o)
							return rs, st, sectorShape(lat, lon, radius, from, to), err
						}
						rs, st, err := ix.Radius(tx, lat, lon, radius, o)
						return rs, st, circleShape(lat, lon, radius), err
					})
				},
			},
			{
				Name:  "knn",
				Usage: "the k nearest points, exactly, with no radius; --sector for the k nearest between two bearings, --line for the k nearest a route, --polygon for the k nearest an area",
				UsageText: "keyspace geo knn --index cities --lat 48.8566 --lon 2.3522 --k 5\n" +
					"keyspace geo knn --index fleet --from car-7 --k 3\n" +
					"keyspace geo knn --index stations --from car-7 --k 3 --sector 315,45\n" +
					"keyspace geo knn --index stations --line route.geojson --k 5\n" +
					"keyspace geo knn --index stations --polygon park.geojson --k 5",
				Flags: append([]ucli.Flag{indexFlag(), scopeFlag(), whereFlag(), whereInFlag(), matchFlag("points"),
					&ucli.IntFlag{Name: "k", Value: 10, Usage: "how many neighbours (a page of them, with --cursor)"}, sectorFlag(),
					&ucli.StringFlag{Name: "line", Usage: "the k nearest a GeoJSON LineString or MultiLineString (`FILE`, - for standard input, the GeoJSON itself, or WKT; or a GPX file's tracks and routes) rather than a centre, each at its distance from the line"},
					&ucli.StringFlag{Name: "polygon", Usage: "the k nearest a GeoJSON Polygon or MultiPolygon (`FILE`, - for standard input, the GeoJSON itself, or WKT) rather than a centre, each at its distance from it (0 inside)"},
					pageFlag(), storeFlag(),
				}, append(centreFlags(), queryOutputFlags()...)...),
				Action: func(c *ucli.Context) error {
					if c.IsSet("line") || c.IsSet("polygon") {
						return knnNearGeometry(c)
					}
					from, to, sector, err := sectorOf(c)
					if err != nil {
						return err
					}
					return centredQuery(c, func(ix *geo.Index, tx keyspace.Tx, lat, lon float64, o *geo.QueryOptions) ([]geo.Result, geo.Stats, shape, error) {
						if sector { // --k is 1 or more (geoQuery): a Sector with no Limit would answer every point
							rs, st, err := ix.Sector(tx, lat, lon, math.Inf(1), from, to, o) // o.Limit is k (or k+1)
							return rs, st, nil, err
						}
						rs, st, err := ix.Nearest(tx, lat, lon, o.Limit, o) // k, or k+1 (geoQuery)
						return rs, st, nil, err
					})
				},
			},
			{
				Name:  "box",
				Usage: "points in a latitude/longitude box (min/max, may cross ±180), a map tile (--tile Z/X/Y, --quadkey) or geohash cell (--hash), or width × height around a centre like Redis BYBOX",
				UsageText: "keyspace geo box --index cities --min-lat 37.7 --min-lon -122.5 --max-lat 37.8 --max-lon -122.3\n" +
					"keyspace geo box --index cities --tile 12/655/1583 --output geojson\n" +
					"keyspace geo box --index cities --lat 37.77 --lon -122.42 --width 4km --height 2km\n" +
					"keyspace geo box --index fleet --from car-7 --width 4km --height 2km",
				Flags: slices.Concat([]ucli.Flag{indexFlag(), scopeFlag(), whereFlag(), whereInFlag(), matchFlag("points"),
					&ucli.Float64Flag{Name: "min-lat", Usage: "the box's southern edge, degrees", DefaultText: "none"},
					&ucli.Float64Flag{Name: "min-lon", Usage: "its western edge (east of --max-lon to cross ±180°)", DefaultText: "none"},
					&ucli.Float64Flag{Name: "max-lat", Usage: "its northern edge", DefaultText: "none"},
					&ucli.Float64Flag{Name: "max-lon", Usage: "its eastern edge", DefaultText: "none"},
				}, areaFlags(), []ucli.Flag{
					&ucli.Float64Flag{Name: "lat", Usage: "centre latitude, degrees (with --width, --height)", DefaultText: "none"},
					&ucli.Float64Flag{Name: "lon", Usage: "centre longitude, degrees", DefaultText: "none"}, fromFlag(),
					&ucli.StringFlag{Name: "width", Usage: "`DISTANCE` east-west"}, &ucli.StringFlag{Name: "height", Usage: "`DISTANCE` north-south"},
					limitFlag(), anyFlag(), descFlag(), pageFlag(), storeFlag(),
				}, queryOutputFlags()),
				Action: geoBox,
			},
			{
				Name:  "within",
				Usage: "points inside a GeoJSON Polygon or MultiPolygon (a geometry, Feature or FeatureCollection), or inside a stored fence (Tile38's WITHIN … GET); with --buffer, those within a distance of the polygon too (Tile38's WITHIN … BUFFER), nearest it first",
				UsageText: "keyspace geo within --index cities --polygon bay-area.geojson\n" +
					"keyspace geo within --index fleet --polygon depot.geojson --buffer 200m\n" +
					"keyspace geo within --index fleet --fences zones --fence downtown",
				Flags: append([]ucli.Flag{indexFlag(), scopeFlag(), whereFlag(), whereInFlag(), matchFlag("points"),
					&ucli.StringFlag{Name: "polygon", Usage: "GeoJSON `FILE`, - for standard input, or the GeoJSON itself ('{\"type\":\"Polygon\",…}'), or WKT ('POLYGON((lon lat, …))')"},
					&ucli.StringFlag{Name: "buffer", Usage: "the points within `DISTANCE` of the polygon (--polygon, or a polygon --fence) as well as those inside it (500m, 2km; bare numbers are metres), nearest the polygon first, each at its distance from it (0 inside)"},
					&ucli.StringFlag{Name: "fences", Usage: "the fence set `NAME` of --fence"},
					&ucli.StringFlag{Name: "fence", Usage: "the fence `ID` whose circle, box, polygon or sector to search"},
					limitFlag(), anyFlag(), descFlag(), pageFlag(), storeFlag(),
				}, queryOutputFlags()...),
				Action: geoWithin,
			},
			{
				Name:  "along",
				Usage: "points within a distance of a GeoJSON LineString or MultiLineString (a route, a road), nearest the line first (PostGIS's ST_DWithin, Tile38's INTERSECTS … BUFFER)",
				UsageText: "keyspace geo along --index stations --line route.geojson --radius 2km\n" +
					"keyspace geo along --index cities --line '{\"type\":\"LineString\",\"coordinates\":[[2.35,48.86],[4.84,45.76]]}' --radius 10km --limit 5\n" +
					"keyspace geo along --index fuel --line drive.gpx --radius 1km --in-order   # the stations a drive passes, in order, at their kilometre",
				Flags: append([]ucli.Flag{indexFlag(), scopeFlag(), whereFlag(), whereInFlag(), matchFlag("points"),
					&ucli.StringFlag{Name: "line", Required: true, Usage: "GeoJSON `FILE`, - for standard input, or the GeoJSON itself ('{\"type\":\"LineString\",…}') or WKT ('LINESTRING(lon lat, …)'): a LineString or MultiLineString, its edges straight in longitude and latitude; or a GPX file's tracks and routes"},
					&ucli.StringFlag{Name: "radius", Aliases: []string{"r"}, Required: true, Usage: "`DISTANCE` from the line: 500m, 2km, 1.5mi, 300ft; bare numbers are metres"},
					limitFlag(), anyFlag(),
					&ucli.BoolFlag{Name: "desc", Usage: "farthest from the line first: with --limit N, the N farthest"},
					&ucli.BoolFlag{Name: "in-order", Usage: "in the order a drive along the line passes them, each with how far along the line its nearest point of it lies (ALONG): with --limit N, the first N passed"},
					pageFlag(), storeFlag(),
				}, queryOutputFlags()...),
				Action: geoAlong,
			},
			{
				Name:      "get",
				Usage:     "points by id, in the order given (Redis's GEOPOS); an id with no point is an error",
				UsageText: "keyspace geo get --index cities 5128581 5368361",
				ArgsUsage: "ID...",
				Flags:     []ucli.Flag{indexFlag(), fieldsFlag("point's payload")},
				Action: func(c *ucli.Context) error {
					if c.NArg() == 0 {
						return usagef("geo get wants at least one ID")
					}
					format, err := output(c, "table", "json", "ndjson", "geojson")
					if err != nil {
						return err
					}
					fields, err := fieldsOf(c)
					if err != nil {
						return err
					}
					ix := geo.NewIndex(c.String("index"))
					return viewDB(c, func(tx keyspace.Tx) error {
						var rs []geo.Result
						for _, id := range c.Args().Slice() {
							p, err := getPoint(ix, tx, id)
							if err != nil {
								return err
							}
							rs = append(rs, geo.Result{Point: p})
						}
						rs = projectResults(rs, fields)
						if format == "table" { // points by id: no count, no ranges read
							return writeTable(c.App.Writer, rs, resultColumns{})
						}
						return writeResults(c.App.Writer, c.App.ErrWriter, format, rs, geo.Stats{Results: len(rs)}, resultColumns{}, "")
					})
				},
			},
			{
				Name:  "scan",
				Usage: "every point in id order (--reverse: descending), a page at a time (Tile38's SCAN), with --match and --where as the queries take them; with --output ndjson or geojson, an export",
				UsageText: "keyspace geo scan --index fleet --limit 100\n" +
					"keyspace geo scan --index cities --scope FR --output geojson > france.geojson\n" +
					"keyspace geo scan --index fleet --match 'truck-*' --reverse --limit 10",
				Flags: []ucli.Flag{indexFlag(),
					&ucli.StringFlag{Name: "scope", Usage: "only the points under this scope, e.g. `US:CA` (every id is read to find them, each point of the scope's twice)"},
					&ucli.IntFlag{Name: "limit", Aliases: []string{"n"}, Usage: "at most `N` points per page", DefaultText: "all"},
					&ucli.StringFlag{Name: "cursor", Usage: "continue after the point `ID` a previous page ended with"},
					&ucli.BoolFlag{Name: "reverse", Aliases: []string{"desc"}, Usage: "descending id order (Tile38's SCAN … DESC): the last ids first, a page's cursor the next page's end"},
					matchFlag("points"), whereFlag(), whereInFlag(), fieldsFlag("point's payload"),
				},
				Action: geoScan,
			},
			{
				Name:      "dist",
				Usage:     "the distance between two points by id (Redis's GEODIST), on the sphere queries measure with",
				UsageText: "keyspace geo dist --index cities 5128581 5368361",
				ArgsUsage: "ID ID",
				Flags:     []ucli.Flag{indexFlag()},
				Action:    geoDist,
			},
			{
				Name:  "scopes",
				Usage: "the scopes an index's points are under (Tile38's KEYS), which queries name with --scope; with --count, the points under each",
				UsageText: "keyspace geo scopes --index cities\n" +
					"keyspace geo scopes --index cities --count --output json",
				Flags: []ucli.Flag{indexFlag(),
					&ucli.BoolFlag{Name: "count", Usage: "count the points under each scope (reads every point; without it, one key per scope)"},
				},
				Action: geoScopes,
			},
			{
				Name:      "hash",
				Usage:     "points' standard 11-character geohash strings by id (Redis's GEOHASH), for geohash.org and other tools",
				UsageText: "keyspace geo hash --index cities 5128581 5368361",
				ArgsUsage: "ID...",
				Flags:     []ucli.Flag{indexFlag()},
				Action:    geoHash,
			},
			{
				Name:  "put",
				Usage: "add or move one point; with --fences, print the fences the move entered, left, stayed in or passed through, with --roam, the points it came near or left (written in the same transaction)",
				UsageText: `keyspace geo put --index fleet --lat 37.77 --lon -122.42 --payload '{"driver":"ann"}' --ttl 30s car-7` + "\n" +
					"keyspace geo put --index fleet --lat 52.52 --lon 13.41 --fences zones car-7\n" +
					"keyspace geo put --index fleet --lat 52.52 --lon 13.41 --roam 200m car-7",
				ArgsUsage: "ID",
				Flags: append([]ucli.Flag{indexFlag(), scopeFlag(),
					&ucli.StringFlag{Name: "payload", Usage: "stored with the point and returned by queries"},
					&ucli.Float64Flag{Name: "lat", Required: true, Usage: "latitude, degrees"},
					&ucli.Float64Flag{Name: "lon", Required: true, Usage: "longitude, degrees"},
					ttlFlag(),
					&ucli.StringFlag{Name: "fences", Usage: "the fence set `NAME` whose crossings to print (Tile38's enter, exit, inside and cross)"},
					&ucli.StringFlag{Name: "roam", Usage: "print the other points of the index (and scope) the move came within `DISTANCE` of, left, or stayed near (Tile38's roaming geofences: enter, exit, inside)"},
					detectFlag(),
				}, onlyIfFlags()...),
				Action: func(c *ucli.Context) error {
					if c.NArg() != 1 {
						return wantsOneID(c)
					}
					only, err := parseOnlyIf(c)
					if err != nil {
						return err
					}
					scope, err := parseScope(c.String("scope"))
					if err != nil {
						return err
					}
					expires, err := expiresFromTTL(c)
					if err != nil {
						return err
					}
					p := geo.Point{ID: c.Args().First(), Lat: c.Float64("lat"), Lon: c.Float64("lon"), Scope: scope, Expires: expires}
					if v := c.String("payload"); v != "" {
						p.Payload = []byte(v)
					}
					ix := geo.NewIndex(c.String("index"))
					if _, err := parseDetect(c); err != nil {
						return err
					}
					if !c.IsSet("fences") && !c.IsSet("roam") {
						written := false
						err := updateDB(c, func(tx keyspace.Tx) error {
							if ok, err := only.keeps(tx, ix, p.ID); !ok || err != nil {
								return err
							}
							written = true
							return ix.Put(tx, p)
						})
						if err == nil && !written {
							noteLeftOut(c, only, p.ID)
						}
						return err
					}
					return putAndReport(c, ix, p, only) // roam.go
				},
			},
			{
				Name:  "del",
				Usage: "delete points by id, or every point whose id --match matches (Tile38's PDEL); with --fences, print the fences each point left, with --roam, the points it was near (written in the same transaction)",
				UsageText: "keyspace geo del --index fleet car-7 car-9\n" +
					"keyspace geo del --index fleet --match 'truck-*'\n" +
					"keyspace geo del --index fleet --fences zones car-7\n" +
					"keyspace geo del --index fleet --roam 200m car-7",
				ArgsUsage: "ID...",
				Flags: []ucli.Flag{indexFlag(),
					&ucli.StringFlag{Name: "match", Usage: "instead of IDs, every point whose id matches the glob `PATTERN`: * any run of characters, ? any one, \\ before * or ? for itself (Tile38's PDEL)"},
					&ucli.StringFlag{Name: "fences", Usage: "the fence set `NAME` whose exits to print"},
					&ucli.StringFlag{Name: "roam", Usage: "print the other points each deleted point was within `DISTANCE` of, which see it go (exit)"},
				},
				Action: geoDel,
			},
			geoCellsCommand(),
			geoBoundsCommand(),
			geoFsetCommand(),
			geoSweepCommand(),
			geoExpiry().expire(),
			geoExpiry().persist(),
			repairCommand("geo index", indexFlag(), "make a geo index what its point keys imply: reverse entries rewritten, misplaced points moved, stale copies deleted",
				"keyspace geo repair --index fleet", func(name string) repairer { return geo.NewIndex(name).Repair }),
			dropCommand("geo index", "point", indexFlag(), "keyspace geo drop --index fleet", dropGeoIndex),
			renameCommand("geo index", indexFlag(), "keyspace geo rename --index fleet vans", renameGeoIndex),
		},
	}
}

// eachPoint calls fn for each id the arguments name, or, for geo del's
// --match, each id of the index the pattern matches, in one transaction:
// all ids or none (geo del, expire and persist). It says how many --match
// deleted.
func eachPoint(c *ucli.Context, fn func(ix *geo.Index, tx keyspace.Tx, id string) error) error {
	matches, prefix := idMatcher(c)
	switch {
	case matches != nil && c.NArg() > 0:
		return usagef("geo %s takes IDs or --match, not both", c.Command.Name)
	case matches == nil && c.NArg() == 0:
		return usagef("geo %s wants at least one ID", c.Command.Name)
	}
	ix := geo.NewIndex(c.String("index"))
	found := 0
	err := updateDB(c, func(tx keyspace.Tx) error {
		ids := c.Args().Slice()
		if matches != nil {
			if err := requireIndex(ix, tx); err != nil {
				return err
			}
			var err error
			if ids, err = matchingIDs(tx, ix, matches, prefix); err != nil {
				return err
			}
			found = len(ids)
		}
		for _, id := range ids {
			if err := fn(ix, tx, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err == nil && matches != nil { // only geo del has --match
		fmt.Fprintf(c.App.ErrWriter, "deleted %s matching %s\n", count(found, "point"), c.String("match"))
	}
	return err
}

// matchingIDs returns, in order, the ids of ix's points for which matches
// is true; each starts with prefix, so the scan ends once past them.
func matchingIDs(tx keyspace.Tx, ix *geo.Index, matches func(string) bool, prefix string) ([]string, error) {
	var ids []string
	err := ix.Scan(tx, scanFrom(prefix, ""), func(p geo.Point) bool {
		if matches(p.ID) {
			ids = append(ids, p.ID)
			return true
		}
		return p.ID < prefix || strings.HasPrefix(p.ID, prefix)
	})
	return ids, err
}

// geoDist prints the distance between the two points whose ids it is
// given, both read in one transaction.
func geoDist(c *ucli.Context) error {
	if c.NArg() != 2 {
		return usagef("geo dist wants two IDs")
	}
	format, err := output(c, "table", "json")
	if err != nil {
		return err
	}
	ix := geo.NewIndex(c.String("index"))
	return viewDB(c, func(tx keyspace.Tx) error {
		var ps [2]geo.Point
		for i := range ps {
			if ps[i], err = getPoint(ix, tx, c.Args().Get(i)); err != nil {
				return err
			}
		}
		d := geo.Distance(ps[0].Lat, ps[0].Lon, ps[1].Lat, ps[1].Lon)
		if format == "json" {
			return writeJSON(c.App.Writer, struct {
				From      string  `json:"from"`
				To        string  `json:"to"`
				DistanceM float64 `json:"distance_m"`
			}{ps[0].ID, ps[1].ID, d})
		}
		_, err := fmt.Fprintf(c.App.Writer, "%s\n", formatDistance(d))
		return err
	})
}

// geoHash prints each point's geohash string: 11 base-32 characters, as
// Redis's GEOHASH gives (about 15 cm by 15 cm at the equator). It is the
// string form of the point's coordinates, whichever grid the index keys
// it by (a point in a polar cap is keyed by the cap's own grid).
func geoHash(c *ucli.Context) error {
	if c.NArg() == 0 {
		return usagef("geo hash wants at least one ID")
	}
	format, err := output(c, "table", "json")
	if err != nil {
		return err
	}
	ix := geo.NewIndex(c.String("index"))
	return viewDB(c, func(tx keyspace.Tx) error {
		type hashed struct {
			ID      string `json:"id"`
			Geohash string `json:"geohash"`
		}
		var out []hashed
		for _, id := range c.Args().Slice() {
			p, err := getPoint(ix, tx, id)
			if err != nil {
				return err
			}
			h, err := geo.Geohash(p.Lat, p.Lon, 11)
			if err != nil {
				return err
			}
			out = append(out, hashed{p.ID, h})
		}
		if format == "json" {
			return writeJSON(c.App.Writer, out)
		}
		tw := newTable(c.App.Writer)
		fmt.Fprintln(tw, "ID\tGEOHASH")
		for _, h := range out {
			fmt.Fprintf(tw, "%s\t%s\n", h.ID, h.Geohash)
		}
		return tw.Flush()
	})
}

// geoScan prints a page of the index's points in id order: those after
// --cursor, under --scope if given, at most --limit of them.
func geoScan(c *ucli.Context) error {
	format, err := output(c, "table", "json", "ndjson", "geojson", "count", "ids")
	if err != nil {
		return err
	}
	fields, err := fieldsOf(c)
	if err != nil {
		return err
	}
	limit, err := limitOf(c)
	if err != nil {
		return err
	}
	return viewPoints(c, func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) error {
		var page []geo.Result
		next := ""
		matches, prefix := idMatcher(c)
		reverse := c.Bool("reverse")
		each := func(p geo.Point) bool {
			if matches != nil && !matches(p.ID) {
				// Ids come in order: once past every id that starts
				// with the pattern's literal start, nothing more matches.
				if reverse {
					return p.ID > prefix || strings.HasPrefix(p.ID, prefix)
				}
				return p.ID < prefix || strings.HasPrefix(p.ID, prefix)
			}
			if o.Filter != nil && !o.Filter(p) { // --where
				return true
			}
			if limit > 0 && len(page) == limit {
				next = page[len(page)-1].ID
				return false
			}
			page = append(page, geo.Result{Point: p})
			return true
		}
		from := scanFrom(prefix, c.String("cursor"))
		if reverse {
			from = scanBefore(prefix, c.String("cursor"))
		}
		var err error
		switch {
		case reverse && c.IsSet("scope"):
			err = ix.ScanScopeReverse(tx, o.Scope, from, each)
		case reverse:
			err = ix.ScanReverse(tx, from, each)
		case c.IsSet("scope"):
			err = ix.ScanScope(tx, o.Scope, from, each)
		default:
			err = ix.Scan(tx, from, each)
		}
		if err != nil {
			return err
		}
		if len(page) == 0 && c.IsSet("scope") && c.String("cursor") == "" && matches == nil && o.Filter == nil {
			hintScope(c, ix, tx, o.Scope) // a scope no point is under
		}
		return writeScan(c.App.Writer, c.App.ErrWriter, format, projectResults(page, fields), next)
	})
}
