package cli

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/geo"
	"github.com/mmcloughlin/geohash"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"
	ucli "github.com/urfave/cli/v2"
)

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

// centredQuery is geoQuery for a query around a centre: --lat and --lon,
// or --from, the point of an id, read in the query's own transaction
// (and whose scope the query searches unless --scope was given).
func centredQuery(c *ucli.Context, ask func(ix *geo.Index, tx keyspace.Tx, lat, lon float64, o *geo.QueryOptions) ([]geo.Result, geo.Stats, shape, error)) error {
	from := c.IsSet("from")
	switch {
	case from && (c.IsSet("lat") || c.IsSet("lon")):
		return usagef("give --lat and --lon, or --from, not both")
	case !from && (!c.IsSet("lat") || !c.IsSet("lon")):
		return usagef("give the centre: --lat and --lon, or --from ID")
	}
	return geoQuery(c, func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) ([]geo.Result, geo.Stats, shape, error) {
		lat, lon := c.Float64("lat"), c.Float64("lon")
		if from {
			p, err := getPoint(ix, tx, c.String("from"))
			if err != nil {
				return nil, geo.Stats{}, nil, err
			}
			lat, lon = p.Lat, p.Lon
			if !c.IsSet("scope") {
				o.Scope = p.Scope
			}
		}
		return ask(ix, tx, lat, lon, o)
	})
}

// sectorFlag is --sector: geo near and knn keep the points between two
// bearings from the centre.
func sectorFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "sector", Usage: "only the points at bearings from the centre between `FROM,TO` degrees, clockwise from north (Tile38's SECTOR): 300,360 is the sixth of the circle west of north, 90,270 its southern half"}
}

// sectorOf reads --sector's bearings; sector is false when it is not
// given.
func sectorOf(c *ucli.Context) (from, to float64, sector bool, err error) {
	if !c.IsSet("sector") {
		return 0, 0, false, nil
	}
	if from, to, err = parseSector(c.String("sector")); err != nil {
		return 0, 0, true, usageError{fmt.Errorf("--sector: %w", err)}
	}
	return from, to, true, nil
}

// parseSector reads --sector's two bearings, FROM,TO in degrees.
func parseSector(s string) (from, to float64, err error) {
	parts := strings.Split(s, ",")
	if len(parts) == 2 {
		from, err = strconv.ParseFloat(strings.TrimSpace(parts[0]), 64)
		if err == nil {
			to, err = strconv.ParseFloat(strings.TrimSpace(parts[1]), 64)
		}
		switch {
		case err == nil && (math.IsInf(from, 0) || math.IsInf(to, 0) || math.IsNaN(from) || math.IsNaN(to)):
		case err == nil && from == to:
			return 0, 0, fmt.Errorf("%q: the bearings are the same; a sector needs an angle between them (0,360 is the whole circle)", s)
		case err == nil:
			return from, to, nil
		}
	}
	return 0, 0, fmt.Errorf("%q: want two bearings in degrees clockwise from north, FROM,TO, such as 300,360", s)
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
					&ucli.StringFlag{Name: "line", Usage: "the k nearest a GeoJSON LineString or MultiLineString (`FILE`, - for standard input, or the GeoJSON itself; or a GPX file's tracks and routes) rather than a centre, each at its distance from the line"},
					&ucli.StringFlag{Name: "polygon", Usage: "the k nearest a GeoJSON Polygon or MultiPolygon (`FILE`, - for standard input, or the GeoJSON itself) rather than a centre, each at its distance from it (0 inside)"},
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
					&ucli.StringFlag{Name: "polygon", Usage: "GeoJSON `FILE`, - for standard input, or the GeoJSON itself ('{\"type\":\"Polygon\",…}')"},
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
					&ucli.StringFlag{Name: "line", Required: true, Usage: "GeoJSON `FILE`, - for standard input, or the GeoJSON itself ('{\"type\":\"LineString\",…}'): a LineString or MultiLineString, its edges straight in longitude and latitude; or a GPX file's tracks and routes"},
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

// A queryFn asks a query in tx and returns what it found, and the outline
// of the region it asked about for --svg (nil for none).
type queryFn func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) ([]geo.Result, geo.Stats, shape, error)

// geoQuery opens the file read-only, checks the index exists and prints
// what fn finds (and, with --explain or --svg, how it found it).
//
// A query is paged by its --limit (knn's by --k): it asks for one result
// more than the page, which tells whether another page follows, and
// prints the next page's --cursor if so. The cursor is a geo.Cursor's
// token tied to the query's other flags (queryText), so a token is
// refused by any other query. fn finds the page size in o.Limit (one
// more than --limit or --k when positive).
func geoQuery(c *ucli.Context, fn queryFn) error {
	format, err := output(c, "table", "json", "ndjson", "geojson", "count", "ids")
	if err != nil {
		return err
	}
	fields, err := fieldsOf(c)
	if err != nil {
		return err
	}
	size, err := limitOf(c)
	if err != nil {
		return err
	}
	if c.Command.Name == "knn" {
		if size = c.Int("k"); size < 1 {
			return usagef("--k %d: want how many neighbours, 1 or more", size)
		}
	}
	anyOf := c.Bool("any")
	switch {
	case anyOf && size == 0:
		return usagef("--any wants --limit N: it stops at the first N points found (Redis's COUNT N ANY)")
	case anyOf && c.IsSet("cursor"):
		return usagef("--any does not page: its points are the first found, not the nearest, so nothing comes after them in order")
	}
	if c.String("store") != "" && c.IsSet("cursor") {
		return usagef("--store does not page: it stores every point the query finds, or the first --limit of them")
	}
	query := queryText(c)
	var after *geo.Cursor
	if token := c.String("cursor"); token != "" {
		if after, err = geo.ParseCursor(token, query); err != nil {
			return usageError{err}
		}
	}
	if dest := c.String("store"); dest != "" {
		if format != "table" && format != "json" {
			return usagef("--store prints how many points it stored: --output table or json, not %s", format)
		}
		if c.Bool("explain") || c.String("svg") != "" || c.IsSet("fields") {
			return usagef("--store prints how many points it stored, not how they were found or their fields: ask the query without it for --explain, --svg or --fields")
		}
		return storePoints(c, dest, format, func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) ([]geo.Result, error) {
			o.Limit, o.Any, o.FarthestFirst = size, anyOf, c.Bool("desc")
			rs, _, _, err := fn(ix, tx, o)
			return rs, err
		})
	}
	return viewPoints(c, func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) error {
		o.Limit, o.After, o.Any, o.FarthestFirst = size, after, anyOf, c.Bool("desc")
		if size > 0 && !anyOf {
			o.Limit++ // one past the page: is there another?
		}
		if c.Bool("explain") || c.String("svg") != "" {
			o.Explain = &geo.Explain{}
		}
		rs, st, outline, err := fn(ix, tx, o)
		if err != nil {
			return err
		}
		next := ""
		if size > 0 && len(rs) > size {
			rs = rs[:size]
			st.Results = size
			next = geo.CursorAfter(rs, after).Token(query)
		}
		if c.Bool("explain") {
			writeExplain(c.App.ErrWriter, o.Explain)
		}
		if path := c.String("svg"); path != "" {
			if err := writeSVG(path, o.Explain, outline, rs); err != nil {
				return err
			}
		}
		if len(rs) == 0 && len(o.Scope) == 0 && after == nil {
			hintScopes(c.App.ErrWriter, ix, tx)
		}
		return writeResults(c.App.Writer, c.App.ErrWriter, format, projectResults(rs, fields), st, resultColumns{distance: true}, next)
	})
}

// viewPoints runs fn in a View of the database (which must exist) with
// the geo index --index names (which must hold points) and the options
// --scope, --where and --match give, checked before the file is opened.
func viewPoints(c *ucli.Context, fn func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) error) error {
	return queryPoints(c, viewDB, fn)
}

// queryPoints is viewPoints in the transaction run opens: viewDB's, or
// updateDB's for a query that writes what it finds (--store).
func queryPoints(c *ucli.Context, run func(*ucli.Context, func(keyspace.Tx) error) error, fn func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) error) error {
	scope, err := parseScope(c.String("scope"))
	if err != nil {
		return err
	}
	conds, err := parseWhere(c)
	if err != nil {
		return err
	}
	ix := geo.NewIndex(c.String("index"))
	return run(c, func(tx keyspace.Tx) error {
		if err := requireIndex(ix, tx); err != nil {
			return err
		}
		matches, _ := idMatcher(c)
		return fn(ix, tx, &geo.QueryOptions{Scope: scope, Filter: pointFilter(conds, matches)})
	})
}

// storeFlag is a region or k-nearest query's --store, Redis's
// GEOSEARCHSTORE.
func storeFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "store", Usage: "write the points found (or the first --limit) into the geo index `NAME`, replacing what it held, in one transaction, and print how many (Redis's GEOSEARCHSTORE); each keeps its id, position, scope, payload and expiry"}
}

// storePoints runs a query's find in a write transaction and makes its
// points the whole of the geo index dest (which may be the index
// queried), as Redis's GEOSEARCHSTORE replaces its destination: the
// query and the write see the same snapshot and commit together, or
// neither does.
func storePoints(c *ucli.Context, dest, format string, find func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) ([]geo.Result, error)) error {
	var stored, replaced int
	err := queryPoints(c, updateDB, func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) error {
		rs, err := find(ix, tx, o)
		if err != nil {
			return err
		}
		// Results share no memory with the transaction (geo copies
		// their ids and payloads out of it), so the writes below
		// cannot change them.
		points := make([]geo.Point, len(rs))
		for i, r := range rs {
			points[i] = r.Point
		}
		to := geo.NewIndex(dest)
		if replaced, err = to.Drop(tx); err != nil {
			return err
		}
		stored = len(points)
		return to.PutAll(tx, points)
	})
	if err != nil {
		return err
	}
	if format == "json" {
		return writeJSON(c.App.Writer, struct {
			Stored   int    `json:"stored"`
			Index    string `json:"index"`
			Replaced int    `json:"replaced"`
		}{stored, dest, replaced})
	}
	held := ""
	if replaced > 0 {
		held = fmt.Sprintf(" (replacing %s)", count(replaced, "point"))
	}
	_, err = fmt.Fprintf(c.App.Writer, "stored %s in geo index %s%s\n", count(stored, "point"), dest, held)
	return err
}

// anyFlag is a region query's --any, Redis's ANY.
func anyFlag() ucli.Flag {
	return &ucli.BoolFlag{Name: "any", Usage: "with --limit N, stop at the first N points found, not necessarily the nearest (Redis's ANY): is anything near?"}
}

// descFlag is a region query's --desc, Redis's DESC.
func descFlag() ucli.Flag {
	return &ucli.BoolFlag{Name: "desc", Usage: "farthest from the centre first (Redis's DESC): with --limit N, the N farthest"}
}

// pageFlag is a geo query's --cursor.
func pageFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "cursor", Usage: "the next page after a previous page's `TOKEN` (the same query's, with any --limit or --k)"}
}

// queryText names the query a cursor token belongs to: the command and
// every flag set on it but those that only shape a page or its output.
// --from names its point, not its coordinates, so a page after a moved
// point is measured from where the point is now.
func queryText(c *ucli.Context) string {
	skip := map[string]bool{"limit": true, "k": true, "cursor": true, "explain": true, "svg": true, "output": true, "quiet": true, "db": true}
	var b strings.Builder
	b.WriteString(c.Command.Name)
	for _, f := range c.Command.Flags {
		name := f.Names()[0]
		if skip[name] || !c.IsSet(name) {
			continue
		}
		var v any = c.Value(name)
		if _, ok := f.(*ucli.StringSliceFlag); ok {
			v = c.StringSlice(name)
		}
		fmt.Fprintf(&b, "\x00%s=%q", name, fmt.Sprint(v))
	}
	return b.String()
}

// hintScopes tells someone whose query under no scope found nothing when
// every point of the index is under a scope: a query searches the one
// scope it names, and a newcomer who imported with --scope-cols and
// queried without --scope would otherwise see an empty answer and no
// reason.
func hintScopes(w io.Writer, ix *geo.Index, tx keyspace.Tx) {
	scopes, err := ix.Scopes(tx, 4) // the first few: an index may have millions
	if err != nil || len(scopes) == 0 || scopes[0] == nil {
		return
	}
	var some []string
	for _, s := range scopes[:min(3, len(scopes))] {
		some = append(some, scopeArg(s))
	}
	if len(scopes) > len(some) {
		some = append(some, "…")
	}
	fmt.Fprintf(w, "note: every point of index %s is under a scope, and a query searches only the scope it names: pass --scope, such as %s (keyspace geo scopes --index %s lists them)\n",
		ix.Name(), strings.Join(some, ", "), ix.Name())
}

func geoBox(c *ucli.Context) error {
	b, corners, err := cornerBox(c)
	centred := c.IsSet("lat") || c.IsSet("lon") || c.IsSet("from") || c.IsSet("width") || c.IsSet("height")
	switch {
	case corners && centred:
		return usagef("geo box: give either --min-lat --min-lon --max-lat --max-lon (or --tile, --quadkey or --hash) or --lat --lon (or --from) --width --height, not both")
	case err != nil:
		return err
	case corners:
		return geoQuery(c, func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) ([]geo.Result, geo.Stats, shape, error) {
			rs, st, err := ix.Box(tx, b, o)
			return rs, st, boxShape(b), err
		})
	case centred:
		for _, f := range []string{"width", "height"} {
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
		return centredQuery(c, func(ix *geo.Index, tx keyspace.Tx, lat, lon float64, o *geo.QueryOptions) ([]geo.Result, geo.Stats, shape, error) {
			rs, st, err := ix.BoxAround(tx, lat, lon, w, h, o)
			return rs, st, nil, err
		})
	}
	return usagef("geo box: give --min-lat --min-lon --max-lat --max-lon, --tile, --quadkey or --hash, or --lat --lon (or --from) --width --height")
}

// cornerBox is the box --min-lat --min-lon --max-lat --max-lon give, or
// --tile, --quadkey or --hash (areaBox), and whether any of them is
// given: all four corners, or a usage error naming the first missing
// (geo box, geo cells).
func cornerBox(c *ucli.Context) (geo.Box, bool, error) {
	given := false
	for _, f := range []string{"min-lat", "min-lon", "max-lat", "max-lon"} {
		given = given || c.IsSet(f)
	}
	area, named, err := areaBox(c)
	switch {
	case named && given:
		return geo.Box{}, true, usagef("geo %s: give a box by its corners or by --tile, --quadkey or --hash, not both", c.Command.Name)
	case named:
		return area, true, err
	case !given:
		return geo.Box{}, false, nil
	}
	for _, f := range []string{"min-lat", "min-lon", "max-lat", "max-lon"} {
		if !c.IsSet(f) {
			return geo.Box{}, true, usagef("geo %s: --%s is missing", c.Command.Name, f)
		}
	}
	return geo.Box{MinLat: c.Float64("min-lat"), MinLon: c.Float64("min-lon"), MaxLat: c.Float64("max-lat"), MaxLon: c.Float64("max-lon")}, true, nil
}

// readPolygon reads a Polygon or MultiPolygon from a GeoJSON geometry,
// Feature or FeatureCollection (of one polygon feature): from the file
// arg names, from standard input for "-", or from arg itself when it is
// GeoJSON (begins with '{'), as Tile38's WITHIN … OBJECT takes it.
func readPolygon(c *ucli.Context, arg string) (orb.Geometry, error) {
	return readGeometry(c, arg, "--polygon", "Polygon or MultiPolygon")
}

// readGeometry reads one GeoJSON geometry as readPolygon does, for the
// flag named flag, which wants a what ("LineString or MultiLineString",
// for its errors).
func readGeometry(c *ucli.Context, arg, flag, what string) (orb.Geometry, error) {
	var b []byte
	var err error
	from := arg
	switch {
	case strings.HasPrefix(strings.TrimSpace(arg), "{"):
		b, from = []byte(arg), flag
	case arg == "-":
		b, err = io.ReadAll(c.App.Reader)
		from = "standard input"
	default:
		b, err = os.ReadFile(arg)
	}
	if err != nil {
		return nil, err
	}
	if flag == "--line" && isXML(b) {
		return gpxLines(b, from) // gpx.go
	}
	if fc, err := geojson.UnmarshalFeatureCollection(b); err == nil {
		if len(fc.Features) != 1 {
			return nil, fmt.Errorf("%s: %d features; give one %s", from, len(fc.Features), what)
		}
		if fc.Features[0].Geometry == nil {
			return nil, fmt.Errorf("%s: a feature with no geometry; give a %s", from, what)
		}
		return fc.Features[0].Geometry, nil
	}
	if f, err := geojson.UnmarshalFeature(b); err == nil {
		if f.Geometry == nil {
			return nil, fmt.Errorf("%s: a feature with no geometry; give a %s", from, what)
		}
		return f.Geometry, nil
	}
	g, err := geojson.UnmarshalGeometry(b)
	if err != nil {
		return nil, fmt.Errorf("%s: not GeoJSON: %w", from, err)
	}
	return g.Geometry(), nil
}

// parseScope reads a --scope. On the command line a scope's parts are
// text, as every command that writes points stores them (geo put, and geo
// import from a file's columns): --scope 7 is the string "7", which the
// text form without a schema would read as the integer 7 and find nothing
// under. Parts are separated by ':'; a backslash escapes the next
// character (US\:CA is one part).
func parseScope(s string) (composite.Tuple, error) {
	if s == "" {
		return nil, nil
	}
	text := make(composite.Schema, strings.Count(s, ":")+1) // at least one column a part
	for i := range text {
		text[i] = composite.Column{Name: "scope", Kind: composite.KindString}
	}
	t, err := composite.ParseText(s, text)
	if err != nil {
		return nil, usagef("--scope %q: %v", s, err)
	}
	return t, nil
}

// scopeText writes a scope for output. A scope of one text part is
// written as it is (US, 7), so that an export imported again with
// --scope-cols scope gets the same scope; a scope of several text parts
// as --scope reads it (US:CA, with '\', ':' and '*' escaped); any other
// (a program's integer scope, say) in the text form, which says each
// part's kind.
func scopeText(t composite.Tuple) string {
	parts, ok := textParts(t)
	switch {
	case !ok:
		return formatScope(t)
	case len(parts) == 1:
		return parts[0]
	}
	return joinParts(parts)
}

// scopeJSON is a scope in JSON output: a one-part scope as its text, a
// scope of several text parts as an array of them (["US","CA"]), which an
// import's scope column reads back as those parts; a scope with other
// elements (written through the library) as its text form.
func scopeJSON(t composite.Tuple) any {
	if parts, ok := textParts(t); ok && len(parts) > 1 {
		return parts
	}
	return scopeText(t)
}

var scopeEscaper = strings.NewReplacer(`\`, `\\`, `:`, `\:`, `*`, `\*`)

func formatScope(t composite.Tuple) string {
	s, err := composite.FormatText(t)
	if err != nil {
		return fmt.Sprint(t)
	}
	return s
}

// ringLines returns the rings of a Polygon or MultiPolygon as lines.
func ringLines(g orb.Geometry) orb.MultiLineString {
	var out orb.MultiLineString
	switch g := g.(type) {
	case orb.Polygon:
		for _, ring := range g {
			out = append(out, orb.LineString(ring))
		}
	case orb.MultiPolygon:
		for _, p := range g {
			out = append(out, ringLines(p)...)
		}
	}
	return out
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
			out = append(out, hashed{p.ID, geohash.EncodeWithPrecision(p.Lat, p.Lon, 11)})
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
		return writeScan(c.App.Writer, c.App.ErrWriter, format, projectResults(page, fields), next)
	})
}

// geoScopes lists the scopes of an index's points, as --scope takes them,
// with the points under each when --count is given.
func geoScopes(c *ucli.Context) error {
	format, err := output(c, "table", "json", "ndjson")
	if err != nil {
		return err
	}
	ix := geo.NewIndex(c.String("index"))
	counted := c.Bool("count")
	return viewDB(c, func(tx keyspace.Tx) error {
		if err := requireIndex(ix, tx); err != nil {
			return err
		}
		var scopes []geo.ScopeCount
		if counted {
			scopes, err = ix.ScopeCounts(tx)
		} else {
			var list []composite.Tuple
			list, err = ix.Scopes(tx, 0)
			for _, s := range list {
				scopes = append(scopes, geo.ScopeCount{Scope: s})
			}
		}
		if err != nil {
			return err
		}
		type jsonScope struct {
			Scope  string `json:"scope"` // "" for none
			Points *int   `json:"points,omitempty"`
		}
		out := make([]jsonScope, len(scopes))
		total := 0
		for i, s := range scopes {
			out[i].Scope = scopeArg(s.Scope)
			if counted {
				out[i].Points = &scopes[i].Points
				total += s.Points
			}
		}
		switch format {
		case "json":
			return writeJSON(c.App.Writer, struct {
				Scopes []jsonScope `json:"scopes"`
			}{out})
		case "ndjson":
			return writeNDJSON(c.App.Writer, out)
		}
		tw := newTable(c.App.Writer)
		if counted {
			fmt.Fprintln(tw, "SCOPE\tPOINTS")
		} else {
			fmt.Fprintln(tw, "SCOPE")
		}
		for _, s := range out {
			name := cmp.Or(s.Scope, "(none)")
			if counted {
				fmt.Fprintf(tw, "%s\t%d\n", name, *s.Points)
			} else {
				fmt.Fprintln(tw, name)
			}
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		summary := count(len(out), "scope")
		if counted {
			summary += ", " + count(total, "point")
		}
		_, err := fmt.Fprintln(c.App.Writer, summary)
		return err
	})
}

// scopeArg writes a scope as --scope reads it: its text parts joined by
// ':', with '\', ':' and '*' escaped; "" for the points put under no
// scope, which a query without --scope searches. A scope that --scope
// cannot name (a program's integers, an empty part) is written in the
// text form, which says each part's kind.
func scopeArg(t composite.Tuple) string {
	if len(t) == 0 {
		return ""
	}
	parts, ok := textParts(t)
	if !ok || slices.Contains(parts, "") {
		return formatScope(t)
	}
	return joinParts(parts)
}

// textParts returns t's parts, and whether every one is text.
func textParts(t composite.Tuple) ([]string, bool) {
	parts := make([]string, len(t))
	for i, e := range t {
		s, ok := e.(string)
		if !ok {
			return nil, false
		}
		parts[i] = s
	}
	return parts, true
}

// joinParts writes text parts as --scope reads them: joined by ':', with
// '\', ':' and '*' escaped.
func joinParts(parts []string) string {
	escaped := make([]string, len(parts))
	for i, p := range parts {
		escaped[i] = scopeEscaper.Replace(p)
	}
	return strings.Join(escaped, ":")
}

// geoAlong searches the corridor within --radius of a line given on the
// command line.
func geoAlong(c *ucli.Context) error {
	radius, err := parseDistance(c.String("radius"))
	if err != nil {
		return usageError{err}
	}
	line, err := readLine(c)
	if err != nil {
		return err
	}
	if c.Bool("in-order") {
		return alongInOrder(c, line, radius)
	}
	return geoQuery(c, func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) ([]geo.Result, geo.Stats, shape, error) {
		rs, st, err := ix.Along(tx, line, radius, o)
		return rs, st, corridorShape(line, radius), err
	})
}

// alongInOrder answers geo along --in-order: the points within radius of
// the line in the order a drive along it passes them, by where along the
// line each one's nearest point of it lies (geo.Route), ties nearest the
// line first; the first --limit of them. Every point is found before
// they are ordered, so there are no pages.
func alongInOrder(c *ucli.Context, line orb.Geometry, radius float64) error {
	format, err := output(c, "table", "json", "ndjson", "geojson", "count", "ids")
	if err != nil {
		return err
	}
	for _, f := range []string{"cursor", "any", "desc", "store"} {
		if c.IsSet(f) {
			return usagef("--in-order orders every point along the line by where it is passed: not with --%s", f)
		}
	}
	size, err := limitOf(c)
	if err != nil {
		return err
	}
	fields, err := fieldsOf(c)
	if err != nil {
		return err
	}
	route, err := geo.NewRoute(line)
	if err != nil {
		return err
	}
	return viewPoints(c, func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) error {
		if c.Bool("explain") || c.String("svg") != "" {
			o.Explain = &geo.Explain{}
		}
		rs, st, err := ix.Along(tx, line, radius, o)
		if err != nil {
			return err
		}
		along := make([]float64, len(rs))
		for i, r := range rs {
			if along[i], _, err = route.Locate(r.Lat, r.Lon); err != nil {
				return err
			}
		}
		order := make([]int, len(rs))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(along[a], along[b]) })
		if size > 0 && len(order) > size {
			order = order[:size]
		}
		sorted, at := make([]geo.Result, len(order)), make([]float64, len(order))
		for i, k := range order {
			sorted[i], at[i] = rs[k], along[k]
		}
		st.Results = len(sorted)
		if c.Bool("explain") {
			writeExplain(c.App.ErrWriter, o.Explain)
		}
		if path := c.String("svg"); path != "" {
			if err := writeSVG(path, o.Explain, corridorShape(line, radius), sorted); err != nil {
				return err
			}
		}
		return writeResults(c.App.Writer, c.App.ErrWriter, format, projectResults(sorted, fields), st, resultColumns{distance: true, along: at}, "")
	})
}

// readLine reads --line, a LineString or MultiLineString, as readPolygon
// reads --polygon, or a GPX file's tracks and routes (gpx.go).
func readLine(c *ucli.Context) (orb.Geometry, error) {
	return readGeometry(c, c.String("line"), "--line", "LineString or MultiLineString")
}

// knnNearGeometry answers geo knn --line and --polygon: the k points nearest a
// line or a polygon.
func knnNearGeometry(c *ucli.Context) error {
	what, flag := "line", "--line"
	if c.IsSet("polygon") {
		what, flag = "polygon", "--polygon"
		if c.IsSet("line") {
			return usagef("geo knn takes --line or --polygon, not both")
		}
	}
	for _, f := range []string{"lat", "lon", "from", "sector"} {
		if c.IsSet(f) {
			return usagef("geo knn %s finds the points nearest the %s, not a centre: leave out --%s", flag, what, f)
		}
	}
	if what == "polygon" {
		poly, err := readPolygon(c, c.String("polygon"))
		if err != nil {
			return err
		}
		return geoQuery(c, func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) ([]geo.Result, geo.Stats, shape, error) {
			rs, st, err := ix.NearestPolygon(tx, poly, o.Limit, o) // k, or k+1 (geoQuery)
			return rs, st, polygonShape(poly), err
		})
	}
	line, err := readLine(c)
	if err != nil {
		return err
	}
	return geoQuery(c, func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) ([]geo.Result, geo.Stats, shape, error) {
		rs, st, err := ix.NearestAlong(tx, line, o.Limit, o) // k, or k+1 (geoQuery)
		return rs, st, corridorShape(line, 0), err
	})
}

// geoWithin searches a polygon given on the command line, or a stored
// fence's region (read in the query's own transaction).
func geoWithin(c *ucli.Context) error {
	byFence := c.IsSet("fences") || c.IsSet("fence")
	switch {
	case byFence == c.IsSet("polygon"):
		return usagef("geo within wants --polygon, or --fences and --fence")
	case byFence && (!c.IsSet("fences") || !c.IsSet("fence")):
		return usagef("--fence wants --fences, and --fences wants --fence")
	}
	buffer := -1.0 // none
	if c.IsSet("buffer") {
		var err error
		if buffer, err = parseDistance(c.String("buffer")); err != nil {
			return usageError{fmt.Errorf("--buffer: %w", err)}
		}
	}
	var poly orb.Geometry
	if !byFence {
		var err error
		if poly, err = readPolygon(c, c.String("polygon")); err != nil {
			return err
		}
	}
	return geoQuery(c, func(ix *geo.Index, tx keyspace.Tx, o *geo.QueryOptions) ([]geo.Result, geo.Stats, shape, error) {
		if byFence {
			f, err := geo.NewFences(c.String("fences")).Get(tx, c.String("fence"))
			if err != nil {
				return nil, geo.Stats{}, nil, err
			}
			if buffer < 0 {
				rs, st, err := ix.InFence(tx, f, o)
				return rs, st, fenceShape(f), err
			}
			if f.Polygon == nil {
				return nil, geo.Stats{}, nil, usagef("--buffer goes with a polygon; fence %s is not one", f.ID)
			}
			poly = f.Polygon
		}
		if buffer >= 0 {
			rs, st, err := ix.NearPolygon(tx, poly, buffer, o)
			return rs, st, append(polygonShape(poly), corridorShape(ringLines(poly), buffer)...), err
		}
		rs, st, err := ix.Within(tx, poly, o)
		return rs, st, polygonShape(poly), err
	})
}
