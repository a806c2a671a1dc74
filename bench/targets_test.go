package bench

import (
	"strings"
	"testing"
)

// TestTargetsVerdicts checks a made-up run against the goals, each figure
// put on one side of its limit or exactly on it, so that every verdict is
// known before the code gives it.
func TestTargetsVerdicts(t *testing.T) {
	r1, r10, r100, knn := Queries[0], Queries[1], Queries[2], Query{Kind: "knn", K: 10}
	res := func(q Query, peer string, median, cand, recall float64) Result {
		return Result{Query: q, Peer: peer, MedianMicros: median, CandidatesPerResult: cand, Recall: recall, Exact: peer != redisName}
	}
	rep := &Report{Dataset: "clustered", Points: 1_000_000, Results: []Result{
		res(r1, rtreeName, 2, 1.3, 1),
		res(r1, memoryName, 2.02, 1.99, 1),  // 1.01×: missed
		res(r1, boltName, 4, 1.99, 1),       // exactly 2×: met
		res(r1, gridName, 5, 4.74, 1),       //
		res(r10, rtreeName, 50, 1.2, 1),     //
		res(r10, memoryName, 50.2, 2, 1),    // 1.004× shows as 1.00×: met
		res(r10, boltName, 101, 2, 0.9996),  // 2.02×: missed; 2 candidates: not fewer than 2; recall short of 1
		res(r100, memoryName, 10, 1.01, 1),  // no R-tree row: no time targets for 100 km
		res(r100, boltName, 10, 1.01, 1),    //
		res(knn, rtreeName, 40, 1.1, 1),     //
		res(knn, memoryName, 60, 2.9, 1),    // exactly 1.5×: met
		res(knn, boltName, 62, 2.9, 1),      // 1.55×: missed
		res(knn, redisName, 100, 0, 0.5),    // not exact: its recall is not a target
		res(r1, "brute force", 900, 1e4, 1), //
	}, Loads: []Load{
		{Peer: memoryName, PointsPerSec: 1_000_000},
		{Peer: boltName, PointsPerSec: 249_999.4},
		{Peer: rtreeName, PointsPerSec: 10},
	}}
	want := []struct {
		goal  string
		shown string
		met   bool
	}{
		{"radius 1 km: keyspace memory no slower", "1.01×", false},
		{"radius 1 km: keyspace bbolt within 2×", "2.00×", true},
		{"radius 1 km: keyspace reads fewer than 2 candidates per result (the 3×3 block: 4.74)", "1.99", true},
		{"radius 10 km: keyspace memory no slower", "1.00×", true},
		{"radius 10 km: keyspace bbolt within 2×", "2.02×", false},
		{"radius 10 km: keyspace reads fewer than 2", "2.00", false},
		{"radius 100 km: keyspace reads fewer than 2", "1.01", true},
		{"knn k=10: keyspace memory within 1.5×", "1.50×", true},
		{"knn k=10: keyspace bbolt within 1.5×", "1.55×", false},
		{"every exact peer finds what brute force finds, on every query (worst: keyspace bbolt on radius 10 km)", "0.999", false},
		{"bulk load into memory", "1,000,000 points/s", true},
		{"bulk load into bbolt", "249,999 points/s", false},
	}
	got := rep.targets()
	if len(got) != len(want) {
		for _, g := range got {
			t.Logf("%s %s %v", g.Goal, g.measured(), g.Met)
		}
		t.Fatalf("%d targets, want %d", len(got), len(want))
	}
	for i, w := range want {
		g := got[i]
		if !strings.HasPrefix(g.Goal, w.goal) || g.measured() != w.shown || g.Met != w.met {
			t.Errorf("target %d: %q %s met=%v, want %q… %s met=%v", i, g.Goal, g.measured(), g.Met, w.goal, w.shown, w.met)
		}
	}
	if rep.TargetsNote() != "" {
		t.Errorf("note %q for the targets' own size", rep.TargetsNote())
	}
	rep.Points = 100_000
	if !strings.Contains(rep.TargetsNote(), "1,000,000 clustered points; this run has 100,000") {
		t.Errorf("note %q", rep.TargetsNote())
	}
	// The verdicts: plain at the targets' size, in brackets otherwise.
	for _, tc := range []struct {
		met, atSize bool
		want        string
	}{{true, true, "met"}, {false, true, "MISSED"}, {true, false, "(met)"}, {false, false, "(missed)"}} {
		if got := (Target{Met: tc.met}).verdict(tc.atSize); got != tc.want {
			t.Errorf("verdict met=%v at size=%v: %q, want %q", tc.met, tc.atSize, got, tc.want)
		}
	}
}

// TestFigure: the tables' figures keep their decimals below 1,000 and set
// their thousands apart from there, rounding at the edge as they would
// be printed.
func TestFigure(t *testing.T) {
	for _, tc := range []struct {
		v        float64
		decimals int
		want     string
	}{
		{0, 0, "0"},
		{0.34, 1, "0.3"},
		{1.881, 2, "1.88"},
		{999.94, 1, "999.9"},
		{999.96, 1, "1,000"},
		{999.4, 0, "999"},
		{999.5, 0, "1,000"},
		{62421.97, 2, "62,422"},
		{2354944.4, 0, "2,354,944"},
		{-1234.4, 1, "-1,234"},
	} {
		if got := figure(tc.v, tc.decimals); got != tc.want {
			t.Errorf("figure(%v, %d) = %q, want %q", tc.v, tc.decimals, got, tc.want)
		}
	}
}
