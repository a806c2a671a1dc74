package cli

import (
	"testing"

	"github.com/paulmach/orb"
)

// TestLongEdge: edges of more than 180° of longitude are found in any ring
// of a Polygon or MultiPolygon, holes too; 180° is not more, and an edge
// the whole way round (-180° to 180°) or along a pole is no question.
func TestLongEdge(t *testing.T) {
	for _, c := range []struct {
		g    orb.Geometry
		want bool
	}{
		{orb.Polygon{{{0, 0}, {180, 0}, {180, 1}, {0, 0}}}, false},
		{orb.Polygon{{{-90, 0}, {90.5, 0}, {0, 1}, {-90, 0}}}, true},
		{orb.Polygon{{{0, 0}, {1, 0}, {1, 1}, {0, 0}}, {{179, 0}, {-179, 0}, {0, 0.5}, {179, 0}}}, true},
		{orb.MultiPolygon{{{{0, 0}, {1, 0}, {1, 1}, {0, 0}}}, {{{-179, 0}, {180, 0}, {0, 1}, {-179, 0}}}}, true},
		{orb.MultiPolygon{{{{0, 0}, {1, 0}, {1, 1}, {0, 0}}}, {{{-180, 0}, {180, 0}, {0, 1}, {-180, 0}}}}, false},
		{orb.Polygon{{{-180, -10}, {180, -10}, {180, 10}, {-180, 10}, {-180, -10}}}, false},       // a band round the world
		{orb.Polygon{{{-180, 70}, {0, 70}, {180, 70}, {180, 90}, {-180, 90}, {-180, 70}}}, false}, // a polar cap
		{orb.Polygon{{{-170, 80}, {170, 90}, {10, 80}, {-170, 80}}}, true},                        // not both at the pole
		{orb.MultiPolygon{{{{170, 0}, {180, 0}, {180, 1}, {170, 0}}}, {{{-180, 0}, {-170, 0}, {-170, 1}, {-180, 0}}}}, false},
	} {
		if _, _, got := longEdge(c.g); got != c.want {
			t.Errorf("longEdge(%v) = %v, want %v", c.g, got, c.want)
		}
	}
}
