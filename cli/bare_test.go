package cli_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestCountAndIDsOutputs: --output count and ids (Tile38's COUNT and IDS)
// print how many points, and which, the same query prints as JSON, for
// queries and scans, whole and a page at a time (the next page's cursor
// on stderr, serving as the JSON's does); ids pipe into geo del.
func TestCountAndIDsOutputs(t *testing.T) {
	db := filepath.Join(t.TempDir(), "bare.db")
	var csv strings.Builder
	csv.WriteString("id,lat,lon\n")
	for i := range 60 {
		fmt.Fprintf(&csv, "p%d,%g,%g\n", i, 59+float64(i%10)/100, 10+float64(i/10)/100)
	}
	runOK(t, csv.String(), "--db", db, "-q", "geo", "import", "--index", "p", "-")
	for _, args := range [][]string{
		{"geo", "near", "--index", "p", "--lat", "59.05", "--lon", "10.02", "--radius", "4km"},
		{"geo", "near", "--index", "p", "--lat", "59.05", "--lon", "10.02", "--radius", "4km", "--limit", "7"},
		{"geo", "knn", "--index", "p", "--lat", "59.05", "--lon", "10.02", "--k", "9"},
		{"geo", "box", "--index", "p", "--min-lat", "59", "--min-lon", "10", "--max-lat", "59.04", "--max-lon", "10.03"},
		{"geo", "along", "--index", "p", "--line", `{"type":"LineString","coordinates":[[10,59],[10.05,59.09]]}`, "--radius", "1km", "--in-order"},
		{"geo", "scan", "--index", "p", "--limit", "25"},
		{"geo", "scan", "--index", "p", "--match", "p1*"},
	} {
		out := runOK(t, "", slices.Concat([]string{"--db", db, "-o", "json"}, args)...)
		var doc struct {
			Results, Points []struct{ ID string }
			Next            string
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		var ids []string
		for _, r := range append(doc.Results, doc.Points...) {
			ids = append(ids, r.ID)
		}
		if len(ids) == 0 {
			t.Fatalf("%v found nothing", args)
		}
		wantNext := ""
		if doc.Next != "" {
			wantNext = "next page: --cursor " + doc.Next + "\n"
		}
		for _, c := range []struct{ format, want string }{
			{"count", strconv.Itoa(len(ids)) + "\n"},
			{"ids", strings.Join(ids, "\n") + "\n"},
		} {
			got, stderr, code := run(t, "", slices.Concat([]string{"--db", db, "-o", c.format}, args)...)
			if code != 0 || got != c.want || stderr != wantNext {
				t.Errorf("%v -o %s: exit %d, %q and %q; want %q and %q", args, c.format, code, got, stderr, c.want, wantNext)
			}
		}
	}
	// The ids one query prints are what geo del takes.
	ids := strings.Fields(runOK(t, "", "--db", db, "-o", "ids", "geo", "knn", "--index", "p", "--lat", "59", "--lon", "10", "--k", "4"))
	runOK(t, "", slices.Concat([]string{"--db", db, "geo", "del", "--index", "p"}, ids)...)
	if n := runOK(t, "", "--db", db, "-o", "count", "geo", "scan", "--index", "p"); n != "56\n" {
		t.Errorf("after deleting the 4 nearest, geo scan counts %q", n)
	}
	if _, stderr, code := run(t, "", "--db", db, "-o", "ids", "geo", "get", "--index", "p", "p1"); code != 2 || !strings.Contains(stderr, `--output "ids": this command writes`) {
		t.Errorf("geo get -o ids: exit %d, %q", code, stderr)
	}
}
