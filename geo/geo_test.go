package geo

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/internal/dataset"
	"github.com/keyspacedb/keyspace/storetest"
)

// TestRectAnglesAgainstSampling checks the exact nearest and farthest angle
// from a point to a rectangle against a dense sampling of the rectangle's
// boundary and interior: the exact minimum can be no larger than any sample,
// the exact maximum no smaller, and both within a grid step of the samples.
func TestRectAnglesAgainstSampling(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 3000; i++ {
		var rc rect
		if i%3 == 0 { // real geohash cells, including polar and ±180 ones
			c := cell{hash: r.Uint64() >> (64 - uint(1+r.IntN(20))), bits: 0}
			c.bits = uint(64 - clz(c.hash))
			rc = c.bounds()
		} else {
			la1, la2 := r.Float64()*180-90, r.Float64()*180-90
			lo1, lo2 := r.Float64()*360-180, r.Float64()*360-180
			rc = rect{math.Min(la1, la2), math.Max(la1, la2), math.Min(lo1, lo2), math.Max(lo1, lo2)}
		}
		lat, lon := r.Float64()*180-90, r.Float64()*360-180
		if i%7 == 0 {
			lat = []float64{90, -90, 89.99, -89.99}[i%4]
		}
		const n = 60
		sMin, sMax := math.Inf(1), 0.0
		for a := 0; a <= n; a++ {
			for b := 0; b <= n; b++ {
				pl := rc.MinLat + (rc.MaxLat-rc.MinLat)*float64(a)/n
				po := rc.MinLon + (rc.MaxLon-rc.MinLon)*float64(b)/n
				d := newOrigin(lat, lon).angle(rad(pl), rad(po))
				sMin, sMax = math.Min(sMin, d), math.Max(sMax, d)
			}
		}
		step := rad(math.Max(rc.MaxLat-rc.MinLat, rc.MaxLon-rc.MinLon)/n) * 1.5
		gotMin, gotMax := rc.minAngle(lat, lon), rc.maxAngle(lat, lon)
		if gotMin > sMin+1e-12 || gotMin < sMin-step {
			t.Fatalf("minAngle(%v, %v to %+v) = %v, sampled %v", lat, lon, rc, gotMin, sMin)
		}
		if gotMax < sMax-1e-12 || gotMax > sMax+step {
			t.Fatalf("maxAngle(%v, %v to %+v) = %v, sampled %v", lat, lon, rc, gotMax, sMax)
		}
		// havBounds may be loose, but never on the wrong side of a sample.
		hLo, hHi := newRef(lat, lon).havBounds(rc)
		hav := func(d float64) float64 { s := math.Sin(d / 2); return s * s }
		if hLo > hav(sMin)*(1+1e-12)+1e-300 || hHi < hav(sMax)*(1-1e-12) {
			t.Fatalf("havBounds(%v, %v to %+v) = [%v, %v], sampled [%v, %v]", lat, lon, rc, hLo, hHi, hav(sMin), hav(sMax))
		}
	}
}

// countPointKeys counts the point keys of every grid.
func countPointKeys(tx keyspace.Tx, ix *Index) int {
	n := 0
	for _, sub := range ix.points {
		for range tx.Scan(sub.Range()) {
			n++
		}
	}
	return n
}

func clz(x uint64) int {
	n := 0
	for i := 63; i >= 0 && x&(1<<uint(i)) == 0; i-- {
		n++
	}
	return n
}

// pointSet names a synthetic or real set of points.
type pointSet struct {
	name   string
	points []Point
}

func syntheticSets(r *rand.Rand, n int) []pointSet {
	uniform := func(name string, gen func() (float64, float64)) pointSet {
		ps := pointSet{name: name}
		for i := 0; i < n; i++ {
			lat, lon := gen()
			ps.points = append(ps.points, Point{ID: fmt.Sprintf("%s-%d", name, i), Lat: lat, Lon: lon})
		}
		return ps
	}
	sphere := func() (float64, float64) { // uniform on the sphere
		return math.Asin(2*r.Float64()-1) * 180 / math.Pi, r.Float64()*360 - 180
	}
	centres := [][2]float64{{37.77, -122.42}, {48.85, 2.35}, {35.68, 139.69}, {-33.87, 151.21}, {0.1, 0.1}, {-0.1, -0.1}}
	clustered := func() (float64, float64) {
		c := centres[r.IntN(len(centres))]
		return clamp(c[0]+r.NormFloat64()*0.3, -90, 90), wrapLon(c[1] + r.NormFloat64()*0.3)
	}
	poles := func() (float64, float64) {
		lat := 90 - math.Abs(r.NormFloat64())*0.5
		if r.IntN(2) == 0 {
			lat = -lat
		}
		if r.IntN(20) == 0 {
			lat = math.Copysign(90, lat) // exactly on the pole
		}
		return lat, r.Float64()*360 - 180
	}
	antimeridian := func() (float64, float64) {
		lon := 180 - math.Abs(r.NormFloat64())*0.3
		if r.IntN(2) == 0 {
			lon = -lon
		}
		if r.IntN(20) == 0 {
			lon = []float64{180, -180}[r.IntN(2)]
		}
		return r.NormFloat64() * 20, lon
	}
	dup := uniform("duplicates", func() (float64, float64) { return []float64{10, 10.001}[r.IntN(2)], 20 })
	return []pointSet{uniform("uniform", sphere), uniform("clustered", clustered), uniform("poles", poles),
		uniform("antimeridian", antimeridian), dup}
}

func clamp(x, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, x)) }

func wrapLon(lon float64) float64 {
	for lon > 180 {
		lon -= 360
	}
	for lon < -180 {
		lon += 360
	}
	return lon
}

// bruteRadius is the oracle: every point, its haversine distance, sorted.
func bruteRadius(points []Point, lat, lon, radius float64) []Result {
	var out []Result
	for _, p := range points {
		if d := Distance(lat, lon, p.Lat, p.Lon); d <= radius {
			out = append(out, Result{Point: p, Distance: d})
		}
	}
	sortByDistanceThenID(out)
	return out
}

// sortByDistanceThenID is the oracles' order, a plain comparison sort
// written apart from the radix sort queries use.
func sortByDistanceThenID(rs []Result) {
	slices.SortStableFunc(rs, func(a, b Result) int {
		if c := cmp.Compare(a.Distance, b.Distance); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
}

func load(t testing.TB, s keyspace.Store, ix *Index, points []Point) {
	t.Helper()
	err := s.Update(func(tx keyspace.Tx) error {
		for _, p := range points {
			if err := ix.Put(tx, p); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func checkResults(t *testing.T, what string, got, want []Result) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d results, brute force %d", what, len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.ID != w.ID || math.Abs(g.Distance-w.Distance) > 1e-6*math.Max(1, w.Distance) {
			t.Fatalf("%s: result %d is %s at %.6f m, brute force %s at %.6f m", what, i, g.ID, g.Distance, w.ID, w.Distance)
		}
	}
}

func TestRadiusAgainstBruteForce(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(3, 4))
		for _, set := range syntheticSets(r, 1500) {
			t.Run(set.name, func(t *testing.T) {
				ix := NewIndex(set.name)
				load(t, s, ix, set.points)
				radii := []float64{0, 1, 1000, 10_000, 100_000, 1_000_000, 5_000_000, 30_000_000}
				for q := 0; q < 150; q++ {
					var lat, lon float64
					if q%2 == 0 { // centre on a point: radius 0 and exact-distance cases
						p := set.points[r.IntN(len(set.points))]
						lat, lon = p.Lat, p.Lon
					} else {
						lat, lon = r.Float64()*180-90, r.Float64()*360-180
					}
					radius := radii[r.IntN(len(radii))]
					if q%5 == 0 { // exactly a point's distance
						p := set.points[r.IntN(len(set.points))]
						radius = Distance(lat, lon, p.Lat, p.Lon)
					}
					s.View(func(tx keyspace.Tx) error {
						got, st, err := ix.Radius(tx, lat, lon, radius, nil)
						if err != nil {
							t.Fatal(err)
						}
						want := bruteRadius(set.points, lat, lon, radius)
						checkResults(t, fmt.Sprintf("radius %.0f m around (%v, %v)", radius, lat, lon), got, want)
						if st.Results != len(got) || st.Candidates < len(got) || st.Ranges > st.Cells {
							t.Fatalf("inconsistent stats %+v for %d results", st, len(got))
						}
						return nil
					})
				}
			})
		}
	})
}

// loadCities indexes the real cities in a memory store, skipping when the
// data is absent.
func loadCities(t *testing.T) (*keyspace.MemoryStore, *Index, []Point) {
	var points []Point
	for _, c := range dataset.Cities(t) {
		if c.Lat == 0 && c.Lon == 0 {
			continue // "Null Island" rows are bad data (SOURCES.md)
		}
		points = append(points, Point{ID: fmt.Sprint(c.ID), Lat: c.Lat, Lon: c.Lon})
	}
	s := keyspace.NewMemory()
	ix := NewIndex("cities")
	load(t, s, ix, points)
	return s, ix, points
}

func TestRadiusCities(t *testing.T) {
	s, ix, points := loadCities(t)
	r := rand.New(rand.NewPCG(5, 6))
	candidates, results := 0, 0
	for q := 0; q < 200; q++ {
		c := points[r.IntN(len(points))]
		radius := []float64{1000, 10_000, 100_000}[q%3]
		s.View(func(tx keyspace.Tx) error {
			got, st, err := ix.Radius(tx, c.Lat, c.Lon, radius, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkResults(t, fmt.Sprintf("cities: %.0f m around %s", radius, c.ID), got, bruteRadius(points, c.Lat, c.Lon, radius))
			candidates += st.Candidates
			results += st.Results
			return nil
		})
	}
	t.Logf("cities: %.2f candidates read per result over 200 queries", float64(candidates)/float64(results))
}

func TestRadiusLimitAndEmpty(t *testing.T) {
	s := keyspace.NewMemory()
	ix := NewIndex("x")
	s.View(func(tx keyspace.Tx) error {
		got, _, err := ix.Radius(tx, 0, 0, 1e9, nil)
		if err != nil || len(got) != 0 {
			t.Errorf("empty index: %v, %v", got, err)
		}
		return nil
	})
	set := syntheticSets(rand.New(rand.NewPCG(7, 8)), 300)[0]
	load(t, s, ix, set.points)
	s.View(func(tx keyspace.Tx) error {
		got, _, err := ix.Radius(tx, 10, 10, 3_000_000, &QueryOptions{Limit: 5})
		checkResults(t, "limit 5", got, bruteRadius(set.points, 10, 10, 3_000_000)[:5])
		return err
	})
}

func TestMoveAndDeleteLeaveNoStaleKeys(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		ix := NewIndex("fleet")
		r := rand.New(rand.NewPCG(9, 10))
		live := map[string]Point{}
		for step := 0; step < 400; step++ {
			id := fmt.Sprint("car", r.IntN(30))
			err := s.Update(func(tx keyspace.Tx) error {
				if r.IntN(4) == 0 {
					delete(live, id)
					return ix.Delete(tx, id)
				}
				p := Point{ID: id, Lat: r.Float64()*180 - 90, Lon: r.Float64()*360 - 180, Payload: []byte(fmt.Sprint(step))}
				if r.IntN(3) == 0 {
					p.Scope = []any{"tenant", int64(r.IntN(2))}
				}
				live[id] = p
				return ix.Put(tx, p)
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		s.View(func(tx keyspace.Tx) error {
			points, ids := 0, 0
			points += countPointKeys(tx, ix)
			for range tx.Scan(ix.ids.Range()) {
				ids++
			}
			if points != len(live) || ids != len(live) {
				t.Errorf("%d point keys and %d id keys for %d live points", points, ids, len(live))
			}
			for id, want := range live {
				got, err := ix.Get(tx, id)
				if err != nil || got.Lat != want.Lat || got.Lon != want.Lon || string(got.Payload) != string(want.Payload) || len(got.Scope) != len(want.Scope) {
					t.Errorf("Get(%s) = %+v, %v; want %+v", id, got, err, want)
				}
			}
			return nil
		})
	})
}

func TestBadInputChangesNothing(t *testing.T) {
	s := keyspace.NewMemory()
	ix := NewIndex("x")
	bad := []Point{
		{ID: "a", Lat: 91}, {ID: "a", Lat: -90.0001}, {ID: "a", Lon: 180.5}, {ID: "a", Lat: math.NaN()},
		{ID: "a", Lon: math.Inf(1)}, {ID: "", Lat: 1, Lon: 1},
	}
	for _, p := range bad {
		err := s.Update(func(tx keyspace.Tx) error { return ix.Put(tx, p) })
		if !errors.Is(err, ErrInvalidPoint) && !errors.Is(err, ErrEmptyID) {
			t.Errorf("Put(%+v) = %v, want a clear error", p, err)
		}
	}
	if s.Len() != 0 {
		t.Errorf("bad puts left %d keys", s.Len())
	}
	s.View(func(tx keyspace.Tx) error {
		for _, radius := range []float64{-1, math.NaN()} {
			if _, _, err := ix.Radius(tx, 0, 0, radius, nil); !errors.Is(err, ErrBadQuery) {
				t.Errorf("Radius(radius %v) = %v, want ErrBadQuery", radius, err)
			}
		}
		if _, _, err := ix.Radius(tx, 95, 0, 10, nil); !errors.Is(err, ErrInvalidPoint) {
			t.Errorf("Radius at latitude 95 = %v, want ErrInvalidPoint", err)
		}
		return nil
	})
	// Both poles and both sides of the antimeridian are valid.
	for _, p := range []Point{{ID: "n", Lat: 90, Lon: 0}, {ID: "s", Lat: -90, Lon: 0}, {ID: "e", Lon: 180}, {ID: "w", Lon: -180}} {
		if err := s.Update(func(tx keyspace.Tx) error { return ix.Put(tx, p) }); err != nil {
			t.Errorf("Put(%+v) = %v", p, err)
		}
	}
}

// TestSinHalf: the polynomial below 4° stays within a relative 1e-12 of
// math.Sin, far inside the 1e-9 shading of a circle's thresholds, on both
// sides of the switch and at zero.
func TestSinHalf(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	xs := []float64{0, 1e-300, 1e-9, 0.001, 1, 3.999999, 4, 4.000001, 90, 180, 359.99, 360}
	for range 10_000 {
		xs = append(xs, r.Float64()*360, r.Float64()*8, math.Ldexp(r.Float64(), -r.IntN(60)))
	}
	for _, x := range xs {
		got, want := sinHalf(x), math.Sin(x*math.Pi/180/2)
		if math.Abs(got-want) > 1e-12*math.Abs(want) {
			t.Fatalf("sinHalf(%v) = %v, math.Sin gives %v", x, got, want)
		}
	}
}

// TestAngleAgainstLibraryHaversine: origin.angle, which near its centre
// uses polynomials and the angle-sum identity, agrees with the haversine
// formula written with math.Sin, math.Cos and math.Asin to a relative
// 2e-15 (plus 1e-300 at zero; a 5% change in either polynomial's last
// coefficient fails it), at distances from zero to the antipode,
// on both sides of the switch, at the poles and across ±180°.
func TestAngleAgainstLibraryHaversine(t *testing.T) {
	library := func(φ0, λ0, φ, λ float64) float64 {
		s1, s2 := math.Sin((φ-φ0)/2), math.Sin((λ-λ0)/2)
		h := s1*s1 + math.Cos(φ0)*math.Cos(φ)*s2*s2
		return 2 * math.Asin(math.Sqrt(math.Min(1, h)))
	}
	r := rand.New(rand.NewPCG(43, 44))
	for i := range 200_000 {
		lat, lon := r.Float64()*180-90, r.Float64()*360-180
		switch i % 5 {
		case 0:
			lat = []float64{90, -90, 89.9999, -89.9999, 0}[i/5%5]
		case 1:
			lon = []float64{180, -180, 179.9999, -179.9999}[i/5%4]
		}
		// A step of up to 10^-8 to 10^1.5 degrees, so some land on each
		// side of nearHalf (about 4° between the points).
		step := math.Pow(10, -8+r.Float64()*9.5)
		plat := min(90, max(-90, lat+step*r.NormFloat64()))
		plon := lon + step*r.NormFloat64()
		if plon > 180 {
			plon -= 360
		} else if plon < -180 {
			plon += 360
		}
		if i%11 == 0 {
			plat, plon = lat, lon
		}
		o := newOrigin(lat, lon)
		got, want := o.angle(rad(plat), rad(plon)), library(rad(lat), rad(lon), rad(plat), rad(plon))
		if math.Abs(got-want) > 2e-15*want+1e-300 {
			t.Fatalf("angle from (%v, %v) to (%v, %v) = %v, library haversine %v (relative error %.3g)", lat, lon, plat, plon, got, want, math.Abs(got-want)/want)
		}
		if d := Distance(lat, lon, plat, plon); d != EarthRadius*got {
			t.Fatalf("Distance = %v, EarthRadius × angle = %v", d, EarthRadius*got)
		}
	}
}

// TestStartBlockFinest: startBlock's block is of the finest precision at
// which the region's bounding box meets at most n cells: it holds at most
// n cells, each meeting the box, and the children of its cells that meet
// the box (the block one bit finer) are more than n. Cells are half-open,
// [min, max), as a point on an edge is stored in the cell above it.
func TestStartBlockFinest(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 13))
	meets := func(c rect, b Box) bool {
		return c.MinLat <= b.MaxLat && c.MaxLat > b.MinLat && c.MinLon <= b.MaxLon && c.MaxLon > b.MinLon
	}
	blocks := 0
	for range 3000 {
		c := newCircle(r.Float64()*160-80, r.Float64()*340-170, math.Exp(r.Float64()*14))
		n := 1 + r.IntN(4*DefaultMaxCells)
		block, ok := startBlock(nil, c, n)
		if !ok || block[0].grid != geohashGrid { // cap blocks: TestCapStartBlock
			continue
		}
		blocks++
		box := c.boundingBox()
		if len(block) == 0 || len(block) > n {
			t.Fatalf("circle %+v, n=%d: block of %d cells", box, n, len(block))
		}
		finer := 0
		for _, f := range block {
			if !meets(f.box, box) {
				t.Fatalf("circle %+v: block cell %x/%d %+v misses the box", box, f.hash, f.bits, f.box)
			}
			var kids [2]framed
			f.split(&kids)
			for _, kid := range kids {
				if meets(kid.box, box) {
					finer++
				}
			}
		}
		if bits := block[0].bits; bits < MaxBits && finer <= n {
			t.Fatalf("circle %+v, n=%d: block at %d bits has %d cells, but %d at %d bits is within n", box, n, bits, len(block), finer, bits+1)
		}
	}
	if blocks < 2000 {
		t.Fatalf("only %d of 3000 circles had a start block", blocks)
	}
}

// TestFramedBounds: a framed cell's rectangle, halved down a descent, is
// bit for bit the rectangle the geohash library decodes for every cell on
// the way, from the whole world and from cells at every precision; and so
// are the rectangles of the cells of startBlock, for circles from a metre
// to a few thousand kilometres.
func TestFramedBounds(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for range 2000 {
		c := newCircle(r.Float64()*160-80, r.Float64()*340-170, math.Exp(r.Float64()*15))
		block, _ := startBlock(nil, c, 1+r.IntN(2*DefaultMaxCells))
		for _, f := range block {
			if f.grid != geohashGrid {
				continue // a cap cell has no rectangle of its own
			}
			if want := f.bounds(); f.box != want {
				t.Fatalf("block cell %x/%d: framed %+v, decoded %+v", f.hash, f.bits, f.box, want)
			}
		}
	}
	for range 2000 {
		start := cell{}
		if r.IntN(2) == 0 {
			bits := uint(r.IntN(MaxBits))
			start = cell{hash: r.Uint64() >> (MaxBits - bits), bits: bits}
		}
		f := frame(start)
		for f.bits < MaxBits {
			var kids [2]framed
			f.split(&kids)
			f = kids[r.IntN(2)]
			if want := f.bounds(); f.box != want {
				t.Fatalf("cell %x/%d: framed %+v, decoded %+v", f.hash, f.bits, f.box, want)
			}
		}
	}
}

// TestBoundingBoxesHoldTheirRegions: every point a region contains lies in
// its bounding box, which startBlock builds the covering from. The points
// tried are the region's own boundary, found by bisecting along rays from
// its centre (the last point contains accepts), and a polygon's vertices,
// where a box drawn too tight would shut them out; a box across ±180°
// (MinLon > MaxLon, or past ±180 on one side) is taken as the two sides
// of it.
func TestBoundingBoxesHoldTheirRegions(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	holds := func(b Box, lat, lon float64) bool {
		if lat < b.MinLat || lat > b.MaxLat {
			return false
		}
		for _, l := range []float64{lon - 360, lon, lon + 360} {
			if b.MinLon <= b.MaxLon && l >= b.MinLon && l <= b.MaxLon || b.MinLon > b.MaxLon && (l >= b.MinLon || l <= b.MaxLon) {
				return true
			}
		}
		return false
	}
	for q := range 3000 {
		lat, lon := r.Float64()*170-85, r.Float64()*360-180
		size := math.Exp(r.Float64() * 14) // metres, 1 m to about 1,200 km
		deg := size / EarthRadius * 180 / math.Pi
		var reg region
		switch q % 4 {
		case 0:
			reg = newCircle(lat, lon, size)
		case 1:
			reg = new(boxRegion).init(Box{MinLat: max(-90, lat-deg), MaxLat: min(90, lat+deg), MinLon: wrap(lon - 2*deg), MaxLon: wrap(lon + deg)})
		case 2:
			reg = newAroundBox(lat, lon, size*(0.2+2*r.Float64()), size*(0.2+2*r.Float64()))
		case 3:
			p, err := newPolygonRegion(star(r, lat, lon, deg, false))
			if err != nil {
				continue
			}
			reg = p
			lat, lon = clamp(lat, -89.5, 89.5), clamp(lon, -179.5, 179.5) // star's centre
			// Its extremes are vertices.
			for _, v := range p.mp[0][0] {
				if !p.contains(v.Lat(), v.Lon()) || !holds(p.boundingBox(), v.Lat(), v.Lon()) {
					t.Fatalf("polygon %v: vertex %v outside its bounding box %+v", p.mp, v, p.boundingBox())
				}
			}
		}
		if !reg.contains(lat, lon) {
			t.Fatalf("%T %+v does not contain its centre (%v, %v)", reg, reg, lat, lon)
		}
		b := reg.boundingBox()
		for range 16 {
			a := r.Float64() * 2 * math.Pi
			dLat, dLon := math.Sin(a), math.Cos(a)
			at := func(s float64) (float64, float64) { return lat + s*dLat, wrap(lon + s*dLon) }
			in, out := 0.0, 4*deg+1e-6 // along the ray: contained at in, not at out
			if la, lo := at(out); math.Abs(la) <= 90 && reg.contains(la, lo) {
				continue // the ray leaves the map first, or wraps round into the region
			}
			for range 200 {
				mid := (in + out) / 2
				if mid == in || mid == out {
					break
				}
				if la, lo := at(mid); math.Abs(la) <= 90 && reg.contains(la, lo) {
					in = mid
				} else {
					out = mid
				}
			}
			if la, lo := at(in); !holds(b, la, lo) {
				t.Fatalf("%T %+v contains (%v, %v), outside its bounding box %+v", reg, reg, la, lo, b)
			}
		}
	}
}
