// Package indextable is the seeds' index tables: records under a primary
// key with secondary indexes kept in step in the same transaction,
// many-to-many relations kept in both directions, and atomic
// read-modify-write.
//
// # Key layout
//
//	("x", table, "r", pk…)                 → version uint64 | [expires int64] | record (JSON by default)
//	("x", table, "i", index, value…, pk…)  → len(value) byte | [expires int64] | covered fields
//	("x", table, "b", index)               → last pk built (only while a Build runs)
//	("x", table, "e", expires uint64, pk…) → nothing (records that expire, soonest first)
//
// Relations (relation.go) keep their links under ("x", rel, "l" | "f" |
// "bk" | "lf" | "rf" | "lc" | "rc", …) and series (series.go) their
// buckets under ("x", series, "s", …) and options under ("x", series,
// "sm"): no tag is used twice, so a table, a relation and a series may
// share a name without sharing a key.
//
// An index value is a tuple whose components may be composite.Desc, so the
// compound index "status asc, createTime desc" is the value
// (status, Desc{createTime}) and "completed, newest first" is one prefix
// scan. A record may have no value (not indexed) or many (a multikey index
// over an array, duplicates once). The primary key closes every entry key,
// so entries are unique per record and a unique index is checked by one
// prefix scan of the value. A covering index stores projected fields in the
// entry, so a lookup answers without reading records.
//
// Put computes the old and new entries of every index, checks uniqueness
// and the keys' sizes before writing anything, and writes the record and
// only the entries that changed. Validate says without a transaction what
// a write would refuse a row for (a key, or an indexed value, too long for
// keyspace.MaxKeySize among them), so an import names its bad rows first.
// A primary key must leave room for its expiry entry, 9 bytes longer than
// the record's key, whether or not the record expires. Verify recomputes an index from the table (missing, stale,
// duplicate); Repair applies the difference; Build fills a new index in
// resumable batches. Equal, Between and Match (a composite prefix query
// such as CA:San*) are the index's ranges; RangeOf and Between the
// table's (a key prefix, and a range of the component after it).
// Table.GroupCounts counts records per group of key components from keys
// alone, Index.GroupCounts per group of index values from entries alone
// (SQL's GROUP BY), each leaving out the records that have expired;
// Index.Distinct lists the groups, seeking past each.
//
// A Relation answers both lists newest first, or the links of a period
// (RightsBetween, LeftsBetween: a list is in time order), counts in one
// key read, and Linked (is this pair linked, since when) in one. A Series folds
// readings into buckets of one width; Range reads a sensor's period,
// Rollup folds it into wider buckets (an hour of minutes), Sensors lists
// the sensors, and Verify checks every bucket, which are the readings
// themselves: no repair recomputes them.
//
// A record may expire (SetExpiry, Row.Expires), as a key with a TTL does
// in Redis or BuntDB: from that instant Get, Scan and every index lookup
// leave it out, and DeleteExpired deletes it with its entries. The top bit
// of the version word (and of an entry's length byte) says an expiry
// follows, so records that never expire keep the layout they had before
// expiry existed (expiry.go).
package indextable
