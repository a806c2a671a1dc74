package bench_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/keyspacedb/keyspace/bench"
)

// A small run: every peer answers the same queries, and every exact peer
// finds what brute force finds. (`keyspace bench` prints the whole report;
// Report.WriteMarkdown and Report.Charts write it for people.)
func Example() {
	rep, err := bench.Run(context.Background(), bench.Config{Points: 2000, Queries: 10})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, res := range rep.Results {
		if res.Exact && res.Query == (bench.Query{Kind: "radius", Metres: 10_000}) {
			fmt.Printf("%s: recall %.3f\n", res.Peer, res.Recall)
		}
	}
	// Output:
	// brute force: recall 1.000
	// R-tree (tidwall/rtree): recall 1.000
	// keyspace memory: recall 1.000
	// keyspace bbolt: recall 1.000
}

// A run on points of your own (Config.Data): a ring of 500 points a
// kilometre or so apart around Oslo. Dataset names them in the report.
func Example_ownPoints() {
	var points []bench.Point
	for i := range 500 {
		points = append(points, bench.Point{ID: fmt.Sprint("p", i), Lat: 59.9 + float64(i%25)*0.01, Lon: 10.7 + float64(i/25)*0.02})
	}
	rep, err := bench.Run(context.Background(), bench.Config{Data: points, Dataset: "oslo grid", Queries: 5, Passes: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(rep.Dataset, rep.Points)
	for _, res := range rep.Results {
		if res.Peer == "keyspace memory" && res.Query.Kind == "knn" && res.Query.K == 10 {
			fmt.Printf("%s, k = 10: %.0f results a query, recall %.3f\n", res.Peer, res.ResultsPerQuery, res.Recall)
		}
	}
	// Output:
	// oslo grid 500
	// keyspace memory, k = 10: 10 results a query, recall 1.000
}

// Two runs on the same points, side by side, as `keyspace bench --compare`
// prints them: each peer's time over the R-tree's in each run (Compare),
// which the machine's speed from run to run leaves out. The candidates a
// peer reads are the same in both; a run of other points is not compared.
func ExampleCompare() {
	cfg := bench.Config{Points: 1000, Queries: 5, Passes: 1}
	before, err := bench.Run(context.Background(), cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	after, err := bench.Run(context.Background(), cfg)
	if err != nil {
		fmt.Println(err)
		return
	}
	c, err := bench.Compare(before, after)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, ch := range c.Results {
		if ch.Peer == "keyspace memory" && ch.Query.Kind == "radius" {
			fmt.Printf("%s, %s: candidates per result alike: %v; a ratio in each run: %v\n", ch.Query, ch.Peer,
				ch.Before.CandidatesPerResult == ch.After.CandidatesPerResult, ch.BeforeRatio > 0 && ch.AfterRatio > 0)
		}
	}
	before.Points = 2000
	_, err = bench.Compare(before, after)
	fmt.Println(errors.Is(err, bench.ErrNotComparable))
	// Output:
	// radius 1 km, keyspace memory: candidates per result alike: true; a ratio in each run: true
	// radius 10 km, keyspace memory: candidates per result alike: true; a ratio in each run: true
	// radius 100 km, keyspace memory: candidates per result alike: true; a ratio in each run: true
	// true
}
