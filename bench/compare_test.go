package bench

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

// twoRuns is an earlier and a later run on the same points, written by
// hand: the later one asks one kind more and one fewer, lacks Redis, and
// finds the machine faster at 1 km and slower at 10 km.
func twoRuns() (before, after *Report) {
	r1, r10, k10, box := Query{Kind: "radius", Metres: 1000}, Query{Kind: "radius", Metres: 10_000}, Query{Kind: "knn", K: 10}, Query{Kind: "box", Metres: 20_000}
	before = &Report{Dataset: "clustered", Points: 1000, Queries: 10, Passes: 3, Seed: 1,
		Loads: []Load{{Peer: rtreeName, PointsPerSec: 1e6}, {Peer: "keyspace memory", PointsPerSec: 2e6}, {Peer: "Redis GEOSEARCH", PointsPerSec: 5e5}},
		Results: []Result{
			{Query: r1, Peer: rtreeName, MedianMicros: 2, CandidatesPerResult: 1.3},
			{Query: r1, Peer: "keyspace memory", MedianMicros: 4, CandidatesPerResult: 1.9},
			{Query: r10, Peer: rtreeName, MedianMicros: 10},
			{Query: r10, Peer: "keyspace memory", MedianMicros: 9},
			{Query: box, Peer: rtreeName, MedianMicros: 3},
		}}
	after = &Report{Dataset: "clustered", Points: 1000, Queries: 20, Passes: 3, Seed: 1,
		Loads: []Load{{Peer: rtreeName, PointsPerSec: 1.1e6}, {Peer: "keyspace memory", PointsPerSec: 3e6}},
		Results: []Result{
			{Query: r1, Peer: rtreeName, MedianMicros: 1, CandidatesPerResult: 1.3},
			{Query: r1, Peer: "keyspace memory", MedianMicros: 1.5, CandidatesPerResult: 1.8},
			{Query: r10, Peer: rtreeName, MedianMicros: 12},
			{Query: r10, Peer: "keyspace memory", MedianMicros: 12},
			{Query: k10, Peer: rtreeName, MedianMicros: 5},
			{Query: k10, Peer: "keyspace memory", MedianMicros: 2},
		}}
	return before, after
}

// TestCompare pairs two hand-written runs: each peer's ratio to the
// R-tree in its own run (memory at 1 km: 4/2 = 2× before, 1.5/1 = 1.5×
// after, 25% less), the R-tree's drift (the geometric mean of 1/2 and
// 12/10), and notes for what one run alone has.
func TestCompare(t *testing.T) {
	before, after := twoRuns()
	c, err := Compare(before, after)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Results) != 4 || len(c.Loads) != 2 {
		t.Fatalf("%d results, %d loads paired; want 4 and 2", len(c.Results), len(c.Loads))
	}
	want := []struct {
		peer          string
		before, after float64
	}{{rtreeName, 1, 1}, {"keyspace memory", 2, 1.5}, {rtreeName, 1, 1}, {"keyspace memory", 0.9, 1}}
	for i, w := range want {
		ch := c.Results[i]
		if ch.Peer != w.peer || math.Abs(ch.BeforeRatio-w.before) > 1e-12 || math.Abs(ch.AfterRatio-w.after) > 1e-12 {
			t.Errorf("row %d: %s %v → %v; want %s %v → %v", i, ch.Peer, ch.BeforeRatio, ch.AfterRatio, w.peer, w.before, w.after)
		}
	}
	if d, w := c.Drift(), math.Sqrt(0.5*1.2); math.Abs(d-w) > 1e-12 {
		t.Errorf("drift %v, want %v", d, w)
	}
	for _, note := range []string{"Redis GEOSEARCH: in the earlier run only", "knn k=10: asked in this run only", "box 20 km: asked in the earlier run only", "10 queries a kind in 3 passes, this one 20 in 3"} {
		if !strings.Contains(strings.Join(c.Notes, "\n"), note) {
			t.Errorf("notes %q lack %q", c.Notes, note)
		}
	}
	var out bytes.Buffer
	if err := c.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(out.String()), " ") // the columns' padding aside
	for _, s := range []string{
		"on 1,000 clustered points (seed 1)",
		"the R-tree's median moved -23%", // √0.6 = 0.775
		"keyspace memory 2.00× 1.50× -25% 4.0 1.5 1.90 1.80",
		"keyspace memory 0.90× 1.00× +11% 9.0 12.0",
		"keyspace memory 2,000,000 3,000,000 +50%",
	} {
		if !strings.Contains(text, s) {
			t.Errorf("text lacks %q:\n%s", s, text)
		}
	}
}

// TestCompareMarkdown writes the comparison as a report's section: a row
// a query and peer, each named, and the load table's figures aligned
// right.
func TestCompareMarkdown(t *testing.T) {
	c, err := Compare(twoRuns())
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := c.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, s := range []string{
		"## Against the earlier run\n\n_This run against the earlier one, on 1,000 clustered points (seed 1)._",
		"| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
		"| radius 1 km | keyspace memory | 2.00× | 1.50× | -25% | 4.0 | 1.5 | 1.90 | 1.80 |\n",
		"| radius 10 km | keyspace memory | 0.90× | 1.00× | +11% | 9.0 | 12.0 | — | — |\n",
		"| load | points/s before | after | change |\n| --- | ---: | ---: | ---: |\n",
		"| keyspace memory | 2,000,000 | 3,000,000 | +50% |\n",
	} {
		if !strings.Contains(md, s) {
			t.Errorf("Markdown lacks %q:\n%s", s, md)
		}
	}
	if rows := strings.Count(md, "\n| radius "); rows != len(c.Results) {
		t.Errorf("%d query rows, want %d", rows, len(c.Results))
	}
}

// TestChange: a change is signed and whole, and one that rounds to
// nothing has no sign.
func TestChange(t *testing.T) {
	for _, c := range []struct {
		before, after float64
		want          string
	}{{4, 3, "-25%"}, {9, 10, "+11%"}, {1000, 997, "0%"}, {1000, 1003, "0%"}, {1, 2, "+100%"}, {0, 2, "—"}, {2, 0, "—"}} {
		if got := change(c.before, c.after); got != c.want {
			t.Errorf("change(%v, %v) = %q, want %q", c.before, c.after, got, c.want)
		}
	}
}

// TestCompareNotComparable: runs of other points are not compared, and
// the error says how they differ.
func TestCompareNotComparable(t *testing.T) {
	for _, change := range []func(*Report){
		func(r *Report) { r.Points = 2000 },
		func(r *Report) { r.Dataset = "uniform" },
		func(r *Report) { r.Seed = 2 },
	} {
		before, after := twoRuns()
		change(after)
		_, err := Compare(before, after)
		if !errors.Is(err, ErrNotComparable) || !strings.Contains(err.Error(), before.describe()) || !strings.Contains(err.Error(), after.describe()) {
			t.Errorf("%s against %s: %v", before.describe(), after.describe(), err)
		}
	}
}

// TestReadJSON reads back what WriteJSON wrote, and refuses what is not a
// report.
func TestReadJSON(t *testing.T) {
	before, _ := twoRuns()
	var b bytes.Buffer
	if err := before.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	got, err := ReadJSON(&b)
	if err != nil || !reflect.DeepEqual(got, before) {
		t.Errorf("read back %+v, %v; want %+v", got, err, before)
	}
	for _, bad := range []string{"", "not json", "[1, 2]", "{}", `{"points": 10, "results": []}`, `{"points": "many"}`} {
		if _, err := ReadJSON(strings.NewReader(bad)); !errors.Is(err, ErrBadReport) {
			t.Errorf("%q: %v, want ErrBadReport", bad, err)
		}
	}
}
