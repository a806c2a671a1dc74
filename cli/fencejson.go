package cli

import (
	"fmt"
	"math"

	"github.com/keyspacedb/keyspace/geo"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/geojson"
)

// As GeoJSON a fence is a Feature with its id: a circle is a Point with a
// "radius" property in metres; a box is a Polygon of its outline with the
// standard "bbox" member [west, south, east, north] (west > east crosses
// ±180°, RFC 7946 §5.2) and "fence": "box", which import reads back as the
// box, not as a polygon; a sector is a Point, its apex, with "fence":
// "sector", "from" and "to" (bearings in degrees) and "radius" (none for
// the bearings alone); a corridor is its LineString or MultiLineString
// with a "radius" property in metres (0, or none, for the line itself);
// anything else is its Polygon or MultiPolygon. A
// fence that expires has an "expires" property, RFC 3339 to the
// nanosecond, which import reads back as its expiry.

// fenceFeature is f as GeoJSON (see the top of this file), its payload
// the feature's properties when it is a JSON object, else a "payload"
// property.
func fenceFeature(f geo.Fence) *geojson.Feature {
	feat := fenceGeometry(f)
	if !f.Expires.IsZero() {
		feat.Properties["expires"] = exactExpires(f.Expires)
	}
	if len(f.Payload) > 0 {
		var props map[string]any
		if decodeJSON(f.Payload, &props) != nil || props == nil {
			props = map[string]any{"payload": payloadJSON(f.Payload)}
		}
		for k, v := range props {
			if _, taken := feat.Properties[k]; !taken {
				feat.Properties[k] = v
			}
		}
	}
	return feat
}

// fenceGeometry is f's region as a GeoJSON feature: a sector as a Point
// at its apex with the properties fence "sector", from, to and radius
// (left out for the bearings alone), as a circle is its centre and radius.
func fenceGeometry(f geo.Fence) *geojson.Feature {
	switch {
	case f.Sector != nil:
		s := f.Sector
		feat := geojson.NewFeature(orb.Point{s.Lon, s.Lat})
		feat.Properties["fence"] = "sector"
		feat.Properties["from"], feat.Properties["to"] = s.From, s.To
		if !math.IsInf(s.Radius, 1) {
			feat.Properties["radius"] = s.Radius
		}
		feat.ID = f.ID
		return feat
	case f.Circle != nil:
		feat := geojson.NewFeature(orb.Point{f.Circle.Lon, f.Circle.Lat})
		feat.Properties["radius"] = f.Circle.Radius
		feat.ID = f.ID
		return feat
	case f.Box != nil:
		b := f.Box
		feat := geojson.NewFeature(boxGeometry(*b))
		feat.BBox = geojson.BBox{b.MinLon, b.MinLat, b.MaxLon, b.MaxLat}
		feat.Properties["fence"] = "box"
		feat.ID = f.ID
		return feat
	case f.Corridor != nil:
		feat := geojson.NewFeature(f.Corridor.Line)
		feat.Properties["radius"] = f.Corridor.Radius
		feat.ID = f.ID
		return feat
	}
	feat := geojson.NewFeature(f.Polygon)
	feat.ID = f.ID
	return feat
}

// fenceKind and fenceRegion describe a fence in a table.
func fenceKind(f geo.Fence) string {
	switch {
	case f.Corridor != nil:
		return "corridor"
	case f.Sector != nil:
		return "sector"
	case f.Circle != nil:
		return "circle"
	case f.Box != nil:
		return "box"
	}
	if _, ok := f.Polygon.(orb.MultiPolygon); ok {
		return "multipolygon"
	}
	return "polygon"
}

func fenceRegion(f geo.Fence) string {
	switch {
	case f.Sector != nil && math.IsInf(f.Sector.Radius, 1):
		s := f.Sector
		return fmt.Sprintf("bearings %g to %g from %s, %s", s.From, s.To, degrees(s.Lat), degrees(s.Lon))
	case f.Sector != nil:
		s := f.Sector
		return fmt.Sprintf("%s around %s, %s, bearings %g to %g", formatDistance(s.Radius), degrees(s.Lat), degrees(s.Lon), s.From, s.To)
	case f.Circle != nil:
		return fmt.Sprintf("%s around %s, %s", formatDistance(f.Circle.Radius), degrees(f.Circle.Lat), degrees(f.Circle.Lon))
	case f.Box != nil:
		b := f.Box
		return fmt.Sprintf("lat %g to %g, lon %g to %g", b.MinLat, b.MaxLat, b.MinLon, b.MaxLon)
	case f.Corridor != nil:
		b := f.Corridor.Line.Bound()
		within := "on"
		if f.Corridor.Radius > 0 {
			within = formatDistance(f.Corridor.Radius) + " either side of"
		}
		return fmt.Sprintf("%s a line of %d positions within lat %.4f to %.4f, lon %.4f to %.4f", within, linePositions(f.Corridor.Line), b.Min.Lat(), b.Max.Lat(), b.Min.Lon(), b.Max.Lon())
	}
	b := f.Polygon.Bound()
	return fmt.Sprintf("%d vertices within lat %.4f to %.4f, lon %.4f to %.4f", vertices(f.Polygon), b.Min.Lat(), b.Max.Lat(), b.Min.Lon(), b.Max.Lon())
}

// linePositions is the number of positions of a LineString or
// MultiLineString.
func linePositions(g orb.Geometry) int {
	n := 0
	for _, ls := range lineStrings(g) {
		n += len(ls)
	}
	return n
}

// lineStrings is g, a LineString or MultiLineString, as the latter; nil
// for anything else.
func lineStrings(g orb.Geometry) orb.MultiLineString {
	switch g := g.(type) {
	case orb.LineString:
		return orb.MultiLineString{g}
	case orb.MultiLineString:
		return g
	}
	return nil
}

func vertices(g orb.Geometry) int {
	n := 0
	switch g := g.(type) {
	case orb.Polygon:
		for _, r := range g {
			n += max(0, len(r)-1)
		}
	case orb.MultiPolygon:
		for _, p := range g {
			n += vertices(p)
		}
	}
	return n
}
