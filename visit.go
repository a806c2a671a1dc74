package keyspace

import "bytes"

// A Visitor is handed the pairs of a range one at a time by VisitRange.
// Key and value are valid only during the call, as in a Scan loop; Visit
// returns false to stop.
type Visitor interface {
	Visit(key, value []byte) bool
}

// rangeVisitor is implemented by transactions with a faster way to visit
// a forward range in a View than their Scan loop.
type rangeVisitor interface {
	usable(write bool) error
	setErr(err error)
	// visitForward visits r, which is forward and not empty, in a usable
	// read-only transaction.
	visitForward(r Range, v Visitor)
}

// VisitRange hands v the pairs of r in order (reverse order when
// r.Reverse, at most r.Limit when that is positive), as a Scan loop over r
// would, until Visit returns false. It returns the transaction's Err.
//
// A Scan loop allocates a few closures per call, which is noise for one
// long scan and a cost for code that scans many short ranges, as a geo
// query does (six or so per 1 km radius query). VisitRange allocates
// nothing on the memory backend in a View and one cursor per View on
// bbolt; a writable transaction, where v may write, and reverse ranges
// take the Scan path.
//
// Forward ranges visited in key order in one View cost less than seeks:
// the memory backend finds a range that starts in the leaf where the last
// visit ended by galloping from where it ended, and bbolt steps its cursor
// over a few keys from where it stopped before it seeks.
func VisitRange(tx Tx, r Range, v Visitor) error {
	rv, fast := tx.(rangeVisitor)
	if !fast || tx.Writable() || r.Reverse {
		for k, val := range tx.Scan(r) {
			if !v.Visit(k, val) {
				break
			}
		}
		return tx.Err()
	}
	if err := rv.usable(false); err != nil {
		rv.setErr(err)
	} else if !r.empty() {
		rv.visitForward(r, v)
	}
	return tx.Err()
}

// A RangesVisitor is handed the pairs of several ranges by VisitRanges,
// each with the index of the range it lies in. Key and value are valid
// only during the call; VisitIn returns false to stop.
type RangesVisitor interface {
	VisitIn(i int, key, value []byte) bool
}

// rangesVisitor is implemented by transactions that can walk a run of
// ascending ranges in one pass.
type rangesVisitor interface {
	usable(write bool) error
	setErr(err error)
	// visitRanges visits rs, which are forward, ascending and disjoint,
	// with no limits, in a usable read-only transaction.
	visitRanges(rs []Range, v RangesVisitor)
}

// VisitRanges hands v the pairs of rs[0], then those of rs[1], and so on,
// each as VisitRange would, with the index of its range, until VisitIn
// returns false. It returns the transaction's Err.
//
// When the ranges are forward, have no Limit, and each starts at or after
// the start and the end of every one before (a geo query's covering is
// such a run), the memory backend walks them in one pass: a range that
// starts in the leaf where the last one ended is found by galloping from
// there, with none of the per-range work of a VisitRange call; bbolt
// visits each from where its cursor stopped, as VisitRange does. Other
// ranges and writable transactions are visited through VisitRange, range
// by range.
func VisitRanges(tx Tx, rs []Range, v RangesVisitor) error {
	if mv, fast := tx.(rangesVisitor); fast && !tx.Writable() && ascending(rs) {
		if err := mv.usable(false); err != nil {
			mv.setErr(err)
		} else {
			mv.visitRanges(rs, v)
		}
		return tx.Err()
	}
	each := &oneOf{v: v}
	for i, r := range rs {
		each.i = i
		if err := VisitRange(tx, r, each); err != nil || each.stopped {
			return err
		}
	}
	return nil
}

// ascending reports whether rs are forward and unlimited, and each starts
// at or after every bound of the ones before. Comparing a range's start
// with the previous range's end alone is not enough: an empty range whose
// Start is above its End (["bbaa", "\x00a")) would let the next range
// start behind where the walk stands, and its first keys would be missed
// (found by FuzzModel).
func ascending(rs []Range) bool {
	var floor []byte // the highest bound of the ranges before
	for i, r := range rs {
		if r.Reverse || r.Limit > 0 {
			return false
		}
		if i > 0 && (r.Start == nil || bytes.Compare(floor, r.Start) > 0) {
			return false
		}
		if r.End == nil && i < len(rs)-1 {
			return false
		}
		floor = r.Start
		if r.End != nil && bytes.Compare(r.End, floor) > 0 {
			floor = r.End
		}
	}
	return true
}

// oneOf visits one of VisitRanges' ranges through VisitRange.
type oneOf struct {
	i       int
	v       RangesVisitor
	stopped bool
}

func (o *oneOf) Visit(key, value []byte) bool {
	if !o.v.VisitIn(o.i, key, value) {
		o.stopped = true
		return false
	}
	return true
}
