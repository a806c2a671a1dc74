package geo

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/storetest"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"
)

// pagedQuery is a query asked a page at a time. ask answers one page
// after a cursor; the oracle is match (nil for every point, as Nearest
// asks), measured from (lat, lon). farthest asks for the farthest first
// (QueryOptions.FarthestFirst, which the caller sets).
type pagedQuery struct {
	name     string
	lat, lon float64
	match    func(p Point) bool
	ask      func(tx keyspace.Tx, o *QueryOptions, limit int) ([]Result, Stats, error)
	farthest bool
}

// pageOracle is the page after cursor of q over the points: by brute
// force, every point q matches and that is live at now and kept by keep,
// measured from q's centre, sorted by distance (farthest first if
// q.farthest) then id, those after the cursor, the first limit of them.
func pageOracle(points map[string]Point, q pagedQuery, now time.Time, keep func(Point) bool, after *Cursor, limit int) []Result {
	var all []Point
	for _, p := range points {
		if (q.match == nil || q.match(p)) && live(p, now) && (keep == nil || keep(p)) {
			all = append(all, p)
		}
	}
	out := brute(all, q.lat, q.lon, func(Point) bool { return true })
	byDistance := func(a, b float64) int { return cmp.Compare(a, b) }
	if q.farthest {
		byDistance = func(a, b float64) int { return cmp.Compare(b, a) }
		slices.SortStableFunc(out, func(a, b Result) int { return byDistance(a.Distance, b.Distance) })
	}
	if after != nil {
		out = slices.DeleteFunc(out, func(r Result) bool {
			return cmp.Or(byDistance(r.Distance, after.Distance), cmp.Compare(r.ID, after.ID)) <= 0
		})
	}
	return out[:min(limit, len(out))]
}

// checkPage compares a page with the oracle's: the same ids in the same
// order at exactly the same distances (a cursor compares distances
// exactly, so a page's must be what the next page measures).
func checkPage(t *testing.T, what string, got, want []Result) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d results, brute force %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i].ID != want[i].ID || got[i].Distance != want[i].Distance {
			t.Fatalf("%s: result %d is %s at %v m, brute force %s at %v m", what, i, got[i].ID, got[i].Distance, want[i].ID, want[i].Distance)
		}
	}
}

// randomPagedQueries returns queries of every kind around the points of
// set: radius, box, box around, polygon and nearest.
func randomPagedQueries(r *rand.Rand, ix *Index, points []Point) []pagedQuery {
	var qs []pagedQuery
	centre := func(q int) (float64, float64) {
		switch q % 4 {
		case 0:
			return r.Float64()*180 - 90, r.Float64()*360 - 180
		case 1:
			return []float64{90, -90}[r.IntN(2)], r.Float64()*360 - 180
		}
		p := points[r.IntN(len(points))]
		return p.Lat, p.Lon
	}
	for q := range 4 {
		lat, lon := centre(q)
		radius := r.ExpFloat64() * 300_000
		qs = append(qs, pagedQuery{
			name: fmt.Sprintf("radius %.0f m around (%v, %v)", radius, lat, lon), lat: lat, lon: lon,
			match: func(p Point) bool { return Distance(lat, lon, p.Lat, p.Lon) <= radius },
			ask: func(tx keyspace.Tx, o *QueryOptions, limit int) ([]Result, Stats, error) {
				o.Limit = limit
				return ix.Radius(tx, lat, lon, radius, o)
			},
		})
	}
	for q := range 4 {
		lat, lon := centre(q)
		qs = append(qs, pagedQuery{
			name: fmt.Sprintf("nearest (%v, %v)", lat, lon), lat: lat, lon: lon,
			ask: func(tx keyspace.Tx, o *QueryOptions, k int) ([]Result, Stats, error) {
				return ix.Nearest(tx, lat, lon, k, o)
			},
		})
	}
	for range 2 {
		b := randomBox(r)
		lat, lon := b.centre()
		qs = append(qs, pagedQuery{
			name: fmt.Sprintf("box %+v", b), lat: lat, lon: lon,
			match: func(p Point) bool { return bruteInBox(b, p) },
			ask: func(tx keyspace.Tx, o *QueryOptions, limit int) ([]Result, Stats, error) {
				o.Limit = limit
				return ix.Box(tx, b, o)
			},
		})
	}
	for q := range 2 {
		lat, lon := centre(q + 2)
		w, h := r.ExpFloat64()*400_000, r.ExpFloat64()*400_000
		qs = append(qs, pagedQuery{
			name: fmt.Sprintf("%.0f×%.0f m box around (%v, %v)", w, h, lat, lon), lat: lat, lon: lon,
			match: func(p Point) bool {
				return EarthRadius*rad(math.Abs(p.Lat-lat)) <= h/2 && Distance(p.Lat, p.Lon, p.Lat, lon) <= w/2
			},
			ask: func(tx keyspace.Tx, o *QueryOptions, limit int) ([]Result, Stats, error) {
				o.Limit = limit
				return ix.BoxAround(tx, lat, lon, w, h, o)
			},
		})
	}
	for q := range 2 {
		lat, lon := centre(q + 2)
		var g orb.Geometry = star(r, lat, lon, r.ExpFloat64()*3, q == 0)
		reg, err := newPolygonRegion(g)
		if err != nil {
			panic(err)
		}
		clat, clon := reg.centre()
		qs = append(qs, pagedQuery{
			name: fmt.Sprintf("polygon %v", g), lat: clat, lon: clon,
			match: func(p Point) bool { return planar.MultiPolygonContains(toMulti(g), orb.Point{p.Lon, p.Lat}) },
			ask: func(tx keyspace.Tx, o *QueryOptions, limit int) ([]Result, Stats, error) {
				o.Limit = limit
				return ix.Within(tx, g, o)
			},
		})
	}
	return qs
}

// TestPagesAgainstBruteForce asks every kind of query a page at a time,
// each page after the cursor of the one before, and compares every page
// with the oracle's page after the same cursor over the points as they
// are then. Between pages, half the walks put new points (nearer and
// farther than the cursor), move points and delete them, so the oracle
// is what a cursor promises: the results after it now, not an offset. Some
// points have expired at the queries' time and some queries filter.
func TestPagesAgainstBruteForce(t *testing.T) {
	now := time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC)
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(61, 62))
		var ties, mutated, deep int
		for _, set := range syntheticSets(r, 500) {
			t.Run(set.name, func(t *testing.T) {
				ix := NewIndex(set.name)
				model := map[string]Point{}
				for i := range set.points {
					if i%7 == 0 {
						set.points[i].Expires = now.Add(time.Duration(r.IntN(120)-60) * time.Minute)
					}
					model[set.points[i].ID] = set.points[i]
				}
				load(t, s, ix, set.points)
				for qi, q := range randomPagedQueries(r, ix, set.points) {
					q.farthest = q.match != nil && qi%4 >= 1 && qi%4 <= 2 // some of each kind of region query, farthest first, some mutated between pages
					var keep func(Point) bool
					if qi%3 == 0 {
						keep = func(p Point) bool { return len(p.ID)%2 == 0 }
					}
					mutate := qi%2 == 1
					limit := 1 + r.IntN(9)
					var after *Cursor
					for page := 0; page < 40; page++ {
						want := pageOracle(model, q, now, keep, after, limit)
						var got []Result
						var st Stats
						err := s.View(func(tx keyspace.Tx) (err error) {
							// Every other walk with a read budget of 1 to 24
							// candidates, which sends a limited query to the
							// k-nearest search (or, farthest first, to its
							// branch and bound) at any point of its reading.
							budget := 0
							if qi%2 == 0 {
								budget = 1 + (qi*7+page)%24
							}
							got, st, err = q.ask(tx, &QueryOptions{After: after, Now: now, Filter: keep, FarthestFirst: q.farthest, readBudget: budget}, limit)
							return err
						})
						if err != nil {
							t.Fatalf("%s, page %d: %v", q.name, page, err)
						}
						checkPage(t, fmt.Sprintf("%s, page %d of %d after %+v", q.name, page, limit, after), got, want)
						checkStats(t, st, got)
						if len(got) < limit {
							break
						}
						if page >= 3 {
							deep++
						}
						for i := 1; i < len(got); i++ {
							if got[i].Distance == got[i-1].Distance {
								ties++
							}
						}
						after = CursorAfter(got, after)
						if after.Rank != (page+1)*limit {
							t.Fatalf("%s: cursor after page %d of %d has rank %d", q.name, page, limit, after.Rank)
						}
						if mutate {
							mutated++
							mutatePaged(t, r, s, ix, model, q, after)
						}
					}
				}
			})
		}
		if ties == 0 || mutated < 50 || deep < 50 {
			t.Fatalf("the walks met %d tied distances, %d mutations and %d deep pages: too few to test cursors", ties, mutated, deep)
		}
	})
}

// mutatePaged changes the index between two pages: a new point put near
// the cursor's circle (on either side of it), a point moved there, and a
// point deleted; the model follows.
func mutatePaged(t *testing.T, r *rand.Rand, s keyspace.Store, ix *Index, model map[string]Point, q pagedQuery, after *Cursor) {
	t.Helper()
	ids := make([]string, 0, len(model))
	for id := range model {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	near := func() (float64, float64) {
		d := after.Distance * (0.5 + r.Float64())
		return destination(q.lat, q.lon, d, r.Float64()*2*math.Pi)
	}
	err := s.Update(func(tx keyspace.Tx) error {
		lat, lon := near()
		p := Point{ID: fmt.Sprintf("new-%d", len(model)), Lat: lat, Lon: lon}
		if r.IntN(2) == 0 {
			p.ID = after.ID + "~" // as far as the cursor, if it lands there, and after it by id
			p.Lat, p.Lon = model[after.ID].Lat, model[after.ID].Lon
			if _, ok := model[after.ID]; !ok {
				p.Lat, p.Lon = lat, lon
			}
		}
		moved := model[ids[r.IntN(len(ids))]]
		moved.Lat, moved.Lon = near()
		gone := ids[r.IntN(len(ids))]
		for _, w := range []Point{p, moved} {
			if err := ix.Put(tx, w); err != nil {
				return err
			}
			model[w.ID] = w
		}
		if gone != moved.ID {
			delete(model, gone)
			return ix.Delete(tx, gone)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPageTies: points at one place, so that every result is as far as
// every other, come a page at a time in id order, and the cursor's id
// decides.
func TestPageTies(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		ix := NewIndex("ties")
		var points []Point
		for i := range 23 {
			points = append(points, Point{ID: fmt.Sprintf("p%02d", i), Lat: -33.5, Lon: 179.99})
		}
		load(t, s, ix, points)
		for _, ask := range []struct {
			name string
			fn   func(tx keyspace.Tx, o *QueryOptions) ([]Result, Stats, error)
		}{
			{"nearest", func(tx keyspace.Tx, o *QueryOptions) ([]Result, Stats, error) {
				return ix.Nearest(tx, -33.5, 179.99, 5, o)
			}},
			{"nearest from afar", func(tx keyspace.Tx, o *QueryOptions) ([]Result, Stats, error) { return ix.Nearest(tx, 40, -170, 5, o) }},
			{"radius 0", func(tx keyspace.Tx, o *QueryOptions) ([]Result, Stats, error) {
				o.Limit = 5
				return ix.Radius(tx, -33.5, 179.99, 0, o)
			}},
		} {
			var after *Cursor
			var ids []string
			for range 10 {
				var page []Result
				s.View(func(tx keyspace.Tx) (err error) {
					page, _, err = ask.fn(tx, &QueryOptions{After: after})
					if err != nil {
						t.Fatal(err)
					}
					return nil
				})
				for _, p := range page {
					ids = append(ids, p.ID)
				}
				if len(page) < 5 {
					break
				}
				after = CursorAfter(page, after)
			}
			var want []string
			for _, p := range points {
				want = append(want, p.ID)
			}
			if !slices.Equal(ids, want) {
				t.Fatalf("%s: pages gave %v, want %v", ask.name, ids, want)
			}
		}
	})
}

// TestPageAtTheAntipode: a cursor as far as a distance can be, at the
// point opposite the centre, leaves exactly the points there with greater
// ids.
func TestPageAtTheAntipode(t *testing.T) {
	s := keyspace.NewMemory()
	ix := NewIndex("antipode")
	load(t, s, ix, []Point{{ID: "a", Lat: 0, Lon: 180}, {ID: "b", Lat: 0, Lon: -180}, {ID: "c", Lat: 0, Lon: 179}, {ID: "home", Lat: 0, Lon: 0}})
	s.View(func(tx keyspace.Tx) error {
		far := Distance(0, 0, 0, 180)
		for _, c := range []struct {
			after Cursor
			want  []string
		}{{Cursor{Distance: far, ID: "a"}, []string{"b"}}, {Cursor{Distance: far}, []string{"a", "b"}}, {Cursor{Distance: far, ID: "b"}, nil}} {
			got, _, err := ix.Nearest(tx, 0, 0, 3, &QueryOptions{After: &c.after})
			var ids []string
			for _, r := range got {
				ids = append(ids, r.ID)
			}
			if err != nil || !slices.Equal(ids, c.want) {
				t.Errorf("3 nearest after %+v: %v, %v; want %v", c.after, ids, err, c.want)
			}
		}
		return nil
	})
}

// TestCursorTokens: a token round-trips, and is refused, wrapping
// keyspace.ErrBadCursor, for another query, when damaged and when of
// another version; a cursor out of range is ErrBadQuery.
func TestCursorTokens(t *testing.T) {
	for _, c := range []Cursor{{}, {Distance: 12.5, ID: "a:b\x00c", Rank: 40}, {Distance: math.SmallestNonzeroFloat64, ID: "ü", Rank: math.MaxInt32}} {
		tok := c.Token("near cities 1,2 r=5km")
		got, err := ParseCursor(tok, "near cities 1,2 r=5km")
		if err != nil || *got != c {
			t.Fatalf("%+v: token %q parsed as %+v, %v", c, tok, got, err)
		}
		if _, err := ParseCursor(tok, "near cities 1,2 r=6km"); !errors.Is(err, keyspace.ErrBadCursor) {
			t.Fatalf("token for another query: %v", err)
		}
	}
	good := Cursor{Distance: 3, ID: "x", Rank: 1}.Token("q")
	for _, bad := range []string{"", "!!", good[:10], "B" + good[1:], Cursor{Distance: math.NaN()}.Token("q"), Cursor{Distance: -1}.Token("q")} {
		if _, err := ParseCursor(bad, "q"); !errors.Is(err, keyspace.ErrBadCursor) {
			t.Fatalf("token %q: %v, want ErrBadCursor", bad, err)
		}
	}
	s := keyspace.NewMemory()
	ix := NewIndex("bad")
	load(t, s, ix, []Point{{ID: "a", Lat: 1, Lon: 2}})
	s.View(func(tx keyspace.Tx) error {
		for _, c := range []Cursor{{Distance: math.NaN()}, {Distance: -1}, {Distance: math.Inf(1)}, {Rank: -1}} {
			o := &QueryOptions{After: &c}
			if _, _, err := ix.Radius(tx, 1, 2, 10, o); !errors.Is(err, ErrBadQuery) {
				t.Fatalf("Radius after %+v: %v", c, err)
			}
			if _, _, err := ix.Nearest(tx, 1, 2, 10, o); !errors.Is(err, ErrBadQuery) {
				t.Fatalf("Nearest after %+v: %v", c, err)
			}
			if _, _, err := ix.RadiusFixedGrid(tx, 1, 2, 10, o); !errors.Is(err, ErrBadQuery) {
				t.Fatalf("RadiusFixedGrid after %+v: %v", c, err)
			}
		}
		return nil
	})
}

// TestDeepPagesReadBeyondTheCursor: a deep page reads what lies beyond
// its cursor, not what an offset would read again. On clustered points,
// the 30th page of 10 nearest reads fewer candidates than asking for the
// 300 nearest and dropping 290 would (under half), and a page of a
// radius query after most of its results fewer than the whole circle
// holds (under seven tenths: the ring left holds 44% of its area; the
// first page, of the 10 nearest, asks the k-nearest search, which reads
// less still);
// farthest first, a page after a cursor at half the radius reads under
// half of what the first page does (both read their read budget, then a
// band along their far edge, the cursor's circle half as long as the
// region's). Candidates read are counted, not timed.
func TestDeepPagesReadBeyondTheCursor(t *testing.T) {
	r := rand.New(rand.NewPCG(63, 64))
	set := syntheticSets(r, 20_000)[1]
	s := keyspace.NewMemory()
	ix := NewIndex("deep")
	load(t, s, ix, set.points)
	s.View(func(tx keyspace.Tx) error {
		var paged, offset, radiusFirst, radiusDeep, farthestFirst, farthestDeep int
		for range 10 {
			p := set.points[r.IntN(len(set.points))]
			var after *Cursor
			var page []Result
			var st Stats
			for range 30 {
				var err error
				page, st, err = ix.Nearest(tx, p.Lat, p.Lon, 10, &QueryOptions{After: after})
				if err != nil || len(page) != 10 {
					t.Fatalf("page of %d: %v", len(page), err)
				}
				after = CursorAfter(page, after)
			}
			paged += st.Candidates
			_, st, _ = ix.Nearest(tx, p.Lat, p.Lon, 300, nil)
			offset += st.Candidates
			radius := after.Distance * 1.2
			_, st, _ = ix.Radius(tx, p.Lat, p.Lon, radius, nil) // the whole circle: a first page of 10 asks the k-nearest search
			radiusFirst += st.Candidates
			_, st, _ = ix.Radius(tx, p.Lat, p.Lon, radius, &QueryOptions{Limit: 10, After: after})
			radiusDeep += st.Candidates
			inner := &Cursor{Distance: radius / 2} // farthest first, the disk left is a quarter of the circle
			_, st, _ = ix.Radius(tx, p.Lat, p.Lon, radius, &QueryOptions{Limit: 10, FarthestFirst: true})
			farthestFirst += st.Candidates
			_, st, _ = ix.Radius(tx, p.Lat, p.Lon, radius, &QueryOptions{Limit: 10, FarthestFirst: true, After: inner})
			farthestDeep += st.Candidates
		}
		t.Logf("30th page of 10 nearest: %d candidates, 300 nearest: %d; radius's whole circle %d, after 290 results %d; farthest first %d, within half the radius %d",
			paged, offset, radiusFirst, radiusDeep, farthestFirst, farthestDeep)
		if paged*2 > offset || radiusDeep*10 > radiusFirst*7 || farthestDeep*2 > farthestFirst {
			t.Fatalf("deep pages read too much: 30th page of 10 nearest %d candidates against %d for the 300 nearest; radius %d after the cursor against %d from the start; farthest first %d within half the radius against %d",
				paged, offset, radiusDeep, radiusFirst, farthestDeep, farthestFirst)
		}
		return nil
	})
}

// FuzzPagesAgainstBruteForce pages through a radius query (nearest
// first and farthest first) and a nearest query around a fuzzed centre, over points scattered around it (some
// on top of each other, some at the poles and on ±180°), and compares
// every page with the oracle's page after the same cursor.
func FuzzPagesAgainstBruteForce(f *testing.F) {
	f.Add(uint64(1), 37.7749, -122.4194, 1000.0, uint8(3))
	f.Add(uint64(2), 90.0, 0.0, 50000.0, uint8(1))
	f.Add(uint64(3), -89.9, 179.9, 20000.0, uint8(7))
	f.Add(uint64(4), 0.0, 180.0, 500.0, uint8(2))
	f.Add(uint64(5), CapLatitude, -180.0, 300000.0, uint8(5))
	f.Add(uint64(6), 39.37499999999999, 45.0, 0.0, uint8(4))
	f.Fuzz(func(t *testing.T, seed uint64, lat, lon, radius float64, limit uint8) {
		if validate(lat, lon) != nil || math.IsNaN(radius) || radius < 0 || radius > 2e7 || limit == 0 || limit > 20 {
			return
		}
		r := rand.New(rand.NewPCG(seed, 10))
		model := map[string]Point{}
		add := func(plat, plon float64) {
			id := fmt.Sprint("p", len(model))
			model[id] = Point{ID: id, Lat: plat, Lon: plon}
		}
		for range 40 {
			add(destination(lat, lon, r.Float64()*2*radius+r.Float64()*10, r.Float64()*2*math.Pi))
		}
		for range 3 {
			add(lat, lon)
		}
		add(90, r.Float64()*360-180)
		add(-90, 0)
		add(lat, 180)
		add(lat, -180)
		points := slices.Collect(func(yield func(Point) bool) {
			for _, p := range model {
				if !yield(p) {
					return
				}
			}
		})
		s := keyspace.NewMemory()
		ix := NewIndex("fuzz")
		if err := s.Update(func(tx keyspace.Tx) error { return ix.PutAll(tx, points) }); err != nil {
			t.Fatal(err)
		}
		from, span := float64(seed%360), float64(1+seed/360%359)
		sec, err := newSector(lat, lon, radius, from, from+span)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range []pagedQuery{
			{name: "radius", lat: lat, lon: lon,
				match: func(p Point) bool { return Distance(lat, lon, p.Lat, p.Lon) <= radius },
				ask: func(tx keyspace.Tx, o *QueryOptions, limit int) ([]Result, Stats, error) {
					o.Limit = limit
					return ix.Radius(tx, lat, lon, radius, o)
				}},
			{name: "radius farthest first", lat: lat, lon: lon, farthest: true,
				match: func(p Point) bool { return Distance(lat, lon, p.Lat, p.Lon) <= radius },
				ask: func(tx keyspace.Tx, o *QueryOptions, limit int) ([]Result, Stats, error) {
					o.Limit = limit
					return ix.Radius(tx, lat, lon, radius, o)
				}},
			{name: "nearest", lat: lat, lon: lon,
				ask: func(tx keyspace.Tx, o *QueryOptions, k int) ([]Result, Stats, error) {
					return ix.Nearest(tx, lat, lon, k, o)
				}},
			// A sector's pages, in both orders: which points it holds is
			// tested against the bearing formula (TestSectorAgainstBruteForce);
			// here, that its pages are its points in order.
			{name: "sector", lat: lat, lon: lon,
				match: func(p Point) bool { return sec.contains(p.Lat, p.Lon) },
				ask: func(tx keyspace.Tx, o *QueryOptions, limit int) ([]Result, Stats, error) {
					o.Limit = limit
					return ix.Sector(tx, lat, lon, radius, from, from+span, o)
				}},
			{name: "sector farthest first", lat: lat, lon: lon, farthest: true,
				match: func(p Point) bool { return sec.contains(p.Lat, p.Lon) },
				ask: func(tx keyspace.Tx, o *QueryOptions, limit int) ([]Result, Stats, error) {
					o.Limit = limit
					return ix.Sector(tx, lat, lon, radius, from, from+span, o)
				}},
		} {
			var after *Cursor
			for page := 0; ; page++ {
				want := pageOracle(model, q, time.Now(), nil, after, int(limit))
				var got []Result
				s.View(func(tx keyspace.Tx) (err error) {
					// A read budget of 1 to 32 candidates (or the
					// default, 0) sends a limited query to the k-nearest
					// search at any point of its reading.
					got, _, err = q.ask(tx, &QueryOptions{After: after, FarthestFirst: q.farthest, readBudget: int(seed % 33)}, int(limit))
					if err != nil {
						t.Fatal(err)
					}
					return nil
				})
				checkPage(t, fmt.Sprintf("%s (%v, %v) r=%v, page %d of %d after %+v", q.name, lat, lon, radius, page, limit, after), got, want)
				if len(got) < int(limit) {
					break
				}
				after = CursorAfter(got, after)
			}
		}
	})
}

// TestFarthestFirstOrders: RadiusFixedGrid farthest first gives the
// points it gives nearest first, in the opposite order of distance and
// still by id among equals; with Any, the points found are the region's
// and come farthest first among themselves. Points share places, so
// ties are many. (Radius, Box, BoxAround and Within farthest first are
// held to brute force page by page in TestPagesAgainstBruteForce.)
func TestFarthestFirstOrders(t *testing.T) {
	r := rand.New(rand.NewPCG(65, 66))
	var points []Point
	for i := range 400 {
		lat, lon := destination(48.85, 2.35, r.Float64()*3000, r.Float64()*2*math.Pi)
		if i%3 == 1 {
			lat, lon = points[i-1].Lat, points[i-1].Lon // a tie
		}
		points = append(points, Point{ID: fmt.Sprintf("p%03d", r.IntN(1000)) + fmt.Sprint(i), Lat: lat, Lon: lon})
	}
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		ix := NewIndex("far")
		load(t, s, ix, points)
		s.View(func(tx keyspace.Tx) error {
			near, _, err := ix.RadiusFixedGrid(tx, 48.85, 2.35, 2000, nil)
			if err != nil || len(near) < 100 {
				t.Fatalf("RadiusFixedGrid: %d results, %v", len(near), err)
			}
			far, _, err := ix.RadiusFixedGrid(tx, 48.85, 2.35, 2000, &QueryOptions{FarthestFirst: true})
			if err != nil {
				t.Fatal(err)
			}
			want := slices.Clone(near)
			slices.SortStableFunc(want, func(a, b Result) int { return cmp.Or(cmp.Compare(b.Distance, a.Distance), cmp.Compare(a.ID, b.ID)) })
			checkPage(t, "RadiusFixedGrid farthest first", far, want)
			some, _, err := ix.Radius(tx, 48.85, 2.35, 2000, &QueryOptions{FarthestFirst: true, Limit: 30, Any: true})
			if err != nil || len(some) != 30 {
				t.Fatalf("Any: %d results, %v", len(some), err)
			}
			for i, res := range some {
				if res.Distance > 2000 || i > 0 && cmp.Or(cmp.Compare(some[i-1].Distance, res.Distance), cmp.Compare(res.ID, some[i-1].ID)) < 0 {
					t.Fatalf("Any farthest first: result %d %s at %v m after %s at %v m", i, res.ID, res.Distance, some[max(i-1, 0)].ID, some[max(i-1, 0)].Distance)
				}
			}
			return nil
		})
	})
}
