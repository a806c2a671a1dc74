package geo

import (
	"fmt"
	"testing"
)

// BenchmarkCover times building the covering of a circle alone, in one
// coverer's buffers as a query's pooled hits do.
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
}
