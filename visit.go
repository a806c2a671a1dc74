package keyspace

// A Visitor is handed the pairs of a range one at a time by VisitRange.
// Key and value are valid only during the call, as in a Scan loop; Visit
// returns false to stop.
type Visitor interface {
	Visit(key, value []byte) bool
}

// rangeVisitor is implemented by transactions with a faster way to visit
// a range than their Scan.
type rangeVisitor interface {
	visitRange(r Range, v Visitor)
}

// VisitRange hands v the pairs of r in order (reverse order when
// r.Reverse, at most r.Limit when that is positive), as a Scan loop over r
// would, until Visit returns false. It returns the transaction's Err.
//
// A Scan loop allocates a few closures per call, which is noise for one
// long scan and a cost for code that scans many short ranges, as a geo
// query does (six or so per 1 km radius query). VisitRange allocates
// nothing on the memory backend in a View and one cursor on bbolt; a
// writable transaction, where v may write, and reverse ranges take the
// Scan path.
func VisitRange(tx Tx, r Range, v Visitor) error {
	if rv, ok := tx.(rangeVisitor); ok {
		rv.visitRange(r, v)
	} else {
		visitByScan(tx, r, v)
	}
	return tx.Err()
}

// visitByScan is the general visitRange: a Scan loop.
func visitByScan(tx Tx, r Range, v Visitor) {
	for k, val := range tx.Scan(r) {
		if !v.Visit(k, val) {
			return
		}
	}
}
