// Package composite encodes composite keys — the seeds' State:City:UserID —
// as order-preserving tuples, and builds tables, prefix queries, paging and
// group counts on them.
//
// # Byte layout
//
// The encoding is the FoundationDB tuple layer's (design/tuple.md), byte for
// byte, so keys interoperate with FoundationDB tooling. Each element is a
// type code and a payload:
//
//	null        00
//	[]byte      01 bytes… 00        (each 00 inside written 00 FF)
//	string      02 utf8… 00         (same escaping)
//	Tuple       05 elements… 00     (a null inside written 00 FF)
//	integer     0c…13 one's-complement magnitude (negative, 8…1 bytes)
//	            14 (zero), 15…1c big-endian magnitude (1…8 bytes)
//	float32     20 4 bytes, float64 21 8 bytes: sign bit flipped, all bits
//	            when negative (IEEE total order)
//	false 26, true 27, UUID 30 + 16 bytes
//
// and two extensions in the spec's user range (0x40–0x4f):
//
//	time.Time   40 + int64 Unix nanoseconds, big endian, sign bit flipped
//	Desc{v}     41 + invert(escape(enc(v)) + 00 01)
//
// So ("CA", "San Francisco", 42) packs to
//
//	02 'C' 'A' 00  02 'S' 'a' 'n' ' ' 'F' … 00  15 2a
//
// The properties every test checks: byte order equals tuple order; a tuple's
// prefix packs to a byte prefix; any byte may stand in a string (a city
// called "A:B" or an id with a zero byte cannot break a scan); Unpack never
// panics on bad bytes. 0xFF is never a type code, so the children of a
// packed tuple p are exactly the keys in [p, p+0xFF): a plain byte-prefix
// scan of p would also take ("CA\x00") under ("CA").
//
// Descending components invert their bytes, but inverting alone would sort a
// value before its extensions ("a" before "a\x00", where descending wants
// the opposite); escaping zeros and adding the terminator 00 01 first makes
// the inner encoding prefix-free, so inversion reverses the order exactly.
// See appendDesc for the argument. That escaping compounds when descending
// elements nest (each level can grow the encoding by the golden ratio), so
// nesting of tuples and descending elements stops at MaxNesting levels
// (ErrTooDeep), in packing, unpacking and the text form alike.
//
// # Hot paths
//
// Pack and Unpack box every element in an any. Code that builds or reads
// many keys of a known shape can work element by element instead:
// AppendString and AppendUint write one element exactly as Pack would, and
// NextElement steps over one element without decoding it, so a scan that
// needs only a key's last element decodes just that one (UnpackString).
// geo builds its million-point imports and reads its query results this way.
//
// # Text form
//
// People and the command line write keys as "CA:San Francisco:42" and
// queries as "CA:*" or "CA:San Fran*"; see ParseText, FormatText and
// ParseQuery for the escaping and typing rules. A Schema gives the columns
// their kinds and directions, and Schema.Format writes a key as
// ParseText reads it with that schema: a text column's "11" is 11, where
// FormatText, which has no schema, writes \11 so it cannot read as a number.
//
// # Tables, paging and counts
//
// A Table keeps records under ("t", name, key…). Table.Scan pages through a
// range with an opaque cursor from keyspace.Range.Cursor. GroupCounts counts
// keys per group of leading columns, decoding one key per group; Groups lists
// the groups, seeking past each.
//
// # Subspaces as a whole
//
// Clear deletes every key of some subspaces; Move moves every key of one
// to another that holds none (ErrNotEmpty otherwise), which renames a
// structure whose keys all lie under its name (geo.Index.Rename).
package composite
