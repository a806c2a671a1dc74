package composite

import (
	"fmt"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/storetest"
)

var benchKey = Tuple{"US", "CA", "San Francisco", int64(123456)}

func BenchmarkPack(b *testing.B) {
	buf := make([]byte, 0, 64)
	for i := 0; i < b.N; i++ {
		buf, _ = benchKey.AppendPack(buf[:0])
	}
}

func BenchmarkUnpack(b *testing.B) {
	packed := benchKey.Pack()
	for i := 0; i < b.N; i++ {
		if _, err := Unpack(packed); err != nil {
			b.Fatal(err)
		}
	}
}

func benchStores(b *testing.B, fn func(b *testing.B, s keyspace.Store)) {
	for _, be := range storetest.Backends() {
		b.Run(be.Name, func(b *testing.B) { fn(b, be.Open(b)) })
	}
}

// loadUsers writes n users spread over 50 states and 40 cities each.
func loadUsers(b *testing.B, s keyspace.Store, tbl *Table, n int) {
	b.Helper()
	_, err := keyspace.BulkLoad(s, func(yield func([]byte, []byte) bool) {
		for i := 0; i < n; i++ {
			k, _ := tbl.Key(Tuple{fmt.Sprintf("S%02d", i%50), fmt.Sprintf("City %02d", (i/50)%40), int64(i)})
			if !yield(k, []byte{}) {
				return
			}
		}
	}, &keyspace.BulkOptions{BatchSize: 200_000})
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkPrefixScan10k scans one state of 10,000 users, decoding each key.
func BenchmarkPrefixScan10k(b *testing.B) {
	benchStores(b, func(b *testing.B, s keyspace.Store) {
		tbl := NewTable("users", userSchema)
		loadUsers(b, s, tbl, 500_000) // 10,000 per state
		r, _ := tbl.Query("S07:*")
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			s.View(func(tx keyspace.Tx) error {
				n := 0
				for k := range tx.Scan(r) {
					if _, err := tbl.Subspace().Unpack(k); err != nil {
						b.Fatal(err)
					}
					n++
				}
				if n != 10_000 {
					b.Fatalf("scanned %d", n)
				}
				return nil
			})
		}
	})
}

// BenchmarkGroupCount1M counts 1,000,000 users per state and per city.
func BenchmarkGroupCount1M(b *testing.B) {
	for _, depth := range []int{1, 2} {
		b.Run(fmt.Sprint("depth=", depth), func(b *testing.B) {
			benchStores(b, func(b *testing.B, s keyspace.Store) {
				tbl := NewTable("users", userSchema)
				loadUsers(b, s, tbl, 1_000_000)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					s.View(func(tx keyspace.Tx) error {
						g, err := tbl.Count(tx, nil, depth)
						if err != nil || len(g) != []int{0, 50, 2000}[depth] {
							b.Fatalf("%d groups, %v", len(g), err)
						}
						return nil
					})
				}
			})
		})
	}
}
