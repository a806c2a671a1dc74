package cli

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/geo"
	"github.com/paulmach/orb/geojson"
	ucli "github.com/urfave/cli/v2"
)

// The fence commands that read a set: get, list, containing (at a point
// or at every point of a file), near, intersecting, within and along;
// del and drop; and geo del, which reports the fences deleted points
// left.

func fenceGet(c *ucli.Context) error {
	if c.NArg() == 0 {
		return usagef("fence get wants at least one ID")
	}
	format, err := output(c, "table", "json", "geojson")
	if err != nil {
		return err
	}
	fs := geo.NewFences(c.String("fences"))
	return viewDB(c, func(tx keyspace.Tx) error {
		var fences []geo.Fence
		for _, id := range c.Args().Slice() {
			f, err := fs.Get(tx, id)
			if err != nil {
				return err
			}
			fences = append(fences, f)
		}
		return writeFences(c, format, fences, "")
	})
}

func writeFences(c *ucli.Context, format string, fences []geo.Fence, next string) error {
	fields, err := fieldsOf(c)
	if err != nil {
		return err
	}
	if fields != nil {
		projected := make([]geo.Fence, len(fences))
		for i, f := range fences {
			projected[i] = f
			projected[i].Payload = projectPayload(f.Payload, fields)
		}
		fences = projected
	}
	fc := geojson.NewFeatureCollection()
	for _, f := range fences {
		fc.Append(fenceFeature(f))
	}
	switch format {
	case "geojson":
		writeNextPage(c.App.ErrWriter, next) // a FeatureCollection has no place for it
		return writeJSON(c.App.Writer, fc)
	case "json":
		return writeJSON(c.App.Writer, struct {
			Fences []*geojson.Feature `json:"fences"`
			Next   string             `json:"next,omitempty"`
		}{fc.Features, next})
	}
	// An EXPIRES column when some fence expires.
	expiring := slices.ContainsFunc(fences, func(f geo.Fence) bool { return !f.Expires.IsZero() })
	tw := newTable(c.App.Writer)
	if expiring {
		fmt.Fprintln(tw, "ID\tKIND\tREGION\tEXPIRES\tPAYLOAD")
	} else {
		fmt.Fprintln(tw, "ID\tKIND\tREGION\tPAYLOAD")
	}
	for _, f := range fences {
		fmt.Fprintf(tw, "%s\t%s\t%s\t", f.ID, fenceKind(f), fenceRegion(f))
		if expiring {
			fmt.Fprintf(tw, "%s\t", cmp.Or(formatExpires(f.Expires), "never"))
		}
		fmt.Fprintf(tw, "%s\n", payloadCell(f.Payload))
	}
	return tw.Flush()
}

func fenceList(c *ucli.Context) error {
	format, err := output(c, "table", "json", "geojson")
	if err != nil {
		return err
	}
	ff, err := newFenceFilter(c)
	if err != nil {
		return err
	}
	fs := geo.NewFences(c.String("fences"))
	return viewDB(c, func(tx keyspace.Tx) error {
		if err := requireFences(fs, tx); err != nil {
			return err
		}
		ids, err := fs.IDs(tx)
		if err != nil {
			return err
		}
		// A page: the kept fences after the cursor, --limit of them, and
		// the next page's cursor when a kept one follows them.
		limit, err := limitOf(c)
		if err != nil {
			return err
		}
		if cursor := c.String("cursor"); cursor != "" {
			i, found := slices.BinarySearch(ids, cursor)
			if found {
				i++
			}
			ids = ids[i:]
		}
		next := ""
		var fences []geo.Fence
		for _, id := range ids {
			if ff != nil && !ff.idKept(id) {
				continue // not read: --match is on the id alone
			}
			f, err := fs.Get(tx, id)
			if errors.Is(err, keyspace.ErrNotFound) {
				continue // it expired since IDs listed it
			}
			if err != nil {
				return err
			}
			if ff != nil && !ff.keep(geo.Point{ID: id, Payload: f.Payload}) {
				continue
			}
			if limit > 0 && len(fences) == limit {
				next = fences[limit-1].ID
				break
			}
			fences = append(fences, f)
		}
		ff.note(c)
		if path := c.String("svg"); path != "" {
			if err := writeFencesSVG(path, fences, nil, nil, nil); err != nil {
				return err
			}
		}
		if err := writeFences(c, format, fences, next); err != nil || format != "table" {
			return err
		}
		_, err = fmt.Fprintln(c.App.Writer, count(len(fences), "fence"))
		if err == nil {
			err = writeNextPage(c.App.Writer, next)
		}
		return err
	})
}

func fenceDel(c *ucli.Context) error {
	if c.NArg() == 0 {
		return usagef("fence del wants at least one ID")
	}
	fs := geo.NewFences(c.String("fences"))
	return updateDB(c, func(tx keyspace.Tx) error {
		for _, id := range c.Args().Slice() {
			if err := fs.Delete(tx, id); err != nil {
				return err
			}
		}
		return nil
	})
}

func fenceContaining(c *ucli.Context) error {
	if c.NArg() > 0 {
		if c.IsSet("from") || c.IsSet("index") || c.IsSet("lat") || c.IsSet("lon") {
			return usagef("fence containing takes a FILE, or --lat and --lon, or --index and --from: one of them")
		}
		return fenceContainingFile(c)
	}
	format, err := output(c, "table", "json")
	if err != nil {
		return err
	}
	at, err := flagPoint(c, "fence containing wants --lat and --lon, or --index and --from, or a FILE")
	if err != nil {
		return err
	}
	ff, err := newFenceFilter(c)
	if err != nil {
		return err
	}
	fs := geo.NewFences(c.String("fences"))
	return viewDB(c, func(tx keyspace.Tx) error {
		lat, lon, err := at(tx)
		if err != nil {
			return err
		}
		if err := requireFences(fs, tx); err != nil {
			return err
		}
		ids, err := fs.Containing(tx, lat, lon)
		if err != nil {
			return err
		}
		if ids, _, err = ff.apply(tx, fs, ids, nil); err != nil {
			return err
		}
		ff.note(c)
		if path := c.String("svg"); path != "" {
			var held []geo.Fence // drawn: the fences that hold the point
			for _, id := range ids {
				f, err := fs.Get(tx, id)
				if errors.Is(err, keyspace.ErrNotFound) {
					continue // it expired since the lookup found it
				}
				if err != nil {
					return err
				}
				held = append(held, f)
			}
			if err := writeFencesSVG(path, held, &[2]float64{lat, lon}, ids, nil); err != nil {
				return err
			}
		}
		return writeFenceIDs(c, format, fs, tx, ids)
	})
}

// flagPoint checks the flags that name a point, --lat and --lon or
// --index and --from (wants is the usage error for neither or both), and
// returns the reading of the point in a transaction.
func flagPoint(c *ucli.Context, wants string) (func(tx keyspace.Tx) (lat, lon float64, err error), error) {
	byPoint, byCoords := c.IsSet("from") || c.IsSet("index"), c.IsSet("lat") || c.IsSet("lon")
	switch {
	case byPoint == byCoords:
		return nil, usagef("%s", wants)
	case byPoint && (!c.IsSet("from") || !c.IsSet("index")):
		return nil, usagef("--from wants --index, and --index wants --from")
	case byCoords && (!c.IsSet("lat") || !c.IsSet("lon")):
		return nil, usagef("--lat wants --lon, and --lon wants --lat")
	}
	return func(tx keyspace.Tx) (float64, float64, error) {
		if !byPoint {
			return c.Float64("lat"), c.Float64("lon"), nil
		}
		p, err := getPoint(geo.NewIndex(c.String("index")), tx, c.String("from"))
		return p.Lat, p.Lon, err
	}, nil
}

// fenceNear is fence near: the fences within --radius of a point given
// by --lat and --lon or by a geo point, nearest first.
func fenceNear(c *ucli.Context) error {
	format, err := output(c, "table", "json")
	if err != nil {
		return err
	}
	at, err := flagPoint(c, "fence near wants --lat and --lon, or --index and --from")
	if err != nil {
		return err
	}
	if c.Int("k") < 0 {
		return usagef("--k %d: want a count of fences, or leave it out for all", c.Int("k"))
	}
	radius, err := parseDistance(c.String("radius"))
	if err != nil {
		return usageError{fmt.Errorf("--radius: %w", err)}
	}
	ff, err := newFenceFilter(c)
	if err != nil {
		return err
	}
	fs := geo.NewFences(c.String("fences"))
	return viewDB(c, func(tx keyspace.Tx) error {
		lat, lon, err := at(tx)
		if err != nil {
			return err
		}
		if err := requireFences(fs, tx); err != nil {
			return err
		}
		k := c.Int("k")
		if ff != nil {
			k = 0 // every fence within the radius, then the nearest k kept
		}
		near, err := fs.Near(tx, lat, lon, radius, k)
		if err != nil {
			return err
		}
		ids, distances := make([]string, len(near)), make([]float64, len(near))
		for i, n := range near {
			ids[i], distances[i] = n.ID, n.Distance
		}
		if ids, distances, err = ff.apply(tx, fs, ids, distances); err != nil {
			return err
		}
		ff.note(c)
		if k := c.Int("k"); k > 0 && len(ids) > k {
			ids, distances = ids[:k], distances[:k]
		}
		return writeFenceDistances(c, format, fs, tx, ids, distances, false)
	})
}

// fenceAreaQuery is fence intersecting or fence within (the command
// named cmd): the fences that query finds for the area the flags
// describe, or for the set's fence --fence, which is left out.
func fenceAreaQuery(cmd string, query func(fs *geo.Fences, tx keyspace.Tx, area geo.Fence) ([]string, error)) ucli.ActionFunc {
	return func(c *ucli.Context) error {
		format, err := output(c, "table", "json")
		if err != nil {
			return err
		}
		var area geo.Fence
		self := c.String("fence") // the area's own id, when it is a stored fence
		if self == "" {
			if area, err = flagRegion(c, cmd); err != nil {
				return err
			}
		} else if c.IsSet("sector") || slices.ContainsFunc(regionFlags(), func(f ucli.Flag) bool { return c.IsSet(f.Names()[0]) }) {
			return usagef("%s takes --fence or a region, not both", cmd)
		}
		buffer := -1.0 // none
		if c.IsSet("buffer") {
			if buffer, err = parseDistance(c.String("buffer")); err != nil {
				return usageError{fmt.Errorf("--buffer: %w", err)}
			}
			if self == "" && area.Polygon == nil {
				return usagef("--buffer goes with a polygon: --polygon, or a polygon --fence")
			}
		}
		ff, err := newFenceFilter(c)
		if err != nil {
			return err
		}
		fs := geo.NewFences(c.String("fences"))
		return viewDB(c, func(tx keyspace.Tx) error {
			if err := requireFences(fs, tx); err != nil {
				return err
			}
			if self != "" {
				if area, err = fs.Get(tx, self); err != nil {
					return err
				}
				if buffer >= 0 && area.Polygon == nil {
					return usagef("--buffer goes with a polygon; fence %s is not one", self)
				}
			}
			var ids []string
			if buffer >= 0 {
				ids, err = fs.NearPolygon(tx, area.Polygon, buffer)
			} else {
				ids, err = query(fs, tx, area)
			}
			if err != nil {
				return err
			}
			ids = slices.DeleteFunc(ids, func(id string) bool { return id == self })
			if ids, _, err = ff.apply(tx, fs, ids, nil); err != nil {
				return err
			}
			ff.note(c)
			if path := c.String("svg"); path != "" {
				var found []geo.Fence
				for _, id := range ids {
					f, err := fs.Get(tx, id)
					if err != nil {
						return err
					}
					found = append(found, f)
				}
				drawn := areaShape(area, found)
				if buffer >= 0 {
					drawn = append(drawn, corridorShape(ringLines(area.Polygon), buffer)...)
				}
				if err := writeFencesSVG(path, found, nil, ids, drawn); err != nil {
					return err
				}
			}
			return writeFenceIDs(c, format, fs, tx, ids)
		})
	}
}

// fenceAlong answers fence along: the fences within --radius of --line.
func fenceAlong(c *ucli.Context) error {
	format, err := output(c, "table", "json")
	if err != nil {
		return err
	}
	line, err := readLine(c)
	if err != nil {
		return err
	}
	radius, err := parseDistance(c.String("radius"))
	if err != nil {
		return usageError{fmt.Errorf("--radius: %w", err)}
	}
	ff, err := newFenceFilter(c)
	if err != nil {
		return err
	}
	fs := geo.NewFences(c.String("fences"))
	return viewDB(c, func(tx keyspace.Tx) error {
		if err := requireFences(fs, tx); err != nil {
			return err
		}
		var ids []string
		var at []float64
		if c.Bool("in-order") {
			passed, err := fs.Passed(tx, line, radius)
			if err != nil {
				return err
			}
			for _, p := range passed {
				ids, at = append(ids, p.ID), append(at, p.At)
			}
		} else if ids, err = fs.Along(tx, line, radius); err != nil {
			return err
		}
		if ids, at, err = ff.apply(tx, fs, ids, at); err != nil {
			return err
		}
		ff.note(c)
		if path := c.String("svg"); path != "" {
			found := make([]geo.Fence, len(ids))
			for i, id := range ids {
				if found[i], err = fs.Get(tx, id); err != nil {
					return err
				}
			}
			if err := writeFencesSVG(path, found, nil, ids, corridorShape(line, radius)); err != nil {
				return err
			}
		}
		if at != nil {
			return writeFenceDistances(c, format, fs, tx, ids, at, true)
		}
		return writeFenceIDs(c, format, fs, tx, ids)
	})
}

// writeFenceDistances prints fences with a distance each: fence near's
// from the point (DISTANCE, distance_m), or with along fence along
// --in-order's along the route (AT, at_m); a table or JSON, with
// --payloads each with its payload.
func writeFenceDistances(c *ucli.Context, format string, fs *geo.Fences, tx keyspace.Tx, ids []string, distances []float64, along bool) error {
	payloads := c.Bool("payloads")
	var refs []fenceRef
	if payloads {
		var err error
		if refs, err = withPayloads(fs, tx, ids, nil); err != nil {
			return err
		}
	}
	if format == "json" {
		out := make([]fenceDistance, len(ids))
		for i, id := range ids {
			out[i].ID = id
			if along {
				out[i].AtM = &distances[i]
			} else {
				out[i].DistanceM = &distances[i]
			}
			if payloads {
				out[i].Payload = refs[i].Payload
			}
		}
		return writeJSON(c.App.Writer, struct {
			Fences []fenceDistance `json:"fences"`
		}{out})
	}
	column := "DISTANCE"
	if along {
		column = "AT"
	}
	tw := newTable(c.App.Writer)
	fmt.Fprint(tw, "FENCE\t"+column)
	if payloads {
		fmt.Fprint(tw, "\tPAYLOAD")
	}
	fmt.Fprintln(tw)
	for i, id := range ids {
		fmt.Fprintf(tw, "%s\t%s", id, formatDistance(distances[i]))
		if payloads {
			fmt.Fprintf(tw, "\t%s", payloadCell(refs[i].Payload))
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(c.App.Writer, count(len(ids), "fence"))
	return err
}

// fenceDistance is a fence and a distance as JSON (writeFenceDistances).
type fenceDistance struct {
	ID        string          `json:"id"`
	DistanceM *float64        `json:"distance_m,omitempty"`
	AtM       *float64        `json:"at_m,omitempty"`
	Payload   json.RawMessage `json:"payload,omitempty"`
}

// writeFenceIDs prints the fences ids found, a line each and their count
// or as JSON; with --payloads, each with its payload.
func writeFenceIDs(c *ucli.Context, format string, fs *geo.Fences, tx keyspace.Tx, ids []string) error {
	if c.Bool("payloads") {
		refs, err := withPayloads(fs, tx, ids, nil)
		if err != nil {
			return err
		}
		if format == "json" {
			return writeJSON(c.App.Writer, struct {
				Fences []fenceRef `json:"fences"`
			}{refs})
		}
		tw := newTable(c.App.Writer)
		fmt.Fprintln(tw, "FENCE\tPAYLOAD")
		for _, r := range refs {
			fmt.Fprintf(tw, "%s\t%s\n", r.ID, payloadCell(r.Payload))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	} else if format == "json" {
		if ids == nil {
			ids = []string{}
		}
		return writeJSON(c.App.Writer, struct {
			Fences []string `json:"fences"`
		}{ids})
	} else {
		for _, id := range ids {
			fmt.Fprintln(c.App.Writer, id)
		}
	}
	_, err := fmt.Fprintln(c.App.Writer, count(len(ids), "fence"))
	return err
}

// fenceRef is a fence that holds a point, with its payload, as fence
// containing --payloads writes it.
type fenceRef struct {
	ID      string          `json:"id"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

// withPayloads reads the payloads of the fences ids, each once: read keeps
// those read before, for a file whose points share their fences (nil
// reads them all).
func withPayloads(fs *geo.Fences, tx keyspace.Tx, ids []string, read map[string]json.RawMessage) ([]fenceRef, error) {
	refs := make([]fenceRef, len(ids))
	for i, id := range ids {
		payload, ok := read[id]
		if !ok {
			f, err := fs.Get(tx, id)
			if err != nil && !errors.Is(err, keyspace.ErrNotFound) {
				return nil, err
			} // else it expired since the lookup found it: no payload
			payload = payloadJSON(f.Payload)
			if read != nil {
				read[id] = payload
			}
		}
		refs[i] = fenceRef{id, payload}
	}
	return refs, nil
}

// jsonCrossing is a crossing as JSON.
type jsonCrossing struct {
	Fence string `json:"fence"`
	Kind  string `json:"kind"`
}

// pointCrossings is one point's crossings as JSON: geo put's answer, and
// a line of geo del's and geo import's.
type pointCrossings struct {
	ID        string         `json:"id"`
	Crossings []jsonCrossing `json:"crossings"`
}

func newPointCrossings(id string, cs []geo.Crossing) pointCrossings {
	out := make([]jsonCrossing, len(cs))
	for i, x := range cs {
		out[i] = jsonCrossing{x.Fence, x.Kind.String()}
	}
	return pointCrossings{id, out}
}

// writeCrossings prints what a move did: a line a fence, or JSON.
func writeCrossings(c *ucli.Context, format string, id string, cs []geo.Crossing) error {
	if format == "json" {
		return writeJSON(c.App.Writer, newPointCrossings(id, cs))
	}
	tw := newTable(c.App.Writer)
	fmt.Fprintln(tw, "FENCE\tCROSSING")
	for _, x := range cs {
		fmt.Fprintf(tw, "%s\t%s\n", x.Fence, x.Kind)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(c.App.Writer, count(len(cs), "fence"))
	return err
}

// dropFences deletes the fence set name; an empty set is an error, as an
// unknown index is.
func dropFences(tx keyspace.Tx, name string) (int, error) {
	fs := geo.NewFences(name)
	if err := requireFences(fs, tx); err != nil {
		return 0, err
	}
	return fs.Drop(tx)
}

// requireFences is an error naming a set that holds no fences: a
// misspelt name would otherwise hold no point and cross nothing, silently.
func requireFences(fs *geo.Fences, tx keyspace.Tx) error {
	empty, err := fs.Empty(tx)
	if err == nil && empty {
		err = fmt.Errorf("unknown fence set %q: it holds no fences (see keyspace stats)%s", fs.Name(), didYouMeanIn(tx, fs.Name(), fenceSetNames))
	}
	return err
}

// areaShape is the outline of fence intersecting's or within's area for
// --svg, as fenceShape draws a fence: a sector with no radius is drawn a
// fifth further than the farthest point of the fences found (100 km when
// none is), at most a quarter of the way round the world.
func areaShape(area geo.Fence, found []geo.Fence) shape {
	s := area.Sector
	if s == nil || !math.IsInf(s.Radius, 1) {
		return fenceShape(area)
	}
	reach := s.Radius
	if math.IsInf(reach, 1) {
		reach = 0
		for _, f := range found {
			for _, ring := range fenceShape(f) {
				for _, p := range ring {
					reach = max(reach, geo.Distance(s.Lat, s.Lon, p[1], p[0])*1.2)
				}
			}
		}
		if reach == 0 {
			reach = 100_000
		}
		reach = min(reach, math.Pi/2*geo.EarthRadius)
	}
	return sectorShape(s.Lat, s.Lon, reach, s.From, s.To)
}

// fenceShape is f's outline for --svg; a sector with no radius is drawn
// out to 500 km.
func fenceShape(f geo.Fence) shape {
	switch {
	case f.Sector != nil:
		s := f.Sector
		reach := s.Radius
		if math.IsInf(reach, 1) {
			reach = 500_000
		}
		return sectorShape(s.Lat, s.Lon, reach, s.From, s.To)
	case f.Circle != nil:
		return circleShape(f.Circle.Lat, f.Circle.Lon, f.Circle.Radius)
	case f.Box != nil:
		return boxShape(*f.Box)
	case f.Corridor != nil:
		return corridorShape(f.Corridor.Line, f.Corridor.Radius)
	}
	return polygonShape(f.Polygon)
}

// fenceContainingFile answers fence containing for every point of a
// file, read whole first (a bad row is an error naming its line, before
// anything is printed), in one read transaction: a line a point, with the
// ids of the fences holding it.
func fenceContainingFile(c *ucli.Context) error {
	format, err := output(c, "table", "json", "ndjson")
	if err != nil {
		return err
	}
	rows, spec, bad, err := pointRows(c)
	if err != nil {
		return err
	}
	name := bad.name
	points := make([]geo.Point, len(rows))
	for i, r := range rows {
		if points[i], err = spec.point(r); err != nil {
			return fmt.Errorf("%s: %s: %w", name, r.where(), err)
		}
	}
	type held struct {
		ID     string `json:"id"`
		Fences any    `json:"fences"` // the ids, or with --payloads fenceRefs
		ids    []string
	}
	out := make([]held, len(points))
	ff, err := newFenceFilter(c)
	if err != nil {
		return err
	}
	fs := geo.NewFences(c.String("fences"))
	err = viewDB(c, func(tx keyspace.Tx) error {
		if err := requireFences(fs, tx); err != nil {
			return err
		}
		payloads := map[string]json.RawMessage{} // --payloads: each fence's, read once
		for i, p := range points {
			ids, err := fs.Containing(tx, p.Lat, p.Lon)
			if err != nil {
				return err
			}
			if ids, _, err = ff.apply(tx, fs, ids, nil); err != nil {
				return err
			}
			ids = append([]string{}, ids...)
			out[i] = held{ID: p.ID, Fences: ids, ids: ids}
			if c.Bool("payloads") {
				refs, err := withPayloads(fs, tx, ids, payloads)
				if err != nil {
					return err
				}
				out[i].Fences = refs
			}
		}
		ff.note(c)
		return nil
	})
	if err != nil {
		return err
	}
	switch format {
	case "json":
		return writeJSON(c.App.Writer, struct {
			Points []held `json:"points"`
		}{out})
	case "ndjson":
		return writeNDJSON(c.App.Writer, out)
	}
	tw := newTable(c.App.Writer)
	fmt.Fprintln(tw, "ID\tFENCES")
	inAny := 0
	for _, h := range out {
		fmt.Fprintf(tw, "%s\t%s\n", h.ID, strings.Join(h.ids, ","))
		if len(h.ids) > 0 {
			inAny++
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err = fmt.Fprintf(c.App.Writer, "%s, %d in a fence\n", count(len(out), "point"), inAny)
	return err
}

// geoDel deletes the points the arguments name, all or none; with
// --fences or --roam it prints what each delete did (roam.go).
func geoDel(c *ucli.Context) error {
	if !c.IsSet("fences") && !c.IsSet("roam") {
		return eachPoint(c, (*geo.Index).Delete)
	}
	return geoDelAndReport(c)
}
