package bench

import (
	"fmt"
	"math"
	"strconv"
)

// A Target is one of the goals the benchmark is run against, with what
// this run measured. The goals are set for 1,000,000 clustered points
// (TargetPoints, TargetDataset); a run of another size or dataset is
// checked against them all the same, and says so (Report.TargetsNote).
type Target struct {
	Goal  string  `json:"goal"`  // what is wanted, in words
	Value float64 `json:"value"` // what this run measured, as shown (rounded as Unit says)
	Limit float64 `json:"limit"`
	// AtLeast says the value must be at least Limit; otherwise at most
	// Limit, or below it when Below is set.
	AtLeast bool   `json:"at_least,omitempty"`
	Below   bool   `json:"below,omitempty"`
	Unit    string `json:"unit"` // "×" (a ratio, two decimals), "cand" (candidates per result, two decimals), "recall" (three decimals), "points/s" (whole)
	Met     bool   `json:"met"`
}

// The size and dataset the targets are set for.
const (
	TargetPoints  = 1_000_000
	TargetDataset = "clustered"
)

// Names of keyspace's peers, which the targets are about.
const (
	memoryName = "keyspace memory"
	boltName   = "keyspace bbolt"
)

// targets checks the run against the goals, from its Results and Loads:
// for radius queries, keyspace in memory no slower than the R-tree, on
// bbolt within twice its time, and fewer than 2 candidates read per
// result; for the 10 nearest, within 1.5 times the R-tree's time with
// recall 1; every exact peer's recall 1 on every query; bulk loads of at
// least 250,000 points/s into bbolt and 1,000,000 into memory. A goal
// whose figures the run lacks (a query it did not ask) is left out.
func (r *Report) targets() []Target {
	var out []Target
	add := func(t Target) {
		switch {
		case t.AtLeast:
			t.Met = t.Value >= t.Limit
		case t.Below:
			t.Met = t.Value < t.Limit
		default:
			t.Met = t.Value <= t.Limit
		}
		out = append(out, t)
	}
	// timeRatio is peer's median over the R-tree's, rounded as shown.
	timeRatio := func(q Query, peer string) (float64, bool) {
		res, ok := r.result(q, peer)
		if !ok {
			return 0, false
		}
		v, ok := r.timeRatio(res)
		return round(v, 2), ok
	}
	for _, q := range Queries {
		if q.Kind != "radius" {
			continue
		}
		if v, ok := timeRatio(q, memoryName); ok {
			add(Target{Goal: fmt.Sprintf("%s: keyspace memory no slower than the R-tree", q), Value: v, Limit: 1, Unit: "×"})
		}
		if v, ok := timeRatio(q, boltName); ok {
			add(Target{Goal: fmt.Sprintf("%s: keyspace bbolt within 2× the R-tree's time", q), Value: v, Limit: 2, Unit: "×"})
		}
		if res, ok := r.result(q, boltName); ok && res.CandidatesPerResult > 0 {
			goal := fmt.Sprintf("%s: keyspace reads fewer than 2 candidates per result", q)
			if grid, ok := r.result(q, gridName); ok && grid.CandidatesPerResult > 0 {
				goal += fmt.Sprintf(" (the 3×3 block: %.2f)", grid.CandidatesPerResult)
			}
			add(Target{Goal: goal, Value: round(res.CandidatesPerResult, 2), Limit: 2, Below: true, Unit: "cand"})
		}
	}
	knn10 := Query{Kind: "knn", K: 10}
	for _, peer := range []string{memoryName, boltName} {
		if v, ok := timeRatio(knn10, peer); ok {
			add(Target{Goal: fmt.Sprintf("%s: %s within 1.5× the R-tree's time", knn10, peer), Value: v, Limit: 1.5, Unit: "×"})
		}
	}
	// Recall: the worst of every exact peer's on every query.
	worst, peer, query, sawExact := 1.0, "", Query{}, false
	for _, res := range r.Results {
		if res.Exact {
			sawExact = true
			if res.Recall < worst {
				worst, peer, query = res.Recall, res.Peer, res.Query
			}
		}
	}
	if sawExact {
		goal := "every exact peer finds what brute force finds, on every query"
		if peer != "" {
			goal += fmt.Sprintf(" (worst: %s on %s)", peer, query)
		}
		add(Target{Goal: goal, Value: math.Floor(worst*1000) / 1000, Limit: 1, AtLeast: true, Unit: "recall"})
	}
	for _, l := range r.Loads {
		switch l.Peer {
		case boltName:
			add(Target{Goal: "bulk load into bbolt", Value: math.Round(l.PointsPerSec), Limit: 250_000, AtLeast: true, Unit: "points/s"})
		case memoryName:
			add(Target{Goal: "bulk load into memory", Value: math.Round(l.PointsPerSec), Limit: 1_000_000, AtLeast: true, Unit: "points/s"})
		}
	}
	return out
}

// round rounds x to the given decimals exactly as %.Nf shows it (math.Round
// of x·10^N can differ from it in the last place).
func round(x float64, decimals int) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', decimals, 64), 64)
	return v
}

// atTargetSize reports whether the run is of the size and dataset the
// targets are set for.
func (r *Report) atTargetSize() bool { return r.Points == TargetPoints && r.Dataset == TargetDataset }

// TargetsNote says what the targets are set for when the run differs,
// and is empty when it does not.
func (r *Report) TargetsNote() string {
	if r.atTargetSize() {
		return ""
	}
	return fmt.Sprintf("the targets are set for %s %s points; this run has %s %s points, so its verdicts, in brackets, are for reference: keyspace bench --points %d --queries 50 checks them",
		thousands(TargetPoints), TargetDataset, thousands(float64(r.Points)), r.Dataset, TargetPoints)
}

// measured is the target's value as the report shows it.
func (t Target) measured() string {
	switch t.Unit {
	case "×":
		return figure(t.Value, 2) + "×"
	case "cand":
		return figure(t.Value, 2)
	case "recall":
		return fmt.Sprintf("%.3f", t.Value)
	}
	return figure(t.Value, 0) + " " + t.Unit
}

// wanted is the target's limit in words: "≤ 1×", "≥ 250,000 points/s".
func (t Target) wanted() string {
	op := "≤"
	switch {
	case t.AtLeast:
		op = "≥"
	case t.Below:
		op = "<"
	}
	switch t.Unit {
	case "×":
		return fmt.Sprintf("%s %g×", op, t.Limit)
	case "points/s":
		return fmt.Sprintf("%s %s points/s", op, thousands(t.Limit))
	}
	return fmt.Sprintf("%s %g", op, t.Limit)
}

// verdict is "met" or "MISSED"; in a run of another size or dataset
// than the targets', whose figures are not the ones the targets speak
// of, "(met)" or "(missed)".
func (t Target) verdict(atSize bool) string {
	switch {
	case !atSize && t.Met:
		return "(met)"
	case !atSize:
		return "(missed)"
	case t.Met:
		return "met"
	}
	return "MISSED"
}
