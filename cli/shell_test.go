package cli_test

import (
	"context"
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
		{"\ngeo get -i fleet \"car-7\ngeo del -i fleet car-7\n", nil, 2, "line 2: a quote is not closed, or the line ends in a backslash: geo get -i fleet \"car-7\n"},
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
	file := pointsFile(t, dir, 400_000)
	run(t, "id,lat,lon\nfirst,1,2\n", "--db", db, "geo", "import", "--index", "p", "-")
	before, _, _ := run(t, "", "--db", db, "stats", "--output", "json")
	sh := startShell(t, db, dir)
	sh.waitFor("k.db> ")
	sh.say("geo import --index p "+file, "reading")
	sh.term.Write([]byte{3}) // Ctrl-C
	sh.waitFor("interrupted")
	time.Sleep(2500 * time.Millisecond) // past interruptGrace
	sh.waitFor("\nk.db> ")
	sh.say("stats", "KIND", "\nk.db> ") // the prompt back before exit is typed: liner drops what is typed while a command runs
	sh.exit()
	if after, _, _ := run(t, "", "--db", db, "stats", "--output", "json"); after != before {
		t.Errorf("the interrupted import changed the database:\n%s\n%s", before, after)
	}
}

// TestShellPromptCompletesNames: at the prompt, Tab after --index
// completes the name of a geo index the file holds, and the line runs.
func TestShellPromptCompletesNames(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	run(t, "id,lat,lon\nfirst,1,2\n", "--db", db, "geo", "import", "--index", "quakes", "-")
	sh := startShell(t, db, dir)
	sh.waitFor("k.db> ")
	fmt.Fprint(sh.term, "geo get --index qu\t")
	sh.waitFor("k.db> geo get --index quakes ") // the line redrawn
	sh.say("first", "1.000000", "\nk.db> ")
	sh.exit()
}

// TestShellPromptTransactions: at the prompt, begin … commit writes the
// commands between them in one transaction, whose later commands read its
// earlier ones' writes; rollback, and a command that fails, write none of
// them.
func TestShellPromptTransactions(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "k.db")
	run(t, "id,lat,lon\nfirst,1,2\n", "--db", db, "geo", "import", "--index", "p", "-")
	sh := startShell(t, db, dir)
	// Each step waits for what the command prints and then for the next
	// prompt on a line of its own (a redraw of the line being typed
	// starts with a carriage return, not a newline): liner drops what is
	// typed while a command runs.
	const plain, inTx = "\nk.db> ", "\nk.db*> "
	sh.waitFor("k.db> ")
	sh.say("commit", "no transaction to commit", plain)
	sh.say("begin", inTx)
	sh.say("geo put --index p --lat 1 --lon 1 t1", inTx)
	sh.say("geo get --index p t1", "1.000000", inTx) // its own write
	sh.say("exit", "commit or rollback it first", inTx)
	sh.say("rollback", "rolled back 2 commands", plain)
	sh.say("begin", inTx)
	sh.say("geo put --index p --lat 1 --lon 1 t2", inTx)
	sh.say("commit", "committed 1 command", plain)
	sh.say("begin", inTx)
	sh.say("geo put --index p --lat 1 --lon 1 t3", inTx)
	sh.say("geo put --index p --lat 91 --lon 1 t4", "the transaction rolled back, with its 2 commands", plain)
	// Ctrl-C stops a command in a transaction, and the transaction.
	file := pointsFile(t, dir, 300_000)
	sh.say("begin", inTx)
	sh.say("geo put --index p --lat 1 --lon 1 t5", inTx)
	sh.say("geo import --index p "+file, "reading")
	sh.term.Write([]byte{3}) // Ctrl-C
	sh.waitFor("the transaction rolled back, with its 2 commands")
	sh.waitFor(plain)
	sh.exit()
	for id, want := range map[string]int{"first": 0, "t1": 1, "t2": 0, "t3": 1, "t4": 1, "t5": 1, "p0": 1} {
		if _, stderr, code := run(t, "", "--db", db, "geo", "get", "--index", "p", id); code != want {
			t.Errorf("geo get %s: exit %d, want %d: %s", id, code, want, stderr)
		}
	}
}

// ptyShell is keyspace shell run on a pseudo-terminal, as a person at a
// terminal runs it, with what it has printed so far.
type ptyShell struct {
	t    *testing.T
	cmd  *exec.Cmd
	term *os.File
	mu   sync.Mutex
	out  strings.Builder
	at   int // how much of out waitFor has passed
}

// startShell starts keyspace --db db shell on a pseudo-terminal, with
// home for its history, or skips t where there is none.
func startShell(t *testing.T, db, home string) *ptyShell {
	// Killed when the test ends, or after commandTimeout: a test that
	// fails before exit must not leave a shell running.
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	t.Cleanup(cancel)
	p := &ptyShell{t: t, cmd: exec.CommandContext(ctx, binary, "--db", db, "shell")}
	p.cmd.Env = append(os.Environ(), "HOME="+home) // the history file
	// A terminal of no size is one liner cannot edit on: it reads lines
	// as they come, and a Tab is only a character.
	term, err := pty.StartWithSize(p.cmd, &pty.Winsize{Rows: 24, Cols: 100})
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	p.term = term
	t.Cleanup(func() { term.Close() })
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := term.Read(buf)
			p.mu.Lock()
			p.out.Write(buf[:n])
			p.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return p
}

// waitFor waits until the shell prints s after what the last waitFor
// found.
func (p *ptyShell) waitFor(s string) {
	p.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		p.mu.Lock()
		text := p.out.String()
		p.mu.Unlock()
		if i := strings.Index(text[p.at:], s); i >= 0 {
			p.at += i + len(s)
			return
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.t.Fatalf("no %q in the shell's output:\n%s", s, p.out.String()[p.at:])
}

// say types line and waits for each of then, in order.
func (p *ptyShell) say(line string, then ...string) {
	p.t.Helper()
	fmt.Fprintf(p.term, "%s\r", line)
	for _, s := range then {
		p.waitFor(s)
	}
}

// exit types exit and waits for the shell to end.
func (p *ptyShell) exit() {
	p.t.Helper()
	fmt.Fprint(p.term, "exit\r")
	if err := p.cmd.Wait(); err != nil {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.t.Fatalf("the shell ended with %v:\n%s", err, p.out.String())
	}
}

// pointsFile writes a CSV of n points into dir, for an import long
// enough to press Ctrl-C during, and returns its path.
func pointsFile(t *testing.T, dir string, n int) string {
	var big strings.Builder
	big.WriteString("id,lat,lon\n")
	for i := range n {
		fmt.Fprintf(&big, "p%d,%v,%v\n", i, float64(i%1800)/20-45, float64(i%3600)/20-90)
	}
	file := filepath.Join(dir, "big.csv")
	if err := os.WriteFile(file, []byte(big.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}
