package bench

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// palette colours the peers in every chart.
var palette = []string{"#6b7280", "#f59e0b", "#16a34a", "#2563eb", "#dc2626", "#7c3aed"}

// barChart draws grouped bars (one group per label, one bar per series) on
// a logarithmic axis, as a standalone SVG document.
func barChart(title, unit string, groups, series []string, values [][]float64) string {
	const w, h, left, top, bottom = 900.0, 420.0, 70.0, 40.0, 100.0
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, row := range values {
		for _, v := range row {
			if v > 0 {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if math.IsInf(lo, 1) {
		lo, hi = 1, 10
	}
	lo, hi = math.Pow(10, math.Floor(math.Log10(lo))), math.Pow(10, math.Ceil(math.Log10(hi)))
	if hi <= lo {
		hi = lo * 10
	}
	plotH := h - top - bottom
	y := func(v float64) float64 {
		return top + plotH - (math.Log10(v)-math.Log10(lo))/(math.Log10(hi)-math.Log10(lo))*plotH
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="11">`+"\n", w, h)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/><text x="%.0f" y="20" font-size="14">%s</text>`+"\n", left, html.EscapeString(title))
	for d := lo; d <= hi*1.0001; d *= 10 {
		fmt.Fprintf(&b, `<line x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#e5e7eb"/><text x="%.0f" y="%.1f" text-anchor="end">%s</text>`+"\n",
			left, w-10, y(d), y(d), left-4, y(d)+4, html.EscapeString(tickLabel(d, unit)))
	}
	groupW := (w - left - 10) / float64(len(groups))
	barW := groupW * 0.8 / float64(len(series))
	for g, label := range groups {
		x0 := left + float64(g)*groupW + groupW*0.1
		for s := range series {
			v := values[g][s]
			if v <= 0 {
				continue
			}
			fmt.Fprintf(&b, `<rect class="bar" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s, %s: %.3g %s</title></rect>`+"\n",
				x0+float64(s)*barW, y(v), barW*0.9, top+plotH-y(v), palette[s%len(palette)],
				html.EscapeString(series[s]), html.EscapeString(label), v, html.EscapeString(unit))
		}
		// A label wider than its group wraps at spaces, a line below
		// another: ten groups leave some 13 characters a line, and
		// "10 farthest in 100 km" ran into its neighbours.
		fmt.Fprintf(&b, `<text class="group" x="%.1f" y="%.0f" text-anchor="middle">`, x0+groupW*0.4, top+plotH+16)
		for i, line := range wrapLabel(label, int(groupW/charWidth)) {
			fmt.Fprintf(&b, `<tspan x="%.1f" dy="%d">%s</tspan>`, x0+groupW*0.4, min(i, 1)*lineHeight, html.EscapeString(line))
		}
		b.WriteString("</text>\n")
	}
	for s, name := range series {
		fmt.Fprintf(&b, `<rect x="%.0f" y="%.0f" width="10" height="10" fill="%s"/><text x="%.0f" y="%.0f">%s</text>`+"\n",
			left+float64(s%3)*260, h-50+float64(s/3)*16, palette[s%len(palette)], left+float64(s%3)*260+14, h-41+float64(s/3)*16, html.EscapeString(name))
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// charWidth and lineHeight are, in pixels, about how wide a character of
// the charts' 11-pixel sans-serif font is on average (digits and lower
// case run 5.5–6.5) and how far apart lines of a group's label are.
const (
	charWidth  = 6.0
	lineHeight = 13
)

// wrapLabel breaks label at spaces into lines of at most width
// characters where it can (a word longer than width keeps a line of its
// own), three lines at most: the last takes what is left.
func wrapLabel(label string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(label) {
		switch {
		case line == "":
			line = word
		case len(lines) < 2 && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) > width:
			lines, line = append(lines, line), word
		default:
			line += " " + word
		}
	}
	return append(lines, line)
}

// Charts returns the report's SVG charts by file name: latency per query
// and peer, candidates read per result, and (when the run measured it) how
// a radius query's time grows with the number of points.
func (r *Report) Charts() map[string]string {
	var groups, peers []string
	seenQ, seenP := map[Query]bool{}, map[string]bool{}
	for _, res := range r.Results {
		if !seenQ[res.Query] {
			seenQ[res.Query] = true
			groups = append(groups, res.Query.String())
		}
		if !seenP[res.Peer] {
			seenP[res.Peer] = true
			peers = append(peers, res.Peer)
		}
	}
	latency := make([][]float64, len(groups))
	cands := make([][]float64, len(groups))
	for g := range groups {
		latency[g] = make([]float64, len(peers))
		cands[g] = make([]float64, len(peers))
	}
	for _, res := range r.Results {
		g, p := indexOf(groups, res.Query.String()), indexOf(peers, res.Peer)
		latency[g][p], cands[g][p] = res.MedianMicros, res.CandidatesPerResult
	}
	out := map[string]string{
		"latency.svg": barChart(fmt.Sprintf("Median time per query, %s %s points", thousands(float64(r.Points)), r.Dataset), "µs", groups, peers, latency),
	}
	// Peers that do not report what they read (Redis) have no bars.
	var cpeers []string
	var keep []int
	for p, name := range peers {
		for g := range groups {
			if cands[g][p] > 0 {
				cpeers, keep = append(cpeers, name), append(keep, p)
				break
			}
		}
	}
	for g := range cands {
		row := make([]float64, len(keep))
		for i, p := range keep {
			row[i] = cands[g][p]
		}
		cands[g] = row
	}
	out["candidates.svg"] = barChart("Candidates read per result", "", groups, cpeers, cands)
	if len(r.Scaling) > 0 {
		var sizes []string
		var speers []string
		for _, s := range r.Scaling {
			if indexOf(sizes, thousands(float64(s.Points))) < 0 {
				sizes = append(sizes, thousands(float64(s.Points)))
			}
			if indexOf(speers, s.Peer) < 0 {
				speers = append(speers, s.Peer)
			}
		}
		vals := make([][]float64, len(sizes))
		for i := range vals {
			vals[i] = make([]float64, len(speers))
		}
		for _, s := range r.Scaling {
			vals[indexOf(sizes, thousands(float64(s.Points)))][indexOf(speers, s.Peer)] = s.MedianMicros
		}
		out["scaling.svg"] = barChart("Radius 10 km: median time by number of points", "µs", sizes, speers, vals)
	}
	return out
}

func indexOf(xs []string, x string) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

// tickLabel writes a power of ten on a log axis as people read it: times
// in µs, ms or s ("100 µs", "10 ms", "1 s"), counts with thousands
// separators ("1,000,000"), where %g would write 1e+06.
func tickLabel(d float64, unit string) string {
	if unit == "µs" {
		switch {
		case d >= 1e6:
			return fmt.Sprintf("%g s", d/1e6)
		case d >= 1e3:
			return fmt.Sprintf("%g ms", d/1e3)
		}
		return fmt.Sprintf("%g µs", d)
	}
	label := thousands(d)
	if unit != "" {
		label += " " + unit
	}
	return label
}

// thousands writes a whole number with commas between its thousands, or
// a fraction as %g does.
func thousands(v float64) string {
	if v != math.Trunc(v) || math.Abs(v) >= 1e15 {
		return fmt.Sprintf("%g", v)
	}
	digits := strconv.FormatInt(int64(math.Abs(v)), 10)
	var b strings.Builder
	if v < 0 {
		b.WriteByte('-')
	}
	for i, c := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
