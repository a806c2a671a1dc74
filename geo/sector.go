package geo

import (
	"fmt"
	"math"

	"github.com/keyspacedb/keyspace"
)

// A sector is the part of a circle whose points lie at bearings from its
// centre between from and to, clockwise from north: Tile38's SECTOR, the
// "pizza slice" ahead of a vehicle or in a camera's view. Tile38 draws it
// as a polygon of straight edges; here it is exact on the sphere, its
// sides great-circle arcs from the centre.
//
// # The maths
//
// At the centre C (a unit vector), with unit vectors E and N pointing
// east and north, the direction of bearing b is
//
//	t_b = cos b·N + sin b·E,
//
// and a point P at angle d from C along bearing β is
//
//	P = cos d·C + sin d·t_β.
//
// The vector u_b = t_{b+90°} = cos b·E − sin b·N is the pole of the great
// circle through C along bearing b, and since t_β·t_{b+90°} = cos(β − b −
// 90°) = sin(β − b),
//
//	u_b·P = sin d · sin(β − b),
//
// which, for P neither C nor its antipode (0 < d < π), is ≥ 0 exactly
// when β lies in [b, b + 180°] clockwise: the half of the sphere to the
// right of the great circle. So a sector of span s = to − from (mod 360°)
// is, within its circle,
//
//	s ≤ 180°:  u_from·P ≥ 0 and −u_to·P ≥ 0   (both half-spheres),
//	s > 180°:  u_from·P ≥ 0 or  −u_to·P ≥ 0   (either),
//
// the second being the whole sphere less the open slice from to round to
// from, of span 360° − s < 180°. The centre itself has every dot product
// 0 and belongs to every sector, the slice's apex; so does every point
// within a micrometre of it (apex), which rounding would otherwise put
// on either side.
//
// To classify a cell, the least and greatest of u·P over its
// latitude/longitude rectangle are exact: with u = (ux, uy, uz) and P =
// (cos φ cos λ, cos φ sin λ, sin φ),
//
//	u·P = cos φ · A cos(λ − λu) + uz sin φ,   A = √(ux² + uy²), λu = atan2(uy, ux).
//
// Over the rectangle's longitudes cos(λ − λu) ranges over [cmin, cmax]
// (1 where λu lies among them, −1 where λu + 180° does, else the ends'),
// and since cos φ ≥ 0 the greatest u·P at each latitude takes cmax and
// the least cmin. What is left, g(φ) = a cos φ + uz sin φ over the
// rectangle's latitudes (a = A·cmax for the greatest, A·cmin for the
// least), is a sinusoid with one turning point in (−90°,
// 90°), at tan φ = uz/a, where g = sign(a)·√(a² + uz²): its extremes lie
// there or at the ends. Bounds within 1e-12 of zero (rounding errs by
// units of 1e-16 here) decide nothing, so a cell is outside or inside
// only when every point of it is, whatever the rounding; contains is
// then the same dot products, computed for the point.
//
// At a pole, where east and north are not defined, E and N are those of
// the meridian the centre's longitude names, in the limit of approaching
// the pole along it: from the north pole given at longitude 0, bearing
// 180° runs down the meridian 0 and bearing 0° down the meridian 180.
type sector struct {
	circle
	box      Box        // the sector's own, within the circle's
	from, to float64    // degrees, clockwise from north
	h1, h2   half       // u_from and −u_to
	test     sectorTest // its point test, whose wide says a span over 180°: either half-sphere, not both
}

// A sectorTest is what testing a point against a sector needs, and no
// more: a fence lookup that meets a sector's edge cell builds one from
// the sector's region key (sectorHolds) rather than the whole region,
// whose box alone takes a dozen sines and cosines. The region's contains
// is the same code on the same numbers.
type sectorTest struct {
	centre origin
	radius float64
	u1, u2 [3]float64 // u_from and −u_to
	wide   bool       // a span over 180°: either half-sphere, not both
}

// newSectorTest returns the test of the sector of radius metres round c
// between bearings from and to (whose span, clockwise, is not 0).
func newSectorTest(c ref, radius, from, to float64) sectorTest {
	t := sectorTest{centre: c.origin(), radius: radius, wide: sectorSpan(from, to) > 180}
	east, north := eastNorth(c.sinφ, c.cosφ, c.lon)
	sf, cf := math.Sincos(rad(from))
	st, ct := math.Sincos(rad(to))
	for i := range 3 {
		t.u1[i] = cf*east[i] - sf*north[i]
		t.u2[i] = -(ct*east[i] - st*north[i])
	}
	return t
}

func (t *sectorTest) contains(lat, lon float64) bool {
	switch d := t.centre.distance(lat, lon); {
	case d > t.radius: // bit for bit circle.contains
		return false
	case d <= apex:
		return true
	}
	p := unitVector(lat, lon)
	in1, in2 := dot(t.u1, p) >= 0, dot(t.u2, p) >= 0
	if t.wide {
		return in1 || in2
	}
	return in1 && in2
}

// half is the half-sphere u·P ≥ 0, with what bounding u·P over a
// rectangle needs of u: A = √(ux² + uy²) and λu = atan2(uy, ux).
type half struct {
	u     [3]float64
	a, λu float64
}

func newHalf(u [3]float64) half {
	return half{u: u, a: math.Hypot(u[0], u[1]), λu: math.Atan2(u[1], u[0])}
}

// apex is the distance in metres within which a point is the sector's
// apex, in it whatever its bearing. At the centre itself every dot
// product is 0 up to rounding, which would put the point in some sectors
// and out of their complements at random. No cell within 6 µm of the
// centre (1e-12 rad, sectorSlack) is classified outside or inside, so
// its points are tested here.
const apex = 1e-6

// sectorSlack is the margin by which a cell's bounds must clear zero to
// decide it (see sector).
const sectorSlack = 1e-12

// newSector returns the sector of the circle of radius metres around
// (lat, lon) between bearings from and to (degrees, clockwise), or the
// circle itself when the bearings span the whole turn.
func newSector(lat, lon, radius, from, to float64) (region, error) {
	if msg := badBearings(from, to); msg != "" {
		return nil, fmt.Errorf("%w: %s", ErrBadQuery, msg)
	}
	span := sectorSpan(from, to)
	if span == 0 { // 0 to 360, −90 to 270: every bearing
		return newCircle(lat, lon, radius), nil
	}
	s := &sector{from: from, to: to}
	s.circle.init(lat, lon, radius)
	s.test = newSectorTest(s.circle.centre, radius, from, to) // the circle's centre, its trigonometry done once
	s.h1, s.h2 = newHalf(s.test.u1), newHalf(s.test.u2)
	s.box = s.circle.box
	if !s.test.wide {
		s.box = s.bounds(span)
	}
	return s, nil
}

// sectorSpan is the angle in degrees, in [0, 360), clockwise from
// bearing from to bearing to: 0 is every bearing. Everything that tells a
// sector from its whole circle, or a wide sector from a narrow one, takes
// it from here, so that they agree to the last bit.
func sectorSpan(from, to float64) float64 {
	span := math.Mod(to-from, 360)
	if span < 0 {
		span += 360
	}
	return span
}

// badBearings says what is wrong with a sector's bearings, or "" when
// nothing is: each must be a number, and they must differ.
func badBearings(from, to float64) string {
	for _, b := range []struct {
		name string
		deg  float64
	}{{"from", from}, {"to", to}} {
		if math.IsNaN(b.deg) || math.IsInf(b.deg, 0) {
			return fmt.Sprintf("sector bearing %s %v must be a number of degrees", b.name, b.deg)
		}
	}
	if from == to {
		return fmt.Sprintf("sector bearings from and to are both %v: a sector needs an angle (0 to 360 is the whole circle)", from)
	}
	return ""
}

func (s *sector) boundingBox() Box { return s.box }

// bounds is the latitude/longitude box around a sector of span at most
// 180° whose circle holds no pole and is smaller than a hemisphere, else
// the circle's box. Such a sector holds no pole, so from any point inside
// it one can go further north, south, east or west: its extreme
// latitudes and longitudes lie on its boundary, the two sides
// (great-circle arcs from the centre C) and the arc of the circle between
// them. (A wider sector keeps its circle's box: it is most of it.)
//
// Along a side of bearing b, sin φ(d) = sin φc·cos d + cos φc·sin d·cos b,
// a sinusoid in d with turning points at tan d = cos φc·cos b / sin φc;
// its longitude is monotone (a great circle through no pole meets each
// meridian once). On the arc, sin φ = sin φc·cos θ + cos φc·sin θ·cos β
// is greatest at β = 0 and least at 180°, and the longitude is extreme
// where a meridian touches the circle, at the right angle of the triangle
// pole–C–T: cos β = tan θ·tan φc. So the box is that of C, the sides'
// ends, the turning points within the sides, and whichever of those four
// points of the arc lie between the bearings; widened by a hair, as
// circleBounds is, so rounding can only make it larger.
func (s *sector) bounds(span float64) Box {
	c := &s.circle
	θ := c.θ
	if θ >= math.Pi/2 || c.box.MinLon == -180 && c.box.MaxLon == 180 || c.box.MinLat <= -90 || c.box.MaxLat >= 90 {
		return c.box
	}
	sinφc, cosφc := c.centre.sinφ, c.centre.cosφ
	minLat, maxLat, minΔλ, maxΔλ := c.lat, c.lat, 0.0, 0.0
	at := func(d, β float64) { // the point d radians from C along bearing β radians
		sinβ, cosβ := math.Sincos(β)
		sind, cosd := math.Sincos(d)
		sinφ := max(-1, min(1, sinφc*cosd+cosφc*sind*cosβ))
		lat := math.Asin(sinφ) * 180 / math.Pi
		Δλ := math.Atan2(sinβ*sind*cosφc, cosd-sinφc*sinφ) * 180 / math.Pi
		minLat, maxLat = min(minLat, lat), max(maxLat, lat)
		minΔλ, maxΔλ = min(minΔλ, Δλ), max(maxΔλ, Δλ)
	}
	for _, b := range []float64{s.from, s.to} {
		β := rad(b)
		at(θ, β)
		turn := math.Atan2(cosφc*math.Cos(β), sinφc) // latitude's turning points: turn and turn ± π
		for _, d := range []float64{turn, turn - math.Pi, turn + math.Pi} {
			if d > 0 && d < θ {
				at(d, β)
			}
		}
	}
	east := math.Acos(max(-1, min(1, math.Tan(θ)*sinφc/cosφc))) * 180 / math.Pi
	for _, β := range []float64{0, 180, east, 360 - east} {
		if clockwise(s.from, β) <= span {
			at(θ, rad(β))
		}
	}
	const hair = 1e-9
	return Box{
		MinLat: max(-90, minLat-hair), MaxLat: min(90, maxLat+hair),
		MinLon: wrap(c.lon + minΔλ - hair), MaxLon: wrap(c.lon + maxΔλ + hair),
	}
}

// clockwise is the angle in degrees, in [0, 360), turned clockwise from
// bearing a to bearing b.
func clockwise(a, b float64) float64 {
	return math.Mod(math.Mod(b-a, 360)+360, 360)
}

func (s *sector) classify(r rect) (outside, inside bool) {
	outside, inside = s.circle.classify(r)
	if outside {
		return true, false
	}
	t := newRectTrig(r)
	lo1, hi1 := s.h1.bounds(&t)
	lo2, hi2 := s.h2.bounds(&t)
	out, in := s.classifyBounds(lo1, hi1, lo2, hi2)
	return out, inside && in && !out
}

// classifyBounds classifies a cell by the least and greatest of u·P over
// it for each half-sphere: outside the wedge (the sector's bearings,
// ignoring its radius), or inside it.
func (s *sector) classifyBounds(lo1, hi1, lo2, hi2 float64) (outside, inside bool) {
	if s.test.wide {
		if hi1 < -sectorSlack && hi2 < -sectorSlack {
			return true, false
		}
		return false, lo1 > sectorSlack || lo2 > sectorSlack
	}
	if hi1 < -sectorSlack || hi2 < -sectorSlack {
		return true, false
	}
	return false, lo1 > sectorSlack && lo2 > sectorSlack
}

func (s *sector) contains(lat, lon float64) bool { return s.test.contains(lat, lon) }

// unitVector is the point (lat, lon) on the unit sphere, the same vector
// for a pole at any longitude and for ±180°.
func unitVector(lat, lon float64) [3]float64 {
	switch {
	case lat == 90:
		return [3]float64{0, 0, 1}
	case lat == -90:
		return [3]float64{0, 0, -1}
	case lon == -180:
		lon = 180
	}
	sinφ, cosφ := math.Sincos(rad(lat))
	sinλ, cosλ := math.Sincos(rad(lon))
	return [3]float64{cosφ * cosλ, cosφ * sinλ, sinφ}
}

func dot(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }

// rectTrig is a rectangle's edges in radians with their sines and
// cosines, computed once for both of a sector's half-spheres.
type rectTrig struct {
	λ1, λ2                     float64
	sinφ1, cosφ1, sinφ2, cosφ2 float64
	sinλ1, cosλ1, sinλ2, cosλ2 float64
}

func newRectTrig(r rect) rectTrig {
	t := rectTrig{λ1: rad(r.MinLon), λ2: rad(r.MaxLon)}
	t.sinφ1, t.cosφ1 = math.Sincos(rad(r.MinLat))
	t.sinφ2, t.cosφ2 = math.Sincos(rad(r.MaxLat))
	t.sinλ1, t.cosλ1 = math.Sincos(t.λ1)
	t.sinλ2, t.cosλ2 = math.Sincos(t.λ2)
	return t
}

// bounds is the least and greatest of u·P over the points P of the
// rectangle (see sector for the derivation). A·cos(λ − λu) at an edge
// λ is ux·cos λ + uy·sin λ, so only the turning points need λu.
func (h *half) bounds(t *rectTrig) (lo, hi float64) {
	x := h.xRange(t.λ1, t.λ2, t.sinλ1, t.cosλ1, t.sinλ2, t.cosλ2)
	return t.sinusoid(x[0], h.u[2], false), t.sinusoid(x[1], h.u[2], true)
}

// xRange is the least and greatest of X(λ) = ux cos λ + uy sin λ =
// A·cos(λ − λu) for λ in [λa, λb] (radians), given their sines and
// cosines: the ends', or ±A where λu or λu + π lies between them.
func (h *half) xRange(λa, λb, sinA, cosA, sinB, cosB float64) [2]float64 {
	u := &h.u
	e1, e2 := u[0]*cosA+u[1]*sinA, u[0]*cosB+u[1]*sinB
	x := [2]float64{min(e1, e2), max(e1, e2)} // A·cmin, A·cmax
	if h.a > 0 {
		x1, x2 := λa-h.λu, λb-h.λu
		if holdsAngle(x1, x2, 0) {
			x[1] = h.a
		}
		if holdsAngle(x1, x2, math.Pi) {
			x[0] = -h.a
		}
	}
	return x
}

// holdsAngle reports whether some θ + 2πk lies in [x1, x2].
func holdsAngle(x1, x2, θ float64) bool {
	k := math.Ceil((x1 - θ) / (2 * math.Pi))
	return θ+2*math.Pi*k <= x2
}

// sinusoid is the greatest (most) or least of g(φ) = a cos φ + b sin φ
// over the rectangle's latitudes, within [−π/2, π/2]: at an end, or at its
// one turning point there, the φ* with (cos φ*, sin φ*) = (|a|, b·sign a)/√(a² + b²),
// where g = sign(a)·√(a² + b²). φ* lies strictly between the ends when
// sin(φ* − φ1) and sin(φ2 − φ*) are both positive (the angles differ by
// less than π), which needs no arctangent.
func (t *rectTrig) sinusoid(a, b float64, most bool) float64 {
	g1, g2 := a*t.cosφ1+b*t.sinφ1, a*t.cosφ2+b*t.sinφ2
	pick := min(g1, g2)
	if most {
		pick = max(g1, g2)
	}
	if a != 0 {
		c, s := a, b // cos φ*, sin φ*, times √(a² + b²)
		if a < 0 {
			c, s = -a, -b
		}
		if s*t.cosφ1-c*t.sinφ1 > 0 && c*t.sinφ2-s*t.cosφ2 > 0 {
			g := math.Copysign(math.Hypot(a, b), a)
			if most {
				pick = max(pick, g)
			} else {
				pick = min(pick, g)
			}
		}
	}
	return pick
}

// Sector returns the points within radius metres of (lat, lon) whose
// bearing from it lies between from and to degrees, clockwise from north
// (Tile38's SECTOR): 45 to 135 is the quarter centred on east, 315 to 45
// the quarter centred on north, 0 to 360 the whole circle. Nearest first,
// ties by id; a Limit is met as Radius meets one. Its sides are
// great-circle arcs from the centre and the centre belongs to it; at a
// pole, bearings are those of the meridian lon names (from the north pole
// at longitude 0, bearing 180 runs down the meridian 0). A radius of
// +Inf asks for the bearings alone: with a Limit of k, the k nearest
// points in those directions, by the k-nearest search held within the
// sector (its cells outside it not searched). Equal bearings, or bearings or a radius
// that are not numbers, are an error wrapping ErrBadQuery.
func (ix *Index) Sector(tx keyspace.Tx, lat, lon, radius, from, to float64, opts *QueryOptions) ([]Result, Stats, error) {
	if err := validate(lat, lon); err != nil {
		return nil, Stats{}, ix.wrap(err)
	}
	if math.IsNaN(radius) || radius < 0 || math.IsInf(radius, -1) {
		return nil, Stats{}, ix.wrap(fmt.Errorf("%w: radius %v must be a non-negative number of metres", ErrBadQuery, radius))
	}
	reg, err := newSector(lat, lon, radius, from, to)
	if err != nil {
		return nil, Stats{}, ix.wrap(err)
	}
	return ix.search(tx, lat, lon, opts, func(*hits) region { return reg })
}
