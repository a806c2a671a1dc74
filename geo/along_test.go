package geo

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/storetest"
	"github.com/paulmach/orb"
)

// vincenty is the great-circle distance in metres by the Vincenty form of
// the central angle (atan2 of the cross and dot products), a formula
// apart from the haversine the package measures with.
func vincenty(lat1, lon1, lat2, lon2 float64) float64 {
	φ1, φ2, dλ := rad(lat1), rad(lat2), rad(lon2-lon1)
	y := math.Hypot(math.Cos(φ2)*math.Sin(dλ), math.Cos(φ1)*math.Sin(φ2)-math.Sin(φ1)*math.Cos(φ2)*math.Cos(dλ))
	x := math.Sin(φ1)*math.Sin(φ2) + math.Cos(φ1)*math.Cos(φ2)*math.Cos(dλ)
	return EarthRadius * math.Atan2(y, x)
}

// bruteLineDistance is the oracle for Along: bounds lo ≤ d ≤ hi on the
// distance d from (lat, lon) to the nearest point of lines, their edges
// straight in latitude and longitude the shorter way round, found by a
// branch and bound that relies on nothing but the triangle inequality.
// Along an edge the distance changes by at most the ground length
// between two of its points; so on a piece of length ℓ between samples at distances a and
// b, no point is nearer than (a + b − ℓ)/2. Pieces are halved until that
// bound is within tol (and a millionth) of the nearest sample, or above
// cutoff (the caller only needs to know the point is farther than that).
func bruteLineDistance(lines orb.MultiLineString, lat, lon, tol, cutoff float64) (lo, hi float64) {
	type piece struct{ t0, t1, d0, d1 float64 }
	hi, lo = math.Inf(1), math.Inf(1)
	for _, ls := range lines {
		for i := 1; i < len(ls); i++ {
			point, length := oracleEdge(ls[i-1].Lat(), ls[i-1].Lon(), ls[i].Lat(), ls[i].Lon())
			at := func(t float64) float64 {
				plat, plon := point(t)
				return vincenty(lat, lon, plat, plon)
			}
			const start = 64
			var stack []piece
			prev := at(0)
			hi = min(hi, prev)
			if end := at(1); (prev+end-length(0, 1))/2 > cutoff { // the whole edge is beyond the cutoff
				hi, lo = min(hi, end), min(lo, (prev+end-length(0, 1))/2)
				continue
			}
			for k := 1; k <= start; k++ {
				d := at(float64(k) / start)
				hi = min(hi, d)
				stack = append(stack, piece{float64(k-1) / start, float64(k) / start, prev, d})
				prev = d
			}
			for len(stack) > 0 {
				p := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				ℓ := length(p.t0, p.t1)
				bound := (p.d0 + p.d1 - ℓ) / 2
				switch {
				case bound > hi || bound > cutoff:
					lo = min(lo, bound)
				case bound >= hi-(tol+1e-6*hi) || p.t1-p.t0 < 1e-15:
					lo = min(lo, bound)
				default:
					m := (p.t0 + p.t1) / 2
					dm := at(m)
					hi = min(hi, dm)
					stack = append(stack, piece{p.t0, m, p.d0, dm}, piece{m, p.t1, dm, p.d1})
				}
			}
		}
	}
	return min(lo, hi), hi
}

// oracleEdge is the edge from (lat0, lon0) to (lat1, lon1), straight in
// latitude and longitude the shorter way round (eastward when both are
// 180°), for the oracles, written apart from path.go: its point at t in
// [0, 1], longitude in [−180, 180], and length(t0, t1), a bound on its
// ground length from t0 to t1: ds² = R²(dφ² + cos²φ dλ²), and cos φ is
// at most its value at the stretch's latitude nearest the equator.
func oracleEdge(lat0, lon0, lat1, lon1 float64) (at func(t float64) (lat, lon float64), length func(t0, t1 float64) float64) {
	dLon := lon1 - lon0
	if dLon > 180 {
		dLon -= 360
	} else if dLon <= -180 {
		dLon += 360
	}
	at = func(t float64) (float64, float64) { return lat0 + t*(lat1-lat0), wrapLon(lon0 + t*dLon) }
	length = func(t0, t1 float64) float64 {
		a, b := lat0+t0*(lat1-lat0), lat0+t1*(lat1-lat0)
		nearest := min(math.Abs(a), math.Abs(b))
		if a*b <= 0 {
			nearest = 0
		}
		return math.Hypot(b-a, (t1-t0)*dLon*math.Cos(rad(nearest))) * math.Pi / 180 * EarthRadius
	}
	return at, length
}

// randomLine is a line of 2 to 6 positions from (lat, lon), each step
// in a random direction of a length drawn on a log scale from 10 m to
// 2,000 km, so that lines cross ±180° and pass near the poles.
func randomLine(r *rand.Rand, lat, lon float64) orb.LineString {
	n := 2 + r.IntN(5)
	ls := orb.LineString{{lon, lat}}
	for len(ls) < n {
		step := math.Exp(math.Log(10)+r.Float64()*(math.Log(2e6)-math.Log(10))) / EarthRadius * 180 / math.Pi
		a := r.Float64() * 2 * math.Pi
		lat = clamp(lat+step*math.Sin(a), -90, 90)
		lon = wrapLon(lon + step*math.Cos(a))
		if r.IntN(10) == 0 {
			lat, lon = ls[len(ls)-1].Lat(), ls[len(ls)-1].Lon() // a repeated position
		}
		ls = append(ls, orb.Point{lon, lat})
	}
	return ls
}

// checkAlong checks got, Along's answer for lines and radius, against
// bruteLineDistance over points (checkMeasured).
func checkAlong(t *testing.T, what string, points []Point, lines orb.MultiLineString, radius float64, got []Result) {
	t.Helper()
	checkMeasured(t, what, points, radius, got, func(p Point) (lo, hi float64) {
		return bruteLineDistance(lines, p.Lat, p.Lon, 1e-3, radius+1)
	})
}

// checkMeasured checks got, the answer of a query that measures from a
// line or a polygon, against oracle's bounds lo ≤ d ≤ hi on each point's
// distance: every point surely within the radius is found, none surely
// beyond it is, each at a distance within the oracle's bounds, nearest
// first and ties by id. Points within a millimetre of the radius either
// way may go either way.
func checkMeasured(t *testing.T, what string, points []Point, radius float64, got []Result, oracle func(p Point) (lo, hi float64)) {
	t.Helper()
	found := map[string]Result{}
	for i, g := range got {
		if _, twice := found[g.ID]; twice {
			t.Fatalf("%s: %s found twice", what, g.ID)
		}
		found[g.ID] = g
		if i > 0 && (got[i-1].Distance > g.Distance || got[i-1].Distance == g.Distance && got[i-1].ID > g.ID) {
			t.Fatalf("%s: result %d (%s at %v m) after %s at %v m", what, i, g.ID, g.Distance, got[i-1].ID, got[i-1].Distance)
		}
	}
	const tol = 1e-3
	type bounds struct{ lo, hi float64 }
	memo := map[[2]float64]bounds{} // the duplicates set has two positions
	for _, p := range points {
		b, ok := memo[[2]float64{p.Lat, p.Lon}]
		if !ok {
			b.lo, b.hi = oracle(p)
			memo[[2]float64{p.Lat, p.Lon}] = b
		}
		lo, hi := b.lo, b.hi
		g, ok := found[p.ID]
		switch {
		case ok && lo > radius+tol:
			t.Fatalf("%s: %s at (%v, %v) found at %v m, but it lies at least %v m away", what, p.ID, p.Lat, p.Lon, g.Distance, lo)
		case !ok && hi < radius-tol:
			t.Fatalf("%s: %s at (%v, %v), at most %v m away, not found", what, p.ID, p.Lat, p.Lon, hi)
		case ok && (g.Distance < lo-tol || g.Distance > hi+tol):
			t.Fatalf("%s: %s at %v m, brute force between %v and %v", what, p.ID, g.Distance, lo, hi)
		case ok && (g.Lat != p.Lat || g.Lon != p.Lon):
			t.Fatalf("%s: %s at (%v, %v), stored at (%v, %v)", what, p.ID, g.Lat, g.Lon, p.Lat, p.Lon)
		}
	}
}

func TestAlongAgainstBruteForce(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(41, 42))
		// The bbolt backend answers a few of the queries, which read its
		// ranges as they read memory's; the options are asked of memory.
		_, memory := s.(*keyspace.MemoryStore)
		queries := 20
		if !memory {
			queries = 5
		}
		for _, set := range syntheticSets(r, 300) {
			t.Run(set.name, func(t *testing.T) {
				ix := NewIndex(set.name)
				load(t, s, ix, set.points)
				radii := []float64{0, 10, 1000, 30_000, 300_000, 3_000_000}
				for q := range queries {
					p := set.points[r.IntN(len(set.points))]
					lines := orb.MultiLineString{randomLine(r, p.Lat, p.Lon)}
					if q%4 == 0 {
						p := set.points[r.IntN(len(set.points))]
						lines = append(lines, randomLine(r, p.Lat, p.Lon))
					}
					var line orb.Geometry = lines
					if len(lines) == 1 {
						line = lines[0]
					}
					radius := radii[r.IntN(len(radii))]
					what := fmt.Sprintf("%v within %v m", lines, radius)
					err := s.View(func(tx keyspace.Tx) error {
						got, st, err := ix.Along(tx, line, radius, nil)
						if err != nil {
							return err
						}
						checkAlong(t, what, set.points, lines, radius, got)
						if st.Results != len(got) || st.Candidates < len(got) || st.Ranges > st.Cells {
							t.Fatalf("%s: inconsistent stats %+v for %d results", what, st, len(got))
						}
						if memory {
							checkAlongOptions(t, tx, ix, what, line, radius, got)
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

// checkAlongOptions asks Along again with a Limit, farthest first, and a
// page at a time (checkMeasuredOptions).
func checkAlongOptions(t *testing.T, tx keyspace.Tx, ix *Index, what string, line orb.Geometry, radius float64, all []Result) {
	t.Helper()
	checkMeasuredOptions(t, what, all, func(o *QueryOptions) ([]Result, error) {
		got, _, err := ix.Along(tx, line, radius, o)
		return got, err
	})
}

// checkMeasuredOptions asks a query again, by ask, with a Limit,
// farthest first, and a page at a time (pages of a quarter, so ties at
// one distance span pages in the duplicates set), each answer checked
// against all, the whole answer.
func checkMeasuredOptions(t *testing.T, what string, all []Result, ask func(*QueryOptions) ([]Result, error)) {
	t.Helper()
	same := func(how string, got, want []Result) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s, %s: %d results, not %d", what, how, len(got), len(want))
		}
		for i := range got {
			if got[i].ID != want[i].ID || got[i].Distance != want[i].Distance {
				t.Fatalf("%s, %s: result %d is %s at %v m, not %s at %v m", what, how, i, got[i].ID, got[i].Distance, want[i].ID, want[i].Distance)
			}
		}
	}
	limit := 1 + len(all)/3
	got, err := ask(&QueryOptions{Limit: limit})
	if err != nil {
		t.Fatal(err)
	}
	same(fmt.Sprintf("limit %d", limit), got, all[:min(limit, len(all))])
	got, err = ask(&QueryOptions{FarthestFirst: true})
	if err != nil {
		t.Fatal(err)
	}
	farthest := slices.Clone(all)
	slices.SortStableFunc(farthest, func(a, b Result) int {
		if a.Distance != b.Distance {
			return cmp.Compare(b.Distance, a.Distance)
		}
		return strings.Compare(a.ID, b.ID)
	})
	same("farthest first", got, farthest)
	var paged []Result
	var after *Cursor
	size := 1 + len(all)/4
	for range len(all) + 1 {
		page, err := ask(&QueryOptions{Limit: size, After: after})
		if err != nil {
			t.Fatal(err)
		}
		paged = append(paged, page...)
		if len(page) < size {
			break
		}
		after = CursorAfter(page, after)
	}
	same(fmt.Sprintf("pages of %d", size), paged, all)
}

// TestAlongCases: lines across ±180°, over and to the poles, a line that
// is one position twice (a circle), two lines far apart, and a radius of
// zero, each against brute force over points placed on and about them.
func TestAlongCases(t *testing.T) {
	cases := []struct {
		name  string
		lines orb.MultiLineString
		metre float64
	}{
		{"across ±180", orb.MultiLineString{{{179.9, 10}, {-179.8, 10.2}, {-179.5, 9.9}}}, 5000},
		{"along ±180", orb.MultiLineString{{{180, -5}, {180, 5}}}, 2000},
		{"to the north pole", orb.MultiLineString{{{10, 85}, {10, 90}}}, 20_000},
		{"over the north pole's cap", orb.MultiLineString{{{0, 89}, {170, 89}}}, 50_000},
		{"round the south pole", orb.MultiLineString{{{-170, -88}, {-10, -88}, {100, -89.5}}}, 10_000},
		{"one position twice", orb.MultiLineString{{{2.35, 48.85}, {2.35, 48.85}}}, 3000},
		{"two lines apart", orb.MultiLineString{{{-122.4, 37.7}, {-122.3, 37.8}}, {{139.6, 35.6}, {139.8, 35.7}}}, 4000},
		{"radius zero", orb.MultiLineString{{{0, 0}, {1, 1}}}, 0},
		{"half the world", orb.MultiLineString{{{-90, -60}, {80, 70}}}, 100_000},
		{"a long line, one edge", orb.MultiLineString{{{-100, 40}, {-70, 42}}}, 1000},
	}
	r := rand.New(rand.NewPCG(43, 44))
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var points []Point
			add := func(lat, lon float64) {
				points = append(points, Point{ID: fmt.Sprintf("p%d", len(points)), Lat: clamp(lat, -90, 90), Lon: wrapLon(lon)})
			}
			deg := math.Max(tc.metre, 100) / EarthRadius * 180 / math.Pi
			for _, ls := range tc.lines {
				for _, v := range ls {
					add(v.Lat(), v.Lon()) // on every position
				}
				for i := 1; i < len(ls); i++ {
					dLon := ls[i].Lon() - ls[i-1].Lon()
					if dLon > 180 {
						dLon -= 360
					} else if dLon <= -180 {
						dLon += 360
					}
					for range 120 {
						f := r.Float64()
						lat, lon := ls[i-1].Lat()+f*(ls[i].Lat()-ls[i-1].Lat()), ls[i-1].Lon()+f*dLon
						add(lat, lon) // on the edge
						add(lat+r.NormFloat64()*deg, lon+r.NormFloat64()*deg/math.Max(0.05, math.Cos(rad(lat))))
					}
				}
			}
			add(90, 0)
			add(-90, 123)
			s := keyspace.NewMemory()
			ix := NewIndex("cases")
			load(t, s, ix, points)
			var line orb.Geometry = tc.lines
			if len(tc.lines) == 1 {
				line = tc.lines[0]
			}
			err := s.View(func(tx keyspace.Tx) error {
				got, _, err := ix.Along(tx, line, tc.metre, nil)
				if err != nil {
					return err
				}
				checkAlong(t, tc.name, points, tc.lines, tc.metre, got)
				if len(got) == 0 {
					t.Fatalf("%s: nothing found", tc.name)
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestAlongOnePositionIsACircle: a line that stays at one position is
// the circle about it, as Radius answers it.
func TestAlongOnePositionIsACircle(t *testing.T) {
	r := rand.New(rand.NewPCG(45, 46))
	s := keyspace.NewMemory()
	ix := NewIndex("circle")
	points := syntheticSets(r, 500)[1].points // clustered
	load(t, s, ix, points)
	s.View(func(tx keyspace.Tx) error {
		for _, c := range [][2]float64{{37.77, -122.42}, {48.85, 2.35}} {
			line := orb.LineString{{c[1], c[0]}, {c[1], c[0]}}
			got, _, err := ix.Along(tx, line, 20_000, nil)
			if err != nil {
				t.Fatal(err)
			}
			want, _, err := ix.Radius(tx, c[0], c[1], 20_000, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkResults(t, fmt.Sprintf("one position %v", c), got, want)
		}
		return nil
	})
}

func TestAlongErrors(t *testing.T) {
	s := keyspace.NewMemory()
	ix := NewIndex("errors")
	line := orb.LineString{{0, 0}, {1, 1}}
	for _, tc := range []struct {
		line   orb.Geometry
		radius float64
		want   string
	}{
		{line, math.NaN(), "radius NaN"},
		{line, -1, "radius -1"},
		{line, math.Inf(1), "radius +Inf"},
		{nil, 10, "no line"},
		{orb.Point{0, 0}, 10, "a Point is not a LineString"},
		{orb.LineString{{0, 0}}, 10, "line has 1 positions"},
		{orb.MultiLineString{}, 10, "no lines"},
		{orb.MultiLineString{line, {{0, 0}, {0, 91}}}, 10, "line 1 position 1: invalid coordinates: latitude 91 out of range"},
		{orb.LineString{{0, 0}, {181, 0}}, 10, "line position 1: invalid coordinates: longitude 181 out of range"},
	} {
		s.View(func(tx keyspace.Tx) error {
			_, _, err := ix.Along(tx, tc.line, tc.radius, nil)
			if !errors.Is(err, ErrBadQuery) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%v within %v m: %v, want ErrBadQuery saying %q", tc.line, tc.radius, err, tc.want)
			}
			return nil
		})
	}
}

// TestCorridorCoveringKeepsItsPoints: every point a corridor holds lies
// in a cell of its covering, and every point of a cell the covering
// calls inside lies in the corridor, for lines and radii drawn at random
// over the whole sphere.
func TestCorridorCoveringKeepsItsPoints(t *testing.T) {
	r := rand.New(rand.NewPCG(47, 48))
	for range 200 {
		lat, lon := math.Asin(2*r.Float64()-1)*180/math.Pi, r.Float64()*360-180
		line := randomLine(r, lat, lon)
		radius := math.Exp(r.Float64() * 14)
		c, err := newCorridor(line, radius)
		if err != nil {
			t.Fatal(err)
		}
		runs := spans(c, cover(c, corridorMaxCells(c)))
		deg := radius / EarthRadius * 180 / math.Pi
		for range 300 {
			v := line[r.IntN(len(line))]
			plat := clamp(v.Lat()+r.NormFloat64()*deg*2, -90, 90)
			plon := wrapLon(v.Lon() + r.NormFloat64()*deg*2/math.Max(0.01, math.Cos(rad(plat))))
			in := c.contains(plat, plon)
			g, h := locate(plat, plon)
			found := false
			for _, s := range runs {
				if s.grid == g && h >= s.lo && h <= s.hi {
					found = true
					if s.inside && !in {
						t.Fatalf("%v within %v m: (%v, %v) lies in an inside run but not in the corridor", line, radius, plat, plon)
					}
				}
			}
			if in && !found {
				t.Fatalf("%v within %v m: (%v, %v) is in the corridor but in no run of its covering", line, radius, plat, plon)
			}
		}
	}
}

// TestNearestAlongAgainstBruteForce: NearestAlong's k points are the k
// nearest the line by the oracle (every point left out lies no nearer
// than the k-th, to the oracle's millimetre), at the oracle's distances,
// and its pages after a cursor put together are the first pages' worth
// of one larger answer.
func TestNearestAlongAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(49, 50))
	s := keyspace.NewMemory()
	for _, set := range syntheticSets(r, 300) {
		ix := NewIndex(set.name)
		load(t, s, ix, set.points)
		s.View(func(tx keyspace.Tx) error {
			for q := range 8 {
				p := set.points[r.IntN(len(set.points))]
				lat, lon := p.Lat, p.Lon
				if q%4 == 3 { // far from every point
					lat, lon = clamp(-lat+r.NormFloat64(), -90, 90), wrapLon(lon+180)
				}
				line := randomLine(r, lat, lon)
				lines := orb.MultiLineString{line}
				k := []int{1, 5, 20}[q%3]
				what := fmt.Sprintf("%s: the %d nearest %v", set.name, k, line)
				checkNearest(t, what, set.points, k, func(p Point, dk float64) (lo, hi float64) {
					return bruteLineDistance(lines, p.Lat, p.Lon, 1e-3, dk+1)
				}, func(k int, after *Cursor) ([]Result, Stats, error) {
					return ix.NearestAlong(tx, line, k, &QueryOptions{After: after})
				})
			}
			return nil
		})
	}
	s.View(func(tx keyspace.Tx) error {
		ix := NewIndex("uniform")
		line := orb.LineString{{0, 0}, {1, 1}}
		for _, tc := range []struct {
			k    int
			opts *QueryOptions
			want string
		}{
			{0, nil, "k = 0"},
			{3, &QueryOptions{FarthestFirst: true}, "ask Along for the farthest first"},
		} {
			if _, _, err := ix.NearestAlong(tx, line, tc.k, tc.opts); !errors.Is(err, ErrBadQuery) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("k %d %+v: %v, want ErrBadQuery saying %q", tc.k, tc.opts, err, tc.want)
			}
		}
		if _, _, err := ix.NearestAlong(tx, orb.LineString{{0, 0}}, 3, nil); !errors.Is(err, ErrBadQuery) {
			t.Errorf("a line of one position: %v", err)
		}
		return nil
	})
}

// checkNearest checks the k nearest a line or a polygon, as nearest(k,
// nil) gives them, against oracle (checkNearestAnswer); then pages of 4
// after a cursor are the 12 nearest.
func checkNearest(t *testing.T, what string, points []Point, k int, oracle func(p Point, dk float64) (lo, hi float64), nearest func(k int, after *Cursor) ([]Result, Stats, error)) []Result {
	t.Helper()
	got, st, err := nearest(k, nil)
	if err != nil {
		t.Fatal(err)
	}
	if st.Results != len(got) {
		t.Fatalf("%s: %d results (stats %+v)", what, len(got), st)
	}
	checkNearestAnswer(t, what, points, k, got, oracle)
	want, _, err := nearest(12, nil)
	if err != nil {
		t.Fatal(err)
	}
	var paged []Result
	var after *Cursor
	for len(paged) < 12 {
		page, _, err := nearest(4, after)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		paged = append(paged, page...)
		after = CursorAfter(page, after)
	}
	checkResults(t, what+", pages of 4", paged, want)
	return got
}

// checkNearestAnswer checks got, the k nearest a line or a polygon,
// against oracle's bounds on each point's distance (given the k-th
// distance, which it need measure no farther than): k results (or every
// point), nearest first and ties by id, each at a distance within the
// oracle's bounds, and no point surely nearer than the k-th (or as near,
// at 0, and before it by id) left out.
func checkNearestAnswer(t *testing.T, what string, points []Point, k int, got []Result, oracle func(p Point, dk float64) (lo, hi float64)) {
	t.Helper()
	if len(got) != min(k, len(points)) {
		t.Fatalf("%s: %d results", what, len(got))
	}
	last := got[len(got)-1]
	const tol = 1e-3
	in := map[string]float64{}
	for i, g := range got {
		in[g.ID] = g.Distance
		if i > 0 && (got[i-1].Distance > g.Distance || got[i-1].Distance == g.Distance && got[i-1].ID > g.ID) {
			t.Fatalf("%s: result %d out of order", what, i)
		}
	}
	for _, p := range points {
		lo, hi := oracle(p, last.Distance)
		d, ok := in[p.ID]
		switch {
		case ok && (d < lo-tol || d > hi+tol):
			t.Fatalf("%s: %s at %v m, brute force between %v and %v", what, p.ID, d, lo, hi)
		case !ok && (hi < last.Distance-tol || hi == 0 && last.Distance == 0 && p.ID < last.ID):
			t.Fatalf("%s: %s, at most %v m away, left out for the k-th at %v m", what, p.ID, hi, last.Distance)
		}
	}
}

// TestPieceDistanceAgainstOracle: distanceFrom, the candidate test's
// distance from a piece of line (samples, then parabolic steps, or the
// derivative's sign at an end), lies within a micrometre of the oracle's
// bounds for
// pieces of 1 m to 100 km anywhere (near the poles and across ±180°
// too) and points on them, beside them and past their ends.
func TestPieceDistanceAgainstOracle(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	for i := range 3000 {
		lat, lon := math.Asin(2*r.Float64()-1)*180/math.Pi, r.Float64()*360-180
		if i%5 == 0 {
			lat = math.Copysign(89+r.Float64(), lat) // near a pole
		}
		length := math.Exp(r.Float64() * math.Log(1e5)) // metres
		deg := length / EarthRadius * 180 / math.Pi
		a := r.Float64() * 2 * math.Pi
		end := Point{Lat: clamp(lat+deg*math.Sin(a), -90, 90), Lon: wrapLon(lon + deg*math.Cos(a)/math.Max(0.02, math.Cos(rad(lat))))}
		p := newPath(Point{Lat: lat, Lon: lon}, end)
		if p.length() > pieceMetres {
			continue // not a piece: Along cuts edges to pieces of at most 100 km
		}
		// A point of the piece, moved off it by up to twice its length.
		at := r.Float64()*1.4 - 0.2
		qLat, qLon := p.at(at)
		off := length * 2 * r.Float64() * float64(r.IntN(3)) / 2 // a third of them on the line
		b := r.Float64() * 2 * math.Pi
		qLat = clamp(qLat+off/EarthRadius*180/math.Pi*math.Sin(b), -90, 90)
		qLon = wrapLon(qLon + off/EarthRadius*180/math.Pi*math.Cos(b)/math.Max(0.02, math.Cos(rad(qLat))))
		got := p.distanceFrom(newOrigin(qLat, qLon))
		line := orb.MultiLineString{{{p.lon0, p.lat0}, {wrapLon(p.lon1), p.lat1}}}
		lo, hi := bruteLineDistance(line, qLat, qLon, 1e-8, math.Inf(1))
		if slack := 1e-6 + 1e-9*hi; got < lo-slack || got > hi+slack {
			t.Fatalf("(%v, %v) from the piece %+v (%.0f m): %v m, brute force between %v and %v", qLat, qLon, p, length, got, lo, hi)
		}
	}
}

// TestAlongLongTrack: a track of 300 positions (300 pieces, in 19 chunks
// under 2 chunks of chunks) against brute force, so that the nested
// chunks are walked (nearPieces), with points about its positions.
func TestAlongLongTrack(t *testing.T) {
	r := rand.New(rand.NewPCG(53, 54))
	lat, lon := 60.0, 179.0 // near enough the cap, and across ±180
	track := orb.LineString{{lon, lat}}
	heading := 1.2
	for len(track) < 300 {
		heading += r.NormFloat64() * 0.4
		step := 400 / EarthRadius * 180 / math.Pi
		lat += step * math.Cos(heading)
		lon = wrapLon(lon + step*math.Sin(heading)/math.Cos(rad(lat)))
		track = append(track, orb.Point{lon, lat})
	}
	c, err := newCorridor(track, 150)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.levels) != 2 || len(c.levels[0]) != 19 {
		t.Fatalf("%d pieces in levels of %d chunks", len(c.pieces), len(c.levels[0]))
	}
	var points []Point
	for i := range 500 {
		v := track[r.IntN(len(track))]
		plat, plon := destination(v.Lat(), v.Lon(), r.Float64()*400, r.Float64()*2*math.Pi)
		points = append(points, Point{ID: fmt.Sprint("t", i), Lat: plat, Lon: plon})
	}
	s := keyspace.NewMemory()
	ix := NewIndex("track")
	load(t, s, ix, points)
	s.View(func(tx keyspace.Tx) error {
		got, _, err := ix.Along(tx, track, 150, nil)
		if err != nil {
			t.Fatal(err)
		}
		checkAlong(t, "the track within 150 m", points, orb.MultiLineString{track}, 150, got)
		if len(got) < 50 || len(got) > 450 {
			t.Errorf("%d of 500 points within 150 m of the track", len(got))
		}
		return nil
	})
}

// TestDistanceToLine: the exported distance is the oracle's, for points
// on, beside and past random lines, and bad input is refused.
func TestDistanceToLine(t *testing.T) {
	r := rand.New(rand.NewPCG(55, 56))
	for range 300 {
		lat, lon := math.Asin(2*r.Float64()-1)*180/math.Pi, r.Float64()*360-180
		line := randomLine(r, lat, lon)
		v := line[r.IntN(len(line))]
		plat, plon := destination(v.Lat(), v.Lon(), r.ExpFloat64()*5000, r.Float64()*2*math.Pi)
		got, err := DistanceToLine(line, plat, plon)
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := bruteLineDistance(orb.MultiLineString{line}, plat, plon, 1e-6, math.Inf(1))
		if slack := 1e-6 + 1e-9*hi; got < lo-slack || got > hi+slack {
			t.Fatalf("(%v, %v) from %v: %v m, brute force between %v and %v", plat, plon, line, got, lo, hi)
		}
	}
	if _, err := DistanceToLine(orb.LineString{{0, 0}, {1, 1}}, 91, 0); !errors.Is(err, ErrInvalidPoint) {
		t.Errorf("latitude 91: %v", err)
	}
	if _, err := DistanceToLine(orb.Point{0, 0}, 1, 1); !errors.Is(err, ErrBadQuery) {
		t.Errorf("a Point: %v", err)
	}
}
