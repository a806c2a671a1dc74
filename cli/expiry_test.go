package cli_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/geo"
)

// expiringPoints reads --output json of a geo query or scan: each point's
// id and expiry ("" for none).
func expiringPoints(t *testing.T, out string) map[string]string {
	t.Helper()
	var doc struct {
		Results, Points []struct{ ID, Expires string }
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	got := map[string]string{}
	for _, r := range append(doc.Results, doc.Points...) {
		got[r.ID] = r.Expires
	}
	return got
}

// TestGeoExpiry: points imported with --expires-col, or put with --ttl,
// are left out of near, knn, get and scan once they expire, and only then;
// geo sweep deletes exactly the expired ones and says when the next
// expires; a scan's export imported again keeps every expiry. The oracle
// is the CSV itself: which rows' times have passed.
func TestGeoExpiry(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	r := rand.New(rand.NewPCG(7, 8))
	past, future := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)
	var csv strings.Builder
	csv.WriteString("id,lat,lon,expires,name\n")
	live := map[string]string{} // id → expiry of the rows that have not expired
	expired := 0
	for i := range 60 {
		id, expires := fmt.Sprint("p", i), ""
		switch i % 3 {
		case 0:
			expires = past.Add(time.Duration(r.IntN(1000)) * time.Hour).Format(time.RFC3339)
			expired++
		case 1:
			expires = future.Add(time.Duration(r.IntN(1000)) * time.Hour).Format(time.RFC3339)
			live[id] = expires
		default:
			live[id] = ""
		}
		fmt.Fprintf(&csv, "%s,%.5f,%.5f,%s,n%d\n", id, 48.85+r.Float64()*0.01, 2.35+r.Float64()*0.01, expires, i)
	}
	if _, stderr, code := run(t, csv.String(), "--db", db, "--quiet", "geo", "import", "--index", "f", "--expires-col", "expires", "-"); code != 0 {
		t.Fatal(stderr)
	}
	// A point put with a TTL that runs out at once, and one with an hour.
	if _, stderr, code := run(t, "", "--db", db, "geo", "put", "--index", "f", "--lat", "48.855", "--lon", "2.355", "--ttl", "1ms", "brief"); code != 0 {
		t.Fatal(stderr)
	}
	before := time.Now()
	if _, stderr, code := run(t, "", "--db", db, "geo", "put", "--index", "f", "--lat", "48.855", "--lon", "2.355", "--ttl", "1h", "hour"); code != 0 {
		t.Fatal(stderr)
	}
	time.Sleep(5 * time.Millisecond)
	expired++
	var hour string // when the point put with --ttl 1h expires
	checkHour := func(what string, got map[string]string) {
		t.Helper()
		hour = got["hour"]
		at, err := time.Parse(time.RFC3339, got["hour"])
		if err != nil || at.Before(before.Add(time.Hour-time.Second)) || at.After(time.Now().Add(time.Hour)) {
			t.Fatalf("%s: hour expires at %q, put with --ttl 1h at %v", what, got["hour"], before)
		}
		delete(got, "hour")
	}
	for _, query := range [][]string{
		{"geo", "near", "--index", "f", "--lat", "48.855", "--lon", "2.355", "--radius", "5km"},
		{"geo", "knn", "--index", "f", "--lat", "48.855", "--lon", "2.355", "-k", "1000"},
		{"geo", "scan", "--index", "f"},
	} {
		out, stderr, code := run(t, "", append([]string{"--db", db, "--output", "json"}, query...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", query, code, stderr)
		}
		got := expiringPoints(t, out)
		checkHour(query[1], got)
		if !maps.Equal(got, live) {
			t.Fatalf("%v: %d points %v, want the %d live rows %v", query, len(got), got, len(live), live)
		}
	}
	if _, _, code := run(t, "", "--db", db, "geo", "get", "--index", "f", "p0"); code != 1 {
		t.Errorf("geo get of an expired point: exit %d, want 1", code)
	}
	if out, _, code := run(t, "", "--db", db, "geo", "get", "--index", "f", "p1"); code != 0 || !strings.Contains(out, "EXPIRES") || !strings.Contains(out, live["p1"]) {
		t.Errorf("geo get of a live point: exit %d\n%s", code, out)
	}

	// A scan's export imported into another index keeps the expiries.
	export, stderr, code := run(t, "", "--db", db, "--output", "ndjson", "geo", "scan", "--index", "f")
	if code != 0 {
		t.Fatal(stderr)
	}
	if _, stderr, code := run(t, export, "--db", db, "--quiet", "geo", "import", "--index", "copy", "--format", "ndjson", "--expires-col", "expires", "-"); code != 0 {
		t.Fatal(stderr)
	}
	out, _, _ := run(t, "", "--db", db, "--output", "json", "geo", "scan", "--index", "copy")
	got := expiringPoints(t, out)
	original := hour
	checkHour("the copy", got)
	if hour != original {
		t.Errorf("the copy expires at %s, the original at %s", hour, original)
	}
	// To the nanosecond, read through the library.
	store, err := keyspace.Open(db, &keyspace.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	store.View(func(tx keyspace.Tx) error {
		a, errA := geo.NewIndex("f").Get(tx, "hour")
		b, errB := geo.NewIndex("copy").Get(tx, "hour")
		if errA != nil || errB != nil || !a.Expires.Equal(b.Expires) || a.Expires.Nanosecond() == 0 && b.Expires.Nanosecond() == 0 {
			t.Errorf("the copy of hour expires at %v (%v), the original at %v (%v)", b.Expires, errB, a.Expires, errA)
		}
		return nil
	})
	store.Close()
	if !maps.Equal(got, live) {
		t.Fatalf("the export imported again: %v, want %v", got, live)
	}

	// geo expire and geo persist change expiries in place, all ids or
	// none: p0 has expired, so the first changes nothing.
	if _, stderr, code := run(t, "", "--db", db, "geo", "expire", "--index", "f", "--ttl", "1h", "p1", "p0"); code != 1 || !strings.Contains(stderr, "p0") {
		t.Errorf("geo expire of an expired point: exit %d, %q", code, stderr)
	}
	if out, _, _ := run(t, "", "--db", db, "--output", "json", "geo", "get", "--index", "f", "p1"); expiringPoints(t, out)["p1"] != live["p1"] {
		t.Errorf("a failed geo expire changed p1: %s", out)
	}
	if _, stderr, code := run(t, "", "--db", db, "geo", "expire", "--index", "f", "--ttl", "1ms", "p1"); code != 0 {
		t.Fatal(stderr)
	}
	if _, stderr, code := run(t, "", "--db", db, "geo", "persist", "--index", "f", "p4"); code != 0 {
		t.Fatal(stderr)
	}
	time.Sleep(5 * time.Millisecond)
	delete(live, "p1")
	expired++
	live["p4"] = ""
	out, _, _ = run(t, "", "--db", db, "--output", "json", "geo", "scan", "--index", "f")
	got = expiringPoints(t, out)
	checkHour("after expire and persist", got)
	if !maps.Equal(got, live) {
		t.Fatalf("after expire and persist: %v, want %v", got, live)
	}

	out, stderr, code = run(t, "", "--db", db, "geo", "sweep", "--index", "f")
	next, _ := time.Parse(time.RFC3339Nano, hour)
	if want := fmt.Sprintf("deleted %d expired points from geo index f\nnext expiry: %s\n", expired, next.Format(time.RFC3339)); code != 0 || out != want {
		t.Fatalf("geo sweep: exit %d, %q (%s), want %q", code, out, stderr, want)
	}
	if out, _, code := run(t, "", "--db", db, "geo", "sweep", "--index", "f"); code != 0 || !strings.HasPrefix(out, "deleted 0 expired points") {
		t.Errorf("a second sweep: exit %d, %q", code, out)
	}
	if out, stderr, code := run(t, "", "--db", db, "verify"); code != 0 {
		t.Errorf("verify after the sweep: exit %d\n%s%s", code, out, stderr)
	}
	out, _, _ = run(t, "", "--db", db, "--output", "json", "geo", "scopes", "--index", "f", "--count")
	if !strings.Contains(out, fmt.Sprintf(`"points": %d`, len(live)+1)) {
		t.Errorf("after the sweep the index should hold the %d live points: %s", len(live)+1, out)
	}
}

// TestGeoExpiryBadInput: a --ttl that is not positive, an expiry that is
// not a time or is out of range, and --ttl with --expires-col are refused
// with the reason (and the line), and nothing is written.
func TestGeoExpiryBadInput(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	if _, stderr, code := run(t, "id,lat,lon\na,1,1\n", "--db", db, "--quiet", "geo", "import", "--index", "f", "-"); code != 0 {
		t.Fatal(stderr)
	}
	file, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		stdin string
		args  []string
		code  int
		says  string
	}{
		{"", []string{"geo", "put", "--index", "f", "--lat", "2", "--lon", "2", "--ttl", "0s", "b"}, 2, "--ttl 0s"},
		{"", []string{"geo", "put", "--index", "f", "--lat", "2", "--lon", "2", "--ttl", "-5m", "b"}, 2, "--ttl -5m0s"},
		{"", []string{"geo", "put", "--index", "f", "--lat", "2", "--lon", "2", "--ttl", "soon", "b"}, 2, "soon"},
		{"id,lat,lon,exp\nb,2,2,2030-01-01T00:00:00Z\nc,3,3,tomorrow\n", []string{"geo", "import", "--index", "f", "--expires-col", "exp", "-"}, 1, `line 3: expiry "tomorrow"`},
		{"id,lat,lon,exp\nb,2,2,1960-01-01T00:00:00Z\n", []string{"geo", "import", "--index", "f", "--expires-col", "exp", "-"}, 1, "out of range"},
		{"id,lat,lon,exp\nb,2,2,\n", []string{"geo", "import", "--index", "f", "--expires-col", "when", "-"}, 1, `no expiry column "when"`},
		{"id,lat,lon,exp\nb,2,2,\n", []string{"geo", "import", "--index", "f", "--expires-col", "exp", "--ttl", "1h", "-"}, 2, "give one"},
		{"", []string{"geo", "sweep", "--index", "f", "--limit", "-1"}, 2, "--limit -1"},
	} {
		_, stderr, code := run(t, tc.stdin, append([]string{"--db", db, "--quiet"}, tc.args...)...)
		if code != tc.code || !strings.Contains(stderr, tc.says) {
			t.Errorf("%v: exit %d, %q; want exit %d saying %q", tc.args, code, stderr, tc.code, tc.says)
		}
	}
	if after, err := os.ReadFile(db); err != nil || !slices.Equal(file, after) {
		t.Errorf("refused input changed the database file (%v)", err)
	}
}

// TestGeoSweepEveryIndex: geo sweep without --index sweeps every geo index
// in the file, as a cron job would, and leaves the live points.
func TestGeoSweepEveryIndex(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	if out, _, code := run(t, "", "--db", db, "geo", "sweep"); code != 0 || out != "no geo indexes\n" {
		t.Errorf("sweep of a file with no geo index: exit %d, %q", code, out)
	}
	put := func(index, id, ttl string) {
		t.Helper()
		args := []string{"--db", db, "geo", "put", "--index", index, "--lat", "1", "--lon", "2", id}
		if ttl != "" {
			args = append(args, "--ttl", ttl)
		}
		if _, stderr, code := run(t, "", args...); code != 0 {
			t.Fatal(stderr)
		}
	}
	put("a", "a1", "1ms")
	put("a", "a2", "")
	put("b", "b1", "1ms")
	put("b", "b2", "1ms")
	put("c", "c1", "")
	time.Sleep(5 * time.Millisecond)
	out, stderr, code := run(t, "", "--db", db, "geo", "sweep")
	if want := "deleted 1 expired point from geo index a\ndeleted 2 expired points from geo index b\ndeleted 0 expired points from geo index c\n"; code != 0 || out != want {
		t.Fatalf("sweep: exit %d, %q (%s), want %q", code, out, stderr, want)
	}
	if _, stderr, code := run(t, "", "--db", db, "geo", "scan", "--index", "b"); code != 1 || !strings.Contains(stderr, "holds no points") {
		t.Errorf("b after the sweep: exit %d, %q; want it empty", code, stderr)
	}
	for index, want := range map[string]string{"a": "a2", "c": "c1"} {
		out, _, _ := run(t, "", "--db", db, "--output", "json", "geo", "scan", "--index", index)
		var ids []string
		for id := range expiringPoints(t, out) {
			ids = append(ids, id)
		}
		if strings.Join(ids, ",") != want {
			t.Errorf("after the sweep %s holds %v, want %q", index, ids, want)
		}
	}
	if out, stderr, code := run(t, "", "--db", db, "verify"); code != 0 {
		t.Errorf("verify after the sweep: exit %d\n%s%s", code, out, stderr)
	}
}

// TestDurationsInDays: --ttl and --older-than take days and weeks (2d,
// 1w), as 48 and 168 hours.
func TestDurationsInDays(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	expiresIn := func(ttl string, d time.Duration, args ...string) {
		t.Helper()
		before := time.Now()
		if _, stderr, code := run(t, "", append([]string{"--db", db}, append(args, "--ttl", ttl, "p")...)...); code != 0 {
			t.Fatalf("%v --ttl %s: %s", args, ttl, stderr)
		}
		after := time.Now()
		out, stderr, code := run(t, "", "--db", db, "--output", "json", "geo", "get", "--index", "f", "p")
		var got struct{ Results []struct{ Expires time.Time } }
		if code != 0 || json.Unmarshal([]byte(out), &got) != nil || len(got.Results) != 1 {
			t.Fatalf("get p: exit %d, %s %s", code, out, stderr)
		}
		if at := got.Results[0].Expires; at.Before(before.Add(d)) || at.After(after.Add(d)) {
			t.Errorf("--ttl %s: expires %v, want %v from between %v and %v", ttl, at, d, before, after)
		}
	}
	expiresIn("2d", 48*time.Hour, "geo", "put", "--index", "f", "--lat", "1", "--lon", "2")
	expiresIn("1w", 168*time.Hour, "geo", "expire", "--index", "f")
	expiresIn("1d12h", 36*time.Hour, "geo", "expire", "--index", "f")
	// Items 31 and 29 days old: --older-than 30d deletes the first.
	now := time.Now()
	for _, age := range []int{31, 29} {
		at := now.Add(-time.Duration(age) * 24 * time.Hour).Format(time.RFC3339)
		if _, stderr, code := run(t, "", "--db", db, "log", "append", "--log", "l", "--parent", "a", "--time", at, "x"); code != 0 {
			t.Fatal(stderr)
		}
	}
	if out, stderr, code := run(t, "", "--db", db, "log", "trim", "--log", "l", "--older-than", "30d"); code != 0 || out != "deleted 1 item from l\n" {
		t.Errorf("trim --older-than 30d: exit %d, %q %q", code, out, stderr)
	}
	if _, stderr, code := run(t, "", "--db", db, "log", "trim", "--log", "l", "--older-than", "30days"); code != 2 || !strings.Contains(stderr, "30d or 1w") {
		t.Errorf("--older-than 30days: exit %d, %q", code, stderr)
	}
}

// TestNotesOnEmptyNames: a read, trim or sweep of a log, geo index or
// fence set that holds nothing (no catalog tells a misspelt name from an
// emptied one) succeeds and says so on stderr, with the name most like
// it when one is near; one that holds something says nothing, even when
// it finds nothing.
func TestNotesOnEmptyNames(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	for _, args := range [][]string{
		{"log", "append", "--log", "inbox", "--parent", "ann", "hi"},
		{"geo", "put", "--index", "fleet", "--lat", "1", "--lon", "2", "car"},
		{"fence", "put", "--fences", "zones", "--lat", "1", "--lon", "2", "--radius", "1km", "z"},
	} {
		if _, stderr, code := run(t, "", append([]string{"--db", db}, args...)...); code != 0 {
			t.Fatal(stderr)
		}
	}
	for _, tc := range []struct {
		args       []string
		note, hint string // "" for none
	}{
		{[]string{"log", "latest", "--log", "inbx", "--parent", "ann"}, `log "inbx" holds no items`, `; did you mean "inbox"?`},
		{[]string{"log", "count", "--log", "inbx", "--parent", "ann"}, `log "inbx" holds no items`, `; did you mean "inbox"?`},
		{[]string{"log", "trim", "--log", "inbx", "--max-len", "5"}, `log "inbx" holds no items`, `; did you mean "inbox"?`},
		{[]string{"log", "latest", "--log", "outgoing", "--parent", "ann"}, `log "outgoing" holds no items`, ""},
		{[]string{"log", "latest", "--log", "inbox", "--parent", "bob"}, "", ""},
		{[]string{"log", "count", "--log", "inbox", "--parent", "bob"}, "", ""},
		{[]string{"log", "trim", "--log", "inbox", "--max-len", "5"}, "", ""},
		{[]string{"geo", "sweep", "--index", "flet"}, `geo index "flet" holds no points`, `; did you mean "fleet"?`},
		{[]string{"geo", "sweep", "--index", "cars"}, `geo index "cars" holds no points`, ""},
		{[]string{"geo", "sweep", "--index", "fleet"}, "", ""},
		{[]string{"fence", "sweep", "--fences", "zone"}, `fence set "zone" holds no fences`, `; did you mean "zones"?`},
		{[]string{"fence", "sweep", "--fences", "zones"}, "", ""},
	} {
		_, stderr, code := run(t, "", append([]string{"--db", db}, tc.args...)...)
		if code != 0 || tc.note == "" && stderr != "" || tc.note != "" && !strings.Contains(stderr, tc.note+" (see keyspace stats)"+tc.hint+"\n") {
			t.Errorf("%v: exit %d, stderr %q; want exit 0 and note %q", tc.args, code, stderr, tc.note+" (see keyspace stats)"+tc.hint)
		}
	}
}
