package bench

import (
	"cmp"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/geo"
	"github.com/keyspacedb/keyspace/internal/workload"
	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"
	"github.com/tidwall/rtree"
)

// A peer answers the benchmark's queries. Every answer is the ids found,
// nearest first, and the candidates the peer examined to find them.
type peer interface {
	name() string
	exact() bool // must have recall 1.0
	// load loads the points and returns the bytes they take, or onHeap
	// for a peer that keeps them on the Go heap, which the runner then
	// measures outside the load's time.
	load(points []workload.Point) (bytesUsed int64, err error)
	radius(lat, lon, metres float64) ([]string, int, error)
	box(b geo.Box) ([]string, int, error)
	polygon(p orb.Polygon) ([]string, int, error)
	nearest(lat, lon float64, k int) ([]string, int, error)
	// within is the k nearest within metres (Redis's GEOSEARCH … BYRADIUS
	// … ASC COUNT k).
	within(lat, lon, metres float64, k int) ([]string, int, error)
	// farthest is the k farthest within metres, farthest first (Redis's
	// GEOSEARCH … BYRADIUS … DESC COUNT k).
	farthest(lat, lon, metres float64, k int) ([]string, int, error)
	close() error
}

// onHeap is what load returns for a peer whose points live on the Go heap.
const onHeap = -1

// A preparer turns the points into the type its load takes before the
// runner times the load: keyspace's PutAll takes []geo.Point, which a
// program importing points already holds, so copying them out of the
// benchmark's own type is the harness's work, not the load's. The load
// uses the prepared points and lets them go, so the heap it is measured by
// holds none of them.
type preparer interface {
	prepare(points []workload.Point)
}

// heapBytes is the live heap after a collection, for bytes per point.
func heapBytes() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// ---- brute force: the oracle ----

type brutePeer struct{ points []workload.Point }

func (*brutePeer) name() string { return "brute force" }
func (*brutePeer) exact() bool  { return true }
func (*brutePeer) close() error { return nil }
func (p *brutePeer) load(points []workload.Point) (int64, error) {
	p.points = points
	return int64(len(points)) * 40, nil // the slice the others also hold
}

type hit struct {
	id string
	d  float64
}

// farthestIDs is the ids of the k farthest of hits, farthest first, ties
// by id.
func farthestIDs(hits []hit, k int) []string {
	slices.SortFunc(hits, func(a, b hit) int { return cmp.Or(cmp.Compare(b.d, a.d), strings.Compare(a.id, b.id)) })
	ids := make([]string, min(k, len(hits)))
	for i := range ids {
		ids[i] = hits[i].id
	}
	return ids
}

func sortedIDs(hits []hit) []string {
	slices.SortFunc(hits, func(a, b hit) int {
		switch {
		case a.d < b.d:
			return -1
		case a.d > b.d:
			return 1
		}
		switch {
		case a.id < b.id:
			return -1
		case a.id > b.id:
			return 1
		}
		return 0
	})
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.id
	}
	return ids
}

func (p *brutePeer) radius(lat, lon, metres float64) ([]string, int, error) {
	var hits []hit
	for _, q := range p.points {
		if d := geo.Distance(lat, lon, q.Lat, q.Lon); d <= metres {
			hits = append(hits, hit{q.ID, d})
		}
	}
	return sortedIDs(hits), len(p.points), nil
}

func inBox(b geo.Box, lat, lon float64) bool {
	if lat < b.MinLat || lat > b.MaxLat {
		return false
	}
	if b.MinLon <= b.MaxLon {
		return lon >= b.MinLon && lon <= b.MaxLon
	}
	return lon >= b.MinLon || lon <= b.MaxLon
}

func boxCentre(b geo.Box) (float64, float64) {
	span := b.MaxLon - b.MinLon
	if span < 0 {
		span += 360
	}
	lon := b.MinLon + span/2
	if lon > 180 {
		lon -= 360
	}
	return (b.MinLat + b.MaxLat) / 2, lon
}

func (p *brutePeer) box(b geo.Box) ([]string, int, error) {
	lat, lon := boxCentre(b)
	var hits []hit
	for _, q := range p.points {
		if inBox(b, q.Lat, q.Lon) {
			hits = append(hits, hit{q.ID, geo.Distance(lat, lon, q.Lat, q.Lon)})
		}
	}
	return sortedIDs(hits), len(p.points), nil
}

func (p *brutePeer) polygon(poly orb.Polygon) ([]string, int, error) {
	c, _ := planar.CentroidArea(poly)
	var hits []hit
	for _, q := range p.points {
		if planar.PolygonContains(poly, orb.Point{q.Lon, q.Lat}) {
			hits = append(hits, hit{q.ID, geo.Distance(c.Lat(), c.Lon(), q.Lat, q.Lon)})
		}
	}
	return sortedIDs(hits), len(p.points), nil
}

func (p *brutePeer) farthest(lat, lon, metres float64, k int) ([]string, int, error) {
	var hits []hit
	for _, q := range p.points {
		if d := geo.Distance(lat, lon, q.Lat, q.Lon); d <= metres {
			hits = append(hits, hit{q.ID, d})
		}
	}
	return farthestIDs(hits, k), len(p.points), nil
}

func (p *brutePeer) within(lat, lon, metres float64, k int) ([]string, int, error) {
	ids, n, err := p.radius(lat, lon, metres)
	return ids[:min(k, len(ids))], n, err
}

func (p *brutePeer) nearest(lat, lon float64, k int) ([]string, int, error) {
	hits := make([]hit, len(p.points))
	for i, q := range p.points {
		hits[i] = hit{q.ID, geo.Distance(lat, lon, q.Lat, q.Lon)}
	}
	ids := sortedIDs(hits)
	return ids[:min(k, len(ids))], len(p.points), nil
}

// ---- an in-memory R-tree (github.com/tidwall/rtree) ----

type rtreePeer struct {
	tr rtree.RTreeG[workload.Point]
	// hits is a query's working buffer, which the next query reuses, as
	// the keyspace peers reuse their Results (keyspacePeer.results).
	hits []hit
}

// done keeps hits' array for the next query and returns the ids of the
// first k of them in order (all when k is 0).
func (p *rtreePeer) done(hits []hit, k int) []string {
	ids := sortedIDs(hits)
	p.hits = hits[:0]
	if k > 0 {
		ids = ids[:min(k, len(ids))]
	}
	return ids
}

func (*rtreePeer) name() string { return rtreeName }
func (*rtreePeer) exact() bool  { return true }
func (*rtreePeer) close() error { return nil }
func (p *rtreePeer) load(points []workload.Point) (int64, error) {
	for _, q := range points {
		pt := [2]float64{q.Lon, q.Lat}
		p.tr.Insert(pt, pt, q)
	}
	return onHeap, nil
}

// search visits the points in b, splitting a box across ±180° in two.
func (p *rtreePeer) search(b geo.Box, fn func(q workload.Point)) {
	parts := [][2]float64{{b.MinLon, b.MaxLon}}
	if b.MinLon > b.MaxLon {
		parts = [][2]float64{{b.MinLon, 180}, {-180, b.MaxLon}}
	}
	for _, lo := range parts {
		p.tr.Search([2]float64{lo[0], b.MinLat}, [2]float64{lo[1], b.MaxLat}, func(_, _ [2]float64, q workload.Point) bool {
			fn(q)
			return true
		})
	}
}

func (p *rtreePeer) radius(lat, lon, metres float64) ([]string, int, error) {
	hits, n := p.inCircle(lat, lon, metres)
	return p.done(hits, 0), n, nil
}

// farthest reads the whole circle, as radius does: an R-tree orders its
// search by nearness, and tidwall/rtree has no farthest-first walk.
func (p *rtreePeer) farthest(lat, lon, metres float64, k int) ([]string, int, error) {
	hits, n := p.inCircle(lat, lon, metres)
	ids := farthestIDs(hits, k)
	p.hits = hits[:0]
	return ids, n, nil
}

// inCircle is the points within metres of (lat, lon), in p's working
// buffer, and how many points the search read.
func (p *rtreePeer) inCircle(lat, lon, metres float64) ([]hit, int) {
	hits := p.hits[:0]
	n := 0
	p.search(geo.CircleBounds(lat, lon, metres), func(q workload.Point) {
		n++
		if d := geo.Distance(lat, lon, q.Lat, q.Lon); d <= metres {
			hits = append(hits, hit{q.ID, d})
		}
	})
	return hits, n
}

func (p *rtreePeer) box(b geo.Box) ([]string, int, error) {
	lat, lon := boxCentre(b)
	hits := p.hits[:0]
	n := 0
	p.search(b, func(q workload.Point) {
		n++
		if inBox(b, q.Lat, q.Lon) {
			hits = append(hits, hit{q.ID, geo.Distance(lat, lon, q.Lat, q.Lon)})
		}
	})
	return p.done(hits, 0), n, nil
}

func (p *rtreePeer) polygon(poly orb.Polygon) ([]string, int, error) {
	c, _ := planar.CentroidArea(poly)
	b := poly.Bound()
	hits := p.hits[:0]
	n := 0
	p.search(geo.Box{MinLat: b.Min[1], MinLon: b.Min[0], MaxLat: b.Max[1], MaxLon: b.Max[0]}, func(q workload.Point) {
		n++
		if planar.PolygonContains(poly, orb.Point{q.Lon, q.Lat}) {
			hits = append(hits, hit{q.ID, geo.Distance(c.Lat(), c.Lon(), q.Lat, q.Lon)})
		}
	})
	return p.done(hits, 0), n, nil
}

// nearest is exact on the sphere: nodes are ordered by their true minimum
// great-circle distance (geo.Box.MinDistance), points by haversine.
func (p *rtreePeer) nearest(lat, lon float64, k int) ([]string, int, error) {
	return p.nearby(lat, lon, math.Inf(1), k)
}

// within is nearest that stops at metres.
func (p *rtreePeer) within(lat, lon, metres float64, k int) ([]string, int, error) {
	return p.nearby(lat, lon, metres, k)
}

// nearby is the k nearest within metres (+Inf for anywhere), best first
// through the tree.
func (p *rtreePeer) nearby(lat, lon, metres float64, k int) ([]string, int, error) {
	hits := p.hits[:0]
	n := 0
	dist := func(min, max [2]float64, q workload.Point, item bool) float64 {
		if item {
			return geo.Distance(lat, lon, q.Lat, q.Lon)
		}
		return geo.Box{MinLat: min[1], MinLon: min[0], MaxLat: max[1], MaxLon: max[0]}.MinDistance(lat, lon)
	}
	var last float64
	p.tr.Nearby(dist, func(_, _ [2]float64, q workload.Point, d float64) bool {
		n++
		if d > metres || len(hits) >= k && d > last {
			return false // past the radius, or the k-th distance: ties are in
		}
		hits = append(hits, hit{q.ID, d})
		last = d
		return true
	})
	return p.done(hits, k), n, nil
}

// ---- keyspace, and Redis's 3×3 block over the same index ----

type keyspacePeer struct {
	label string
	grid  bool // answer radius queries with RadiusFixedGrid
	open  func() (keyspace.Store, func() int64, error)
	store keyspace.Store
	size  func() int64
	ix    *geo.Index
	dir   string
	// prepared is the points as geo.Points, from prepare, until load
	// takes them.
	prepared []geo.Point
	// results is the last query's Results, passed back as the next one's
	// QueryOptions.Into, as a server's loop would do: the Result array is
	// reused, and only the ids are new.
	results []geo.Result
	// The query being asked (asking), and what it found (ids, candidates),
	// for view, the one function the peer hands View for its whole life:
	// closures over each query's arguments, passed to View through the
	// Store interface, escaped to the heap, four allocations a query that
	// the R-tree peer, calling a concrete type, does not make.
	asking     question
	view       func(tx keyspace.Tx) error
	opts       geo.QueryOptions
	ids        []string
	candidates int
}

// question is a query with its arguments.
type question struct {
	kind          string
	lat, lon, arg float64 // arg: a radius in metres
	k             int
	box           geo.Box
	poly          orb.Polygon
}

func memoryPeer(label string, grid bool) *keyspacePeer {
	return &keyspacePeer{label: label, grid: grid, open: func() (keyspace.Store, func() int64, error) {
		return keyspace.NewMemory(), nil, nil
	}}
}

func boltPeer(label, dir string, grid bool) *keyspacePeer {
	p := &keyspacePeer{label: label, grid: grid, dir: dir}
	p.open = func() (keyspace.Store, func() int64, error) {
		path := filepath.Join(dir, "bench-"+label+".db")
		os.Remove(path)
		s, err := keyspace.Open(path, &keyspace.Options{NoSync: true})
		if err != nil {
			return nil, nil, err
		}
		return s, func() int64 { n, _ := s.Size(); return n }, nil
	}
	return p
}

func (p *keyspacePeer) name() string { return p.label }
func (p *keyspacePeer) exact() bool  { return !p.grid }
func (p *keyspacePeer) close() error {
	if p.store == nil {
		return nil
	}
	err := p.store.Close()
	if p.dir != "" {
		os.Remove(filepath.Join(p.dir, "bench-"+p.label+".db"))
	}
	return err
}

func (p *keyspacePeer) load(points []workload.Point) (int64, error) {
	s, size, err := p.open()
	if err != nil {
		return 0, err
	}
	p.store, p.size, p.ix = s, size, geo.NewIndex("bench")
	pts := p.prepared
	if len(pts) != len(points) {
		pts = geoPoints(points)
	}
	p.prepared = nil
	if err := s.Update(func(tx keyspace.Tx) error { return p.ix.PutAll(tx, pts) }); err != nil {
		return 0, err
	}
	if size != nil {
		return size(), nil
	}
	return onHeap, nil
}

func (p *keyspacePeer) prepare(points []workload.Point) { p.prepared = geoPoints(points) }

// geoPoints returns the points as geo.Points.
func geoPoints(points []workload.Point) []geo.Point {
	pts := make([]geo.Point, len(points))
	for i, q := range points {
		pts[i] = geo.Point{ID: q.ID, Lat: q.Lat, Lon: q.Lon}
	}
	return pts
}

func resultIDs(rs []geo.Result) []string {
	ids := make([]string, len(rs))
	for i, r := range rs {
		ids[i] = r.ID
	}
	return ids
}

// ask asks q in a View.
func (p *keyspacePeer) ask(q question) ([]string, int, error) {
	if p.grid && q.kind != "radius" && q.kind != "count" && q.kind != "farthest" {
		return nil, 0, errUnsupported
	}
	if p.view == nil {
		p.view = p.answer
	}
	p.asking = q
	err := p.store.View(p.view)
	return p.ids, p.candidates, err
}

// answer answers p.asking in tx.
func (p *keyspacePeer) answer(tx keyspace.Tx) error {
	q := &p.asking
	p.opts = geo.QueryOptions{Into: p.results}
	var rs []geo.Result
	var st geo.Stats
	var err error
	if q.kind == "count" || q.kind == "farthest" {
		p.opts.Limit, p.opts.FarthestFirst = q.k, q.kind == "farthest"
	}
	switch q.kind {
	case "radius", "count", "farthest":
		if p.grid {
			rs, st, err = p.ix.RadiusFixedGrid(tx, q.lat, q.lon, q.arg, &p.opts)
		} else {
			rs, st, err = p.ix.Radius(tx, q.lat, q.lon, q.arg, &p.opts)
		}
	case "box":
		rs, st, err = p.ix.Box(tx, q.box, &p.opts)
	case "polygon":
		rs, st, err = p.ix.Within(tx, q.poly, &p.opts)
	default:
		rs, st, err = p.ix.Nearest(tx, q.lat, q.lon, q.k, &p.opts)
	}
	p.ids, p.candidates = resultIDs(rs), st.Candidates
	if cap(rs) > cap(p.results) {
		p.results = rs
	}
	return err
}

func (p *keyspacePeer) radius(lat, lon, metres float64) ([]string, int, error) {
	return p.ask(question{kind: "radius", lat: lat, lon: lon, arg: metres})
}

func (p *keyspacePeer) box(b geo.Box) ([]string, int, error) {
	return p.ask(question{kind: "box", box: b})
}

func (p *keyspacePeer) polygon(poly orb.Polygon) ([]string, int, error) {
	return p.ask(question{kind: "polygon", poly: poly})
}

func (p *keyspacePeer) nearest(lat, lon float64, k int) ([]string, int, error) {
	return p.ask(question{kind: "knn", lat: lat, lon: lon, k: k})
}

func (p *keyspacePeer) within(lat, lon, metres float64, k int) ([]string, int, error) {
	return p.ask(question{kind: "count", lat: lat, lon: lon, arg: metres, k: k})
}

func (p *keyspacePeer) farthest(lat, lon, metres float64, k int) ([]string, int, error) {
	return p.ask(question{kind: "farthest", lat: lat, lon: lon, arg: metres, k: k})
}
