package geo

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestClassifyNear: a near circle's own classification is never wrong
// against the exact geometry: a rectangle it calls outside holds no point
// of the circle (rect.minAngle, itself checked against sampling), one it
// calls inside no point beyond it (the distance of its farthest corner).
// And it says what the general classify says, but for rectangles whose
// bounds fall within a hair of the thresholds. Rectangles are drawn at
// random around the circle, and with a corner just inside or just outside
// its edge (by 10⁻³ to 10⁻⁹ of the radius), where a bound on the wrong
// side would show.
func TestClassifyNear(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	nears, outs, ins, edges := 0, 0, 0, 0
	for range 4000 {
		lat, lon := r.Float64()*150-75, r.Float64()*356-178
		radius := math.Exp(r.Float64() * math.Log(2e5)) // 1 m to 200 km
		c := newCircle(lat, lon, radius)
		if !c.near {
			continue
		}
		nears++
		b := c.box
		for j := range 50 {
			var rc rect
			if j%2 == 0 {
				// A corner just inside or just outside the edge, the rest
				// of the rectangle away from the centre, so that corner is
				// about the nearest point (j%4 == 0) or the farthest.
				f := 1 + math.Copysign(math.Pow(10, -3-6*r.Float64()), r.Float64()-0.5)
				plat, plon := destination(lat, lon, radius*f, r.Float64()*2*math.Pi)
				s := r.Float64() * (b.MaxLat - b.MinLat)
				dLat, dLon := math.Copysign(s, plat-lat), math.Copysign(s, plon-lon)
				if j%4 == 2 {
					dLat, dLon = -dLat, -dLon
				}
				rc = rect{MinLat: min(plat, plat+dLat), MaxLat: max(plat, plat+dLat), MinLon: min(plon, plon+dLon), MaxLon: max(plon, plon+dLon)}
			} else {
				pick := func(lo, hi float64) (float64, float64) {
					w := hi - lo
					a, z := lo-w/2+r.Float64()*2*w, lo-w/2+r.Float64()*2*w
					return min(a, z), max(a, z)
				}
				rc.MinLat, rc.MaxLat = pick(b.MinLat, b.MaxLat)
				rc.MinLon, rc.MaxLon = pick(b.MinLon, b.MaxLon)
			}
			rc.MinLat, rc.MaxLat = max(rc.MinLat, -90), min(rc.MaxLat, 90)
			rc.MinLon, rc.MaxLon = max(rc.MinLon, -180), min(rc.MaxLon, 180)
			outside, inside := c.classifyNear(&rc)
			// The farthest point of a rectangle without the antipode in it
			// is a corner: along a parallel the distance grows with the
			// longitude gap, and along a meridian it has a minimum but no
			// maximum inside (rect.minAngle's sinusoid). maxAngle, which
			// goes through the antipode, loses centimetres to rounding.
			minA, far := rc.minAngle(lat, lon), 0.0
			for _, p := range [4][2]float64{{rc.MinLat, rc.MinLon}, {rc.MinLat, rc.MaxLon}, {rc.MaxLat, rc.MinLon}, {rc.MaxLat, rc.MaxLon}} {
				far = max(far, Distance(lat, lon, p[0], p[1]))
			}
			if outside && minA <= c.θ {
				t.Fatalf("circle %v m around (%v, %v): %+v outside, but %v m away at its nearest", radius, lat, lon, rc, minA*EarthRadius)
			}
			if inside && far > radius {
				t.Fatalf("circle %v m around (%v, %v): %+v inside, but %v m away at its farthest", radius, lat, lon, rc, far)
			}
			wantOut, wantIn := c.classify(rc)
			lo, hi := c.centre.havLower(&rc, c.cosMin), c.centre.havUpper(&rc, c.cosMax)
			edge := math.Abs(lo-c.hOut) <= 1e-9*c.hOut || math.Abs(hi-c.hIn) <= 1e-9*c.hIn
			if edge {
				edges++
			} else if outside != wantOut || inside != wantIn {
				t.Fatalf("circle %v m around (%v, %v): %+v near (outside %v, inside %v), classify (%v, %v)", radius, lat, lon, rc, outside, inside, wantOut, wantIn)
			}
			if outside {
				outs++
			}
			if inside {
				ins++
			}
		}
	}
	// Most circles are near; enough rectangles of each kind were seen.
	t.Logf("%d near circles, %d outside, %d inside, %d on the edge", nears, outs, ins, edges)
	if nears < 3000 || outs < 10000 || ins < 5000 || edges > 100 {
		t.Fatalf("%d near circles, %d outside, %d inside, %d on the edge", nears, outs, ins, edges)
	}
}
