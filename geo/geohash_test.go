package geo

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// bisectGeohash is the geohash of a point by its definition, written
// apart from the library: halve the longitude and latitude ranges in
// turn, longitude first, a 1 for the upper half (a point on the middle
// line included), five bits a character of the base-32 alphabet. The
// halves' edges are dyadic fractions of 180 and 360, exact in float64,
// so every comparison is exact.
func bisectGeohash(lat, lon float64, chars int) string {
	latLo, latHi, lonLo, lonHi := -90.0, 90.0, -180.0, 180.0
	out := make([]byte, chars)
	for i := range chars {
		c := 0
		for b := range 5 {
			bit := 0
			if (i*5+b)%2 == 0 {
				if mid := (lonLo + lonHi) / 2; lon >= mid {
					bit, lonLo = 1, mid
				} else {
					lonHi = mid
				}
			} else {
				if mid := (latLo + latHi) / 2; lat >= mid {
					bit, latLo = 1, mid
				} else {
					latHi = mid
				}
			}
			c = c<<1 | bit
		}
		out[i] = hashAlphabet[c]
	}
	return string(out)
}

// edgePoints are points on and beside the edges of geohash cells, the
// poles and ±180°: where the library's scaling rounds, or overflows.
func edgePoints(r *rand.Rand) [][2]float64 {
	pts := [][2]float64{{90, 0}, {-90, 0}, {0, 180}, {0, -180}, {90, 180}, {-90, -180}, {90, -180}, {-90, 180}, {0, 0}, {39.37499999999999, 1}}
	for range 400 {
		j := 1 + r.IntN(30)
		latEdge := -90 + 180*float64(r.IntN(1<<j+1))/float64(int(1)<<j)
		lonEdge := -180 + 360*float64(r.IntN(1<<j+1))/float64(int(1)<<j)
		for _, d := range []float64{0, 1, -1} {
			lat := math.Max(-90, math.Min(90, latEdge+d*math.Abs(latEdge)*0x1p-52))
			lon := math.Max(-180, math.Min(180, lonEdge+d*math.Abs(lonEdge)*0x1p-52))
			pts = append(pts, [2]float64{lat, lon}, [2]float64{lat, r.Float64()*360 - 180}, [2]float64{r.Float64()*180 - 90, lon})
		}
	}
	return pts
}

// TestGeohashAgainstBisection: Geohash gives the cell the definition
// gives, at every precision, for random points and for points on and an
// ulp beside cells' edges, the poles and ±180° among them; HashBox of it
// holds the point.
func TestGeohashAgainstBisection(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 1))
	pts := edgePoints(r)
	for range 2000 {
		pts = append(pts, [2]float64{r.Float64()*180 - 90, r.Float64()*360 - 180})
	}
	for _, p := range pts {
		for chars := 1; chars <= MaxCellPrecision; chars++ {
			got, err := Geohash(p[0], p[1], chars)
			if err != nil {
				t.Fatal(err)
			}
			if want := bisectGeohash(p[0], p[1], chars); got != want {
				t.Fatalf("Geohash(%v, %v, %d) = %s, the bisection gives %s", p[0], p[1], chars, got, want)
			}
			b, err := HashBox(got)
			if err != nil || p[0] < b.MinLat || p[0] > b.MaxLat || p[1] < b.MinLon || p[1] > b.MaxLon {
				t.Fatalf("Geohash(%v, %v, %d) = %s, whose box %+v does not hold it (%v)", p[0], p[1], chars, got, b, err)
			}
		}
	}
	for _, bad := range []struct {
		lat, lon float64
		chars    int
		want     error
	}{
		{91, 0, 5, ErrInvalidPoint}, {0, math.NaN(), 5, ErrInvalidPoint}, {0, 0, 0, ErrBadQuery}, {0, 0, 13, ErrBadQuery},
	} {
		if _, err := Geohash(bad.lat, bad.lon, bad.chars); !errors.Is(err, bad.want) {
			t.Errorf("Geohash(%v, %v, %d) = %v, want %v", bad.lat, bad.lon, bad.chars, err, bad.want)
		}
	}
}

// FuzzGeohash holds Geohash to the definition (bisectGeohash) at every
// precision, for any coordinates in range; those out of range are
// ErrInvalidPoint.
func FuzzGeohash(f *testing.F) {
	for _, p := range [][2]float64{{90, 0}, {-90, 180}, {0, 180}, {39.37499999999999, 1}, {45, -135}, {math.Copysign(0, -1), 0}} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, lat, lon float64) {
		for chars := 1; chars <= MaxCellPrecision; chars++ {
			got, err := Geohash(lat, lon, chars)
			if validate(lat, lon) != nil {
				if !errors.Is(err, ErrInvalidPoint) {
					t.Fatalf("Geohash(%v, %v) = %q, %v; want ErrInvalidPoint", lat, lon, got, err)
				}
				return
			}
			if want := bisectGeohash(lat, lon, chars); err != nil || got != want {
				t.Fatalf("Geohash(%v, %v, %d) = %q, %v; the bisection gives %s", lat, lon, chars, got, err, want)
			}
		}
	})
}
