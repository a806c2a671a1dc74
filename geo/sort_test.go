package geo

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/keyspacedb/keyspace/composite"
)

// TestHitsAgainstComparisonSort: on either side of the insertion and radix
// sorts' thresholds, with many equal distances (ties by id), zeros, -0, a
// wide spread of magnitudes, and every distance 0 (sortByID), hits.results orders exactly as a comparison sort by
// (distance, id) does, hands back each id and payload as added (ids with
// zero bytes included), and cuts at the limit.
func TestHitsAgainstComparisonSort(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	prefix := []byte("pre")
	for _, n := range []int{0, 1, 2, insertionMax, insertionMax + 1, radixMin - 1, radixMin, 1000, 5000} {
		for _, spread := range []string{"wide", "ties", "narrow", "zero"} {
			want := make([]Result, n)
			var h hits
			for i := range want {
				d := r.ExpFloat64() * 10_000
				switch spread {
				case "wide":
					d *= float64(int(1)<<r.IntN(40)) / 1e6
				case "ties":
					d = float64(r.IntN(5))
					if d == 0 && r.IntN(2) == 0 {
						d = math.Copysign(0, -1) // -0 sorts with +0
					}
				case "narrow":
					d = 5000 + r.Float64()
				}
				p := Point{ID: fmt.Sprintf("p%d\x00%d", r.IntN(n+1)*7919%1000003, i), Lat: r.Float64(), Lon: r.Float64()}
				if spread == "zero" {
					// Every point at 0 (inside a polygon, for NearPolygon),
					// ids sharing a long prefix, some a prefix of others and
					// some differing only past their first eight bytes.
					d = 0
					tail := make([]byte, r.IntN(12))
					for k := range tail {
						tail[k] = "ab\x00"[r.IntN(3)]
					}
					p.ID = fmt.Sprintf("zone-%s-%d", tail, i)
				}
				if i%4 == 0 {
					p.Payload = []byte(fmt.Sprint("pay", i))
				}
				want[i] = Result{Point: p, Distance: d}
				key := composite.AppendString(composite.AppendUint(prefix, r.Uint64()), p.ID)
				if err := h.add(key, len(prefix), appendValue(nil, &p, 0), d); err != nil {
					t.Fatal(err)
				}
			}
			sortByDistanceThenID(want)
			for _, limit := range []int{0, 1, n / 2} {
				got := h.results(limit, nil)
				wantN := n
				if limit > 0 && limit < n {
					wantN = limit
				}
				if len(got) != wantN {
					t.Fatalf("n=%d %s limit %d: %d results, want %d", n, spread, limit, len(got), wantN)
				}
				for i := range got {
					g, w := got[i], want[i]
					if g.Distance != w.Distance || g.ID != w.ID || g.Lat != w.Lat || g.Lon != w.Lon || string(g.Payload) != string(w.Payload) || (g.Payload == nil) != (w.Payload == nil) {
						t.Fatalf("n=%d %s: result %d is %+v, want %+v", n, spread, i, g, w)
					}
				}
			}
		}
	}
}

// TestHitsRejectsCorruptKeys: a key shorter than its prefix, with no id, a
// non-string id or bytes after the id is an error naming the key, and adds
// nothing.
func TestHitsRejectsCorruptKeys(t *testing.T) {
	prefix := []byte("pre")
	value := appendValue(nil, &Point{Lat: 1, Lon: 2}, 0)
	for _, key := range [][]byte{
		[]byte("pr"),
		composite.AppendUint(prefix, 7),
		composite.AppendUint(composite.AppendUint(prefix, 7), 8),
		append(composite.AppendString(composite.AppendUint(prefix, 7), "id"), 1),
	} {
		var h hits
		if err := h.add(key, len(prefix), value, 1); err == nil {
			t.Errorf("key %q: no error", key)
		}
		if len(h.recs) != 0 || len(h.ids) != 0 || len(h.payloads) != 0 {
			t.Errorf("key %q: added %d records, %d id bytes, %d payload bytes", key, len(h.recs), len(h.ids), len(h.payloads))
		}
	}
}

func BenchmarkHitsResults(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	var h hits
	prefix := []byte("pre")
	value := appendValue(nil, &Point{Lat: 1, Lon: 2}, 0)
	for i := range 1580 {
		key := composite.AppendString(composite.AppendUint(prefix, 7), fmt.Sprint(i))
		if err := h.add(key, len(prefix), value, r.Float64()*10_000); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		h.results(0, nil)
	}
}

// TestSortCells: on either side of sortCells' switch to a general sort,
// and on either side of its one-word-per-cell path (one grid, at most 58
// bits), cells come out as a comparison sort by (grid, start of the hash
// range, from span) puts them, whatever their precision, the 0-bit cell
// included.
func TestSortCells(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{0, 1, 2, 16, 64, 65, 300} {
		for round := range 40 {
			oneGrid := round%2 == 0 // as a covering from a start block is
			maxBits := MaxBits
			if oneGrid && round%4 == 0 {
				maxBits = MaxBits - 6
			}
			cells := make([]coveredCell, n)
			for i := range cells {
				bits := uint(r.IntN(maxBits + 1))
				h := r.Uint64()
				if bits < MaxBits {
					h &= 1<<bits - 1
				}
				g := grid(r.IntN(3))
				if oneGrid {
					g = southCap
				}
				cells[i] = coveredCell{cell: cell{hash: h, bits: bits, grid: g}}
			}
			if round >= 36 && n > 0 {
				// Neighbours at the precisions about the word path's limit,
				// shuffled: their starts differ in the lowest bits.
				bits := uint(56 + round - 36) // 56 to 59
				base := r.Uint64() & (1<<bits - 1) &^ 1023
				for i := range cells {
					cells[i] = coveredCell{cell: cell{hash: base + uint64(i), bits: bits, grid: southCap}}
				}
				r.Shuffle(n, func(i, j int) { cells[i], cells[j] = cells[j], cells[i] })
			}
			got := slices.Clone(cells)
			sortCells(got)
			want := slices.Clone(cells)
			slices.SortStableFunc(want, func(a, b coveredCell) int {
				if a.grid != b.grid {
					return cmp.Compare(a.grid, b.grid)
				}
				alo, _ := a.span()
				blo, _ := b.span()
				return cmp.Compare(alo, blo)
			})
			for i := range got {
				glo, _ := got[i].span()
				wlo, _ := want[i].span()
				if got[i].grid != want[i].grid || glo != wlo {
					t.Fatalf("n=%d round %d: cell %d is grid %d from %x, want grid %d from %x", n, round, i, got[i].grid, glo, want[i].grid, wlo)
				}
			}
		}
	}
}
