package geo

import (
	"errors"
	"fmt"
	"math"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/internal/errctx"
	"github.com/keyspacedb/keyspace/internal/expiry"
	"github.com/paulmach/orb"
)

// Intersecting: the fences that share a point with an area, Tile38's
// INTERSECTS asked of a collection of geofences ("which delivery zones
// overlap this district?").
//
// The candidates are found as cross detection finds a path's (meeting):
// the area is covered with intersectCells cells, and every fence with a
// cell that holds one of them or lies inside one is read. Each candidate
// is then tested exactly. Two regions A and B share a point exactly when
//
//   - both are circles, and their centres are at most the sum of their
//     radii apart (on the sphere a circle is a cap, and two caps meet
//     when the arc between their centres is at most the sum of their
//     angular radii);
//   - B is a circle and A a box: the box's nearest point to B's centre
//     (rect.minAngle, exact on the sphere) is within B's radius;
//   - B is a circle and A a polygon: A holds B's centre, or an edge of A
//     comes within B's radius of it (path.meetsCircle, after a test of
//     the edge's box that passes over most edges; for a fence stored with
//     band indexes, only the edges of the bands within the radius are
//     read, in place: circle.meetsStoredPolygon);
//   - neither is a circle: an edge of A meets B, or A holds a vertex of
//     each of B's polygons, or B a vertex of one of A's. If no edge of A
//     meets B, the boundaries do not cross, so each polygon of one lies
//     inside the other (and the other holds all its vertices) or apart
//     from it. (A polygon fence stored with band indexes is met by each
//     edge of the area on the bands it reaches, and tests the area's
//     vertices, in place: shape.meetsStoredPolygon.)
//   - either is a sector: fence_sector.go, whose sides are great-circle
//     arcs, not edges.
//
// Edges are straight lines in longitude and latitude (path.go), a box's
// along its meridians and parallels, a polygon's as its rings draw them.
// An edge longer than 90° of longitude is cut into pieces of at most 90°:
// path.shifts counts on pieces of at most 180°, and path.closest, which
// samples a path at 65 points before it refines the nearest, finds a
// circle's nearest point surely only on a path along which the distance
// has one minimum, which a long edge round a pole need not have. A box
// across ±180° is two rectangles, and the edges of both, the seam at
// ±180° among them, are tested: a piece of the seam lies inside the box,
// so if it meets B the box does too.

// intersectCells is the covering budget of an Intersecting or Within
// area.
const intersectCells = 4

// areaCells is the covering budget of the area a for Intersecting and
// Within: intersectCells, or a corridor's by the length of its line.
func areaCells(a shape) int {
	if a.corr != nil {
		return alongFenceCells(a.corr)
	}
	return intersectCells
}

// Intersecting returns the ids of the fences that share at least one
// point with area, in order: a circle, a box, a polygon, a sector or a
// corridor, as a Fence describes one (its id and expiry are not needed;
// a corridor's answer is Along's). Edges count, as they
// do for Containing; fences that have expired are left out. A bad area is
// an error wrapping ErrBadFence or ErrInvalidPoint that reads nothing.
func (fs *Fences) Intersecting(tx keyspace.Tx, area Fence) ([]string, error) {
	if area.ID == "" {
		area.ID = "area" // for the region's errors
	}
	reg, err := area.region()
	if err != nil {
		return nil, fs.wrap(err)
	}
	a := shapeOf(reg)
	var out []string
	// A polygon fence's stored rings are met in place, on the edges of
	// the bands the area reaches.
	err = fs.eachCandidate(tx, reg, areaCells(a), new(expiry.Clock), func(id string, f shape) error {
		meets := false
		if f.rings != nil {
			var err error
			if meets, err = a.meetsStoredPolygon(f.rings); err != nil {
				return fs.wrap(fmt.Errorf("%w: fence %s: %v", keyspace.ErrCorrupt, errctx.Quote(id), err))
			}
		} else {
			meets = a.intersects(f)
		}
		if meets {
			out = append(out, id)
		}
		return nil
	})
	return out, err
}

// eachCandidate calls fn, in id order, with each fence that has a cell
// meeting a cell of reg's covering (of at most budget cells): every fence
// that shares a point with reg, and some near it, with its region; those
// expired by clk are left out. A polygon fence whose rings are stored
// with band indexes comes as its stored rings (shape.rings), to be read
// in place, not decoded. It stops at fn's first error.
func (fs *Fences) eachCandidate(tx keyspace.Tx, reg region, budget int, clk *expiry.Clock, fn func(id string, f shape) error) error {
	v, err := fs.meeting(tx, reg, budget, clk)
	if err != nil {
		return err
	}
	for _, c := range v.candidates() {
		var f shape
		switch {
		case c.circle != nil:
			f = shapeOf(newCircle(c.circle[0], c.circle[1], c.circle[2]))
		case c.box != nil:
			f = shapeOf(new(boxRegion).init(*c.box))
		default:
			v, err := tx.Get(fs.polygons.Pack(composite.Tuple{c.id}))
			switch {
			case err == nil && indexedForm(v):
				f = shape{rings: v}
			case err == nil: // rings in the earlier form, decoded here rather than read again by regionOf
				pr, err := decodePolygon(v)
				if err != nil {
					return fs.wrap(fmt.Errorf("%w: fence %s: %v", keyspace.ErrCorrupt, errctx.Quote(c.id), err))
				}
				f = shapeOf(pr)
			case !errors.Is(err, keyspace.ErrNotFound):
				return fs.wrap(err)
			default: // no rings stored: a circle's or box's region key, or a definition from before either
				reg, err := fs.regionOf(tx, c.id)
				if err != nil {
					return err
				}
				if f = shapeOf(reg); f.reg == nil {
					return fs.wrap(fmt.Errorf("%w: fence %s is none of a circle, a box, a polygon, a sector and a corridor", keyspace.ErrCorrupt, errctx.Quote(c.id)))
				}
			}
		}
		if err := fn(c.id, f); err != nil {
			return err
		}
	}
	return nil
}

// A shape is a region as two are tested for a shared point: its region,
// and which kind it is (exactly one of circle, box, poly, sector and corr
// is set; a sector's tests are in fence_sector.go, a corridor's in
// fence_corridor.go); or, from eachCandidate, a polygon fence's stored
// rings alone (rings set, and nothing else).
type shape struct {
	reg    region
	circle *circle
	box    *boxRegion
	poly   *polygonRegion
	sector *sectorFrame
	corr   *corridor
	rings  []byte // in the indexed form (fence_polygon.go), read in place
}

// decodeRings returns f with its stored rings, if it has them, decoded:
// for the tests that do not read rings in place.
func decodeRings(f shape) (shape, error) {
	if f.rings == nil {
		return f, nil
	}
	pr, err := decodePolygon(f.rings)
	if err != nil {
		return shape{}, err
	}
	return shapeOf(pr), nil
}

// shapeOf returns reg as a shape; one of no kind a shape knows has a nil
// reg.
func shapeOf(reg region) shape {
	switch r := reg.(type) {
	case *circle:
		return shape{reg: r, circle: r}
	case *boxRegion:
		return shape{reg: r, box: r}
	case polygonRegion:
		return shape{reg: r, poly: &r}
	case *polygonRegion:
		return shape{reg: r, poly: r}
	case *sector:
		f := newSectorFrame(r)
		return shape{reg: r, sector: &f}
	case *corridor:
		return shape{reg: r, corr: r}
	}
	return shape{}
}

// intersects reports whether s and t share a point (see the top of this
// file; a sector area by sectorFrame.meetsShape, fence_sector.go).
func (s shape) intersects(t shape) bool {
	switch {
	case s.corr != nil && t.corr != nil:
		return s.corr.reachesCorridor(t.corr)
	case s.corr != nil:
		met, _ := s.corr.reaches(t) // t has no stored rings: no error
		return met
	case t.corr != nil:
		met, _ := t.corr.reaches(s)
		return met
	case s.sector != nil:
		return s.sector.meetsShape(t)
	case t.sector != nil:
		return t.sector.meetsShape(s)
	case s.circle != nil && t.circle != nil:
		return Distance(s.circle.lat, s.circle.lon, t.circle.lat, t.circle.lon) <= s.circle.radius+t.circle.radius
	case s.circle != nil:
		s, t = t, s
	}
	if c := t.circle; c != nil {
		if b := s.box; b != nil {
			// The box's nearest point to the centre, exactly
			// (rect.minAngle), within the radius.
			for _, iv := range b.lons() {
				r := rect{MinLat: b.minLat, MaxLat: b.maxLat, MinLon: iv[0], MaxLon: iv[1]}
				if r.minAngle(c.lat, c.lon)*EarthRadius <= c.radius {
					return true
				}
			}
			return false
		}
		if s.reg.contains(c.lat, c.lon) {
			return true
		}
		centre := newRef(c.lat, c.lon)
		for _, e := range s.edges() {
			// An edge lies in its box: one whose box is farther than the
			// radius (rect.minAngle, exact for the box) is missed without
			// the search for its nearest point.
			box := e.rect()
			if centre.minAngle(box)*EarthRadius > c.radius {
				continue
			}
			if e.meetsCircle(c.lat, c.lon, c.radius) {
				return true
			}
		}
		return false
	}
	for _, e := range s.edges() {
		if t.meets(e) {
			return true
		}
	}
	return s.holdsVertexOf(t) || t.holdsVertexOf(s)
}

// holdsVertexOf reports whether s holds a vertex of t, a box or a
// polygon: a box's south-west corner, or the first vertex of any of the
// polygons of a multipolygon, each of which may lie inside s alone.
func (s shape) holdsVertexOf(t shape) bool {
	if t.box != nil {
		return s.reg.contains(t.box.minLat, t.box.lons()[0][0])
	}
	for _, poly := range t.poly.mp {
		if p := poly[0][0]; s.reg.contains(p.Lat(), p.Lon()) {
			return true
		}
	}
	return false
}

// meets reports whether the edge e meets s, a box (its inside or its
// boundary) or a polygon (its boundary: an edge inside it is found by
// intersects' test of a vertex).
func (s shape) meets(e path) bool {
	if s.box != nil {
		return e.meetsBox(s.box)
	}
	return e.meetsPolygon(s.poly)
}

// edges returns the edges of s, a box or a polygon, as paths of at most
// 90° of longitude each.
func (s shape) edges() []path {
	var out []path
	if b := s.box; b != nil {
		for _, iv := range b.lons() {
			out = appendEdge(out, b.minLat, iv[0], b.minLat, iv[1])
			out = appendEdge(out, b.maxLat, iv[0], b.maxLat, iv[1])
			out = appendEdge(out, b.minLat, iv[0], b.maxLat, iv[0])
			out = appendEdge(out, b.minLat, iv[1], b.maxLat, iv[1])
		}
		return out
	}
	for _, poly := range s.poly.mp {
		for _, ring := range poly {
			for i := 1; i < len(ring); i++ {
				out = appendEdge(out, ring[i-1].Lat(), ring[i-1].Lon(), ring[i].Lat(), ring[i].Lon())
			}
		}
	}
	return out
}

// appendEdge appends the straight line in longitude and latitude from
// (lat0, lon0) to (lat1, lon1), both in range, not across ±180°, in
// pieces of at most 90° of longitude.
func appendEdge(out []path, lat0, lon0, lat1, lon1 float64) []path {
	n := max(1, int(math.Ceil(math.Abs(lon1-lon0)/90)))
	for i := range n {
		t0, t1 := float64(i)/float64(n), float64(i+1)/float64(n)
		out = append(out, path{
			lat0: lat0 + t0*(lat1-lat0), lon0: lon0 + t0*(lon1-lon0),
			lat1: lat0 + t1*(lat1-lat0), lon1: lon0 + t1*(lon1-lon0),
		})
	}
	return out
}

// meetsStoredPolygon reports whether c shares a point with the polygon
// fence whose rings are stored in b, as shape.intersects does for a
// circle and a polygon: the polygon holds c's centre, or an edge comes
// within c's radius of it; tested in place, on the edges of the bands
// within the radius of the centre (storedPolygonEdgesNear).
func (c *circle) meetsStoredPolygon(b []byte) (bool, error) {
	held, err := storedPolygonContains(b, c.lat, c.lon)
	if err != nil || held {
		return held, err
	}
	θ := c.radius / EarthRadius
	meets, err := storedPolygonEdgesNear(b, newRef(c.lat, c.lon), func() float64 { return θ }, func(e path) bool {
		return e.meetsCircle(c.lat, c.lon, c.radius)
	})
	if errors.Is(err, errWideRing) {
		pr, err := decodePolygon(b)
		if err != nil {
			return false, err
		}
		return shapeOf(c).intersects(shapeOf(pr)), nil
	}
	return meets, err
}

// meetsStoredPolygon is s.intersects for the polygon fence whose rings
// are stored in b, tested in place: a circle by circle.meetsStoredPolygon,
// a sector by sectorFrame.meetsStoredPolygon; a box or a polygon by its edges against the fence's boundary
// (storedPolygonMeetsPath, which reads the bands each edge reaches), then
// by a vertex of either inside the other.
func (s shape) meetsStoredPolygon(b []byte) (bool, error) {
	switch {
	case s.circle != nil:
		return s.circle.meetsStoredPolygon(b)
	case s.sector != nil:
		return s.sector.meetsStoredPolygon(b)
	case s.corr != nil:
		return s.corr.reachesStoredPolygon(b)
	}
	if !indexedForm(b) {
		pr, err := decodePolygon(b)
		if err != nil {
			return false, err
		}
		return s.intersects(shapeOf(pr)), nil
	}
	for _, e := range s.edges() {
		if met, err := storedPolygonMeetsPath(b, e); err != nil || met {
			return met, err
		}
	}
	firsts, err := storedFirstVertices(b)
	if err != nil {
		return false, err
	}
	for _, v := range firsts { // s holds a vertex of the fence
		if s.reg.contains(v.Lat(), v.Lon()) {
			return true, nil
		}
	}
	var vertices []orb.Point // the fence holds a vertex of s
	if s.box != nil {
		vertices = append(vertices, orb.Point{s.box.lons()[0][0], s.box.minLat})
	} else {
		for _, poly := range s.poly.mp {
			vertices = append(vertices, poly[0][0])
		}
	}
	for _, v := range vertices {
		if held, err := storedPolygonContains(b, v.Lat(), v.Lon()); err != nil || held {
			return held, err
		}
	}
	return false, nil
}
