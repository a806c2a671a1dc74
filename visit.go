package keyspace

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
