package geo

import (
	"fmt"
	"testing"

	"github.com/paulmach/orb"
)

// BenchmarkCover times building the covering of a circle, a box or a
// polygon alone,
// in one coverer's buffers as a query's pooled hits do.
func BenchmarkCover(b *testing.B) {
	for _, radius := range []float64{1000, 10_000, 100_000} {
		b.Run(fmt.Sprintf("radius=%gkm", radius/1000), func(b *testing.B) {
			reg := newCircle(37.7, -122.4, radius)
			var cells int
			var cv coverer
			for b.Loop() {
				cells = len(cv.cover(reg, DefaultMaxCells))
			}
			b.ReportMetric(float64(cells), "cells")
		})
	}
	// Other regions are descended into from their bounding box's block (a
	// circle this small is a block).
	hexagon, err := newPolygonRegion(orb.Polygon{{{-122.3, 37.7}, {-122.35, 37.79}, {-122.45, 37.79}, {-122.5, 37.7}, {-122.45, 37.61}, {-122.35, 37.61}, {-122.3, 37.7}}})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		reg  region
	}{
		{"box=20km", new(boxRegion).init(Box{MinLat: 37.61, MinLon: -122.51, MaxLat: 37.79, MaxLon: -122.29})},
		{"boxaround=20km", newAroundBox(37.7, -122.4, 20_000, 20_000)},
		{"polygon=20km", hexagon},
	} {
		b.Run(c.name, func(b *testing.B) {
			var cells int
			var cv coverer
			for b.Loop() {
				cells = len(cv.cover(c.reg, DefaultMaxCells))
			}
			b.ReportMetric(float64(cells), "cells")
		})
	}
}
