// Package geo is geohash proximity search over the keyspace.
//
// Not yet implemented; see issue 4.
package geo
