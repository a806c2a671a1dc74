// Package bench runs keyspace's proximity benchmarks: it generates a
// dataset, loads it into every peer, asks every peer the same queries and
// measures them side by side in one run.
//
// Peers: brute force (also the oracle for recall), an in-memory R-tree
// (github.com/tidwall/rtree, with an exact spherical k-nearest), keyspace on
// the memory and bbolt backends, and Redis GEO's fixed 3×3 geohash block
// (geo.Index.RadiusFixedGrid, radius queries only) over the bbolt index.
// When redis-server is on the PATH, Redis GEOSEARCH itself joins in: a
// server of its own on 127.0.0.1 for the run, loaded with pipelined GEOADD,
// answering radius queries and k-nearest by the doubling-radius workaround
// Redis users write (it has no k-nearest); it is stopped after the run.
//
// Queries (Queries): radius 1, 10 and 100 km, a box and a hexagon 20 km
// across, k nearest for k = 1, 10 and 100, the 10 nearest within 100 km
// (kind "count": Redis's GEOSEARCH … ASC COUNT 10, which the 3×3 block
// and Redis answer by reading the whole block, and keyspace by its
// k-nearest search once the circle proves full) and the 10 farthest
// within 100 km (kind "farthest": Redis's … DESC COUNT 10, which the
// R-tree, the 3×3 block and Redis answer by reading the whole circle or
// block, and keyspace by its farthest-first branch and bound).
//
// Peers take turns: each pass asks every peer every query of a kind, and a
// query's time is its fastest pass (Config.Passes, default 3), so a burst
// of noise on a shared machine cannot land on one peer alone. The R-tree
// and keyspace peers reuse their working buffers from query to query (the
// R-tree's list of hits, keyspace's Results through geo.QueryOptions.Into)
// and return a new slice of ids, as a server's loop would. Figures per
// query kind and peer: median and p99 latency, queries per second,
// candidates examined per result, recall against brute force; per peer:
// load rate and bytes per point (the file for bbolt, the live heap for the
// in-memory peers, the server's used_memory for Redis). Report.Targets
// checks the run against the project's goals (targets.go: keyspace in
// memory no slower than the R-tree at every radius, on bbolt within 2×,
// fewer than 2 candidates per result, k=10 nearest within 1.5×, recall 1,
// and bulk load rates), set for 1,000,000 clustered points. `keyspace
// bench` prints it all; Report.WriteJSON, Report.WriteMarkdown and
// Report.Charts write it for machines and people.
//
// Compare sets a run beside an earlier one on the same points (ReadJSON
// reads the earlier one's JSON; `keyspace bench --compare FILE`), by each
// peer's time over the R-tree's in its own run: the machine's speed
// swings twofold from hour to hour, and a ratio measured within one run
// leaves that out.
package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"github.com/keyspacedb/keyspace/geo"
	"github.com/keyspacedb/keyspace/internal/dataset"
	"github.com/keyspacedb/keyspace/internal/workload"
	"github.com/paulmach/orb"
)

var errUnsupported = errors.New("bench: query not supported by this peer")

// ErrUnknownDataset is Run's error for a Config.Dataset that is none of
// Datasets.
var ErrUnknownDataset = errors.New("bench: unknown dataset")

// Datasets are the datasets Run knows: the generators of
// internal/workload, and the real cities.
var Datasets = append(slices.Clone(workload.Kinds), Cities)

// errRefused is a peer's answer to a query it cannot be asked: Redis
// refuses a centre beyond ±85.05°. The query is not timed, and what it
// should have found counts against the peer's recall.
var errRefused = errors.New("bench: the peer refuses this query")

// Point is one point of a dataset: an id and where it is, in degrees.
type Point = workload.Point

// Kind names a dataset: one of Datasets, or what Data is called.
type Kind = workload.Kind

// Config describes one run.
type Config struct {
	Points  int  // dataset size; default 100,000
	Dataset Kind // default workload.Clustered
	// Data, if set, are the points to run on (the first Points of them)
	// instead of Dataset's, which then only names them in the report (a
	// user's file). Their ids must differ: keyspace would hold one point
	// for two, and brute force two.
	Data    []Point
	Queries int // queries per kind; default 100
	// Passes is how many times each peer but brute force asks every
	// query, taking turns with the others; a query's time is its fastest
	// pass. Default 3.
	Passes int
	Seed   uint64 // default 1
	Dir    string // where the bbolt file goes; default a temporary directory
	// Progress, if set, is told what is running.
	Progress func(stage string)
	// ScalingSizes, if set, adds radius-10 km runs at these dataset sizes
	// (and the main size) to the report, for the scaling chart.
	ScalingSizes []int

	only *Query // run just this query (scaling runs)
}

// Kind of query, with its parameter.
type Query struct {
	Kind   string  `json:"kind"` // "radius", "box", "polygon", "knn", "count" (the K nearest within Metres), "farthest" (the K farthest within Metres)
	Metres float64 `json:"metres,omitempty"`
	K      int     `json:"k,omitempty"`
}

func (q Query) String() string {
	switch q.Kind {
	case "radius":
		return fmt.Sprintf("radius %g km", q.Metres/1000)
	case "box":
		return fmt.Sprintf("box %g km", q.Metres/1000)
	case "polygon":
		return fmt.Sprintf("polygon %g km", q.Metres/1000)
	case "count":
		return fmt.Sprintf("%d nearest in %g km", q.K, q.Metres/1000)
	case "farthest":
		return fmt.Sprintf("%d farthest in %g km", q.K, q.Metres/1000)
	}
	return fmt.Sprintf("knn k=%d", q.K)
}

// Result is one peer's figures for one query kind.
type Result struct {
	Query               Query   `json:"query"`
	Peer                string  `json:"peer"`
	MedianMicros        float64 `json:"median_us"`
	P99Micros           float64 `json:"p99_us"`
	QueriesPerSecond    float64 `json:"qps"`
	CandidatesPerResult float64 `json:"candidates_per_result"`
	ResultsPerQuery     float64 `json:"results_per_query"`
	Recall              float64 `json:"recall"`
	Exact               bool    `json:"exact"`
	// Refused is how many queries the peer refused (errRefused). The
	// times are the other queries'; when it refused them all, they are 0.
	Refused int `json:"refused,omitempty"`
}

// Load is one peer's loading figures, per point it took: a peer that
// refuses points (Redis, beyond ±85.05°) says how many in Refused, and
// when it took none both figures are 0.
type Load struct {
	Peer          string  `json:"peer"`
	PointsPerSec  float64 `json:"points_per_second"`
	BytesPerPoint float64 `json:"bytes_per_point"`
	Refused       int     `json:"refused_points,omitempty"`
}

// Report is a whole run.
type Report struct {
	Dataset string   `json:"dataset"`
	Points  int      `json:"points"`
	Queries int      `json:"queries_per_kind"`
	Passes  int      `json:"passes"`
	Seed    uint64   `json:"seed"` // of the generated points and the query centres
	Loads   []Load   `json:"loads"`
	Results []Result `json:"results"`
	// Notes say what was left out of the run and why.
	Notes []string `json:"notes,omitempty"`
	// Scaling is radius-10 km medians at growing dataset sizes (when
	// Config.ScalingSizes is set).
	Scaling []ScalePoint `json:"scaling,omitempty"`
	// Targets is the run checked against the benchmark's goals (targets.go).
	Targets []Target `json:"targets,omitempty"`
}

// ScalePoint is one peer's median at one dataset size.
type ScalePoint struct {
	Points       int     `json:"points"`
	Peer         string  `json:"peer"`
	MedianMicros float64 `json:"median_us"`
}

// Queries is the standard query set.
var Queries = []Query{
	{Kind: "radius", Metres: 1000}, {Kind: "radius", Metres: 10_000}, {Kind: "radius", Metres: 100_000},
	{Kind: "box", Metres: 20_000}, {Kind: "polygon", Metres: 20_000},
	{Kind: "knn", K: 1}, {Kind: "knn", K: 10}, {Kind: "knn", K: 100},
	{Kind: "count", Metres: 100_000, K: 10}, {Kind: "farthest", Metres: 100_000, K: 10},
}

// Run runs the benchmark.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Points == 0 {
		cfg.Points = 100_000
	}
	if cfg.Dataset == "" {
		cfg.Dataset = workload.Clustered
	}
	if cfg.Queries == 0 {
		cfg.Queries = 100
	}
	if cfg.Passes < 1 {
		cfg.Passes = 3
	}
	if cfg.Seed == 0 {
		cfg.Seed = 1
	}
	if cfg.Points < 1 || cfg.Queries < 1 {
		return nil, fmt.Errorf("bench: want at least one point and one query, got %d and %d", cfg.Points, cfg.Queries)
	}
	if cfg.Data == nil && !slices.Contains(Datasets, cfg.Dataset) {
		return nil, fmt.Errorf("%w %q (want one of %v)", ErrUnknownDataset, cfg.Dataset, Datasets)
	}
	if cfg.Data != nil && len(cfg.Data) == 0 {
		return nil, fmt.Errorf("bench: dataset %s has no points", cfg.Dataset)
	}
	seen := make(map[string]bool, len(cfg.Data))
	for _, p := range cfg.Data {
		if seen[p.ID] {
			return nil, fmt.Errorf("bench: dataset %s has two points with id %q", cfg.Dataset, p.ID)
		}
		seen[p.ID] = true
	}
	say := func(s string) {
		if cfg.Progress != nil {
			cfg.Progress(s)
		}
	}
	if cfg.Dir == "" {
		dir, err := os.MkdirTemp("", "keyspace-bench")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		cfg.Dir = dir
	}
	say(fmt.Sprintf("generating %d %s points", cfg.Points, cfg.Dataset))
	points, err := generate(cfg)
	if err != nil {
		return nil, err
	}
	cfg.Points = len(points)
	centres := queryCentres(points, cfg.Queries, cfg.Seed)
	peers := []peer{&brutePeer{}, &rtreePeer{}, memoryPeer(memoryName, false), boltPeer(boltName, cfg.Dir, false),
		boltPeer(gridName, cfg.Dir, true)}
	defer func() {
		for _, p := range peers {
			p.close()
		}
	}()
	rep := &Report{Dataset: string(cfg.Dataset), Points: cfg.Points, Queries: cfg.Queries, Passes: cfg.Passes, Seed: cfg.Seed}
	if _, err := exec.LookPath("redis-server"); err != nil {
		rep.Notes = append(rep.Notes, "Redis GEOSEARCH: skipped, no redis-server on the PATH")
	} else if rp, err := startRedis(cfg.Dir); err != nil {
		rep.Notes = append(rep.Notes, fmt.Sprintf("Redis GEOSEARCH: skipped, %v", err))
	} else {
		peers = append(peers, rp)
	}
	for _, p := range peers {
		say("loading " + p.name())
		// The heap is measured around the load, not in its time: a
		// collection of a heap this size takes longer than some loads.
		before := heapBytes()
		if pp, ok := p.(preparer); ok {
			pp.prepare(points)
		}
		start := time.Now()
		bytes, err := p.load(points)
		elapsed := time.Since(start)
		if err != nil {
			return nil, fmt.Errorf("bench: loading %s: %w", p.name(), err)
		}
		if bytes == onHeap {
			bytes = heapBytes() - before
		}
		if _, isBrute := p.(*brutePeer); isBrute {
			continue // holding the slice is not loading
		}
		l := Load{Peer: p.name()}
		if rp, ok := p.(*redisPeer); ok && rp.refused > 0 {
			l.Refused = rp.refused
			rep.Notes = append(rep.Notes, fmt.Sprintf("Redis GEOSEARCH: GEOADD refuses latitudes beyond ±%g°, so %d points are missing from Redis and count against its recall",
				redisMaxLat, rp.refused))
		}
		if took := len(points) - l.Refused; took > 0 {
			l.PointsPerSec, l.BytesPerPoint = float64(took)/elapsed.Seconds(), float64(bytes)/float64(took)
		}
		rep.Loads = append(rep.Loads, l)
	}
	refused := map[string]int{} // query centres refused, by peer
	for _, q := range Queries {
		if cfg.only != nil && q != *cfg.only {
			continue
		}
		// Peers take turns, pass after pass, so that a burst of noise on a
		// shared machine lands on all of them rather than on one peer's
		// whole block; each query's time is its fastest pass. Brute force
		// runs once, first: it is the oracle, and its answers, as it is
		// timed, are the truth every other peer is held to (asking it
		// again for them took a third of a 1,000,000-point run).
		truth := make([][]string, len(centres))
		runs := make([]*timing, len(peers))
		for pass := range cfg.Passes {
			for i, p := range peers {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				if _, oracle := p.(*brutePeer); pass > 0 && (oracle || runs[i] == nil) {
					continue
				}
				say(fmt.Sprintf("%s: %s (pass %d of %d)", q, p.name(), pass+1, cfg.Passes))
				if pass == 0 {
					runs[i] = newTiming(len(centres))
				}
				err := runs[i].measure(p, q, centres, truth, pass == 0)
				if errors.Is(err, errUnsupported) {
					runs[i] = nil
					continue
				}
				if err != nil {
					return nil, fmt.Errorf("bench: %s on %s: %w", q, p.name(), err)
				}
			}
		}
		for i, p := range peers {
			if runs[i] == nil {
				continue
			}
			res := runs[i].result(p, q)
			refused[p.name()] = max(refused[p.name()], res.Refused)
			rep.Results = append(rep.Results, res)
		}
	}
	for _, p := range peers {
		if n := refused[p.name()]; n > 0 {
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s: refused %d of the %d query centres; those queries count against its recall and are left out of its times",
				p.name(), n, len(centres)))
		}
	}
	if len(cfg.ScalingSizes) > 0 {
		for _, res := range rep.Results {
			if res.Query == (Query{Kind: "radius", Metres: 10_000}) {
				rep.Scaling = append(rep.Scaling, ScalePoint{cfg.Points, res.Peer, res.MedianMicros})
			}
		}
		for _, n := range cfg.ScalingSizes {
			if n == cfg.Points {
				continue
			}
			say(fmt.Sprintf("scaling: %d points", n))
			sub := cfg
			sub.Points, sub.ScalingSizes, sub.Progress = n, nil, nil
			sub.only = &Query{Kind: "radius", Metres: 10_000}
			r, err := Run(ctx, sub)
			if err != nil {
				return nil, err
			}
			for _, res := range r.Results {
				rep.Scaling = append(rep.Scaling, ScalePoint{n, res.Peer, res.MedianMicros})
			}
		}
		slices.SortStableFunc(rep.Scaling, func(a, b ScalePoint) int { return a.Points - b.Points })
	}
	rep.Targets = rep.targets()
	return rep, nil
}

// Cities is the dataset of real world cities from ../shared/data
// (dr5hn_cities_flat.csv, ODbL), when it is there.
const Cities workload.Kind = "cities"

// generate makes the dataset: the first Points of Data, a generator, or
// the real cities (the first Points of them, without the rows at 0,0 that
// SOURCES.md calls bad data).
func generate(cfg Config) ([]workload.Point, error) {
	if cfg.Data != nil {
		return cfg.Data[:min(cfg.Points, len(cfg.Data))], nil
	}
	if cfg.Dataset != Cities {
		return workload.Generate(cfg.Dataset, cfg.Points, cfg.Seed)
	}
	dir, err := dataset.Dir()
	if err != nil {
		return nil, fmt.Errorf("bench: the cities dataset needs ../shared/data: %w", err)
	}
	cities, err := dataset.ReadCities(filepath.Join(dir, dataset.CitiesFile))
	if err != nil {
		return nil, err
	}
	var out []workload.Point
	for _, c := range cities {
		if c.Lat == 0 && c.Lon == 0 {
			continue
		}
		out = append(out, workload.Point{ID: fmt.Sprint(c.ID), Lat: c.Lat, Lon: c.Lon})
		if len(out) == cfg.Points {
			break
		}
	}
	return out, nil
}

// queryCentres picks n query centres near the data, as real queries are:
// each a point of the dataset moved about a kilometre at random.
func queryCentres(points []workload.Point, n int, seed uint64) [][2]float64 {
	r := rand.New(rand.NewPCG(seed, 99))
	centres := make([][2]float64, n)
	for i := range centres {
		p := points[r.IntN(len(points))]
		centres[i] = [2]float64{clamp(p.Lat+r.NormFloat64()*0.01, -90, 90), clamp(p.Lon+r.NormFloat64()*0.01, -180, 180)}
	}
	return centres
}

func clamp(x, lo, hi float64) float64 { return max(lo, min(hi, x)) }

// ask puts one query to a peer.
func ask(p peer, q Query, c [2]float64) ([]string, int, error) {
	switch q.Kind {
	case "radius":
		return p.radius(c[0], c[1], q.Metres)
	case "box":
		return p.box(boxAround(c, q.Metres))
	case "polygon":
		return p.polygon(hexagon(c, q.Metres))
	case "count":
		return p.within(c[0], c[1], q.Metres, q.K)
	case "farthest":
		return p.farthest(c[0], c[1], q.Metres, q.K)
	}
	return p.nearest(c[0], c[1], q.K)
}

// boxAround is a box about metres on a side centred on c (not crossing a
// pole).
func boxAround(c [2]float64, metres float64) geo.Box {
	dLat := metres / 2 / geo.EarthRadius * 180 / math.Pi
	b := geo.CircleBounds(c[0], c[1], metres/2)
	b.MinLat, b.MaxLat = max(-90, c[0]-dLat), min(90, c[0]+dLat)
	return b
}

// hexagon is a regular hexagon about metres across centred on c, moved
// inwards where it would cross a pole or ±180° (a GeoJSON polygon may not).
func hexagon(c [2]float64, metres float64) orb.Polygon {
	rLat := metres / 2 / geo.EarthRadius * 180 / math.Pi
	rLon := math.Min(rLat/math.Max(0.05, math.Cos(c[0]*math.Pi/180)), 90)
	lat, lon := clamp(c[0], -90+rLat, 90-rLat), clamp(c[1], -180+rLon, 180-rLon)
	var ring orb.Ring
	for i := 0; i <= 6; i++ {
		a := float64(i%6) * math.Pi / 3
		ring = append(ring, orb.Point{lon + rLon*math.Cos(a), lat + rLat*math.Sin(a)})
	}
	return orb.Polygon{ring}
}

// timing gathers one peer's figures for one query kind over the passes.
type timing struct {
	fastest                            []time.Duration // per query, over the passes; MaxInt64 if refused
	total                              time.Duration   // every answered query's time, every pass
	runs                               int             // answered queries, every pass
	candidates, results, found, wanted int
	refused                            int // queries refused, counted on the first pass
}

func newTiming(queries int) *timing {
	t := &timing{fastest: make([]time.Duration, queries)}
	for i := range t.fastest {
		t.fastest[i] = math.MaxInt64
	}
	return t
}

// measure times every query once; on the first pass it also counts
// candidates and compares each answer with the truth. The oracle's
// answers (brute force's) are the truth: measuring it fills truth in.
func (t *timing) measure(p peer, q Query, centres [][2]float64, truth [][]string, first bool) error {
	_, oracle := p.(*brutePeer)
	for i, c := range centres {
		before := time.Now()
		ids, n, err := ask(p, q, c)
		took := time.Since(before)
		if oracle && err == nil {
			truth[i] = ids
		}
		if errors.Is(err, errRefused) {
			if first {
				t.refused++
				t.wanted += len(truth[i])
			}
			continue
		}
		if err != nil {
			return err
		}
		t.fastest[i] = min(t.fastest[i], took)
		t.total += took
		t.runs++
		if !first {
			continue
		}
		t.candidates += n
		t.results += len(ids)
		got := map[string]bool{}
		for _, id := range ids {
			got[id] = true
		}
		for _, id := range truth[i] {
			if got[id] {
				t.found++
			}
		}
		t.wanted += len(truth[i])
	}
	return nil
}

// result summarizes: the median and p99 over answered queries of each
// query's fastest pass, and queries per second over every pass's answered
// queries; results per query and recall over all of them.
func (t *timing) result(p peer, q Query) Result {
	res := Result{
		Query: q, Peer: p.name(), Exact: p.exact(),
		ResultsPerQuery: float64(t.results) / float64(len(t.fastest)),
		Recall:          1,
		Refused:         t.refused,
	}
	lat := slices.DeleteFunc(slices.Clone(t.fastest), func(d time.Duration) bool { return d == math.MaxInt64 })
	if n := len(lat); n > 0 {
		slices.Sort(lat)
		res.MedianMicros = float64(lat[n/2].Nanoseconds()) / 1000
		res.P99Micros = float64(lat[min(n-1, n*99/100)].Nanoseconds()) / 1000
		res.QueriesPerSecond = float64(t.runs) / t.total.Seconds()
	}
	if t.results > 0 {
		res.CandidatesPerResult = float64(t.candidates) / float64(t.results)
	}
	if t.wanted > 0 {
		res.Recall = float64(t.found) / float64(t.wanted)
	}
	return res
}
