package keyspace_test

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/storetest"
)

// benchKey is an 8-byte big-endian key: sorted order is numeric order.
func benchKey(i uint64) []byte {
	return binary.BigEndian.AppendUint64(make([]byte, 0, 8), i)
}

// loadSequential bulk-loads n keys 0..n-1 with 32-byte values.
func loadSequential(b *testing.B, s keyspace.Store, n int) {
	b.Helper()
	value := make([]byte, 32)
	_, err := keyspace.BulkLoad(s, func(yield func([]byte, []byte) bool) {
		for i := 0; i < n; i++ {
			if !yield(benchKey(uint64(i)), value) {
				return
			}
		}
	}, &keyspace.BulkOptions{BatchSize: 100_000})
	if err != nil {
		b.Fatal(err)
	}
}

func BenchmarkGet(b *testing.B) {
	const n = 100_000
	for _, be := range storetest.Backends() {
		b.Run(be.Name, func(b *testing.B) {
			s := be.Open(b)
			loadSequential(b, s, n)
			r := rand.New(rand.NewPCG(1, 2))
			b.ResetTimer()
			s.View(func(tx keyspace.Tx) error {
				for i := 0; i < b.N; i++ {
					if _, err := tx.Get(benchKey(r.Uint64N(n))); err != nil {
						b.Fatal(err)
					}
				}
				return nil
			})
		})
	}
}

// BenchmarkViewGet is a View that reads one key: a transaction's own cost.
func BenchmarkViewGet(b *testing.B) {
	for _, be := range storetest.Backends() {
		b.Run(be.Name, func(b *testing.B) {
			s := be.Open(b)
			loadSequential(b, s, 100_000)
			r := rand.New(rand.NewPCG(1, 2))
			for b.Loop() {
				if err := s.View(func(tx keyspace.Tx) error { _, err := tx.Get(benchKey(r.Uint64N(100_000))); return err }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkPrefixScan100(b *testing.B) {
	const n = 100_000
	for _, be := range storetest.Backends() {
		b.Run(be.Name, func(b *testing.B) {
			s := be.Open(b)
			loadSequential(b, s, n)
			r := rand.New(rand.NewPCG(1, 2))
			b.ResetTimer()
			s.View(func(tx keyspace.Tx) error {
				for i := 0; i < b.N; i++ {
					// Keys sharing their first 7 bytes: 256 of them; take 100.
					p := benchKey(r.Uint64N(n-256) &^ 0xFF)[:7]
					rg := keyspace.Prefix(p)
					rg.Limit = 100
					count := 0
					for range tx.Scan(rg) {
						count++
					}
					if count != 100 {
						b.Fatalf("scanned %d", count)
					}
				}
				return nil
			})
		})
	}
}

// BenchmarkRandomPut writes 1,000 random keys per transaction, the batched
// pattern LESSONS.md recommends (one key per bbolt transaction is ~1k/s).
func BenchmarkRandomPut(b *testing.B) {
	for _, be := range storetest.Backends() {
		b.Run(be.Name, func(b *testing.B) {
			s := be.Open(b)
			r := rand.New(rand.NewPCG(3, 4))
			value := make([]byte, 32)
			b.ResetTimer()
			for done := 0; done < b.N; {
				batch := min(1000, b.N-done)
				s.Update(func(tx keyspace.Tx) error {
					for i := 0; i < batch; i++ {
						if err := tx.Put(benchKey(r.Uint64()), value); err != nil {
							b.Fatal(err)
						}
					}
					return nil
				})
				done += batch
			}
		})
	}
}

// BenchmarkBulkLoad1M loads 1,000,000 sorted keys; the figure to read is
// keys/s.
func BenchmarkBulkLoad1M(b *testing.B) {
	const n = 1_000_000
	for _, be := range storetest.Backends() {
		b.Run(be.Name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				s := be.Open(b)
				loadSequential(b, s, n)
				s.Close()
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "keys/s")
		})
	}
}

// countVisitor counts the pairs VisitRange hands it.
type countVisitor struct{ n int }

func (c *countVisitor) Visit(_, _ []byte) bool { c.n++; return true }

// BenchmarkNearRanges is a geo query's access pattern at the store level:
// in one View, six short ranges (two keys each) a few dozen keys apart, in
// key order, somewhere in 200,000 random keys loaded in order. A key is an
// 8-byte "hash" and a 4-byte id, and a range's bounds are hashes, which no
// key equals, as a geo query's are. The figure is the cost of a query's
// seeks, without its geometry.
func BenchmarkNearRanges(b *testing.B) {
	const n, ranges, gap = 200_000, 6, 30
	r := rand.New(rand.NewPCG(5, 6))
	keys := make([]uint64, n)
	for i := range keys {
		keys[i] = r.Uint64()
	}
	slices.Sort(keys)
	for _, be := range storetest.Backends() {
		b.Run(be.Name, func(b *testing.B) {
			s := be.Open(b)
			value := make([]byte, 24)
			_, err := keyspace.BulkLoad(s, func(yield func([]byte, []byte) bool) {
				for _, k := range keys {
					if !yield(append(benchKey(k), "id00"...), value) {
						return
					}
				}
			}, &keyspace.BulkOptions{BatchSize: n})
			if err != nil {
				b.Fatal(err)
			}
			var c countVisitor
			for b.Loop() {
				at := r.IntN(n - ranges*gap - 2)
				s.View(func(tx keyspace.Tx) error {
					for j := range ranges {
						i := at + j*gap
						rg := keyspace.Range{Start: benchKey(keys[i]), End: benchKey(keys[i+2])}
						if err := keyspace.VisitRange(tx, rg, &c); err != nil {
							b.Fatal(err)
						}
					}
					return nil
				})
			}
			if c.n != 2*ranges*b.N {
				b.Fatalf("visited %d pairs, want %d", c.n, 2*ranges*b.N)
			}
		})
	}
}

// BenchmarkGetRandomlyFilled is BenchmarkGet on a store filled by Puts in
// no order, 1,000 a transaction, with keys that begin alike, as a geo
// index's do: the memory backend's leaves are then all made by splits.
func BenchmarkGetRandomlyFilled(b *testing.B) {
	const prefix = "\x02points\x00\x01fleet\x00"
	r := rand.New(rand.NewPCG(1, 2))
	keys := make([][]byte, 200_000)
	for i := range keys {
		keys[i] = binary.BigEndian.AppendUint64([]byte(prefix), r.Uint64())
	}
	for _, be := range storetest.Backends() {
		b.Run(be.Name, func(b *testing.B) {
			s := be.Open(b)
			for batch := range slices.Chunk(keys, 1000) {
				err := s.Update(func(tx keyspace.Tx) error {
					for _, k := range batch {
						if err := tx.Put(k, []byte("value")); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			s.View(func(tx keyspace.Tx) error {
				for i := 0; i < b.N; i++ {
					if _, err := tx.Get(keys[r.IntN(len(keys))]); err != nil {
						b.Fatal(err)
					}
				}
				return nil
			})
		})
	}
}

// BenchmarkConcurrentWrites: 16 and 64 goroutines (on GOMAXPROCS 2),
// each writing one random key per call, by Update and by Batch, on bbolt
// with every commit synced (as a server's writes are) and in memory.
// ns/op is per write, over all the goroutines: writes/s is 1e9 / ns/op.
func BenchmarkConcurrentWrites(b *testing.B) {
	stores := []struct {
		name string
		open func(b *testing.B) keyspace.Store
	}{
		{"bbolt-synced", func(b *testing.B) keyspace.Store {
			s, err := keyspace.Open(b.TempDir()+"/w.db", nil)
			if err != nil {
				b.Fatal(err)
			}
			return s
		}},
		{"memory", func(*testing.B) keyspace.Store { return keyspace.NewMemory() }},
	}
	for _, st := range stores {
		for _, how := range []string{"Update", "Batch"} {
			for _, per := range []int{8, 32} {
				b.Run(fmt.Sprintf("%s/%s/goroutines=%d×GOMAXPROCS", st.name, how, per), func(b *testing.B) {
					s := st.open(b)
					defer s.Close()
					write := s.Update
					if how == "Batch" {
						write = s.Batch
					}
					value := make([]byte, 32)
					var seed atomic.Uint64
					b.SetParallelism(per)
					b.RunParallel(func(pb *testing.PB) {
						r := rand.New(rand.NewPCG(seed.Add(1), 5))
						for pb.Next() {
							key := benchKey(r.Uint64())
							if err := write(func(tx keyspace.Tx) error { return tx.Put(key, value) }); err != nil {
								b.Error(err)
								return
							}
						}
					})
				})
			}
		}
	}
}
