package keyspace

// Compact rewrites every pair of the store into new leaves, in key order
// and side by side in memory, as a bulk load lays them out, and returns
// how many pairs it wrote. A store written by Puts over a long time
// keeps each pair where its Put allocated it, among the garbage of the
// writes since, and reads slower than the same pairs bulk-loaded
// (bench/NOTES.md); Compact gives it the bulk layout back. On 1,000,000
// geo points written by Index.Put, 1,000 a transaction, a 1 km radius
// query took 7.8–9.1 µs before it and 5.8–6.4 after, against 5.5–6.3
// bulk-loaded (-bench RadiusAfterPuts ./geo); the 2,000,000 pairs took
// about a second to compact.
//
// It is one Update: Views that began before it go on reading the old
// leaves, and it holds the writer's lock while it runs, and twice the
// pairs' memory until the old leaves are no longer read. A server calls it
// when it is quiet, as Redis's active defragmentation runs in the
// background.
func (s *MemoryStore) Compact() (int, error) {
	n := 0
	err := s.Update(func(tx Tx) error {
		type kv struct{ k, v []byte }
		var pairs []kv // stored pairs are never changed: they outlive the delete below
		for k, v := range tx.Scan(Range{}) {
			pairs = append(pairs, kv{k, v})
		}
		if err := tx.Err(); err != nil {
			return err
		}
		if _, err := tx.DeleteRange(Range{}); err != nil {
			return err
		}
		n = 0
		return WriteSorted(tx, owned(func(yield func(k, v []byte) bool) {
			for _, p := range pairs {
				if !yield(p.k, p.v) {
					return
				}
			}
		}, &n))
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}
