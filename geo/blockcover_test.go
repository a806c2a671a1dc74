package geo

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestBlockCover: a near circle's block covering against the exact
// geometry, cell by cell of the block it classifies (appendBlock's cells,
// whose rectangles TestFramedBounds checks): a cell left out holds no
// point of the circle (rect.minAngle, itself checked against sampling), a
// cell marked inside no point beyond it (the distance of its farthest
// corner), and the cells kept and marked are the ones the general
// classify keeps and marks, but for cells whose bounds fall within a hair
// of the thresholds. Half the circles are placed so that a row edge of
// the block lies just inside or just outside them (by 10⁻³ to 10⁻⁹ of the
// radius), where a bound on the wrong side would show.
func TestBlockCover(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	var cv coverer
	circles, dropped, kept, inside, edges := 0, 0, 0, 0, 0
	for i := range 6000 {
		lat, lon := r.Float64()*150-75, r.Float64()*356-178
		radius := math.Exp(r.Float64() * math.Log(2e5)) // 1 m to 200 km
		if i%7 == 0 {
			radius = []float64{0, 1e-9, 1e-3}[i%3] // a point, or a few cells of full precision
		}
		if i%5 == 0 { // just short of a cap
			lat = math.Copysign(CapLatitude-radius/EarthRadius*180/math.Pi*(1+r.Float64()*0.5), r.Float64()-0.5)
		}
		if i%2 == 1 {
			// A multiple of 22.5° is a row edge at every precision a near
			// circle's block has; put the centre just off its distance.
			edge := 22.5 * float64(r.IntN(7)-3)
			ε := math.Copysign(math.Pow(10, -3-6*r.Float64()), r.Float64()-0.5)
			lat = edge + math.Copysign(radius/EarthRadius*180/math.Pi*(1+ε), r.Float64()-0.5)
		}
		c := newCircle(lat, lon, radius)
		if !c.near {
			continue
		}
		circles++
		n := 1 + r.IntN(64)
		cells := cv.blockCover(c, n)
		if len(cells) > n {
			t.Fatalf("circle %v m around (%v, %v), n=%d: %d cells", radius, lat, lon, n, len(cells))
		}
		got := map[uint64]bool{} // hash → inside
		for k, cc := range cells {
			if k > 0 && cc.hash <= cells[k-1].hash || cc.bits != cells[0].bits || cc.grid != geohashGrid {
				t.Fatalf("circle %v m around (%v, %v): cells out of order or of mixed precision: %+v", radius, lat, lon, cells)
			}
			got[cc.hash] = cc.inside
		}
		seen := 0
		box := c.box
		lo, hi := encode(box.MinLat, box.MinLon), encode(box.MaxLat, box.MaxLon)
		for _, f := range appendBlock(nil, geohashGrid, squash(lo>>1), squash(hi>>1), squash(lo), squash(hi), n) {
			if inCapRows(f.cell) {
				continue
			}
			rc := clipToCaps(f.box)
			in, isKept := got[f.hash]
			// The farthest point of a rectangle without the antipode in
			// it is a corner: along a parallel the distance grows with the
			// longitude gap, and along a meridian it has a minimum but no
			// maximum inside (rect.minAngle's sinusoid). maxAngle, which
			// goes through the antipode, loses centimetres to rounding.
			far := 0.0
			for _, p := range [4][2]float64{{rc.MinLat, rc.MinLon}, {rc.MinLat, rc.MaxLon}, {rc.MaxLat, rc.MinLon}, {rc.MaxLat, rc.MaxLon}} {
				far = max(far, Distance(lat, lon, p[0], p[1]))
			}
			if !isKept && rc.minAngle(lat, lon) <= c.θ {
				t.Fatalf("circle %v m around (%v, %v): cell %+v left out, but %v m away at its nearest", radius, lat, lon, rc, rc.minAngle(lat, lon)*EarthRadius)
			}
			if in && far > radius {
				t.Fatalf("circle %v m around (%v, %v): cell %+v inside, but %v m away at its farthest", radius, lat, lon, rc, far)
			}
			wantOut, wantIn := c.classify(rc)
			hLo, hHi := c.centre.havLower(&rc, c.cosMin), c.centre.havUpper(&rc, c.cosMax)
			if math.Abs(hLo-c.hOut) <= 1e-9*c.hOut || math.Abs(hHi-c.hIn) <= 1e-9*c.hIn {
				edges++
			} else if isKept == wantOut || in != wantIn {
				t.Fatalf("circle %v m around (%v, %v): cell %+v kept %v, inside %v; classify says outside %v, inside %v", radius, lat, lon, rc, isKept, in, wantOut, wantIn)
			}
			if isKept {
				seen++
			}
			switch {
			case !isKept:
				dropped++
			case in:
				inside++
			default:
				kept++
			}
		}
		if seen != len(cells) {
			t.Fatalf("circle %v m around (%v, %v), n=%d: %d cells, %d of them in the block outside the cap rows", radius, lat, lon, n, len(cells), seen)
		}
	}
	t.Logf("%d near circles; cells: %d left out, %d crossing, %d inside, %d on the edge", circles, dropped, kept, inside, edges)
	if circles < 4000 || dropped < 10000 || kept < 10000 || inside < 5000 || edges > 200 {
		t.Fatalf("too few cases of some kind")
	}
}
