package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/keyspacedb/keyspace/bench"
	"github.com/keyspacedb/keyspace/geo"
	"github.com/keyspacedb/keyspace/internal/workload"
	"github.com/schollz/progressbar/v3"
	ucli "github.com/urfave/cli/v2"
)

func benchCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "bench",
		Usage: "proximity benchmark: keyspace (memory and bbolt) against brute force, an R-tree, Redis's 3×3 geohash block and (when redis-server is on the PATH) Redis GEOSEARCH, in one run",
		UsageText: "keyspace bench\n" +
			"keyspace bench --points 1000000 --dataset clustered --report bench-report\n" +
			"keyspace bench --json > before.json; …; keyspace bench --compare before.json   # before and after a change\n" +
			"keyspace bench --columns geonames cities15000.txt   # your own points (GeoNames' 19 columns, ids from geonameid)",
		ArgsUsage: "[FILE]",
		Flags: append([]ucli.Flag{
			&ucli.IntFlag{Name: "points", Value: 100_000, Usage: "dataset size"},
			&ucli.StringFlag{Name: "dataset", Value: string(workload.Clustered), Usage: "uniform, clustered, poles, antimeridian, or cities (real, from ../shared/data)"},
			&ucli.IntFlag{Name: "queries", Value: 100, Usage: "queries per kind"},
			&ucli.IntFlag{Name: "passes", Value: 3, Usage: "times each peer asks every query, taking turns; a query's time is its fastest"},
			&ucli.Uint64Flag{Name: "seed", Value: 1, Usage: "the seed of the generated points and the query centres: the same seed, the same run"},
			&ucli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
			&ucli.StringFlag{Name: "report", Usage: "write a Markdown report into `DIR`"},
			&ucli.BoolFlag{Name: "skip-bad", Usage: "leave out the FILE's bad rows, and say which"},
			&ucli.StringFlag{Name: "compare", Usage: "compare this run with an earlier one on the same points, saved with --json in `FILE`: each peer's time over the R-tree's in each run (ratios, which the machine's speed from hour to hour leaves alone), and the medians, candidates per result and load rates (with --report, in the report too)"},
		}, pointFileFlags("with a FILE of your own points, its")...),
		Action: func(c *ucli.Context) error {
			cfg := bench.Config{Points: c.Int("points"), Dataset: workload.Kind(c.String("dataset")), Queries: c.Int("queries"), Passes: c.Int("passes"), Seed: c.Uint64("seed")}
			if c.NArg() == 1 {
				if c.IsSet("dataset") {
					return usagef("--dataset and a FILE both say what points to run on; give one")
				}
				points, err := benchPoints(c)
				if err != nil {
					return err
				}
				cfg.Data, cfg.Dataset = points, workload.Kind(filepath.Base(c.Args().First()))
				if !c.IsSet("points") {
					cfg.Points = len(points)
				}
			}
			if c.String("report") != "" { // the scaling chart: 10,000 points up to --points
				for n := 10_000; n < cfg.Points; n *= 10 {
					cfg.ScalingSizes = append(cfg.ScalingSizes, n)
				}
			}
			for _, f := range []struct {
				name  string
				value int
			}{{"points", cfg.Points}, {"queries", cfg.Queries}, {"passes", cfg.Passes}} {
				if f.value < 1 {
					return usagef("--%s must be at least 1, not %d", f.name, f.value)
				}
			}
			if cfg.Seed == 0 {
				return usagef("--seed must be at least 1, not 0")
			}
			if cfg.Data == nil && !slices.Contains(bench.Datasets, cfg.Dataset) {
				return usagef("--dataset %q: want one of %v%s", cfg.Dataset, bench.Datasets, choiceHint(string(cfg.Dataset), datasetNames()))
			}
			before, err := earlierRun(c, cfg)
			if err != nil {
				return err
			}
			quiet := common(c, "quiet") == "true" || c.Bool("json")
			if !quiet && isTerminal(c.App.ErrWriter) {
				// A spinner-style bar (the number of stages depends on the
				// peers), with the stage as its description.
				bar := progressbar.NewOptions(-1, progressbar.OptionSetWriter(c.App.ErrWriter), progressbar.OptionSpinnerType(14),
					progressbar.OptionClearOnFinish(), progressbar.OptionSetElapsedTime(true))
				cfg.Progress = func(stage string) { bar.Describe(stage); bar.Add(1) }
				defer bar.Finish()
			}
			rep, err := bench.Run(c.Context, cfg)
			if err != nil {
				return err
			}
			// A comparison refused only now (earlierRun could not know how
			// many points a dataset holds) still leaves the run's own
			// report and tables, and its error after them.
			var cmp *bench.Comparison
			var cmpErr error
			if before != nil {
				if cmp, cmpErr = bench.Compare(before, rep); cmpErr != nil {
					cmpErr = fmt.Errorf("--compare %s: %w", c.String("compare"), cmpErr)
				}
			}
			if dir := c.String("report"); dir != "" {
				if err := writeReport(dir, rep, cmp); err != nil {
					return err
				}
			}
			if c.Bool("json") {
				return rep.WriteJSON(c.App.Writer)
			}
			if err := rep.WriteText(c.App.Writer); err != nil {
				return err
			}
			if cmp == nil {
				return cmpErr // nil with no --compare
			}
			fmt.Fprintln(c.App.Writer)
			return cmp.WriteText(c.App.Writer)
		},
	}
}

// earlierRun reads --compare's FILE, if given, and checks before the run
// that it ran on the points this one will: a run of the wrong size or
// dataset is found before a minute's run, not after it.
func earlierRun(c *ucli.Context, cfg bench.Config) (*bench.Report, error) {
	name := c.String("compare")
	if name == "" {
		return nil, nil
	}
	if c.Bool("json") {
		return nil, usagef("--compare prints a comparison and --json the run alone; give one (save a run with --json to compare later runs with it)")
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("--compare: %w", err)
	}
	defer f.Close()
	before, err := bench.ReadJSON(f)
	if err != nil {
		return nil, fmt.Errorf("--compare %s: %w", name, err)
	}
	will := &bench.Report{Dataset: string(cfg.Dataset), Points: cfg.Points, Seed: cfg.Seed}
	switch {
	case cfg.Data != nil:
		will.Points = min(cfg.Points, len(cfg.Data))
	case cfg.Dataset == bench.Cities:
		will.Points = before.Points // how many there are is known once read: Compare checks after the run
	}
	if err := bench.Comparable(before, will); err != nil {
		return nil, fmt.Errorf("--compare %s: %w", name, err)
	}
	return before, nil
}

// benchPoints reads the points of bench's FILE as geo import reads them
// (bad rows stop it, or are left out and named with --skip-bad). An
// empty file is an error: there is nothing to ask queries about.
func benchPoints(c *ucli.Context) ([]bench.Point, error) {
	rows, spec, bad, err := pointRows(c)
	if err != nil {
		return nil, err
	}
	points, _, err := rowPoints(geo.NewIndex("bench"), rows, spec, bad, time.Time{}, false)
	if err != nil {
		return nil, err
	}
	if len(bad.rows) > 0 {
		fmt.Fprintf(c.App.ErrWriter, "%s: left out %s: %s\n", bad.name, count(len(bad.rows), "bad row"), firstBad(bad.rows))
	}
	if len(points) == 0 {
		return nil, fmt.Errorf("%s: no points to run on", bad.name)
	}
	out := make([]bench.Point, len(points))
	for i, p := range points {
		out[i] = bench.Point{ID: p.ID, Lat: p.Lat, Lon: p.Lon}
	}
	return out, nil
}

// writeReport writes README.md (the tables, and the comparison with an
// earlier run when there is one) and the SVG charts into dir.
func writeReport(dir string, rep *bench.Report, cmp *bench.Comparison) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var md strings.Builder
	if err := rep.WriteMarkdown(&md); err != nil {
		return err
	}
	if cmp != nil {
		if err := cmp.WriteMarkdown(&md); err != nil {
			return err
		}
	}
	charts := rep.Charts()
	names := make([]string, 0, len(charts))
	for name := range charts {
		names = append(names, name)
	}
	slices.Sort(names)
	md.WriteString("\n")
	for _, name := range names {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(charts[name]), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(&md, "![%s](%s)\n\n", strings.TrimSuffix(name, ".svg"), name)
	}
	return os.WriteFile(filepath.Join(dir, "README.md"), []byte(md.String()), 0o644)
}

// datasetNames are bench --dataset's choices.
func datasetNames() []string {
	names := make([]string, len(bench.Datasets))
	for i, d := range bench.Datasets {
		names[i] = string(d)
	}
	return names
}
