package composite

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/keyspacedb/keyspace"
)

// ErrNotEmpty is Move's error for a destination that already holds keys:
// moving into it would mix two structures' keys.
var ErrNotEmpty = errors.New("composite: the destination holds keys")

// Move moves every key under from to the same place under to, values
// unchanged, in the caller's transaction, and returns how many it moved:
// ("g", "quakes", …) becomes ("g", "eq", …) when from is ("g", "quakes")
// and to ("g", "eq"), which renames a structure whose keys all lie under
// its name (a geo index, a fence set, a log). It refuses a destination
// that holds keys (ErrNotEmpty) and two subspaces either of which lies
// within the other, and moving a subspace to itself moves nothing. An
// error part way leaves the transaction half moved, as any failed write
// does: the caller's Update rolls it back.
//
// The keys are written in key order, each after the one before; moving
// several subspaces in one transaction, move them in key order too:
// bbolt splits its nodes only at commit, and keys written ahead of many
// written before them in one transaction are each inserted in front of
// all of those (indextable's renames took 40 times as long).
func Move(tx keyspace.Tx, from, to Subspace) (int, error) {
	if bytes.Equal(from.prefix, to.prefix) {
		return 0, nil
	}
	if hasTuplePrefix(from.prefix, to.prefix) || hasTuplePrefix(to.prefix, from.prefix) {
		return 0, fmt.Errorf("composite: move: %x and %x overlap", from.prefix, to.prefix)
	}
	dest := to.Range()
	dest.Limit = 1
	for range tx.Scan(dest) {
		return 0, ErrNotEmpty
	}
	if err := tx.Err(); err != nil {
		return 0, err
	}
	n := 0
	var key []byte
	// Writes inside a scan are allowed: the scan goes on after the key it
	// yielded, and the new keys lie outside from.
	for k, v := range tx.Scan(from.Range()) {
		key = append(append(key[:0], to.prefix...), k[len(from.prefix):]...)
		if err := tx.Put(key, v); err != nil {
			return n, fmt.Errorf("composite: move: %w", err)
		}
		if err := tx.Delete(k); err != nil {
			return n, fmt.Errorf("composite: move: %w", err)
		}
		n++
	}
	return n, tx.Err()
}
