// Package geo is geohash proximity search over the keyspace: the seeds'
// dimensionality reduction, where a point becomes an integer geohash and a
// query becomes a few range scans.
//
// # Key layout
//
//	("g", name, "p", (scope…), geohash uint64, id) → lat | lon (float64 bits) | flags | [expires] | payload
//	("g", name, "n", (scope…), morton uint64, id)  → the same, north polar cap
//	("g", name, "s", (scope…), morton uint64, id)  → the same, south polar cap
//	("g", name, "i", id)                           → ['n' | 's'] packed ((scope…), hash[, expires])
//	("g", name, "e", expires uint64, id)           → nothing (points that expire, soonest first)
//
// Between the polar caps a point is keyed by its 64-bit geohash
// (github.com/mmcloughlin/geohash), so a geohash cell of any precision is
// one contiguous key range under a scope. Within CapLatitude (78.75°) of
// either pole it is keyed by its cell in the cap's own grid (see The
// poles). The last entry lets Put move a point and Delete remove it in the
// caller's transaction; a server taking many position reports at once
// gives each its own keyspace.Store.Batch, which shares one commit among
// the reports waiting. A scope (per country, per tenant) makes "users in
// CA within 2 km" one small scan; queries name the scope exactly. The scope
// is one nested tuple, (scope…), rather than elements spliced into the key
// as DESIGN.md sketched: the nesting ends it, so a longer scope such as
// ("CA", 7) never sorts its 7 among the hashes of ("CA"). A scan decodes
// only the id after that known prefix (hits.add).
//
// # Coverings
//
// A query region is covered by cells of mixed precision: starting from a
// block of at most MaxCells geohash cells around the region's bounding box
// (or, for a circle wholly inside a polar cap, of the cap's cells around a
// square that holds its projection; or from the roots of all three grids,
// where the box crosses ±180° or a cap's edge), the largest cell that
// crosses the region's boundary (the widest on the ground, when cells of
// more than one grid cross it) is split in two (geohash bits alternate
// longitude and latitude), halves outside the region are dropped and halves
// inside it kept whole, until the covering holds QueryOptions.MaxCells
// cells (by default DefaultMaxCells, twice that for a circle of WideRadius
// or more, and twice a circle's for a sector). Adjacent cells merge into
// one key range. Whether a cell is outside or inside is decided on the
// sphere, by bounds that can only keep
// a cell or test a point, never drop a match (ref.havBounds for circles,
// rect.minAngle for k-nearest, with the maths in their comments), so a
// circle across ±180° needs no special case: it is met by cells on both
// sides of the seam.
//
// A circle of up to about 110 km between the caps and off ±180° is not
// descended into: its covering is the block of cells of one precision
// around its bounding box, at most 3/2·MaxCells of them, less those outside
// it (blockCover). A block's cells share rows and columns, and the bounds
// on a cell's distance are a row's term plus a column's, with the box's
// cosines and polynomial sines, so classifying the block costs an addition
// per cell: on 1,000,000 clustered points a 1 km query reads as many
// candidates per result as the descent to 16 cells did (1.87), and on
// 100,000 it runs 21% fewer instructions. For other regions the descent
// starts from the block of cells around the bounding box (startBlock;
// boxes and polygons began at the grids' roots until session 15), and
// a cell's rectangle is halved from its parent's rather than decoded from
// its hash (framed). Cells wholly inside the query region are not tested
// point by point; rejected candidates are rejected from the coordinates in
// the value, without decoding the key, and a result's key is decoded only
// past the prefix every key of its range shares. Distances near the centre
// cost no library trigonometry (origin.angle). Results are gathered into
// pooled buffers and ordered by an insertion sort when few, else a radix
// sort of their scaled distances (hits, sortHits); the covering is built in
// pooled buffers too (coverer), and a covering's ranges are read in one
// keyspace.VisitRanges call rather than Scan loops (one pass over the
// memory backend's leaves), so a 1 km query in a View of its own on the
// memory backend allocates three objects: the transaction, and its results'
// slice and ids.
//
// # Queries
//
//   - Radius: within r metres of a centre.
//   - Box: a latitude/longitude rectangle, which may cross the antimeridian
//     (MinLon > MaxLon); BoxAround is Redis's BYBOX, width × height metres
//     around a centre. TileBox, QuadkeyBox and HashBox give the box of a
//     web map tile z/x/y, a Bing Maps quadkey or a geohash cell (Tile38's
//     TILE, QUADKEY and HASH), for Box, CellCounts and box fences.
//   - Within: an orb.Polygon or orb.MultiPolygon (GeoJSON rings; planar in
//     longitude/latitude as GeoJSON specifies; holes; boundary included),
//     validated first: unclosed rings, edges that cross or overlap, rings
//     that cross each other at a vertex they share (they may touch there,
//     as a hole may touch its ring) and positions out of range are
//     ErrBadPolygon. Polygon fences stored by builds before session 37,
//     which let rings cross at a shared vertex, are read as stored, by
//     the even-odd rule.
//   - Sector: the slice of a circle between two bearings, clockwise from
//     north (Tile38's SECTOR), its sides great-circle arcs from the centre;
//     its cells classified by exact bounds on two dot products over a
//     cell's rectangle (sector.go), a sector of a circle of up to about
//     110 km covered by the block of cells around its own bounding box,
//     classified by rows and columns as a circle's block is
//     (sectorBlockCover), a larger one by the descent from that box. With no radius (+Inf) and a Limit of k, the k nearest
//     in those directions, by the k-nearest search held within it.
//   - Along: within r metres of a line, an orb.LineString or
//     orb.MultiLineString (a route, a road), its edges straight in
//     longitude and latitude as GeoJSON draws them; each result's distance
//     is from the line (PostGIS's ST_DWithin against a line, Tile38's
//     INTERSECTS … BUFFER). The corridor is covered with a budget of
//     cells that grows with its length over its radius; its cells are
//     classified, and its candidates measured, against the pieces of the
//     line near them (along.go, which proves a cell outside by a branch
//     and bound on the triangle inequality alone). NearestAlong: the
//     exact k nearest a line, with no radius, by corridors bounded by the
//     k nearest its first position. A Route (route.go) measures places
//     along the same line: its length, and how far along it a point's
//     nearest point of it lies, to put Along's results in the order a
//     drive passes them.
//   - NearPolygon: inside a polygon or within r metres of it (PostGIS's
//     ST_DWithin against a polygon, Tile38's WITHIN … BUFFER), each
//     result at its distance from the polygon, 0 inside: the polygon and
//     the corridor of its rings as one region (near_polygon.go);
//     NearestPolygon, the exact k nearest a polygon, as NearestAlong.
//   - Nearest: the exact k nearest neighbours with no radius, a best-first
//     branch and bound over cells ordered by their minimum distance,
//     starting from the covering of a circle that holds k points (see
//     Nearest).
//
// A point put with Expires is left out of every query, Get and Scan from
// that instant (QueryOptions.Now, or the clock), as Tile38 leaves out an
// object SET with EX; SetExpiry changes an expiry in place (EXPIRE,
// PERSIST), and DeleteExpired deletes the points due, reading only their
// expiry entries (expiry.go).
//
// QueryOptions.Filter keeps only the points it accepts, as Tile38's WHERE
// does: Limit counts kept points, and Nearest returns the k nearest kept
// points, reading past rejected ones (or, when the filter leaves it no
// bound after the seed, widening a radius query until one holds k: from
// where the share of the seed's points it kept says k are, by √(k/kept)
// a time; ten of the 1% of 1,000,000 points a filter kept read 2,398).
//
// Every query returns results nearest first (ties by id; FarthestFirst,
// below, turns a region query round) with the distance in metres, and
// Stats: cells, key ranges, candidates read, results. On
// 1,000,000 clustered points a radius query reads 1.0–1.9 candidates per
// result and k-nearest 2.6–2.9·k (see the README for the figures).
// RadiusFixedGrid is Redis's fixed 3×3 block, kept as the baseline.
//
// A radius, box or polygon query with a Limit of n (Redis's COUNT n
// ASC) whose region holds many more than n points asks the k-nearest
// search, held within the region, once reading the region has cost what
// that search would: the 10 nearest within 100 km of 1,000,000 clustered
// points read 24 candidates a result, not the circle's 685.
//
// QueryOptions.Any with a Limit of n stops a radius, box or polygon query
// at the first n points it finds, as Redis's COUNT n ANY does, and
// QueryOptions.FarthestFirst orders such a query's results farthest
// first, as Redis's DESC does (with a Limit of n, the n farthest). Where
// Redis reads the whole region for DESC COUNT n, a region that holds
// many more than n points is answered by a branch and bound over its
// cells, greatest distance first (farthest.go): the farthest 10 within
// 100 km of 1,000,000 clustered points took 0.12 ms, not 0.71.
//
// Results come a page at a time through a Cursor (page.go):
// QueryOptions.After leaves out the results up to a place in the order
// (distance, id), and CursorAfter gives the place after a page. Redis
// GEOSEARCH has no pages, and Tile38's cursor is an offset that re-reads
// and skips; a Cursor is a position, as FoundationDB's continuations are,
// so pages never repeat a result and a point written between pages shows
// exactly when it sorts after the cursor. A page reads what lies beyond
// its cursor: the covering leaves out cells nearer than the cursor
// (beyond), and Nearest after a cursor reads a ring outwards from it,
// whose width it guesses from the cursor's Rank (nearestAfter). On 20,000
// clustered points the 30th page of 10 nearest reads a fifth of the
// candidates that asking for the 300 nearest does. Cursor.Token and
// ParseCursor turn a cursor into an opaque string tied to a query.
//
// Scan lists the points in id order from after a given id, by the reverse
// entries, for paging through an index or exporting it (ScanScope lists
// one scope's, skipping the others' points by their reverse entries;
// ScanReverse and ScanScopeReverse list them in descending order).
// Scopes lists the scopes the points are under, a seek per scope and grid
// (ScopeCounts counts the points under each, reading them all). Drop deletes the
// whole index: its three grids' subspaces and its reverse entries. The
// point keys are the truth (they hold the coordinates); Verify checks the
// reverse entries and each point's place against them, and Repair makes
// them agree (verify.go).
//
// A point's hash names a cell whose rectangle holds the point at every
// precision. The geohash library's arithmetic can round a point within an
// ulp of a cell's edge into the next cell; encode steps it back, since a
// covering decides which cells to read by their rectangles.
//
// # The poles
//
// Geohash cells near a pole are slivers: at 89.9° a cell is up to 570 times
// taller than wide, so a 1 km circle there needs hundreds of cells or reads
// far outside itself. Instead, each polar cap (|lat| ≥ 78.75°, the edge of
// the geohash's northmost and southmost rows of 16, so the seam needs no
// rounding rule) has its own grid: a quadtree over the azimuthal
// equidistant projection around the pole, x = ρ·sin λ, y = ρ·cos λ with ρ
// the angular distance from the pole, Morton-coded as a geohash is. Its
// cells are square on the ground to within 0.7%, and a cell is again one
// key range. Coverings and the k-nearest search run over the three grids
// at once: a cap cell is classified through the latitude/longitude
// rectangles that bound it (polar.go), a geohash cell through its rectangle
// clipped to the latitudes between the caps. Every point exactly on a pole
// has the same cap hash, so datasets that park unknown positions there
// make one long run of keys; queries that do not reach the pole skip it.
//
// Measured on 100,000 points clustered at both poles (keyspace bench
// --dataset poles, candidates read per result): radius 1 km 1.45 (31 on
// geohash cells alone), 10 km 2.07 (6.3), box 1.84 (4.65), k-nearest k=10
// 4.6 (27.6). Polygons, whose edges are straight in longitude/latitude,
// fit the cap's square cells less well: 6.4 (3.7 on geohash cells).
//
// # Geofences
//
// Fences turns a query round: it stores regions (circles, boxes, GeoJSON
// polygons, sectors, and corridors: the ground within a distance of a
// line, a route to keep to or a road) and Containing asks which of them
// hold a point, Crossings
// which a moving point entered, left, stayed in or passed through
// (Tile38's geofences: enter, exit, inside, cross), in the caller's
// transaction. A move's path is the straight line in longitude and
// latitude between its two places, the shorter way round (path.go).
// Index.PutRoaming is a roaming fence (roam.go): a move, and the other
// points it came near, left, or stayed near. Its keys, under ("f", name):
//
//	("f", name, "d", id)                   → the fence: its region and the cells it is stored under (JSON)
//	("f", name, "c", grid, bits, hash, id) → 1 inside; 2 | lat | lon | radius, 3 | box, on a circle's or box's edge; 0 on a polygon's, a sector's or a corridor's
//	                                          (with 0x80 set and the expiry after it for a fence that expires)
//	("f", name, "l")                       → uint32, a bit for each level of 4 bits that holds cells
//	("f", name, "p", id)                   → a polygon's rings, their boxes and band indexes, binary, for points on its edge
//	("f", name, "r", id)                   → a circle's, a box's, a sector's or a corridor's region, binary (2 | lat | lon | radius, 3 | box, 4 | lat | lon | radius | from | to,
//	                                          5 | radius | lines | each line's positions and their lat | lon)
//	("f", name, "e", expires, id)          → nothing: the fences that expire, soonest first
//
// A fence is stored under its covering's cells, each refined to a level
// of 4 bits, so a point's cells at the 17 levels 0, 4, …, 64 (those the
// set's mask says hold cells) are all a lookup reads, whatever the number
// of fences (fence.go has the measurements).
//
// Intersecting asks the other question of a set: which fences share a
// point with an area (Tile38's INTERSECTS), found from the area's
// covering as a move's path finds the fences it crosses, each then
// tested exactly (fence_intersect.go); Within, which lie wholly inside
// an area (Tile38's WITHIN), Intersecting's candidates tested for
// containment on the sphere, across ±180° and round the poles
// (fence_within.go); both for Sector areas and fences too, whose
// great-circle sides have tests of their own (fence_sector.go), and for
// Corridor fences, Along's region stored (fence_corridor.go: a corridor
// meets what comes within its radius of its line, and lies within an
// area whose boundary stays that far from its line), and corridors as
// Within's area too, the fences wholly within a distance of a route
// (fence_corridor_within.go: each fence's boundary searched for its
// farthest point from the line, its inside for ground the line
// encloses beyond the radius); Near,
// which lie within a distance of a point, nearest first, with their
// distances (fence_near.go); Along, which come within a distance of a
// line, a route's zones (fence_along.go: Along's corridor as the area,
// each candidate's boundary searched by branch and bound), or Passed,
// the same in the order the line reaches them, each with how far along
// it (fence_passed.go), and
// NearPolygon, which come within a distance of a polygon.
//
// A fence put with Expires (a Tile38 hook set with EX) is gone for
// every lookup, Get and IDs from that instant, judged from the cells a
// lookup reads anyway; DeleteExpired frees its keys (fence_expiry.go).
//
// Put, PutAll and the fences' Put and PutAll check every point or fence
// before they write anything, its keys' sizes included, so a bad one
// changes nothing; Index.Validate and Fence.Validate check one without a
// transaction, for an import that names its bad rows. A point's id may
// take its key to keyspace.MaxKeySize less the most its hash could take.
// Update reads a point, lets a function change it (a payload field, as
// Tile38's FSET does) and puts it back in the same transaction.
//
// CellCounts counts the points of a box by geohash cell of a precision,
// with their mean positions (Elasticsearch's geohash_grid: marker
// clusters, heat maps), through the Box query's covering and tests, a
// running sum per cell in place of the results. Bounds is the smallest
// box holding the points (Tile38's BOUNDS), across ±180° when that is
// narrower.
//
// Distances are haversine on a sphere of EarthRadius (6,371,008.8 m, the
// IUGG mean radius). Latitudes -90…90 and longitudes -180…180 are valid;
// exact coordinates are kept in the value, so results are exact whatever
// the cell.
package geo
