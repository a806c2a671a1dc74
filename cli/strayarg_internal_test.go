package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	ucli "github.com/urfave/cli/v2"
)

// TestStrayArguments gives every command that takes no arguments one,
// and every one that takes one at most two, with its required flags set, and expects a usage error naming the
// argument and no file written: before, most of them dropped it without
// a word ("--radius 1 km" searched 1 m).
func TestStrayArguments(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "stray.db")
	checked := 0
	for _, top := range commands() {
		walkLeaves(nil, top, func(p []string, cmd *ucli.Command) {
			most := strings.HasPrefix(cmd.ArgsUsage, "[") && strings.HasSuffix(cmd.ArgsUsage, "]") && !strings.Contains(cmd.ArgsUsage, "...")
			if cmd.ArgsUsage != "" && !most {
				return
			}
			args := append([]string{"keyspace", "--db", db}, p...)
			for _, name := range requiredFlags(cmd) {
				args = append(args, "--"+name, "1")
			}
			if most {
				args = append(args, "first")
			}
			args = append(args, "km")
			var out, errb bytes.Buffer
			code := Run(args, strings.NewReader(""), &out, &errb)
			want := strings.Join(p, " ") + ` takes no arguments, got "km" (a distance is one word`
			if most {
				want = strings.Join(p, " ") + " takes one " + strings.Trim(cmd.ArgsUsage, "[]") + ` at most, and "km" is another (a distance is one word`
			}
			if cmd.Name == "shell" {
				want = `shell takes no arguments, got "km" (it reads its commands from standard input`
			}
			if code != 2 || !strings.Contains(errb.String(), want) || out.Len() > 0 {
				t.Errorf("%v: exit %d, %q, printed %q; want 2 and %q", args[3:], code, errb.String(), out.String(), want)
			}
			checked++
		})
	}
	if checked < 45 {
		t.Errorf("only %d commands take no arguments or one", checked)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("a stray argument left %s: %v", db, err)
	}
}

// requiredFlags are the names of the flags cmd, as commands writes it,
// cannot run without.
func requiredFlags(cmd *ucli.Command) []string {
	var names []string
	for _, f := range cmd.Flags {
		if r, ok := f.(ucli.RequiredFlag); ok && r.IsRequired() {
			names = append(names, f.Names()[0])
		}
	}
	return names
}

// TestMissingFlags runs every command that needs flags without one of
// them, then without all of them, and expects a usage error naming each
// missing flag with its value, nothing printed on standard output (not
// urfave/cli's whole help) and no file written; and, given the missing
// flag's value as an argument too many, a question whether it was meant
// as the flag.
func TestMissingFlags(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "missing.db")
	file := filepath.Join(dir, "points.csv")
	if err := os.WriteFile(file, []byte("id,lat,lon\na,1,2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(args []string, want ...string) {
		t.Helper()
		var out, errb bytes.Buffer
		code := Run(append([]string{"keyspace", "--db", db}, args...), strings.NewReader(""), &out, &errb)
		for _, w := range want {
			if !strings.Contains(errb.String(), w) {
				t.Errorf("%v: %q does not say %q", args, errb.String(), w)
			}
		}
		if code != 2 || out.Len() > 0 || strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, printed %q and %q; want 2, one line on stderr and nothing on stdout", args, code, out.String(), errb.String())
		}
	}
	placeholders := map[string]string{}
	checked := 0
	for _, cmd := range commands() {
		walkLeaves(nil, cmd, func(path []string, leaf *ucli.Command) {
			required := requiredFlags(leaf)
			if len(required) == 0 {
				return
			}
			checked++
			for _, f := range leaf.Flags {
				if d, ok := f.(ucli.DocGenerationFlag); ok {
					placeholders[f.Names()[0]], _ = placeholder(d.GetUsage())
				}
			}
			for i, name := range required {
				var args []string
				for j, other := range required {
					if j != i {
						args = append(args, "--"+other, "1")
					}
				}
				want := strings.Join(path, " ") + " needs --" + name + " " + placeholders[name] + ": "
				run(append(append([]string(nil), path...), args...), want)
				// The flag's value given as an argument: before the
				// others, or after a file that exists.
				extra := []string{"my-" + name}
				switch {
				case strings.Contains(leaf.ArgsUsage, "..."):
					extra = append(extra, "x")
				case strings.HasPrefix(leaf.ArgsUsage, "FILE"):
					extra = []string{file, "my-" + name}
				default:
					for range strings.Fields(leaf.ArgsUsage) {
						extra = append(extra, "x")
					}
				}
				run(append(append(append([]string(nil), path...), args...), extra...), want, "did you mean --"+name+" my-"+name+"?")
			}
			if len(required) > 1 {
				var names []string
				for _, name := range required {
					names = append(names, "--"+name+" "+placeholders[name])
				}
				run(path, strings.Join(path, " ")+" needs "+strings.Join(names, " and "))
			}
		})
	}
	if checked < 70 {
		t.Errorf("only %d commands need flags", checked)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("a missing flag left %s: %v", db, err)
	}
}

// walkLeaves calls fn with every command under cmd that has no
// subcommands, and its path of names.
func walkLeaves(path []string, cmd *ucli.Command, fn func([]string, *ucli.Command)) {
	path = append(append([]string(nil), path...), cmd.Name)
	if len(cmd.Subcommands) == 0 {
		fn(path, cmd)
		return
	}
	for _, sub := range cmd.Subcommands {
		walkLeaves(path, sub, fn)
	}
}

// TestKeyWordsAndDanglingFlags: a key's columns given as words apart, to
// a command that takes them joined, get the joined key as a hint, with
// colons and stars in them escaped; a last flag that wants a value and
// has none is named with its dashes, after arguments too (urfave/cli took
// the "--" before them for its value), and --help after it is help.
func TestKeyWordsAndDanglingFlags(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	run := func(stdin string, args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Run(append([]string{"keyspace", "--db", db}, args...), strings.NewReader(stdin), &out, &errb)
		return code, out.String(), errb.String()
	}
	if code, _, stderr := run("a,b,n\nNY,1,5\n", "table", "import", "--table", "t", "--key-cols", "a,b", "--format", "csv", "-"); code != 0 {
		t.Fatal(stderr)
	}
	if code, _, stderr := run("", "index", "create", "--table", "t", "--name", "an", "--fields", "a,n"); code != 0 {
		t.Fatal(stderr)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"index", "lookup", "--table", "t", "--name", "an", "NY", "5"}, `did you mean 'NY:5'?`},
		{[]string{"table", "scan", "--table", "t", "NY", "1*"}, `did you mean 'NY:1\*'?`},
		{[]string{"table", "count", "--table", "t", "NY", "1"}, `one PREFIX, joined by colons: did you mean 'NY:1'?`},
		{[]string{"table", "scan", "--table", "t", "NY", "limit", "5"}, `did you mean --limit 5?`},
		{[]string{"table", "scan", "--table", "t", "--limit"}, "flag needs an argument: --limit\n"},
		{[]string{"table", "scan", "--table", "t", "NY:*", "--limit"}, "flag needs an argument: --limit\n"},
	} {
		code, out, stderr := run("", c.args...)
		if code != 2 || out != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q, %q; want a usage error saying %q", c.args, code, out, stderr, c.want)
		}
	}
	for _, args := range [][]string{
		{"table", "scan", "--table", "t", "NY:*", "--limit", "--help"},
		{"table", "scan", "--help", "--table"},
	} {
		if code, out, stderr := run("", args...); code != 0 || !strings.Contains(out, "keyspace table scan - ") {
			t.Errorf("%v: exit %d, %q, %q; want the help", args, code, out, stderr)
		}
	}
}
