package geo

import (
	"fmt"
	"math"
)

// EarthRadius is the radius of the sphere on which distances are measured:
// the IUGG mean Earth radius, in metres. (Redis GEO uses 6372797.560856.)
const EarthRadius = 6371008.8

// ErrInvalidPoint is wrapped by every error about coordinates.
var ErrInvalidPoint = fmt.Errorf("geo: invalid coordinates")

// validate checks a latitude and longitude in degrees.
func validate(lat, lon float64) error {
	switch {
	case math.IsNaN(lat) || math.IsInf(lat, 0):
		return fmt.Errorf("%w: latitude %v is not a number", ErrInvalidPoint, lat)
	case math.IsNaN(lon) || math.IsInf(lon, 0):
		return fmt.Errorf("%w: longitude %v is not a number", ErrInvalidPoint, lon)
	case lat < -90 || lat > 90:
		return fmt.Errorf("%w: latitude %v out of range [-90, 90]", ErrInvalidPoint, lat)
	case lon < -180 || lon > 180:
		return fmt.Errorf("%w: longitude %v out of range [-180, 180]", ErrInvalidPoint, lon)
	}
	return nil
}

func rad(deg float64) float64 { return deg * math.Pi / 180 }

// Distance returns the great-circle distance in metres between two points
// given in degrees, by the haversine formula on a sphere of EarthRadius.
func Distance(lat1, lon1, lat2, lon2 float64) float64 {
	return EarthRadius * angle(rad(lat1), rad(lon1), rad(lat2), rad(lon2))
}

// angle is the central angle in radians between two points in radians.
func angle(φ1, λ1, φ2, λ2 float64) float64 {
	s1 := math.Sin((φ2 - φ1) / 2)
	s2 := math.Sin((λ2 - λ1) / 2)
	h := s1*s1 + math.Cos(φ1)*math.Cos(φ2)*s2*s2
	return 2 * math.Asin(math.Sqrt(math.Min(1, h)))
}

// rect is a latitude/longitude rectangle in degrees, MinLon <= MaxLon (cells
// never cross the antimeridian).
type rect struct{ MinLat, MaxLat, MinLon, MaxLon float64 }

// lonGap is the smallest angular difference in degrees between lon and any
// longitude in [lo, hi]: 0 inside, else the distance to the nearer edge going
// either way round the globe.
func lonGap(lon, lo, hi float64) float64 {
	if lon >= lo && lon <= hi {
		return 0
	}
	d1 := math.Mod(lo-lon+720, 360) // eastward to lo
	d2 := math.Mod(lon-hi+720, 360) // westward to hi
	return math.Min(d1, d2)
}

// minAngle is the smallest central angle (radians) from point p (degrees) to
// any point of r.
//
// If p's longitude lies within r's span, the nearest point is on p's own
// meridian: the latitude gap is the answer. Otherwise the nearest point lies
// on one of r's two bounding meridians (a point on a parallel edge is never
// nearer than that edge's endpoint on the meridian closer in longitude, since
// along a parallel the distance grows with the longitude difference). On the
// half-meridian at longitude λ, parameterised by latitude θ, the cosine of
// the angle to p is
//
//	cos d(θ) = A·cos θ + B·sin θ,  A = cos φp·cos Δλ,  B = sin φp
//
// a sinusoid R·cos(θ − θ*) with θ* = atan2(B, A): unimodal, so its maximum
// over [θ1, θ2] is at θ* when θ* lies inside, else at an endpoint.
func (r rect) minAngle(lat, lon float64) float64 {
	if lonGap(lon, r.MinLon, r.MaxLon) == 0 {
		switch {
		case lat < r.MinLat:
			return rad(r.MinLat - lat)
		case lat > r.MaxLat:
			return rad(lat - r.MaxLat)
		}
		return 0
	}
	best := math.Inf(1)
	for _, edge := range []float64{r.MinLon, r.MaxLon} {
		best = math.Min(best, meridianAngle(lat, lon, edge, r.MinLat, r.MaxLat))
	}
	return best
}

// maxAngle is the largest central angle (radians) from p to any point of r.
// A point's distance from p is π minus its distance from p's antipode, so
// the farthest point of r from p is the nearest point of r to the antipode.
func (r rect) maxAngle(lat, lon float64) float64 {
	anti := lon + 180
	if anti > 180 {
		anti -= 360
	}
	return math.Pi - r.minAngle(-lat, anti)
}

// meridianAngle is the smallest central angle from p to the meridian
// segment at longitude mlon between latitudes lo and hi. It compares
// haversines (monotone in the angle) and takes one arcsine at the end.
func meridianAngle(lat, lon, mlon, lo, hi float64) float64 {
	φ, Δλ := rad(lat), rad(mlon-lon)
	sinφ, cosφ := math.Sincos(φ)
	s := math.Sin(Δλ / 2)
	s2 := s * s
	hav := func(θ float64) float64 { // haversine of the angle from p to (θ, mlon)
		d := math.Sin((θ - φ) / 2)
		return d*d + cosφ*math.Cos(θ)*s2
	}
	θ := math.Atan2(sinφ, cosφ*math.Cos(Δλ)) // nearest on the great circle
	h := math.Min(hav(rad(lo)), hav(rad(hi)))
	if θ >= rad(lo) && θ <= rad(hi) {
		h = math.Min(h, hav(θ))
	}
	return 2 * math.Asin(math.Sqrt(math.Min(1, math.Max(0, h))))
}
