package geo

import (
	"fmt"
	"math"

	"github.com/keyspacedb/keyspace/internal/errctx"
)

// A region is what a query asks for. It classifies a cell's rectangle for
// the covering (outside: no point of it can match; inside: every point
// matches, so the point needs no test), tests a single point, and gives a
// latitude/longitude box that holds every point it contains, from which
// the covering's first cells are taken (startBlock). A box across ±180°
// has MinLon > MaxLon or reaches past ±180 on one side.
//
// Until session 15 only circles gave a box, and the coverings of the
// others began at the grids' roots, some 40 splits above their cells:
// covering a 20 km box took 1.86 µs and now takes 0.72, a 20 km BoxAround
// 5.5 µs and now 1.7, a 20 km hexagon 7.9 µs and now 4.0 (BenchmarkCover;
// 2.2 once its edges met cells by separating axes, edgeMeetsBound). In two
// alternated default runs of the bench runner the median box query went
// from 2.61× the R-tree's time to 2.3×, the hexagon from 2.5× to 2.05×,
// at 1.49 candidates per result for the box instead of 1.46 and the same
// 1.60 for the hexagon.
type region interface {
	classify(r rect) (outside, inside bool)
	contains(lat, lon float64) bool
	boundingBox() Box
}

// circle is the region within radius metres, angle θ = radius/R (radians,
// at most π), of a centre.
type circle struct {
	lat, lon, θ, radius float64
	box                 Box       // the latitude/longitude box around it
	bbox                boxRegion // cheap first test for classify
	centre              ref       // trigonometry done once
	// Haversine thresholds for classify, shaded by 1e-12 rad (6 µm) and a
	// relative 1e-9 so that rounding can only keep a cell or test a point:
	// a cell is outside when its lower bound exceeds hOut, inside when its
	// upper bound is below hIn.
	hOut, hIn float64
	// cos φ over the box's latitudes, at its smallest and largest.
	cosMin, cosMax float64
	// near: the circle is covered by blockCover (see there for the
	// conditions); kMin and kMax are cos φc·cosMin and cos φc·cosMax.
	near       bool
	kMin, kMax float64
}

func newCircle(lat, lon, radius float64) *circle {
	return new(circle).init(lat, lon, radius)
}

// init makes c the circle of radius metres around (lat, lon), and returns
// it.
func (c *circle) init(lat, lon, radius float64) *circle {
	*c = circle{lat: lat, lon: lon, θ: min(radius/EarthRadius, math.Pi), radius: radius}
	c.box = circleBounds(lat, lon, c.θ)
	c.bbox.init(c.box)
	c.centre = newRef(lat, lon)
	c.hOut = havAbove(c.θ)
	s := math.Sin(max(0, c.θ-1e-12) / 2)
	c.hIn = s * s * (1 - 1e-9)
	c.cosMin, c.cosMax = cosRange(c.box.MinLat, c.box.MaxLat)
	c.kMin, c.kMax = c.centre.cosφ*c.cosMin, c.centre.cosφ*c.cosMax
	b := c.box
	c.near = b.MaxLat-b.MinLat <= 2 && b.MinLat > -CapLatitude && b.MaxLat < CapLatitude &&
		b.MinLon > -180 && b.MaxLon < 180 && b.MinLon <= b.MaxLon && b.MaxLon-b.MinLon < 180
	return c
}

func (c *circle) boundingBox() Box { return c.box }

// circleBounds is the latitude/longitude box around a circle of angle θ.
// The latitudes are φ ± θ. Unless the circle holds a pole, its extreme
// longitudes are where a meridian is tangent to it, at
//
//	Δλ = asin(sin θ / cos φ)
//
// (on the right-angled spherical triangle pole–centre–tangent point), and
// every longitude when sin θ ≥ cos φ.
func circleBounds(lat, lon, θ float64) Box {
	deg := θ * 180 / math.Pi
	b := Box{MinLat: max(-90, lat-deg), MaxLat: min(90, lat+deg), MinLon: -180, MaxLon: 180}
	if s := math.Sin(θ) / math.Cos(rad(lat)); lat-deg > -90 && lat+deg < 90 && θ < math.Pi/2 && s < 1 {
		// Widen by a hair so rounding can only make the box larger.
		d := math.Asin(s)*180/math.Pi + 1e-9
		if d < 180 {
			b.MinLon, b.MaxLon = wrap(lon-d), wrap(lon+d)
		}
	}
	b.MinLat, b.MaxLat = max(-90, b.MinLat-1e-9), min(90, b.MaxLat+1e-9)
	return b
}

func (c *circle) classify(r rect) (outside, inside bool) {
	out, inBox := c.bbox.classify(r)
	switch {
	case out:
		return true, false
	case c.θ >= math.Pi:
		return false, true // the whole sphere
	case r.MinLat <= c.bbox.minLat && r.MaxLat >= c.bbox.maxLat && c.bbox.nLons == 1 &&
		r.MinLon <= c.bbox.lonBuf[0][0] && r.MaxLon >= c.bbox.lonBuf[0][1]:
		return false, false // the cell holds the whole circle: it crosses
	}
	// The bounds of cos φ are the box's, not the cell's, for a circle
	// of up to 2° of latitude. The lower bound
	// decides "outside", which is about the cell's points in the circle,
	// and those lie in the box: bounding over the cell's part in the box
	// is enough. The upper bound decides "inside", which is only asked of
	// a cell within the box.
	cosMin, cosMax := c.cosMin, c.cosMax
	if c.box.MaxLat-c.box.MinLat > 2 { // a large circle: the cell's own are tighter
		cosMin, cosMax = cosRange(r.MinLat, r.MaxLat)
	}
	if c.centre.havLower(&r, cosMin) > c.hOut {
		return true, false
	}
	// A cell inside the circle is inside its bounding box too.
	return false, inBox && c.centre.havUpper(&r, cosMax) < c.hIn
}

func (c *circle) contains(lat, lon float64) bool {
	return Distance(c.lat, c.lon, lat, lon) <= c.radius // exactly the distance reported
}

// Box is a latitude/longitude rectangle in degrees, edges included. When
// MinLon > MaxLon the box crosses the antimeridian: it runs east from MinLon
// through ±180° to MaxLon. Longitudes 180 and -180 are the same meridian.
type Box struct {
	MinLat, MinLon, MaxLat, MaxLon float64
}

func (b Box) validate() error {
	if err := validate(b.MinLat, b.MinLon); err != nil {
		return fmt.Errorf("box minimum corner: %w", errctx.Bare("geo", err))
	}
	if err := validate(b.MaxLat, b.MaxLon); err != nil {
		return fmt.Errorf("box maximum corner: %w", errctx.Bare("geo", err))
	}
	if b.MinLat > b.MaxLat {
		return fmt.Errorf("%w: box minimum latitude %v is north of its maximum %v", ErrBadQuery, b.MinLat, b.MaxLat)
	}
	return nil
}

// MinDistance returns the smallest great-circle distance in metres from
// (lat, lon) to any point of the box (0 inside it). An R-tree over the same
// points can use it as the node distance of an exact spherical k-nearest
// search.
func (b Box) MinDistance(lat, lon float64) float64 {
	best := math.Inf(1)
	for _, iv := range b.lonIntervals() {
		r := rect{MinLat: b.MinLat, MaxLat: b.MaxLat, MinLon: iv[0], MaxLon: iv[1]}
		best = min(best, r.minAngle(lat, lon))
	}
	return best * EarthRadius
}

// CircleBounds returns the latitude/longitude box around the circle of
// radius metres about (lat, lon): MinLon > MaxLon when it crosses the
// antimeridian, every longitude when it holds a pole.
func CircleBounds(lat, lon, radius float64) Box {
	return circleBounds(lat, lon, min(radius/EarthRadius, math.Pi))
}

// lonIntervals returns the box's longitudes as closed intervals without
// wrap-around. An interval that ends on one side of the antimeridian gets a
// degenerate twin on the other, since ±180° is one meridian and a point on
// it may be stored at either.
func (b Box) lonIntervals() [][2]float64 {
	var buf [4][2]float64
	return b.appendLonIntervals(buf[:0])
}

// appendLonIntervals appends lonIntervals to out: at most four of them.
func (b Box) appendLonIntervals(out [][2]float64) [][2]float64 {
	if b.MinLon <= b.MaxLon {
		out = append(out, [2]float64{b.MinLon, b.MaxLon})
	} else {
		out = append(out, [2]float64{b.MinLon, 180}, [2]float64{-180, b.MaxLon})
	}
	for _, iv := range out {
		if iv[0] == -180 {
			out = append(out, [2]float64{180, 180})
			break
		}
	}
	for _, iv := range out {
		if iv[1] == 180 {
			out = append(out, [2]float64{-180, -180})
			break
		}
	}
	return out
}

// centre is the middle of the box, along its own longitude span.
func (b Box) centre() (lat, lon float64) {
	span := b.MaxLon - b.MinLon
	if span < 0 {
		span += 360
	}
	return (b.MinLat + b.MaxLat) / 2, wrap(b.MinLon + span/2)
}

// wrap brings a longitude into [-180, 180].
func wrap(lon float64) float64 {
	if lon > 180 {
		return lon - 360
	}
	if lon < -180 {
		return lon + 360
	}
	return lon
}

// boxRegion is a Box prepared for classification. Its longitude
// intervals (at most four: lonIntervals) are held in the value itself, so
// that preparing one allocates nothing.
type boxRegion struct {
	minLat, maxLat float64
	lonBuf         [4][2]float64 // lons
	nLons          int
}

// lons returns the box's longitude intervals.
func (b *boxRegion) lons() [][2]float64 { return b.lonBuf[:b.nLons] }

// init prepares b in r, and returns r.
func (r *boxRegion) init(b Box) *boxRegion {
	r.minLat, r.maxLat = b.MinLat, b.MaxLat
	r.nLons = len(b.appendLonIntervals(r.lonBuf[:0]))
	return r
}

// boundingBox is the box itself; one split across ±180° is bounded by
// every longitude, which startBlock turns down.
func (b *boxRegion) boundingBox() Box {
	lons := b.lons()
	if len(lons) != 1 {
		return Box{MinLat: b.minLat, MinLon: -180, MaxLat: b.maxLat, MaxLon: 180}
	}
	return Box{MinLat: b.minLat, MinLon: lons[0][0], MaxLat: b.maxLat, MaxLon: lons[0][1]}
}

func (b *boxRegion) classify(r rect) (outside, inside bool) {
	if r.MaxLat < b.minLat || r.MinLat > b.maxLat {
		return true, false
	}
	outside = true
	for _, iv := range b.lons() {
		if r.MaxLon >= iv[0] && r.MinLon <= iv[1] {
			outside = false
			if r.MinLon >= iv[0] && r.MaxLon <= iv[1] && r.MinLat >= b.minLat && r.MaxLat <= b.maxLat {
				return false, true
			}
		}
	}
	return outside, false
}

func (b *boxRegion) contains(lat, lon float64) bool {
	if lat < b.minLat || lat > b.maxLat {
		return false
	}
	for _, iv := range b.lons() {
		if lon >= iv[0] && lon <= iv[1] {
			return true
		}
	}
	return false
}

// aroundBox is Redis's BYBOX: the points whose distance from the centre
// along the centre's meridian is at most half the height, and whose
// distance from the centre's meridian along their own parallel is at most
// half the width. With φ the point's latitude and Δλ its longitude
// difference from the centre, the haversine distance between (φ, λ) and
// (φ, λc) is 2R·asin(cos φ·|sin(Δλ/2)|), so the second test is
//
//	cos φ · |sin(Δλ/2)| ≤ sin(w / 4R)
//
// (always true once w/4R reaches π/2). For a fixed Δλ it is hardest to meet
// near the equator and easiest near a pole: the box widens in longitude
// towards the poles, as Redis's does.
type aroundBox struct {
	lat, lon float64 // centre, degrees
	halfLat  float64 // half the height as a latitude difference, degrees
	sinHalfW float64 // sin(w/4R), capped at 1
}

func newAroundBox(lat, lon, width, height float64) aroundBox {
	return aroundBox{
		lat: lat, lon: lon,
		halfLat:  height / 2 / EarthRadius * 180 / math.Pi,
		sinHalfW: math.Sin(min(width/4/EarthRadius, math.Pi/2)),
	}
}

// boundingBox holds the points contains accepts. Their latitudes lie in
// the band; at latitude φ their longitudes differ from the centre's by at
// most Δλ = 2·asin(sin(w/4R) / cos φ), which is largest where cos φ is
// smallest, at the band's edge farthest from the equator. Once that cosine
// is no more than sin(w/4R), every longitude qualifies. A margin of 1e-9°
// (0.1 mm) each way takes in a point that rounding lets through.
func (a aroundBox) boundingBox() Box {
	const margin = 1e-9
	b := Box{MinLat: max(-90, a.lat-a.halfLat-margin), MaxLat: min(90, a.lat+a.halfLat+margin), MinLon: -180, MaxLon: 180}
	cosMin := math.Cos(rad(max(math.Abs(b.MinLat), math.Abs(b.MaxLat))))
	if cosMin > a.sinHalfW {
		half := 2*math.Asin(a.sinHalfW/cosMin)*180/math.Pi + margin
		b.MinLon, b.MaxLon = a.lon-half, a.lon+half // past ±180 when it wraps: startBlock declines it
	}
	return b
}

func (a aroundBox) classify(r rect) (outside, inside bool) {
	lo, hi := max(r.MinLat, a.lat-a.halfLat), min(r.MaxLat, a.lat+a.halfLat)
	if lo > hi {
		return true, false
	}
	// Outside if even the most favourable latitude (the largest |φ| of the
	// cell inside the band) cannot reach the cell's nearest longitude.
	cosMin := math.Cos(rad(max(math.Abs(lo), math.Abs(hi))))
	if cosMin*math.Sin(rad(lonGap(a.lon, r.MinLon, r.MaxLon))/2) > a.sinHalfW {
		return true, false
	}
	// Inside if the whole cell is within the band and the least favourable
	// latitude (the smallest |φ|) still reaches its farthest longitude.
	if r.MinLat < a.lat-a.halfLat || r.MaxLat > a.lat+a.halfLat {
		return false, false
	}
	cosMax := 1.0
	if r.MinLat > 0 || r.MaxLat < 0 {
		cosMax = math.Cos(rad(min(math.Abs(r.MinLat), math.Abs(r.MaxLat))))
	}
	return false, cosMax*math.Sin(rad(lonFar(a.lon, r.MinLon, r.MaxLon))/2) <= a.sinHalfW
}

func (a aroundBox) contains(lat, lon float64) bool {
	if math.Abs(lat-a.lat) > a.halfLat {
		return false
	}
	return math.Cos(rad(lat))*math.Abs(math.Sin(rad(lonGap(a.lon, lon, lon))/2)) <= a.sinHalfW
}

// lonFar is the largest angular difference in degrees (at most 180) between
// lon and any longitude in [lo, hi].
func lonFar(lon, lo, hi float64) float64 {
	anti := wrap(lon + 180)
	if anti >= lo && anti <= hi || anti == 180 && lo == -180 || anti == -180 && hi == 180 {
		return 180
	}
	return max(lonGap(lon, lo, lo), lonGap(lon, hi, hi))
}
