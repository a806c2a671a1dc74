package geo

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/paulmach/orb"
)

// BenchmarkPolygonContains: one point test against a polygon of 6 to
// 50,000 positions (a wavering star, as a border is), cast against its
// longitude bands (indexed) or against every edge (scanned, as orb's
// ray casting does).
func BenchmarkPolygonContains(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{6, 50, 500, 5000, 50_000} {
		ring := wavyStar(n)
		pr, err := newPolygonRegion(orb.Polygon{ring})
		if err != nil {
			b.Fatal(err)
		}
		pts := make([][2]float64, 1024)
		for i := range pts {
			pts[i] = [2]float64{r.Float64()*26 - 13, r.Float64()*26 - 13}
		}
		scanned := pr
		scanned.indexes = nil
		for _, v := range []struct {
			name string
			pr   polygonRegion
		}{{"indexed", pr}, {"scanned", scanned}} {
			b.Run(fmt.Sprintf("%d-positions/%s", n, v.name), func(b *testing.B) {
				for i := 0; b.Loop(); i++ {
					p := pts[i%len(pts)]
					v.pr.contains(p[0], p[1])
				}
			})
		}
	}
}

// wavyStar is a closed ring of n positions round (0, 0), some 10° across,
// wavering as a border does: seven lobes, and a ripple of 301.
func wavyStar(n int) orb.Ring {
	var ring orb.Ring
	for i := range n {
		a := 2 * math.Pi * float64(i) / float64(n)
		rr := 10 * (1 + 0.3*math.Sin(7*a) + 0.05*math.Sin(301*a))
		ring = append(ring, orb.Point{rr * math.Cos(a), rr * math.Sin(a)})
	}
	return append(ring, ring[0])
}
