package geo

import (
	"fmt"
	"testing"
)

// BenchmarkCover times building the covering of a circle or a box alone,
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
	// A box is descended into (a circle this small is a block).
	b.Run("box=20km", func(b *testing.B) {
		reg := new(boxRegion).init(Box{MinLat: 37.61, MinLon: -122.51, MaxLat: 37.79, MaxLon: -122.29})
		var cells int
		var cv coverer
		for b.Loop() {
			cells = len(cv.cover(reg, DefaultMaxCells))
		}
		b.ReportMetric(float64(cells), "cells")
	})
}
