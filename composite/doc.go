// Package composite encodes order-preserving tuple keys.
//
// Not yet implemented; see issue 3.
package composite
