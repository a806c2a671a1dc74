package geo_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/geo"
	"github.com/keyspacedb/keyspace/internal/workload"
	"github.com/keyspacedb/keyspace/storetest"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"
	"github.com/tidwall/rtree"
)

// BenchmarkFences: which of 1,000 and 10,000 fences (circles of 1 to 20
// km and boxes, centred on clustered points) hold a point near the data,
// by Containing on both backends, against testing every fence (brute, the
// baseline) and an R-tree of the fences' boxes (rtree, as Tile38 keeps
// fences) in the same run; and the same fences, expiring, with each
// circle a quarter sector of itself, and with each a route of 20 or 200
// positions, 20 km long, with a tenth of its radius either side.
func BenchmarkFences(b *testing.B) {
	pts, err := workload.Generate(workload.Clustered, 100_000, 1)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(6, 7))
	probes := make([]workload.Point, 1000)
	for i := range probes {
		p := pts[r.IntN(len(pts))]
		probes[i] = workload.Point{Lat: min(90, max(-90, p.Lat+r.NormFloat64()*0.05)), Lon: min(180, max(-180, p.Lon+r.NormFloat64()*0.05))}
	}
	for _, n := range []int{1000, 10_000} {
		fences := circlesAndBoxes(r, pts, n)
		benchContaining(b, fmt.Sprintf("fences=%d", n), fences, probes)
		// The same fences, each expiring in a day: the lookup reads the
		// clock once, and each cell's expiry.
		expiring := slices.Clone(fences)
		for i := range expiring {
			expiring[i].Expires = time.Now().Add(24 * time.Hour)
		}
		benchContaining(b, fmt.Sprintf("fences=%d/expiring", n), expiring, probes)
		// The same, each circle a quarter of itself round a random
		// bearing: a sector's edge cells send a point to its region key.
		sectors := slices.Clone(fences)
		for i, f := range sectors {
			if c := f.Circle; c != nil {
				from := r.Float64() * 360
				sectors[i] = geo.Fence{ID: f.ID, Sector: &geo.Sector{Lat: c.Lat, Lon: c.Lon, Radius: c.Radius, From: from, To: from + 90}}
			}
		}
		benchContaining(b, fmt.Sprintf("fences=%d/sectors", n), sectors, probes)
		// The same, each circle a route of positions steps apart from
		// its centre with a tenth of its radius either side: a
		// corridor's edge cells send a point to its region key, its
		// line read from it.
		for _, positions := range []int{20, 200} {
			corridors := slices.Clone(fences)
			for i, f := range corridors {
				if c := f.Circle; c != nil {
					corridors[i] = geo.Fence{ID: f.ID, Corridor: &geo.Corridor{Line: benchRoute(r, c.Lat, c.Lon, positions, 20_000/float64(positions)), Radius: c.Radius / 10}}
				}
			}
			benchContaining(b, fmt.Sprintf("fences=%d/corridors=%d", n, positions), corridors, probes)
		}
		// An R-tree of the fences' boxes, each candidate then tested
		// exactly, as Tile38 keeps its fences.
		b.Run(fmt.Sprintf("fences=%d/rtree", n), func(b *testing.B) {
			var tr rtree.RTreeG[int]
			for i, f := range fences {
				lo, hi := fenceBounds(f)
				tr.Insert(lo, hi, i)
			}
			held := 0
			for i := 0; b.Loop(); i++ {
				p := probes[i%len(probes)]
				pt := [2]float64{p.Lon, p.Lat}
				tr.Search(pt, pt, func(_, _ [2]float64, j int) bool {
					if holds(fences[j], p) {
						held++
					}
					return true
				})
			}
			b.ReportMetric(float64(held)/float64(b.N), "fences/op")
		})
		b.Run(fmt.Sprintf("fences=%d/brute", n), func(b *testing.B) {
			held := 0
			for i := 0; b.Loop(); i++ {
				p := probes[i%len(probes)]
				for _, f := range fences {
					if holds(f, p) {
						held++
					}
				}
			}
			b.ReportMetric(float64(held)/float64(b.N), "fences/op")
		})
	}
}

// benchRoute is a route of n positions from (lat, lon), each about step
// metres from the last, in a heading that wanders.
func benchRoute(r *rand.Rand, lat, lon float64, n int, step float64) orb.LineString {
	line := orb.LineString{{lon, lat}}
	heading := r.Float64() * 2 * math.Pi
	for len(line) < n {
		heading += r.NormFloat64() * 0.5
		lat = min(90, max(-90, lat+step/111_000*math.Cos(heading)))
		lon = min(180, max(-180, lon+step/111_000*math.Sin(heading)/math.Max(0.1, math.Cos(lat*math.Pi/180))))
		line = append(line, orb.Point{lon, lat})
	}
	return line
}

// circlesAndBoxes returns n fences centred on points of pts: circles of 1
// to 20 km and boxes of 0.02° to 0.42° a side, alternately.
func circlesAndBoxes(r *rand.Rand, pts []workload.Point, n int) []geo.Fence {
	fences := make([]geo.Fence, n)
	for i := range fences {
		c := pts[r.IntN(len(pts))]
		fences[i] = geo.Fence{ID: fmt.Sprint("f", i)}
		if i%2 == 0 {
			fences[i].Circle = &geo.Circle{Lat: c.Lat, Lon: c.Lon, Radius: 1000 + r.Float64()*19_000}
		} else {
			d := 0.01 + r.Float64()*0.2
			fences[i].Box = &geo.Box{MinLat: max(-90, c.Lat-d), MaxLat: min(90, c.Lat+d), MinLon: max(-180, c.Lon-d), MaxLon: min(180, c.Lon+d)}
		}
	}
	return fences
}

// BenchmarkFenceCrossings: the crossings of moves of 100 m, 1 km and 10
// km near clustered points, among 1,000 circles and boxes and among
// 1,000 roads (roads/…), on both backends: Crossings, which also looks
// for the fences the path between passes through (Cross), against two
// Containing lookups (what the crossings cost without Cross, the
// baseline) in the same run.
func BenchmarkFenceCrossings(b *testing.B) {
	pts, err := workload.Generate(workload.Clustered, 100_000, 1)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(8, 9))
	zones := circlesAndBoxes(r, pts, 1000)
	// And 1,000 roads: routes of 20 positions, 20 km long, with no
	// width (corridors of radius 0), which a move crosses.
	roads := make([]geo.Fence, 1000)
	for i := range roads {
		c := pts[r.IntN(len(pts))]
		roads[i] = geo.Fence{ID: fmt.Sprint("road", i), Corridor: &geo.Corridor{Line: benchRoute(r, c.Lat, c.Lon, 20, 1000)}}
	}
	for _, set := range []struct {
		prefix string
		fences []geo.Fence
	}{{"", zones}, {"roads/", roads}} {
		benchMoves(b, pts, r, set.prefix, set.fences)
	}
}

// benchMoves is BenchmarkFenceCrossings for one set of fences, its
// benchmarks' names starting with prefix.
func benchMoves(b *testing.B, pts []workload.Point, r *rand.Rand, prefix string, fences []geo.Fence) {
	for _, be := range storetest.Backends() {
		s := be.Open(b)
		fs := geo.NewFences("bench")
		if err := s.Update(func(tx keyspace.Tx) error { return fs.PutAll(tx, fences) }); err != nil {
			b.Fatal(err)
		}
		for _, metres := range []float64{100, 1000, 10_000} {
			moves := make([][2]geo.Point, 1000)
			for i := range moves {
				p := pts[r.IntN(len(pts))]
				// About metres apart: a degree of latitude is 111 km.
				dLat, dLon := metres/111_000*math.Cos(r.Float64()*2*math.Pi), metres/111_000*math.Sin(r.Float64()*2*math.Pi)
				moves[i] = [2]geo.Point{{Lat: p.Lat, Lon: p.Lon}, {Lat: min(90, max(-90, p.Lat+dLat)), Lon: min(180, max(-180, p.Lon+dLon))}}
			}
			b.Run(fmt.Sprintf("%smove=%gm/%s/crossings", prefix, metres, be.Name), func(b *testing.B) {
				crosses := 0
				for i := 0; b.Loop(); i++ {
					m := moves[i%len(moves)]
					s.View(func(tx keyspace.Tx) error {
						cs, err := fs.Crossings(tx, &m[0], &m[1])
						if err != nil {
							b.Fatal(err)
						}
						for _, c := range cs {
							if c.Kind == geo.Cross {
								crosses++
							}
						}
						return nil
					})
				}
				b.ReportMetric(float64(crosses)/float64(b.N), "crosses/op")
			})
			b.Run(fmt.Sprintf("%smove=%gm/%s/containing-twice", prefix, metres, be.Name), func(b *testing.B) {
				for i := 0; b.Loop(); i++ {
					m := moves[i%len(moves)]
					s.View(func(tx keyspace.Tx) error {
						for _, p := range m {
							if _, err := fs.Containing(tx, p.Lat, p.Lon); err != nil {
								b.Fatal(err)
							}
						}
						return nil
					})
				}
			})
		}
	}
}

// BenchmarkFencesPutAll: 1,000 and 10,000 fences stored in one
// transaction by PutAll (one sorted run of keys) and by Put one by one,
// on both backends, in the same run.
func BenchmarkFencesPutAll(b *testing.B) {
	r := rand.New(rand.NewPCG(8, 9))
	for _, n := range []int{1000, 10_000} {
		fences := make([]geo.Fence, n)
		for i := range fences {
			lat, lon := r.Float64()*120-60, r.Float64()*360-180
			fences[i] = geo.Fence{ID: fmt.Sprint("f", i), Circle: &geo.Circle{Lat: lat, Lon: lon, Radius: 1000 + r.Float64()*19_000}}
		}
		for _, be := range storetest.Backends() {
			for _, how := range []string{"putall", "put"} {
				if how == "put" && be.Name == "bbolt" && n > 1000 {
					continue // minutes: bbolt's unsplit nodes take random inserts in quadratic time
				}
				b.Run(fmt.Sprintf("fences=%d/%s/%s", n, be.Name, how), func(b *testing.B) {
					dir := b.TempDir()
					for i := 0; b.Loop(); i++ {
						b.StopTimer()
						var s keyspace.Store = keyspace.NewMemory()
						if be.Name == "bbolt" {
							var err error
							if s, err = keyspace.Open(filepath.Join(dir, fmt.Sprint(i, ".db")), &keyspace.Options{NoSync: true}); err != nil {
								b.Fatal(err)
							}
						}
						b.StartTimer()
						fs := geo.NewFences("bench")
						if err := s.Update(func(tx keyspace.Tx) error {
							if how == "putall" {
								return fs.PutAll(tx, fences)
							}
							for _, f := range fences {
								if err := fs.Put(tx, f); err != nil {
									return err
								}
							}
							return nil
						}); err != nil {
							b.Fatal(err)
						}
						b.StopTimer()
						s.Close() // a store a loop: b.Loop may run many
						b.StartTimer()
					}
					b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "fences/s")
				})
			}
		}
	}
}

// holds is the benchmark's test of a circle or box fence (none crosses
// ±180°).
func holds(f geo.Fence, p workload.Point) bool {
	if f.Circle != nil {
		return geo.Distance(f.Circle.Lat, f.Circle.Lon, p.Lat, p.Lon) <= f.Circle.Radius
	}
	return p.Lat >= f.Box.MinLat && p.Lat <= f.Box.MaxLat && p.Lon >= f.Box.MinLon && p.Lon <= f.Box.MaxLon
}

// fenceBounds is a longitude/latitude box around a circle or box fence:
// for a circle, its latitudes ± the radius and its longitudes ± the
// radius over the cosine of the latitude farthest from the equator (wide
// enough, since the exact test follows).
func fenceBounds(f geo.Fence) (lo, hi [2]float64) {
	if f.Box != nil {
		return [2]float64{f.Box.MinLon, f.Box.MinLat}, [2]float64{f.Box.MaxLon, f.Box.MaxLat}
	}
	c := f.Circle
	dLat := c.Radius / geo.EarthRadius * 180 / math.Pi
	cos := math.Cos(math.Min(89, math.Abs(c.Lat)+dLat) * math.Pi / 180)
	dLon := math.Min(180, dLat/cos)
	return [2]float64{c.Lon - dLon, c.Lat - dLat}, [2]float64{c.Lon + dLon, c.Lat + dLat}
}

// BenchmarkFencesIntersecting: which of 1,000 circles and boxes share a
// point with a circle of 1, 10 or 100 km around a clustered point, by
// Intersecting on both backends, those it holds whole by Within, both
// again for the quarter of the circle round a random bearing (a sector
// area: sector-intersecting, sector-within), and those within that
// distance of its centre, nearest first, by Near; and,
// in the same run, an R-tree's search
// of the fences' bounding boxes alone (rtree-boxes-only), which reads no
// fence and tests nothing exactly: a floor under what Tile38's INTERSECTS
// does, not the same answer.
func BenchmarkFencesIntersecting(b *testing.B) {
	pts, err := workload.Generate(workload.Clustered, 100_000, 1)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(12, 13))
	fences := circlesAndBoxes(r, pts, 1000)
	var tr rtree.RTreeG[int]
	for i, f := range fences {
		lo, hi := fenceBounds(f)
		tr.Insert(lo, hi, i)
	}
	for _, metres := range []float64{1000, 10_000, 100_000} {
		areas := make([]geo.Fence, 1000)
		sectors := make([]geo.Fence, len(areas)) // the quarter of each circle round a random bearing
		for i := range areas {
			p := pts[r.IntN(len(pts))]
			areas[i] = geo.Fence{Circle: &geo.Circle{Lat: p.Lat, Lon: p.Lon, Radius: metres}}
			from := r.Float64() * 360
			sectors[i] = geo.Fence{Sector: &geo.Sector{Lat: p.Lat, Lon: p.Lon, Radius: metres, From: from, To: from + 90}}
		}
		for _, be := range storetest.Backends() {
			for _, q := range []struct {
				name  string
				ask   func(*geo.Fences, keyspace.Tx, geo.Fence) ([]string, error)
				areas []geo.Fence
			}{
				{"intersecting", (*geo.Fences).Intersecting, areas}, {"within", (*geo.Fences).Within, areas},
				{"sector-intersecting", (*geo.Fences).Intersecting, sectors}, {"sector-within", (*geo.Fences).Within, sectors},
			} {
				areas := q.areas
				b.Run(fmt.Sprintf("radius=%gm/%s/%s", metres, be.Name, q.name), func(b *testing.B) {
					s, fs := openFences(b, be, fences)
					viewLoop(b, s, "fences", func(tx keyspace.Tx, i int) (int, error) {
						ids, err := q.ask(fs, tx, areas[i%len(areas)])
						return len(ids), err
					})
				})
			}
			b.Run(fmt.Sprintf("radius=%gm/%s/near", metres, be.Name), func(b *testing.B) {
				s, fs := openFences(b, be, fences)
				viewLoop(b, s, "fences", func(tx keyspace.Tx, i int) (int, error) {
					c := areas[i%len(areas)].Circle
					near, err := fs.Near(tx, c.Lat, c.Lon, c.Radius, 0)
					return len(near), err
				})
			})
		}
		b.Run(fmt.Sprintf("radius=%gm/rtree-boxes-only", metres), func(b *testing.B) {
			found := 0
			for i := 0; b.Loop(); i++ {
				lo, hi := fenceBounds(areas[i%len(areas)])
				tr.Search(lo, hi, func(_, _ [2]float64, _ int) bool {
					found++
					return true
				})
			}
			b.ReportMetric(float64(found)/float64(b.N), "boxes/op")
		})
	}
}

// BenchmarkFencePolygons: which of 100 polygons hold a point, as "which
// state is this address in?" asks: a 10 × 10 grid of 1° squares whose
// sides are jagged with 10 or 250 vertices each (40 or 1,000 a polygon,
// as simplified and detailed borders have), by Containing on both
// backends against an R-tree of the polygons' boxes with orb's planar
// test (as Tile38 answers it), in the same run.
func BenchmarkFencePolygons(b *testing.B) {
	r := rand.New(rand.NewPCG(10, 11))
	probes := make([]workload.Point, 1000)
	for i := range probes {
		probes[i] = workload.Point{Lat: 40 + r.Float64()*10, Lon: 10 + r.Float64()*10}
	}
	for _, perSide := range []int{10, 250} {
		var fences []geo.Fence
		for row := range 10 {
			for col := range 10 {
				lat, lon := 40+float64(row), 10+float64(col)
				var ring orb.Ring
				side := func(fromLat, fromLon, dLat, dLon float64) {
					for i := range perSide {
						f := float64(i) / float64(perSide)
						j := r.Float64() * 0.02 * min(f, 1-f) // jagged inwards, less so near the corners
						ring = append(ring, orb.Point{fromLon + f*dLon + j*math.Abs(dLat), fromLat + f*dLat + j*math.Abs(dLon)})
					}
				}
				side(lat, lon, 0, 1)      // south, eastwards
				side(lat, lon+1, 1, 0)    // east, northwards
				side(lat+1, lon+1, 0, -1) // north, westwards
				side(lat+1, lon, -1, 0)   // west, southwards
				ring = append(ring, ring[0])
				fences = append(fences, geo.Fence{ID: fmt.Sprint("r", row, "c", col), Polygon: orb.Polygon{ring}})
			}
		}
		benchContaining(b, fmt.Sprintf("vertices=%d", 4*perSide), fences, probes)
		b.Run(fmt.Sprintf("vertices=%d/rtree", 4*perSide), func(b *testing.B) {
			var tr rtree.RTreeG[int]
			for i, f := range fences {
				bound := f.Polygon.Bound()
				tr.Insert(bound.Min, bound.Max, i)
			}
			held := 0
			for i := 0; b.Loop(); i++ {
				p := probes[i%len(probes)]
				pt := orb.Point{p.Lon, p.Lat}
				tr.Search(pt, pt, func(_, _ [2]float64, j int) bool {
					if planar.PolygonContains(fences[j].Polygon.(orb.Polygon), pt) {
						held++
					}
					return true
				})
			}
			b.ReportMetric(float64(held)/float64(b.N), "fences/op")
		})
	}
}

// benchContaining runs Containing at each probe in turn on both backends,
// holding the fences, as name/BACKEND/containing.
func benchContaining(b *testing.B, name string, fences []geo.Fence, probes []workload.Point) {
	benchLookups(b, name, "containing", fences, "fences", func(tx keyspace.Tx, fs *geo.Fences, i int) (int, error) {
		p := probes[i%len(probes)]
		ids, err := fs.Containing(tx, p.Lat, p.Lon)
		return len(ids), err
	})
}

// benchLookups runs ask(tx, fs, i) for i = 0, 1, … in a View each, on
// both backends, of a store holding the fences, as name/BACKEND/op, and
// reports what ask counts, a query on average, as unit/op.
func benchLookups(b *testing.B, name, op string, fences []geo.Fence, unit string, ask func(tx keyspace.Tx, fs *geo.Fences, i int) (int, error)) {
	for _, be := range storetest.Backends() {
		b.Run(name+"/"+be.Name+"/"+op, func(b *testing.B) {
			s, fs := openFences(b, be, fences)
			viewLoop(b, s, unit, func(tx keyspace.Tx, i int) (int, error) { return ask(tx, fs, i) })
		})
	}
}

// viewLoop runs ask(tx, i) for i = 0, 1, … in a View of s each, for the
// benchmark's b.Loop, and reports what ask counts, a query on average,
// as unit/op.
func viewLoop(b *testing.B, s keyspace.Store, unit string, ask func(tx keyspace.Tx, i int) (int, error)) {
	found := 0
	for i := 0; b.Loop(); i++ {
		s.View(func(tx keyspace.Tx) error {
			n, err := ask(tx, i)
			if err != nil {
				b.Fatal(err)
			}
			found += n
			return nil
		})
	}
	b.ReportMetric(float64(found)/float64(b.N), unit+"/op")
}

// BenchmarkFenceBorder: which of one fence, a country-sized polygon whose
// border has 5,000 or 50,000 jagged positions, holds a point near its
// border (within a tenth of a degree of it, so the lookup lands in one
// of its edge cells and must test the polygon), by Containing on both
// backends, against orb's planar test of the same polygon (orb, the
// baseline) in the same run; the crossings of 1 km moves from those
// points, whose paths are tested against the border when neither end is
// inside it; Near and Intersecting (a circle, a box, a quarter sector)
// and Along (a line 10 km long, 1 km) from points outside it; Within a box and a circle that hold it whole; and which of 200
// small circles and boxes lie within it.
func BenchmarkFenceBorder(b *testing.B) {
	for _, positions := range []int{5_000, 50_000} {
		r := rand.New(rand.NewPCG(12, uint64(positions)))
		ring := make(orb.Ring, 0, positions+1)
		radius := func(θ float64) float64 { return 5 + math.Sin(7*θ) } // degrees: lobed, as a border is
		for i := range positions {
			θ := 2 * math.Pi * float64(i) / float64(positions)
			ρ := radius(θ) + r.Float64()*0.01 // jagged
			ring = append(ring, orb.Point{20 + ρ*math.Cos(θ), 45 + ρ*math.Sin(θ)})
		}
		ring = append(ring, ring[0])
		polygon := orb.Polygon{ring}
		probes := make([]workload.Point, 1000)
		for i := range probes {
			θ := r.Float64() * 2 * math.Pi
			ρ := radius(θ) + (r.Float64()-0.5)*0.2
			probes[i] = workload.Point{Lat: 45 + ρ*math.Sin(θ), Lon: 20 + ρ*math.Cos(θ)}
		}
		name := fmt.Sprintf("positions=%d", positions)
		fences := []geo.Fence{{ID: "border", Polygon: polygon}}
		benchContaining(b, name, fences, probes)
		benchCrossings(b, name, fences, probes, 1000)
		// Near and Intersecting from a little farther off: the fences
		// within 100 km of a point about 30 km outside the border, and
		// those a 5 km circle, or a box 10 km square, about 5 km outside
		// it meets.
		off := func(d float64) []workload.Point {
			var out []workload.Point
			for i := range 1000 {
				θ := float64(i) / 1000 * 2 * math.Pi
				out = append(out, workload.Point{Lat: 45 + (radius(θ)+d)*math.Sin(θ), Lon: 20 + (radius(θ)+d)*math.Cos(θ)})
			}
			return out
		}
		far, near := off(0.3), off(0.05)
		benchLookups(b, name, "near-100km", fences, "fences", func(tx keyspace.Tx, fs *geo.Fences, i int) (int, error) {
			p := far[i%len(far)]
			ns, err := fs.Near(tx, p.Lat, p.Lon, 100_000, 0)
			return len(ns), err
		})
		for _, kind := range []string{"circle", "box", "sector"} {
			benchLookups(b, name, "intersecting-5km-"+kind, fences, "fences", func(tx keyspace.Tx, fs *geo.Fences, i int) (int, error) {
				p := near[i%len(near)]
				area := geo.Fence{Circle: &geo.Circle{Lat: p.Lat, Lon: p.Lon, Radius: 5000}}
				switch kind {
				case "box":
					area = geo.Fence{Box: &geo.Box{MinLat: p.Lat - 0.045, MinLon: p.Lon - 0.045, MaxLat: p.Lat + 0.045, MaxLon: p.Lon + 0.045}}
				case "sector": // a quarter of the circle, facing each way in turn
					from := float64(i%8) * 45
					area = geo.Fence{Sector: &geo.Sector{Lat: p.Lat, Lon: p.Lon, Radius: 5000, From: from, To: from + 90}}
				}
				ids, err := fs.Intersecting(tx, area)
				return len(ids), err
			})
		}
		// The fences within 1 km of a line 10 km long from a point about
		// 5 km outside the border, heading each way in turn.
		benchLookups(b, name, "along-1km", fences, "fences", func(tx keyspace.Tx, fs *geo.Fences, i int) (int, error) {
			p := near[i%len(near)]
			a := float64(i%8) * math.Pi / 4
			line := orb.LineString{{p.Lon, p.Lat}, {p.Lon + 0.09*math.Sin(a)/math.Cos(p.Lat*math.Pi/180), p.Lat + 0.09*math.Cos(a)}}
			ids, err := fs.Along(tx, line, 1000)
			return len(ids), err
		})
		// Within an area that holds the whole border: a box, and a circle
		// (the border's distance from the centre's antipode, in place).
		for _, kind := range []string{"box", "circle"} {
			area := geo.Fence{Box: &geo.Box{MinLat: 38, MinLon: 13, MaxLat: 52, MaxLon: 27}}
			if kind == "circle" {
				area = geo.Fence{Circle: &geo.Circle{Lat: 45, Lon: 20, Radius: 750_000}}
			}
			benchLookups(b, name, "within-"+kind, fences, "fences", func(tx keyspace.Tx, fs *geo.Fences, i int) (int, error) {
				ids, err := fs.Within(tx, area)
				return len(ids), err
			})
		}
		// The other way round: which of 200 circles and boxes of 2 to 20
		// km, most of them inside the country and a few across its
		// border, lie within it.
		small := make([]geo.Fence, 200)
		for i := range small {
			θ := r.Float64() * 2 * math.Pi
			ρ := radius(θ) * math.Sqrt(r.Float64()) * 1.05
			lat, lon := 45+ρ*math.Sin(θ), 20+ρ*math.Cos(θ)
			d := 0.02 + r.Float64()*0.18
			small[i] = geo.Fence{ID: fmt.Sprint(i), Circle: &geo.Circle{Lat: lat, Lon: lon, Radius: d * 111_000}}
			if i%2 == 1 {
				small[i] = geo.Fence{ID: fmt.Sprint(i), Box: &geo.Box{MinLat: lat - d, MinLon: lon - d, MaxLat: lat + d, MaxLon: lon + d}}
			}
		}
		benchLookups(b, name, "within-border", small, "fences", func(tx keyspace.Tx, fs *geo.Fences, i int) (int, error) {
			ids, err := fs.Within(tx, geo.Fence{Polygon: polygon})
			return len(ids), err
		})
		b.Run(name+"/orb", func(b *testing.B) {
			held := 0
			for i := 0; b.Loop(); i++ {
				p := probes[i%len(probes)]
				if planar.PolygonContains(polygon, orb.Point{p.Lon, p.Lat}) {
					held++
				}
			}
			b.ReportMetric(float64(held)/float64(b.N), "fences/op")
		})
	}
}

// benchCrossings runs Crossings for a move of about metres from each
// probe in turn on both backends, holding the fences, as
// name/BACKEND/crossings.
func benchCrossings(b *testing.B, name string, fences []geo.Fence, probes []workload.Point, metres float64) {
	r := rand.New(rand.NewPCG(13, 14))
	moves := make([][2]geo.Point, len(probes))
	for i, p := range probes {
		a := r.Float64() * 2 * math.Pi // a degree of latitude is 111 km
		moves[i] = [2]geo.Point{{Lat: p.Lat, Lon: p.Lon}, {Lat: p.Lat + metres/111_000*math.Cos(a), Lon: p.Lon + metres/111_000*math.Sin(a)}}
	}
	benchLookups(b, name, "crossings", fences, "crossings", func(tx keyspace.Tx, fs *geo.Fences, i int) (int, error) {
		m := moves[i%len(moves)]
		cs, err := fs.Crossings(tx, &m[0], &m[1])
		return len(cs), err
	})
}

// openFences opens a store of the backend be holding the fences, in the
// fence set "bench".
func openFences(b *testing.B, be storetest.Backend, fences []geo.Fence) (keyspace.Store, *geo.Fences) {
	s := be.Open(b)
	fs := geo.NewFences("bench")
	if err := s.Update(func(tx keyspace.Tx) error { return fs.PutAll(tx, fences) }); err != nil {
		b.Fatal(err)
	}
	return s, fs
}

// BenchmarkFencesAlong: which of 1,000 circles and boxes round clustered
// points come within 0 m (those a route passes through), 1 km and 10 km
// of routes of 20 positions, some 40 km long (benchRoutes), and within
// 100 m of GPS tracks of 5,000 positions 50 m apart, by Along on both
// backends.
func BenchmarkFencesAlong(b *testing.B) {
	pts, err := workload.Generate(workload.Clustered, 100_000, 1)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(12, 13))
	fences := circlesAndBoxes(r, pts, 1000)
	routes := benchRoutes(pts, 200, 20, 2000)
	tracks := benchRoutes(pts, 20, 5000, 50)
	for _, be := range storetest.Backends() {
		b.Run(be.Name, func(b *testing.B) {
			s, fs := openFences(b, be, fences)
			b.Run("track=5000/radius=100m", func(b *testing.B) {
				viewLoop(b, s, "fences", func(tx keyspace.Tx, i int) (int, error) {
					ids, err := fs.Along(tx, tracks[i%len(tracks)], 100)
					return len(ids), err
				})
			})
			for _, radius := range []float64{0, 1000, 10_000} {
				b.Run(fmt.Sprintf("radius=%gm", radius), func(b *testing.B) {
					viewLoop(b, s, "fences", func(tx keyspace.Tx, i int) (int, error) {
						ids, err := fs.Along(tx, routes[i%len(routes)], radius)
						return len(ids), err
					})
				})
			}
			// The same routes' fences in the order the route reaches them
			// (Passed: Along, then a search along the route for each).
			b.Run("in-order/radius=1000m", func(b *testing.B) {
				viewLoop(b, s, "fences", func(tx keyspace.Tx, i int) (int, error) {
					passed, err := fs.Passed(tx, routes[i%len(routes)], 1000)
					return len(passed), err
				})
			})
			// The same routes as Within's area: the fences wholly within
			// the radius, each candidate's boundary and inside searched.
			for _, radius := range []float64{1000, 10_000} {
				b.Run(fmt.Sprintf("within/radius=%gm", radius), func(b *testing.B) {
					viewLoop(b, s, "fences", func(tx keyspace.Tx, i int) (int, error) {
						ids, err := fs.Within(tx, geo.Fence{Corridor: &geo.Corridor{Line: routes[i%len(routes)], Radius: radius}})
						return len(ids), err
					})
				})
			}
		})
	}
}
