package geo

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/storetest"
	"github.com/paulmach/orb"
)

// TestBorderFences: fences whose borders have thousands of positions
// (with holes, one of two polygons, one by ±180°) hold exactly the points
// brute force says, probed along their borders, where lookups land in
// edge cells and test the stored rings in place; and moves from there
// (a kilometre long, chords across lobes and bays, over ±180°) cross them
// as the sampled path says; on both backends. Near, and Intersecting
// circles, boxes and hexagons, read the indexed rings in place. The same fences with their
// rings rewritten in the earlier form (formats 2 and 3, no band indexes)
// give the same answers (Near and Intersecting decode them whole), Verify
// finds nothing wrong, and Repair rewrites
// them in the indexed form without reporting a problem. A damaged band
// index is ErrCorrupt or an answer, never a panic, and Repair writes the
// rings again.
func TestBorderFences(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(35, 1))
		fs := NewFences("borders")
		model := map[string]Fence{}
		var fences []Fence
		var probes []Point
		var outerRings []orb.Ring
		for i := range 7 {
			lat, lon := r.Float64()*140-70, r.Float64()*340-170
			if i == 6 {
				lat, lon = 10, 177.5 // its east edge within a degree of ±180°
			}
			var g orb.Geometry = jaggedStar(r, lat, lon, 2+r.Float64()*3, 300+r.IntN(1500), i%2 == 0)
			if i == 5 {
				g = orb.MultiPolygon{g.(orb.Polygon), jaggedStar(r, lat+7, lon, 1, 400, false)}
			}
			f := Fence{ID: fmt.Sprint("b", i), Polygon: g}
			fences, model[f.ID] = append(fences, f), f
			var rings []orb.Ring
			switch g := g.(type) {
			case orb.Polygon:
				rings = g
			case orb.MultiPolygon:
				rings = append(g[0], g[1]...)
			}
			outerRings = append(outerRings, rings[0])
			for _, ring := range rings {
				for range 60 { // near a random edge: on it, or a little off either side
					j := r.IntN(len(ring) - 1)
					a, b := ring[j], ring[j+1]
					f := r.Float64()
					off := (r.Float64() - 0.5) * 0.02 * float64(r.IntN(2))
					probes = append(probes, Point{Lat: a[1] + f*(b[1]-a[1]) + off, Lon: a[0] + f*(b[0]-a[0]) - off})
				}
				for range 8 {
					v := ring[r.IntN(len(ring))]
					probes = append(probes, Point{Lat: v[1], Lon: v[0]})
				}
			}
		}
		if err := s.Update(func(tx keyspace.Tx) error { return fs.PutAll(tx, fences) }); err != nil {
			t.Fatal(err)
		}
		// Moves of about a kilometre from some of the probes; chords
		// between two nearby points of a border, a little off it, which
		// cross a lobe or a bay between them (Cross, when both ends are
		// outside) or not; and moves over ±180° near the last fence's
		// east edge.
		var moves [][2]Point
		off := func(p orb.Point) Point { // off the border: the oracle rounds each sample's longitude afresh, which can put a point on an edge inside
			return Point{Lat: p[1] + (r.Float64()-0.5)*1e-3, Lon: p[0] + (r.Float64()-0.5)*1e-3}
		}
		for range 30 {
			p := probes[r.IntN(len(probes))]
			a := r.Float64() * 2 * math.Pi
			from := off(orb.Point{p.Lon, p.Lat})
			moves = append(moves, [2]Point{from, {Lat: from.Lat + 0.01*math.Sin(a), Lon: from.Lon + 0.01*math.Cos(a)}})
		}
		for range 40 {
			ring := outerRings[r.IntN(len(outerRings))]
			j := r.IntN(len(ring) - 21)
			moves = append(moves, [2]Point{off(ring[j]), off(ring[j+2+r.IntN(19)])})
		}
		for range 10 {
			lat := 8 + r.Float64()*4
			moves = append(moves, [2]Point{{Lat: lat, Lon: 178 + r.Float64()*2}, {Lat: lat + r.Float64() - 0.5, Lon: -180 + r.Float64()}})
		}
		// Near and Intersecting circles round some probes, and farther
		// off, from a kilometre to 300 km.
		type around struct {
			lat, lon, radius float64
		}
		var circles []around
		for range 40 {
			p := probes[r.IntN(len(probes))]
			circles = append(circles, around{p.Lat + r.NormFloat64()*0.3, p.Lon + r.NormFloat64()*0.3, 1000 * math.Pow(300, r.Float64())})
			b := outerRings[r.IntN(len(outerRings))].Bound().Pad(1) // often outside, in a bay or past a lobe
			circles = append(circles, around{b.Min[1] + r.Float64()*(b.Max[1]-b.Min[1]), b.Min[0] + r.Float64()*(b.Max[0]-b.Min[0]), 1000 * math.Pow(300, r.Float64())})
		}
		var crossings [][]Crossing // the first check's, which the others must give
		var nears [][]NearFence
		var meets [][]string
		check := func(when string) int {
			t.Helper()
			held := 0
			s.View(func(tx keyspace.Tx) error {
				for _, p := range probes {
					held += checkContaining(t, tx, fs, model, p, when)
				}
				for i, m := range moves {
					cs, err := fs.Crossings(tx, &m[0], &m[1])
					if err != nil {
						t.Fatal(err)
					}
					if crossings == nil || len(crossings) <= i {
						checkCrossings(t, cs, model, &m[0], &m[1])
						crossings = append(crossings, cs)
					} else if !slices.Equal(cs, crossings[i]) {
						t.Fatalf("%s: crossings from %v to %v: %v; indexed %v", when, m[0], m[1], cs, crossings[i])
					}
				}
				// Near and Intersecting read the indexed rings in place,
				// the earlier form decoded whole: the same answers.
				for i, c := range circles {
					near, err := fs.Near(tx, c.lat, c.lon, c.radius, 0)
					if err != nil {
						t.Fatal(err)
					}
					area := Fence{Circle: &Circle{Lat: c.lat, Lon: c.lon, Radius: c.radius}}
					switch d := c.radius / 111_000; i % 3 { // a box, a hexagon, or the circle itself
					case 1:
						area = Fence{Box: &Box{MinLat: max(-90, c.lat-d), MinLon: wrapLon(c.lon - d), MaxLat: min(90, c.lat+d), MaxLon: wrapLon(c.lon + d)}}
					case 2:
						var hexagon orb.Ring
						for k := range 7 {
							a := float64(k%6) * math.Pi / 3
							hexagon = append(hexagon, orb.Point{wrapLon(c.lon + d*math.Cos(a)), max(-89, min(89, c.lat+d*math.Sin(a)))})
						}
						area = Fence{Polygon: orb.Polygon{hexagon}}
					}
					met, err := fs.Intersecting(tx, area)
					if err != nil && !errors.Is(err, ErrBadFence) {
						t.Fatal(err)
					}
					if len(nears) <= i {
						nears, meets = append(nears, near), append(meets, met)
						continue
					}
					if !slices.Equal(near, nears[i]) || !slices.Equal(met, meets[i]) {
						t.Fatalf("%s: around %+v: near %v, intersecting %v; indexed %v and %v", when, c, near, met, nears[i], meets[i])
					}
				}
				return nil
			})
			return held
		}
		if held := check("indexed"); held < len(probes)/4 || held > 3*len(probes)/4 {
			t.Fatalf("%d of %d probes held: the probes do not straddle the borders", held, len(probes))
		}
		ringsKey := func(id string) []byte { return fs.polygons.Pack(composite.Tuple{id}) }
		// Every border is stored with its band index.
		s.View(func(tx keyspace.Tx) error {
			for _, f := range fences {
				v, err := tx.Get(ringsKey(f.ID))
				if err != nil || len(v) < 4 || !bytes.Equal(v[:4], []byte{0, 0, 0, 0}) {
					t.Fatalf("fence %s: rings %.8x, %v; want the indexed form", f.ID, v, err)
				}
				pr, err := decodePolygon(v)
				if err != nil {
					t.Fatal(err)
				}
				for pi, poly := range pr.mp {
					for ri := range poly {
						if pr.index(pi, ri) == nil {
							t.Fatalf("fence %s: ring %d of polygon %d has no band index", f.ID, ri, pi)
						}
					}
				}
			}
			return nil
		})
		// The earlier form: the same answers, and nothing for Verify.
		if err := s.Update(func(tx keyspace.Tx) error {
			for _, f := range fences {
				reg, err := f.region()
				if err != nil {
					return err
				}
				if err := tx.Put(ringsKey(f.ID), appendPolygonForm(nil, reg.(polygonRegion), false)); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		check("earlier form")
		s.View(func(tx keyspace.Tx) error {
			if problems, err := fs.Verify(tx); err != nil || len(problems) != 0 {
				t.Fatalf("Verify of the earlier form: %v, %v", problems, err)
			}
			return nil
		})
		// Repair reports nothing, and writes the indexed form.
		if err := s.Update(func(tx keyspace.Tx) error {
			if problems, err := fs.Repair(tx); err != nil || len(problems) != 0 {
				t.Fatalf("Repair of the earlier form: %v, %v", problems, err)
			}
			for _, f := range fences {
				reg, _ := f.region()
				if v, err := tx.Get(ringsKey(f.ID)); err != nil || !bytes.Equal(v, appendPolygon(nil, reg.(polygonRegion))) {
					t.Fatalf("fence %s after Repair: rings %.8x, %v; want the indexed form", f.ID, v, err)
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		check("repaired from the earlier form")
		// A damaged band index: each lookup errs or answers, and Repair
		// puts the rings right.
		if err := s.Update(func(tx keyspace.Tx) error {
			for _, f := range fences {
				reg, _ := f.region()
				v := appendPolygon(nil, reg.(polygonRegion))
				for range 40 { // bytes past the header, in the positions or the bands
					v[12+r.IntN(len(v)-12)] ^= byte(1 + r.IntN(255))
				}
				if err := tx.Put(ringsKey(f.ID), v); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		s.View(func(tx keyspace.Tx) error {
			for _, p := range probes {
				if _, err := fs.Containing(tx, p.Lat, p.Lon); err != nil && !errors.Is(err, keyspace.ErrCorrupt) {
					t.Fatalf("damaged rings: %v", err)
				}
			}
			return nil
		})
		if err := s.Update(func(tx keyspace.Tx) error {
			problems, err := fs.Repair(tx)
			if err != nil || len(problems) != len(fences) || !strings.Contains(problems[0], "stored rings are not its definition's") {
				t.Fatalf("Repair of damaged rings: %v, %v", problems, err)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		check("repaired")
	})
}
