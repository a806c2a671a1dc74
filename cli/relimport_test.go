package cli_test

import (
	"cmp"
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
)

type relLink struct {
	ID     string
	Time   time.Time
	Fields json.RawMessage
}

// relList reads one side's whole list with rel list, newest first.
func relList(t *testing.T, db, rel, side, id string) []relLink {
	t.Helper()
	out, stderr, code := run(t, "", "--db", db, "--output", "json", "rel", "list", "--rel", rel, "--"+side, id)
	var page struct{ Links []relLink }
	if err := json.Unmarshal([]byte(out), &page); code != 0 || err != nil {
		t.Fatalf("rel list --%s %s: exit %d, %v: %s", side, id, code, err, stderr)
	}
	return page.Links
}

// wantLinks is one side's list from a model of the links, newest first,
// ties by the other side's id.
func wantLinks(links map[[2]string]time.Time, side int, id string) []relLink {
	var out []relLink
	for p, at := range links {
		if p[side] == id {
			out = append(out, relLink{ID: p[1-side], Time: at})
		}
	}
	slices.SortFunc(out, func(a, b relLink) int { return cmp.Or(b.Time.Compare(a.Time), strings.Compare(a.ID, b.ID)) })
	return out
}

func sameLinks(t *testing.T, what string, got, want []relLink) {
	t.Helper()
	if !slices.EqualFunc(got, want, func(a, b relLink) bool { return a.ID == b.ID && a.Time.Equal(b.Time) }) {
		t.Errorf("%s: %v, want %v", what, got, want)
	}
}

// TestRelImportAgainstRows: rel import of a TSV of likes (pairs repeated,
// rows bad) links each pair at its last row's time, as rel link of each
// row in order would; both sides' lists and counts are checked against
// the rows, and the relation verifies clean.
func TestRelImportAgainstRows(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(9, 10))
	base := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	links := map[[2]string]time.Time{}
	names := map[string]string{} // each user's name and item's title, from its last good row
	var b strings.Builder
	b.WriteString("user\titem\tat\tname\ttitle\n")
	for i := range 150 {
		u, it := fmt.Sprint("u", r.IntN(8)), fmt.Sprint("i:", r.IntN(12))
		at := base.Add(time.Duration(r.IntN(500)) * time.Minute)
		name, title := fmt.Sprint("name ", i), fmt.Sprint("<b>", i, "</b> & co")
		if i%40 == 39 {
			fmt.Fprintf(&b, "\t%s\t%d\t%s\t%s\n", it, at.Unix(), name, title) // no user: a bad row
			continue
		}
		fmt.Fprintf(&b, "%s\t%s\t%d\t%s\t%s\n", u, it, at.Unix(), name, title)
		links[[2]string{u, it}] = at
		names[u], names[it] = name, title
	}
	file := filepath.Join(dir, "likes.tsv")
	os.WriteFile(file, []byte(b.String()), 0o644)
	db := filepath.Join(dir, "k.db")
	args := []string{"--db", db, "rel", "import", "--rel", "likes", "--left-col", "user", "--right-col", "item", "--time-col", "at", "--format", "tsv",
		"--left-fields-cols", "name", "--right-fields-cols", "title", file}
	if _, stderr, code := run(t, "", args...); code != 1 || !strings.Contains(stderr, "line 41: user is empty (nothing imported)") {
		t.Fatalf("a bad row without --skip-bad: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(db); err == nil {
		t.Fatal("a failed import left a file")
	}
	_, stderr, code := run(t, "", append(args, "--skip-bad")...)
	if code != 0 || !strings.Contains(stderr, fmt.Sprintf("imported %d links into relation likes", len(links))) || !strings.Contains(stderr, "skipped 3 bad rows") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for side, prefix := range []string{"u", "i:"} {
		for n := range 12 {
			id := fmt.Sprint(prefix, n)
			want := wantLinks(links, side, id)
			got := relList(t, db, "likes", []string{"left", "right"}[side], id)
			sameLinks(t, "list "+id, got, want)
			// Each entry shows the other side's fields, from its last row.
			for _, l := range got {
				var fields map[string]string
				want := map[string]string{[]string{"title", "name"}[side]: names[l.ID]}
				if err := json.Unmarshal(l.Fields, &fields); err != nil || !maps.Equal(fields, want) {
					t.Errorf("list %s: %s shows %s, want %v", id, l.ID, l.Fields, want)
				}
			}
			out, _, _ := run(t, "", "--db", db, "rel", "count", "--rel", "likes", "--"+[]string{"left", "right"}[side], id)
			if strings.TrimSpace(out) != fmt.Sprint(len(want)) {
				t.Errorf("count %s: %q, want %d", id, out, len(want))
			}
		}
	}
	if out, stderr, code := run(t, "", "--db", db, "verify"); code != 0 {
		t.Errorf("verify: exit %d: %s%s", code, out, stderr)
	}
}

// TestRelImportStackExchange links the Stack Exchange dump's commenters
// to the posts they commented on (when ../shared/data holds it), and
// checks users' and posts' lists against the dump read by encoding/xml's
// Unmarshal: a pair at its last comment's time.
func TestRelImportStackExchange(t *testing.T) {
	path, comments := stackExchangeComments(t)
	links := map[[2]string]time.Time{}
	for _, c := range comments {
		if c.UserID != "" {
			links[[2]string{c.UserID, c.PostID}] = c.At
		}
	}
	db := filepath.Join(t.TempDir(), "se.db")
	_, stderr, code := run(t, "", "--db", db, "rel", "import", "--rel", "commented", "--left-col", "UserId", "--right-col", "PostId",
		"--time-col", "CreationDate", "--format", "xml", "--skip-bad", path)
	if code != 0 || !strings.Contains(stderr, fmt.Sprintf("imported %d links into relation commented", len(links))) {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, u := range []string{"39", "10", "43"} {
		sameLinks(t, "user "+u, relList(t, db, "commented", "left", u), wantLinks(links, 0, u))
	}
	for _, p := range []string{"5", "16", "22"} {
		sameLinks(t, "post "+p, relList(t, db, "commented", "right", p), wantLinks(links, 1, p))
	}
}

// TestRelScanRoundTrip: rel scan lists every link by left then right,
// page by page, as the rows linked them; its NDJSON imports into another
// file as the same links, which scan as the same lines.
func TestRelScanRoundTrip(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(17, 18))
	base := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	links := map[[2]string]time.Time{}
	var b strings.Builder
	b.WriteString("user,item,at\n")
	for range 60 {
		u, it := []string{"bob", "Ann", "c:d", "ann"}[r.IntN(4)], fmt.Sprint("i", r.IntN(9))
		at := base.Add(time.Duration(r.Int64N(int64(1000 * time.Hour))))
		fmt.Fprintf(&b, "%s,%s,%s\n", u, it, at.Format(time.RFC3339Nano))
		links[[2]string{u, it}] = at
	}
	from, to := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	if _, stderr, code := run(t, b.String(), "--db", from, "rel", "import", "--rel", "likes", "--left-col", "user", "--right-col", "item", "--time-col", "at", "-"); code != 0 {
		t.Fatal(stderr)
	}
	var want []relLink // ID is "left right"
	for p, at := range links {
		want = append(want, relLink{ID: p[0] + " " + p[1], Time: at})
	}
	slices.SortFunc(want, func(a, b relLink) int { return strings.Compare(a.ID, b.ID) })
	var got []relLink
	for cursor, pages := "", 0; pages == 0 || cursor != ""; pages++ {
		out, stderr, code := run(t, "", "--db", from, "--output", "json", "rel", "scan", "--rel", "likes", "--limit", "7", "--cursor", cursor)
		var page struct {
			Links []struct {
				Left, Right string
				Time        time.Time
			}
			Next string
		}
		if err := json.Unmarshal([]byte(out), &page); code != 0 || err != nil || len(page.Links) > 7 || pages > len(want) {
			t.Fatalf("rel scan page %d: exit %d, %v: %s", pages, code, err, stderr)
		}
		for _, l := range page.Links {
			got = append(got, relLink{ID: l.Left + " " + l.Right, Time: l.Time})
		}
		cursor = page.Next
	}
	sameLinks(t, "rel scan", got, want)
	export, stderr, code := run(t, "", "--db", from, "--output", "ndjson", "rel", "scan", "--rel", "likes")
	if code != 0 {
		t.Fatal(stderr)
	}
	if _, stderr, code := run(t, export, "--db", to, "rel", "import", "--rel", "likes", "--left-col", "left", "--right-col", "right", "--time-col", "time", "--format", "ndjson", "-"); code != 0 {
		t.Fatal(stderr)
	}
	if again, _, _ := run(t, "", "--db", to, "--output", "ndjson", "rel", "scan", "--rel", "likes"); again != export {
		t.Errorf("the export imported again scans as\n%s\nnot\n%s", again, export)
	}
	if out, stderr, code := run(t, "", "--db", to, "verify"); code != 0 {
		t.Errorf("verify: exit %d: %s%s", code, out, stderr)
	}
}

// TestRelListPeriod: rel list and rel count with --since and --until,
// on each side, give the links of the period the test picks from its own
// links (newest first, ties by id), with ends on link times, between
// them and open; a period that ends before it starts is refused, and a
// time that is not RFC 3339 is a usage error.
func TestRelListPeriod(t *testing.T) {
	db := filepath.Join(t.TempDir(), "likes.db")
	r := rand.New(rand.NewPCG(49, 5))
	base := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	at := func(h int) time.Time { return base.Add(time.Duration(h) * time.Hour) }
	links := map[[2]string]time.Time{}
	var b strings.Builder
	b.WriteString("user,item,at\n")
	for range 80 {
		u, it := []string{"ann", "bob", "c:d"}[r.IntN(3)], fmt.Sprint("i", r.IntN(12))
		when := at(r.IntN(48))
		fmt.Fprintf(&b, "%s,%s,%s\n", u, it, when.Format(time.RFC3339))
		links[[2]string{u, it}] = when
	}
	runOK(t, b.String(), "--db", db, "-q", "rel", "import", "--rel", "likes", "--left-col", "user", "--right-col", "item", "--time-col", "at", "-")
	ends := []string{"", at(0).Format(time.RFC3339), at(12).Format(time.RFC3339), at(30).Add(30 * time.Minute).Format(time.RFC3339), at(47).Format(time.RFC3339), at(99).Format(time.RFC3339)}
	for i := range 40 {
		since, until := ends[r.IntN(len(ends))], ends[r.IntN(len(ends))]
		side, id := 0, []string{"ann", "bob", "c:d"}[r.IntN(3)]
		if i%2 == 1 {
			side, id = 1, fmt.Sprint("i", r.IntN(12))
		}
		var want []relLink
		for _, l := range wantLinks(links, side, id) {
			if (since == "" || l.Time.Format(time.RFC3339) >= since) && (until == "" || l.Time.Format(time.RFC3339) < until) {
				want = append(want, l)
			}
		}
		args := []string{"--rel", "likes", "--" + []string{"left", "right"}[side], id}
		if since != "" {
			args = append(args, "--since", since)
		}
		if until != "" {
			args = append(args, "--until", until)
		}
		if since != "" && until != "" && until < since {
			if _, stderr, code := run(t, "", slices.Concat([]string{"--db", db, "rel", "count"}, args)...); code != 1 || !strings.Contains(stderr, "before it starts") {
				t.Errorf("rel count %v: exit %d, %s; want the period refused", args, code, stderr)
			}
			continue
		}
		out := runOK(t, "", slices.Concat([]string{"--db", db, "-o", "json", "rel", "list"}, args)...)
		var page struct{ Links []relLink }
		if err := json.Unmarshal([]byte(out), &page); err != nil {
			t.Fatal(out)
		}
		sameLinks(t, fmt.Sprintf("rel list %v", args), page.Links, want)
		if n := strings.TrimSpace(runOK(t, "", slices.Concat([]string{"--db", db, "rel", "count"}, args)...)); n != fmt.Sprint(len(want)) {
			t.Errorf("rel count %v: %s, want %d", args, n, len(want))
		}
	}
	if _, stderr, code := run(t, "", "--db", db, "rel", "list", "--rel", "likes", "--left", "ann", "--since", "yesterday"); code != 2 || !strings.Contains(stderr, "since") {
		t.Errorf("--since yesterday: exit %d, %s", code, stderr)
	}
}
