package geo

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/keyspacedb/keyspace/internal/errctx"
)

// Sectors among fences: the fences that meet a sector, or lie within
// one, Tile38's INTERSECTS and WITHIN asked with SECTOR ("which zones
// does this camera see?"); and sectors as fences themselves, Tile38's
// SECTOR geofences ("tell me when a car drives into the camera's view").
// A sector (sector.go) is the circle C of angle θ round its apex A cut to
// the wedge W of bearings from..to: its sides are great-circle arcs from
// A, not edges straight in longitude and latitude as a box's or a
// polygon's are, so it has tests of its own against each.
//
// As a fence, a sector is stored as a polygon is as far as lookups go:
// its edge cells send a point to its region key ("f", name, "r", id),
// which holds its apex, radius and bearings (cellSector), where a point
// is tested by sector.contains; a path, for Crossings, by the piece
// search below (meetsPath); a point's distance, for Near, is 0 inside
// and else its distance from the boundary (sectorFrame.distance).
//
// # Meeting
//
// S = C ∩ W is connected (every point of it is joined to A by an arc of
// its side's great circle that stays in it). So a fence F and S share a
// point exactly when
//
//   - F is a circle D of angle ρ round f: S holds f, or S's boundary comes
//     within ρ of f. (If S held a point of D but not f, the arc in D from
//     that point to f would cross S's boundary.) The boundary is two side
//     arcs and the arc of C between them, and the distance from f to each
//     is exact (sectorFrame.boundaryAngle).
//   - F is a box or a polygon: F holds A, or an edge of F meets S. (If F
//     held a point of S but not A, S would cross F's boundary between
//     them.) An edge is searched piece by piece (searchEdge): a piece's
//     rectangle, the least one round that straight piece, is classified
//     against S as a cell is (sector.classify, exact bounds), and where
//     that leaves it undecided, by Taylor bounds on its dot products
//     (piece), which decide near a point where the edge grazes S; a
//     piece outside is dropped, one inside meets, and the rest are
//     halved, each tested at its midpoint first. A piece still undecided
//     at pieceFloor degrees (a tenth of a millimetre) lies within a hair
//     of S and meets it: edges count.
//
// # Within
//
// F ⊆ S exactly when F ⊆ C, which circle.holdsShape decides, and F ⊆ W.
// With Z the rest of the sphere, the open slice from to round to from,
// F ⊆ W when F does not meet Z:
//
//   - F a circle: W holds f and neither side of W (a half great circle
//     from A to its antipode) comes nearer f than ρ.
//   - F a box or a polygon: no edge of F meets Z, and F does not hold
//     Z's middle point z (90° from A, opposite the middle bearing of S):
//     Z is connected, so if F held a point of it while no edge of F met
//     it, F would hold all of Z. Edges are searched as for meeting, with
//     each piece's bounds on u_from·P and −u_to·P (half.bounds): Z is
//     where one of them is negative (a span of at most 180°, W being
//     both half-spheres) or both are (a wider span).
//
// As Within's other areas do, a fence that reaches past the sector's
// edge by less than withinTolerance (a millimetre; withinSlack in the
// dot products, which are sines of angles) is within it.
//
// # A sector fence within an area
//
//   - A a circle: the sector's distance from A's antipode is at least π
//     less A's radius (circle.holdsShape, as for any fence).
//   - A a box or a polygon: no piece of A's boundary comes into the
//     sector by more than withinTolerance (heldBy: the pieces searched
//     against the sector shrunk by that), and A holds a point well inside
//     the sector. The sector's inside is connected: if A's boundary does
//     not come into it, it lies in A or outside A whole. (Not the apex,
//     which may lie on A's boundary: FuzzShapeWithin found a sector from
//     the south pole, facing away from a box that reaches the pole, taken
//     to lie within it.)
//   - A a sector: as for a box or a polygon fence, with the fence's
//     boundary curves for its edges (below).

// Sector is a fence's region, or an area for Fences.Intersecting and
// Within: the points within Radius metres of (Lat, Lon) whose bearing
// from it lies between From and To degrees, clockwise from north, as
// Index.Sector searches; a Radius of +Inf is the bearings alone.
type Sector struct {
	Lat, Lon, Radius, From, To float64
}

// check says what is wrong with s as the fence or area id, if anything:
// its apex out of range (ErrInvalidPoint), its radius not a non-negative
// number or its bearings not two different numbers (ErrBadFence).
func (s *Sector) check(id string) error {
	if err := validate(s.Lat, s.Lon); err != nil {
		return fmt.Errorf("fence %q: %w", id, errctx.Bare("geo", err))
	}
	if math.IsNaN(s.Radius) || s.Radius < 0 {
		return fmt.Errorf("%w %q: sector radius %v must be a non-negative number of metres (+Inf for the bearings alone)", ErrBadFence, id, s.Radius)
	}
	if msg := badBearings(s.From, s.To); msg != "" {
		return fmt.Errorf("%w %q: %s", ErrBadFence, id, msg)
	}
	return nil
}

// sectorJSON is a Sector as JSON: Radius is left out for +Inf, which
// JSON has no number for.
type sectorJSON struct {
	Lat, Lon float64
	Radius   *float64 `json:",omitempty"`
	From, To float64
}

// MarshalJSON writes s with its fields' names, Radius left out when it is
// +Inf (the bearings alone).
func (s Sector) MarshalJSON() ([]byte, error) {
	j := sectorJSON{Lat: s.Lat, Lon: s.Lon, From: s.From, To: s.To}
	if !math.IsInf(s.Radius, 1) {
		j.Radius = &s.Radius
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes: no Radius is +Inf.
func (s *Sector) UnmarshalJSON(b []byte) error {
	var j sectorJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*s = Sector{Lat: j.Lat, Lon: j.Lon, Radius: math.Inf(1), From: j.From, To: j.To}
	if j.Radius != nil {
		s.Radius = *j.Radius
	}
	return nil
}

// pieceFloor is the length in degrees, longitude and latitude alike,
// below which searchEdge stops halving an undecided piece.
const pieceFloor = 1e-9

// pieceBudget bounds the pieces searchEdge tests on one edge, for an edge
// that runs within a hair of what it seeks for a long way (one that
// touches it at a point costs tens of pieces: BenchmarkSectorGrazingEdge);
// past the budget, what the floor decides is taken.
const pieceBudget = 1 << 18

// withinSlack is withinTolerance as an angle, the margin of the dot
// products Within tests.
const withinSlack = withinTolerance / EarthRadius

// sectorFrame is what the fence tests need of a sector beyond its
// classification: its centre A and the unit vectors at it pointing
// east and north, as newSector takes them.
type sectorFrame struct {
	*sector
	a, east, north [3]float64
	span           float64 // radians, clockwise from from to to
	cosθ           float64 // of the circle's angle
}

func newSectorFrame(s *sector) sectorFrame {
	f := sectorFrame{sector: s, a: unitVector(s.circle.lat, s.circle.lon), span: rad(sectorSpan(s.from, s.to)), cosθ: math.Cos(s.circle.θ)}
	f.east, f.north = eastNorth(s.circle.centre.sinφ, s.circle.centre.cosφ, s.circle.lon)
	return f
}

// eastNorth are the unit vectors pointing east and north at the point of
// latitude φ (given by its sine and cosine) and longitude lon: at a pole,
// those of the meridian lon names, in the limit along it.
func eastNorth(sinφ, cosφ, lon float64) (east, north [3]float64) {
	sinλ, cosλ := math.Sincos(rad(lon))
	return [3]float64{-sinλ, cosλ, 0}, [3]float64{-sinφ * cosλ, -sinφ * sinλ, cosφ}
}

// direction is t_b, the unit vector at A along bearing b radians.
func (f *sectorFrame) direction(b float64) [3]float64 {
	sb, cb := math.Sincos(b)
	return [3]float64{cb*f.north[0] + sb*f.east[0], cb*f.north[1] + sb*f.east[1], cb*f.north[2] + sb*f.east[2]}
}

// angle is the angle between unit vectors p and q, atan2(|p × q|, p·q),
// good near 0 and π where acos is not.
func angle(p, q [3]float64) float64 {
	x := [3]float64{p[1]*q[2] - p[2]*q[1], p[2]*q[0] - p[0]*q[2], p[0]*q[1] - p[1]*q[0]}
	return math.Atan2(math.Sqrt(dot(x, x)), dot(p, q))
}

// arcAngle is the angle from p to the great-circle arc from A along the
// unit vector t (perpendicular to A) for length radians: the points
// cos d·A + sin d·t, 0 ≤ d ≤ length ≤ π. If p's projection onto the
// arc's plane lies at an angle along it within the arc, the angle to the
// plane, atan2(|p·n|, |projection|) with n = A × t; else the nearer end's.
func (f *sectorFrame) arcAngle(p, t [3]float64, length float64) float64 {
	x, y := dot(p, f.a), dot(p, t)
	if along := math.Atan2(y, x); along >= 0 && along <= length {
		n := [3]float64{f.a[1]*t[2] - f.a[2]*t[1], f.a[2]*t[0] - f.a[0]*t[2], f.a[0]*t[1] - f.a[1]*t[0]}
		return math.Atan2(math.Abs(dot(p, n)), math.Hypot(x, y))
	}
	sl, cl := math.Sincos(length)
	end := [3]float64{cl*f.a[0] + sl*t[0], cl*f.a[1] + sl*t[1], cl*f.a[2] + sl*t[2]}
	return min(angle(p, f.a), angle(p, end))
}

// sidesAngle is the angle from p to the nearer of the sides, each of
// length radians.
func (f *sectorFrame) sidesAngle(p [3]float64, length float64) float64 {
	return min(f.arcAngle(p, f.direction(rad(f.from)), length), f.arcAngle(p, f.direction(rad(f.to)), length))
}

// boundaryAngle is the angle from p to the sector's boundary: its sides,
// and the arc of its circle between them. The nearest point of the whole
// circle to p lies along p's own bearing (on the triangle A–p–Q, cos
// pQ = cos θ·cos d + sin θ·sin d·cos(β − β_p) grows as β nears β_p), at
// |d − θ|; it is on the arc when p's bearing is among the sector's, and
// otherwise an end of the arc is nearest, which is a side's.
func (f *sectorFrame) boundaryAngle(p [3]float64) float64 {
	θ := f.circle.θ
	best := f.sidesAngle(p, θ)
	if θ < math.Pi {
		d := angle(p, f.a)
		β := math.Atan2(dot(p, f.east), dot(p, f.north)) // p's bearing from A
		if d == 0 || d == math.Pi || clockwise(f.from, β*180/math.Pi) <= f.span*180/math.Pi {
			best = min(best, math.Abs(d-θ))
		}
	}
	return best
}

// wedgeContains reports whether W, the sector's bearings with no radius,
// holds p, within withinSlack: the apex and the points beside a side by
// less than that are in.
func (f *sectorFrame) wedgeContains(p [3]float64) bool {
	return f.wedgeHolds(dot(f.h1.u, p), dot(f.h2.u, p), -withinSlack)
}

// wedgeHolds reports whether values g1 and g2 of u_from·P and −u_to·P
// (a point's, or bounds over a piece) put P in the wedge with margin m:
// both at least m, or for a span over 180° either.
func (f *sectorFrame) wedgeHolds(g1, g2, m float64) bool {
	if f.test.wide {
		return g1 >= m || g2 >= m
	}
	return g1 >= m && g2 >= m
}

// halfBounds bounds u_from·P and −u_to·P over the piece: the tighter of
// its rectangle's bounds (half.bounds) and its Taylor bounds.
func (f *sectorFrame) halfBounds(pc *piece) (lo1, hi1, lo2, hi2 float64) {
	t := newRectTrig(pc.rect)
	lo1, hi1 = f.h1.bounds(&t)
	lo2, hi2 = f.h2.bounds(&t)
	tlo1, thi1 := pc.bounds(f.h1.u)
	tlo2, thi2 := pc.bounds(f.h2.u)
	return max(lo1, tlo1), min(hi1, thi1), max(lo2, tlo2), min(hi2, thi2)
}

// meetsShape reports whether the sector shares a point with the fence g
// (see the top of this file). A polygon stored with band indexes must
// have been decoded (g.rings nil).
func (f *sectorFrame) meetsShape(g shape) bool {
	if c := g.circle; c != nil {
		if f.contains(c.lat, c.lon) {
			return true
		}
		return f.boundaryAngle(unitVector(c.lat, c.lon))*EarthRadius <= c.radius
	}
	if o := g.sector; o != nil {
		return f.meetsSector(o)
	}
	if sphereContains(g.reg, f.circle.lat, f.circle.lon) {
		return true
	}
	for _, e := range g.edges() {
		if f.meetsPath(e) {
			return true
		}
	}
	return false
}

// inner is a point well inside the sector: along its middle bearing, half
// its radius out (a quarter of the way round the world when that is
// less).
func (f *sectorFrame) inner() (lat, lon float64) {
	d := min(f.circle.θ/2, math.Pi/4)
	t := f.direction(rad(f.from) + f.span/2)
	sd, cd := math.Sincos(d)
	p := [3]float64{cd*f.a[0] + sd*t[0], cd*f.a[1] + sd*t[1], cd*f.a[2] + sd*t[2]}
	return math.Asin(max(-1, min(1, p[2]))) * 180 / math.Pi, math.Atan2(p[1], p[0]) * 180 / math.Pi
}

// meetsStoredPolygon is meetsShape for the polygon fence whose rings are
// stored in b, read in place: the polygon holds the apex (either
// spelling of a longitude on ±180°), or one of its edges within the
// sector's radius of the apex meets the sector (storedPolygonEdgesNear,
// which reads only the bands that near). A sector with no radius, or
// rings that must be read whole (errWideRing), is met on the decoded
// polygon.
func (f *sectorFrame) meetsStoredPolygon(b []byte) (bool, error) {
	whole := func() (bool, error) {
		pr, err := decodePolygon(b)
		if err != nil {
			return false, err
		}
		return f.meetsShape(shapeOf(pr)), nil
	}
	if !indexedForm(b) || f.circle.θ >= math.Pi {
		return whole()
	}
	lat, lons := f.circle.lat, []float64{f.circle.lon}
	if math.Abs(f.circle.lon) == 180 {
		lons = append(lons, -f.circle.lon)
	}
	for _, lon := range lons {
		if held, err := storedPolygonContains(b, lat, lon); err != nil || held {
			return held, err
		}
	}
	θ := f.circle.θ
	meets, err := storedPolygonEdgesNear(b, f.circle.centre, func() float64 { return θ }, f.meetsPath)
	if errors.Is(err, errWideRing) {
		return whole()
	}
	return meets, err
}

// meetsPath reports whether the path p meets the sector, as meetsShape
// meets an edge.
func (f *sectorFrame) meetsPath(p path) bool {
	return searchEdge(p, f.classifyPiece, f.contains, true)
}

// holdsShape reports whether every point of the fence g lies in the
// sector (see the top of this file). A polygon stored with band indexes
// must have been decoded (g.rings nil).
func (f *sectorFrame) holdsShape(g shape) (bool, error) {
	if in, err := f.circle.holdsShape(g); err != nil || !in {
		return false, err
	}
	if c := g.circle; c != nil {
		p := unitVector(c.lat, c.lon)
		return f.wedgeContains(p) && f.sidesAngle(p, math.Pi) >= c.θ-withinSlack, nil
	}
	// Z's middle point: 90° from A along the bearing opposite the
	// sector's middle one.
	z := f.direction(rad(f.from) + f.span/2 + math.Pi)
	if sphereContains(g.reg, math.Asin(max(-1, min(1, z[2])))*180/math.Pi, math.Atan2(z[1], z[0])*180/math.Pi) {
		return false, nil
	}
	if o := g.sector; o != nil {
		return !o.boundaryMeets(f.restSets), nil
	}
	if g.corr != nil {
		return g.corr.heldBySector(f), nil
	}
	for _, e := range g.edges() {
		if searchEdge(e, f.classifyRest, f.restContains, false) {
			return false, nil
		}
	}
	return true, nil
}

// classifyPiece classifies a piece of an edge against the sector: skip
// when it lies outside, found when inside. Its rectangle is classified
// as a cell is; if that leaves it undecided, its Taylor bounds on the
// dot products may yet put it outside, which near a tangent they do
// where a rectangle's cannot.
func (f *sectorFrame) classifyPiece(pc *piece) (skip, found bool) {
	if skip, found = f.classify(pc.rect); skip || found {
		return skip, found
	}
	if f.circle.θ < math.Pi {
		// c·P < cos θ, clear of the dot product's rounding.
		if _, hi := pc.bounds(f.a); hi < f.cosθ-1e-15 {
			return true, false
		}
	}
	lo1, hi1 := pc.bounds(f.h1.u)
	lo2, hi2 := pc.bounds(f.h2.u)
	out, _ := f.classifyBounds(lo1, hi1, lo2, hi2)
	return out, false
}

// classifyRest classifies a piece of an edge against Z reached into by
// more than withinSlack: skip when none of its points is, found when all
// are. The bounds on each dot product are the tighter of its
// rectangle's and its Taylor bounds.
func (f *sectorFrame) classifyRest(pc *piece) (skip, found bool) {
	lo1, hi1, lo2, hi2 := f.halfBounds(pc)
	// Skipped when every point is in the wedge within the slack, found
	// when no point is.
	return f.wedgeHolds(lo1, lo2, -withinSlack), !f.wedgeHolds(hi1, hi2, -withinSlack)
}

// restContains reports whether Z holds (lat, lon) by more than
// withinSlack.
func (f *sectorFrame) restContains(lat, lon float64) bool {
	return !f.wedgeContains(unitVector(lat, lon))
}

// A piece is the part of a path p from t0 to t1, with the rectangle round
// it and, about its midpoint m, what Taylor's theorem bounds u·P over it
// by for a unit vector u. With P = (cos φ cos λ, cos φ sin λ, sin φ) and
// φ, λ moving at a and b radians per unit of t,
//
//	P'' = a²·P_φφ + 2ab·P_φλ + b²·P_λλ,  |P_φφ| = 1, |P_φλ| = |sin φ|, |P_λλ| = cos φ,
//
// so u·P's second derivative is at most (|a| + |b|)² in size, and over
// |t − m| ≤ h, u·P lies within
// u·P(m) ± (|u·P'(m)|·h + (|a| + |b|)²·h²/2). A rectangle's bounds are
// exact for the rectangle but loose by the piece's width for a piece
// that slopes, so near a point where the edge grazes what is sought
// every piece shorter than the gap would be halved; these are loose by
// its square, and pieces a few times the gap's square root long decide.
type piece struct {
	t0, t1 float64
	rect   rect
	p, dp  [3]float64 // P(m), dP/dt(m)
	h, m   float64    // (t1 − t0)/2, and (|a| + |b|)²·h²/2
}

func newPiece(e path, t0, t1 float64) piece {
	pc := piece{t0: t0, t1: t1, h: (t1 - t0) / 2}
	lat0, lon0 := e.at(t0)
	lat1, lon1 := e.at(t1)
	pc.rect = rect{MinLat: min(lat0, lat1), MaxLat: max(lat0, lat1), MinLon: min(lon0, lon1), MaxLon: max(lon0, lon1)}
	lat, lon := e.at((t0 + t1) / 2)
	sinφ, cosφ := math.Sincos(rad(lat))
	sinλ, cosλ := math.Sincos(rad(lon))
	a, b := rad(e.lat1-e.lat0), rad(e.lon1-e.lon0)
	pc.p = [3]float64{cosφ * cosλ, cosφ * sinλ, sinφ}
	pc.dp = [3]float64{-a*sinφ*cosλ - b*cosφ*sinλ, -a*sinφ*sinλ + b*cosφ*cosλ, a * cosφ}
	k := math.Abs(a) + math.Abs(b)
	pc.m = k * k * pc.h * pc.h / 2
	return pc
}

// bounds is the least and greatest u·P over the piece by Taylor's
// theorem, widened by the dot products' rounding.
func (pc *piece) bounds(u [3]float64) (lo, hi float64) {
	g, d := dot(u, pc.p), math.Abs(dot(u, pc.dp))*pc.h+pc.m+1e-15
	return g - d, g + d
}

// searchEdge reports whether some point of the edge e is found: it
// halves e into pieces, each classified (skipped, or found whole) and
// else tested at its midpoint by at and halved again. A piece still
// undecided at pieceFloor, or once pieceBudget pieces have been tested,
// counts as found when floor is true and as skipped when it is false.
// When it counts as found the pieces are searched depth first, as the
// first piece to reach the floor decides; else the longer pieces first,
// so that a stretch of the edge well inside what is sought is found
// before the halving goes deep where the edge grazes it, and before the
// budget runs out there.
func searchEdge(e path, classify func(*piece) (skip, found bool), at func(lat, lon float64) bool, floor bool) bool {
	for _, p := range seamPieces(e) {
		type span struct{ t0, t1 float64 }
		todo := []span{{0, 1}}
		for tested := 0; len(todo) > 0; tested++ {
			next := todo[0] // the longest waiting
			if floor {
				next = todo[len(todo)-1] // the last halved
				todo = todo[:len(todo)-1]
			} else {
				todo = todo[1:]
			}
			pc := newPiece(p, next.t0, next.t1)
			skip, found := classify(&pc)
			r := pc.rect
			switch {
			case skip:
				continue
			case found:
				return true
			case r.MaxLat-r.MinLat <= pieceFloor && r.MaxLon-r.MinLon <= pieceFloor || tested >= pieceBudget:
				if floor {
					return true
				}
				continue
			}
			m := (pc.t0 + pc.t1) / 2
			if at(p.at(m)) {
				return true
			}
			todo = append(todo, span{m, pc.t1}, span{pc.t0, m})
		}
	}
	return false
}

// seamPieces is e cut where it crosses ±180°, each piece's longitudes
// in [−180, 180].
func seamPieces(e path) []path {
	for _, s := range []float64{180, -180} {
		if (e.lon0-s)*(e.lon1-s) < 0 {
			t := (s - e.lon0) / (e.lon1 - e.lon0)
			lat := e.lat0 + t*(e.lat1-e.lat0)
			shift := -2 * s // back into range past the seam
			return []path{
				{lat0: e.lat0, lon0: e.lon0, lat1: lat, lon1: s},
				{lat0: lat, lon0: -s, lat1: e.lat1, lon1: e.lon1 + shift},
			}
		}
	}
	shift := 0.0
	switch {
	case min(e.lon0, e.lon1) >= 180:
		shift = -360
	case max(e.lon0, e.lon1) <= -180:
		shift = 360
	}
	return []path{{lat0: e.lat0, lon0: e.lon0 + shift, lat1: e.lat1, lon1: e.lon1 + shift}}
}

// # A sector's boundary
//
// Each of a sector's boundary curves is P(x) = K + U·cos x + V·sin x over
// an interval of x: a side of bearing b is K = 0, U = A, V = t_b for x
// from 0 to the radius's angle θ (π with none), and the arc is K = cos θ·A,
// U = sin θ·N, V = sin θ·E for x the bearings from..to. Along a curve,
// w·P ≥ γ is (w·U)·cos x + (w·V)·sin x ≥ γ − w·K, whose solutions are
// intervals in closed form (sinusoidAtLeast): so where a curve lies in
// another sector's circle and half-spheres is exact, and two sectors meet
// exactly when the first holds the second's apex or the first's boundary
// meets the second (the second is connected, as for a box or a polygon).

// curve is one of a sector's boundary curves.
type curve struct {
	k, u, v [3]float64
	lo, hi  float64
}

// curves returns the sector's boundary curves: its two sides and, unless
// its circle is the whole sphere, its arc.
func (f *sectorFrame) curves() []curve {
	θ := f.circle.θ
	from := rad(f.from)
	cs := []curve{
		{u: f.a, v: f.direction(from), hi: θ},
		{u: f.a, v: f.direction(from + f.span), hi: θ},
	}
	if θ < math.Pi {
		sθ, cθ := math.Sincos(θ)
		arc := curve{lo: from, hi: from + f.span}
		for i := range 3 {
			arc.k[i], arc.u[i], arc.v[i] = cθ*f.a[i], sθ*f.north[i], sθ*f.east[i]
		}
		cs = append(cs, arc)
	}
	return cs
}

// atLeast returns where along c w·P ≥ γ.
func (c *curve) atLeast(w [3]float64, γ float64) []interval {
	return sinusoidAtLeast(dot(w, c.u), dot(w, c.v), γ-dot(w, c.k), c.lo, c.hi)
}

// An interval is [lo, hi].
type interval [2]float64

// sinusoidAtLeast returns, in order, the intervals of x in [lo, hi] where
// a·cos x + b·sin x ≥ c. With R = √(a² + b²) and φ = atan2(b, a) the left
// side is R·cos(x − φ), at least c where x lies within acos(c/R) of φ + 2πk.
func sinusoidAtLeast(a, b, c, lo, hi float64) []interval {
	r := math.Hypot(a, b)
	switch {
	case c > r:
		return nil
	case c <= -r:
		return []interval{{lo, hi}}
	}
	φ, δ := math.Atan2(b, a), math.Acos(c/r)
	var out []interval
	for k := math.Floor((lo - φ - δ) / (2 * math.Pi)); φ-δ+2*math.Pi*k <= hi; k++ {
		if l, h := max(lo, φ-δ+2*math.Pi*k), min(hi, φ+δ+2*math.Pi*k); l <= h {
			out = append(out, interval{l, h})
		}
	}
	return out
}

// intersect returns where both a and b are, each in order.
func intersect(a, b []interval) []interval {
	var out []interval
	for i, j := 0, 0; i < len(a) && j < len(b); {
		if l, h := max(a[i][0], b[j][0]), min(a[i][1], b[j][1]); l <= h {
			out = append(out, interval{l, h})
		}
		if a[i][1] < b[j][1] {
			i++
		} else {
			j++
		}
	}
	return out
}

// union returns where either a or b is, in order.
func union(a, b []interval) []interval {
	all := append(append([]interval(nil), a...), b...)
	slices.SortFunc(all, func(x, y interval) int { return cmp.Compare(x[0], y[0]) })
	var out []interval
	for _, iv := range all {
		if n := len(out); n > 0 && iv[0] <= out[n-1][1] {
			out[n-1][1] = max(out[n-1][1], iv[1])
		} else {
			out = append(out, iv)
		}
	}
	return out
}

// boundaryMeets reports whether some curve of the sector's boundary has
// a point in the set that sets describes, along that curve.
func (f *sectorFrame) boundaryMeets(sets func(c *curve) []interval) bool {
	for _, c := range f.curves() {
		if len(sets(&c)) > 0 {
			return true
		}
	}
	return false
}

// inSets is where along c the sector holds P, edges counted with a
// hair's slack: in its circle (unless that is the whole sphere) and its
// half-spheres, both or either.
func (f *sectorFrame) inSets(c *curve) []interval {
	h1 := c.atLeast(f.h1.u, -sectorSlack)
	h2 := c.atLeast(f.h2.u, -sectorSlack)
	in := intersect(h1, h2)
	if f.test.wide {
		in = union(h1, h2)
	}
	if f.circle.θ < math.Pi {
		in = intersect(in, c.atLeast(f.a, f.cosθ-1e-15))
	}
	return in
}

// restSets is where along c Z, the rest of the sphere beyond the
// sector's bearings, holds P by more than withinSlack: −u·P > withinSlack
// for either half-sphere (a span of at most 180°) or both.
func (f *sectorFrame) restSets(c *curve) []interval {
	neg := func(u [3]float64) [3]float64 { return [3]float64{-u[0], -u[1], -u[2]} }
	z1 := c.atLeast(neg(f.h1.u), withinSlack)
	z2 := c.atLeast(neg(f.h2.u), withinSlack)
	if f.test.wide {
		return intersect(z1, z2)
	}
	return union(z1, z2)
}

// meetsSector reports whether the sector shares a point with the sector
// o: it holds o's apex, or its boundary meets o. (If o held a point of it
// but not o's apex, o would cross its boundary between them.)
func (f *sectorFrame) meetsSector(o *sectorFrame) bool {
	return f.contains(o.circle.lat, o.circle.lon) || f.boundaryMeets(o.inSets)
}

// distance is how far p lies from the sector, in metres: 0 when it holds
// p, else its distance from the boundary.
func (f *sectorFrame) distance(p ref) float64 {
	if f.contains(p.lat, p.lon) {
		return 0
	}
	return f.boundaryAngle(unitVector(p.lat, p.lon)) * EarthRadius
}

// heldBy reports whether every point of the sector lies in b's area, a
// box or a polygon (the sector being a fence): no piece of b's boundary
// (a piece with the area's outside beside it) comes into the sector by
// more than withinTolerance, and b holds a point well inside the sector
// (inner). The sector's inside is connected, so if no boundary comes into
// it, it lies all inside the area or all outside. (The apex is no such
// point: it may lie on the boundary, as a sector from the pole does on a
// box that reaches the pole, the sector's inside then on either side.)
func (f *sectorFrame) heldBy(b *boundary) bool {
	if lat, lon := f.inner(); !b.contains(lat, lon) {
		return false
	}
	shrunk := newCircle(f.circle.lat, f.circle.lon, max(0, f.circle.radius-withinTolerance))
	classify := func(pc *piece) (skip, found bool) {
		if f.circle.θ < math.Pi {
			if out, _ := shrunk.classify(pc.rect); out {
				return true, false
			}
		}
		// Skipped when no point is in the wedge by the slack.
		_, hi1, _, hi2 := f.halfBounds(pc)
		return !f.wedgeHolds(hi1, hi2, withinSlack), false
	}
	inside := func(lat, lon float64) bool {
		if f.circle.θ < math.Pi && Distance(f.circle.lat, f.circle.lon, lat, lon) >= shrunk.radius {
			return false
		}
		p := unitVector(lat, lon)
		return f.wedgeHolds(dot(f.h1.u, p), dot(f.h2.u, p), withinSlack)
	}
	for i, e := range b.pieces.edges {
		if out, _ := f.classify(e.rect()); out {
			continue // nowhere near the sector
		}
		if b.side(i)&(outLeft|outRight) == 0 {
			continue // not the area's boundary: a seam inside it
		}
		if searchEdge(e, classify, inside, false) {
			return false
		}
	}
	return true
}
