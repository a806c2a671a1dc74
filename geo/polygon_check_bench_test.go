package geo

import (
	"fmt"
	"testing"

	"github.com/paulmach/orb"
)

// BenchmarkPolygonCheck: validating a polygon of 6 to 50,000 positions (a
// wavering star, as a border is), everything newPolygonRegion does, and
// without the check for rings crossing at a shared vertex
// (storedPolygonRegion), to show what that check costs: nothing, for a
// ring with no vertex twice, since crossingEdges's sweep finds the
// shared vertices (a map of every vertex's passes took 1.1 µs, 190 µs
// and 29 ms against 0.8 µs, 100 µs and 22 ms without it). Once the sweep
// passed over edges apart in latitude before testing them and read the
// edges' boxes side by side in their sorted order, the two larger rings
// took 78 µs and 10.7 ms instead of 104 µs and 20.5 ms, alternated in
// one run, and which of 200 fences lie within a 50,000-position border
// (BenchmarkFenceBorder within-border) 62 ms instead of 70.
func BenchmarkPolygonCheck(b *testing.B) {
	for _, n := range []int{6, 500, 50_000} {
		ring := wavyStar(n)
		for _, v := range []struct {
			name  string
			check func(orb.Geometry) (polygonRegion, error)
		}{{"input", newPolygonRegion}, {"stored", storedPolygonRegion}} {
			b.Run(fmt.Sprintf("%d-positions/%s", n, v.name), func(b *testing.B) {
				for b.Loop() {
					if _, err := v.check(orb.Polygon{ring}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
