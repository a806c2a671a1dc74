package geo

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/storetest"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"
)

// polygonDistanceOracle bounds a point's distance from a polygon,
// written apart from near_polygon.go: 0 when orb's planar test says the
// polygon holds it, else bruteLineDistance from its rings as lines.
func polygonDistanceOracle(mp orb.MultiPolygon, radius float64) func(p Point) (lo, hi float64) {
	var rings orb.MultiLineString
	for _, poly := range mp {
		for _, ring := range poly {
			rings = append(rings, orb.LineString(ring))
		}
	}
	// Each polygon's point and extent (fenceExtent): a point farther
	// than radius from every polygon by those needs no more.
	type extent struct {
		c Point
		d float64
	}
	var extents []extent
	for _, poly := range mp {
		c, d := fenceExtent(Fence{Polygon: poly})
		extents = append(extents, extent{c, d})
	}
	return func(p Point) (lo, hi float64) {
		if planar.MultiPolygonContains(mp, orb.Point{p.Lon, p.Lat}) {
			return 0, 0
		}
		far := math.Inf(1)
		for _, e := range extents {
			far = math.Min(far, vincenty(p.Lat, p.Lon, e.c.Lat, e.c.Lon)-e.d)
		}
		if far > radius+1 {
			return far, math.Inf(1)
		}
		return bruteLineDistance(rings, p.Lat, p.Lon, 1e-3, radius+1)
	}
}

// TestNearPolygonAgainstBruteForce: the points within a distance of
// polygons (stars with and without holes, jagged ones with long rings,
// multipolygons) round points of every synthetic set, the poles and
// ±180° among them, at radii from 0 to 3,000 km, on both backends,
// against polygonDistanceOracle; in memory, with a Limit, farthest first
// and a page at a time too. A radius of 0 finds what Within finds.
func TestNearPolygonAgainstBruteForce(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(61, 62))
		_, memory := s.(*keyspace.MemoryStore)
		inside, beside := 0, 0 // results at 0 and beyond it: both must occur
		defer func() {
			if inside < 100 || beside < 100 {
				t.Errorf("%d results inside the polygons and %d beside them: too few to mean much", inside, beside)
			}
		}()
		for _, set := range syntheticSets(r, 300) {
			t.Run(set.name, func(t *testing.T) {
				ix := NewIndex(set.name)
				load(t, s, ix, set.points)
				radii := []float64{0, 10, 1000, 30_000, 300_000, 3_000_000}
				for q := range 8 {
					p := set.points[r.IntN(len(set.points))]
					size := r.ExpFloat64() * 2
					var poly orb.Geometry = star(r, p.Lat, p.Lon, size, q%3 == 0)
					switch q % 4 {
					case 1:
						poly = jaggedStar(r, p.Lat, p.Lon, size, 40, q%3 == 1)
					case 2:
						// and one on the far side of the world
						poly = orb.MultiPolygon{poly.(orb.Polygon), star(r, -p.Lat, wrap(p.Lon+180), 0.5, false)}
					}
					mp := toMulti(poly)
					radius := radii[r.IntN(len(radii))]
					what := fmt.Sprintf("within %v m of %v", radius, poly)
					err := s.View(func(tx keyspace.Tx) error {
						got, st, err := ix.NearPolygon(tx, poly, radius, nil)
						if err != nil {
							return err
						}
						checkMeasured(t, what, set.points, radius, got, polygonDistanceOracle(mp, radius))
						for _, g := range got {
							if g.Distance == 0 {
								inside++
							} else {
								beside++
							}
						}
						if st.Results != len(got) || st.Candidates < len(got) || st.Ranges > st.Cells {
							t.Fatalf("%s: inconsistent stats %+v for %d results", what, st, len(got))
						}
						if radius == 0 {
							within, _, err := ix.Within(tx, poly, nil)
							if err != nil {
								return err
							}
							if len(within) != len(got) {
								t.Fatalf("%s: %d results, Within %d", what, len(got), len(within))
							}
						}
						if memory {
							checkMeasuredOptions(t, what, got, func(o *QueryOptions) ([]Result, error) {
								rs, _, err := ix.NearPolygon(tx, poly, radius, o)
								return rs, err
							})
						}
						return nil
					})
					if err != nil {
						t.Fatal(err)
					}
				}
			})
		}
	})
}

// TestNearPolygonCases: points just inside a square, on its edge, just
// beyond the radius and just within it, beside a hole's edge and in the
// hole, and across ±180°; then the errors.
func TestNearPolygonCases(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		ix := NewIndex("cases")
		// A square 10–12° N, 20–22° E with a hole 10.9–11.1° N,
		// 20.9–21.1° E; a degree of latitude is 111,195 m.
		square := orb.Polygon{
			{{20, 10}, {22, 10}, {22, 12}, {20, 12}, {20, 10}},
			{{20.9, 10.9}, {21.1, 10.9}, {21.1, 11.1}, {20.9, 11.1}, {20.9, 10.9}},
		}
		const degree = EarthRadius * math.Pi / 180
		points := []Point{
			{ID: "inside", Lat: 10.5, Lon: 20.5},
			{ID: "on-edge", Lat: 10, Lon: 21},
			{ID: "north-500m", Lat: 12 + 500/degree, Lon: 21},
			{ID: "north-1500m", Lat: 12 + 1500/degree, Lon: 21},
			{ID: "in-hole-300m", Lat: 11 - 0.1 + 300/degree, Lon: 21},
			{ID: "hole-centre", Lat: 11, Lon: 21},
		}
		load(t, s, ix, points)
		s.View(func(tx keyspace.Tx) error {
			for _, c := range []struct {
				radius float64
				want   string
			}{
				{0, "inside:0 on-edge:0"},
				{1000, "inside:0 on-edge:0 in-hole-300m:300 north-500m:500"},
				// The hole's centre is nearest its east and west edges,
				// 0.1° of longitude away across the meridians.
				{12_000, fmt.Sprintf("inside:0 on-edge:0 hole-centre:%.0f in-hole-300m:300 north-1500m:1500 north-500m:500", EarthRadius*math.Asin(math.Sin(rad(0.1))*math.Cos(rad(11))))},
			} {
				got, _, err := ix.NearPolygon(tx, square, c.radius, nil)
				if err != nil {
					t.Fatal(err)
				}
				var b strings.Builder
				for i, r := range got {
					if i > 0 {
						b.WriteByte(' ')
					}
					fmt.Fprintf(&b, "%s:%.0f", r.ID, r.Distance)
				}
				// Order is by distance; compare as sets of id:metres.
				if !sameWords(b.String(), c.want) {
					t.Errorf("radius %v: %s, want %s", c.radius, b.String(), c.want)
				}
			}
			for _, c := range []struct {
				poly   orb.Geometry
				radius float64
				want   error
				says   string
			}{
				{square, -1, ErrBadQuery, "radius -1"},
				{orb.Polygon{{{0, 0}, {1, 0}, {1, 1}}}, 10, ErrBadPolygon, ""},
				{orb.LineString{{0, 0}, {1, 1}}, 10, ErrBadPolygon, ""},
			} {
				_, _, err := ix.NearPolygon(tx, c.poly, c.radius, nil)
				if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) {
					t.Errorf("%v, radius %v: %v, want %v saying %q", c.poly, c.radius, err, c.want, c.says)
				}
			}
			return nil
		})
	})
}

// sameWords reports whether a and b hold the same space-separated words,
// in any order.
func sameWords(a, b string) bool {
	count := map[string]int{}
	for _, w := range strings.Fields(a) {
		count[w]++
	}
	for _, w := range strings.Fields(b) {
		count[w]--
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return true
}

// TestDistanceToPolygon: points round stars with and without holes, at
// the poles and across the world, against polygonDistanceOracle to a
// micrometre; then the errors.
func TestDistanceToPolygon(t *testing.T) {
	r := rand.New(rand.NewPCG(63, 64))
	inside := 0
	for range 300 {
		lat, lon := math.Asin(2*r.Float64()-1)*180/math.Pi, r.Float64()*360-180
		poly := star(r, lat, lon, r.ExpFloat64(), r.IntN(2) == 0)
		v := poly[0][r.IntN(len(poly[0]))]
		plat, plon := destination(v.Lat(), v.Lon(), r.ExpFloat64()*20_000, r.Float64()*2*math.Pi)
		got, err := DistanceToPolygon(poly, plat, plon)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := polygonDistanceOracle(orb.MultiPolygon{poly}, math.Inf(1))(Point{Lat: plat, Lon: plon})
		if slack := 1e-6 + 1e-9*hi; got < lo-slack || got > hi+slack {
			t.Fatalf("(%v, %v) from %v: %v m, brute force between %v and %v", plat, plon, poly, got, lo, hi)
		}
		if got == 0 {
			inside++
		}
	}
	if inside < 30 || inside > 270 {
		t.Errorf("%d of 300 points inside: too few of one kind to mean much", inside)
	}
	if _, err := DistanceToPolygon(orb.Polygon{{{0, 0}, {1, 0}, {1, 1}, {0, 0}}}, 91, 0); !errors.Is(err, ErrInvalidPoint) {
		t.Errorf("latitude 91: %v", err)
	}
	if _, err := DistanceToPolygon(orb.LineString{{0, 0}, {1, 1}}, 1, 1); !errors.Is(err, ErrBadPolygon) {
		t.Errorf("a LineString: %v", err)
	}
}

// TestNearestPolygonAgainstBruteForce: the k nearest polygons (small
// stars, some with holes, some far from every point) among each
// synthetic set, against polygonDistanceOracle over every point: each
// result at its distance, nearest first, ties by id, and no point
// surely nearer than the k-th left out; pages of 4 are the 12 nearest.
// Then the errors.
func TestNearestPolygonAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(65, 66))
	s := keyspace.NewMemory()
	inside := 0
	for _, set := range syntheticSets(r, 300) {
		ix := NewIndex(set.name)
		load(t, s, ix, set.points)
		s.View(func(tx keyspace.Tx) error {
			for q := range 6 {
				p := set.points[r.IntN(len(set.points))]
				lat, lon := p.Lat, p.Lon
				if q%3 == 2 { // far from every point
					lat, lon = clamp(-lat+r.NormFloat64(), -90, 90), wrapLon(lon+180)
				}
				poly := star(r, lat, lon, r.ExpFloat64()/4, q%2 == 0)
				k := []int{1, 5, 20}[q%3]
				what := fmt.Sprintf("%s: the %d nearest %v", set.name, k, poly)
				mp := orb.MultiPolygon{poly}
				got := checkNearest(t, what, set.points, k, func(p Point, dk float64) (lo, hi float64) {
					return polygonDistanceOracle(mp, dk)(p)
				}, func(k int, after *Cursor) ([]Result, Stats, error) {
					return ix.NearestPolygon(tx, poly, k, &QueryOptions{After: after})
				})
				for _, g := range got {
					if g.Distance == 0 {
						inside++
					}
				}
			}
			return nil
		})
	}
	if inside < 5 {
		t.Errorf("%d results inside their polygons: too few to mean much", inside)
	}
	s.View(func(tx keyspace.Tx) error {
		ix := NewIndex("uniform")
		square := orb.Polygon{{{0, 0}, {1, 0}, {1, 1}, {0, 1}, {0, 0}}}
		for _, tc := range []struct {
			k    int
			opts *QueryOptions
			want string
		}{
			{0, nil, "k = 0"},
			{3, &QueryOptions{FarthestFirst: true}, "ask NearPolygon for the farthest first"},
		} {
			if _, _, err := ix.NearestPolygon(tx, square, tc.k, tc.opts); !errors.Is(err, ErrBadQuery) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("k %d %+v: %v, want ErrBadQuery saying %q", tc.k, tc.opts, err, tc.want)
			}
		}
		if _, _, err := ix.NearestPolygon(tx, orb.Polygon{{{0, 0}, {1, 0}, {0, 0}}}, 3, nil); !errors.Is(err, ErrBadPolygon) {
			t.Errorf("a ring of three positions: %v", err)
		}
		return nil
	})
}
