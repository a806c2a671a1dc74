package cli

import (
	"fmt"
	"html"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/keyspacedb/keyspace/geo"
	"github.com/paulmach/orb"
)

// shape is a query's outline in [lon, lat] rings, for the SVG.
type shape [][][2]float64

// circleShape approximates a circle by 96 points (the destination-point
// formula on the sphere), split where it crosses ±180°.
func circleShape(lat, lon, metres float64) shape {
	var ring [][2]float64
	for i := 0; i <= 96; i++ {
		ring = append(ring, destination(lat, lon, metres, float64(i)/96*360))
	}
	return shape{ring}
}

// sectorShape draws a sector as circleShape draws its circle: from the
// centre out along bearing from, round the arc to bearing to, and back,
// each side and the arc a point every 1/48 of their length or turn.
func sectorShape(lat, lon, metres, from, to float64) shape {
	span := math.Mod(math.Mod(to-from, 360)+360, 360)
	if span == 0 {
		return circleShape(lat, lon, metres)
	}
	var ring [][2]float64
	for i := 0; i < 48; i++ {
		ring = append(ring, destination(lat, lon, metres*float64(i)/48, from))
	}
	for i := 0; i <= 48; i++ {
		ring = append(ring, destination(lat, lon, metres, from+span*float64(i)/48))
	}
	for i := 48; i >= 0; i-- {
		ring = append(ring, destination(lat, lon, metres*float64(i)/48, to))
	}
	return shape{ring}
}

// destination is the [lon, lat] metres from (lat, lon) along bearing
// degrees, by the destination-point formula on the sphere.
func destination(lat, lon, metres, bearing float64) [2]float64 {
	φ1, λ1, δ, θ := lat*math.Pi/180, lon*math.Pi/180, metres/geo.EarthRadius, bearing*math.Pi/180
	φ2 := math.Asin(math.Sin(φ1)*math.Cos(δ) + math.Cos(φ1)*math.Sin(δ)*math.Cos(θ))
	λ2 := λ1 + math.Atan2(math.Sin(θ)*math.Sin(δ)*math.Cos(φ1), math.Cos(δ)-math.Sin(φ1)*math.Sin(φ2))
	return [2]float64{math.Remainder(λ2*180/math.Pi, 360), φ2 * 180 / math.Pi}
}

func boxShape(b geo.Box) shape {
	maxLon := b.MaxLon
	if b.MinLon > b.MaxLon {
		maxLon += 360
	}
	return shape{{{b.MinLon, b.MinLat}, {maxLon, b.MinLat}, {maxLon, b.MaxLat}, {b.MinLon, b.MaxLat}, {b.MinLon, b.MinLat}}}
}

// canvas is the picture's projection: equirectangular, 800 pixels wide,
// with longitude shrunk by the cosine of the middle latitude so shapes
// look as they do on the ground there, around a box grown by 15%.
type canvas struct {
	minLon, maxLon, minLat, maxLat float64
	kx, scale, width, height       float64
}

// bounds is the box around what a picture shows, grown point by point.
type bounds struct{ minLon, minLat, maxLon, maxLat float64 }

func newBounds() bounds { return bounds{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)} }

func (b *bounds) grow(lon, lat float64) {
	b.minLon, b.maxLon = math.Min(b.minLon, lon), math.Max(b.maxLon, lon)
	b.minLat, b.maxLat = math.Min(b.minLat, lat), math.Max(b.maxLat, lat)
}

func (b *bounds) growShape(s shape) {
	for _, ring := range s {
		for _, p := range ring {
			b.grow(p[0], p[1])
		}
	}
}

func (b bounds) empty() bool { return math.IsInf(b.minLon, 1) }

// newCanvas frames b (the whole world when b is empty).
func newCanvas(b bounds) canvas {
	if b.empty() {
		b = bounds{-180, -90, 180, 90}
	}
	padLon, padLat := math.Max((b.maxLon-b.minLon)*0.15, 1e-4), math.Max((b.maxLat-b.minLat)*0.15, 1e-4)
	cv := canvas{minLon: b.minLon - padLon, maxLon: b.maxLon + padLon, minLat: b.minLat - padLat, maxLat: b.maxLat + padLat, width: 800}
	cv.kx = math.Max(0.05, math.Cos((cv.minLat+cv.maxLat)/2*math.Pi/180))
	cv.scale = cv.width / ((cv.maxLon - cv.minLon) * cv.kx)
	cv.height = (cv.maxLat - cv.minLat) * cv.scale
	return cv
}

func (cv canvas) x(lon float64) float64 { return (lon - cv.minLon) * cv.scale * cv.kx }
func (cv canvas) y(lat float64) float64 { return (cv.maxLat - lat) * cv.scale }

// begin writes the SVG's opening and its white ground.
func (cv canvas) begin(b *strings.Builder) {
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f">`+"\n", cv.width, cv.height, cv.width, cv.height)
	b.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
}

// points is a ring as an SVG points attribute.
func (cv canvas) points(ring [][2]float64) string {
	var pts []string
	for _, p := range ring {
		pts = append(pts, fmt.Sprintf("%.2f,%.2f", cv.x(p[0]), cv.y(p[1])))
	}
	return strings.Join(pts, " ")
}

// writeSVG draws a query: covering cells (inside ones darker), the query's
// outline, rejected candidates (red) and results (green, one <circle
// class="result"> each, titled with the id), in longitude/latitude.
func writeSVG(path string, ex *geo.Explain, outline shape, rs []geo.Result) error {
	bd := newBounds()
	bd.growShape(outline)
	for _, r := range rs {
		bd.grow(r.Lon, r.Lat)
	}
	if bd.empty() {
		for _, c := range ex.Cells {
			bd.grow(c.Box.MinLon, c.Box.MinLat)
			bd.grow(c.Box.MaxLon, c.Box.MaxLat)
		}
	}
	cv := newCanvas(bd)
	x, y, scale, kx := cv.x, cv.y, cv.scale, cv.kx
	var b strings.Builder
	cv.begin(&b)
	for _, c := range ex.Cells {
		fill := "#dbeafe"
		if c.Inside {
			fill = "#bbf7d0"
		}
		// A polar cap's cell is drawn as the box around it; a box across
		// ±180° as its two pieces.
		pieces := [][2]float64{{c.Box.MinLon, c.Box.MaxLon}}
		if c.Box.MinLon > c.Box.MaxLon {
			pieces = [][2]float64{{c.Box.MinLon, 180}, {-180, c.Box.MaxLon}}
		}
		for _, p := range pieces {
			fmt.Fprintf(&b, `<rect class="cell" x="%.2f" y="%.2f" width="%.2f" height="%.2f" fill="%s" fill-opacity="0.6" stroke="#3b82f6" stroke-width="0.5"><title>%s cell, %d bits</title></rect>`+"\n",
				x(p[0]), y(c.Box.MaxLat), (p[1]-p[0])*scale*kx, (c.Box.MaxLat-c.Box.MinLat)*scale, fill, c.Grid, c.Bits)
		}
	}
	for _, ring := range outline {
		fmt.Fprintf(&b, `<polygon class="query" points="%s" fill="none" stroke="black" stroke-width="1.5"/>`+"\n", cv.points(ring))
	}
	for _, p := range ex.Rejected {
		fmt.Fprintf(&b, `<circle class="rejected" cx="%.2f" cy="%.2f" r="2" fill="#ef4444"/>`+"\n", x(p.Lon), y(p.Lat))
	}
	for _, r := range rs {
		fmt.Fprintf(&b, `<circle class="result" cx="%.2f" cy="%.2f" r="3" fill="#16a34a"><title>%s</title></circle>`+"\n", x(r.Lon), y(r.Lat), html.EscapeString(r.ID))
	}
	fmt.Fprintf(&b, `<text x="8" y="16" font-family="sans-serif" font-size="12">%d results, %d rejected candidates, %d cells</text>`+"\n", len(rs), len(ex.Rejected), len(ex.Cells))
	b.WriteString("</svg>\n")
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// writeExplain prints the covering: cells and key ranges.
func writeExplain(c interface{ Write([]byte) (int, error) }, ex *geo.Explain) {
	fmt.Fprintf(c, "covering: %d cells, %d key ranges\n", len(ex.Cells), len(ex.Ranges))
	for _, cell := range ex.Cells {
		inside := ""
		if cell.Inside {
			inside = " (inside: no point test)"
		}
		fmt.Fprintf(c, "  %s cell %0*b (%d bits) lat %.5f…%.5f lon %.5f…%.5f%s\n", cell.Grid, int(cell.Bits), cell.Hash, cell.Bits,
			cell.Box.MinLat, cell.Box.MaxLat, cell.Box.MinLon, cell.Box.MaxLon, inside)
	}
	for _, r := range ex.Ranges {
		fmt.Fprintf(c, "  range %s %016x…%016x\n", r.Grid, r.Lo, r.Hi)
	}
}

// writeFencesSVG draws fences, each a <polygon class="fence"> titled with
// its id, those among held filled (class="fence held"); with at, a point
// (the fences that hold it are held), a black dot; with area, the area
// of fence intersecting or within (its fences found are held), a dashed
// outline (class="area").
func writeFencesSVG(path string, fences []geo.Fence, at *[2]float64, held []string, area shape) error {
	bd := newBounds()
	shapes := make([]shape, len(fences))
	for i, f := range fences {
		shapes[i] = fenceShape(f)
		bd.growShape(shapes[i])
	}
	if at != nil {
		bd.grow(at[1], at[0])
	}
	bd.growShape(area)
	cv := newCanvas(bd)
	var b strings.Builder
	cv.begin(&b)
	for i, f := range fences {
		class, fill := "fence", "none"
		if slices.Contains(held, f.ID) {
			class, fill = "fence held", "#bbf7d0"
		}
		for _, ring := range shapes[i] {
			fmt.Fprintf(&b, `<polygon class="%s" points="%s" fill="%s" fill-opacity="0.6" stroke="#3b82f6" stroke-width="1"><title>%s</title></polygon>`+"\n",
				class, cv.points(ring), fill, html.EscapeString(f.ID))
		}
	}
	// The area over the fences, so that its outline shows.
	for _, ring := range area {
		fmt.Fprintf(&b, `<polygon class="area" points="%s" fill="none" stroke="#f97316" stroke-width="2" stroke-dasharray="6 3"/>`+"\n", cv.points(ring))
	}
	// Labels over every outline: each in the middle of its outer ring's
	// box, while there are few enough to read.
	for i, f := range fences {
		if len(fences) > 50 || len(shapes[i]) == 0 {
			break
		}
		rb := newBounds()
		rb.growShape(shapes[i][:1])
		fmt.Fprintf(&b, `<text x="%.2f" y="%.2f" font-family="sans-serif" font-size="11" text-anchor="middle" fill="#1e3a8a">%s</text>`+"\n",
			cv.x((rb.minLon+rb.maxLon)/2), cv.y((rb.minLat+rb.maxLat)/2), html.EscapeString(f.ID))
	}
	if at != nil {
		fmt.Fprintf(&b, `<circle class="point" cx="%.2f" cy="%.2f" r="4" fill="black"/>`+"\n", cv.x(at[1]), cv.y(at[0]))
	}
	fmt.Fprintf(&b, `<text x="8" y="16" font-family="sans-serif" font-size="12">%s</text>`+"\n", html.EscapeString(count(len(fences), "fence")))
	b.WriteString("</svg>\n")
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// corridorShape draws the corridor within metres of a line: each line
// there and back (a stroke), and round each edge the capsule of the
// points within metres of it, its sides offset from 16 points along the
// edge at right angles to it and its ends half circles, longitudes kept
// within 180° of the point before so an edge across ±180° stays whole.
func corridorShape(g orb.Geometry, metres float64) shape {
	var out shape
	for _, ls := range lineStrings(g) {
		var stroke [][2]float64
		for i := range ls {
			stroke = append(stroke, [2]float64{ls[i][0], ls[i][1]})
		}
		for i := len(ls) - 2; i >= 0; i-- {
			stroke = append(stroke, [2]float64{ls[i][0], ls[i][1]})
		}
		out = append(out, unwrapRing(stroke))
		if metres <= 0 {
			continue
		}
		for i := 1; i < len(ls); i++ {
			out = append(out, unwrapRing(capsule(ls[i-1], ls[i], metres)))
		}
	}
	return out
}

// capsule is the outline of the points within metres of the edge from a
// to b (straight in longitude and latitude, the shorter way round).
func capsule(a, b orb.Point, metres float64) [][2]float64 {
	const n = 16
	dLon := math.Remainder(b[0]-a[0], 360)
	at := func(i int) (lat, lon float64) {
		t := float64(i) / n
		return a[1] + t*(b[1]-a[1]), a[0] + t*dLon
	}
	// bearing is the edge's direction at point i, from its neighbours.
	bearing := func(i int) float64 {
		lat0, lon0 := at(max(0, i-1))
		lat1, lon1 := at(min(n, i+1))
		φ0, φ1, dλ := lat0*math.Pi/180, lat1*math.Pi/180, (lon1-lon0)*math.Pi/180
		return math.Atan2(math.Sin(dλ)*math.Cos(φ1), math.Cos(φ0)*math.Sin(φ1)-math.Sin(φ0)*math.Cos(φ1)*math.Cos(dλ)) * 180 / math.Pi
	}
	var ring [][2]float64
	for i := 0; i <= n; i++ { // the left side, forward
		lat, lon := at(i)
		ring = append(ring, destination(lat, lon, metres, bearing(i)-90))
	}
	lat, lon := at(n)
	for k := 1; k < 12; k++ { // round the far end
		ring = append(ring, destination(lat, lon, metres, bearing(n)-90+float64(k)*15))
	}
	for i := n; i >= 0; i-- { // the right side, back
		lat, lon := at(i)
		ring = append(ring, destination(lat, lon, metres, bearing(i)+90))
	}
	lat, lon = at(0)
	for k := 1; k < 12; k++ { // round the near end
		ring = append(ring, destination(lat, lon, metres, bearing(0)+90+float64(k)*15))
	}
	return append(ring, ring[0])
}

// unwrapRing shifts each longitude of ring by a multiple of 360° to lie
// within 180° of the one before.
func unwrapRing(ring [][2]float64) [][2]float64 {
	for i := 1; i < len(ring); i++ {
		ring[i][0] = ring[i-1][0] + math.Remainder(ring[i][0]-ring[i-1][0], 360)
	}
	return ring
}
