package cli

import (
	"errors"
	"fmt"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/geo"
	ucli "github.com/urfave/cli/v2"
)

// onlyIf is a point write's --nx or --xx, Redis's GEOADD NX and XX and
// Tile38's SET NX and XX: which of the points written go ahead.
type onlyIf int

const (
	everyPoint   onlyIf = iota
	onlyNew             // --nx: ids not in the index (or expired there); the others stay where they are
	onlyExisting        // --xx: ids in the index; new ids are left out
)

// onlyIfFlags are geo put's and geo import's --nx and --xx.
func onlyIfFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.BoolFlag{Name: "nx", Usage: "only ids not in the index yet; points already there stay where they are (Redis's GEOADD NX, Tile38's SET NX)"},
		&ucli.BoolFlag{Name: "xx", Usage: "only ids already in the index: move them, and leave new ids out (Redis's GEOADD XX, Tile38's SET XX)"},
	}
}

// parseOnlyIf reads --nx and --xx.
func parseOnlyIf(c *ucli.Context) (onlyIf, error) {
	switch nx, xx := c.Bool("nx"), c.Bool("xx"); {
	case nx && xx:
		return everyPoint, usagef("--nx writes only new ids and --xx only ids already there; give one")
	case nx:
		return onlyNew, nil
	case xx:
		return onlyExisting, nil
	}
	return everyPoint, nil
}

// keeps reports whether the write of the point id goes ahead, reading
// in tx whether ix holds it.
func (o onlyIf) keeps(tx keyspace.Tx, ix *geo.Index, id string) (bool, error) {
	if o == everyPoint {
		return true, nil
	}
	_, err := ix.Get(tx, id)
	switch {
	case err == nil:
		return o == onlyExisting, nil
	case errors.Is(err, keyspace.ErrNotFound):
		return o == onlyNew, nil
	}
	return false, err
}

// kept returns the points whose writes go ahead, and how many do not.
func (o onlyIf) kept(tx keyspace.Tx, ix *geo.Index, points []geo.Point) ([]geo.Point, int, error) {
	if o == everyPoint {
		return points, 0, nil
	}
	var kept []geo.Point
	for _, p := range points {
		ok, err := o.keeps(tx, ix, p.ID)
		if err != nil {
			return nil, 0, err
		}
		if ok {
			kept = append(kept, p)
		}
	}
	return kept, len(points) - len(kept), nil
}

// leftOut says why a write left points out: "2 points already there,
// left where they were" (--nx) or "2 points not there, left out" (--xx).
func (o onlyIf) leftOut(n int) string {
	if o == onlyNew {
		where := "they were"
		if n == 1 {
			where = "it was"
		}
		return count(n, "point") + " already there, left where " + where + " (--nx)"
	}
	return count(n, "point") + " not there, left out (--xx)"
}

// noteLeftOut tells, on stderr, that a put wrote nothing: the point id was
// already there (--nx) or was not (--xx).
func noteLeftOut(c *ucli.Context, only onlyIf, id string) {
	if only == onlyNew {
		fmt.Fprintf(c.App.ErrWriter, "point %s is already there: left where it was (--nx)\n", id)
		return
	}
	fmt.Fprintf(c.App.ErrWriter, "point %s is not there: left out (--xx)\n", id)
}
