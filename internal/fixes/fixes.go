// Package fixes holds what a repair decides to write while it reads a
// structure, and writes it afterwards: a repair reads whole subspaces,
// and deciding first keeps its scans off the keys it changes.
package fixes

import (
	"bytes"
	"maps"
	"slices"

	"github.com/keyspacedb/keyspace"
)

// Set is a repair's writes: keys to delete and pairs to put. A key both
// deleted and put is put. The zero Set is empty and ready.
type Set struct {
	dels [][]byte
	puts map[string][]byte
}

// Delete notes that key goes. Set keeps key, which the caller must not
// change afterwards.
func (s *Set) Delete(key []byte) { s.dels = append(s.dels, key) }

// Put notes that key is to hold value.
func (s *Set) Put(key, value []byte) {
	if s.puts == nil {
		s.puts = map[string][]byte{}
	}
	s.puts[string(key)] = value
}

// Empty reports whether the set writes nothing.
func (s *Set) Empty() bool { return len(s.dels) == 0 && len(s.puts) == 0 }

// Apply writes the set in tx: the deletes, then the puts, each in key
// order. The order matters on bbolt, which splits a page only when the
// transaction commits: a repair that rewrites a whole subspace (300,000
// missing time entries of a log) in the map's random order inserted into
// ever larger nodes, and took a minute where key order takes seconds.
func (s *Set) Apply(tx keyspace.Tx) error {
	slices.SortFunc(s.dels, bytes.Compare)
	for _, k := range s.dels {
		if _, put := s.puts[string(k)]; put {
			continue
		}
		if err := tx.Delete(k); err != nil {
			return err
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.puts)) {
		if err := tx.Put([]byte(k), s.puts[k]); err != nil {
			return err
		}
	}
	return nil
}

// Finish ends a check: it sorts the problems found, and when fix is set
// (a repair, not a verify) applies the set in tx. It returns the problems.
func (s *Set) Finish(tx keyspace.Tx, problems []string, fix bool) ([]string, error) {
	slices.Sort(problems)
	if fix {
		if err := s.Apply(tx); err != nil {
			return nil, err
		}
	}
	return problems, nil
}
