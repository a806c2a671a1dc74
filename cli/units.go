package cli

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// metresPer maps distance suffixes to metres, longest suffix first.
var metresPer = []struct {
	suffix string
	metres float64
}{{"km", 1000}, {"mi", 1609.344}, {"ft", 0.3048}, {"m", 1}}

// parseDistance reads "2km", "500m", "1.5mi", "300ft" or a bare number of
// metres.
func parseDistance(s string) (float64, error) {
	t := strings.TrimSpace(strings.ToLower(s))
	scale := 1.0
	for _, u := range metresPer {
		if strings.HasSuffix(t, u.suffix) {
			t, scale = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.metres
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, fmt.Errorf("distance %q: want a non-negative number with m, km, mi or ft (bare numbers are metres)", s)
	}
	return v * scale, nil
}
