package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mattn/go-shellwords"
	"github.com/peterh/liner"
	ucli "github.com/urfave/cli/v2"
)

// The shell runs keyspace commands one per line, as redis-cli and sqlite3
// do: `keyspace --db cities.db shell`, then `geo near -i cities …` without
// the program's name or --db each time. At a terminal it prompts, with
// line editing, a history kept in ~/.keyspace_history and Tab completion
// of commands and flags (github.com/peterh/liner); otherwise its standard
// input is a script, run to its end or to its first failing command,
// whose line it names. Lines are split into words as a POSIX shell splits
// them (github.com/mattn/go-shellwords: quotes, backslashes), so a
// payload is written '{"driver":"ann"}' as on the command line.
//
// Each line is a run of the command line (Run) with the shell's --db,
// --output and --quiet before its words (a line may give its own): the
// file is opened and closed by each command, so another process may write
// it between two lines, as it may between two commands. A command's
// standard input is empty, since the shell's is its lines: import from a
// file, not from "-".

func shellCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "shell",
		Usage: "run commands one per line without repeating keyspace --db: a prompt with history and Tab completion at a terminal, else a script that stops at its first failing line",
		UsageText: "keyspace --db cities.db shell\n" +
			"keyspace --db cities.db shell < setup.ks",
		Action: shell,
	}
}

func shell(c *ucli.Context) error {
	if c.NArg() > 0 {
		return usagef("shell takes no arguments: it reads its commands from standard input")
	}
	prefix := []string{"keyspace", "--db", common(c, "db"), "--output", common(c, "output")}
	if common(c, "quiet") == "true" {
		prefix = append(prefix, "--quiet")
	}
	if in, ok := c.App.Reader.(*os.File); ok && isTerminal(in) && isTerminal(c.App.Writer) {
		return shellPrompt(c, prefix)
	}
	return shellScript(c, prefix, c.App.Reader)
}

// shellScript runs the lines of r, stopping at the first that fails.
func shellScript(c *ucli.Context, prefix []string, r io.Reader) error {
	lines := bufio.NewScanner(r)
	lines.Buffer(make([]byte, 64*1024), 16*1024*1024) // a polygon's GeoJSON may be long
	for n := 1; lines.Scan(); n++ {
		code, exit, err := shellLine(c, prefix, lines.Text())
		var ue usageError
		switch {
		case errors.As(err, &ue):
			return usagef("line %d: %w", n, err)
		case err != nil:
			return fmt.Errorf("line %d: %w", n, err)
		case code == 2:
			return usagef("line %d failed (exit 2); the lines after it were not run", n)
		case code != 0:
			return fmt.Errorf("line %d failed (exit %d); the lines after it were not run", n, code)
		case exit:
			return nil
		}
	}
	if err := lines.Err(); err != nil {
		return fmt.Errorf("reading the script: %w", err)
	}
	return nil
}

// shellPrompt reads lines at a terminal until exit, quit or Ctrl-D. A
// failing command says why and the prompt comes back; Ctrl-C at the
// prompt drops the line.
func shellPrompt(c *ucli.Context, prefix []string) error {
	// Ctrl-C at the prompt clears the line (liner reads it in raw mode);
	// during a command, that command's Run stops it, and this one
	// carries on.
	passInterrupts(c)
	term := liner.NewLiner()
	defer term.Close()
	term.SetCtrlCAborts(true)
	term.SetTabCompletionStyle(liner.TabPrints)
	commands := newApp(nil, nil, nil).Commands
	term.SetCompleter(func(line string) []string { return complete(commands, line) })
	history := ""
	if home, err := os.UserHomeDir(); err == nil {
		history = filepath.Join(home, ".keyspace_history")
		if f, err := os.Open(history); err == nil {
			term.ReadHistory(f)
			f.Close()
		}
	}
	defer func() {
		if history == "" {
			return
		}
		if f, err := os.OpenFile(history, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600); err == nil {
			term.WriteHistory(f)
			f.Close()
		}
	}()
	fmt.Fprintf(c.App.Writer, "keyspace shell on %s: commands as on the command line, without keyspace; exit or Ctrl-D to leave\n", common(c, "db"))
	prompt := filepath.Base(common(c, "db")) + "> "
	for {
		line, err := term.Prompt(prompt)
		switch {
		case errors.Is(err, liner.ErrPromptAborted):
			continue
		case errors.Is(err, io.EOF):
			fmt.Fprintln(c.App.Writer)
			return nil
		case err != nil:
			return fmt.Errorf("reading a line: %w", err)
		}
		if strings.TrimSpace(line) != "" {
			term.AppendHistory(line)
		}
		_, exit, err := shellLine(c, prefix, line)
		if err != nil {
			fmt.Fprintf(c.App.ErrWriter, "keyspace: %s\n", oneLine(err))
		}
		if exit {
			return nil
		}
	}
}

// shellLine runs one line: nothing for a blank line or a # comment, and
// exit or quit end the shell. It returns the command's exit code, or an
// error for a line that is no command (unbalanced quotes, a shell inside
// the shell).
func shellLine(c *ucli.Context, prefix []string, line string) (code int, exit bool, err error) {
	words, err := shellwords.Parse(line)
	if err != nil {
		return 0, false, usageError{fmt.Errorf("%w: %s", err, strings.TrimSpace(line))}
	}
	if len(words) == 0 || strings.HasPrefix(words[0], "#") {
		return 0, false, nil
	}
	switch words[0] {
	case "exit", "quit":
		return 0, true, nil
	case "shell":
		return 0, false, usagef("already in the shell")
	case "keyspace": // pasted from the command line
		words = words[1:]
	}
	return Run(append(slices.Clone(prefix), words...), strings.NewReader(""), c.App.Writer, c.App.ErrWriter), false, nil
}

// complete is the shell's Tab completion of the last word of line: the
// commands under the ones before it, or, after a command with no
// subcommands, its flags.
func complete(commands []*ucli.Command, line string) []string {
	words := strings.Fields(line)
	last := ""
	if len(words) > 0 && !strings.HasSuffix(line, " ") {
		last, words = words[len(words)-1], words[:len(words)-1]
	}
	var leaf *ucli.Command
	for _, w := range words {
		if len(commands) == 0 {
			break // at a command: the words after are its flags and arguments
		}
		if strings.HasPrefix(w, "-") {
			continue
		}
		i := slices.IndexFunc(commands, func(c *ucli.Command) bool { return c.HasName(w) })
		if i < 0 {
			return nil // no such command: nothing to offer after it
		}
		leaf, commands = commands[i], commands[i].Subcommands
	}
	var names []string
	if strings.HasPrefix(last, "-") || len(commands) == 0 {
		if leaf != nil {
			for _, f := range leaf.Flags {
				names = append(names, "--"+f.Names()[0])
			}
		}
	} else {
		for _, c := range commands {
			names = append(names, c.Name)
		}
		if leaf == nil {
			names = append(names, "exit", "quit")
		}
	}
	head := line[:len(line)-len(last)]
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, last) {
			out = append(out, head+n+" ")
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
