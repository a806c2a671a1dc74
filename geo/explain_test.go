package geo

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/keyspacedb/keyspace"
)

// TestExplainAgainstBruteForce: what an Explain says a query did agrees
// with the query's Stats and with brute force over the same points. Its
// cells and key ranges are as many as Stats counts; every result lies in
// one of the cells' boxes and in one of the ranges, its hash among those
// read; every cell's hashes lie in the ranges; a cell marked Inside holds
// no point outside the region; and the points rejected are stored points
// the region does not hold (for a k-nearest search, none nearer than its
// k-th result), as many as the candidates read less the results for a
// region query. Radius and box queries and k-nearest searches run on
// every synthetic set: poles, ±180°, clusters and duplicates.
func TestExplainAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	nearestRejected := 0 // points k-nearest searches rejected, in every set
	for _, set := range syntheticSets(r, 800) {
		t.Run(set.name, func(t *testing.T) {
			s := keyspace.NewMemory()
			ix := NewIndex(set.name)
			load(t, s, ix, set.points)
			s.View(func(tx keyspace.Tx) error {
				for q := 0; q < 60; q++ {
					p := set.points[r.IntN(len(set.points))]
					lat, lon := clamp(p.Lat+r.NormFloat64()*0.05, -90, 90), wrapLon(p.Lon+r.NormFloat64()*0.05)
					if q%5 == 0 {
						lat, lon = math.Asin(2*r.Float64()-1)*180/math.Pi, r.Float64()*360-180
					}
					var ex Explain
					switch q % 3 {
					case 0:
						radius := math.Min(r.ExpFloat64()*50_000, 3_000_000)
						what := fmt.Sprintf("radius %.0f m at (%v, %v)", radius, lat, lon)
						got, st, err := ix.Radius(tx, lat, lon, radius, &QueryOptions{Explain: &ex})
						if err != nil {
							t.Fatal(err)
						}
						holds := func(p Point) bool { return Distance(lat, lon, p.Lat, p.Lon) <= radius }
						checkResults(t, what, got, brute(set.points, lat, lon, holds))
						checkRegionExplain(t, what, ex, st, got, set.points, holds)
					case 1:
						b := randomBox(r)
						what := fmt.Sprintf("box %+v", b)
						got, st, err := ix.Box(tx, b, &QueryOptions{Explain: &ex})
						if err != nil {
							t.Fatal(err)
						}
						holds := func(p Point) bool { return bruteInBox(b, p) }
						clat, clon := b.centre()
						checkResults(t, what, got, brute(set.points, clat, clon, holds))
						checkRegionExplain(t, what, ex, st, got, set.points, holds)
					default:
						k := []int{1, 10, 100}[r.IntN(3)]
						what := fmt.Sprintf("%d nearest (%v, %v)", k, lat, lon)
						got, st, err := ix.Nearest(tx, lat, lon, k, &QueryOptions{Explain: &ex})
						if err != nil {
							t.Fatal(err)
						}
						want := brute(set.points, lat, lon, func(Point) bool { return true })
						checkResults(t, what, got, want[:min(k, len(want))])
						checkExplain(t, what, ex, st, got)
						if len(ex.Rejected) > st.Candidates-st.Results {
							t.Fatalf("%s: %d rejected, but %d candidates read for %d results", what, len(ex.Rejected), st.Candidates, st.Results)
						}
						nearestRejected += len(ex.Rejected)
						kth := got[len(got)-1].Distance
						checkRejected(t, what, ex.Rejected, set.points, func(p Point) bool {
							return Distance(lat, lon, p.Lat, p.Lon) < kth*(1-1e-9)
						})
					}
				}
				return nil
			})
		})
	}
	if nearestRejected == 0 {
		t.Errorf("no k-nearest search rejected a point: their Explain records none")
	}
}

// checkRegionExplain checks the Explain of a query for the points holds
// keeps, with no limit: checkExplain's checks, the rejected points as
// many as the candidates read that were not results and none of them in
// the region, the ranges apart, every result in a cell's box, and every point of a cell
// marked Inside in the region.
func checkRegionExplain(t *testing.T, what string, ex Explain, st Stats, got []Result, points []Point, holds func(Point) bool) {
	t.Helper()
	checkExplain(t, what, ex, st, got)
	if len(ex.Rejected) != st.Candidates-st.Results {
		t.Fatalf("%s: %d rejected, but %d candidates read for %d results", what, len(ex.Rejected), st.Candidates, st.Results)
	}
	checkRejected(t, what, ex.Rejected, points, holds)
	// A region query reads each key once: its ranges are apart. (A
	// k-nearest search's cells read the hashes at its seed's ends again.)
	ranges := slices.SortedFunc(slices.Values(ex.Ranges), func(a, b RangeInfo) int {
		return cmp.Or(cmp.Compare(a.Grid, b.Grid), cmp.Compare(a.Lo, b.Lo))
	})
	for i := 1; i < len(ranges); i++ {
		if a, b := ranges[i-1], ranges[i]; a.Grid == b.Grid && b.Lo <= a.Hi {
			t.Fatalf("%s: ranges %x…%x and %x…%x of grid %s overlap", what, a.Lo, a.Hi, b.Lo, b.Hi, a.Grid)
		}
	}
	for _, res := range got {
		if !slices.ContainsFunc(ex.Cells, func(c CellInfo) bool { return bruteInBox(c.Box, res.Point) }) {
			t.Fatalf("%s: result %s at (%v, %v) is in no cell's box", what, res.ID, res.Lat, res.Lon)
		}
	}
	for _, c := range ex.Cells {
		if !c.Inside || c.Grid != "geohash" { // a cap cell's Box is a box around it
			continue
		}
		for _, p := range points {
			if bruteInBox(c.Box, p) && !holds(p) {
				t.Fatalf("%s: cell %x/%d is marked inside the region, but holds %s at (%v, %v), outside it", what, c.Hash, c.Bits, p.ID, p.Lat, p.Lon)
			}
		}
	}
}

// checkExplain checks what every Explain must say: as many cells and
// ranges as st counts; each range's ends in order; every cell's hashes in the ranges (less a cap's
// pole leaf, which is read only when the region reaches the pole); and
// every result's hash in a range (a k-nearest search's seed reads ranges
// of no cell).
func checkExplain(t *testing.T, what string, ex Explain, st Stats, got []Result) {
	t.Helper()
	if len(ex.Cells) != st.Cells || len(ex.Ranges) != st.Ranges {
		t.Fatalf("%s: Explain has %d cells and %d ranges, Stats %d and %d", what, len(ex.Cells), len(ex.Ranges), st.Cells, st.Ranges)
	}
	byGrid := map[string][]RangeInfo{}
	for _, rg := range ex.Ranges {
		if rg.Lo > rg.Hi {
			t.Fatalf("%s: range %s %x…%x ends before it starts", what, rg.Grid, rg.Lo, rg.Hi)
		}
		byGrid[rg.Grid] = append(byGrid[rg.Grid], rg)
	}
	inRange := func(grid string, h uint64) bool {
		return slices.ContainsFunc(byGrid[grid], func(rg RangeInfo) bool { return rg.Lo <= h && h <= rg.Hi })
	}
	for _, c := range ex.Cells {
		if c.Bits > MaxBits || c.Bits < MaxBits && c.Hash>>c.Bits != 0 {
			t.Fatalf("%s: cell %x of %d bits", what, c.Hash, c.Bits)
		}
		lo := c.Hash << (MaxBits - c.Bits)
		hi := lo | (math.MaxUint64 >> c.Bits)
		if c.Bits == 0 {
			lo, hi = 0, math.MaxUint64
		}
		// The cell's hashes, less those the ranges hold, from the bottom:
		// what is left must be the pole leaf of a cap at most.
		for h := lo; ; {
			last := h // the last hash accounted for from h on
			if i := slices.IndexFunc(byGrid[c.Grid], func(rg RangeInfo) bool { return rg.Lo <= h && h <= rg.Hi }); i >= 0 {
				last = byGrid[c.Grid][i].Hi
			} else if c.Grid == "geohash" || h != poleHash {
				t.Fatalf("%s: hash %x of cell %s %x/%d is in no range", what, h, c.Grid, c.Hash, c.Bits)
			}
			if last >= hi {
				break
			}
			h = last + 1
		}
	}
	for _, res := range got {
		g, h := locate(res.Lat, res.Lon)
		if !inRange(g.name(), h) {
			t.Fatalf("%s: result %s at (%v, %v), hash %s %x, is in no range", what, res.ID, res.Lat, res.Lon, g.name(), h)
		}
	}
}

// checkRejected checks that each rejected point is a stored point that
// kept does not say should have been kept, no more often than such points
// share its coordinates.
func checkRejected(t *testing.T, what string, rejected, points []Point, kept func(Point) bool) {
	t.Helper()
	left := map[[2]float64]int{} // stored points that may be rejected, by position
	for _, p := range points {
		if !kept(p) {
			left[[2]float64{p.Lat, p.Lon}]++
		}
	}
	for _, p := range rejected {
		at := [2]float64{p.Lat, p.Lon}
		if left[at] == 0 {
			t.Fatalf("%s: rejected (%v, %v), which is no stored point outside the results, or is one more often than one is", what, p.Lat, p.Lon)
		}
		left[at]--
	}
}
