package cli

import (
	"fmt"
	"math"

	"github.com/keyspacedb/keyspace/geo"
	"github.com/paulmach/orb"
	ucli "github.com/urfave/cli/v2"
)

// A polygon's edges are straight lines in longitude and latitude (GeoJSON,
// RFC 7946), so an edge from 170° to −170° runs 340° west through 0°, not
// 20° east across ±180°: [[170,10],[-170,10],[-170,-10],[170,-10],[170,10]]
// holds Greenwich and not Fiji. That is the format's rule, and a polygon
// may mean it (a band round most of the world), so such a polygon is read
// as written; but most that have such an edge meant the short way, which
// lines (--line) and moves take, so the command line says how it read it.

// longEdge returns the first edge of a Polygon's or MultiPolygon's rings
// that spans more than 180° of longitude, and whether there is one. Two
// edges that do are no question and are passed over: one from -180° to
// 180° (the whole way round, as a band round the world or a polar cap
// draws it; across ±180° it would have no length), and one along a pole
// (latitude ±90° at both ends, which is one point whichever way).
func longEdge(g orb.Geometry) (a, b orb.Point, ok bool) {
	for _, p := range polygonsOf(g) {
		for _, ring := range p {
			for i := 1; i < len(ring); i++ {
				a, b := ring[i-1], ring[i]
				span := math.Abs(b[0] - a[0])
				atPole := a[1] == b[1] && math.Abs(a[1]) == 90
				if span > 180 && span < 360 && !atPole {
					return a, b, true
				}
			}
		}
	}
	return orb.Point{}, orb.Point{}, false
}

// longEdgeNote is the note for a polygon with such an edge, named by what
// ("--polygon", `fence "am"`).
func longEdgeNote(what string, a, b orb.Point) string {
	return fmt.Sprintf("%s has an edge from %s to %s, %.0f° of longitude: read as GeoJSON draws it, the long way round through 0°, not across ±180° (an area across ±180° is a MultiPolygon cut there)",
		what, position(a), position(b), math.Abs(b[0]-a[0]))
}

// position writes a GeoJSON position as the input wrote it: [lon,lat].
func position(p orb.Point) string {
	return fmt.Sprintf("[%g,%g]", p[0], p[1])
}

// noteLongEdge says on stderr how a polygon given as a flag was read, when
// it has an edge longer than 180° of longitude.
func noteLongEdge(c *ucli.Context, flag string, g orb.Geometry) {
	if a, b, ok := longEdge(g); ok {
		addNote(c, "%s; a box across it is --min-lon 170 --max-lon -170", longEdgeNote(flag, a, b))
	}
}

// longEdgeFences is the import note for the polygon fences with an edge
// longer than 180° of longitude ("" for none): how many, and the first.
func longEdgeFences(fences []geo.Fence) string {
	n, first := 0, ""
	for _, f := range fences {
		if f.Polygon == nil {
			continue
		}
		if a, b, ok := longEdge(f.Polygon); ok {
			if n == 0 {
				first = longEdgeNote(fmt.Sprintf("fence %q", f.ID), a, b)
			}
			n++
		}
	}
	switch n {
	case 0:
		return ""
	case 1:
		return first
	}
	return fmt.Sprintf("%d polygons have an edge longer than 180° of longitude; the first: %s", n, first)
}
