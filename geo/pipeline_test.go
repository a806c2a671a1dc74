package geo

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestInOrder: inOrder yields every chunk once, in order, however many
// workers build them, and a loop that stops early stops the workers: no
// chunk is built after the sequence returns, and at most a few past the
// last one taken.
func TestInOrder(t *testing.T) {
	for _, n := range []int{0, 1, 2, 5, 100} {
		for _, workers := range []int{1, 2, 3, 8} {
			var built atomic.Int64
			seq := inOrder(n, workers, func(w, i int) int {
				if w < 0 || w >= max(1, workers) || (workers > 1 && n > 1 && i%workers != w) {
					t.Errorf("n=%d workers=%d: chunk %d built by worker %d", n, workers, i, w)
				}
				built.Add(1)
				return i
			})
			next := 0
			for i := range seq {
				if i != next {
					t.Fatalf("n=%d workers=%d: got chunk %d, want %d", n, workers, i, next)
				}
				next++
			}
			if next != n || built.Load() != int64(n) {
				t.Fatalf("n=%d workers=%d: yielded %d and built %d chunks, want %d", n, workers, next, built.Load(), n)
			}
			if n < 5 {
				continue
			}
			built.Store(0)
			taken := 0
			for i := range seq {
				taken++
				if i == 2 {
					break
				}
			}
			after := built.Load()
			time.Sleep(10 * time.Millisecond) // time for a worker left running to build more
			if taken != 3 || after > int64(3+3*workers) {
				t.Fatalf("n=%d workers=%d: stopped after %d chunks with %d built", n, workers, taken, after)
			}
			if again := built.Load(); again != after {
				t.Fatalf("n=%d workers=%d: %d chunks built after the loop stopped", n, workers, again-after)
			}
		}
	}
}
