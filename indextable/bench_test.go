package indextable

import (
	"fmt"
	"testing"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/storetest"
)

// BenchmarkPut: a record put with 0, 1 and 3 indexes, 1,000 per
// transaction.
func BenchmarkPut(b *testing.B) {
	for _, be := range storetest.Backends() {
		for _, n := range []int{0, 1, 3} {
			b.Run(fmt.Sprintf("%s/indexes=%d", be.Name, n), func(b *testing.B) {
				s := be.Open(b)
				tb, all := usersTable(b)
				for _, ix := range []*Index[user]{all.status, all.tags, all.email, all.city}[n:] {
					tb.RemoveIndex(ix)
				}
				b.ResetTimer()
				for i := 0; i < b.N; i += 1000 {
					err := s.Update(func(tx keyspace.Tx) error {
						for j := i; j < min(i+1000, b.N); j++ {
							u := user{Name: fmt.Sprint("n", j), City: fmt.Sprint("c", j%50), Email: fmt.Sprint(j, "@x"), Tags: []string{"a", "b"}}
							if _, err := tb.Put(tx, composite.Tuple{int64(j)}, u); err != nil {
								return err
							}
						}
						return nil
					})
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkLookup: the 20 records of one city out of 100,000, by index.
func BenchmarkLookup(b *testing.B) {
	for _, be := range storetest.Backends() {
		b.Run(be.Name, func(b *testing.B) {
			s := be.Open(b)
			tb, ix := usersTable(b)
			s.Update(func(tx keyspace.Tx) error {
				for j := 0; j < 100_000; j++ {
					tb.Put(tx, composite.Tuple{int64(j)}, user{Name: fmt.Sprint(j), City: fmt.Sprint("c", j%5000)})
				}
				return nil
			})
			b.Run("covered", func(b *testing.B) {
				for i := 0; b.Loop(); i++ {
					s.View(func(tx keyspace.Tx) error {
						p, _ := ix.city.Scan(tx, ix.city.Equal(fmt.Sprint("c", i%5000)), nil)
						if len(p.Entries) != 20 {
							b.Fatal(len(p.Entries))
						}
						return nil
					})
				}
			})
			b.Run("records", func(b *testing.B) {
				for i := 0; b.Loop(); i++ {
					s.View(func(tx keyspace.Tx) error {
						p, _ := ix.city.Scan(tx, ix.city.Equal(fmt.Sprint("c", i%5000)), nil)
						recs, err := ix.city.Records(tx, p.Entries)
						if err != nil || len(recs) != 20 {
							b.Fatal(err)
						}
						return nil
					})
				}
			})
		})
	}
}
