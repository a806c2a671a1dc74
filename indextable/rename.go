package indextable

import (
	"errors"
	"fmt"
	"slices"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
)

// movePrefixed moves the keys of a structure's parts, ("x", from, part, …)
// to ("x", to, part, …), for a rename. Tables, relations and series share
// the "x" layout and tell themselves apart by their parts, so a rename
// moves its own parts only: a relation that shares a table's name stays
// where it is. It refuses before moving anything when one of to's parts
// holds keys (composite.ErrNotEmpty), and a rename to the same name.
//
// The parts move in key order, so that every key is written after the
// ones written before it. bbolt splits a node only when the transaction
// commits: a table's records moved ahead of its index entries, which sort
// before them, had each of 153,728 entries inserted in front of every
// record in one growing node, and the rename took 50 s; in key order, 0.8 s
// (BenchmarkTableRename).
func movePrefixed(tx keyspace.Tx, from, to string, parts ...string) error {
	parts = slices.Clone(parts)
	slices.Sort(parts) // plain ASCII names pack in the order they sort
	if from == to {
		return fmt.Errorf("rename to %q: %w", to, composite.ErrNotEmpty)
	}
	for _, part := range parts {
		r := composite.NewSubspace("x", to, part).Range()
		r.Limit = 1
		for range tx.Scan(r) {
			return fmt.Errorf("rename to %q: %w", to, composite.ErrNotEmpty)
		}
		if err := tx.Err(); err != nil {
			return err
		}
	}
	for _, part := range parts {
		if _, err := composite.Move(tx, composite.NewSubspace("x", from, part), composite.NewSubspace("x", to, part)); err != nil {
			return fmt.Errorf("rename to %q: %w", to, err)
		}
	}
	return nil
}

// Rename moves every record of the table, its index entries (of declared
// indexes and of any other), expiry entries and build progress to the
// name to in the caller's transaction; the old name holds none of them
// after. Open the table under its new name with New and the same
// indexes. A name whose table parts hold keys is refused (wrapping
// composite.ErrNotEmpty), before anything moves.
func (t *Table[R]) Rename(tx keyspace.Tx, to string) error {
	if err := movePrefixed(tx, t.name, to, "r", "i", "b", "e"); err != nil {
		return t.wrap(err)
	}
	return nil
}

// Rename moves every link of the relation, both lists, the entities'
// fields and the counts to the name to in the caller's transaction, and
// returns the relation under that name. A name that holds a relation's
// keys is refused (wrapping composite.ErrNotEmpty), before anything moves.
func (r *Relation) Rename(tx keyspace.Tx, to string) (*Relation, error) {
	if err := movePrefixed(tx, r.name, to, "l", "f", "bk", "lf", "rf", "lc", "rc"); err != nil {
		return nil, r.wrap(err)
	}
	return NewRelation(to), nil
}

// Rename moves every bucket of the series and its options to the name
// to in the caller's transaction, and returns the series under that
// name. A name that holds a series' keys is refused (wrapping
// composite.ErrNotEmpty), before anything moves.
func (s *Series) Rename(tx keyspace.Tx, to string) (*Series, error) {
	if err := movePrefixed(tx, s.name, to, "s", "sm"); err != nil {
		return nil, s.wrap(err)
	}
	opts := s.opts
	return NewSeries(to, &opts), nil
}

// Rename moves the index's entries, and its build progress when a Build
// is pending, to the name to within the same table, in the caller's
// transaction; the old name holds none of them after. It refuses, before
// anything moves, an empty name, a name the table declares another index
// under (ErrDuplicateIndex), and a name that holds entries or build
// progress of an index the table no longer declares (composite.ErrNotEmpty).
//
// The declaration is the caller's, as with Drop: once the transaction has
// committed, take ix away with Table.RemoveIndex and declare the same
// spec under the new name with AddIndex, or writes will keep filling the
// old name.
func (ix *Index[R]) Rename(tx keyspace.Tx, to string) error {
	if to == "" {
		return ix.wrap(errors.New("rename: an index needs a name"))
	}
	for _, other := range ix.t.indexes {
		if other.spec.Name == to {
			return ix.wrap(fmt.Errorf("rename: %w: %s", ErrDuplicateIndex, to))
		}
	}
	target := &Index[R]{t: ix.t, spec: IndexSpec[R]{Name: to}, sub: ix.t.entries.Sub(to)}
	pending, err := target.BuildPending(tx)
	if err != nil {
		return err
	}
	if pending {
		return ix.wrap(fmt.Errorf("rename to %q: %w", to, composite.ErrNotEmpty))
	}
	if _, err := composite.Move(tx, ix.sub, target.sub); err != nil {
		return ix.wrap(fmt.Errorf("rename to %q: %w", to, err))
	}
	mark, err := tx.Get(ix.buildMark())
	switch {
	case errors.Is(err, keyspace.ErrNotFound):
		return nil
	case err != nil:
		return ix.wrap(err)
	}
	if err := tx.Put(target.buildMark(), mark); err != nil {
		return ix.wrap(err)
	}
	return ix.wrap(tx.Delete(ix.buildMark()))
}
