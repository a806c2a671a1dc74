// Package fixes holds what a repair decides to write while it reads a
// structure, and writes it afterwards: a repair reads whole subspaces,
// and deciding first keeps its scans off the keys it changes.
package fixes

import (
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

// Apply writes the set in tx: the deletes, then the puts.
func (s *Set) Apply(tx keyspace.Tx) error {
	for _, k := range s.dels {
		if _, put := s.puts[string(k)]; put {
			continue
		}
		if err := tx.Delete(k); err != nil {
			return err
		}
	}
	for k, v := range s.puts {
		if err := tx.Put([]byte(k), v); err != nil {
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
