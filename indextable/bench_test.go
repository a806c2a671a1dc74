package indextable

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

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

// BenchmarkBuild: an index added to a table of 1,000,000 records
// (KEYSPACE_BENCH_RECORDS to change), built in batches of 100,000 on bbolt,
// interrupted half way and resumed, then verified.
func BenchmarkBuild(b *testing.B) {
	n := 1_000_000
	if v := os.Getenv("KEYSPACE_BENCH_RECORDS"); v != "" {
		n, _ = strconv.Atoi(v)
	}
	for b.Loop() {
		b.StopTimer()
		s := storetest.Backends()[1].Open(b)
		tb := New[user]("people", nil)
		for i := 0; i < n; i += 100_000 {
			s.Update(func(tx keyspace.Tx) error {
				for j := i; j < min(i+100_000, n); j++ {
					tb.Put(tx, composite.Tuple{int64(j)}, user{Name: fmt.Sprint(j), City: fmt.Sprint("c", j%5000)})
				}
				return nil
			})
		}
		ix, _ := tb.AddIndex(IndexSpec[user]{Name: "by_city", Values: func(u user) []composite.Tuple { return []composite.Tuple{{u.City}} }})
		b.StartTimer()
		stop := errors.New("interrupted")
		done, err := ix.Build(s, &BuildOptions{Progress: func(d int) error {
			if d >= n/2 {
				return stop
			}
			return nil
		}})
		if !errors.Is(err, stop) {
			b.Fatal(err)
		}
		rest, err := ix.Build(s, nil)
		if err != nil || done+rest != n {
			b.Fatalf("built %d + %d of %d: %v", done, rest, n, err)
		}
		b.StopTimer()
		s.View(func(tx keyspace.Tx) error {
			if p, err := ix.Verify(tx); err != nil || len(p) != 0 {
				b.Fatalf("verify after build: %d problems, %v", len(p), err)
			}
			return nil
		})
		b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "records/s")
		b.StartTimer()
	}
}

// BenchmarkSeriesFold: 10,000 readings of 20 sensors over an hour (about
// eight a bucket), folded into minute buckets in one transaction, by Add
// one reading at a time and by AddAll; ns/op is per reading.
func BenchmarkSeriesFold(b *testing.B) {
	const n = 10_000
	start := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	readings := make([]Reading, n)
	for i := range readings {
		readings[i] = Reading{Sensor: fmt.Sprint("s", i%20), At: start.Add(time.Duration(i*360) * time.Millisecond), Value: float64(i % 97)}
	}
	for _, be := range storetest.Backends() {
		for _, way := range []string{"Add", "AddAll"} {
			b.Run(be.Name+"/"+way, func(b *testing.B) {
				s := be.Open(b)
				for i := 0; b.Loop(); i++ {
					series := NewSeries(fmt.Sprint("t", i), nil) // a new series each time: every bucket new
					err := s.Update(func(tx keyspace.Tx) error {
						if way == "AddAll" {
							return series.AddAll(tx, readings)
						}
						for _, r := range readings {
							if err := series.Add(tx, r.Sensor, r.At, r.Value); err != nil {
								return err
							}
						}
						return nil
					})
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/reading")
			})
		}
	}
}

// BenchmarkExpiry: what records that expire cost a covered lookup, next to
// the same records with no expiry in the same run (half of "expiring"
// expire at times spread over an hour, asked at its middle, so a quarter
// are read and left out), and what DeleteExpired costs for 1,000 records
// with one index.
func BenchmarkExpiry(b *testing.B) {
	t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	now := t0.Add(30 * time.Minute)
	for _, be := range storetest.Backends() {
		b.Run(be.Name, func(b *testing.B) {
			s := be.Open(b)
			for _, expiring := range []bool{false, true} {
				name := map[bool]string{false: "plain", true: "expiring"}[expiring]
				tb := New[user](name, &Options{Now: func() time.Time { return now }})
				city, _ := tb.AddIndex(IndexSpec[user]{Name: "by_city",
					Values: func(u user) []composite.Tuple { return []composite.Tuple{{u.City}} },
					Cover:  func(u user) any { return u.Name }})
				var rows []Row[user]
				for j := range 100_000 {
					row := Row[user]{Key: composite.Tuple{int64(j)}, Value: user{Name: fmt.Sprint(j), City: fmt.Sprint("c", j%5000)}}
					if expiring && j%2 == 0 {
						row.Expires = t0.Add(time.Duration(j%3600) * time.Second)
					}
					rows = append(rows, row)
				}
				if err := s.Update(func(tx keyspace.Tx) error { return tb.PutAll(tx, rows) }); err != nil {
					b.Fatal(err)
				}
				b.Run(name+"/lookup", func(b *testing.B) {
					for i := 0; b.Loop(); i++ {
						s.View(func(tx keyspace.Tx) error {
							p, err := city.Scan(tx, city.Equal(fmt.Sprint("c", i%5000)), nil)
							if err != nil || len(p.Entries) == 0 {
								b.Fatal(len(p.Entries), err)
							}
							return nil
						})
					}
				})
				b.Run(name+"/get", func(b *testing.B) {
					for i := 0; b.Loop(); i++ {
						s.View(func(tx keyspace.Tx) error {
							_, err := tb.Get(tx, composite.Tuple{int64(i%50_000*2 + 1)})
							if err != nil {
								b.Fatal(err)
							}
							return nil
						})
					}
				})
			}
			// Each round puts back 1,000 records that have expired
			// (untimed) and deletes them with one DeleteExpired.
			b.Run("DeleteExpired/1000", func(b *testing.B) {
				tb := New[user]("sweep", nil)
				tb.AddIndex(IndexSpec[user]{Name: "by_city", Values: func(u user) []composite.Tuple { return []composite.Tuple{{u.City}} }})
				rows := make([]Row[user], 1000)
				for j := range rows {
					rows[j] = Row[user]{Key: composite.Tuple{int64(j)}, Value: user{City: fmt.Sprint("c", j%50)}, Expires: t0}
				}
				for b.Loop() {
					b.StopTimer()
					if err := s.Update(func(tx keyspace.Tx) error { return tb.PutAll(tx, rows) }); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
					var n int
					err := s.Update(func(tx keyspace.Tx) (err error) { n, err = tb.DeleteExpired(tx, now, 0); return err })
					if err != nil || n != 1000 {
						b.Fatal(n, err)
					}
				}
			})
		})
	}
}

// BenchmarkLinkAll: a bulk load of 50,000 likes of 2,000 users for 5,000
// items, at random times, into an empty relation in one transaction,
// through Link one at a time and through LinkAll; ns/op is the whole
// load's.
func BenchmarkLinkAll(b *testing.B) {
	const n = 50_000
	r := rand.New(rand.NewPCG(3, 4))
	edges := make([]Edge, n)
	for i := range edges {
		edges[i] = Edge{fmt.Sprint("user", r.IntN(2000)), fmt.Sprint("item", r.IntN(5000)), time.Unix(1_700_000_000+r.Int64N(10_000_000), 0)}
	}
	for _, be := range storetest.Backends() {
		for _, bulk := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/LinkAll=%v", be.Name, bulk), func(b *testing.B) {
				for b.Loop() {
					b.StopTimer()
					s := be.Open(b)
					b.StartTimer()
					err := s.Update(func(tx keyspace.Tx) error {
						rel := NewRelation("likes")
						if bulk {
							return rel.LinkAll(tx, edges)
						}
						for _, e := range edges {
							if err := rel.Link(tx, e.Left, e.Right, e.At); err != nil {
								return err
							}
						}
						return nil
					})
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "links/s")
			})
		}
	}
}

// BenchmarkTableRename: renaming a table of 50,000 records with one index
// there and back, each a transaction of its own (100,000 keys written and
// as many deleted a rename): 92 ms in memory and 135 ms on bbolt, where
// moving the records before the index entries that sort ahead of them
// took 5.4 s (movePrefixed).
func BenchmarkTableRename(b *testing.B) {
	for _, be := range storetest.Backends() {
		b.Run(be.Name, func(b *testing.B) {
			s := be.Open(b)
			tb := New[renamed]("users", nil)
			if _, err := tb.AddIndex(IndexSpec[renamed]{Name: "by_city", Values: func(r renamed) []composite.Tuple { return []composite.Tuple{{r.City}} }}); err != nil {
				b.Fatal(err)
			}
			if err := s.Update(func(tx keyspace.Tx) error {
				for i := range 50_000 {
					if _, err := tb.Put(tx, composite.Tuple{int64(i)}, renamed{City: fmt.Sprint("c", i%50), N: i}); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				b.Fatal(err)
			}
			names := [2]string{"users", "people"}
			for i := 0; b.Loop(); i++ {
				if err := s.Update(func(tx keyspace.Tx) error {
					return New[renamed](names[i%2], nil).Rename(tx, names[(i+1)%2])
				}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDistinct: the distinct cities of 100,000 records, 40 cities
// of 2,500 records each and 5,000 of 20, by Distinct (a seek a city past
// its first entries) against GroupCounts (every entry read), on both
// backends.
func BenchmarkDistinct(b *testing.B) {
	for _, be := range storetest.Backends() {
		for _, cities := range []int{40, 5000} {
			b.Run(fmt.Sprintf("%s/cities=%d", be.Name, cities), func(b *testing.B) {
				s := be.Open(b)
				tb, ix := usersTable(b)
				if err := s.Update(func(tx keyspace.Tx) error {
					for j := range 100_000 {
						if _, err := tb.Put(tx, composite.Tuple{int64(j)}, user{Name: fmt.Sprint(j), City: fmt.Sprint("c", j%cities)}); err != nil {
							return err
						}
					}
					return nil
				}); err != nil {
					b.Fatal(err)
				}
				for _, way := range []string{"distinct", "group-counts"} {
					b.Run(way, func(b *testing.B) {
						for b.Loop() {
							s.View(func(tx keyspace.Tx) error {
								var n int
								if way == "distinct" {
									groups, err := ix.city.Distinct(tx, nil, 1, 0)
									n = len(groups)
									if err != nil {
										b.Fatal(err)
									}
								} else {
									groups, err := ix.city.GroupCounts(tx, nil, 1)
									n = len(groups)
									if err != nil {
										b.Fatal(err)
									}
								}
								if n != cities {
									b.Fatalf("%d cities, want %d", n, cities)
								}
								return nil
							})
						}
					})
				}
			})
		}
	}
}
