package cli_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestLogTrim: log trim deletes, of every parent or of one, exactly the
// items a model of the appends says are before --before or beyond the
// newest --max-len; --older-than keeps what is newer than that long ago;
// the log then verifies clean; and bad flags are refused with exit 2,
// leaving the file as it was.
func TestLogTrim(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	r := rand.New(rand.NewPCG(3, 4))
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	type item struct {
		id uint64
		at time.Time
	}
	model := map[string][]item{} // by parent, in id order
	parents := []string{"ann", "b:o b", "cy"}
	for range 40 {
		p := parents[r.IntN(len(parents))]
		at := start.Add(time.Duration(r.IntN(60*24)) * time.Hour) // out of order
		if _, stderr, code := run(t, "", "--db", db, "log", "append", "--log", "inbox", "--parent", p, "--time", at.Format(time.RFC3339), "x"); code != 0 {
			t.Fatal(stderr)
		}
		model[p] = append(model[p], item{uint64(len(model[p]) + 1), at})
	}
	// An item 90 minutes old, which --older-than 1h must delete, and one
	// of now, which it must keep.
	for _, p := range parents {
		ago := time.Now().Add(-90 * time.Minute)
		if _, stderr, code := run(t, "", "--db", db, "log", "append", "--log", "inbox", "--parent", p, "--time", ago.Format(time.RFC3339), "x"); code != 0 {
			t.Fatal(stderr)
		}
		model[p] = append(model[p], item{uint64(len(model[p]) + 1), ago})
		if _, stderr, code := run(t, "", "--db", db, "log", "append", "--log", "inbox", "--parent", p, "x"); code != 0 {
			t.Fatal(stderr)
		}
		model[p] = append(model[p], item{uint64(len(model[p]) + 1), time.Now()})
	}
	check := func(what string) {
		t.Helper()
		for _, p := range parents {
			out, stderr, code := run(t, "", "--db", db, "--output", "json", "log", "range", "--log", "inbox", "--parent", p)
			if code != 0 {
				t.Fatalf("%s: range %q: %s", what, p, stderr)
			}
			var got struct{ Items []struct{ ID uint64 } }
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatal(err)
			}
			var ids, want []uint64
			for _, it := range got.Items {
				ids = append(ids, it.ID)
			}
			for _, it := range model[p] {
				want = append(want, it.id)
			}
			if !slices.Equal(ids, want) {
				t.Fatalf("%s: %q has items %v, the model %v", what, p, ids, want)
			}
		}
		if out, stderr, code := run(t, "", "--db", db, "verify"); code != 0 {
			t.Fatalf("%s: verify: exit %d\n%s%s", what, code, out, stderr)
		}
	}
	trim := func(args ...string) int {
		t.Helper()
		out, stderr, code := run(t, "", append([]string{"--db", db, "log", "trim", "--log", "inbox"}, args...)...)
		var n int
		if _, err := fmt.Sscanf(out, "deleted %d item", &n); code != 0 || err != nil {
			t.Fatalf("trim %v: exit %d, %q %q", args, code, out, stderr)
		}
		return n
	}
	keep := func(p string, f func(i int, it item) bool) int {
		var kept []item
		for i, it := range model[p] {
			if f(i, it) {
				kept = append(kept, it)
			}
		}
		gone := len(model[p]) - len(kept)
		model[p] = kept
		return gone
	}

	before := start.Add(20 * 24 * time.Hour)
	want := 0
	for _, p := range parents {
		want += keep(p, func(_ int, it item) bool { return !it.at.Before(before) })
	}
	if n := trim("--before", before.Format(time.RFC3339)); n != want {
		t.Errorf("trim --before deleted %d items, the model %d", n, want)
	}
	check("after --before")

	want = keep("ann", func(i int, _ item) bool { return i >= len(model["ann"])-3 })
	if n := trim("--parent", "ann", "--max-len", "3"); n != want {
		t.Errorf("trim --parent ann --max-len 3 deleted %d, the model %d", n, want)
	}
	check("after --max-len")

	want = 0
	for _, p := range parents {
		want += keep(p, func(_ int, it item) bool { return it.at.After(time.Now().Add(-time.Hour)) })
	}
	if n := trim("--older-than", "1h"); n != want || want == 0 {
		t.Errorf("trim --older-than 1h deleted %d, the model %d", n, want)
	}
	check("after --older-than")

	file, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		says string
	}{
		{nil, "needs --older-than, --before or --max-len"},
		{[]string{"--older-than", "1h", "--before", "2026-01-01T00:00:00Z"}, "give one"},
		{[]string{"--older-than", "-1h"}, "positive duration"},
		{[]string{"--max-len", "0"}, "keep at least one"},
		{[]string{"--before", "yesterday"}, "yesterday"},
	} {
		_, stderr, code := run(t, "", append([]string{"--db", db, "log", "trim", "--log", "inbox"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.says) {
			t.Errorf("trim %v: exit %d, %q; want exit 2 saying %q", tc.args, code, stderr, tc.says)
		}
	}
	if after, err := os.ReadFile(db); err != nil || !slices.Equal(file, after) {
		t.Errorf("refused trims changed the database file (%v)", err)
	}
}
