package geo

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/storetest"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"
)

// brute is the oracle for every query: test every point, measure from the
// centre, sort by distance then id.
func brute(points []Point, lat, lon float64, match func(p Point) bool) []Result {
	var out []Result
	for _, p := range points {
		if match(p) {
			out = append(out, Result{Point: p, Distance: Distance(lat, lon, p.Lat, p.Lon)})
		}
	}
	sortByDistanceThenID(out)
	return out
}

// bruteInBox tests a point against a box written out independently of
// boxRegion: plain comparisons of degrees, a box with MinLon > MaxLon
// being the two pieces either side of ±180°, and ±180° one meridian.
func bruteInBox(b Box, p Point) bool {
	if p.Lat < b.MinLat || p.Lat > b.MaxLat {
		return false
	}
	in := func(lo, hi float64) bool {
		return p.Lon >= lo && p.Lon <= hi || math.Abs(p.Lon) == 180 && -p.Lon >= lo && -p.Lon <= hi
	}
	if b.MinLon <= b.MaxLon {
		return in(b.MinLon, b.MaxLon)
	}
	return in(b.MinLon, 180) || in(-180, b.MaxLon)
}

func randomBox(r *rand.Rand) Box {
	la1, la2 := r.Float64()*180-90, r.Float64()*180-90
	b := Box{MinLat: math.Min(la1, la2), MaxLat: math.Max(la1, la2), MinLon: r.Float64()*360 - 180}
	b.MaxLon = wrap(b.MinLon + r.ExpFloat64()*20) // often crosses ±180
	switch r.IntN(8) {
	case 0:
		b.MinLon, b.MaxLon = -180, 180
	case 1:
		b.MinLon, b.MaxLon = 170, -170
	case 2:
		b.MinLon = -180
	case 3:
		b.MaxLat = 90
	case 4:
		b.MinLat = -90
	}
	if r.IntN(3) > 0 { // mostly small boxes
		b.MaxLat = math.Min(90, b.MinLat+r.ExpFloat64()*3)
	}
	return b
}

// star is a random simple polygon: vertices at jittered, evenly spread
// angles around a centre, optionally with a small hole in the middle. It
// is shrunk to stay clear of the poles and the antimeridian (GeoJSON
// polygons do not cross them).
func star(r *rand.Rand, lat, lon, size float64, hole bool) orb.Polygon {
	lat, lon = clamp(lat, -89.5, 89.5), clamp(lon, -179.5, 179.5)
	size = math.Min(size, 0.9*math.Min(90-math.Abs(lat), 180-math.Abs(lon)))
	n := 5 + r.IntN(12)
	ring := func(scale float64) orb.Ring {
		var out orb.Ring
		for i := 0; i < n; i++ {
			a := (float64(i) + 0.8*r.Float64()) / float64(n) * 2 * math.Pi
			d := size * scale * (0.5 + r.Float64()/2)
			out = append(out, orb.Point{lon + d*math.Cos(a), lat + d*math.Sin(a)})
		}
		return append(out, out[0])
	}
	p := orb.Polygon{ring(1)}
	if hole {
		p = append(p, ring(0.1))
	}
	return p
}

func TestBoxAndPolygonAgainstBruteForce(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(11, 12))
		for _, set := range syntheticSets(r, 1200) {
			t.Run(set.name, func(t *testing.T) {
				ix := NewIndex(set.name)
				load(t, s, ix, set.points)
				s.View(func(tx keyspace.Tx) error {
					for q := 0; q < 150; q++ {
						b := randomBox(r)
						if q%4 == 0 { // edges through points: on a box's edge is in it
							p1, p2 := set.points[r.IntN(len(set.points))], set.points[r.IntN(len(set.points))]
							b = Box{MinLat: min(p1.Lat, p2.Lat), MaxLat: max(p1.Lat, p2.Lat), MinLon: p1.Lon, MaxLon: p2.Lon}
						}
						got, st, err := ix.Box(tx, b, nil)
						if err != nil {
							t.Fatal(err)
						}
						lat, lon := b.centre()
						checkResults(t, fmt.Sprintf("box %+v", b), got, brute(set.points, lat, lon, func(p Point) bool { return bruteInBox(b, p) }))
						checkStats(t, st, got)
					}
					for q := 0; q < 150; q++ {
						c := set.points[r.IntN(len(set.points))]
						w, h := r.ExpFloat64()*200_000, r.ExpFloat64()*200_000
						switch q % 10 {
						case 0:
							w = 50_000_000 // wider than the Earth
						case 1, 2: // edges a hair beyond a point (exactly through it, metres and degrees round differently)
							o := set.points[r.IntN(len(set.points))]
							w, h = 2*Distance(o.Lat, o.Lon, o.Lat, c.Lon)*(1+1e-9), 2*EarthRadius*rad(math.Abs(o.Lat-c.Lat))*(1+1e-9)
						}
						got, st, err := ix.BoxAround(tx, c.Lat, c.Lon, w, h, nil)
						if err != nil {
							t.Fatal(err)
						}
						// Redis's test, written out: distance along the
						// meridian, then along the point's parallel.
						want := brute(set.points, c.Lat, c.Lon, func(p Point) bool {
							return EarthRadius*rad(math.Abs(p.Lat-c.Lat)) <= h/2 && Distance(p.Lat, p.Lon, p.Lat, c.Lon) <= w/2
						})
						checkResults(t, fmt.Sprintf("%.0f×%.0f m box around %s", w, h, c.ID), got, want)
						checkStats(t, st, got)
					}
					for q := 0; q < 150; q++ {
						c := set.points[r.IntN(len(set.points))]
						poly := star(r, c.Lat, c.Lon, r.ExpFloat64()*2, q%3 == 0)
						var g orb.Geometry = poly
						switch q % 9 {
						case 0:
							g = orb.MultiPolygon{poly, star(r, -c.Lat, wrap(c.Lon+180), 1, false)}
						case 1: // a polar cap, edges along ±180 and the pole
							g = orb.Polygon{{{-180, 80}, {180, 80}, {180, 90}, {-180, 90}, {-180, 80}}}
						case 2: // a box either side of the antimeridian, split
							g = orb.MultiPolygon{{{{170, -10}, {180, -10}, {180, 10}, {170, 10}, {170, -10}}},
								{{{-180, -10}, {-170, -10}, {-170, 10}, {-180, 10}, {-180, -10}}}}
						case 3: // corners on points: on the boundary is in it
							a, b := set.points[r.IntN(len(set.points))], set.points[r.IntN(len(set.points))]
							g = orb.Polygon{{{c.Lon, c.Lat}, {a.Lon, a.Lat}, {b.Lon, b.Lat}, {c.Lon, c.Lat}}}
						}
						got, st, err := ix.Within(tx, g, nil)
						if errors.Is(err, ErrBadPolygon) && q%9 == 3 {
							continue // three points in a line
						}
						if err != nil {
							t.Fatalf("%v: %v", g, err)
						}
						cen := withinCentre(g)
						want := brute(set.points, cen.Lat(), cen.Lon(), func(p Point) bool {
							return planar.MultiPolygonContains(toMulti(g), orb.Point{p.Lon, p.Lat})
						})
						checkResults(t, fmt.Sprintf("polygon %v", g), got, want)
						checkStats(t, st, got)
					}
					return nil
				})
			})
		}
	})
}

func toMulti(g orb.Geometry) orb.MultiPolygon {
	if p, ok := g.(orb.Polygon); ok {
		return orb.MultiPolygon{p}
	}
	return g.(orb.MultiPolygon)
}

func checkStats(t *testing.T, st Stats, got []Result) {
	t.Helper()
	if st.Results != len(got) || st.Candidates < len(got) || st.Candidates > 0 && st.Ranges == 0 {
		t.Fatalf("inconsistent stats %+v for %d results", st, len(got))
	}
}

func TestNearestAgainstBruteForce(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(13, 14))
		for _, set := range syntheticSets(r, 1500) {
			t.Run(set.name, func(t *testing.T) {
				ix := NewIndex(set.name)
				load(t, s, ix, set.points)
				s.View(func(tx keyspace.Tx) error {
					for q := 0; q < 200; q++ {
						lat, lon := r.Float64()*180-90, r.Float64()*360-180
						if q%2 == 0 {
							p := set.points[r.IntN(len(set.points))]
							lat, lon = p.Lat, p.Lon
						}
						if q%11 == 0 {
							lat = []float64{90, -90}[q%2]
						}
						k := []int{1, 10, 100, 2000}[r.IntN(4)]
						got, st, err := ix.Nearest(tx, lat, lon, k, nil)
						if err != nil {
							t.Fatal(err)
						}
						want := brute(set.points, lat, lon, func(Point) bool { return true })
						want = want[:min(k, len(want))]
						checkResults(t, fmt.Sprintf("%d nearest (%v, %v)", k, lat, lon), got, want)
						checkStats(t, st, got)
					}
					return nil
				})
			})
		}
	})
}

func TestNearestCandidates(t *testing.T) {
	// Clustered points: the target is fewer than 3k candidates read.
	r := rand.New(rand.NewPCG(15, 16))
	set := syntheticSets(r, 20_000)[1]
	s := keyspace.NewMemory()
	ix := NewIndex("c")
	load(t, s, ix, set.points)
	for _, k := range []int{10, 100} {
		var per []float64
		s.View(func(tx keyspace.Tx) error {
			for q := 0; q < 100; q++ {
				p := set.points[r.IntN(len(set.points))]
				_, st, err := ix.Nearest(tx, p.Lat+r.NormFloat64()*0.01, p.Lon+r.NormFloat64()*0.01, k, nil)
				if err != nil {
					t.Fatal(err)
				}
				per = append(per, float64(st.Candidates)/float64(k))
			}
			return nil
		})
		slices.Sort(per)
		t.Logf("k=%d: median %.2f·k candidates, p90 %.2f·k", k, per[len(per)/2], per[len(per)*9/10])
	}
}

// TestNearestFromAnEmptyGrid: when the query's own grid holds fewer than
// k points (no city lies within 11.25° of the north pole), the search's
// first bound comes from the other grids' points nearest the query, so it
// reads about the points near the answer, not the far side of the world.
// Each case's points are a sparse band near the answers and a dense
// cluster far away; the search must answer as brute force does and read
// fewer candidates than a tenth of the far points. (Seeded with the first
// k points of the other grids' key order, it read 3,000 of them at the
// north pole: its first bound spanned half the Earth, and the cells it
// scanned whole held the cluster.)
func TestNearestFromAnEmptyGrid(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	// far is a dense cluster (a continent's cities), a few points at the
	// start of the geohash grid's key order (its south-west corner) and a
	// few in the other cap (whose key order starts at a corner too).
	far := func(minLat, maxLat, otherCap float64) []Point {
		return slices.Concat(randomArea(r, "far", 3000, minLat, maxLat, 0, 20),
			randomArea(r, "corner", 10, -CapLatitude+0.01, -70, -180, -170),
			randomArea(r, "cap", 10, otherCap, otherCap+1, -150, -120))
	}
	cases := []struct {
		name      string
		near, far []Point
		queries   [][2]float64
	}{
		{"north cap holds too few", randomArea(r, "near", 200, 65, CapLatitude-0.01, -180, 180), far(40, 55, -89),
			[][2]float64{{90, 0}, {85, 100}, {79, 10}, {80, -45}}},
		{"south cap holds too few", randomArea(r, "near", 200, -CapLatitude+0.01, -65, -180, 180), far(-55, -40, CapLatitude+0.5),
			[][2]float64{{-90, 0}, {-80, 10}, {-88, -120}}},
	}
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				ix := NewIndex(strings.ReplaceAll(c.name, " ", "-"))
				points := append(slices.Clone(c.near), c.far...)
				load(t, s, ix, points)
				s.View(func(tx keyspace.Tx) error {
					for _, q := range c.queries {
						for _, k := range []int{1, 3, 10} {
							what := fmt.Sprintf("%d nearest (%v, %v)", k, q[0], q[1])
							got, st, err := ix.Nearest(tx, q[0], q[1], k, nil)
							if err != nil {
								t.Fatal(err)
							}
							want := brute(points, q[0], q[1], func(Point) bool { return true })[:k]
							checkResults(t, what, got, want)
							checkStats(t, st, got)
							if st.Candidates >= len(c.far)/10 {
								t.Errorf("%s: %d candidates read, of %d points near and %d far", what, st.Candidates, len(c.near), len(c.far))
							}
						}
					}
					return nil
				})
			})
		}
	})
}

// randomArea is n points spread evenly in latitude and longitude over
// [minLat, maxLat] × [minLon, maxLon], with ids prefix0, prefix1, ….
func randomArea(r *rand.Rand, prefix string, n int, minLat, maxLat, minLon, maxLon float64) []Point {
	pts := make([]Point, n)
	for i := range pts {
		pts[i] = Point{ID: fmt.Sprintf("%s%d", prefix, i), Lat: minLat + r.Float64()*(maxLat-minLat), Lon: minLon + r.Float64()*(maxLon-minLon)}
	}
	return pts
}

// TestPolarCirclesReadNearThemselves: a circle around a pole that reaches
// past the cap's edge, or a large one across ±180°, is covered from the
// three grids' roots. Its covering must spend its cells where the circle
// is, not read the mid-latitudes: with the cells shared out by bits
// between the grids, a 1,500 km circle around the north pole was covered
// by four geohash cells of 90° × 45° and read every point north of 45°;
// and a 2,127 km circle at 82° that reaches round the cap needs the
// budget of a circle of WideRadius or more (with 16 cells it read 2,244
// points here). The circles are far from a dense cluster at 40–55°; each
// must find what brute force finds and read fewer candidates than a tenth
// of the cluster.
func TestPolarCirclesReadNearThemselves(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	cluster := slices.Concat(randomArea(r, "n", 3000, 40, 55, 0, 20), randomArea(r, "s", 3000, -55, -40, 0, 20))
	points := slices.Concat(cluster,
		randomArea(r, "arctic", 300, 60, 89, -180, 180), randomArea(r, "antarctic", 300, -89, -60, -180, 180))
	circles := []struct{ lat, lon, metres float64 }{
		{90, 0, 1_500_000}, {89.9, 0, 1_300_000}, {85, 100, 1_000_000}, {70, 179, 2_500_000}, {82.23, 22.38, 2_127_000},
		{-90, 0, 1_500_000}, {-80, -60, 1_200_000}, {-70, -179, 2_500_000},
	}
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		ix := NewIndex("polar")
		load(t, s, ix, points)
		s.View(func(tx keyspace.Tx) error {
			for _, c := range circles {
				what := fmt.Sprintf("radius %g km at (%v, %v)", c.metres/1000, c.lat, c.lon)
				got, st, err := ix.Radius(tx, c.lat, c.lon, c.metres, nil)
				if err != nil {
					t.Fatal(err)
				}
				checkResults(t, what, got, bruteRadius(points, c.lat, c.lon, c.metres))
				checkStats(t, st, got)
				if st.Candidates >= len(cluster)/10 {
					t.Errorf("%s: %d candidates read for %d results", what, st.Candidates, len(got))
				}
			}
			return nil
		})
	})
}

func TestNearestSmallAndEmpty(t *testing.T) {
	s := keyspace.NewMemory()
	ix := NewIndex("x")
	s.View(func(tx keyspace.Tx) error {
		got, _, err := ix.Nearest(tx, 0, 0, 5, nil)
		if err != nil || len(got) != 0 {
			t.Errorf("empty index: %v, %v", got, err)
		}
		return nil
	})
	pts := []Point{{ID: "b", Lat: 1, Lon: 1}, {ID: "a", Lat: 1, Lon: 1}, {ID: "c", Lat: -1, Lon: 179.9}}
	load(t, s, ix, pts)
	s.View(func(tx keyspace.Tx) error {
		got, _, err := ix.Nearest(tx, 0, -179.9, 10, nil)
		checkResults(t, "3 points, k 10", got, brute(pts, 0, -179.9, func(Point) bool { return true }))
		return err
	})
}

func TestQueryBadInput(t *testing.T) {
	s := keyspace.NewMemory()
	ix := NewIndex("x")
	square := orb.Ring{{0, 0}, {1, 0}, {1, 1}, {0, 1}, {0, 0}}
	// Every error is also read as a person would: it names the package
	// and the index once, not "geo: index x: geo: …".
	var errs []error
	seen := func(err error) error { errs = append(errs, err); return err }
	s.View(func(tx keyspace.Tx) error {
		for _, k := range []int{0, -1} {
			if _, _, err := ix.Nearest(tx, 0, 0, k, nil); !errors.Is(seen(err), ErrBadQuery) {
				t.Errorf("Nearest(k=%d) = %v, want ErrBadQuery", k, err)
			}
		}
		if _, _, err := ix.Nearest(tx, math.NaN(), 0, 1, nil); !errors.Is(seen(err), ErrInvalidPoint) {
			t.Errorf("Nearest(NaN) = %v", err)
		}
		if _, _, err := ix.Nearest(tx, 0, 0, 1, &QueryOptions{FarthestFirst: true}); !errors.Is(seen(err), ErrBadQuery) || !strings.Contains(err.Error(), "farthest") {
			t.Errorf("Nearest farthest first = %v, want ErrBadQuery", err)
		}
		for _, b := range []Box{{MinLat: 10, MaxLat: 5}, {MinLat: -91, MaxLat: 0}, {MaxLon: 181}} {
			if _, _, err := ix.Box(tx, b, nil); !errors.Is(seen(err), ErrBadQuery) && !errors.Is(err, ErrInvalidPoint) {
				t.Errorf("Box(%+v) = %v, want a clear error", b, err)
			}
		}
		for _, wh := range [][2]float64{{-1, 1}, {1, math.NaN()}, {math.Inf(1), 1}} {
			if _, _, err := ix.BoxAround(tx, 0, 0, wh[0], wh[1], nil); !errors.Is(seen(err), ErrBadQuery) {
				t.Errorf("BoxAround(%v) = %v, want ErrBadQuery", wh, err)
			}
		}
		bad := map[string]orb.Geometry{
			"unclosed":      orb.Polygon{square[:4]},
			"too short":     orb.Polygon{{{0, 0}, {1, 1}, {0, 0}}},
			"self-crossing": orb.Polygon{{{0, 0}, {1, 1}, {1, 0}, {0, 1}, {0, 0}}},
			"hole crossing": orb.Polygon{square, {{0.5, 0.5}, {2, 0.5}, {0.5, 0.7}, {0.5, 0.5}}},
			"latitude 91":   orb.Polygon{{{0, 0}, {1, 91}, {1, 0}, {0, 0}}},
			"no rings":      orb.Polygon{},
			"one position":  orb.Polygon{{{1, 1}, {1, 1}, {1, 1}, {1, 1}}},
			"a point":       orb.Point{1, 2},
			"nil":           nil,
		}
		for name, g := range bad {
			if _, _, err := ix.Within(tx, g, nil); !errors.Is(seen(err), ErrBadPolygon) {
				t.Errorf("Within(%s) = %v, want ErrBadPolygon", name, err)
			}
		}
		// A scope no key can hold is a bad query, in every kind of
		// query (they panicked packing it).
		far := time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)
		for _, scope := range []composite.Tuple{{far}, {struct{}{}}} {
			o := &QueryOptions{Scope: scope}
			for name, ask := range map[string]func() error{
				"Radius":          func() error { _, _, err := ix.Radius(tx, 0, 0, 1000, o); return err },
				"RadiusFixedGrid": func() error { _, _, err := ix.RadiusFixedGrid(tx, 0, 0, 1000, o); return err },
				"Box":             func() error { _, _, err := ix.Box(tx, Box{MaxLat: 1, MaxLon: 1}, o); return err },
				"Nearest":         func() error { _, _, err := ix.Nearest(tx, 0, 0, 3, o); return err },
			} {
				if err := ask(); !errors.Is(seen(err), ErrBadQuery) {
					t.Errorf("%s with scope %v = %v, want ErrBadQuery", name, scope, err)
				}
			}
		}
		// Repeated positions and a hole are fine.
		ok := orb.Polygon{{{0, 0}, {1, 0}, {1, 0}, {1, 1}, {0, 1}, {0, 0}}, {{0.2, 0.2}, {0.4, 0.2}, {0.4, 0.4}, {0.2, 0.2}}}
		if _, _, err := ix.Within(tx, ok, nil); err != nil {
			t.Errorf("Within(valid polygon) = %v", err)
		}
		return nil
	})
	s.Update(func(tx keyspace.Tx) error {
		// An id too long for a key is refused, and the message quotes
		// only its start.
		huge := strings.Repeat("z", 40000)
		for name, err := range map[string]error{
			"Put":    ix.Put(tx, Point{ID: huge}),
			"PutAll": ix.PutAll(tx, []Point{{ID: huge}}),
			"Get":    func() error { _, err := ix.Get(tx, huge); return err }(),
			"Delete": ix.Delete(tx, huge),
		} {
			if !errors.Is(seen(err), keyspace.ErrKeyTooLarge) || len(err.Error()) > 200 || !strings.Contains(err.Error(), "bytes)") {
				t.Errorf("%s of a 40,000-byte id = %.300v; want ErrKeyTooLarge, briefly", name, err)
			}
		}
		for _, p := range []Point{{ID: "a", Lat: 91}, {ID: "a", Lon: math.Inf(-1)}, {ID: ""}} {
			if err := ix.Put(tx, p); !errors.Is(seen(err), ErrInvalidPoint) && !errors.Is(err, ErrEmptyID) {
				t.Errorf("Put(%+v) = %v, want a clear error", p, err)
			}
			if err := ix.PutAll(tx, []Point{{ID: "b"}, p}); !errors.Is(seen(err), ErrInvalidPoint) && !errors.Is(err, ErrEmptyID) {
				t.Errorf("PutAll(%+v) = %v, want a clear error", p, err)
			}
		}
		return nil
	})
	for _, err := range errs {
		if msg := err.Error(); !strings.HasPrefix(msg, "geo: index x: ") || strings.Count(msg, "geo: ") != 1 {
			t.Errorf("error %q does not name the package and the index once", msg)
		}
	}
}

// TestEveryQueryOnCities runs every query kind around real cities against
// brute force.
func TestEveryQueryOnCities(t *testing.T) {
	s, ix, points := loadCities(t)
	r := rand.New(rand.NewPCG(17, 18))
	all := func(Point) bool { return true }
	s.View(func(tx keyspace.Tx) error {
		for q := 0; q < 40; q++ { // each brute force sorts 150,000 cities
			c := points[r.IntN(len(points))]
			k := []int{1, 10, 100}[q%3]
			got, _, err := ix.Nearest(tx, c.Lat, c.Lon, k, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkResults(t, fmt.Sprintf("%d nearest %s", k, c.ID), got, brute(points, c.Lat, c.Lon, all)[:k])

			b := Box{MinLat: c.Lat - r.Float64(), MaxLat: c.Lat + r.Float64(), MinLon: wrap(c.Lon - 2*r.Float64()), MaxLon: wrap(c.Lon + 2*r.Float64())}
			b.MinLat, b.MaxLat = math.Max(-90, b.MinLat), math.Min(90, b.MaxLat)
			got, _, err = ix.Box(tx, b, nil)
			if err != nil {
				t.Fatal(err)
			}
			lat, lon := b.centre()
			checkResults(t, fmt.Sprintf("box %+v", b), got, brute(points, lat, lon, func(p Point) bool { return bruteInBox(b, p) }))

			poly := star(r, c.Lat, c.Lon, r.Float64(), q%2 == 0)
			got, _, err = ix.Within(tx, poly, nil)
			if err != nil {
				t.Fatal(err)
			}
			cen, _ := planar.CentroidArea(poly)
			checkResults(t, "polygon", got, brute(points, cen.Lat(), cen.Lon(), func(p Point) bool {
				return planar.PolygonContains(poly, orb.Point{p.Lon, p.Lat})
			}))
		}
		return nil
	})
}

// TestPutAllMovesAndReplaces: a bulk write into a non-empty index moves
// existing points (no stale keys), takes the last of duplicate ids, and a
// bad point writes nothing.
func TestPutAllMovesAndReplaces(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		ix := NewIndex("bulk")
		load(t, s, ix, []Point{{ID: "a", Lat: 1, Lon: 1}, {ID: "b", Lat: 2, Lon: 2, Scope: []any{"x"}}})
		batch := []Point{{ID: "a", Lat: 10, Lon: 10}, {ID: "b", Lat: 20, Lon: 20}, {ID: "c", Lat: 3, Lon: 3}, {ID: "c", Lat: 30, Lon: 30}}
		if err := s.Update(func(tx keyspace.Tx) error { return ix.PutAll(tx, batch) }); err != nil {
			t.Fatal(err)
		}
		err := s.Update(func(tx keyspace.Tx) error {
			return ix.PutAll(tx, []Point{{ID: "d", Lat: 5, Lon: 5}, {ID: "e", Lat: 95, Lon: 5}})
		})
		if !errors.Is(err, ErrInvalidPoint) {
			t.Errorf("bad point in a batch: %v", err)
		}
		s.View(func(tx keyspace.Tx) error {
			want := map[string][2]float64{"a": {10, 10}, "b": {20, 20}, "c": {30, 30}}
			for id, ll := range want {
				p, err := ix.Get(tx, id)
				if err != nil || p.Lat != ll[0] || p.Lon != ll[1] || len(p.Scope) != 0 {
					t.Errorf("Get(%s) = %+v, %v", id, p, err)
				}
			}
			if _, err := ix.Get(tx, "d"); !errors.Is(err, keyspace.ErrNotFound) {
				t.Errorf("d from the refused batch: %v", err)
			}
			if problems, err := ix.Verify(tx); err != nil || len(problems) != 0 {
				t.Errorf("verify: %v %v", problems, err)
			}
			n := 0
			n += countPointKeys(tx, ix)
			if n != 3 {
				t.Errorf("%d point keys, want 3", n)
			}
			return nil
		})
	})
}

// TestScopedQueriesAgainstBruteForce: points under several scopes (and
// none), ids with zero bytes and separators; every query under a scope finds
// exactly the brute-force answer among that scope's points, and each result
// carries the point's scope, id and payload.
func TestScopedQueriesAgainstBruteForce(t *testing.T) {
	scopes := []composite.Tuple{nil, {"CA"}, {"CA", "San Francisco"}, {"CA", int64(7)}, {"x\x00y:z"}}
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(21, 22))
		ix := NewIndex("scoped")
		var points []Point
		for i := range 3000 {
			lat, lon := r.NormFloat64()*3+37, r.NormFloat64()*3-122
			if i%10 == 0 {
				lat, lon = r.Float64()*180-90, r.Float64()*360-180
			}
			points = append(points, Point{ID: fmt.Sprintf("u\x00%d:%d", i%7, i), Lat: lat, Lon: lon,
				Scope: scopes[r.IntN(len(scopes))], Payload: []byte{byte(i), 0}})
		}
		if err := s.Update(func(tx keyspace.Tx) error { return ix.PutAll(tx, points) }); err != nil {
			t.Fatal(err)
		}
		byID := map[string]Point{}
		for _, p := range points {
			byID[p.ID] = p
		}
		sameScope := func(a, b composite.Tuple) bool { return string(a.Pack()) == string(b.Pack()) }
		check := func(what string, scope composite.Tuple, got, want []Result) {
			t.Helper()
			checkResults(t, what, got, want)
			for _, g := range got {
				p := byID[g.ID]
				if !sameScope(g.Scope, p.Scope) || g.Lat != p.Lat || g.Lon != p.Lon || string(g.Payload) != string(p.Payload) {
					t.Fatalf("%s: result %+v, stored %+v", what, g.Point, p)
				}
			}
		}
		s.View(func(tx keyspace.Tx) error {
			for q := range 60 {
				scope := scopes[q%len(scopes)]
				in := func(p Point) bool { return sameScope(p.Scope, scope) }
				p := points[r.IntN(len(points))]
				radius := []float64{1000, 50_000, 500_000}[q%3]
				opts := &QueryOptions{Scope: scope}
				got, _, err := ix.Radius(tx, p.Lat, p.Lon, radius, opts)
				if err != nil {
					t.Fatal(err)
				}
				check(fmt.Sprintf("radius %g m under %v", radius, scope), scope, got,
					brute(points, p.Lat, p.Lon, func(o Point) bool { return in(o) && Distance(p.Lat, p.Lon, o.Lat, o.Lon) <= radius }))
				b := randomBox(r)
				got, _, err = ix.Box(tx, b, opts)
				if err != nil {
					t.Fatal(err)
				}
				lat, lon := b.centre()
				check(fmt.Sprintf("box %+v under %v", b, scope), scope, got, brute(points, lat, lon, func(o Point) bool { return in(o) && bruteInBox(b, o) }))
				k := []int{1, 10, 100}[q%3]
				got, _, err = ix.Nearest(tx, p.Lat, p.Lon, k, opts)
				if err != nil {
					t.Fatal(err)
				}
				want := brute(points, p.Lat, p.Lon, in)
				check(fmt.Sprintf("%d nearest under %v", k, scope), scope, got, want[:min(k, len(want))])
			}
			return nil
		})
	})
}

// TestPutAllMatchesPut: PutAll leaves exactly the keys and values that the
// same points put one at a time leave (a later duplicate wins in both), on
// an empty index and over existing points; points under several scopes,
// in both caps and on ±180°, with payloads and ids holding zero bytes and
// separators, ids sharing their first eight bytes, and (in later rounds)
// batches whose ids all share a prefix, some of them nothing more or that
// prefix and zero bytes; and a batch large enough to be built in several
// chunks at once.
func TestPutAllMatchesPut(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	scopes := []composite.Tuple{nil, {"CA"}, {"CA", int64(7)}, {"a\x00b"}, {nil}}
	idPrefixes := [][]string{
		{"longprefix-", "x\x00", "a:b", ""},
		{"shared-prefix-"},
		{"same\x00", "same\x00\x00", "same\x00\x001"},
	}
	batch := func(n, round int) []Point {
		var ps []Point
		for range n {
			lat, lon := r.Float64()*180-90, r.Float64()*360-180
			switch r.IntN(6) {
			case 0:
				lat = []float64{90, -90, 89.9, -85, 78.75, -78.75}[r.IntN(6)]
			case 1:
				lon = []float64{180, -180}[r.IntN(2)]
			}
			pre := idPrefixes[round%len(idPrefixes)]
			p := Point{ID: fmt.Sprintf("%s%d", pre[r.IntN(len(pre))], r.IntN(n)), Lat: lat, Lon: lon,
				Scope: scopes[r.IntN(len(scopes))]}
			if round == 2 && r.IntN(5) == 0 {
				p.ID = pre[r.IntN(len(pre))] // the shared prefix and no more
			}
			if r.IntN(3) == 0 {
				p.Payload = []byte{0, byte(r.IntN(256)), ':'}
			}
			ps = append(ps, p)
		}
		return ps
	}
	dump := func(s keyspace.Store) map[string]string {
		m := map[string]string{}
		s.View(func(tx keyspace.Tx) error {
			for k, v := range tx.Scan(keyspace.Range{}) {
				m[string(k)] = string(v)
			}
			return nil
		})
		return m
	}
	for _, be := range storetest.Backends() {
		t.Run(be.Name, func(t *testing.T) {
			bulk, single := be.Open(t), be.Open(t)
			ix := NewIndex("same")
			// The first round is on an empty index; the last is large
			// enough that PutAll builds its writes in several chunks on
			// several workers.
			for round, n := range []int{400, 400, 400, 3 * pairChunk / 2} {
				ps := batch(n, round)
				if err := bulk.Update(func(tx keyspace.Tx) error { return ix.PutAll(tx, ps) }); err != nil {
					t.Fatal(err)
				}
				load(t, single, ix, ps)
				got, want := dump(bulk), dump(single)
				if len(got) != len(want) {
					t.Fatalf("round %d: PutAll left %d keys, Put %d", round, len(got), len(want))
				}
				for k, v := range want {
					if got[k] != v {
						t.Fatalf("round %d: key %q is %q after PutAll, %q after Put", round, k, got[k], v)
					}
				}
			}
		})
	}
}

// TestCorruptPointKeyIsAnError: a key in a scanned range that is not
// (scope, hash, id) — an integer where the id should be, or bytes after
// the id — makes the query fail with an error naming the key, not panic or
// return a made-up point.
func TestCorruptPointKeyIsAnError(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		ix := NewIndex("bad")
		load(t, s, ix, []Point{{ID: "good", Lat: 10, Lon: 10}})
		_, h := locate(10.001, 10.001)
		value := appendValue(nil, &Point{Lat: 10.001, Lon: 10.001}, 0)
		for _, tail := range []composite.Tuple{{int64(5)}, {"x", "extra"}} {
			key := ix.points[geohashGrid].Pack(append(composite.Tuple{composite.Tuple{}, h}, tail...))
			if err := s.Update(func(tx keyspace.Tx) error { return tx.Put(key, value) }); err != nil {
				t.Fatal(err)
			}
			s.View(func(tx keyspace.Tx) error {
				if _, _, err := ix.Radius(tx, 10, 10, 5000, nil); err == nil || !strings.Contains(err.Error(), "corrupt point key") {
					t.Errorf("tail %v: Radius = %v, want a corrupt key error", tail, err)
				}
				return nil
			})
			if err := s.Update(func(tx keyspace.Tx) error { return tx.Delete(key) }); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestQueryInto: every query kind given an Into buffer returns what it
// returns without one, in the buffer's array when it has room (whatever
// the buffer held before, payloads included) and in a new one when not.
func TestQueryInto(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	var points []Point
	for i := range 2000 {
		p := Point{ID: fmt.Sprintf("p%d", i), Lat: 40 + r.Float64(), Lon: -74 + r.Float64()}
		if i%3 == 0 {
			p.Payload = []byte(p.ID)
		}
		points = append(points, p)
	}
	s := keyspace.NewMemory()
	ix := NewIndex("into")
	load(t, s, ix, points)
	stale := Result{Point: Point{ID: "stale", Lat: 1, Lon: 2, Payload: []byte("stale")}, Distance: 3}
	poly := star(r, 40.5, -73.5, 0.1, false)
	queries := map[string]func(tx keyspace.Tx, o *QueryOptions) ([]Result, Stats, error){
		"radius": func(tx keyspace.Tx, o *QueryOptions) ([]Result, Stats, error) {
			return ix.Radius(tx, 40.5, -73.5, 5000, o)
		},
		"radius, limit": func(tx keyspace.Tx, o *QueryOptions) ([]Result, Stats, error) {
			o.Limit = 7
			return ix.Radius(tx, 40.5, -73.5, 20000, o)
		},
		"box": func(tx keyspace.Tx, o *QueryOptions) ([]Result, Stats, error) {
			return ix.Box(tx, Box{MinLat: 40.2, MaxLat: 40.3, MinLon: -73.9, MaxLon: -73.7}, o)
		},
		"polygon": func(tx keyspace.Tx, o *QueryOptions) ([]Result, Stats, error) {
			return ix.Within(tx, poly, o)
		},
		"nearest": func(tx keyspace.Tx, o *QueryOptions) ([]Result, Stats, error) {
			return ix.Nearest(tx, 40.5, -73.5, 25, o)
		},
		"empty": func(tx keyspace.Tx, o *QueryOptions) ([]Result, Stats, error) {
			return ix.Radius(tx, -40, 100, 1000, o)
		},
	}
	s.View(func(tx keyspace.Tx) error {
		for name, query := range queries {
			want, _, err := query(tx, &QueryOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, room := range []int{0, max(0, len(want)-1), len(want), len(want) + 50} {
				buf := make([]Result, room)
				for i := range buf {
					buf[i] = stale
				}
				got, _, err := query(tx, &QueryOptions{Into: buf[:r.IntN(room+1)]})
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(slices.Clip(got), slices.Clip(want)) && (len(got) > 0 || len(want) > 0) {
					t.Fatalf("%s into %d: %v, without Into %v", name, room, got, want)
				}
				if shared := len(got) > 0 && room > 0 && &got[0] == &buf[0]; shared != (len(got) > 0 && room >= len(got)) {
					t.Fatalf("%s: %d results into room for %d: in Into's array %v", name, len(got), room, shared)
				}
			}
		}
		return nil
	})
}

// TestDistinctUpTo3 counts positions against a map of them, on rings
// drawn from a few positions so that repeats are common.
func TestDistinctUpTo3(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		ring := make(orb.Ring, r.IntN(8))
		for i := range ring {
			ring[i] = orb.Point{float64(r.IntN(3)), float64(r.IntN(2))}
		}
		seen := map[orb.Point]bool{}
		for _, p := range ring {
			seen[p] = true
		}
		if got, want := distinctUpTo3(ring), min(3, len(seen)); got != want {
			t.Fatalf("distinctUpTo3(%v) = %d, want %d", ring, got, want)
		}
	}
}

// TestPointsJustBelowCellEdges: points an ulp or so below a cell's edge,
// which float64 arithmetic once hashed into the cell above, are found by
// boxes whose top edge is the point's own latitude or longitude (edges
// included), as brute force finds them.
func TestPointsJustBelowCellEdges(t *testing.T) {
	s := keyspace.NewMemory()
	ix := NewIndex("edges")
	var points []Point
	for _, edge := range []float64{39.375, 45, 22.5, -11.25, 0.703125, 67.5} {
		for ulps := 1; ulps <= 4; ulps++ {
			lat := edge
			for range ulps {
				lat = math.Nextafter(lat, -90)
			}
			for _, lon := range []float64{180, -180, 0, math.Nextafter(90, -180), 123.75} {
				points = append(points, Point{ID: fmt.Sprint(lat, "/", lon), Lat: lat, Lon: lon})
			}
		}
	}
	if err := s.Update(func(tx keyspace.Tx) error { return ix.PutAll(tx, points) }); err != nil {
		t.Fatal(err)
	}
	s.View(func(tx keyspace.Tx) error {
		for _, p := range points {
			for _, b := range []Box{
				{MinLat: p.Lat - 1, MaxLat: p.Lat, MinLon: p.Lon - 1, MaxLon: p.Lon}, // the point at the top right corner
				{MinLat: p.Lat - 1, MaxLat: p.Lat, MinLon: p.Lon, MaxLon: p.Lon},
			} {
				if b.MinLon < -180 {
					b.MinLon = -180
				}
				got, _, err := ix.Box(tx, b, nil)
				if err != nil {
					t.Fatal(err)
				}
				var want []string
				for _, q := range points {
					if bruteInBox(b, q) {
						want = append(want, q.ID)
					}
				}
				var ids []string
				for _, r := range got {
					ids = append(ids, r.ID)
				}
				slices.Sort(ids)
				slices.Sort(want)
				if !slices.Equal(ids, want) {
					t.Errorf("Box(%+v) = %v, want %v", b, ids, want)
				}
			}
		}
		return nil
	})
}

// farthestOf is results, nearest first, farthest first, ties by id.
func farthestOf(results []Result) []Result {
	far := slices.Clone(results)
	slices.SortStableFunc(far, func(a, b Result) int { return cmp.Or(cmp.Compare(b.Distance, a.Distance), cmp.Compare(a.ID, b.ID)) })
	return far
}

// TestFarthestReadsOn: a query for the farthest few of a circle that
// holds a little more than its read budget reads on past the budget
// (candidates.resume): it answers as brute force does, and its Stats are
// those of the whole circle read once, the candidate the budget stopped
// at not counted twice. A circle that holds many times the budget is
// still answered by the branch and bound, which covers it again (more
// ranges than the circle's own) and reads fewer candidates than it holds.
func TestFarthestReadsOn(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		// Points spread evenly over a square of about 20 km, so that the
		// budget's estimate of what the circle holds is near the truth.
		r := rand.New(rand.NewPCG(5, 6))
		var points []Point
		for i := range 3000 {
			points = append(points, Point{ID: fmt.Sprintf("p%04d", i), Lat: 45 + r.Float64()*0.2, Lon: 7 + r.Float64()*0.28})
		}
		ix := NewIndex("far")
		if err := s.Update(func(tx keyspace.Tx) error { return ix.PutAll(tx, points) }); err != nil {
			t.Fatal(err)
		}
		lat, lon, radius := 45.1, 7.14, 6000.0
		all := brute(points, lat, lon, func(p Point) bool { return Distance(lat, lon, p.Lat, p.Lon) <= radius })
		want := farthestOf(all)[:10]
		s.View(func(tx keyspace.Tx) error {
			_, whole, err := ix.Radius(tx, lat, lon, radius, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				budget int
				readOn bool
			}{
				{whole.Candidates * 3 / 4, true},    // read on to the end
				{whole.Candidates * 55 / 100, true}, // still within twice the budget
				{whole.Candidates / 8, false},       // the branch and bound
			} {
				got, st, err := ix.Radius(tx, lat, lon, radius, &QueryOptions{Limit: 10, FarthestFirst: true, readBudget: tc.budget})
				if err != nil {
					t.Fatal(err)
				}
				checkResults(t, fmt.Sprintf("budget %d of %d", tc.budget, whole.Candidates), got, want)
				readOn := st.Candidates == whole.Candidates && st.Ranges == whole.Ranges && st.Cells == whole.Cells
				if readOn != tc.readOn {
					t.Errorf("budget %d of the circle's %d candidates: read on %v (Stats %+v, the whole circle's %+v), want %v",
						tc.budget, whole.Candidates, readOn, st, whole, tc.readOn)
				}
				if !tc.readOn && st.Candidates >= whole.Candidates {
					t.Errorf("budget %d: the branch and bound read %d candidates, the circle holds %d", tc.budget, st.Candidates, whole.Candidates)
				}
			}
			return nil
		})
	})
}

// TestLimitAsksNearest: a radius or box query for the nearest Limit
// points finds brute force's first Limit points of the region, on every
// data set (the poles, the antimeridian, points on one spot), with a
// filter and with expired points, whether it reads the whole region or,
// once that has cost what the k-nearest search would, asks that search
// held within the region. A region that holds far more than Limit points
// costs a few times Limit candidates, not the region.
func TestLimitAsksNearest(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(91, 92))
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		for _, set := range syntheticSets(r, 6000) {
			t.Run(set.name, func(t *testing.T) {
				ix := NewIndex("limit-" + set.name)
				for i := range set.points {
					set.points[i].Payload = []byte{byte(i % 3)}
					if i%17 == 0 {
						set.points[i].Expires = now.Add(-time.Hour)
					}
				}
				load(t, s, ix, set.points)
				live := func(p Point) bool { return p.Expires.IsZero() || p.Expires.After(now) }
				keep := func(p Point) bool { return p.Payload[0] != 1 }
				var switched, wholeCost, limitCost int // circles'
				var boxWhole, boxLimit int
				var farWhole, farLimit int // circles' read whole, and their farthest Limit
				s.View(func(tx keyspace.Tx) error {
					for q := range 60 {
						c := set.points[r.IntN(len(set.points))]
						radius := []float64{0, 500, 20_000, 300_000, 3_000_000, 20_000_000}[q%6]
						limit := []int{1, 10, 100}[q%3]
						var filter func(Point) bool
						match := live
						if q%4 == 0 {
							filter = keep
							match = func(p Point) bool { return live(p) && keep(p) }
						}
						all := brute(set.points, c.Lat, c.Lon, func(p Point) bool {
							return match(p) && Distance(c.Lat, c.Lon, p.Lat, p.Lon) <= radius
						})
						got, st, err := ix.Radius(tx, c.Lat, c.Lon, radius, &QueryOptions{Limit: limit, Filter: filter, Now: now})
						if err != nil {
							t.Fatal(err)
						}
						checkResults(t, fmt.Sprintf("%g m, limit %d", radius, limit), got, all[:min(limit, len(all))])
						_, whole, err := ix.Radius(tx, c.Lat, c.Lon, radius, &QueryOptions{Filter: filter, Now: now})
						if err != nil {
							t.Fatal(err)
						}
						if whole.Candidates > readBudget(limit) {
							switched++
							wholeCost += whole.Candidates
							limitCost += st.Candidates
						}
						// The farthest Limit (the branch and bound over
						// the circle's cells, greatest distance first).
						farthest := farthestOf(all)
						got, st, err = ix.Radius(tx, c.Lat, c.Lon, radius, &QueryOptions{Limit: limit, Filter: filter, Now: now, FarthestFirst: true})
						if err != nil {
							t.Fatal(err)
						}
						checkResults(t, fmt.Sprintf("%g m, the %d farthest", radius, limit), got, farthest[:min(limit, len(farthest))])
						if whole.Candidates > 4*readBudget(limit) {
							farWhole += whole.Candidates
							farLimit += st.Candidates
						}
						// The box around the circle, across ±180° or
						// round the pole where the circle reaches.
						b := CircleBounds(c.Lat, c.Lon, radius)
						bLat, bLon := b.centre()
						inBox := brute(set.points, bLat, bLon, func(p Point) bool { return match(p) && bruteInBox(b, p) })
						got, st, err = ix.Box(tx, b, &QueryOptions{Limit: limit, Filter: filter, Now: now})
						if err != nil {
							t.Fatal(err)
						}
						checkResults(t, fmt.Sprintf("box %+v, limit %d", b, limit), got, inBox[:min(limit, len(inBox))])
						if _, whole, _ := ix.Box(tx, b, &QueryOptions{Filter: filter, Now: now}); whole.Candidates > readBudget(limit) {
							boxWhole += whole.Candidates
							boxLimit += st.Candidates
						}
						// And the box's farthest from its centre.
						farthest = farthestOf(inBox)
						got, _, err = ix.Box(tx, b, &QueryOptions{Limit: limit, Filter: filter, Now: now, FarthestFirst: true})
						if err != nil {
							t.Fatal(err)
						}
						checkResults(t, fmt.Sprintf("box %+v, the %d farthest", b, limit), got, farthest[:min(limit, len(farthest))])
					}
					return nil
				})
				if set.name != "duplicates" && (switched == 0 || limitCost*3 > wholeCost) {
					t.Errorf("%d queries asked the k-nearest search, reading %d candidates against %d for their whole circles", switched, limitCost, wholeCost)
				}
				// A box's bound on its farthest point is looser than a
				// circle's radius (round a pole, the whole sphere), and its
				// centre may lie far from its points: less gained, but no loss.
				if set.name != "duplicates" && boxLimit > boxWhole {
					t.Errorf("boxes with a limit read %d candidates against %d for the whole boxes", boxLimit, boxWhole)
				}
				// The farthest few of a circle that holds many more lie
				// along its edge: the read budget and then a band of cells
				// along the edge are read, not the circle (the band's
				// cells are wide where the circle holds few points, when
				// a seek costs more than the candidates it saves).
				t.Logf("the farthest Limit of circles holding many more read %d candidates; the circles %d", farLimit, farWhole)
				if set.name != "duplicates" && farLimit >= farWhole {
					t.Errorf("the farthest Limit of circles read %d candidates against %d for the whole circles", farLimit, farWhole)
				}
			})
		}
	})
}

// TestWithinManyVertices: polygons of 40 to 3,000 positions (an outer
// ring of a star's wavering radius, a hole of the same kind, and a second
// polygon), whose rings are cast against through their longitude bands
// (ringIndex), find what orb's planar.MultiPolygonContains finds among
// 20,000 points, among them points on vertices and on edges' midpoints.
func TestWithinManyVertices(t *testing.T) {
	r := rand.New(rand.NewPCG(93, 94))
	var points []Point
	for i := range 20_000 {
		points = append(points, Point{ID: fmt.Sprint("p", i), Lat: r.Float64()*40 - 20, Lon: r.Float64()*60 - 30})
	}
	star := func(lat, lon, radius float64, n int, phase float64) orb.Ring {
		var ring orb.Ring
		for i := range n {
			a := 2 * math.Pi * float64(i) / float64(n)
			rr := radius * (1 + 0.3*math.Sin(7*a+phase) + 0.1*r.Float64())
			ring = append(ring, orb.Point{lon + rr*math.Cos(a)*1.5, lat + rr*math.Sin(a)})
		}
		return append(ring, ring[0])
	}
	s := keyspace.NewMemory()
	for _, n := range []int{40, 300, 3000} {
		ix := NewIndex(fmt.Sprint("many-", n))
		outer, hole := star(0, 0, 10, n, 0), star(1, 1, 3, n/2, 1)
		if n == 40 { // positions reversed: the other orientation
			slices.Reverse(hole)
		}
		mp := orb.MultiPolygon{{outer, hole}, {star(-15, 22, 3, n/3+4, 2)}}
		// Points exactly on vertices and on midpoints of edges, where the
		// ray casting's ties are.
		extra := []Point{}
		for i := 0; i+1 < len(outer); i += max(1, n/50) {
			a, b := outer[i], outer[i+1]
			extra = append(extra, Point{ID: fmt.Sprint("v", n, "-", i), Lat: a[1], Lon: a[0]},
				Point{ID: fmt.Sprint("m", n, "-", i), Lat: (a[1] + b[1]) / 2, Lon: (a[0] + b[0]) / 2})
		}
		all := append(slices.Clone(points), extra...)
		load(t, s, ix, all)
		c := withinCentre(mp)
		want := brute(all, c.Lat(), c.Lon(), func(p Point) bool { return planar.MultiPolygonContains(mp, orb.Point{p.Lon, p.Lat}) })
		if len(want) < 100 {
			t.Fatalf("%d positions: only %d points inside", n, len(want))
		}
		s.View(func(tx keyspace.Tx) error {
			got, _, err := ix.Within(tx, mp, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkResults(t, fmt.Sprintf("%d positions", n), got, want)
			return nil
		})
	}
}

// TestFencesStoredCrossingAtVertex: a polygon fence whose rings cross at
// a shared vertex, which builds before session 37 stored, is read as
// stored (by the even-odd rule, as orb's planar test reads it), and
// Verify and Repair leave it be; Put refuses it now.
func TestFencesStoredCrossingAtVertex(t *testing.T) {
	bowTie := orb.Polygon{{{0, 0}, {1, 1}, {2, 2}, {2, 0}, {1, 1}, {0, 2}, {0, 0}}}
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		fs := NewFences("old")
		err := s.Update(func(tx keyspace.Tx) error {
			if err := fs.Put(tx, Fence{ID: "bow-tie", Polygon: bowTie}); !errors.Is(err, ErrBadPolygon) || !strings.Contains(err.Error(), "the rings cross at [1 1]") {
				t.Errorf("Put: %v, want ErrBadPolygon naming [1 1]", err)
			}
			return fs.putAs(tx, Fence{ID: "bow-tie", Polygon: bowTie}, Fence.storedRegion)
		})
		if err != nil {
			t.Fatal(err)
		}
		err = s.Update(func(tx keyspace.Tx) error {
			for _, check := range []func(keyspace.Tx) ([]string, error){fs.Verify, fs.Repair} {
				if problems, err := check(tx); err != nil || len(problems) != 0 {
					t.Errorf("Verify or Repair: %v, %v", problems, err)
				}
			}
			inside := 0
			for i := range 25 {
				for j := range 25 {
					lat, lon := -0.2+float64(i)*0.1, -0.2+float64(j)*0.1
					held, err := fs.Containing(tx, lat, lon)
					if err != nil {
						return err
					}
					want := planar.PolygonContains(bowTie, orb.Point{lon, lat})
					if want {
						inside++
					}
					if (len(held) == 1) != want {
						t.Errorf("Containing(%v, %v) = %v; orb says %v", lat, lon, held, want)
					}
				}
			}
			if inside < 20 {
				t.Errorf("only %d points in the bow tie", inside)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

// TestPolygonsThroughVertices: a ring may pass straight through a vertex
// (three positions in a line, as real borders have), two polygons may
// touch at a vertex where their edges run in line, and a hole may touch
// its ring midway along a side; all are polygons Within and a fence
// take, answering as orb's planar test does. A ring that doubles back
// along itself, two polygons that share an edge, and a ring that passes
// through another's sides at its own vertices are still refused.
func TestPolygonsThroughVertices(t *testing.T) {
	good := map[string]orb.Geometry{
		"a square with a vertex midway along each side": orb.Polygon{{{0, 0}, {1, 0}, {2, 0}, {2, 1}, {2, 2}, {1, 2}, {0, 2}, {0, 1}, {0, 0}}},
		"two squares touching at a corner, in line":     orb.MultiPolygon{{{{0, 0}, {1, 0}, {1, 1}, {0, 1}, {0, 0}}}, {{{1, 1}, {2, 1}, {2, 2}, {1, 2}, {1, 1}}}},
		"a hole with three positions in a line":         orb.Polygon{{{0, 0}, {2, 0}, {2, 2}, {0, 2}, {0, 0}}, {{0.5, 0.5}, {1, 0.5}, {1.5, 0.5}, {1, 1.5}, {0.5, 0.5}}},
		"a hole touching its ring midway along a side":  orb.Polygon{{{0, 0}, {2, 0}, {2, 2}, {0, 2}, {0, 0}}, {{1, 0}, {1.5, 1}, {0.5, 1}, {1, 0}}},
		"a hole touching its ring at a corner":          orb.Polygon{{{0, 0}, {2, 0}, {2, 2}, {0, 2}, {0, 0}}, {{2, 2}, {1, 1.5}, {1.5, 1}, {2, 2}}},
		"a ring touching itself at a vertex":            orb.Polygon{{{0, 0}, {1, 0}, {1, 1}, {2, 1}, {2, 2}, {1, 2}, {1, 1}, {0, 1}, {0, 0}}},
		"a hole touching another at a vertex":           orb.Polygon{{{0, 0}, {4, 0}, {4, 4}, {0, 4}, {0, 0}}, {{1, 1}, {2, 2}, {1, 2}, {1, 1}}, {{2, 2}, {3, 2}, {3, 3}, {2, 2}}},
	}
	bad := map[string]orb.Geometry{
		"a ring doubling back":        orb.Polygon{{{0, 0}, {2, 0}, {1, 0}, {1, 1}, {0, 0}}},
		"two squares sharing an edge": orb.MultiPolygon{{{{0, 0}, {1, 0}, {1, 1}, {0, 1}, {0, 0}}}, {{{1, 0}, {2, 0}, {2, 1}, {1, 1}, {1, 0}}}},
		"a triangle in a line":        orb.Polygon{{{0, 0}, {1, 1}, {2, 2}, {0, 0}}},
		// It enters the square at its vertex (2, 1) on the square's side
		// and leaves at (1, 0): no two edges cross between vertices.
		"a polygon through another's sides at its vertices": orb.MultiPolygon{{{{0, 0}, {2, 0}, {2, 2}, {0, 2}, {0, 0}}}, {{{1, 0}, {1.5, -1}, {3, -1}, {3, 1}, {2, 1}, {1, 0}}}},
		// Refused since session 37: rings crossing where both have a vertex.
		"a bow tie crossing at a vertex":                  orb.Polygon{{{0, 0}, {1, 1}, {2, 2}, {2, 0}, {1, 1}, {0, 2}, {0, 0}}},
		"a hole out and back through its ring's vertices": orb.Polygon{{{0, 0}, {2, 0}, {2, 1}, {2, 2}, {0, 2}, {0, 0}}, {{1, 1}, {2, 1}, {3, 1.5}, {2, 2}, {1, 1}}},
		"polygons through each other at shared vertices":  orb.MultiPolygon{{{{0, 0}, {1, 0}, {2, 0}, {2, 2}, {1, 2}, {0, 2}, {0, 0}}}, {{{1, -1}, {3, -1}, {3, 3}, {1, 3}, {1, 2}, {1.5, 1}, {1, 0}, {1, -1}}}},
	}
	var points []Point
	for i := range 41 {
		for j := range 41 {
			points = append(points, Point{ID: fmt.Sprintf("p%02d-%02d", i, j), Lat: -0.5 + float64(i)*0.075, Lon: -0.5 + float64(j)*0.075})
		}
	}
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		ix := NewIndex("grid")
		load(t, s, ix, points)
		fs := NewFences("shapes")
		s.Update(func(tx keyspace.Tx) error {
			for name, g := range good {
				got, _, err := ix.Within(tx, g, nil)
				if err != nil {
					t.Fatalf("Within(%s): %v", name, err)
				}
				cen := withinCentre(g)
				want := brute(points, cen.Lat(), cen.Lon(), func(p Point) bool {
					return planar.MultiPolygonContains(toMulti(g), orb.Point{p.Lon, p.Lat})
				})
				checkResults(t, name, got, want)
				if err := fs.Put(tx, Fence{ID: name, Polygon: g}); err != nil {
					t.Fatalf("fence %s: %v", name, err)
				}
				for _, p := range points {
					held, err := fs.Containing(tx, p.Lat, p.Lon)
					if err != nil {
						t.Fatal(err)
					}
					if slices.Contains(held, name) != planar.MultiPolygonContains(toMulti(g), orb.Point{p.Lon, p.Lat}) {
						t.Fatalf("fence %s at %v, %v: Containing says %v", name, p.Lat, p.Lon, !slices.Contains(held, name))
					}
				}
			}
			for name, g := range bad {
				if _, _, err := ix.Within(tx, g, nil); !errors.Is(err, ErrBadPolygon) {
					t.Errorf("Within(%s) = %v, want ErrBadPolygon", name, err)
				}
			}
			return nil
		})
	})
}
