package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestCentreAsArguments gives the commands that take a centre by --lat
// and --lon their centre as arguments, as Redis's commands take it (the
// index first, longitude or latitude first, a radius in one word or two),
// and expects a usage error that writes nothing and suggests flags. The
// suggestion is then run in place of the arguments: it must succeed and
// print what the command written with the intended flags prints; so
// must the flags suggested for a --lat or --lon that is not a number but
// a pair of them or a number with its hemisphere. Words that do not read
// as a centre and what follows it get no such guess.
func TestCentreAsArguments(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "centre.db")
	points := filepath.Join(dir, "points.csv")
	csv := "id,lat,lon\nhere,36.73,-116.30\nnorth,36.90,-116.30\nfar-north,37.10,-116.30\neast,36.73,-115.80\n"
	if err := os.WriteFile(points, []byte(csv), 0o600); err != nil {
		t.Fatal(err)
	}
	runOK(t, "", "--db", db, "-q", "geo", "import", "--index", "quakes", points)
	runOK(t, "", "--db", db, "fence", "put", "--fences", "zones", "--lat", "36.73", "--lon", "-116.30", "--radius", "5km", "round")
	before, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}

	mean := regexp.MustCompile(`did you mean (.*?)\?`)
	for _, tc := range []struct {
		command, set, args []string
		intended           string // the flags the args stand for, "" for no guess
	}{
		{[]string{"geo", "near"}, nil, []string{"quakes", "36.73", "-116.30", "30", "km"}, "--index quakes --lat 36.73 --lon -116.30 --radius 30km"},
		{[]string{"geo", "near"}, []string{"-i", "quakes"}, []string{"-116.30", "36.73", "30km"}, "--lat 36.73 --lon -116.30 --radius 30km"},
		{[]string{"geo", "near"}, []string{"--radius", "30km"}, []string{"quakes", "36.73", "-116.30"}, "--index quakes --lat 36.73 --lon -116.30"},
		{[]string{"geo", "knn"}, nil, []string{"quakes", "-116.30", "36.73", "2"}, "--index quakes --lat 36.73 --lon -116.30 -k 2"},
		{[]string{"geo", "knn"}, []string{"-i", "quakes"}, []string{"36.73", "-116.30", "3"}, "--lat 36.73 --lon -116.30 -k 3"},
		{[]string{"geo", "box"}, []string{"-i", "quakes"}, []string{"36.73", "-116.30", "100km", "20", "KM"}, "--lat 36.73 --lon -116.30 --width 100km --height 20km"},
		{[]string{"fence", "containing"}, nil, []string{"zones", "36.73", "-116.30"}, "--fences zones --lat 36.73 --lon -116.30"},
		// A centre in one flag, as maps copy it, or with its hemisphere.
		{[]string{"geo", "near"}, []string{"-i", "quakes", "--radius", "30km"}, []string{"--lat", "36.73, -116.30"}, "--lat 36.73 --lon -116.30"},
		{[]string{"geo", "knn"}, []string{"-i", "quakes", "--lat", "36.73", "-k", "2"}, []string{"--lon", "116.30W"}, "--lon -116.30"},
		{[]string{"fence", "containing"}, []string{"-f", "zones", "--lon", "-116.30"}, []string{"--lat", "36.73N"}, "--lat 36.73"},
		// Not a centre: four numbers (a box by its corners, in an order
		// no one agrees on), a word past the radius, no latitude at all.
		{[]string{"geo", "box"}, []string{"-i", "quakes"}, []string{"36", "-116", "37", "-115"}, ""},
		{[]string{"geo", "near"}, []string{"-i", "quakes"}, []string{"36.73", "-116.30", "30km", "extra"}, ""},
		{[]string{"geo", "near"}, []string{"-i", "quakes"}, []string{"136.73", "-116.30", "30km"}, ""},
		{[]string{"geo", "knn"}, []string{"-i", "quakes"}, []string{"36.73", "-116.30", "0"}, ""},
		{[]string{"geo", "near"}, []string{"-i", "quakes", "--radius", "30km", "--lon", "-116.30"}, []string{"--lat", "north"}, ""},
	} {
		args := slices.Concat([]string{"--db", db}, tc.command, tc.set, tc.args)
		out, stderr, code := run(t, "", args...)
		if code != 2 || out != "" {
			t.Errorf("keyspace %s: exit %d, printed %q; want a usage error (2) and nothing printed", strings.Join(args, " "), code, out)
			continue
		}
		m := mean.FindStringSubmatch(stderr)
		if tc.intended == "" {
			if m != nil && strings.Contains(m[1], "--lat") {
				t.Errorf("keyspace %s: %q guessed a centre", strings.Join(args, " "), stderr)
			}
			continue
		}
		if m == nil {
			t.Errorf("keyspace %s: %q suggests no flags; want %s", strings.Join(args, " "), stderr, tc.intended)
			continue
		}
		want := runOK(t, "", slices.Concat([]string{"--db", db, "-o", "json"}, tc.command, tc.set, strings.Fields(tc.intended))...)
		if strings.TrimSpace(want) == "" || strings.TrimSpace(want) == "[]" {
			t.Fatalf("%s %s found nothing: the case tests nothing", strings.Join(tc.command, " "), tc.intended)
		}
		got, stderr, code := run(t, "", slices.Concat([]string{"--db", db, "-o", "json"}, tc.command, tc.set, strings.Fields(m[1]))...)
		if code != 0 || got != want {
			t.Errorf("keyspace %s suggested %q, which gave exit %d, %s%q; want %q (from %s)", strings.Join(args, " "), m[1], code, stderr, got, want, tc.intended)
		}
	}
	after, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(before, after) {
		t.Error("the commands given a centre as arguments changed the file")
	}
}

// TestPutCentreAsArguments gives geo put and fence put their centre and
// ID as arguments, as Redis's GEOADD takes them (key, longitude,
// latitude, member), and expects a usage error that changes nothing and
// suggests flags. The suggestion and the intended flags are then each
// run on a copy of the file, which must hold the same after both.
func TestPutCentreAsArguments(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "put.db")
	runOK(t, "", "--db", db, "geo", "put", "--index", "fleet", "--lat", "1", "--lon", "2", "car-1")
	mean := regexp.MustCompile(`did you mean (.*?)\?`)
	for i, tc := range []struct {
		command, set, args []string
		intended           string
		after              []string // the command whose output the two copies must share
	}{
		{[]string{"geo", "put"}, nil, []string{"fleet", "13.41", "52.52", "car-7"}, "--index fleet --lat 13.41 --lon 52.52 car-7", []string{"geo", "scan", "--index", "fleet"}},
		{[]string{"geo", "put"}, []string{"-i", "fleet"}, []string{"car-7", "52.52", "13.41"}, "--lat 52.52 --lon 13.41 car-7", []string{"geo", "scan", "--index", "fleet"}},
		{[]string{"geo", "put"}, []string{"-i", "fleet"}, []string{"13.41", "152.52", "car-7"}, "--lat 13.41 --lon 152.52 car-7", []string{"geo", "scan", "--index", "fleet"}},
		{[]string{"fence", "put"}, []string{"-f", "zones", "--radius", "2km"}, []string{"52.52", "13.41", "berlin"}, "--lat 52.52 --lon 13.41 berlin", []string{"fence", "list", "--fences", "zones"}},
		{[]string{"fence", "put"}, []string{"--radius", "2km"}, []string{"zones", "52.52", "13.41", "berlin"}, "--fences zones --lat 52.52 --lon 13.41 berlin", []string{"fence", "list", "--fences", "zones"}},
	} {
		before, err := os.ReadFile(db)
		if err != nil {
			t.Fatal(err)
		}
		args := slices.Concat([]string{"--db", db}, tc.command, tc.set, tc.args)
		out, stderr, code := run(t, "", args...)
		if after, _ := os.ReadFile(db); code != 2 || out != "" || !slices.Equal(before, after) {
			t.Errorf("keyspace %s: exit %d, printed %q, file changed %v; want a usage error (2), nothing printed and the file as it was", strings.Join(args, " "), code, out, !slices.Equal(before, after))
			continue
		}
		m := mean.FindStringSubmatch(stderr)
		if m == nil {
			t.Errorf("keyspace %s: %q suggests no flags; want %s", strings.Join(args, " "), stderr, tc.intended)
			continue
		}
		var held [2]string
		for j, flags := range []string{tc.intended, m[1]} {
			copyDB := filepath.Join(dir, fmt.Sprintf("copy-%d-%d.db", i, j))
			if err := os.WriteFile(copyDB, before, 0o600); err != nil {
				t.Fatal(err)
			}
			runOK(t, "", slices.Concat([]string{"--db", copyDB}, tc.command, tc.set, strings.Fields(flags))...)
			held[j] = runOK(t, "", slices.Concat([]string{"--db", copyDB, "-o", "json"}, tc.after)...)
		}
		if held[0] != held[1] || held[0] == "" {
			t.Errorf("keyspace %s suggested %q, after which %v printed\n%s\nwant (after %s)\n%s", strings.Join(args, " "), m[1], tc.after, held[1], tc.intended, held[0])
		}
	}
}
