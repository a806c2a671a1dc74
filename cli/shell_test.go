package cli_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// TestShellScript: a script run by keyspace shell prints what the same
// commands print run one by one, with the shell's --db and --output
// before each line's words (a line may override them); comments and
// blank lines are skipped, a pasted "keyspace" is dropped, and exit ends
// the script. A failing line stops it, naming the line, with the
// command's exit code, and the lines after it are not run.
func TestShellScript(t *testing.T) {
	dir := t.TempDir()
	direct, scripted := filepath.Join(dir, "direct.db"), filepath.Join(dir, "scripted.db")
	// Each line, and the words a POSIX shell splits it into.
	lines := []struct {
		line  string
		words []string
	}{
		{`geo put --index fleet --lat 59.91 --lon 10.75 --payload '{"driver":"ann b"}' car-7`,
			[]string{"geo", "put", "--index", "fleet", "--lat", "59.91", "--lon", "10.75", "--payload", `{"driver":"ann b"}`, "car-7"}},
		{`geo put --index fleet --lat 59.92 --lon 10.76 --payload "{\"driver\":\"bo\"}" car\ 8`,
			[]string{"geo", "put", "--index", "fleet", "--lat", "59.92", "--lon", "10.76", "--payload", `{"driver":"bo"}`, "car 8"}},
		{`geo near -i fleet --lat 59.91 --lon 10.75 -r 5km --limit 1`,
			[]string{"geo", "near", "-i", "fleet", "--lat", "59.91", "--lon", "10.75", "-r", "5km", "--limit", "1"}},
		{`keyspace geo knn -i fleet --from 'car 8' --k 2 -o json`,
			[]string{"geo", "knn", "-i", "fleet", "--from", "car 8", "--k", "2", "-o", "json"}},
		{`geo get -i fleet car-7 "car 8"`, []string{"geo", "get", "-i", "fleet", "car-7", "car 8"}},
	}
	var want strings.Builder
	var text []string
	for _, l := range lines {
		out, stderr, code := run(t, "", append([]string{"--db", direct, "--output", "table"}, l.words...)...)
		if code != 0 {
			t.Fatalf("%v: %s", l.words, stderr)
		}
		want.WriteString(out)
		text = append(text, l.line)
	}
	script := "# set up a fleet\n\n" + strings.Join(text, "\n") + "\nexit\ngeo del -i fleet car-7\n"
	out, stderr, code := run(t, script, "--db", scripted, "shell")
	if code != 0 || out != want.String() {
		t.Fatalf("shell: exit %d, %s\n%s\nwant\n%s", code, stderr, out, want.String())
	}
	if _, stderr, code := run(t, "", "--db", scripted, "geo", "get", "-i", "fleet", "car-7"); code != 0 {
		t.Fatalf("the line after exit ran: %s", stderr)
	}

	for _, c := range []struct {
		script string
		args   []string
		code   int
		says   string
	}{
		{"geo get -i fleet car-7\ngeo get -i fleet nope\ngeo del -i fleet car-7\n", nil, 1, "line 2 failed (exit 1)"},
		{"geo get -i fleet car-7\ngeo near -i fleet --bogus 1\ngeo del -i fleet car-7\n", nil, 2, "line 2 failed (exit 2)"},
		{"\ngeo get -i fleet \"car-7\ngeo del -i fleet car-7\n", nil, 2, "line 2: invalid command line string"},
		{"shell\ngeo del -i fleet car-7\n", nil, 2, "line 1: already in the shell"},
		{"", []string{"extra"}, 2, "shell takes no arguments"},
	} {
		_, stderr, code := run(t, c.script, append([]string{"--db", scripted, "shell"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.says) {
			t.Errorf("shell %v with\n%s: exit %d, %q; want %d and %q", c.args, c.script, code, stderr, c.code, c.says)
		}
	}
	if _, stderr, code := run(t, "", "--db", scripted, "geo", "get", "-i", "fleet", "car-7"); code != 0 {
		t.Fatalf("a line after a failing one ran: %s", stderr)
	}
}

// TestShellPromptSurvivesCtrlC: at the interactive prompt (a terminal,
// here a pty), Ctrl-C during a command stops that command, which rolls
// back, and the shell goes on: past interruptGrace, the next line runs
// and exit leaves with code 0. (The shell's own Run used to cancel too
// and end the process 2 s later.)
func TestShellPromptSurvivesCtrlC(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	var big strings.Builder
	big.WriteString("id,lat,lon\n")
	for i := range 400_000 {
		fmt.Fprintf(&big, "p%d,%v,%v\n", i, float64(i%1800)/20-45, float64(i%3600)/20-90)
	}
	file := filepath.Join(dir, "big.csv")
	if err := os.WriteFile(file, []byte(big.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, "id,lat,lon\nfirst,1,2\n", "--db", db, "geo", "import", "--index", "p", "-")
	before, _, _ := run(t, "", "--db", db, "stats", "--output", "json")
	cmd := exec.Command(binary, "--db", db, "shell")
	cmd.Env = append(os.Environ(), "HOME="+dir) // the history file
	term, err := pty.Start(cmd)
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer term.Close()
	var mu sync.Mutex
	var out strings.Builder
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := term.Read(buf)
			mu.Lock()
			out.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	// waitFor waits until the output after from holds s, and returns
	// where it ends.
	waitFor := func(s string, from int) int {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			mu.Lock()
			text := out.String()
			mu.Unlock()
			if i := strings.Index(text[from:], s); i >= 0 {
				return from + i + len(s)
			}
		}
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("no %q in the shell's output:\n%s", s, out.String()[from:])
		return 0
	}
	at := waitFor("k.db> ", 0)
	fmt.Fprintf(term, "geo import --index p %s\r", file)
	at = waitFor("reading", at)
	term.Write([]byte{3}) // Ctrl-C
	at = waitFor("interrupted", at)
	time.Sleep(2500 * time.Millisecond) // past interruptGrace
	fmt.Fprint(term, "stats\r")
	waitFor("KIND", at)
	fmt.Fprint(term, "exit\r")
	if err := cmd.Wait(); err != nil {
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("the shell ended with %v:\n%s", err, out.String())
	}
	if after, _, _ := run(t, "", "--db", db, "stats", "--output", "json"); after != before {
		t.Errorf("the interrupted import changed the database:\n%s\n%s", before, after)
	}
}

// TestShellPromptTransactions: at the prompt, begin … commit writes the
// commands between them in one transaction, whose later commands read its
// earlier ones' writes; rollback, and a command that fails, write none of
// them.
func TestShellPromptTransactions(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	run(t, "id,lat,lon\nfirst,1,2\n", "--db", db, "geo", "import", "--index", "p", "-")
	cmd := exec.Command(binary, "--db", db, "shell")
	cmd.Env = append(os.Environ(), "HOME="+dir) // the history file
	term, err := pty.Start(cmd)
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer term.Close()
	var mu sync.Mutex
	var out strings.Builder
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := term.Read(buf)
			mu.Lock()
			out.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	at := 0
	waitFor := func(s string) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			mu.Lock()
			text := out.String()
			mu.Unlock()
			if i := strings.Index(text[at:], s); i >= 0 {
				at += i + len(s)
				return
			}
		}
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("no %q in the shell's output:\n%s", s, out.String()[at:])
	}
	say := func(line, then string) {
		t.Helper()
		fmt.Fprintf(term, "%s\r", line)
		waitFor(then)
	}
	waitFor("k.db> ")
	say("commit", "no transaction to commit")
	say("begin", "k.db*> ")
	say("geo put --index p --lat 1 --lon 1 t1", "k.db*> ")
	say("geo get --index p t1", "t1") // its own write
	say("exit", "commit or rollback it first")
	say("rollback", "rolled back 2 commands")
	say("begin", "k.db*> ")
	say("geo put --index p --lat 1 --lon 1 t2", "k.db*> ")
	say("commit", "committed 1 command")
	say("begin", "k.db*> ")
	say("geo put --index p --lat 1 --lon 1 t3", "k.db*> ")
	say("geo put --index p --lat 91 --lon 1 t4", "a command failed (exit 1): the transaction rolled back, with its 2 commands")
	waitFor("k.db> ")
	fmt.Fprint(term, "exit\r")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("the shell ended with %v", err)
	}
	for id, want := range map[string]int{"first": 0, "t1": 1, "t2": 0, "t3": 1, "t4": 1} {
		if _, stderr, code := run(t, "", "--db", db, "geo", "get", "--index", "p", id); code != want {
			t.Errorf("geo get %s: exit %d, want %d: %s", id, code, want, stderr)
		}
	}
}
