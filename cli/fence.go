package cli

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/geo"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"
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
// As GeoJSON a fence is a Feature with its id: a circle is a Point with a
// "radius" property in metres; a box is a Polygon of its outline with the
// standard "bbox" member [west, south, east, north] (west > east crosses
// ±180°, RFC 7946 §5.2) and "fence": "box", which import reads back as the
// box, not as a polygon; a sector is a Point, its apex, with "fence":
// "sector", "from" and "to" (bearings in degrees) and "radius" (none for
// the bearings alone); a corridor is its LineString or MultiLineString
// with a "radius" property in metres (0, or none, for the line itself);
// anything else is its Polygon or MultiPolygon. A
// fence that expires has an "expires" property, RFC 3339 to the
// nanosecond, which import reads back as its expiry.

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
				Usage: "add or replace fences, all or none unless --skip-bad: a GeoJSON FeatureCollection's polygons, circles (a Point with a radius property in metres), corridors (a LineString or MultiLineString, with a radius property for the ground either side), boxes and sectors as fence get writes them, circles (or with --sector-cols, sectors) from the rows of a CSV, TSV, NDJSON, JSON or XML file (id, lat, lon and radius columns; the other columns the payload), or a GPX file's tracks and routes as corridors and its waypoints as circles (--radius)",
				UsageText: "keyspace fence import --fences zones zones.geojson\n" +
					"keyspace fence import --fences states --id-property name states.geojson\n" +
					"keyspace fence import --fences closures --ttl 2h closures.geojson\n" +
					"keyspace fence import --fences delivery --id-col store --radius-col reach stores.csv   # store,lat,lon,reach: 3km\n" +
					"keyspace fence import --fences cameras --sector-cols left,right cameras.csv   # id,lat,lon,radius,left,right\n" +
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
				Usage:     "every fence of a set, in id order, a page at a time with --limit (Tile38's SCAN on a collection of objects); --svg draws them",
				UsageText: "keyspace fence list --fences zones\nkeyspace fence list --fences zones --svg zones.svg\nkeyspace fence list --fences zones --limit 100 --cursor zone-0420",
				Flags: []ucli.Flag{fencesFlag(), fenceSVGFlag(), matchFlag("fences"),
					&ucli.IntFlag{Name: "limit", Aliases: []string{"n"}, Usage: "at most `N` fences per page", DefaultText: "all"},
					&ucli.StringFlag{Name: "cursor", Usage: "continue after the fence `ID` a previous page ended with"},
					fieldsFlag("fence's payload"),
				},
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
				}, pointFileFlags("a FILE's")...),
				Action: fenceContaining,
			},
			{
				Name:  "intersecting",
				Usage: "the fences that share a point with an area (Tile38's INTERSECTS): a circle (--lat, --lon, --radius) or a sector of it (--sector FROM,TO; with no --radius, the bearings alone), a box (--min-lat … --max-lon, or a map tile or geohash cell: --tile, --quadkey, --hash), a GeoJSON polygon (--polygon) or a corridor (--line, --radius: as fence along)",
				UsageText: "keyspace fence intersecting --fences zones --lat 37.775 --lon -122.415 --radius 1km\n" +
					"keyspace fence intersecting --fences zones --lat 37.775 --lon -122.415 --radius 2km --sector 45,135\n" +
					"keyspace fence intersecting --fences zones --polygon district.geojson --payloads\n" +
					"keyspace fence intersecting --fences zones --fence downtown",
				Flags: append(append([]ucli.Flag{fencesFlag()}, fenceRegionFlags()...),
					&ucli.StringFlag{Name: "fence", Usage: "the area is the set's fence `ID`, which is left out of the answer (Tile38's INTERSECTS … GET)"},
					&ucli.StringFlag{Name: "buffer", Usage: "with a polygon (--polygon, or a polygon --fence): the fences within `DISTANCE` of it too (Tile38's INTERSECTS … BUFFER): 500m, 2km; bare numbers are metres"},
					&ucli.BoolFlag{Name: "payloads", Usage: "each fence with its payload"},
					areaSVGFlag(),
				),
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
				Flags: append(append([]ucli.Flag{fencesFlag()}, fenceRegionFlags()...),
					&ucli.StringFlag{Name: "fence", Usage: "the area is the set's fence `ID`, which is left out of the answer (Tile38's WITHIN … GET)"},
					&ucli.BoolFlag{Name: "payloads", Usage: "each fence with its payload"},
					areaSVGFlag(),
				),
				Action: fenceAreaQuery("fence within", (*geo.Fences).Within),
			},
			{
				Name:  "along",
				Usage: "the fences within a distance of a GeoJSON LineString or MultiLineString (a route, a flight plan; Tile38's INTERSECTS … BUFFER on a fence set); with no --radius, the fences the line passes through or touches",
				UsageText: "keyspace fence along --fences zones --line route.geojson\n" +
					"keyspace fence along --fences tolls --line drive.gpx --in-order   # the toll zones of a drive, in order, and where each begins\n" +
					"keyspace fence along --fences airspace --line '{\"type\":\"LineString\",\"coordinates\":[[2.35,48.86],[4.84,45.76]]}' --radius 5km --payloads",
				Flags: []ucli.Flag{fencesFlag(),
					&ucli.StringFlag{Name: "line", Required: true, Usage: "GeoJSON `FILE`, - for standard input, or the GeoJSON itself ('{\"type\":\"LineString\",…}'): a LineString or MultiLineString, its edges straight in longitude and latitude; or a GPX file's tracks and routes"},
					&ucli.StringFlag{Name: "radius", Aliases: []string{"r"}, Value: "0", Usage: "`DISTANCE` from the line: 500m, 2km, 1.5mi, 300ft; bare numbers are metres"},
					&ucli.BoolFlag{Name: "in-order", Usage: "the fences in the order the line reaches them, each with how far along the line it first comes within --radius"},
					&ucli.BoolFlag{Name: "payloads", Usage: "each fence with its payload"},
					areaSVGFlag(),
				},
				Action: fenceAlong,
			},
			{
				Name:  "near",
				Usage: "the fences within a distance of a point, nearest first, each with its distance (0 for one that holds it): Tile38's NEARBY on a fence set",
				UsageText: "keyspace fence near --fences zones --lat 37.7749 --lon -122.4194 --radius 5km\n" +
					"keyspace fence near --fences zones --index fleet --from car-7 --radius 2km --k 3 --payloads",
				Flags: []ucli.Flag{fencesFlag(),
					&ucli.Float64Flag{Name: "lat", Usage: "latitude, degrees", DefaultText: "none"},
					&ucli.Float64Flag{Name: "lon", Usage: "longitude, degrees", DefaultText: "none"},
					&ucli.StringFlag{Name: "index", Aliases: []string{"i"}, Usage: "the geo index `NAME` of --from"},
					&ucli.StringFlag{Name: "from", Usage: "from the point `ID` of --index"},
					&ucli.StringFlag{Name: "radius", Aliases: []string{"r"}, Required: true, Usage: "`DISTANCE`: 500m, 2km, 1.5mi, 300ft"},
					&ucli.IntFlag{Name: "k", Usage: "at most `N` fences, the nearest", DefaultText: "all"},
					&ucli.BoolFlag{Name: "payloads", Usage: "each fence with its payload"},
				},
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
	return slices.Insert(flags, radius+1, ucli.Flag(&ucli.StringFlag{Name: "line", Usage: "a corridor: the ground within --radius of the GeoJSON LineString or MultiLineString in `FILE` (- for standard input, or the GeoJSON itself; or a GPX file's tracks and routes), a route; with no --radius, the line itself (a road)"}))
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
		&ucli.StringFlag{Name: "polygon", Usage: "GeoJSON `FILE`, - for standard input, or the GeoJSON itself"},
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

// fenceImport reads a FeatureCollection, a file of rows or a GPX file and
// puts its fences with one PutAll: a bad feature, row, track, route or
// waypoint, named by its place in the file, imports nothing, or with
// --skip-bad is left out and named in the report.
func fenceImport(c *ucli.Context) error {
	if c.NArg() != 1 {
		return usagef("fence import wants one FILE (- for standard input)")
	}
	expires, err := expiresFromTTL(c)
	if err != nil {
		return err
	}
	in, err := openImport(c, importFormats)
	if err != nil {
		return err
	}
	defer in.close()
	var fences []geo.Fence
	bad := newBadRows(c, in.name)
	gpx := in.format == "xml" && isGPX(in.in)
	radius := 0.0 // --radius: lines' width
	if c.IsSet("radius") {
		if !gpx && in.format != "geojson" {
			return usagef("--radius is the width of a GPX file's tracks and routes, or of a GeoJSON file's lines; a file of rows takes --radius-col")
		}
		if radius, err = parseDistance(c.String("radius")); err != nil {
			return usageError{fmt.Errorf("--radius: %w", err)}
		}
	}
	switch {
	case gpx:
		fences, err = gpxImport(in, radius, bad)
	case in.format == "geojson":
		fences, err = featureFences(c, in, radius, bad)
	default:
		fences, err = circleFences(c, in, bad)
	}
	if err != nil {
		return err
	}
	if !expires.IsZero() {
		for i := range fences {
			fences[i].Expires = expires // --ttl, over any expires property
		}
	}
	name := c.String("fences")
	err = updateDB(c, func(tx keyspace.Tx) error { return geo.NewFences(name).PutAll(tx, fences) })
	if err != nil {
		return err
	}
	if !c.Bool("quiet") {
		reportImport(c, count(len(fences), "fence"), "fence set "+name, bad.rows)
	}
	return nil
}

// gpxImport reads a GPX file's tracks and routes as corridors (gpxFences),
// radius metres either side of them, and its waypoints as circles.
func gpxImport(in *importInput, radius float64, bad *badRows) ([]geo.Fence, error) {
	b, err := io.ReadAll(in.in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.name, err)
	}
	return gpxFences(b, in.name, radius, bad)
}

// featureFences reads the fences of a GeoJSON FeatureCollection
// (featureFence); a line with no radius property is a corridor radius
// metres wide. A feature that makes no fence is a bad row of bad.
func featureFences(c *ucli.Context, in *importInput, radius float64, bad *badRows) ([]geo.Fence, error) {
	b, err := io.ReadAll(in.in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.name, err)
	}
	fc, err := geojson.UnmarshalFeatureCollection(b)
	if err != nil {
		return nil, fmt.Errorf("%s: not a GeoJSON FeatureCollection: %w", in.name, err)
	}
	numbered, err := numberedFeatures(b, len(fc.Features))
	if err != nil {
		return nil, fmt.Errorf("%s: not a GeoJSON FeatureCollection: %w", in.name, err)
	}
	fences := make([]geo.Fence, 0, len(fc.Features))
	for i, feat := range fc.Features {
		f, err := featureFence(feat, numbered[i], c.String("id-property"), radius)
		if err == nil {
			err = f.Validate()
		}
		if err != nil {
			if err := bad.add(fmt.Sprintf("feature %d of %d", i+1, len(fc.Features)), err); err != nil {
				return nil, err
			}
			continue
		}
		fences = append(fences, f)
	}
	return fences, nil
}

// circleFences reads circles from the rows of a CSV, TSV, NDJSON, JSON or
// XML file: each row's id, centre and radius (--id-col, --lat-col,
// --lon-col, --radius-col; the radius in metres, or a distance with its
// unit, 2km), the row's other fields its payload, as geo import makes a
// point's; with --sector-cols FROM,TO, sectors of those circles between
// the bearings in those columns. A bad row is a bad row of bad: it stops
// the import, named, with nothing written, or with --skip-bad is left
// out.
func circleFences(c *ucli.Context, in *importInput, bad *badRows) ([]geo.Fence, error) {
	rows, err := in.rows(c)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, nil
	}
	spec, err := newColumnSpec(c, rows, false)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.name, err)
	}
	radius := c.String("radius-col")
	if !anyRowHas(rows, radius) {
		return nil, fmt.Errorf("%s: no row has a %s column (name the radius with --radius-col; nothing imported)%s", in.name, radius, columnHint(rowColumns(rows), radius))
	}
	spec.also = []string{radius}
	var bearings []string // the sectors' FROM and TO columns
	if c.IsSet("sector-cols") {
		bearings = strings.Split(c.String("sector-cols"), ",")
		if len(bearings) != 2 || strings.TrimSpace(bearings[0]) == "" || strings.TrimSpace(bearings[1]) == "" {
			return nil, usagef("--sector-cols %q: want the two columns of a sector's bearings, FROM,TO", c.String("sector-cols"))
		}
		for i, col := range bearings {
			bearings[i] = strings.TrimSpace(col)
			if !anyRowHas(rows, bearings[i]) {
				return nil, fmt.Errorf("%s: no row has a %s column (--sector-cols; nothing imported)%s", in.name, bearings[i], columnHint(rowColumns(rows), bearings[i]))
			}
		}
		spec.also = append(spec.also, bearings...)
	}
	fences := make([]geo.Fence, 0, len(rows))
	for _, r := range rows {
		p, err := spec.point(r)
		var metres float64
		if err == nil {
			text, ok := r.field(radius)
			if !ok {
				err = fmt.Errorf("no radius: the row has no %s", radius)
			} else if metres, err = parseDistance(strings.TrimSpace(text)); err != nil {
				err = fmt.Errorf("radius (column %q): %w", radius, err)
			}
		}
		f := geo.Fence{ID: p.ID, Circle: &geo.Circle{Lat: p.Lat, Lon: p.Lon, Radius: metres}, Payload: p.Payload}
		if bearings != nil && err == nil {
			var b [2]float64
			for i, col := range bearings {
				text, ok := r.field(col)
				if !ok {
					err = fmt.Errorf("no bearing: the row has no %s", col)
					break
				}
				if b[i], err = strconv.ParseFloat(strings.TrimSpace(text), 64); err != nil {
					err = fmt.Errorf("bearing (column %q): %q is not a number of degrees", col, text)
					break
				}
			}
			f.Circle, f.Sector = nil, &geo.Sector{Lat: p.Lat, Lon: p.Lon, Radius: metres, From: b[0], To: b[1]}
		}
		if err == nil {
			err = f.Validate()
		}
		if err != nil {
			if err := bad.add(r.where(), err); err != nil {
				return nil, err
			}
			continue
		}
		fences = append(fences, f)
	}
	return fences, nil
}

// featureFence is the fence a GeoJSON feature describes (see the top of
// this file); a line with no radius property is a corridor radius metres
// wide. numbered is its id and properties with their numbers as written,
// which its id and payload are taken from.
func featureFence(feat *geojson.Feature, numbered numberedFeature, idProperty string, radius float64) (f geo.Fence, err error) {
	id := numbered.ID
	if idProperty != "" {
		id = numbered.Properties[idProperty]
	}
	f.ID = jsonField(id) // a number as written: 1142170, not 1.14217e+06
	if f.ID == "" {
		if idProperty != "" {
			return f, fmt.Errorf("no %q property to take its id from", idProperty)
		}
		return f, errors.New("no id (give features an id, or name a property with --id-property)")
	}
	if feat.Geometry == nil {
		return f, fmt.Errorf("fence %q has no geometry", f.ID)
	}
	// The properties are the payload, less those that say the region.
	props := map[string]any{}
	for k, v := range numbered.Properties {
		props[k] = v
	}
	defer func() {
		if s, ok := props["payload"].(string); ok && len(props) == 1 {
			f.Payload = []byte(s) // a payload that is not a JSON object, as fenceFeature writes it
		} else if len(props) > 0 {
			f.Payload, _ = marshal(props)
		}
	}()
	if e, ok := feat.Properties["expires"]; ok {
		s, _ := e.(string)
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			b, _ := marshal(e)
			return f, fmt.Errorf("fence %q: expires property %s: want an RFC 3339 time, as fence get writes it", f.ID, b)
		}
		delete(props, "expires")
		f.Expires = t
	}
	if kind, _ := feat.Properties["fence"].(string); kind == "sector" {
		return sectorFeature(f, feat, props)
	}
	if kind, _ := feat.Properties["fence"].(string); kind == "box" {
		delete(props, "fence")
		if len(feat.BBox) != 4 {
			return f, fmt.Errorf("box %q wants a bbox of [west, south, east, north], has %v", f.ID, []float64(feat.BBox))
		}
		bb := feat.BBox
		f.Box = &geo.Box{MinLon: bb[0], MinLat: bb[1], MaxLon: bb[2], MaxLat: bb[3]}
		return f, nil
	}
	switch g := feat.Geometry.(type) {
	case orb.Point:
		r, ok := feat.Properties["radius"].(float64)
		if !ok {
			return f, fmt.Errorf("point %q wants a radius property in metres to be a circle", f.ID)
		}
		delete(props, "radius")
		f.Circle = &geo.Circle{Lat: g.Lat(), Lon: g.Lon(), Radius: r}
	case orb.Polygon, orb.MultiPolygon:
		f.Polygon = g
	case orb.LineString, orb.MultiLineString:
		f.Corridor = &geo.Corridor{Line: g, Radius: radius}
		if v, set := feat.Properties["radius"]; set {
			r, ok := v.(float64)
			if !ok {
				b, _ := marshal(v)
				return f, fmt.Errorf("corridor %q: radius property %s: want a number of metres", f.ID, b)
			}
			f.Corridor.Radius = r
			delete(props, "radius")
		}
	default:
		return f, fmt.Errorf("fence %q is a %s; give a Polygon, a MultiPolygon, a LineString or a Point with a radius", f.ID, feat.Geometry.GeoJSONType())
	}
	return f, nil
}

// sectorFeature reads a sector as fenceGeometry writes it: a Point, its
// apex, with the properties fence "sector", from and to (degrees) and
// radius (metres; none for the bearings alone). Those properties are
// taken out of props, the payload.
func sectorFeature(f geo.Fence, feat *geojson.Feature, props map[string]any) (geo.Fence, error) {
	apex, ok := feat.Geometry.(orb.Point)
	if !ok {
		return f, fmt.Errorf("sector %q wants a Point, its apex; has a %s", f.ID, feat.Geometry.GeoJSONType())
	}
	s := geo.Sector{Lat: apex.Lat(), Lon: apex.Lon(), Radius: math.Inf(1)}
	for _, p := range []struct {
		name string
		to   *float64
		need bool
	}{{"from", &s.From, true}, {"to", &s.To, true}, {"radius", &s.Radius, false}} {
		v, set := feat.Properties[p.name]
		n, isNumber := v.(float64)
		switch {
		case set && !isNumber:
			b, _ := marshal(v)
			return f, fmt.Errorf("sector %q: %s property %s: want a number", f.ID, p.name, b)
		case set:
			*p.to = n
		case p.need:
			return f, fmt.Errorf("sector %q wants a %s property: a bearing in degrees", f.ID, p.name)
		}
		delete(props, p.name)
	}
	delete(props, "fence")
	f.Sector = &s
	return f, nil
}

// fenceFeature is f as GeoJSON (see the top of this file), its payload
// the feature's properties when it is a JSON object, else a "payload"
// property.
func fenceFeature(f geo.Fence) *geojson.Feature {
	feat := fenceGeometry(f)
	if !f.Expires.IsZero() {
		feat.Properties["expires"] = exactExpires(f.Expires)
	}
	if len(f.Payload) > 0 {
		var props map[string]any
		if decodeJSON(f.Payload, &props) != nil || props == nil {
			props = map[string]any{"payload": payloadJSON(f.Payload)}
		}
		for k, v := range props {
			if _, taken := feat.Properties[k]; !taken {
				feat.Properties[k] = v
			}
		}
	}
	return feat
}

// fenceGeometry is f's region as a GeoJSON feature: a sector as a Point
// at its apex with the properties fence "sector", from, to and radius
// (left out for the bearings alone), as a circle is its centre and radius.
func fenceGeometry(f geo.Fence) *geojson.Feature {
	switch {
	case f.Sector != nil:
		s := f.Sector
		feat := geojson.NewFeature(orb.Point{s.Lon, s.Lat})
		feat.Properties["fence"] = "sector"
		feat.Properties["from"], feat.Properties["to"] = s.From, s.To
		if !math.IsInf(s.Radius, 1) {
			feat.Properties["radius"] = s.Radius
		}
		feat.ID = f.ID
		return feat
	case f.Circle != nil:
		feat := geojson.NewFeature(orb.Point{f.Circle.Lon, f.Circle.Lat})
		feat.Properties["radius"] = f.Circle.Radius
		feat.ID = f.ID
		return feat
	case f.Box != nil:
		b := f.Box
		feat := geojson.NewFeature(boxGeometry(*b))
		feat.BBox = geojson.BBox{b.MinLon, b.MinLat, b.MaxLon, b.MaxLat}
		feat.Properties["fence"] = "box"
		feat.ID = f.ID
		return feat
	case f.Corridor != nil:
		feat := geojson.NewFeature(f.Corridor.Line)
		feat.Properties["radius"] = f.Corridor.Radius
		feat.ID = f.ID
		return feat
	}
	feat := geojson.NewFeature(f.Polygon)
	feat.ID = f.ID
	return feat
}

// fenceKind and fenceRegion describe a fence in a table.
func fenceKind(f geo.Fence) string {
	switch {
	case f.Corridor != nil:
		return "corridor"
	case f.Sector != nil:
		return "sector"
	case f.Circle != nil:
		return "circle"
	case f.Box != nil:
		return "box"
	}
	if _, ok := f.Polygon.(orb.MultiPolygon); ok {
		return "multipolygon"
	}
	return "polygon"
}

func fenceRegion(f geo.Fence) string {
	switch {
	case f.Sector != nil && math.IsInf(f.Sector.Radius, 1):
		s := f.Sector
		return fmt.Sprintf("bearings %g to %g from %.6f, %.6f", s.From, s.To, s.Lat, s.Lon)
	case f.Sector != nil:
		s := f.Sector
		return fmt.Sprintf("%s around %.6f, %.6f, bearings %g to %g", formatDistance(s.Radius), s.Lat, s.Lon, s.From, s.To)
	case f.Circle != nil:
		return fmt.Sprintf("%s around %.6f, %.6f", formatDistance(f.Circle.Radius), f.Circle.Lat, f.Circle.Lon)
	case f.Box != nil:
		b := f.Box
		return fmt.Sprintf("lat %g to %g, lon %g to %g", b.MinLat, b.MaxLat, b.MinLon, b.MaxLon)
	case f.Corridor != nil:
		b := f.Corridor.Line.Bound()
		within := "on"
		if f.Corridor.Radius > 0 {
			within = formatDistance(f.Corridor.Radius) + " either side of"
		}
		return fmt.Sprintf("%s a line of %d positions within lat %.4f to %.4f, lon %.4f to %.4f", within, linePositions(f.Corridor.Line), b.Min.Lat(), b.Max.Lat(), b.Min.Lon(), b.Max.Lon())
	}
	b := f.Polygon.Bound()
	return fmt.Sprintf("%d vertices within lat %.4f to %.4f, lon %.4f to %.4f", vertices(f.Polygon), b.Min.Lat(), b.Max.Lat(), b.Min.Lon(), b.Max.Lon())
}

// linePositions is the number of positions of a LineString or
// MultiLineString.
func linePositions(g orb.Geometry) int {
	n := 0
	for _, ls := range lineStrings(g) {
		n += len(ls)
	}
	return n
}

// lineStrings is g, a LineString or MultiLineString, as the latter; nil
// for anything else.
func lineStrings(g orb.Geometry) orb.MultiLineString {
	switch g := g.(type) {
	case orb.LineString:
		return orb.MultiLineString{g}
	case orb.MultiLineString:
		return g
	}
	return nil
}

func vertices(g orb.Geometry) int {
	n := 0
	switch g := g.(type) {
	case orb.Polygon:
		for _, r := range g {
			n += max(0, len(r)-1)
		}
	case orb.MultiPolygon:
		for _, p := range g {
			n += vertices(p)
		}
	}
	return n
}

func fenceGet(c *ucli.Context) error {
	if c.NArg() == 0 {
		return usagef("fence get wants at least one ID")
	}
	format, err := output(c, "table", "json", "geojson")
	if err != nil {
		return err
	}
	fs := geo.NewFences(c.String("fences"))
	return viewDB(c, func(tx keyspace.Tx) error {
		var fences []geo.Fence
		for _, id := range c.Args().Slice() {
			f, err := fs.Get(tx, id)
			if err != nil {
				return err
			}
			fences = append(fences, f)
		}
		return writeFences(c, format, fences, "")
	})
}

func writeFences(c *ucli.Context, format string, fences []geo.Fence, next string) error {
	fields, err := fieldsOf(c)
	if err != nil {
		return err
	}
	if fields != nil {
		projected := make([]geo.Fence, len(fences))
		for i, f := range fences {
			projected[i] = f
			projected[i].Payload = projectPayload(f.Payload, fields)
		}
		fences = projected
	}
	fc := geojson.NewFeatureCollection()
	for _, f := range fences {
		fc.Append(fenceFeature(f))
	}
	switch format {
	case "geojson":
		writeNextPage(c.App.ErrWriter, next) // a FeatureCollection has no place for it
		return writeJSON(c.App.Writer, fc)
	case "json":
		return writeJSON(c.App.Writer, struct {
			Fences []*geojson.Feature `json:"fences"`
			Next   string             `json:"next,omitempty"`
		}{fc.Features, next})
	}
	// An EXPIRES column when some fence expires.
	expiring := slices.ContainsFunc(fences, func(f geo.Fence) bool { return !f.Expires.IsZero() })
	tw := newTable(c.App.Writer)
	if expiring {
		fmt.Fprintln(tw, "ID\tKIND\tREGION\tEXPIRES\tPAYLOAD")
	} else {
		fmt.Fprintln(tw, "ID\tKIND\tREGION\tPAYLOAD")
	}
	for _, f := range fences {
		fmt.Fprintf(tw, "%s\t%s\t%s\t", f.ID, fenceKind(f), fenceRegion(f))
		if expiring {
			fmt.Fprintf(tw, "%s\t", cmp.Or(formatExpires(f.Expires), "never"))
		}
		fmt.Fprintf(tw, "%s\n", payloadCell(f.Payload))
	}
	return tw.Flush()
}

func fenceList(c *ucli.Context) error {
	format, err := output(c, "table", "json", "geojson")
	if err != nil {
		return err
	}
	fs := geo.NewFences(c.String("fences"))
	return viewDB(c, func(tx keyspace.Tx) error {
		if err := requireFences(fs, tx); err != nil {
			return err
		}
		ids, err := fs.IDs(tx)
		if err != nil {
			return err
		}
		if matches, _ := idMatcher(c); matches != nil {
			ids = slices.DeleteFunc(ids, func(id string) bool { return !matches(id) })
		}
		// A page: the ids after the cursor, --limit of them.
		limit, err := limitOf(c)
		if err != nil {
			return err
		}
		if cursor := c.String("cursor"); cursor != "" {
			i, found := slices.BinarySearch(ids, cursor)
			if found {
				i++
			}
			ids = ids[i:]
		}
		next := ""
		if limit > 0 && len(ids) > limit {
			ids = ids[:limit]
			next = ids[limit-1]
		}
		var fences []geo.Fence
		for _, id := range ids {
			f, err := fs.Get(tx, id)
			if errors.Is(err, keyspace.ErrNotFound) {
				continue // it expired since IDs listed it
			}
			if err != nil {
				return err
			}
			fences = append(fences, f)
		}
		if path := c.String("svg"); path != "" {
			if err := writeFencesSVG(path, fences, nil, nil, nil); err != nil {
				return err
			}
		}
		if err := writeFences(c, format, fences, next); err != nil || format != "table" {
			return err
		}
		_, err = fmt.Fprintln(c.App.Writer, count(len(fences), "fence"))
		if err == nil {
			err = writeNextPage(c.App.Writer, next)
		}
		return err
	})
}

func fenceDel(c *ucli.Context) error {
	if c.NArg() == 0 {
		return usagef("fence del wants at least one ID")
	}
	fs := geo.NewFences(c.String("fences"))
	return updateDB(c, func(tx keyspace.Tx) error {
		for _, id := range c.Args().Slice() {
			if err := fs.Delete(tx, id); err != nil {
				return err
			}
		}
		return nil
	})
}

func fenceContaining(c *ucli.Context) error {
	if c.NArg() > 0 {
		if c.IsSet("from") || c.IsSet("index") || c.IsSet("lat") || c.IsSet("lon") {
			return usagef("fence containing takes a FILE, or --lat and --lon, or --index and --from: one of them")
		}
		return fenceContainingFile(c)
	}
	format, err := output(c, "table", "json")
	if err != nil {
		return err
	}
	at, err := flagPoint(c, "fence containing wants --lat and --lon, or --index and --from, or a FILE")
	if err != nil {
		return err
	}
	fs := geo.NewFences(c.String("fences"))
	return viewDB(c, func(tx keyspace.Tx) error {
		lat, lon, err := at(tx)
		if err != nil {
			return err
		}
		if err := requireFences(fs, tx); err != nil {
			return err
		}
		ids, err := fs.Containing(tx, lat, lon)
		if err != nil {
			return err
		}
		if path := c.String("svg"); path != "" {
			var held []geo.Fence // drawn: the fences that hold the point
			for _, id := range ids {
				f, err := fs.Get(tx, id)
				if errors.Is(err, keyspace.ErrNotFound) {
					continue // it expired since the lookup found it
				}
				if err != nil {
					return err
				}
				held = append(held, f)
			}
			if err := writeFencesSVG(path, held, &[2]float64{lat, lon}, ids, nil); err != nil {
				return err
			}
		}
		return writeFenceIDs(c, format, fs, tx, ids)
	})
}

// flagPoint checks the flags that name a point, --lat and --lon or
// --index and --from (wants is the usage error for neither or both), and
// returns the reading of the point in a transaction.
func flagPoint(c *ucli.Context, wants string) (func(tx keyspace.Tx) (lat, lon float64, err error), error) {
	byPoint, byCoords := c.IsSet("from") || c.IsSet("index"), c.IsSet("lat") || c.IsSet("lon")
	switch {
	case byPoint == byCoords:
		return nil, usagef("%s", wants)
	case byPoint && (!c.IsSet("from") || !c.IsSet("index")):
		return nil, usagef("--from wants --index, and --index wants --from")
	case byCoords && (!c.IsSet("lat") || !c.IsSet("lon")):
		return nil, usagef("--lat wants --lon, and --lon wants --lat")
	}
	return func(tx keyspace.Tx) (float64, float64, error) {
		if !byPoint {
			return c.Float64("lat"), c.Float64("lon"), nil
		}
		p, err := getPoint(geo.NewIndex(c.String("index")), tx, c.String("from"))
		return p.Lat, p.Lon, err
	}, nil
}

// fenceNear is fence near: the fences within --radius of a point given
// by --lat and --lon or by a geo point, nearest first.
func fenceNear(c *ucli.Context) error {
	format, err := output(c, "table", "json")
	if err != nil {
		return err
	}
	at, err := flagPoint(c, "fence near wants --lat and --lon, or --index and --from")
	if err != nil {
		return err
	}
	if c.Int("k") < 0 {
		return usagef("--k %d: want a count of fences, or leave it out for all", c.Int("k"))
	}
	radius, err := parseDistance(c.String("radius"))
	if err != nil {
		return usageError{fmt.Errorf("--radius: %w", err)}
	}
	fs := geo.NewFences(c.String("fences"))
	return viewDB(c, func(tx keyspace.Tx) error {
		lat, lon, err := at(tx)
		if err != nil {
			return err
		}
		if err := requireFences(fs, tx); err != nil {
			return err
		}
		near, err := fs.Near(tx, lat, lon, radius, c.Int("k"))
		if err != nil {
			return err
		}
		ids, distances := make([]string, len(near)), make([]float64, len(near))
		for i, n := range near {
			ids[i], distances[i] = n.ID, n.Distance
		}
		return writeFenceDistances(c, format, fs, tx, ids, distances, false)
	})
}

// fenceAreaQuery is fence intersecting or fence within (the command
// named cmd): the fences that query finds for the area the flags
// describe, or for the set's fence --fence, which is left out.
func fenceAreaQuery(cmd string, query func(fs *geo.Fences, tx keyspace.Tx, area geo.Fence) ([]string, error)) ucli.ActionFunc {
	return func(c *ucli.Context) error {
		format, err := output(c, "table", "json")
		if err != nil {
			return err
		}
		var area geo.Fence
		self := c.String("fence") // the area's own id, when it is a stored fence
		if self == "" {
			if area, err = flagRegion(c, cmd); err != nil {
				return err
			}
		} else if c.IsSet("sector") || slices.ContainsFunc(regionFlags(), func(f ucli.Flag) bool { return c.IsSet(f.Names()[0]) }) {
			return usagef("%s takes --fence or a region, not both", cmd)
		}
		buffer := -1.0 // none
		if c.IsSet("buffer") {
			if buffer, err = parseDistance(c.String("buffer")); err != nil {
				return usageError{fmt.Errorf("--buffer: %w", err)}
			}
			if self == "" && area.Polygon == nil {
				return usagef("--buffer goes with a polygon: --polygon, or a polygon --fence")
			}
		}
		fs := geo.NewFences(c.String("fences"))
		return viewDB(c, func(tx keyspace.Tx) error {
			if err := requireFences(fs, tx); err != nil {
				return err
			}
			if self != "" {
				if area, err = fs.Get(tx, self); err != nil {
					return err
				}
				if buffer >= 0 && area.Polygon == nil {
					return usagef("--buffer goes with a polygon; fence %s is not one", self)
				}
			}
			var ids []string
			if buffer >= 0 {
				ids, err = fs.NearPolygon(tx, area.Polygon, buffer)
			} else {
				ids, err = query(fs, tx, area)
			}
			if err != nil {
				return err
			}
			ids = slices.DeleteFunc(ids, func(id string) bool { return id == self })
			if path := c.String("svg"); path != "" {
				var found []geo.Fence
				for _, id := range ids {
					f, err := fs.Get(tx, id)
					if err != nil {
						return err
					}
					found = append(found, f)
				}
				drawn := areaShape(area, found)
				if buffer >= 0 {
					drawn = append(drawn, corridorShape(ringLines(area.Polygon), buffer)...)
				}
				if err := writeFencesSVG(path, found, nil, ids, drawn); err != nil {
					return err
				}
			}
			return writeFenceIDs(c, format, fs, tx, ids)
		})
	}
}

// fenceAlong answers fence along: the fences within --radius of --line.
func fenceAlong(c *ucli.Context) error {
	format, err := output(c, "table", "json")
	if err != nil {
		return err
	}
	line, err := readLine(c)
	if err != nil {
		return err
	}
	radius, err := parseDistance(c.String("radius"))
	if err != nil {
		return usageError{fmt.Errorf("--radius: %w", err)}
	}
	fs := geo.NewFences(c.String("fences"))
	return viewDB(c, func(tx keyspace.Tx) error {
		if err := requireFences(fs, tx); err != nil {
			return err
		}
		var ids []string
		var at []float64
		if c.Bool("in-order") {
			passed, err := fs.Passed(tx, line, radius)
			if err != nil {
				return err
			}
			for _, p := range passed {
				ids, at = append(ids, p.ID), append(at, p.At)
			}
		} else if ids, err = fs.Along(tx, line, radius); err != nil {
			return err
		}
		if path := c.String("svg"); path != "" {
			found := make([]geo.Fence, len(ids))
			for i, id := range ids {
				if found[i], err = fs.Get(tx, id); err != nil {
					return err
				}
			}
			if err := writeFencesSVG(path, found, nil, ids, corridorShape(line, radius)); err != nil {
				return err
			}
		}
		if at != nil {
			return writeFenceDistances(c, format, fs, tx, ids, at, true)
		}
		return writeFenceIDs(c, format, fs, tx, ids)
	})
}

// writeFenceDistances prints fences with a distance each: fence near's
// from the point (DISTANCE, distance_m), or with along fence along
// --in-order's along the route (AT, at_m); a table or JSON, with
// --payloads each with its payload.
func writeFenceDistances(c *ucli.Context, format string, fs *geo.Fences, tx keyspace.Tx, ids []string, distances []float64, along bool) error {
	payloads := c.Bool("payloads")
	var refs []fenceRef
	if payloads {
		var err error
		if refs, err = withPayloads(fs, tx, ids, nil); err != nil {
			return err
		}
	}
	if format == "json" {
		out := make([]fenceDistance, len(ids))
		for i, id := range ids {
			out[i].ID = id
			if along {
				out[i].AtM = &distances[i]
			} else {
				out[i].DistanceM = &distances[i]
			}
			if payloads {
				out[i].Payload = refs[i].Payload
			}
		}
		return writeJSON(c.App.Writer, struct {
			Fences []fenceDistance `json:"fences"`
		}{out})
	}
	column := "DISTANCE"
	if along {
		column = "AT"
	}
	tw := newTable(c.App.Writer)
	fmt.Fprint(tw, "FENCE\t"+column)
	if payloads {
		fmt.Fprint(tw, "\tPAYLOAD")
	}
	fmt.Fprintln(tw)
	for i, id := range ids {
		fmt.Fprintf(tw, "%s\t%s", id, formatDistance(distances[i]))
		if payloads {
			fmt.Fprintf(tw, "\t%s", payloadCell(refs[i].Payload))
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(c.App.Writer, count(len(ids), "fence"))
	return err
}

// fenceDistance is a fence and a distance as JSON (writeFenceDistances).
type fenceDistance struct {
	ID        string          `json:"id"`
	DistanceM *float64        `json:"distance_m,omitempty"`
	AtM       *float64        `json:"at_m,omitempty"`
	Payload   json.RawMessage `json:"payload,omitempty"`
}

// writeFenceIDs prints the fences ids found, a line each and their count
// or as JSON; with --payloads, each with its payload.
func writeFenceIDs(c *ucli.Context, format string, fs *geo.Fences, tx keyspace.Tx, ids []string) error {
	if c.Bool("payloads") {
		refs, err := withPayloads(fs, tx, ids, nil)
		if err != nil {
			return err
		}
		if format == "json" {
			return writeJSON(c.App.Writer, struct {
				Fences []fenceRef `json:"fences"`
			}{refs})
		}
		tw := newTable(c.App.Writer)
		fmt.Fprintln(tw, "FENCE\tPAYLOAD")
		for _, r := range refs {
			fmt.Fprintf(tw, "%s\t%s\n", r.ID, payloadCell(r.Payload))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	} else if format == "json" {
		if ids == nil {
			ids = []string{}
		}
		return writeJSON(c.App.Writer, struct {
			Fences []string `json:"fences"`
		}{ids})
	} else {
		for _, id := range ids {
			fmt.Fprintln(c.App.Writer, id)
		}
	}
	_, err := fmt.Fprintln(c.App.Writer, count(len(ids), "fence"))
	return err
}

// fenceRef is a fence that holds a point, with its payload, as fence
// containing --payloads writes it.
type fenceRef struct {
	ID      string          `json:"id"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// withPayloads reads the payloads of the fences ids, each once: read keeps
// those read before, for a file whose points share their fences (nil
// reads them all).
func withPayloads(fs *geo.Fences, tx keyspace.Tx, ids []string, read map[string]json.RawMessage) ([]fenceRef, error) {
	refs := make([]fenceRef, len(ids))
	for i, id := range ids {
		payload, ok := read[id]
		if !ok {
			f, err := fs.Get(tx, id)
			if err != nil && !errors.Is(err, keyspace.ErrNotFound) {
				return nil, err
			} // else it expired since the lookup found it: no payload
			payload = payloadJSON(f.Payload)
			if read != nil {
				read[id] = payload
			}
		}
		refs[i] = fenceRef{id, payload}
	}
	return refs, nil
}

// jsonCrossing is a crossing as JSON.
type jsonCrossing struct {
	Fence string `json:"fence"`
	Kind  string `json:"kind"`
}

// pointCrossings is one point's crossings as JSON: geo put's answer, and
// a line of geo del's and geo import's.
type pointCrossings struct {
	ID        string         `json:"id"`
	Crossings []jsonCrossing `json:"crossings"`
}

func newPointCrossings(id string, cs []geo.Crossing) pointCrossings {
	out := make([]jsonCrossing, len(cs))
	for i, x := range cs {
		out[i] = jsonCrossing{x.Fence, x.Kind.String()}
	}
	return pointCrossings{id, out}
}

// writeCrossings prints what a move did: a line a fence, or JSON.
func writeCrossings(c *ucli.Context, format string, id string, cs []geo.Crossing) error {
	if format == "json" {
		return writeJSON(c.App.Writer, newPointCrossings(id, cs))
	}
	tw := newTable(c.App.Writer)
	fmt.Fprintln(tw, "FENCE\tCROSSING")
	for _, x := range cs {
		fmt.Fprintf(tw, "%s\t%s\n", x.Fence, x.Kind)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(c.App.Writer, count(len(cs), "fence"))
	return err
}

// dropFences deletes the fence set name; an empty set is an error, as an
// unknown index is.
func dropFences(tx keyspace.Tx, name string) (int, error) {
	fs := geo.NewFences(name)
	if err := requireFences(fs, tx); err != nil {
		return 0, err
	}
	return fs.Drop(tx)
}

// requireFences is an error naming a set that holds no fences: a
// misspelt name would otherwise hold no point and cross nothing, silently.
func requireFences(fs *geo.Fences, tx keyspace.Tx) error {
	empty, err := fs.Empty(tx)
	if err == nil && empty {
		err = fmt.Errorf("unknown fence set %q: it holds no fences (see keyspace stats)%s", fs.Name(), didYouMeanIn(tx, fs.Name(), fenceSetNames))
	}
	return err
}

// areaShape is the outline of fence intersecting's or within's area for
// --svg, as fenceShape draws a fence: a sector with no radius is drawn a
// fifth further than the farthest point of the fences found (100 km when
// none is), at most a quarter of the way round the world.
func areaShape(area geo.Fence, found []geo.Fence) shape {
	s := area.Sector
	if s == nil || !math.IsInf(s.Radius, 1) {
		return fenceShape(area)
	}
	reach := s.Radius
	if math.IsInf(reach, 1) {
		reach = 0
		for _, f := range found {
			for _, ring := range fenceShape(f) {
				for _, p := range ring {
					reach = max(reach, geo.Distance(s.Lat, s.Lon, p[1], p[0])*1.2)
				}
			}
		}
		if reach == 0 {
			reach = 100_000
		}
		reach = min(reach, math.Pi/2*geo.EarthRadius)
	}
	return sectorShape(s.Lat, s.Lon, reach, s.From, s.To)
}

// fenceShape is f's outline for --svg; a sector with no radius is drawn
// out to 500 km.
func fenceShape(f geo.Fence) shape {
	switch {
	case f.Sector != nil:
		s := f.Sector
		reach := s.Radius
		if math.IsInf(reach, 1) {
			reach = 500_000
		}
		return sectorShape(s.Lat, s.Lon, reach, s.From, s.To)
	case f.Circle != nil:
		return circleShape(f.Circle.Lat, f.Circle.Lon, f.Circle.Radius)
	case f.Box != nil:
		return boxShape(*f.Box)
	case f.Corridor != nil:
		return corridorShape(f.Corridor.Line, f.Corridor.Radius)
	}
	return polygonShape(f.Polygon)
}

// fenceContainingFile answers fence containing for every point of a
// file, read whole first (a bad row is an error naming its line, before
// anything is printed), in one read transaction: a line a point, with the
// ids of the fences holding it.
func fenceContainingFile(c *ucli.Context) error {
	format, err := output(c, "table", "json", "ndjson")
	if err != nil {
		return err
	}
	rows, spec, bad, err := pointRows(c)
	if err != nil {
		return err
	}
	name := bad.name
	points := make([]geo.Point, len(rows))
	for i, r := range rows {
		if points[i], err = spec.point(r); err != nil {
			return fmt.Errorf("%s: %s: %w", name, r.where(), err)
		}
	}
	type held struct {
		ID     string `json:"id"`
		Fences any    `json:"fences"` // the ids, or with --payloads fenceRefs
		ids    []string
	}
	out := make([]held, len(points))
	fs := geo.NewFences(c.String("fences"))
	err = viewDB(c, func(tx keyspace.Tx) error {
		if err := requireFences(fs, tx); err != nil {
			return err
		}
		payloads := map[string]json.RawMessage{} // --payloads: each fence's, read once
		for i, p := range points {
			ids, err := fs.Containing(tx, p.Lat, p.Lon)
			if err != nil {
				return err
			}
			ids = append([]string{}, ids...)
			out[i] = held{ID: p.ID, Fences: ids, ids: ids}
			if c.Bool("payloads") {
				refs, err := withPayloads(fs, tx, ids, payloads)
				if err != nil {
					return err
				}
				out[i].Fences = refs
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	switch format {
	case "json":
		return writeJSON(c.App.Writer, struct {
			Points []held `json:"points"`
		}{out})
	case "ndjson":
		return writeNDJSON(c.App.Writer, out)
	}
	tw := newTable(c.App.Writer)
	fmt.Fprintln(tw, "ID\tFENCES")
	inAny := 0
	for _, h := range out {
		fmt.Fprintf(tw, "%s\t%s\n", h.ID, strings.Join(h.ids, ","))
		if len(h.ids) > 0 {
			inAny++
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err = fmt.Fprintf(c.App.Writer, "%s, %d in a fence\n", count(len(out), "point"), inAny)
	return err
}

// geoDel deletes the points the arguments name, all or none; with
// --fences or --roam it prints what each delete did (roam.go).
func geoDel(c *ucli.Context) error {
	if !c.IsSet("fences") && !c.IsSet("roam") {
		return eachPoint(c, (*geo.Index).Delete)
	}
	return geoDelAndReport(c)
}
