package geo

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortResultsAgainstComparisonSort: on either side of the radix sort's
// threshold, with many equal distances (ties by id), zeros and a wide
// spread of magnitudes, sortResults orders exactly as a comparison sort by
// (distance, id) does.
func TestSortResultsAgainstComparisonSort(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 2, 50, radixMin - 1, radixMin, 1000, 5000} {
		for _, spread := range []string{"wide", "ties", "narrow"} {
			rs := make([]Result, n)
			for i := range rs {
				d := r.ExpFloat64() * 10_000
				switch spread {
				case "wide":
					d *= float64(int(1)<<r.IntN(40)) / 1e6
				case "ties":
					d = float64(r.IntN(5))
				case "narrow":
					d = 5000 + r.Float64()
				}
				rs[i] = Result{Point: Point{ID: fmt.Sprintf("p%d", r.IntN(n+1)*7919%1000003)}, Distance: d}
			}
			want := slices.Clone(rs)
			slices.SortStableFunc(want, func(a, b Result) int {
				if c := cmp.Compare(a.Distance, b.Distance); c != 0 {
					return c
				}
				return cmp.Compare(a.ID, b.ID)
			})
			rs = sortResults(rs)
			for i := range rs {
				if rs[i].Distance != want[i].Distance || rs[i].ID != want[i].ID {
					t.Fatalf("n=%d %s: result %d is %s at %v, want %s at %v", n, spread, i, rs[i].ID, rs[i].Distance, want[i].ID, want[i].Distance)
				}
			}
		}
	}
}

func BenchmarkSortResults(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	rs := make([]Result, 1580)
	for i := range rs {
		rs[i] = Result{Point: Point{ID: fmt.Sprint(i)}, Distance: r.Float64() * 10_000}
	}
	for b.Loop() {
		sortResults(rs) // rs stays unsorted: the sorted copy is new
	}
}
