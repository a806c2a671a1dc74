package enumkeys

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/storetest"
)

// BenchmarkAppend: one append per transaction, and 1,000 per transaction.
func BenchmarkAppend(b *testing.B) {
	for _, be := range storetest.Backends() {
		for _, batch := range []int{1, 1000} {
			b.Run(fmt.Sprintf("%s/batch=%d", be.Name, batch), func(b *testing.B) {
				s := be.Open(b)
				log := NewLog("bench")
				data := make([]byte, 100)
				at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
				b.ResetTimer()
				for n := 0; n < b.N; n += batch {
					err := s.Update(func(tx keyspace.Tx) error {
						for i := 0; i < min(batch, b.N-n); i++ {
							if _, err := log.Append(tx, fmt.Sprint("user", i%100), at, data); err != nil {
								return err
							}
						}
						return nil
					})
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "appends/s")
			})
		}
	}
}

// BenchmarkReads: a year of messages for one user (about 100 a day), then
// the latest 10 and one day's messages.
func BenchmarkReads(b *testing.B) {
	for _, be := range storetest.Backends() {
		b.Run(be.Name, func(b *testing.B) {
			s := be.Open(b)
			log := NewLog("bench")
			start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
			const perDay, days = 100, 365
			err := s.Update(func(tx keyspace.Tx) error {
				for i := 0; i < perDay*days; i++ {
					at := start.Add(time.Duration(i) * 24 * time.Hour / perDay)
					if _, err := log.Append(tx, "alice", at, []byte("hello")); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
			b.Run("latest10", func(b *testing.B) {
				for b.Loop() {
					s.View(func(tx keyspace.Tx) error {
						items, err := log.Latest(tx, "alice", 10)
						if err != nil || len(items) != 10 {
							b.Fatal(len(items), err)
						}
						return nil
					})
				}
			})
			b.Run("one-day-of-365", func(b *testing.B) {
				for i := 0; b.Loop(); i++ {
					day := start.AddDate(0, 0, i%days)
					s.View(func(tx keyspace.Tx) error {
						p, err := log.Day(tx, "alice", day, nil)
						if err != nil || len(p.Items) != perDay {
							b.Fatal(len(p.Items), err)
						}
						return nil
					})
				}
			})
		})
	}
}

// BenchmarkAppendAll: a bulk load of 50,000 items of 1,000 parents, at
// random times, into an empty log in one transaction, through Append one
// item at a time and through AppendAll; ns/op is the whole load's.
func BenchmarkAppendAll(b *testing.B) {
	const n = 50_000
	r := rand.New(rand.NewPCG(1, 2))
	entries := make([]Entry, n)
	for i := range entries {
		entries[i] = Entry{fmt.Sprint("user", r.IntN(1000)), time.Unix(1_700_000_000+r.Int64N(10_000_000), 0), make([]byte, 100)}
	}
	for _, be := range storetest.Backends() {
		for _, bulk := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/AppendAll=%v", be.Name, bulk), func(b *testing.B) {
				for b.Loop() {
					b.StopTimer()
					s := be.Open(b)
					b.StartTimer()
					err := s.Update(func(tx keyspace.Tx) error {
						log := NewLog("bench")
						if bulk {
							_, err := log.AppendAll(tx, entries)
							return err
						}
						for _, e := range entries {
							if _, err := log.Append(tx, e.Parent, e.At, e.Data); err != nil {
								return err
							}
						}
						return nil
					})
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "items/s")
			})
		}
	}
}
