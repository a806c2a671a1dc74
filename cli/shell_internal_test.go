package cli

import (
	"slices"
	"testing"
)

// TestComplete: Tab completes commands under the words before, and a
// leaf command's flags.
func TestComplete(t *testing.T) {
	commands := newApp(nil, nil, nil).Commands
	for _, c := range []struct {
		line string
		want []string
	}{
		{"geo ne", []string{"geo near "}},
		{"g", []string{"geo "}},
		{"", nil}, // filled below: every top command
		{"geo near --ra", []string{"geo near --radius "}},
		{"geo near -i cities --sc", []string{"geo near -i cities --scope "}},
		{"table sc", []string{"table scan "}},
		{"ex", []string{"exit "}},
		{"geo ex", []string{"geo expire ", "geo explain "}[:1]},
		{"nope ", nil},
	} {
		got := complete(commands, c.line)
		if c.line == "" {
			if len(got) < 10 || !slices.Contains(got, "geo ") || !slices.Contains(got, "exit ") {
				t.Errorf("complete(%q) = %q", c.line, got)
			}
			continue
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("complete(%q) = %q, want %q", c.line, got, c.want)
		}
	}
}
