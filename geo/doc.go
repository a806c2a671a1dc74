// Package geo is geohash proximity search over the keyspace: the seeds'
// dimensionality reduction, where a point becomes an integer geohash and a
// query becomes a few range scans.
//
// # Key layout
//
//	("g", name, "p", scope…, cell uint64, id) → lat | lon (float64 bits) | payload
//	("g", name, "i", id)                      → packed (scope…, cell)
//
// cell is the point's 64-bit geohash (github.com/mmcloughlin/geohash), so a
// geohash cell of any precision is one contiguous key range under a scope.
// The second entry lets Put move a point and Delete remove it in the
// caller's transaction. A scope (per country, per tenant) makes "users in
// CA within 2 km" one small scan; queries name the scope exactly.
//
// # Coverings
//
// A query region is covered by geohash cells of mixed precision: starting
// from the whole world, the largest cell that crosses the region's boundary
// is split in two (geohash bits alternate longitude and latitude), halves
// outside the region are dropped and halves inside it kept whole, until the
// covering holds QueryOptions.MaxCells cells. Adjacent cells merge into one
// key range. Whether a cell is outside or inside is decided exactly on the
// sphere (rect.minAngle, rect.maxAngle, with the maths in their comments),
// so a circle across ±180° or around a pole needs no special case: it is
// met by cells on both sides of the seam.
//
// Distances are haversine on a sphere of EarthRadius (6,371,008.8 m, the
// IUGG mean radius). Latitudes -90…90 and longitudes -180…180 are valid;
// exact coordinates are kept in the value, so results are exact whatever
// the cell.
//
// Status: radius queries are built; box, polygon and exact k-nearest
// queries are next (issue 4).
package geo
