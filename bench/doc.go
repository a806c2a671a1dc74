// Package bench holds the proximity benchmarks: workloads, peers and the
// report.
//
// Not yet implemented; see issue 8.
package bench
