package geo

import (
	"iter"
	"sync"
)

// inOrder builds chunks 0…n-1 on workers goroutines and yields them in
// order: worker w builds chunks w, w+workers, w+2·workers, …, each at most
// two chunks ahead of the consumer, so building overlaps with whatever the
// consumer does with the chunks (PutAll: the transaction's inserts) and
// the build itself runs on several cores. build is given its worker's
// number for any state it keeps per worker. Stopping the loop early stops
// the workers before the sequence returns; with one worker or one chunk
// nothing runs concurrently.
func inOrder[T any](n, workers int, build func(worker, i int) T) iter.Seq[T] {
	return func(yield func(T) bool) {
		if workers <= 1 || n <= 1 {
			for i := range n {
				if !yield(build(0, i)) {
					return
				}
			}
			return
		}
		done := make(chan struct{})
		outs := make([]chan T, workers)
		var wg sync.WaitGroup
		for w := range outs {
			outs[w] = make(chan T, 2)
			wg.Go(func() {
				for i := w; i < n; i += workers {
					select {
					case outs[w] <- build(w, i):
					case <-done:
						return
					}
				}
			})
		}
		defer func() {
			close(done)
			wg.Wait()
		}()
		for i := range n {
			if !yield(<-outs[i%workers]) {
				return
			}
		}
	}
}
