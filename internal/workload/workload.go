// Package workload generates deterministic point sets for tests and
// benchmarks: uniform on the sphere, clustered like cities, and dense
// clusters at the poles and on the antimeridian. The same seed gives the
// same points on every machine.
package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Point is a generated point: an id and degrees.
type Point struct {
	ID       string
	Lat, Lon float64
}

// Kind names a generator.
type Kind string

// The generators.
const (
	Uniform      Kind = "uniform"      // uniform on the sphere
	Clustered    Kind = "clustered"    // cities: many clusters of very different sizes
	Poles        Kind = "poles"        // dense clusters around both poles, some exactly on them
	Antimeridian Kind = "antimeridian" // a dense band across ±180°, some exactly on it
)

// Kinds lists the generators in a fixed order.
var Kinds = []Kind{Uniform, Clustered, Poles, Antimeridian}

// Generate returns n points of the given kind from seed.
func Generate(kind Kind, n int, seed uint64) ([]Point, error) {
	r := rand.New(rand.NewPCG(seed, uint64(len(kind))))
	var gen func() (float64, float64)
	switch kind {
	case Uniform:
		gen = func() (float64, float64) { return sphere(r) }
	case Clustered:
		gen = clustered(r)
	case Poles:
		gen = func() (float64, float64) {
			lat := 90 - math.Abs(r.NormFloat64())*0.5
			if r.IntN(2) == 0 {
				lat = -lat
			}
			if r.IntN(50) == 0 {
				lat = math.Copysign(90, lat)
			}
			return lat, r.Float64()*360 - 180
		}
	case Antimeridian:
		gen = func() (float64, float64) {
			lon := 180 - math.Abs(r.NormFloat64())*0.3
			if r.IntN(2) == 0 {
				lon = -lon
			}
			if r.IntN(50) == 0 {
				lon = []float64{180, -180}[r.IntN(2)]
			}
			return math.Max(-90, math.Min(90, r.NormFloat64()*20)), lon
		}
	default:
		return nil, fmt.Errorf("workload: unknown kind %q (want one of %v)", kind, Kinds)
	}
	out := make([]Point, n)
	for i := range out {
		lat, lon := gen()
		out[i] = Point{ID: fmt.Sprintf("%s-%d", kind, i), Lat: lat, Lon: lon}
	}
	return out, nil
}

// sphere is a uniform point on the sphere.
func sphere(r *rand.Rand) (float64, float64) {
	return math.Asin(2*r.Float64()-1) * 180 / math.Pi, r.Float64()*360 - 180
}

// clustered mimics cities: 2,000 centres between 60°S and 70°N whose sizes
// follow a heavy tail (a few metropolises, many towns), each a Gaussian
// blob 1 to 30 km across.
func clustered(r *rand.Rand) func() (float64, float64) {
	const centres = 2000
	type blob struct{ lat, lon, σ, cum float64 }
	blobs := make([]blob, centres)
	total := 0.0
	for i := range blobs {
		lat, lon := sphere(r)
		for lat < -60 || lat > 70 {
			lat, lon = sphere(r)
		}
		total += 1 / math.Pow(float64(i+1), 0.8) // Zipf-like sizes
		blobs[i] = blob{lat: lat, lon: lon, σ: 0.01 + r.Float64()*0.14, cum: total}
	}
	return func() (float64, float64) {
		x := r.Float64() * total
		lo, hi := 0, len(blobs)-1
		for lo < hi {
			mid := (lo + hi) / 2
			if blobs[mid].cum < x {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		b := blobs[lo]
		lat := math.Max(-90, math.Min(90, b.lat+r.NormFloat64()*b.σ))
		lon := b.lon + r.NormFloat64()*b.σ/math.Cos(b.lat*math.Pi/180)
		if lon > 180 {
			lon -= 360
		} else if lon < -180 {
			lon += 360
		}
		return lat, lon
	}
}
