package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/keyspacedb/keyspace/internal/workload"
)

// TestRunEndToEnd runs the whole benchmark on small datasets: every exact
// peer must find exactly what brute force finds, and the outputs parse.
func TestRunEndToEnd(t *testing.T) {
	for _, kind := range workload.Kinds {
		t.Run(string(kind), func(t *testing.T) {
			rep, err := Run(context.Background(), Config{Points: 3000, Queries: 30, Dataset: kind, Dir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			peers := map[string]bool{}
			for _, res := range rep.Results {
				peers[res.Peer] = true
				if res.Exact && res.Recall != 1 {
					t.Errorf("%s on %s: recall %v, want 1", res.Peer, res.Query, res.Recall)
				}
				// A peer that refused every query has no times, and
				// only then.
				timed := res.MedianMicros > 0 && res.P99Micros >= res.MedianMicros && res.QueriesPerSecond > 0
				if timed != (res.Refused < rep.Queries) {
					t.Errorf("%s on %s: timing %+v", res.Peer, res.Query, res)
				}
			}
			wantPeers := 5
			if _, err := exec.LookPath("redis-server"); err == nil {
				wantPeers++ // Redis GEOSEARCH
				checkRedis(t, kind, rep)
			}
			if len(peers) != wantPeers || len(rep.Loads) != wantPeers-1 { // brute force has no load figure
				t.Errorf("peers %v, loads %d", peers, len(rep.Loads))
			}
			// Every load has a rate and a size a point could take: the
			// heap a load is measured by holds what it built, not the
			// points it was handed (preparer). Redis refuses points near
			// the poles, and has no figures when it took none.
			for _, l := range rep.Loads {
				if l.Refused == rep.Points {
					if l.PointsPerSec != 0 || l.BytesPerPoint != 0 {
						t.Errorf("load %+v: figures for no points", l)
					}
					continue
				}
				if l.PointsPerSec <= 0 || l.BytesPerPoint > 2048 || l.BytesPerPoint < 16 && l.Peer != redisName {
					t.Errorf("load %+v", l)
				}
			}
			var buf bytes.Buffer
			if err := rep.WriteJSON(&buf); err != nil {
				t.Fatal(err)
			}
			var back Report
			if err := json.Unmarshal(buf.Bytes(), &back); err != nil || len(back.Results) != len(rep.Results) || len(back.Targets) != len(rep.Targets) {
				t.Errorf("JSON round trip: %v", err)
			}
			checkTargetsAgainstTable(t, rep)
			buf.Reset()
			rep.WriteText(&buf)
			rep.WriteMarkdown(&buf)
			for _, want := range []string{"keyspace bbolt", "targets (the targets are set for 1,000,000 clustered points", "## Targets", "(met)"} {
				if !strings.Contains(buf.String(), want) {
					t.Errorf("reports lack %q:\n%s", want, buf.String())
				}
			}
			// A run smaller than the targets' gives its verdicts in
			// brackets: they are not the targets' figures.
			if strings.Contains(buf.String(), "MISSED") || strings.Contains(buf.String(), "| met |") || strings.Contains(buf.String(), "\n  met ") {
				t.Errorf("a small run's verdicts without brackets:\n%s", buf.String())
			}
		})
	}
}

// checkRedis: where redis-server runs, the Redis peer answers what it
// supports and finds what brute force finds, short only of the points it
// refuses (beyond ±85.05°) and of the few metres at a radius's edge where
// its larger Earth radius differs.
func checkRedis(t *testing.T, kind workload.Kind, rep *Report) {
	t.Helper()
	kinds := map[string]bool{}
	for _, res := range rep.Results {
		if res.Peer != redisName {
			continue
		}
		kinds[res.Query.Kind] = true
		if kind == workload.Clustered && res.Recall < 0.99 {
			t.Errorf("Redis on %s: recall %v", res.Query, res.Recall)
		}
	}
	if !kinds["radius"] || !kinds["knn"] || kinds["box"] || kinds["polygon"] {
		t.Errorf("Redis answered %v, want radius and knn only", kinds)
	}
	points, _ := workload.Generate(kind, rep.Points, 1)
	refused := 0
	for _, p := range points {
		if math.Abs(p.Lat) > redisMaxLat {
			refused++
		}
	}
	noted := slices.ContainsFunc(rep.Notes, func(n string) bool {
		return strings.Contains(n, fmt.Sprintf("so %d points are missing from Redis", refused))
	})
	if noted != (refused > 0) {
		t.Errorf("%s: %d points beyond Redis's latitudes, notes %q", kind, refused, rep.Notes)
	}
	for _, l := range rep.Loads {
		if l.Peer == redisName && l.Refused != refused {
			t.Errorf("%s: Redis's load says %d points refused, want %d", kind, l.Refused, refused)
		}
	}
	// Query centres beyond its latitudes are refused, not timed as
	// answers of nothing.
	refusedCentres := 0
	for _, c := range queryCentres(points, rep.Queries, 1) {
		if math.Abs(c[0]) > redisMaxLat {
			refusedCentres++
		}
	}
	for _, res := range rep.Results {
		if res.Peer == redisName && res.Refused != refusedCentres {
			t.Errorf("Redis on %s: %d queries refused, want %d", res.Query, res.Refused, refusedCentres)
		}
	}
	noted = slices.ContainsFunc(rep.Notes, func(n string) bool {
		return strings.Contains(n, fmt.Sprintf("refused %d of the %d query centres", refusedCentres, rep.Queries))
	})
	if noted != (refusedCentres > 0) {
		t.Errorf("%s: %d query centres beyond Redis's latitudes, notes %q", kind, refusedCentres, rep.Notes)
	}
}

// checkTargetsAgainstTable: every time target of a run shows the ratio
// its row of the table shows, and says met exactly when that is within the
// limit; the run has a time target per radius and backend, two for k=10,
// and the two load targets.
func checkTargetsAgainstTable(t *testing.T, rep *Report) {
	t.Helper()
	ratios := 0
	for _, tg := range rep.Targets {
		if tg.Unit != "×" {
			continue
		}
		ratios++
		for _, res := range rep.Results {
			if !strings.HasPrefix(tg.Goal, res.Query.String()+": "+res.Peer+" ") {
				continue
			}
			shown := rep.ratio(res)
			var v float64
			if _, err := fmt.Sscanf(shown, "%f×", &v); err != nil {
				t.Fatalf("table ratio %q: %v", shown, err)
			}
			if tg.measured() != shown || tg.Met != (v <= tg.Limit) {
				t.Errorf("target %q: %s met=%v, table %s", tg.Goal, tg.measured(), tg.Met, shown)
			}
		}
	}
	loads := 0
	for _, tg := range rep.Targets {
		if tg.Unit == "points/s" {
			loads++
		}
	}
	if ratios != 2*3+2 || loads != 2 {
		t.Errorf("%d time targets and %d load targets: %+v", ratios, loads, rep.Targets)
	}
}

// TestRunOnData runs the benchmark on points handed to it (Config.Data):
// the first Points of them, named by Dataset, every exact peer finding
// what brute force finds; and refuses an empty set, or an id twice.
func TestRunOnData(t *testing.T) {
	data, _ := workload.Generate(workload.Antimeridian, 2000, 9) // []Point
	rep, err := Run(context.Background(), Config{Data: data, Dataset: "mine.csv", Points: 1200, Queries: 10, Passes: 1, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Dataset != "mine.csv" || rep.Points != 1200 || len(rep.Results) == 0 {
		t.Fatalf("dataset %q, %d points, %d results", rep.Dataset, rep.Points, len(rep.Results))
	}
	for _, res := range rep.Results {
		if res.Exact && res.Recall != 1 {
			t.Errorf("%s on %s: recall %v", res.Peer, res.Query, res.Recall)
		}
	}
	if _, err := Run(context.Background(), Config{Data: []Point{}, Dataset: "empty.csv"}); err == nil {
		t.Error("no points: no error")
	}
	twice := []Point{{ID: "a", Lat: 1, Lon: 2}, {ID: "b"}, {ID: "a", Lat: 3, Lon: 4}}
	if _, err := Run(context.Background(), Config{Data: twice, Dataset: "twice.csv"}); err == nil || !strings.Contains(err.Error(), `id "a"`) {
		t.Errorf("an id twice: %v", err)
	}
}

// BenchmarkPeers is the same workload for go test -bench and benchstat:
// radius 1 km and 10 km, a 20 km box and hexagon, and k=10 on 100,000
// clustered points, or as many as KEYSPACE_BENCH_POINTS says.
func BenchmarkPeers(b *testing.B) {
	n, err := workload.BenchSize(100_000)
	if err != nil {
		b.Fatal(err)
	}
	points, _ := workload.Generate(workload.Clustered, n, 1)
	peers := []peer{&rtreePeer{}, memoryPeer("keyspace-memory", false), boltPeer("keyspace-bbolt", b.TempDir(), false), boltPeer("grid3x3-bbolt", b.TempDir(), true)}
	for _, p := range peers {
		if _, err := p.load(points); err != nil {
			b.Fatal(err)
		}
		defer p.close()
	}
	centres := queryCentres(points, len(points), 1) // near the points, as the runner's; a new one each query
	for _, q := range []Query{{Kind: "radius", Metres: 1_000}, {Kind: "radius", Metres: 10_000}, {Kind: "box", Metres: 20_000}, {Kind: "polygon", Metres: 20_000}, {Kind: "knn", K: 10}, {Kind: "count", Metres: 100_000, K: 10}, {Kind: "farthest", Metres: 100_000, K: 10}} {
		for _, p := range peers {
			b.Run(strings.ReplaceAll(q.String(), " ", "-")+"/"+strings.ReplaceAll(p.name(), " ", "-"), func(b *testing.B) {
				for i := 0; b.Loop(); i++ {
					if _, _, err := ask(p, q, centres[i%len(centres)]); err != nil && err != errUnsupported {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestChartsParse: the report's SVG charts are XML with bars in them, the
// scaling chart included.
func TestChartsParse(t *testing.T) {
	rep, err := Run(context.Background(), Config{Points: 3000, Queries: 10, Dir: t.TempDir(), ScalingSizes: []int{1000}})
	if err != nil {
		t.Fatal(err)
	}
	charts := rep.Charts()
	for _, name := range []string{"latency.svg", "candidates.svg", "scaling.svg"} {
		svg, ok := charts[name]
		if !ok {
			t.Fatalf("no %s", name)
		}
		dec := xml.NewDecoder(strings.NewReader(svg))
		bars := 0
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s is not XML: %v", name, err)
			}
			if se, ok := tok.(xml.StartElement); ok {
				for _, a := range se.Attr {
					if a.Name.Local == "class" && a.Value == "bar" {
						bars++
					}
				}
			}
		}
		if bars == 0 {
			t.Errorf("%s has no bars", name)
		}
	}
	sizes := map[int]bool{}
	for _, s := range rep.Scaling {
		sizes[s.Points] = true
	}
	if !sizes[1000] || !sizes[3000] {
		t.Errorf("scaling sizes %v", sizes)
	}
}

// TestChartLabelsFit: a group's label in a chart of ten groups is split
// at its spaces into lines that fit the group's width (a word longer than
// the width on a line of its own), three at most, with every word kept
// in order.
func TestChartLabelsFit(t *testing.T) {
	groups := []string{"radius 1 km", "radius 100 km", "10 farthest in 100 km", "10 nearest in 100 km",
		"a label with far too many short words to fit in three lines", "supercalifragilisticexpialidocious", "k", "", "knn k=100", "µµµµµµ µµµµµµ µµ"}
	values := make([][]float64, len(groups))
	for g := range values {
		values[g] = []float64{1, 2}
	}
	svg := barChart("t", "µs", groups, []string{"a", "b"}, values)
	width := int((900.0 - 70 - 10) / float64(len(groups)) / charWidth)
	dec := xml.NewDecoder(strings.NewReader(svg))
	var labels [][]string // each group label's lines
	inGroup := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if tok.Name.Local == "text" && slices.Contains(tok.Attr, xml.Attr{Name: xml.Name{Local: "class"}, Value: "group"}) {
				inGroup, labels = true, append(labels, nil)
			}
			if tok.Name.Local == "tspan" && inGroup {
				labels[len(labels)-1] = append(labels[len(labels)-1], "")
			}
		case xml.CharData:
			if inGroup && len(labels[len(labels)-1]) > 0 {
				l := labels[len(labels)-1]
				l[len(l)-1] += string(tok)
			}
		case xml.EndElement:
			if tok.Name.Local == "text" {
				inGroup = false
			}
		}
	}
	if len(labels) != len(groups) {
		t.Fatalf("%d group labels, want %d", len(labels), len(groups))
	}
	for g, lines := range labels {
		if got := strings.Join(lines, " "); strings.Join(strings.Fields(got), " ") != strings.Join(strings.Fields(groups[g]), " ") {
			t.Errorf("label %q drawn as %q", groups[g], lines)
		}
		if len(lines) == 0 || len(lines) > 3 {
			t.Errorf("label %q in %d lines", groups[g], len(lines))
		}
		for i, line := range lines {
			last := i == 2 // the third line takes what is left
			if n := len([]rune(line)); n > width && strings.Contains(line, " ") && !last {
				t.Errorf("label %q: line %q is %d characters, over the group's %d", groups[g], line, n, width)
			}
		}
	}
}

// TestRunWithoutRedis: with no redis-server on the PATH the run goes on
// without the Redis peer and says so in its notes.
func TestRunWithoutRedis(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	rep, err := Run(context.Background(), Config{Points: 500, Queries: 5, Passes: 1, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range rep.Results {
		if res.Peer == redisName {
			t.Fatalf("Redis answered without a server: %+v", res)
		}
	}
	if !slices.ContainsFunc(rep.Notes, func(n string) bool { return strings.Contains(n, "no redis-server on the PATH") }) {
		t.Errorf("notes %q do not say Redis was skipped", rep.Notes)
	}
}

// TestUnknownDataset: a dataset Run does not know is ErrUnknownDataset,
// named, before anything is loaded or written.
func TestUnknownDataset(t *testing.T) {
	dir := t.TempDir()
	_, err := Run(context.Background(), Config{Points: 10, Dataset: "mars", Dir: dir})
	if !errors.Is(err, ErrUnknownDataset) || !strings.Contains(err.Error(), `"mars"`) {
		t.Fatalf("Run(mars) = %v, want ErrUnknownDataset naming it", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("Run(mars) wrote %d files", len(entries))
	}
}

// TestSeedMakesTheRun: the same seed gives the same points and queries,
// so every exact peer finds the same results from the same candidates; a
// different seed gives a different run.
func TestSeedMakesTheRun(t *testing.T) {
	figures := func(seed uint64) []float64 {
		rep, err := Run(context.Background(), Config{Points: 1500, Queries: 8, Passes: 1, Seed: seed, Dir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Seed != seed {
			t.Errorf("report says seed %d, want %d", rep.Seed, seed)
		}
		var out []float64
		for _, res := range rep.Results {
			if res.Exact {
				out = append(out, res.ResultsPerQuery, res.CandidatesPerResult)
			}
		}
		return out
	}
	a, b, c := figures(5), figures(5), figures(6)
	if !slices.Equal(a, b) {
		t.Errorf("seed 5 twice: %v and %v", a, b)
	}
	if slices.Equal(a, c) {
		t.Errorf("seeds 5 and 6 gave the same run: %v", a)
	}
}

// forgetful answers as the R-tree does but drops the first id of every
// answer: a peer whose recall is known before it is measured.
type forgetful struct{ rtreePeer }

func (f *forgetful) radius(lat, lon, metres float64) ([]string, int, error) {
	ids, n, err := f.rtreePeer.radius(lat, lon, metres)
	if len(ids) > 0 {
		ids = ids[1:]
	}
	return ids, n, err
}

// TestRecallAgainstTheOracle: measured as the runner measures, the oracle
// first, a peer that misses one point of every non-empty answer has the
// recall counted here from the oracle's own answers, asked separately.
func TestRecallAgainstTheOracle(t *testing.T) {
	points, _ := workload.Generate(workload.Clustered, 3000, 1)
	centres := queryCentres(points, 40, 1)
	oracle, lossy := &brutePeer{}, &forgetful{}
	oracle.load(points)
	lossy.load(points)
	q := Query{Kind: "radius", Metres: 50_000}
	wanted, missed := 0, 0
	for _, c := range centres {
		ids, _, _ := oracle.radius(c[0], c[1], q.Metres)
		wanted += len(ids)
		if len(ids) > 0 {
			missed++
		}
	}
	if missed == 0 {
		t.Fatal("no query found anything")
	}
	truth := make([][]string, len(centres))
	if err := newTiming(len(centres)).measure(oracle, q, centres, truth, true); err != nil {
		t.Fatal(err)
	}
	tm := newTiming(len(centres))
	if err := tm.measure(lossy, q, centres, truth, true); err != nil {
		t.Fatal(err)
	}
	if got, want := tm.result(lossy, q).Recall, float64(wanted-missed)/float64(wanted); got != want {
		t.Errorf("recall %v, want %v (%d of %d points missed)", got, want, missed, wanted)
	}
}

// TestTickLabels: the charts' axes read as people write numbers.
func TestTickLabels(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		unit string
		want string
	}{
		{1, "µs", "1 µs"}, {100, "µs", "100 µs"}, {1000, "µs", "1 ms"}, {100_000, "µs", "100 ms"},
		{1e6, "µs", "1 s"}, {1e7, "µs", "10 s"}, {0.1, "µs", "0.1 µs"},
		{1, "", "1"}, {1000, "", "1,000"}, {1e6, "", "1,000,000"}, {0.1, "", "0.1"}, {123456, "", "123,456"},
	} {
		if got := tickLabel(tc.v, tc.unit); got != tc.want {
			t.Errorf("tickLabel(%v, %q) = %q, want %q", tc.v, tc.unit, got, tc.want)
		}
	}
}
