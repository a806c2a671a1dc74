package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShellAtomic: a shell --atomic script writes a table row (and its
// index entry), a geo point, a log item and a link in one transaction;
// its later lines read what its earlier ones wrote. A failing line rolls
// every line back, and so does a line that would read the file itself
// or write another; a script that runs to its end commits all of it.
func TestShellAtomic(t *testing.T) {
	dir := t.TempDir()
	db, orders := filepath.Join(dir, "shop.db"), filepath.Join(dir, "orders.csv")
	os.WriteFile(orders, []byte("id,status\n17,open\n18,open\n"), 0o644)
	for _, args := range [][]string{
		{"table", "import", "--table", "orders", "--key-cols", "id", orders},
		{"index", "create", "--table", "orders", "--name", "by_status", "--fields", "status"},
	} {
		if _, stderr, code := run(t, "", append([]string{"--db", db}, args...)...); code != 0 {
			t.Fatalf("%v: %s", args, stderr)
		}
	}
	script := strings.Join([]string{
		"table set --table orders 17 status=shipped",
		"geo put --index fleet --lat 59.91 --lon 10.75 truck-17",
		"log append --log events --parent 17 shipped",
		"rel link --rel carries truck-17 17",
		"geo get --index fleet truck-17",
		"index lookup --table orders --name by_status shipped",
	}, "\n") + "\n"
	// state is what the file holds of each structure the script writes.
	state := func() string {
		t.Helper()
		var b strings.Builder
		for _, args := range [][]string{
			{"table", "get", "--table", "orders", "17"},
			{"index", "lookup", "--table", "orders", "--name", "by_status", "shipped"},
			{"geo", "scan", "--index", "fleet"},
			{"log", "latest", "--log", "events", "--parent", "17"},
			{"rel", "list", "--rel", "carries", "--left", "truck-17"},
		} {
			out, _, code := run(t, "", append([]string{"--db", db, "--output", "ndjson"}, args...)...)
			fmt.Fprintf(&b, "%s: %s; exit %d\n", strings.Join(args[:2], " "), out, code)
		}
		if out, stderr, code := run(t, "", "--db", db, "verify"); code != 0 {
			t.Fatalf("verify: exit %d: %s%s", code, out, stderr)
		}
		return b.String()
	}
	before := state()
	for _, bad := range []struct{ line, says string }{
		{"geo put --index fleet --lat 91 --lon 0 far", "line 7 failed (exit 1)"},
		{"stats", "stats reads the file"},
		{"--db " + filepath.Join(dir, "other.db") + " log append --log x --parent y z", "a shell --atomic script writes to one file"},
		{"table set --table nope 1 a=b", "line 7 failed (exit 1)"},
	} {
		out, stderr, code := run(t, script+bad.line+"\nlog append --log events --parent 17 never\n", "--db", db, "shell", "--atomic")
		if code == 0 || !strings.Contains(stderr, bad.says) || !strings.Contains(stderr, "nothing the script wrote was kept") {
			t.Errorf("a script ending in %q: exit %d, %q", bad.line, code, stderr)
		}
		if !strings.Contains(out, "truck-17") || !strings.Contains(out, "17") {
			t.Errorf("the script's reads did not see its writes: %q", out)
		}
		if after := state(); after != before {
			t.Errorf("a script ending in %q changed the file:\n%s\nwas\n%s", bad.line, after, before)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "other.db")); err == nil {
		t.Error("a refused line created its file")
	}
	_, stderr, code := run(t, script, "--db", db, "shell", "--atomic")
	if code != 0 || !strings.Contains(stderr, "committed 6 lines in one transaction") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	after := state()
	for _, want := range []string{`"status":"shipped"`, `"key":"17"`, `"id":"truck-17"`, `"data":"shipped"`, `"id":"17"`} {
		if !strings.Contains(after, want) {
			t.Errorf("after the script, the file lacks %s:\n%s", want, after)
		}
	}
	// begin in a script says how a script gets one transaction.
	if _, stderr, code := run(t, "begin\n", "--db", db, "shell"); code != 2 || !strings.Contains(stderr, "keyspace shell --atomic") {
		t.Errorf("begin in a script: exit %d, %q", code, stderr)
	}
	// A script that would create the file and fails leaves none.
	fresh := filepath.Join(dir, "fresh.db")
	if _, _, code := run(t, "geo put --index p --lat 1 --lon 2 a\ngeo put --index p --lat 91 --lon 2 b\n", "--db", fresh, "shell", "--atomic"); code != 1 {
		t.Errorf("a failing script on a new file: exit %d", code)
	}
	if _, err := os.Stat(fresh); err == nil {
		t.Error("a failed script left a new file behind")
	}
}
