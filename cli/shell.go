package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
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
// file, not from "-". With --atomic, a script's lines share one write
// transaction instead (atomic.go): all of them are written, or none; at
// the prompt, so do the lines from begin to commit.

func shellCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "shell",
		Usage: "run commands one per line without repeating keyspace --db: a prompt with history and Tab completion at a terminal, else a script that stops at its first failing line; --atomic, or begin … commit at the prompt, for one transaction",
		UsageText: "keyspace --db cities.db shell\n" +
			"keyspace --db cities.db shell < setup.ks\n" +
			"keyspace --db shop.db shell --atomic < order.ks   # every line in one transaction: all of them, or none",
		Flags:  []ucli.Flag{&ucli.BoolFlag{Name: "atomic", Usage: "run the script's lines in one transaction, as Redis's MULTI … EXEC: if a line fails, none of them is written (the commands that read the file itself, stats, verify and backup, are refused)"}},
		Action: shell,
	}
}

func shell(c *ucli.Context) error {
	prefix := []string{"keyspace", "--db", common(c, "db"), "--output", common(c, "output")}
	if common(c, "quiet") == "true" {
		prefix = append(prefix, "--quiet")
	}
	atTerminal := false
	if in, ok := c.App.Reader.(*os.File); ok && isTerminal(in) && isTerminal(c.App.Writer) {
		atTerminal = true
	}
	switch {
	case c.Bool("atomic") && atTerminal:
		return usagef("shell --atomic runs a script from standard input (keyspace shell --atomic < script.ks); at a prompt each line is written when it runs")
	case c.Bool("atomic"):
		return shellAtomic(c, prefix)
	case atTerminal:
		return shellPrompt(c, prefix)
	}
	_, err := shellScript(c, prefix, c.App.Reader, context.Background())
	return err
}

// shellAtomic runs the script of standard input in one write
// transaction (atomic.go): it commits once every line has run, and rolls
// back at the first that fails.
func shellAtomic(c *ucli.Context, prefix []string) error {
	s, err := openWrite(c)
	if err != nil {
		return err
	}
	defer s.Close()
	lines := 0
	ctx, cancel := context.WithCancel(c.Context)
	defer cancel()
	err = s.UpdateContext(ctx, func(tx keyspace.Tx) error {
		var err error
		lines, err = shellScript(c, prefix, c.App.Reader, context.WithValue(context.Background(), sharedKey{}, shared{tx, common(c, "db"), cancel}))
		return err
	})
	if err != nil {
		return fmt.Errorf("%w; nothing the script wrote was kept (shell --atomic)", stoppedUpdate(err, "nothing written"))
	}
	fmt.Fprintf(c.App.ErrWriter, "committed %s in one transaction\n", count(lines, "line"))
	return nil
}

// shellScript runs the lines of r, stopping at the first that fails, and
// returns how many commands it ran. Each runs under ctx's values.
func shellScript(c *ucli.Context, prefix []string, r io.Reader, ctx context.Context) (int, error) {
	lines := bufio.NewScanner(r)
	lines.Buffer(make([]byte, 64*1024), 16*1024*1024) // a polygon's GeoJSON may be long
	ran := 0
	for n := 1; lines.Scan(); n++ {
		code, exit, err := shellLine(ctx, c, prefix, lines.Text(), &ran)
		var ue usageError
		switch {
		case errors.As(err, &ue):
			return ran, usagef("line %d: %w", n, err)
		case err != nil:
			return ran, fmt.Errorf("line %d: %w", n, err)
		case code == 2:
			return ran, usagef("line %d failed (exit 2); the lines after it were not run", n)
		case code != 0:
			return ran, fmt.Errorf("line %d failed (exit %d); the lines after it were not run", n, code)
		case exit:
			return ran, nil
		}
	}
	if err := lines.Err(); err != nil {
		return ran, fmt.Errorf("reading the script: %w", err)
	}
	return ran, nil
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
	term.SetCompleter(func(line string) []string { return complete(commands, line, fileNames(common(c, "db"))) })
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
	fmt.Fprintf(c.App.Writer, "keyspace shell on %s: commands as on the command line, without keyspace; begin … commit for one transaction; exit or Ctrl-D to leave\n", common(c, "db"))
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
		switch strings.TrimSpace(line) {
		case "begin":
			if err := promptTransaction(c, prefix, term, prompt); err != nil {
				fmt.Fprintf(c.App.ErrWriter, "keyspace: %s\n", oneLine(err))
			}
			continue
		case "commit", "rollback":
			fmt.Fprintf(c.App.ErrWriter, "keyspace: no transaction to %s: begin starts one\n", strings.TrimSpace(line))
			continue
		}
		_, exit, err := shellLine(context.Background(), c, prefix, line, new(int))
		if err != nil {
			fmt.Fprintf(c.App.ErrWriter, "keyspace: %s\n", oneLine(err))
		}
		if exit {
			return nil
		}
	}
}

// errRollback is a prompt transaction's rollback, asked for.
var errRollback = errors.New("rolled back")

// promptTransaction runs the prompt's lines from begin to commit or
// rollback in one write transaction (atomic.go), as sqlite3 and psql do,
// with a * in the prompt meanwhile: commit writes what they wrote,
// rollback or Ctrl-D nothing, and a command that fails (or a Ctrl-C that
// stops one) rolls the transaction back, since what it half did cannot be
// taken out alone. Until then the file is locked, as it is while any
// command writes: another process that opens it waits, then is told so.
func promptTransaction(c *ucli.Context, prefix []string, term *liner.State, prompt string) error {
	s, err := openWrite(c)
	if err != nil {
		return err
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(c.Context)
	defer cancel()
	ran := 0
	inTx := strings.TrimSuffix(prompt, "> ") + "*> "
	say := func(format string, args ...any) { fmt.Fprintf(c.App.ErrWriter, format+"\n", args...) }
	err = s.UpdateContext(ctx, func(tx keyspace.Tx) error {
		lineCtx := context.WithValue(context.Background(), sharedKey{}, shared{tx, common(c, "db"), cancel})
		for {
			line, err := term.Prompt(inTx)
			switch {
			case errors.Is(err, liner.ErrPromptAborted):
				continue
			case errors.Is(err, io.EOF):
				fmt.Fprintln(c.App.Writer)
				return errRollback
			case err != nil:
				return fmt.Errorf("reading a line: %w", err)
			}
			if strings.TrimSpace(line) != "" {
				term.AppendHistory(line)
			}
			switch strings.TrimSpace(line) {
			case "commit":
				return nil
			case "rollback":
				return errRollback
			case "begin":
				say("keyspace: already in a transaction: commit or rollback it")
				continue
			case "exit", "quit":
				say("keyspace: in a transaction: commit or rollback it first")
				continue
			}
			code, _, err := shellLine(lineCtx, c, prefix, line, &ran)
			if err != nil { // not a command (unbalanced quotes): nothing ran
				say("keyspace: %s", oneLine(err))
				continue
			}
			if code != 0 {
				return fmt.Errorf("a command failed (exit %d)", code)
			}
		}
	})
	switch {
	case err == nil:
		say("committed %s", count(ran, "command"))
	case errors.Is(err, errRollback):
		say("rolled back %s", count(ran, "command"))
	default:
		return fmt.Errorf("%w: the transaction rolled back, with its %s", stoppedUpdate(err, "nothing written"), count(ran, "command"))
	}
	return nil
}

// shellLine runs one line, under ctx's values, counting it in ran:
// nothing for a blank line or a # comment, and exit or quit end the
// shell. It returns the command's exit code, or an error for a line that
// is no command (unbalanced quotes, a shell inside the shell).
func shellLine(ctx context.Context, c *ucli.Context, prefix []string, line string, ran *int) (code int, exit bool, err error) {
	words, err := shellwords.Parse(line)
	if err != nil {
		// go-shellwords says "invalid command line string" for every
		// line it cannot split, and such a line has a quote not closed
		// (or a backslash at its end; backticks and $( ) are not run).
		return 0, false, usagef("a quote is not closed, or the line ends in a backslash: %s", strings.TrimSpace(line))
	}
	if len(words) == 0 || strings.HasPrefix(words[0], "#") {
		return 0, false, nil
	}
	switch words[0] {
	case "exit", "quit":
		return 0, true, nil
	case "shell":
		return 0, false, usagef("already in the shell")
	case "begin", "commit", "rollback": // at the prompt, handled before
		return 0, false, usagef("%s: a script runs in one transaction with keyspace shell --atomic; begin … commit is for the prompt", words[0])
	case "keyspace": // pasted from the command line
		words = words[1:]
	}
	*ran++
	return run(ctx, append(slices.Clone(prefix), words...), strings.NewReader(""), c.App.Writer, c.App.ErrWriter), false, nil
}

// complete is the shell's Tab completion of the last word of line: the
// commands under the ones before it, or, after a command with no
// subcommands, its flags; after a flag with fixed choices (--output,
// --format, --dataset) those (valueChoices), and after a flag that
// names a structure (--index, --table, --fences, --log, --series; an
// index command's --name) the names names gives for it after the line's
// words (nil for none).
func complete(commands []*ucli.Command, line string, names func(flag string, words []string) []string) []string {
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
	var offered []string
	switch flag := valueOf(leaf, words); {
	case flag != "" && len(commands) == 0: // a flag's value: one of its choices, a name the file holds, or nothing to offer
		if offered = valueChoices(flag); offered == nil && names != nil && namedBy[flag] != nil {
			offered = names(flag, words)
		}
	case strings.HasPrefix(last, "-") || len(commands) == 0:
		if leaf != nil {
			for _, f := range leaf.Flags {
				offered = append(offered, "--"+f.Names()[0])
			}
		}
	default:
		for _, c := range commands {
			offered = append(offered, c.Name)
		}
		if leaf == nil {
			offered = append(offered, "exit", "quit", "begin", "commit", "rollback")
		}
	}
	head := line[:len(line)-len(last)]
	var out []string
	for _, n := range offered {
		if strings.HasPrefix(n, last) {
			out = append(out, head+n+" ")
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// valueOf returns the name of leaf's flag whose value the word after
// words is, else "" (the word after a bool flag, or an argument).
func valueOf(leaf *ucli.Command, words []string) string {
	if leaf == nil || len(words) == 0 {
		return ""
	}
	typed, ok := strings.CutPrefix(words[len(words)-1], "-")
	if !ok || strings.Contains(typed, "=") {
		return ""
	}
	typed = strings.TrimPrefix(typed, "-")
	for _, f := range leaf.Flags {
		if _, isBool := f.(*ucli.BoolFlag); slices.Contains(f.Names(), typed) && !isBool {
			return f.Names()[0]
		}
	}
	return ""
}

// valueChoices are the values a flag takes from a fixed list, which Tab
// and the completion scripts offer as they offer names: --output's
// formats, an import's --format and bench's --dataset; nil for another
// flag.
func valueChoices(flag string) []string {
	switch flag {
	case "output":
		return []string{"table", "json", "ndjson", "csv", "geojson", "count", "ids"}
	case "format":
		return slices.Clone(importFormats)
	case "dataset":
		return datasetNames()
	}
	return nil
}

// namedBy lists the names a flag's value may be, from the file, given
// the words of the command line before it: a geo index's, a table's, a
// fence set's, a log's or a series'; after --name, which only the index
// commands take, the indexes of the line's --table.
var namedBy = map[string]func(tx keyspace.Tx, words []string) ([]string, error){
	"index": anyLine(geoIndexNames), "table": anyLine(tableNames), "fences": anyLine(fenceSetNames),
	"log": anyLine(logNames), "series": anyLine(seriesNames), "name": tableIndexNames,
}

// anyLine is a namedBy lister whose names do not depend on the line.
func anyLine(list func(keyspace.Tx) ([]string, error)) func(keyspace.Tx, []string) ([]string, error) {
	return func(tx keyspace.Tx, _ []string) ([]string, error) { return list(tx) }
}

// tableIndexNames lists the indexes of the table the words' --table (or
// -t) names, none when they name none.
func tableIndexNames(tx keyspace.Tx, words []string) ([]string, error) {
	table := ""
	for i, w := range words {
		flag, value, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
		if !strings.HasPrefix(w, "-") || flag != "table" && flag != "t" {
			continue
		}
		switch {
		case hasValue:
			table = value
		case i+1 < len(words):
			table = words[i+1]
		}
	}
	if table == "" {
		return nil, nil
	}
	return namesUnder(tx, composite.NewSubspace("meta", "index", table))
}

// fileNames returns complete's names: those the file at path holds for
// the flag after words, read at once or not at all (the file missing, damaged, or
// locked by a writer, as the prompt's own begin … commit holds it),
// since Tab must not wait.
func fileNames(path string) func(flag string, words []string) []string {
	return func(flag string, words []string) []string {
		s, err := keyspace.Open(path, &keyspace.Options{ReadOnly: true, Timeout: -1})
		if err != nil {
			return nil
		}
		defer s.Close()
		var names []string
		s.View(func(tx keyspace.Tx) error {
			names, _ = namedBy[flag](tx, words)
			return nil
		})
		return names
	}
}

// argsKey is the context key of the command line run was given, which
// completeWords reads.
type argsKey struct{}

// completeWords is cmd's answer to the completion scripts (keyspace
// completion bash), which run the words before the one being completed
// with --generate-bash-completion after them: after a flag with fixed
// choices (--output, --format, --dataset) those, after a flag that names
// a structure (--index, --table, …) the names the file holds, as the
// shell's Tab offers them; after another flag that takes a value,
// nothing; otherwise urfave/cli's own (the flags).
func completeWords(cmd *ucli.Command) ucli.BashCompleteFunc {
	return func(c *ucli.Context) {
		args, _ := c.Context.Value(argsKey{}).([]string)
		if len(args) >= 2 {
			switch flag := valueOf(cmd, args[len(args)-2:len(args)-1]); {
			case valueChoices(flag) != nil:
				for _, choice := range valueChoices(flag) {
					fmt.Fprintln(c.App.Writer, choice)
				}
				return
			case namedBy[flag] != nil:
				for _, name := range fileNames(common(c, "db"))(flag, args[:len(args)-1]) {
					fmt.Fprintln(c.App.Writer, name)
				}
				return
			case flag != "":
				return
			}
		}
		ucli.DefaultCompleteWithFlags(cmd)(c)
	}
}
