package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/geo"
	ucli "github.com/urfave/cli/v2"
)

// geo put with --fences or --roam: the move written with what it did, in
// one transaction (geo import --fences and --roam: geoimport.go); geo del
// --roam: the points each deleted point was near. --fences prints the fences the move entered, left,
// stayed in or passed through (Fences.Crossings); --roam DISTANCE the
// other points of the index it came within DISTANCE of, left, or stayed
// near (Index.PutRoaming, Tile38's roaming geofences).

// detectFlag is --detect, Tile38's DETECT: the kinds of crossing and
// meeting to print.
func detectFlag() ucli.Flag {
	return &ucli.StringSliceFlag{Name: "detect", Usage: "print only these `KINDS` of crossing and meeting: enter, exit, inside, cross (comma-separated), as Tile38's DETECT", DefaultText: "all"}
}

// A detect is --detect: the kinds to print, nil for all.
type detect map[geo.CrossingKind]bool

// parseDetect reads --detect; an unknown kind, or --detect with neither
// --fences nor --roam, is a usage error.
func parseDetect(c *ucli.Context) (detect, error) {
	if !c.IsSet("detect") {
		return nil, nil
	}
	if !c.IsSet("fences") && !c.IsSet("roam") {
		return nil, usagef("--detect chooses what --fences or --roam print: give one of them")
	}
	d := detect{}
	for _, list := range c.StringSlice("detect") { // --detect enter,exit --detect cross
		for _, name := range strings.Split(list, ",") {
			name = strings.TrimSpace(name)
			found := false
			for _, k := range []geo.CrossingKind{geo.Enter, geo.Exit, geo.Inside, geo.Cross} {
				if name == k.String() {
					d[k], found = true, true
				}
			}
			if !found {
				return nil, usagef("--detect %q: want enter, exit, inside or cross", name)
			}
		}
	}
	return d, nil
}

// crossings returns the crossings of the kinds d keeps.
func (d detect) crossings(cs []geo.Crossing) []geo.Crossing {
	if d == nil {
		return cs
	}
	return slices.DeleteFunc(cs, func(x geo.Crossing) bool { return !d[x.Kind] })
}

// meetings returns the meetings of the kinds d keeps.
func (d detect) meetings(ms []geo.Meeting) []geo.Meeting {
	if d == nil {
		return ms
	}
	return slices.DeleteFunc(ms, func(m geo.Meeting) bool { return !d[m.Kind] })
}

// fenceSetOf is the fence set --fences names, which must hold fences;
// nil without --fences.
func fenceSetOf(c *ucli.Context, tx keyspace.Tx) (*geo.Fences, error) {
	if !c.IsSet("fences") {
		return nil, nil
	}
	fs := geo.NewFences(c.String("fences"))
	return fs, requireFences(fs, tx)
}

// movePoint puts p in ix, as geo put and geo import --moves move a
// point: with fs (nil for none), the crossings of its move through fs's
// fences (Fences.PutPoint); with roam, the other points it came within
// radius of, left or stayed near (Index.PutRoaming).
func movePoint(tx keyspace.Tx, ix *geo.Index, fs *geo.Fences, p geo.Point, roam bool, radius float64) ([]geo.Crossing, []geo.Meeting, error) {
	if !roam {
		if fs == nil {
			return nil, nil, ix.Put(tx, p)
		}
		cs, err := fs.PutPoint(tx, ix, p)
		return cs, nil, err
	}
	var from *geo.Point // where the point was, for the crossings
	if fs != nil {
		switch old, err := ix.Get(tx, p.ID); {
		case err == nil:
			from = &old
		case !errors.Is(err, keyspace.ErrNotFound):
			return nil, nil, err
		}
	}
	ms, err := ix.PutRoaming(tx, p, radius)
	if err != nil || fs == nil {
		return nil, ms, err
	}
	cs, err := fs.Crossings(tx, from, &p)
	return cs, ms, err
}

// putAndReport puts p in ix, if only keeps it, and prints what the move
// did (the kinds --detect keeps): nothing, when only left it out.
func putAndReport(c *ucli.Context, ix *geo.Index, p geo.Point, only onlyIf) error {
	format, err := output(c, "table", "json")
	if err != nil {
		return err
	}
	keep, err := parseDetect(c)
	if err != nil {
		return err
	}
	roam := c.IsSet("roam")
	var radius float64
	if roam {
		if radius, err = parseDistance(c.String("roam")); err != nil {
			return usagef("--roam: %v", err)
		}
	}
	var cs []geo.Crossing
	var ms []geo.Meeting
	written := false
	if err := updateDB(c, func(tx keyspace.Tx) error {
		if ok, err := only.keeps(tx, ix, p.ID); !ok || err != nil {
			return err
		}
		written = true
		fs, err := fenceSetOf(c, tx)
		if err != nil {
			return err
		}
		cs, ms, err = movePoint(tx, ix, fs, p, roam, radius)
		return err
	}); err != nil {
		return err
	}
	if !written {
		noteLeftOut(c, only, p.ID)
	}
	cs, ms = keep.crossings(cs), keep.meetings(ms)
	if !roam {
		return writeCrossings(c, format, p.ID, cs)
	}
	return writeMeetings(c, format, p.ID, c.IsSet("fences"), cs, ms)
}

// jsonMeeting is a meeting as JSON.
type jsonMeeting struct {
	ID       string  `json:"id"`
	Kind     string  `json:"kind"`
	Distance float64 `json:"distance"` // metres
}

// jsonMeetings is ms as JSON, never null.
func jsonMeetings(ms []geo.Meeting) []jsonMeeting {
	out := make([]jsonMeeting, len(ms))
	for i, m := range ms {
		out[i] = jsonMeeting{m.ID, m.Kind.String(), m.Distance}
	}
	return out
}

// writeMeetings prints a move's meetings, after its crossings when
// --fences asked for them too: tables, or one JSON object.
func writeMeetings(c *ucli.Context, format, id string, fences bool, cs []geo.Crossing, ms []geo.Meeting) error {
	meetings := jsonMeetings(ms)
	if format == "json" {
		answer := struct {
			ID        string         `json:"id"`
			Crossings []jsonCrossing `json:"crossings,omitempty"`
			Meetings  []jsonMeeting  `json:"meetings"`
		}{ID: id, Meetings: meetings}
		if fences {
			answer.Crossings = newPointCrossings(id, cs).Crossings
		}
		return writeJSON(c.App.Writer, answer)
	}
	if fences {
		if err := writeCrossings(c, format, id, cs); err != nil {
			return err
		}
	}
	tw := newTable(c.App.Writer)
	fmt.Fprintln(tw, "NEAR\tKIND\tDISTANCE")
	for _, m := range ms {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", m.ID, m.Kind, formatDistance(m.Distance))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(c.App.Writer, count(len(ms), "point"))
	return err
}

// deletedPoint is what geo del --fences or --roam says of one point: the
// lists asked for, present even when empty, the others left out.
type deletedPoint struct {
	ID        string          `json:"id"`
	Crossings *[]jsonCrossing `json:"crossings,omitempty"`
	Meetings  *[]jsonMeeting  `json:"meetings,omitempty"`
}

// geoDelAndReport deletes points and prints, for each, the fences it left
// (--fences, from the point as it was) and the points it was within
// --roam of: all ids or none, in one transaction.
func geoDelAndReport(c *ucli.Context) error {
	format, err := output(c, "table", "json")
	if err != nil {
		return err
	}
	fences, roam := c.IsSet("fences"), c.IsSet("roam")
	var radius float64
	if roam {
		if radius, err = parseDistance(c.String("roam")); err != nil {
			return usagef("--roam: %v", err)
		}
	}
	fs := geo.NewFences(c.String("fences"))
	var out []deletedPoint
	err = eachPoint(c, func(ix *geo.Index, tx keyspace.Tx, id string) error {
		if fences && len(out) == 0 {
			if err := requireFences(fs, tx); err != nil {
				return err
			}
		}
		p, err := getPoint(ix, tx, id) // an unknown id is an error that names it
		if err != nil {
			return err
		}
		d := deletedPoint{ID: id}
		if fences {
			cs, err := fs.Crossings(tx, &p, nil)
			if err != nil {
				return err
			}
			crossings := newPointCrossings(id, cs).Crossings
			d.Crossings = &crossings
		}
		if !roam {
			out = append(out, d)
			return ix.Delete(tx, id)
		}
		ms, err := ix.DeleteRoaming(tx, id, radius)
		if err != nil {
			return err
		}
		meetings := jsonMeetings(ms)
		d.Meetings = &meetings
		out = append(out, d)
		return nil
	})
	if err != nil {
		return err
	}
	if format == "json" {
		return writeJSON(c.App.Writer, struct {
			Deleted []deletedPoint `json:"deleted"`
		}{out})
	}
	tw := newTable(c.App.Writer)
	exits := 0
	if fences {
		fmt.Fprintln(tw, "ID\tFENCE\tCROSSING")
		for _, d := range out {
			for _, x := range *d.Crossings {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", d.ID, x.Fence, x.Kind)
				exits++
			}
		}
	}
	if roam {
		fmt.Fprintln(tw, "ID\tNEAR\tKIND\tDISTANCE")
		for _, d := range out {
			for _, m := range *d.Meetings {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", d.ID, m.ID, m.Kind, formatDistance(m.Distance))
				exits++
			}
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err = fmt.Fprintf(c.App.Writer, "%s deleted, %s\n", count(len(out), "point"), count(exits, "exit"))
	return err
}
