package keyspace

// txState is the bookkeeping every backend's Tx shares.
type txState struct {
	writable bool
	closed   bool
	writes   uint64 // incremented by every write, so scans know to re-seek
	err      error  // the first scan error
}

func (t *txState) usable(write bool) error {
	switch {
	case t.closed:
		return ErrTxClosed
	case write && !t.writable:
		return ErrReadOnly
	}
	return nil
}

func (t *txState) Writable() bool { return t.writable }
func (t *txState) Err() error     { return t.err }

func (t *txState) setErr(err error) {
	if t.err == nil {
		t.err = err
	}
}

// ownedCopy copies a pair into one allocation, so that a backend may keep it
// while the caller reuses its slices. The value follows the key, and the
// key's capacity reaches over it: the memory backend keeps the key slice
// alone (item), bbolt both until commit.
func ownedCopy(key, value []byte) ([]byte, []byte) {
	buf := make([]byte, len(key)+len(value))
	copy(buf, key)
	copy(buf[len(key):], value)
	return buf[:len(key)], buf[len(key):]
}

// scanning reports whether a Scan of r has pairs to look for: false, with
// the transaction's error recorded, when it is closed, and false for an
// empty range.
func (t *txState) scanning(r Range) bool {
	if err := t.usable(false); err != nil {
		t.setErr(err)
		return false
	}
	return !r.empty()
}
