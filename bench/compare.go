package bench

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// Comparing two runs.
//
// A run's microseconds swing about twofold from hour to hour on a shared
// machine, with the machine, not the code; its ratios against the R-tree,
// measured in the same run, swing about ±15%. So a before-and-after of a
// change (a build, an option, a dataset's size) compares each peer's time
// over the R-tree's in each run, and shows the microseconds beside them
// (and how far the R-tree's own moved: the machine's drift).

// ErrNotComparable reports two runs of different points: another dataset,
// size or seed asks other queries of other data.
var ErrNotComparable = errors.New("bench: runs not comparable")

// ErrBadReport reports input that is not a report WriteJSON wrote.
var ErrBadReport = errors.New("bench: not a benchmark report")

// ReadJSON reads a report WriteJSON wrote (`keyspace bench --json`).
// Fields it does not know are left out, so a report of an older or newer
// build reads.
func ReadJSON(r io.Reader) (*Report, error) {
	var rep Report
	if err := json.NewDecoder(r).Decode(&rep); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadReport, err)
	}
	if rep.Points < 1 || len(rep.Results) == 0 {
		return nil, fmt.Errorf("%w: no points or no results (want the JSON of keyspace bench --json)", ErrBadReport)
	}
	return &rep, nil
}

// Comparable returns nil when before and after ran on the same points
// (dataset, size and seed), and otherwise ErrNotComparable saying how
// they differ. The number of queries and passes may differ: more of
// either only measures the same thing more closely.
func Comparable(before, after *Report) error {
	if before.Dataset == after.Dataset && before.Points == after.Points && before.Seed == after.Seed {
		return nil
	}
	return fmt.Errorf("%w: the earlier run has %s, this one %s", ErrNotComparable, before.describe(), after.describe())
}

// describe is what points r ran on, as Comparable names them.
func (r *Report) describe() string {
	return fmt.Sprintf("%s %s points (seed %d)", thousands(float64(r.Points)), r.Dataset, r.Seed)
}

// A Comparison is two runs' figures side by side, paired by query and
// peer in the later run's order.
type Comparison struct {
	Before, After *Report
	Loads         []LoadChange
	Results       []ResultChange
	// Notes say what one run has and the other lacks (a peer, a query
	// kind), and where the runs asked differently.
	Notes []string
}

// A ResultChange is one peer's figures for one query kind in both runs.
type ResultChange struct {
	Query         Query
	Peer          string
	Before, After Result
	// BeforeRatio and AfterRatio are the peer's median over the R-tree's
	// in the same run; 0 where either has no time.
	BeforeRatio, AfterRatio float64
}

// A LoadChange is one peer's loading figures in both runs.
type LoadChange struct {
	Peer          string
	Before, After Load
}

// Compare pairs the figures of two runs on the same points (Comparable).
func Compare(before, after *Report) (*Comparison, error) {
	if err := Comparable(before, after); err != nil {
		return nil, err
	}
	c := &Comparison{Before: before, After: after}
	if before.Queries != after.Queries || before.Passes != after.Passes {
		c.Notes = append(c.Notes, fmt.Sprintf("the earlier run asked %d queries a kind in %d passes, this one %d in %d", before.Queries, before.Passes, after.Queries, after.Passes))
	}
	seen := map[string]bool{} // what after has, to name what before alone has
	for _, l := range after.Loads {
		seen[l.Peer] = true
		if old, ok := before.load(l.Peer); ok {
			c.Loads = append(c.Loads, LoadChange{Peer: l.Peer, Before: old, After: l})
		} else {
			c.Notes = append(c.Notes, fmt.Sprintf("%s: in this run only", l.Peer))
		}
	}
	for _, l := range before.Loads {
		if !seen[l.Peer] {
			c.Notes = append(c.Notes, fmt.Sprintf("%s: in the earlier run only", l.Peer))
		}
	}
	for _, res := range after.Results {
		if old, ok := before.result(res.Query, res.Peer); ok {
			ch := ResultChange{Query: res.Query, Peer: res.Peer, Before: old, After: res}
			ch.BeforeRatio, _ = before.timeRatio(old)
			ch.AfterRatio, _ = after.timeRatio(res)
			c.Results = append(c.Results, ch)
		}
	}
	c.Notes = append(c.Notes, kindsOnlyIn(after, before, "this run")...)
	c.Notes = append(c.Notes, kindsOnlyIn(before, after, "the earlier run")...)
	return c, nil
}

// kindsOnlyIn is a note for each query kind r asked and other did not,
// in r's order: "knn k=10: asked in this run only".
func kindsOnlyIn(r, other *Report, which string) []string {
	named := map[Query]bool{}
	for _, res := range other.Results {
		named[res.Query] = true // asked there: nothing to say
	}
	var notes []string
	for _, res := range r.Results {
		if !named[res.Query] {
			named[res.Query] = true // said once
			notes = append(notes, fmt.Sprintf("%s: asked in %s only", res.Query, which))
		}
	}
	return notes
}

// load is the loading figures of peer in r.
func (r *Report) load(peer string) (Load, bool) {
	for _, l := range r.Loads {
		if l.Peer == peer {
			return l, true
		}
	}
	return Load{}, false
}

// Drift is how far the R-tree's median moved from the earlier run to
// this one over the query kinds both asked, as a factor (1.1: 10%
// slower): the geometric mean of its medians' ratios. It is the
// machine's change more than any code's, which is why the comparison
// reads the other peers by their ratio to the R-tree. 0 when no query
// has the R-tree's time in both runs.
func (c *Comparison) Drift() float64 {
	sum, n := 0.0, 0
	for _, ch := range c.Results {
		if ch.Peer == rtreeName && ch.Before.MedianMicros > 0 && ch.After.MedianMicros > 0 {
			sum += math.Log(ch.After.MedianMicros / ch.Before.MedianMicros)
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return math.Exp(sum / float64(n))
}

// change is after over before as a signed percentage ("-12%", "+3%"), or
// "—" when either is 0.
func change(before, after float64) string {
	if before == 0 || after == 0 {
		return "—"
	}
	p := math.Round(100 * (after/before - 1))
	if p == 0 {
		return "0%" // not "-0%" for a change of -0.3%
	}
	return fmt.Sprintf("%+.0f%%", p)
}

// preamble is what the comparison's tables stand under: the points, the
// R-tree's drift, how much noise to expect, and the notes.
func (c *Comparison) preamble() []string {
	lines := []string{"this run against the earlier one, on " + c.After.describe()}
	if d := c.Drift(); d != 0 {
		lines = append(lines, fmt.Sprintf("the R-tree's median moved %s between the runs: the machine's drift, which the ratios leave out", change(1, d)))
	}
	lines = append(lines, "a ratio swings about ±15% between runs of one build at 100 queries a kind and 3 passes (more with fewer): read smaller changes as noise")
	for _, n := range c.Notes {
		lines = append(lines, "note: "+n)
	}
	return lines
}

// The comparison's tables: their headings, and a row's cells.
var (
	resultChangeColumns = []string{"query", "peer", "vs R-tree before", "after", "change", "median µs before", "after", "cand/result before", "after"}
	loadChangeColumns   = []string{"load", "points/s before", "after", "change"}
)

// cells is ch's row, label its query column (empty on a query's rows
// after the first, in the terminal's table).
func (ch ResultChange) cells(label string) []string {
	ratioChange := change(ch.BeforeRatio, ch.AfterRatio)
	if ch.Peer == rtreeName {
		ratioChange = "—" // 1× in both, by definition
	}
	oldMedian, _, _ := ch.Before.times()
	newMedian, _, _ := ch.After.times()
	return []string{label, ch.Peer, ratioFigure(ch.BeforeRatio), ratioFigure(ch.AfterRatio), ratioChange,
		oldMedian, newMedian, ch.Before.candidates(), ch.After.candidates()}
}

// cells is l's row.
func (l LoadChange) cells() []string {
	oldRate, _ := l.Before.figures()
	newRate, _ := l.After.figures()
	return []string{l.Peer, oldRate, newRate, change(l.Before.PointsPerSec, l.After.PointsPerSec)}
}

// WriteText prints the comparison as tables for a terminal: per query
// and peer the time over the R-tree's in each run and its change, then
// the medians and candidates per result; per peer the load rate.
func (c *Comparison) WriteText(w io.Writer) error {
	for _, line := range c.preamble() {
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w)
	tw := newTable(w)
	tableRow(tw, resultChangeColumns)
	var labels queryLabels
	for _, ch := range c.Results {
		tableRow(tw, ch.cells(labels.next(ch.Query)))
	}
	if err := tw.Flush(); err != nil || len(c.Loads) == 0 {
		return err
	}
	fmt.Fprintln(w)
	tw = newTable(w)
	tableRow(tw, loadChangeColumns)
	for _, l := range c.Loads {
		tableRow(tw, l.cells())
	}
	return tw.Flush()
}

// tableRow writes cells as a row of a newTable.
func tableRow(tw io.Writer, cells []string) {
	fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
}

// WriteMarkdown writes the comparison as a section of a Markdown report
// (`keyspace bench --report DIR --compare FILE`): the tables WriteText
// prints, every row labelled with its query.
func (c *Comparison) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("\n## Against the earlier run\n\n")
	for _, line := range c.preamble() {
		fmt.Fprintf(&b, "_%s%s._\n\n", strings.ToUpper(line[:1]), line[1:]) // the lines begin with ASCII
	}
	// table writes rows under columns, the first names of them
	// left-aligned and the figures after them right-aligned.
	table := func(columns []string, names int, rows [][]string) {
		fmt.Fprintf(&b, "| %s |\n|%s%s\n", strings.Join(columns, " | "), strings.Repeat(" --- |", names), strings.Repeat(" ---: |", len(columns)-names))
		for _, r := range rows {
			fmt.Fprintf(&b, "| %s |\n", strings.Join(r, " | "))
		}
	}
	var rows [][]string
	for _, ch := range c.Results {
		rows = append(rows, ch.cells(ch.Query.String()))
	}
	table(resultChangeColumns, 2, rows)
	if len(c.Loads) > 0 {
		rows = rows[:0]
		for _, l := range c.Loads {
			rows = append(rows, l.cells())
		}
		b.WriteString("\n")
		table(loadChangeColumns, 1, rows)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
