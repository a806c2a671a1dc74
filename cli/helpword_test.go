package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestArgumentsNamedHelp: a point, a fence or a row whose id is h or help
// is written and read like any other. urfave/cli gives every command a
// help subcommand named help and h, and a leaf command's first argument
// named it: geo put … h printed help, wrote nothing and exited 0. The
// flags --help and -h still print a command's help.
func TestArgumentsNamedHelp(t *testing.T) {
	db := filepath.Join(t.TempDir(), "k.db")
	for _, id := range []string{"h", "help"} {
		runOK(t, "", "--db", db, "geo", "put", "--index", "p", "--lat", "1", "--lon", "2", id)
		runOK(t, "", "--db", db, "fence", "put", "--fences", "z", "--lat", "1", "--lon", "2", "--radius", "1km", id)
	}
	runOK(t, "id,city\nh,Oslo\nhelp,Rome\n", "--db", db, "table", "import", "--table", "t", "--key-cols", "id", "-")
	for _, args := range [][]string{
		{"geo", "get", "--index", "p", "h", "help"},
		{"fence", "get", "--fences", "z", "h", "help"},
		{"table", "get", "--table", "t", "h", "help"},
	} {
		out := runOK(t, "", append([]string{"--db", db, "--output", "json"}, args...)...)
		if !strings.Contains(out, `"h"`) || !strings.Contains(out, `"help"`) || strings.Contains(out, "NAME:") {
			t.Errorf("%v: %q; want the two items", args[:2], out)
		}
	}
	for _, flag := range []string{"--help", "-h"} {
		if out := runOK(t, "", "--db", db, "geo", "put", flag); !strings.Contains(out, "NAME:") || !strings.Contains(out, "geo put") {
			t.Errorf("geo put %s: %q; want its help", flag, out)
		}
	}
}
