// Package cli is the keyspace command line.
//
// Not yet implemented; see issue 7.
package cli
