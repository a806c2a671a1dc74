package cli

import (
	"fmt"
	"html"
	"math"
	"os"
	"strings"

	"github.com/keyspacedb/keyspace/geo"
)

// shape is a query's outline in [lon, lat] rings, for the SVG.
type shape [][][2]float64

// circleShape approximates a circle by 96 points (the destination-point
// formula on the sphere), split where it crosses ±180°.
func circleShape(lat, lon, metres float64) shape {
	φ1, λ1, δ := lat*math.Pi/180, lon*math.Pi/180, metres/geo.EarthRadius
	var ring [][2]float64
	for i := 0; i <= 96; i++ {
		θ := float64(i) / 96 * 2 * math.Pi
		φ2 := math.Asin(math.Sin(φ1)*math.Cos(δ) + math.Cos(φ1)*math.Sin(δ)*math.Cos(θ))
		λ2 := λ1 + math.Atan2(math.Sin(θ)*math.Sin(δ)*math.Cos(φ1), math.Cos(δ)-math.Sin(φ1)*math.Sin(φ2))
		ring = append(ring, [2]float64{math.Remainder(λ2*180/math.Pi, 360), φ2 * 180 / math.Pi})
	}
	return shape{ring}
}

func boxShape(b geo.Box) shape {
	maxLon := b.MaxLon
	if b.MinLon > b.MaxLon {
		maxLon += 360
	}
	return shape{{{b.MinLon, b.MinLat}, {maxLon, b.MinLat}, {maxLon, b.MaxLat}, {b.MinLon, b.MaxLat}, {b.MinLon, b.MinLat}}}
}

// writeSVG draws a query: covering cells (inside ones darker), the query's
// outline, rejected candidates (red) and results (green, one <circle
// class="result"> each, titled with the id), in longitude/latitude.
func writeSVG(path string, ex *geo.Explain, outline shape, rs []geo.Result) error {
	minLon, minLat, maxLon, maxLat := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	grow := func(lon, lat float64) {
		minLon, maxLon = math.Min(minLon, lon), math.Max(maxLon, lon)
		minLat, maxLat = math.Min(minLat, lat), math.Max(maxLat, lat)
	}
	for _, ring := range outline {
		for _, p := range ring {
			grow(p[0], p[1])
		}
	}
	for _, r := range rs {
		grow(r.Lon, r.Lat)
	}
	if math.IsInf(minLon, 1) {
		for _, c := range ex.Cells {
			grow(c.Box.MinLon, c.Box.MinLat)
			grow(c.Box.MaxLon, c.Box.MaxLat)
		}
	}
	if math.IsInf(minLon, 1) {
		minLon, minLat, maxLon, maxLat = -180, -90, 180, 90
	}
	padLon, padLat := math.Max((maxLon-minLon)*0.15, 1e-4), math.Max((maxLat-minLat)*0.15, 1e-4)
	minLon, maxLon, minLat, maxLat = minLon-padLon, maxLon+padLon, minLat-padLat, maxLat+padLat
	// Equirectangular, with longitude shrunk by the cosine of the middle
	// latitude so shapes look as they do on the ground there.
	kx := math.Max(0.05, math.Cos((minLat+maxLat)/2*math.Pi/180))
	const width = 800.0
	scale := width / ((maxLon - minLon) * kx)
	height := (maxLat - minLat) * scale
	x := func(lon float64) float64 { return (lon - minLon) * scale * kx }
	y := func(lat float64) float64 { return (maxLat - lat) * scale }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f">`+"\n", width, height, width, height)
	b.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
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
		var pts []string
		for _, p := range ring {
			pts = append(pts, fmt.Sprintf("%.2f,%.2f", x(p[0]), y(p[1])))
		}
		fmt.Fprintf(&b, `<polygon class="query" points="%s" fill="none" stroke="black" stroke-width="1.5"/>`+"\n", strings.Join(pts, " "))
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
