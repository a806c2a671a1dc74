package cli

import (
	"encoding/json"
	"testing"
)

// unescapeHTML turns encoding/json's escaped text back into the same
// string, with <, > and & as they are, whatever backslashes surround them.
func TestUnescapeHTML(t *testing.T) {
	for _, s := range []string{
		"", "plain", "<p>a & b</p>", `\u003c`, `\\u003c`, `\`, `a\`, `\<`, "<\\>&\\\\&", "\u2028<", "\"<\"", `\u0026amp;`, "<>&<>&",
	} {
		b, _ := json.Marshal(map[string]string{"k" + s: s})
		un := unescapeHTML(b)
		var back map[string]string
		if err := json.Unmarshal(un, &back); err != nil || back["k"+s] != s || len(back) != 1 {
			t.Errorf("%q: %s → %s → %q, %v", s, b, un, back, err)
		}
		for _, esc := range []string{`\u003c`, `\u003e`, `\u0026`} {
			if n := countOutsideEscapes(un, esc); n > 0 {
				t.Errorf("%q: %s still escapes %s", s, un, esc)
			}
		}
	}
}

// countOutsideEscapes counts esc in JSON text b where its backslash is not
// itself escaped.
func countOutsideEscapes(b []byte, esc string) int {
	n := 0
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			continue
		}
		if string(b[i:min(len(b), i+len(esc))]) == esc {
			n++
		}
		i++ // the escaped byte
	}
	return n
}
