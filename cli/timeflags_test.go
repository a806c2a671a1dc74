package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestTimeFlagsForms: the time flags (log append --time, log range and
// count --since/--until, rel link --time, series add --time) read what an
// import's time column does: RFC 3339 with a zone or without one (UTC,
// with a T or a space), a date (its midnight UTC) and Unix seconds. The
// times stored and the items a period counts are checked against the
// test's own time.Date values.
func TestTimeFlagsForms(t *testing.T) {
	db := filepath.Join(t.TempDir(), "times.db")
	forms := []struct {
		text string
		want time.Time
	}{
		{"2026-11-02", time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)},
		{"2026-11-02T10:30:00+05:00", time.Date(2026, 11, 2, 5, 30, 0, 0, time.UTC)},
		{"2026-11-02T23:59:59", time.Date(2026, 11, 2, 23, 59, 59, 0, time.UTC)},
		{"2026-11-03 00:00:00", time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)},
		{"1764000000", time.Unix(1764000000, 0).UTC()},
		{"1764000000.5", time.Unix(1764000000, 5e8).UTC()},
	}
	for i, f := range forms {
		id := strings.TrimSpace(runOK(t, "", "--db", db, "log", "append", "--log", "l", "-p", "a", "--time", f.text, "item"+strconv.Itoa(i)))
		var got struct{ Items []struct{ Time time.Time } }
		if out := runOK(t, "", "--db", db, "-o", "json", "log", "get", "--log", "l", "-p", "a", id); json.Unmarshal([]byte(out), &got) != nil || len(got.Items) != 1 {
			t.Fatalf("--time %s: log get %s: %s", f.text, id, out)
		}
		if !got.Items[0].Time.Equal(f.want) {
			t.Errorf("--time %s: stored %v, want %v", f.text, got.Items[0].Time, f.want)
		}
	}
	for _, p := range [][2]string{{"2026-11-02", "2026-11-03"}, {"1764000000", "2026-11-02T06:00:00"}, {"1764000001", "2026-12-01"}, {"2026-11-02T05:30:00", "2026-11-03"}} {
		since, _ := time.Parse(time.DateOnly, p[0])
		until, _ := time.Parse(time.DateOnly, p[1])
		for i, s := range []*time.Time{&since, &until} {
			if s.IsZero() {
				if strings.Contains(p[i], "T") {
					*s, _ = time.Parse("2006-01-02T15:04:05", p[i])
				} else {
					n, _ := strconv.ParseInt(p[i], 10, 64)
					*s = time.Unix(n, 0).UTC()
				}
			}
		}
		want := 0
		for _, f := range forms {
			if !f.want.Before(since) && f.want.Before(until) {
				want++
			}
		}
		out := runOK(t, "", "--db", db, "log", "count", "--log", "l", "-p", "a", "--since", p[0], "--until", p[1])
		if strings.TrimSpace(out) != strconv.Itoa(want) {
			t.Errorf("log count --since %s --until %s: %q, want %d", p[0], p[1], out, want)
		}
	}
	runOK(t, "", "--db", db, "rel", "link", "--rel", "r", "--time", "1764000000", "u", "i")
	if out := runOK(t, "", "--db", db, "-o", "ndjson", "rel", "list", "--rel", "r", "--left", "u", "--since", "2025-11-24", "--until", "2025-11-25"); !strings.Contains(out, `"2025-11-24T16:00:00Z"`) {
		t.Errorf("rel link --time 1764000000, listed for 2025-11-24: %q", out)
	}
	runOK(t, "", "--db", db, "series", "add", "--series", "s", "--sensor", "x", "--time", "2026-11-02 10:30:15", "4")
	if out := runOK(t, "", "--db", db, "-o", "ndjson", "series", "range", "--series", "s", "--sensor", "x", "--from", "2026-11-02", "--to", "2026-11-03"); !strings.Contains(out, `2026-11-02T10:30:00Z`) {
		t.Errorf("series add --time '2026-11-02 10:30:15', its minute's bucket in range of the day: %q", out)
	}
}
