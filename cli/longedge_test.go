package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/paulmach/orb"
	"github.com/paulmach/orb/planar"
)

// TestLongEdgeNoted: a polygon with an edge longer than 180° of longitude
// is read as GeoJSON draws it, the long way round (checked against orb's
// planar test of the same ring at points on both sides of ±180° and of
// 0°), and the command says so on stderr, naming the edge; a polygon whose
// edges span 180° or less gets no note. fence import counts such fences.
func TestLongEdgeNoted(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	ring := orb.Ring{{170, 10}, {-170, 10}, {-170, -10}, {170, -10}, {170, 10}}
	long := `{"type":"Polygon","coordinates":[[[170,10],[-170,10],[-170,-10],[170,-10],[170,10]]]}`
	_, stderr, code := run(t, "", "--db", db, "fence", "put", "-f", "z", "--polygon", long, "band")
	if code != 0 || !strings.Contains(stderr, "note: --polygon has an edge from [170,10] to [-170,10], 340° of longitude") {
		t.Fatalf("fence put of a 340° edge: exit %d, stderr %q; want a note naming the edge", code, stderr)
	}
	for _, lon := range []float64{-179.5, -175, -169.5, -90, 0, 90, 169.5, 175, 179.5} {
		for _, lat := range []float64{-11, 0, 9} {
			out := runOK(t, "", "--db", db, "fence", "containing", "-f", "z", "--lat", fmt.Sprint(lat), "--lon", fmt.Sprint(lon))
			got := strings.HasPrefix(out, "band\n")
			if want := planar.RingContains(ring, orb.Point{lon, lat}); got != want {
				t.Errorf("(%g, %g): in the band %v, orb's planar test says %v", lat, lon, got, want)
			}
		}
	}
	half := `{"type":"Polygon","coordinates":[[[0,0],[180,0],[180,1],[0,1],[0,0]]]}`
	if _, stderr, code := run(t, "", "--db", db, "fence", "put", "-f", "z", "--polygon", half, "half"); code != 0 || stderr != "" {
		t.Errorf("fence put of edges of 180° at most: exit %d, stderr %q; want no note", code, stderr)
	}
	// The note is said when the command succeeds; one that fails says its
	// error alone, in one line.
	if _, stderr, code := run(t, "", "--db", db, "geo", "within", "-i", "none", "--polygon", long); code != 1 || strings.Count(stderr, "\n") != 1 || strings.Contains(stderr, "note") {
		t.Errorf("geo within of an unknown index: exit %d, stderr %q; want its error alone", code, stderr)
	}
	runOK(t, "", "--db", db, "geo", "put", "-i", "p", "--lat", "0", "--lon", "0", "greenwich")
	if out, stderr, code := run(t, "", "--db", db, "geo", "within", "-i", "p", "--polygon", long); code != 0 || !strings.Contains(out, "greenwich") || !strings.HasSuffix(stderr, "a box across it is --min-lon 170 --max-lon -170\n") {
		t.Errorf("geo within: exit %d, %q, stderr %q; want greenwich and the note", code, out, stderr)
	}

	src := filepath.Join(t.TempDir(), "z.geojson")
	feature := func(id, coords string) string {
		return `{"type":"Feature","id":"` + id + `","geometry":{"type":"Polygon","coordinates":` + coords + `},"properties":{}}`
	}
	fc := `{"type":"FeatureCollection","features":[` +
		feature("fine", `[[[0,0],[1,0],[1,1],[0,0]]]`) + "," +
		feature("a", `[[[170,10],[-170,10],[-170,-10],[170,-10],[170,10]]]`) + "," +
		feature("b", `[[[-180,-5],[180,-5],[180,5],[-180,5],[-180,-5]],[[-179,1],[179,1],[179,2],[-179,1]]]`) + `]}`
	if err := os.WriteFile(src, []byte(fc), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = run(t, "", "--db", db, "fence", "import", "-f", "y", src)
	if code != 0 || !strings.Contains(stderr, `imported 3 fences into fence set y; 2 polygons have an edge longer than 180° of longitude; the first: fence "a" has an edge from [170,10] to [-170,10]`) {
		t.Errorf("fence import: exit %d, stderr %q; want a note counting 2 polygons", code, stderr)
	}
}
