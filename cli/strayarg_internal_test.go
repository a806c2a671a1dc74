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
	var walk func(path []string, cs []*ucli.Command)
	checked := 0
	walk = func(path []string, cs []*ucli.Command) {
		for _, cmd := range cs {
			p := append(append([]string(nil), path...), cmd.Name)
			if len(cmd.Subcommands) > 0 {
				walk(p, cmd.Subcommands)
				continue
			}
			most := strings.HasPrefix(cmd.ArgsUsage, "[") && strings.HasSuffix(cmd.ArgsUsage, "]") && !strings.Contains(cmd.ArgsUsage, "...")
			if cmd.ArgsUsage != "" && !most {
				continue
			}
			args := append([]string{"keyspace", "--db", db}, p...)
			for _, f := range cmd.Flags {
				if r, ok := f.(ucli.RequiredFlag); ok && r.IsRequired() {
					args = append(args, "--"+f.Names()[0], "1")
				}
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
		}
	}
	walk(nil, newApp(nil, nil, nil).Commands)
	if checked < 45 {
		t.Errorf("only %d commands take no arguments or one", checked)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("a stray argument left %s: %v", db, err)
	}
}
