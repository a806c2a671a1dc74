package bench_test

import (
	"context"
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
