package cli

import (
	"errors"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/geo"
	ucli "github.com/urfave/cli/v2"
)

// fenceFilterFlags are --where, --where-in (on a fence's payload, as geo
// queries' on a point's) and --match (on its id), Tile38's WHERE, WHEREIN
// and MATCH on a fence set's objects: the delivery zones of one tariff
// that hold an address.
func fenceFilterFlags() []ucli.Flag {
	return []ucli.Flag{
		whereFlagOf("fences whose payload field"),
		whereInFlagOf("fences whose payload field"),
		matchFlag("fences"),
	}
}

// A fenceFilter keeps the fences a query found that --where, --where-in
// and --match hold for, reading a fence's payload only when a condition
// needs it.
type fenceFilter struct {
	watch   *fieldWatch          // the conditions' fields, for a note when none is kept
	matches func(id string) bool // --match, nil without it
	keep    func(geo.Point) bool // --match and the conditions
	payload bool                 // the conditions read the payload
	decided map[string]bool      // by fence id: a file's points share their fences
}

// newFenceFilter reads the flags: nil when none is given.
func newFenceFilter(c *ucli.Context) (*fenceFilter, error) {
	conds, err := parseWhere(c)
	if err != nil {
		return nil, err
	}
	matches, _ := idMatcher(c)
	if len(conds) == 0 && matches == nil {
		return nil, nil
	}
	watch, keep := watchPayloads("fence", conds, matches)
	return &fenceFilter{watch: watch, matches: matches, keep: keep, payload: len(conds) > 0, decided: map[string]bool{}}, nil
}

// apply returns the ids (and their distances, when given, in step) of the
// fences the filter keeps, in their order; a fence that expired since the
// query found it is left out.
func (ff *fenceFilter) apply(tx keyspace.Tx, fs *geo.Fences, ids []string, distances []float64) ([]string, []float64, error) {
	if ff == nil {
		return ids, distances, nil
	}
	var keptIDs []string
	var keptDistances []float64
	for i, id := range ids {
		kept, ok := ff.decided[id]
		if !ok {
			var err error
			if kept, err = ff.test(tx, fs, id); err != nil {
				return nil, nil, err
			}
			ff.decided[id] = kept
		}
		if !kept {
			continue
		}
		keptIDs = append(keptIDs, id)
		if distances != nil {
			keptDistances = append(keptDistances, distances[i])
		}
	}
	return keptIDs, keptDistances, nil
}

// idKept says whether --match keeps the fence id, before its payload is
// read.
func (ff *fenceFilter) idKept(id string) bool { return ff.matches == nil || ff.matches(id) }

// test says whether the filter keeps the fence id, reading its payload
// only for an id --match keeps.
func (ff *fenceFilter) test(tx keyspace.Tx, fs *geo.Fences, id string) (bool, error) {
	if !ff.idKept(id) {
		return false, nil
	}
	p := geo.Point{ID: id}
	if ff.payload {
		f, err := fs.Get(tx, id)
		if errors.Is(err, keyspace.ErrNotFound) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		p.Payload = f.Payload
	}
	return ff.keep(p), nil
}

// note queues the note on the conditions' fields no payload read had,
// when the filter kept no fence.
func (ff *fenceFilter) note(c *ucli.Context) {
	if ff != nil && ff.watch != nil && ff.watch.kept == 0 {
		if note := ff.watch.missing(); note != "" {
			addNote(c, "%s", note)
		}
	}
}
