package cli

import (
	"fmt"
	"math"
	"slices"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/geo"
	ucli "github.com/urfave/cli/v2"
)

// Geofences on the command line: keyspace fence put, import, get, list,
// del, containing (at a point, or at every point of a file), repair and
// drop over a set of geo.Fences; geo put --fences, which moves a point
// and prints the fences it entered, left, stayed in or passed through,
// in the same transaction (Tile38's geofence hooks, without the server),
// geo del --fences the fences deleted points left, and geo import
// --fences the crossings of a batch of moves (geoimport.go); and geo
// within --fences --fence, the points inside a stored fence.
//
// This file holds the fence command, its flags and fence put;
// fenceimport.go reads files of fences, fencejson.go writes a fence as
// GeoJSON (and says the form import reads back), and fencequery.go holds
// the commands that read a set.

func fenceSVGFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "svg", Usage: "draw the fences (and the point, with the fences holding it filled) into `FILE`"}
}

// areaSVGFlag is --svg for fence intersecting and within.
func areaSVGFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "svg", Usage: "draw the area (dashed) and the fences found into `FILE`"}
}

// fenceTTLFlag is --ttl for fences: Tile38's EX on a hook.
func fenceTTLFlag() ucli.Flag {
	return durationFlag("ttl", "the fences expire `DURATION` from now (30s, 15m, 2h, 7d): lookups, crossings, get and list leave them out from then on, and fence sweep deletes them", "never")
}

func fencesFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "fences", Aliases: []string{"f"}, Required: true, Usage: "the fence set `NAME`"}
}

func fenceCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "fence",
		Usage: "geofences: regions a point is tested against (which zones hold this point?), the fences a move enters and leaves, and those that meet or lie within an area; --ttl to expire them",
		Subcommands: []*ucli.Command{
			{
				Name:  "put",
				Usage: "add or replace a fence: a circle (--lat, --lon, --radius) or a sector of it (--sector FROM,TO: a camera's view), a box (--min-lat … --max-lon, or a map tile or geohash cell: --tile, --quadkey, --hash), a GeoJSON polygon (--polygon) or a corridor (--line, and --radius: a route to keep to, or a road)",
				UsageText: "keyspace fence put --fences zones --lat 52.52 --lon 13.40 --radius 2km mitte\n" +
					"keyspace fence put --fences cameras --lat 52.5163 --lon 13.3777 --radius 300m --sector 240,300 gate-west\n" +
					"keyspace fence put --fences zones --min-lat -10 --min-lon 179 --max-lat 10 --max-lon -179 dateline\n" +
					"keyspace fence put --fences zones --polygon zone.geojson depot\n" +
					"keyspace fence put --fences routes --line route-7.geojson --radius 500m route-7",
				ArgsUsage: "ID",
				Flags: append(append([]ucli.Flag{fencesFlag()}, fenceRegionFlags()...),
					&ucli.StringFlag{Name: "payload", Usage: "stored with the fence and shown by get and list, e.g. `'{\"tariff\":2}'`"},
					fenceTTLFlag(),
				),
				Action: fencePut,
			},
			{
				Name:  "import",
				Usage: "add or replace fences, all or none unless --skip-bad: a GeoJSON FeatureCollection's polygons, circles (a Point with a radius property in metres), corridors (a LineString or MultiLineString, with a radius property for the ground either side), boxes and sectors as fence get writes them, circles (or with --sector-cols, sectors) from the rows of a CSV, TSV, NDJSON, JSON or XML file (id, lat, lon and radius columns; the other columns the payload), or with --wkt-col any region from its rows' WKT (a PostGIS export), or a GPX file's tracks and routes as corridors and its waypoints as circles (--radius)",
				UsageText: "keyspace fence import --fences zones zones.geojson\n" +
					"keyspace fence import --fences states --id-property name states.geojson\n" +
					"keyspace fence import --fences closures --ttl 2h closures.geojson\n" +
					"keyspace fence import --fences delivery --id-col store --radius-col reach stores.csv   # store,lat,lon,reach: 3km\n" +
					"keyspace fence import --fences cameras --sector-cols left,right cameras.csv   # id,lat,lon,radius,left,right\n" +
					"keyspace fence import --fences zones --wkt-col wkt zones.csv   # id,name,wkt: POLYGON((…)) as PostGIS's ST_AsText writes it\n" +
					"keyspace fence import --fences routes --radius 300m planned.gpx   # a corridor for each named track and route",
				ArgsUsage: "FILE",
				Flags: append([]ucli.Flag{fencesFlag(),
					&ucli.StringFlag{Name: "id-property", Usage: "take each fence's id from this `PROPERTY` rather than the feature's id"},
					fenceTTLFlag(),
					&ucli.StringFlag{Name: "radius-col", Value: "radius", Usage: "a FILE of rows' radius `COLUMN`: metres, or a distance with its unit (500m, 2km)"},
					&ucli.StringFlag{Name: "radius", Usage: "a GPX FILE's tracks and routes (each named by its name), and a GeoJSON FILE's lines with no radius property, are corridors this `DISTANCE` either side (none: the lines themselves, roads); a GPX FILE's waypoints are circles of it"},
					&ucli.StringFlag{Name: "sector-cols", Usage: "a FILE's rows are sectors, their bearings in the columns `FROM,TO` (degrees clockwise from north, as fence put --sector takes them)"},
					typedFlag(),
					dryRunFlag(),
					&ucli.BoolFlag{Name: "skip-bad", Usage: "import the good fences and report the bad ones (a feature, row, track, route or waypoint that makes no fence)"},
				}, pointFileFlags("a FILE of rows':")...),
				Action: fenceImport,
			},
			{
				Name:      "get",
				Usage:     "fences by id; with --output geojson, a FeatureCollection that fence import reads back",
				UsageText: "keyspace fence get --fences zones mitte depot",
				ArgsUsage: "ID...",
				Flags:     []ucli.Flag{fencesFlag(), fieldsFlag("fence's payload")},
				Action:    fenceGet,
			},
			{
				Name:      "list",
				Usage:     "every fence of a set, in id order, a page at a time with --limit (Tile38's SCAN on a collection of objects), with --where and --match as the queries take them; --svg draws them",
				UsageText: "keyspace fence list --fences zones\nkeyspace fence list --fences zones --svg zones.svg\nkeyspace fence list --fences zones --limit 100 --cursor zone-0420",
				Flags: append([]ucli.Flag{fencesFlag(), fenceSVGFlag(),
					&ucli.IntFlag{Name: "limit", Aliases: []string{"n"}, Usage: "at most `N` fences per page", DefaultText: "all"},
					&ucli.StringFlag{Name: "cursor", Usage: "continue after the fence `ID` a previous page ended with"},
					fieldsFlag("fence's payload"),
				}, fenceFilterFlags()...),
				Action: fenceList,
			},
			{
				Name:      "del",
				Usage:     "delete fences by id, all or none",
				UsageText: "keyspace fence del --fences zones mitte depot",
				ArgsUsage: "ID...",
				Flags:     []ucli.Flag{fencesFlag()},
				Action:    fenceDel,
			},
			{
				Name:  "containing",
				Usage: "the fences that hold a point (edges included): at --lat/--lon, at a geo index's point --from ID, or at every point of a FILE (CSV, TSV, NDJSON, JSON, GeoJSON or XML, as geo import reads them)",
				UsageText: "keyspace fence containing --fences zones --lat 52.52 --lon 13.41\n" +
					"keyspace fence containing --fences zones --index fleet --from car-7\n" +
					"keyspace fence containing --fences states --output ndjson addresses.csv",
				ArgsUsage: "[FILE|-]",
				Flags: append([]ucli.Flag{fencesFlag(),
					&ucli.Float64Flag{Name: "lat", Usage: "latitude, degrees", DefaultText: "none"},
					&ucli.Float64Flag{Name: "lon", Usage: "longitude, degrees", DefaultText: "none"},
					&ucli.StringFlag{Name: "index", Aliases: []string{"i"}, Usage: "the geo index `NAME` of --from"},
					&ucli.StringFlag{Name: "from", Usage: "at the point `ID` of --index"},
					fenceSVGFlag(),
					&ucli.BoolFlag{Name: "payloads", Usage: "each fence with its payload (a zone's name, a tariff), read from the fence"},
				}, append(fenceFilterFlags(), pointFileFlags("a FILE's")...)...),
				Action: fenceContaining,
			},
			{
				Name:  "intersecting",
				Usage: "the fences that share a point with an area (Tile38's INTERSECTS): a circle (--lat, --lon, --radius) or a sector of it (--sector FROM,TO; with no --radius, the bearings alone), a box (--min-lat … --max-lon, or a map tile or geohash cell: --tile, --quadkey, --hash), a GeoJSON polygon (--polygon) or a corridor (--line, --radius: as fence along)",
				UsageText: "keyspace fence intersecting --fences zones --lat 37.775 --lon -122.415 --radius 1km\n" +
					"keyspace fence intersecting --fences zones --lat 37.775 --lon -122.415 --radius 2km --sector 45,135\n" +
					"keyspace fence intersecting --fences zones --polygon district.geojson --payloads\n" +
					"keyspace fence intersecting --fences zones --fence downtown",
				Flags: append(append(append([]ucli.Flag{fencesFlag()}, fenceRegionFlags()...),
					&ucli.StringFlag{Name: "fence", Usage: "the area is the set's fence `ID`, which is left out of the answer (Tile38's INTERSECTS … GET)"},
					&ucli.StringFlag{Name: "buffer", Usage: "with a polygon (--polygon, or a polygon --fence): the fences within `DISTANCE` of it too (Tile38's INTERSECTS … BUFFER): 500m, 2km; bare numbers are metres"},
					&ucli.BoolFlag{Name: "payloads", Usage: "each fence with its payload"},
					areaSVGFlag(),
				), fenceFilterFlags()...),
				Action: fenceAreaQuery("fence intersecting", (*geo.Fences).Intersecting),
			},
			{
				Name:  "within",
				Usage: "the fences wholly inside an area (Tile38's WITHIN on a fence set), edges included: a circle (--lat, --lon, --radius) or a sector of it (--sector FROM,TO; with no --radius, the bearings alone), a box (--min-lat … --max-lon, or a map tile or geohash cell: --tile, --quadkey, --hash), a GeoJSON polygon (--polygon) or a corridor (--line, --radius: the fences wholly within a distance of a route)",
				UsageText: "keyspace fence within --fences zones --lat 37.775 --lon -122.415 --radius 10km\n" +
					"keyspace fence within --fences zones --lat 37.775 --lon -122.415 --radius 10km --sector 300,60\n" +
					"keyspace fence within --fences zones --polygon city.geojson --payloads\n" +
					"keyspace fence within --fences zones --line route.geojson --radius 2km   # the zones a route serves end to end\n" +
					"keyspace fence within --fences zones --fence sf-box",
				Flags: append(append(append([]ucli.Flag{fencesFlag()}, fenceRegionFlags()...),
					&ucli.StringFlag{Name: "fence", Usage: "the area is the set's fence `ID`, which is left out of the answer (Tile38's WITHIN … GET)"},
					&ucli.BoolFlag{Name: "payloads", Usage: "each fence with its payload"},
					areaSVGFlag(),
				), fenceFilterFlags()...),
				Action: fenceAreaQuery("fence within", (*geo.Fences).Within),
			},
			{
				Name:  "along",
				Usage: "the fences within a distance of a GeoJSON LineString or MultiLineString (a route, a flight plan; Tile38's INTERSECTS … BUFFER on a fence set); with no --radius, the fences the line passes through or touches",
				UsageText: "keyspace fence along --fences zones --line route.geojson\n" +
					"keyspace fence along --fences tolls --line drive.gpx --in-order   # the toll zones of a drive, in order, and where each begins\n" +
					"keyspace fence along --fences airspace --line '{\"type\":\"LineString\",\"coordinates\":[[2.35,48.86],[4.84,45.76]]}' --radius 5km --payloads",
				Flags: append([]ucli.Flag{fencesFlag(),
					&ucli.StringFlag{Name: "line", Required: true, Usage: "GeoJSON `FILE`, - for standard input, or the GeoJSON itself ('{\"type\":\"LineString\",…}') or WKT ('LINESTRING(lon lat, …)'): a LineString or MultiLineString, its edges straight in longitude and latitude; or a GPX file's tracks and routes"},
					&ucli.StringFlag{Name: "radius", Aliases: []string{"r"}, Value: "0", Usage: "`DISTANCE` from the line: 500m, 2km, 1.5mi, 300ft; bare numbers are metres"},
					&ucli.BoolFlag{Name: "in-order", Usage: "the fences in the order the line reaches them, each with how far along the line it first comes within --radius"},
					&ucli.BoolFlag{Name: "payloads", Usage: "each fence with its payload"},
					areaSVGFlag(),
				}, fenceFilterFlags()...),
				Action: fenceAlong,
			},
			{
				Name:  "near",
				Usage: "the fences within a distance of a point, nearest first, each with its distance (0 for one that holds it): Tile38's NEARBY on a fence set",
				UsageText: "keyspace fence near --fences zones --lat 37.7749 --lon -122.4194 --radius 5km\n" +
					"keyspace fence near --fences zones --index fleet --from car-7 --radius 2km --k 3 --payloads",
				Flags: append([]ucli.Flag{fencesFlag(),
					&ucli.Float64Flag{Name: "lat", Usage: "latitude, degrees", DefaultText: "none"},
					&ucli.Float64Flag{Name: "lon", Usage: "longitude, degrees", DefaultText: "none"},
					&ucli.StringFlag{Name: "index", Aliases: []string{"i"}, Usage: "the geo index `NAME` of --from"},
					&ucli.StringFlag{Name: "from", Usage: "from the point `ID` of --index"},
					&ucli.StringFlag{Name: "radius", Aliases: []string{"r"}, Required: true, Usage: "`DISTANCE`: 500m, 2km, 1.5mi, 300ft"},
					&ucli.IntFlag{Name: "k", Usage: "at most `N` fences, the nearest (of those --where and --match keep)", DefaultText: "all"},
					&ucli.BoolFlag{Name: "payloads", Usage: "each fence with its payload"},
				}, fenceFilterFlags()...),
				Action: fenceNear,
			},
			fenceSweepCommand(),
			fenceExpiry().expire(),
			fenceExpiry().persist(),
			repairCommand("fence set", fencesFlag(), "make a fence set's cells what its fences' definitions imply: missing cells written, wrong ones rewritten, strays deleted",
				"keyspace fence repair --fences zones", func(name string) repairer { return geo.NewFences(name).Repair }),
			dropCommand("fence set", "fence", fencesFlag(), "keyspace fence drop --fences zones", dropFences),
			renameCommand("fence set", fencesFlag(), "keyspace fence rename --fences zones districts", renameFences),
		},
	}
}

// sectorRegionFlag is --sector for fence put, intersecting and within:
// the circle's slice between two bearings, as geo near's --sector keeps.
func sectorRegionFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "sector", Usage: "a sector: the slice of the circle (--lat, --lon, --radius) at bearings from its centre between `FROM,TO` degrees, clockwise from north (Tile38's SECTOR): 45,135 is the quarter centred on east; with no --radius, the bearings alone"}
}

// fenceRegionFlags are fence put's: sectorRegionFlags with --radius a
// corridor's too, and --line after it, a corridor's line.
func fenceRegionFlags() []ucli.Flag {
	flags := sectorRegionFlags()
	radius := slices.IndexFunc(flags, func(f ucli.Flag) bool { return f.Names()[0] == "radius" })
	flags[radius] = &ucli.StringFlag{Name: "radius", Aliases: []string{"r"}, Usage: "a circle's or a sector's `DISTANCE` (500m, 2km, 1.5mi, 300ft), or a corridor's either side of its --line"}
	return slices.Insert(flags, radius+1, ucli.Flag(&ucli.StringFlag{Name: "line", Usage: "a corridor: the ground within --radius of the GeoJSON LineString or MultiLineString in `FILE` (- for standard input, the GeoJSON itself, or WKT; or a GPX file's tracks and routes), a route; with no --radius, the line itself (a road)"}))
}

// sectorRegionFlags are regionFlags with --sector after the circle's.
func sectorRegionFlags() []ucli.Flag {
	flags := regionFlags()
	radius := slices.IndexFunc(flags, func(f ucli.Flag) bool { return f.Names()[0] == "radius" })
	return slices.Insert(flags, radius+1, sectorRegionFlag())
}

// regionFlags are the flags that describe a region: a circle, a box (by
// its corners, or a map tile or geohash cell) or a polygon (flagRegion
// reads them).
func regionFlags() []ucli.Flag {
	return append([]ucli.Flag{
		&ucli.Float64Flag{Name: "lat", Usage: "a circle's centre latitude, degrees", DefaultText: "none"},
		&ucli.Float64Flag{Name: "lon", Usage: "a circle's centre longitude, degrees", DefaultText: "none"},
		&ucli.StringFlag{Name: "radius", Aliases: []string{"r"}, Usage: "a circle's `DISTANCE`: 500m, 2km, 1.5mi, 300ft"},
		&ucli.Float64Flag{Name: "min-lat", Usage: "a box's southern edge, degrees", DefaultText: "none"},
		&ucli.Float64Flag{Name: "min-lon", Usage: "its western edge (east of --max-lon to cross ±180°)", DefaultText: "none"},
		&ucli.Float64Flag{Name: "max-lat", Usage: "its northern edge", DefaultText: "none"},
		&ucli.Float64Flag{Name: "max-lon", Usage: "its eastern edge", DefaultText: "none"},
		&ucli.StringFlag{Name: "polygon", Usage: "GeoJSON `FILE`, - for standard input, or the GeoJSON itself, or WKT ('POLYGON((lon lat, …))')"},
	}, areaFlags()...)
}

// fencePut builds the one fence its flags describe.
func fencePut(c *ucli.Context) error {
	if c.NArg() != 1 {
		return wantsOneID(c)
	}
	f, err := flagRegion(c, "fence put")
	if err != nil {
		return err
	}
	f.ID = c.Args().First()
	if v := c.String("payload"); v != "" {
		f.Payload = []byte(v)
	}
	if f.Expires, err = expiresFromTTL(c); err != nil {
		return err
	}
	return updateDB(c, func(tx keyspace.Tx) error { return geo.NewFences(c.String("fences")).Put(tx, f) })
}

// flagRegion is the one region regionFlags describe, as a fence with no
// id; cmd names the command in a usage error.
func flagRegion(c *ucli.Context, cmd string) (geo.Fence, error) {
	var f geo.Fence
	kinds := 0
	if c.IsSet("line") {
		kinds++
		line, err := readLine(c)
		if err != nil {
			return f, err
		}
		f.Corridor = &geo.Corridor{Line: line}
		if c.IsSet("radius") {
			if f.Corridor.Radius, err = parseDistance(c.String("radius")); err != nil {
				return f, usageError{fmt.Errorf("--radius: %w", err)}
			}
		}
	}
	switch {
	case c.IsSet("line") && (c.IsSet("lat") || c.IsSet("lon") || c.IsSet("sector")):
		kinds++ // a circle's flags with a corridor's: the usage below
	case c.IsSet("lat") || c.IsSet("lon") || !c.IsSet("line") && c.IsSet("radius") || c.IsSet("sector"):
		kinds++
		from, to, sector, err := sectorOf(c)
		switch {
		case err != nil:
			return f, err
		case sector && (!c.IsSet("lat") || !c.IsSet("lon")):
			return f, usagef("a sector wants --lat and --lon, and --radius unless it is the bearings alone")
		case !sector && (!c.IsSet("lat") || !c.IsSet("lon") || !c.IsSet("radius")):
			return f, usagef("a circle wants --lat, --lon and --radius")
		}
		r := math.Inf(1) // a sector with no radius: its bearings alone
		if c.IsSet("radius") {
			if r, err = parseDistance(c.String("radius")); err != nil {
				return f, usageError{fmt.Errorf("--radius: %w", err)}
			}
		}
		if sector {
			f.Sector = &geo.Sector{Lat: c.Float64("lat"), Lon: c.Float64("lon"), Radius: r, From: from, To: to}
		} else {
			f.Circle = &geo.Circle{Lat: c.Float64("lat"), Lon: c.Float64("lon"), Radius: r}
		}
	}
	edges := []string{"min-lat", "min-lon", "max-lat", "max-lon"}
	set := 0
	for _, e := range edges {
		if c.IsSet(e) {
			set++
		}
	}
	if set > 0 {
		kinds++
		if set != len(edges) {
			return f, usagef("a box wants --min-lat, --min-lon, --max-lat and --max-lon")
		}
		f.Box = &geo.Box{MinLat: c.Float64("min-lat"), MinLon: c.Float64("min-lon"), MaxLat: c.Float64("max-lat"), MaxLon: c.Float64("max-lon")}
	}
	if area, named, err := areaBox(c); err != nil {
		return f, err
	} else if named {
		kinds++
		f.Box = &area
	}
	if c.IsSet("polygon") {
		kinds++
		g, err := readPolygon(c, c.String("polygon"))
		if err != nil {
			return f, err
		}
		f.Polygon = g
	}
	if kinds != 1 {
		circle := "a circle (--lat, --lon, --radius)"
		if slices.ContainsFunc(c.Command.Flags, func(f ucli.Flag) bool { return f.Names()[0] == "sector" }) {
			circle = "a circle (--lat, --lon, --radius) or a sector of it (--sector)"
		}
		corridor := ""
		if slices.ContainsFunc(c.Command.Flags, func(f ucli.Flag) bool { return f.Names()[0] == "line" }) {
			corridor = ", a corridor (--line, --radius)"
		}
		return f, usagef("%s wants one region: %s, a box (--min-lat, --min-lon, --max-lat, --max-lon, or --tile, --quadkey or --hash)%s or --polygon", cmd, circle, corridor)
	}
	return f, nil
}
