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
	case math.IsNaN(lat):
		return fmt.Errorf("%w: latitude is not a number (NaN)", ErrInvalidPoint)
	case math.IsNaN(lon):
		return fmt.Errorf("%w: longitude is not a number (NaN)", ErrInvalidPoint)
	case lat < -90 || lat > 90: // ±Inf too
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
	return newOrigin(lat1, lon1).distance(lat2, lon2)
}

// origin measures distances from one point, its trigonometry done once:
// a query measures every candidate from its centre. Distance is built on
// it, so the two agree bit for bit (a radius test and the distance it
// reports must).
type origin struct{ φ, λ, cosφ, sinφ float64 }

func newOrigin(lat, lon float64) origin {
	φ := rad(lat)
	return origin{φ: φ, λ: rad(lon), cosφ: math.Cos(φ), sinφ: math.Sin(φ)}
}

// distance is the haversine distance in metres from o to a point in
// degrees.
func (o origin) distance(lat, lon float64) float64 {
	return EarthRadius * o.angle(rad(lat), rad(lon))
}

// angle is the central angle θ in radians from o to a point in radians, by
// the haversine formula
//
//	h = sin²(Δφ/2) + cos φ₀ cos φ sin²(Δλ/2),   θ = 2 asin √h.
//
// A query's candidates lie near its centre, and there angle needs no
// library trigonometry. When both half-differences are under nearHalf
// radians, their sines are Taylor polynomials (sinNear); cos φ comes from
// the centre's by the angle-sum identity,
//
//	cos φ = cos φ₀ cos Δφ − sin φ₀ sin Δφ,
//	cos Δφ = 1 − 2 sin²(Δφ/2),   sin Δφ = 2 sin(Δφ/2) √(1 − sin²(Δφ/2)),
//
// and, when √h is under nearHalf too, asin is its Taylor polynomial
// (asinNear). Each polynomial's first omitted term is below 1e-16 of its
// value, so angle agrees with the library's sin, cos and asin to a few
// units in the last place, and far inside the relative 1e-9 by which the
// coverings' bounds are shaded: a cell they keep still holds every point
// angle puts inside. Far from the centre (or across ±180°) it calls the
// library.
func (o origin) angle(φ, λ float64) float64 {
	return angleOf(o.hav(φ, λ))
}

// havAbove is the haversine of angle θ (clamped to π) shaded up by 1e-12
// rad and a relative 1e-9, far more than the few units in the last place
// by which the haversines compared with it, and the square root and
// arcsine that turn them into angles, can err: a haversine computed above
// it is of an angle above θ.
func havAbove(θ float64) float64 {
	s := math.Sin(min(math.Pi, θ+1e-12) / 2)
	return s * s * (1 + 1e-9)
}

// hav is the haversine h = sin²(θ/2) of the central angle θ from o to a
// point in radians: angle's first half.
func (o origin) hav(φ, λ float64) float64 {
	dφ, dλ := (φ-o.φ)/2, (λ-o.λ)/2
	var s1, s2, cosφ float64
	if math.Abs(dφ) < nearHalf && math.Abs(dλ) < nearHalf {
		s1, s2 = sinNear(dφ), sinNear(dλ)
		s1s1 := s1 * s1
		cosφ = o.cosφ*(1-2*s1s1) - o.sinφ*2*s1*math.Sqrt(1-s1s1)
	} else {
		s1, s2 = math.Sin(dφ), math.Sin(dλ)
		cosφ = math.Cos(φ)
	}
	return s1*s1 + o.cosφ*cosφ*s2*s2
}

// angleOf is the central angle θ = 2 asin √h of a haversine h: angle's
// second half.
func angleOf(h float64) float64 {
	x := math.Sqrt(min(1, max(0, h)))
	if x < nearHalf {
		return 2 * asinNear(x)
	}
	return 2 * math.Asin(x)
}

// nearHalf is the bound in radians (about 2°) below which angle uses
// polynomials: for |t| < nearHalf the first term sinNear omits, t⁹/9!, is
// below 1e-17 of t, and the first asinNear omits, 63t¹¹/2816, below 1e-16.
const nearHalf = 0.035

// sinNear is sin t for |t| < nearHalf: t − t³/3! + t⁵/5! − t⁷/7!.
func sinNear(t float64) float64 {
	t2 := t * t
	return t * (1 - t2*(1.0/6)*(1-t2*(1.0/20)*(1-t2*(1.0/42))))
}

// asinNear is asin x for 0 ≤ x < nearHalf: x + x³/6 + 3x⁵/40 + 5x⁷/112 +
// 35x⁹/1152.
func asinNear(x float64) float64 {
	x2 := x * x
	return x * (1 + x2*(1.0/6+x2*(3.0/40+x2*(5.0/112+x2*(35.0/1152)))))
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
	return min(east(lon, lo), east(hi, lon)) // eastward to lo, westward to hi
}

// east is how far east, in degrees within [0, 360), b lies from a (both
// within [-180, 180]).
func east(a, b float64) float64 {
	d := b - a
	if d < 0 {
		d += 360
	}
	if d >= 360 {
		d -= 360
	}
	return d
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
func (r rect) minAngle(lat, lon float64) float64 { return newRef(lat, lon).minAngle(r) }

// ref is a point with its trigonometry computed once, for the many
// rectangles a covering measures it against.
type ref struct {
	lat, lon   float64 // degrees
	φ          float64 // radians
	sinφ, cosφ float64
}

// origin is p as the centre of a candidate test: the same sine and cosine
// newOrigin takes (math.Sincos's are math.Sin's and math.Cos's), not
// computed again.
func (p ref) origin() origin { return origin{φ: p.φ, λ: rad(p.lon), cosφ: p.cosφ, sinφ: p.sinφ} }

func newRef(lat, lon float64) ref {
	φ := rad(lat)
	s, c := math.Sincos(φ)
	return ref{lat: lat, lon: lon, φ: φ, sinφ: s, cosφ: c}
}

// antipode is the point opposite p.
func (p ref) antipode() ref {
	lon := p.lon + 180
	if lon > 180 {
		lon -= 360
	}
	return ref{lat: -p.lat, lon: lon, φ: -p.φ, sinφ: -p.sinφ, cosφ: p.cosφ}
}

// minAngle is rect.minAngle with p's trigonometry precomputed. It compares
// haversines h = sin²(d/2), monotone in the angle d, and takes one arcsine
// at the end; the haversine from p to (θ, λ) on a meridian Δλ away is
//
//	h(θ) = sin²((θ − φ)/2) + cos φ·cos θ·sin²(Δλ/2)
func (p ref) minAngle(r rect) float64 {
	if lonGap(p.lon, r.MinLon, r.MaxLon) == 0 {
		switch {
		case p.lat < r.MinLat:
			return rad(r.MinLat - p.lat)
		case p.lat > r.MaxLat:
			return rad(p.lat - r.MaxLat)
		}
		return 0
	}
	lo, hi := rad(r.MinLat), rad(r.MaxLat)
	dLo, dHi := math.Sin((lo-p.φ)/2), math.Sin((hi-p.φ)/2)
	cosLo, cosHi := math.Cos(lo), math.Cos(hi)
	best := math.Inf(1)
	for _, edge := range [2]float64{r.MinLon, r.MaxLon} {
		s := math.Sin(rad(edge-p.lon) / 2)
		s2 := s * s
		h := min(dLo*dLo+p.cosφ*cosLo*s2, dHi*dHi+p.cosφ*cosHi*s2)
		// The nearest point of the whole meridian: the sinusoid's peak.
		θ := math.Atan2(p.sinφ, p.cosφ*(1-2*s2))
		if θ >= lo && θ <= hi {
			d := math.Sin((θ - p.φ) / 2)
			h = min(h, d*d+p.cosφ*math.Cos(θ)*s2)
		}
		best = min(best, h)
	}
	return 2 * math.Asin(math.Sqrt(min(1, max(0, best))))
}

// havBounds returns a lower and an upper bound on the haversine
// h = sin²(d/2) from p to the points of r, cheaper than minAngle: on
//
//	h(φ, λ) = sin²((φ − φp)/2) + cos φp·cos φ·sin²((λ − λp)/2)
//
// both terms are non-negative and each depends on φ or λ in one monotone
// way (half-angles stay within [0, π/2]), so bounding each term by its own
// extreme over the rectangle bounds the sum: the latitude gap and the
// longitude gap at their smallest with cos φ at its smallest (the
// rectangle's latitude farthest from the equator) give the lower bound; the
// gaps at their largest with cos φ at its largest give the upper. The
// bounds are tight for the small cells a covering ends with: the slack is
// the change of cos φ across one cell.
func (p ref) havBounds(r rect) (lo, hi float64) {
	cosMin, cosMax := cosRange(r.MinLat, r.MaxLat)
	return p.havLower(&r, cosMin), p.havUpper(&r, cosMax)
}

// cosRange returns the smallest and largest cos φ for φ in [minLat,
// maxLat] (degrees).
func cosRange(minLat, maxLat float64) (cosMin, cosMax float64) {
	cosMin = math.Cos(rad(max(math.Abs(minLat), math.Abs(maxLat))))
	cosMax = 1.0
	if minLat > 0 || maxLat < 0 {
		cosMax = math.Cos(rad(min(math.Abs(minLat), math.Abs(maxLat))))
	}
	return cosMin, cosMax
}

// havLower is havBounds's lower bound with the smallest cos φ given, and
// havUpper its upper bound with the largest: cosMin must not exceed cos φ,
// nor cosMax fall below it, at any latitude of r that matters to the
// caller. A circle passes the bounds of its own bounding box, computed
// once (see circle.classify for why that is enough), so classifying a
// cell costs no cosine; and the half-angle sines are polynomials when
// small (sinHalf), so a small circle's cells cost no trigonometry at all.
// The lower bound decides that a cell is outside a circle and is asked of
// every cell; the upper, only of cells inside the circle's box.
func (p *ref) havLower(r *rect, cosMin float64) float64 {
	sLat := sinHalf(max(0, max(r.MinLat-p.lat, p.lat-r.MaxLat)))
	sLon := sinHalf(lonGap(p.lon, r.MinLon, r.MaxLon))
	return sLat*sLat + p.cosφ*cosMin*sLon*sLon
}

// havUpper is havBounds's upper bound with the largest cos φ given (see
// havLower).
func (p *ref) havUpper(r *rect, cosMax float64) float64 {
	sLat := sinHalf(max(math.Abs(p.lat-r.MinLat), math.Abs(p.lat-r.MaxLat)))
	sLon := sinHalf(lonFar(p.lon, r.MinLon, r.MaxLon))
	return sLat*sLat + p.cosφ*cosMax*sLon*sLon
}

// sinHalf is sin(x/2) for an angle x in degrees within [0, 360].
//
// Below 4° (a half-angle t under 0.035 rad) it is the Taylor polynomial
// t − t³/6 + t⁵/120 (sinAbove), whose error is below t⁷/5040, a relative 3e-13 of
// sin t at most: far inside the relative 1e-9 by which a circle's
// thresholds are shaded (newCircle), so a bound built from it keeps every
// cell a bound built from math.Sin would.
//
// The polynomial's half-angle is one multiplication, x·π/360, where rad's
// is a multiplication and a division (a division's latency was a fifth of
// classifying a cell): the two differ by an ulp or so, nothing beside the
// polynomial's own error.
func sinHalf(x float64) float64 {
	if x >= 4 {
		return math.Sin(rad(x) / 2)
	}
	return sinAbove(x * (math.Pi / 360))
}

// maxAngle is the largest central angle (radians) from p to any point of r.
// A point's distance from p is π minus its distance from p's antipode, so
// the farthest point of r from p is the nearest point of r to the antipode.
func (r rect) maxAngle(lat, lon float64) float64 {
	return math.Pi - newRef(lat, lon).antipode().minAngle(r)
}
