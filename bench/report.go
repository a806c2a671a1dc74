package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

// rtreeName is the peer ratios are taken against.
const rtreeName = "R-tree (tidwall/rtree)"

// result is the run's figures for q on peer.
func (r *Report) result(q Query, peer string) (Result, bool) {
	for _, res := range r.Results {
		if res.Query == q && res.Peer == peer {
			return res, true
		}
	}
	return Result{}, false
}

// timeRatio is res's median over the R-tree's for the same query; false
// when either has no time.
func (r *Report) timeRatio(res Result) (float64, bool) {
	tree, ok := r.result(res.Query, rtreeName)
	if !ok || tree.MedianMicros == 0 || res.MedianMicros == 0 {
		return 0, false
	}
	return res.MedianMicros / tree.MedianMicros, true
}

// ratio is timeRatio as the tables show it, or "—".
func (r *Report) ratio(res Result) string {
	v, _ := r.timeRatio(res) // 0 when there is none
	return ratioFigure(v)
}

// ratioFigure is a ratio as the tables show it ("1.39×"), or "—" for 0,
// no ratio.
func ratioFigure(v float64) string {
	if v == 0 {
		return "—"
	}
	return figure(v, 2) + "×"
}

// times is the median, p99 and queries per second, or dashes for a peer
// that refused every query.
func (res Result) times() (median, p99, qps string) {
	if res.MedianMicros == 0 {
		return "—", "—", "—"
	}
	return figure(res.MedianMicros, 1), figure(res.P99Micros, 1), figure(res.QueriesPerSecond, 0)
}

// figure is v as the tables show it: to decimals places below 1,000, and
// from 1,000 whole, its thousands set apart by commas (2,354,944
// points/s, a brute-force median of 79,800 µs), as the charts label
// their axes.
func figure(v float64, decimals int) string {
	if math.Abs(v) >= 1000-0.5*math.Pow10(-decimals) { // 999.96 is "1,000", not "1000.0"
		return thousands(math.Round(v))
	}
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

// figures is the load rate and size, or dashes for a peer that took no
// points.
func (l Load) figures() (rate, size string) {
	if l.PointsPerSec == 0 {
		return "—", "—"
	}
	return figure(l.PointsPerSec, 0), figure(l.BytesPerPoint, 0)
}

// candidates is candidates per result, or "—" for a peer that does not
// report what it read (Redis) and where nothing was found.
func (res Result) candidates() string {
	if res.CandidatesPerResult == 0 {
		return "—"
	}
	return figure(res.CandidatesPerResult, 2)
}

// gridName is the 3×3 baseline peer.
const gridName = "3x3 geohash (bbolt)"

// gridRatio is a peer's candidates per result over the 3×3 block's.
func (r *Report) gridRatio(res Result) string {
	if res.CandidatesPerResult == 0 {
		return "—" // a peer that does not say what it read
	}
	if grid, ok := r.result(res.Query, gridName); ok && grid.CandidatesPerResult > 0 {
		return ratioFigure(res.CandidatesPerResult / grid.CandidatesPerResult)
	}
	return "—"
}

// newTable writes a terminal's table: columns right-aligned, two spaces
// apart, each cell ended by a tab.
func newTable(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
}

// queryLabels names a table's query kind on the first of its rows only.
type queryLabels struct{ last Query }

// next is the query column of a row of q: q's name on the first row of a
// run of rows of q, else empty.
func (l *queryLabels) next(q Query) string {
	if q == l.last {
		return ""
	}
	l.last = q
	return q.String()
}

// timing says how a query's time was taken: the fastest of its passes,
// or its one pass.
func (r *Report) timing() string {
	if r.Passes == 1 {
		return "each query asked once"
	}
	return fmt.Sprintf("each query's fastest of %d passes", r.Passes)
}

// WriteText prints the report as tables for a terminal.
func (r *Report) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "%s %s points (seed %d), %d queries per kind, %s\n\n", thousands(float64(r.Points)), r.Dataset, r.Seed, r.Queries, r.timing())
	tw := newTable(w)
	fmt.Fprintln(tw, "load\tpoints/s\tbytes/point\t")
	for _, l := range r.Loads {
		rate, size := l.figures()
		fmt.Fprintf(tw, "%s\t%s\t%s\t\n", l.Peer, rate, size)
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, n := range r.Notes {
		fmt.Fprintln(w, "note:", n)
	}
	tw = newTable(w)
	fmt.Fprintln(tw, "query\tpeer\tmedian µs\tp99 µs\tqueries/s\tresults\tcand/result\trecall\ttime vs R-tree\tcand vs 3×3\t")
	var labels queryLabels
	for _, res := range r.Results {
		label := labels.next(res.Query)
		median, p99, qps := res.times()
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.1f\t%s\t%.3f\t%s\t%s\t\n", label, res.Peer, median, p99,
			qps, res.ResultsPerQuery, res.candidates(), res.Recall, r.ratio(res), r.gridRatio(res))
	}
	if err := tw.Flush(); err != nil || len(r.Targets) == 0 {
		return err
	}
	fmt.Fprint(w, "\ntargets")
	if note := r.TargetsNote(); note != "" {
		fmt.Fprintf(w, " (%s)", note)
	}
	fmt.Fprintln(w, ":")
	// Goals left-aligned and figures right-aligned: tabwriter aligns every
	// column one way, so the columns are padded here, counted in runes
	// ("×" is two bytes).
	goalWidth, figureWidth := 0, 0
	for _, t := range r.Targets {
		goalWidth = max(goalWidth, utf8.RuneCountInString(t.Goal))
		figureWidth = max(figureWidth, utf8.RuneCountInString(t.measured()))
	}
	pad := func(s string, width int) string { return strings.Repeat(" ", max(0, width-utf8.RuneCountInString(s))) }
	verdictWidth := len("MISSED")
	if !r.atTargetSize() {
		verdictWidth = len("(missed)")
	}
	for _, t := range r.Targets {
		m := t.measured()
		if _, err := fmt.Fprintf(w, "  %-*s  %s%s  %s%s  wanted %s\n", verdictWidth, t.verdict(r.atTargetSize()), t.Goal, pad(t.Goal, goalWidth), pad(m, figureWidth), m, t.wanted()); err != nil {
			return err
		}
	}
	return nil
}

// WriteJSON writes the report for machines.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteMarkdown writes the report as Markdown tables.
func (r *Report) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# keyspace proximity benchmark\n\n%s %s points (seed %d), %d queries per kind, all peers in one process and one run, taking turns; %s.\n\n", thousands(float64(r.Points)), r.Dataset, r.Seed, r.Queries, r.timing())
	b.WriteString("| load | points/s | bytes/point |\n| --- | ---: | ---: |\n")
	for _, l := range r.Loads {
		rate, size := l.figures()
		fmt.Fprintf(&b, "| %s | %s | %s |\n", l.Peer, rate, size)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "\n_Note: %s._\n", n)
	}
	b.WriteString("\n| query | peer | median µs | p99 µs | queries/s | results | candidates/result | recall | time vs R-tree | candidates vs 3×3 |\n")
	b.WriteString("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, res := range r.Results {
		median, p99, qps := res.times()
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %.1f | %s | %.3f | %s | %s |\n", res.Query, res.Peer, median,
			p99, qps, res.ResultsPerQuery, res.candidates(), res.Recall, r.ratio(res), r.gridRatio(res))
	}
	if len(r.Targets) > 0 {
		b.WriteString("\n## Targets\n\n")
		if note := r.TargetsNote(); note != "" {
			fmt.Fprintf(&b, "_Note: %s._\n\n", note)
		}
		b.WriteString("| target | measured | wanted | |\n| --- | ---: | ---: | --- |\n")
		for _, t := range r.Targets {
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", t.Goal, t.measured(), t.wanted(), t.verdict(r.atTargetSize()))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
