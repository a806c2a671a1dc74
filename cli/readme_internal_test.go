package cli

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/mattn/go-shellwords"
	ucli "github.com/urfave/cli/v2"
)

// TestReadmeCommandsExist reads every command line the README shows (a
// code span or console line beginning with a command, as `geo near
// --radius 2km` or `$ keyspace table scan …`) and finds its command and
// each flag it names in the command line's definitions: a command or
// flag the README names that does not exist fails, so the README cannot
// drift from the commands; so does every example in a command's help.
// Values and arguments are not checked (many are placeholders, "…").
func TestReadmeCommandsExist(t *testing.T) {
	md, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	app := newApp(nil, nil, nil)
	var lines []string
	for _, s := range regexp.MustCompile("`([^`\n]+)`").FindAllStringSubmatch(string(md), -1) {
		lines = append(lines, s[1])
	}
	for _, l := range strings.Split(string(md), "\n") {
		if rest, ok := strings.CutPrefix(l, "$ "); ok {
			lines = append(lines, rest)
		}
	}
	checked := 0
	for _, line := range lines {
		if checkCommandLine(t, app, "README", line) {
			checked++
		}
	}
	// And the examples each command's help shows.
	var walk func(cmds []*ucli.Command)
	walk = func(cmds []*ucli.Command) {
		for _, c := range cmds {
			for _, line := range strings.Split(c.UsageText, "\n") {
				if checkCommandLine(t, app, "help of "+c.Name, line) {
					checked++
				}
			}
			walk(c.Subcommands)
		}
	}
	walk(app.Commands)
	if checked < 200 {
		t.Errorf("only %d command lines found in the README and the help", checked)
	}
}

// typos are the README's own examples of mistyped commands and flags.
var typos = map[string]bool{"neer": true, "--lattitude": true,
	// Redis's and Tile38's names, shown as what their users type.
	"georadius": true, "geoadd": true, "nearest": true, "scan": true}

var (
	commandWord    = regexp.MustCompile(`^[a-z]+$`) // a word that would be a command's name
	negativeNumber = regexp.MustCompile(`^-[0-9.]`)
)

// checkCommandLine finds line's command and each flag it names in app's
// definitions, failing t (naming where the line is) for any it does not
// find; it reports whether line was a command line at all.
func checkCommandLine(t *testing.T, app *ucli.App, where, line string) bool {
	t.Helper()
	line = strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(line), "go run ./cli/keyspace "), "keyspace ")
	if i := strings.IndexAny(line, "|<>#"); i >= 0 {
		line = line[:i] // a pipe, a redirection or a comment ends the command
	}
	words, err := shellwords.Parse(line)
	if err != nil {
		return false
	}
	// Global flags may come first: --db cities.db geo near …
	for len(words) > 1 && strings.HasPrefix(words[0], "-") {
		if f := flagNamed(app.Flags, words[0]); f != nil && !isBool(f) && !strings.Contains(words[0], "=") {
			words = words[1:]
		}
		words = words[1:]
	}
	if len(words) == 0 {
		return false
	}
	cmd := commandNamed(app.Commands, words[0])
	if cmd == nil {
		return false // not a command line
	}
	path := []string{cmd.Name}
	words = words[1:]
	for len(cmd.Subcommands) > 0 && len(words) > 0 && !strings.HasPrefix(words[0], "-") {
		sub := commandNamed(cmd.Subcommands, words[0])
		if sub == nil {
			if commandWord.MatchString(words[0]) && !typos[words[0]] {
				t.Errorf("%s: %q: %s has no command %q", where, line, strings.Join(path, " "), words[0])
			}
			break
		}
		cmd, path, words = sub, append(path, sub.Name), words[1:]
	}
	for _, w := range words {
		if !strings.HasPrefix(w, "-") || w == "-" || typos[w] || negativeNumber.MatchString(w) {
			continue // an argument, standard input, a typo shown as one, or a negative number
		}
		if flagNamed(cmd.Flags, w) == nil && flagNamed(app.Flags, w) == nil && w != "--help" && w != "-h" {
			t.Errorf("%s: %q: %s has no flag %s", where, line, strings.Join(path, " "), w)
		}
	}
	return true
}

// commandNamed is the command of cmds called name (or by an alias).
func commandNamed(cmds []*ucli.Command, name string) *ucli.Command {
	for _, c := range cmds {
		if c.Name == name || slices.Contains(c.Aliases, name) {
			return c
		}
	}
	return nil
}

// flagNamed is the flag of flags that word (--name, -n or --name=value)
// names, or nil.
func flagNamed(flags []ucli.Flag, word string) ucli.Flag {
	name, _, _ := strings.Cut(strings.TrimLeft(word, "-"), "=")
	for _, f := range flags {
		if slices.Contains(f.Names(), name) {
			return f
		}
	}
	return nil
}

func isBool(f ucli.Flag) bool {
	_, ok := f.(*ucli.BoolFlag)
	return ok
}
