// Package enumkeys is the seeds' enumerable keys: a log of items per parent
// (messages per user) whose ids come from an atomic per-parent counter, so
// the key userID_messageID makes the latest message, the one before and the
// one after one short seek away, and a time index packs the items per day.
//
// # Key layout
//
//	("e", log, "c", parent)           → last id | live count (two uint64)
//	("e", log, "m", parent, id)       → Unix nanoseconds | data
//	("e", log, "t", parent, time, id) → ""
//
// ids are tuple integers, which sort numerically (9 before 10), so a
// parent's items are one key range in id order. The counter is read and
// written in the caller's transaction; keyspace write transactions are
// serialized, so ids are unique and dense with no separate lock, and a
// rolled-back append leaves no gap. Deleted ids are not reused (the counter
// keeps the last id handed out), so Prev and Next step over them. The
// counters are also the log's list of parents: Parents pages through
// them, a parent and its count per key, without reading an item. Scan
// pages through every parent's items, the whole log, for an export.
//
// The time index (the seeds' "messages packed per day") puts a parent's
// items in time order whatever order they were appended in: a day, in any
// time zone, or any period is one range scan of the index, and a count
// reads keys only. Times are stored in UTC with nanosecond precision,
// between the years 1678 and 2262.
//
// AppendAll is Append of a batch (an import), writing the same keys in
// ascending order, each parent's counter once (bulk.go): bbolt, which
// splits pages only at commit, takes a large transaction of unsorted
// writes in time that grows with the square of its size.
//
// Trim keeps a retention period or a maximum length per parent (Redis's
// XTRIM): the time index finds the items older than a time, and the
// parent's first item keys the oldest ids (trim.go).
//
// The items are the truth; the time index and the counters derive from
// them. Verify recomputes both and reports what differs; Repair rewrites
// them so (keyspace verify and keyspace log repair on the command line).
package enumkeys
