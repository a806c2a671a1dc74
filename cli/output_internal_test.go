package cli

import (
	"encoding/json"
	"math"
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

// TestDegrees: six decimals, and no minus sign on a value that rounds
// to zero.
func TestDegrees(t *testing.T) {
	for v, want := range map[float64]string{
		math.Copysign(0, -1): "0.000000", -1e-7: "0.000000", 0: "0.000000", -0.000002: "-0.000002",
		1.5: "1.500000", -179.9999: "-179.999900", 90: "90.000000",
	} {
		if got := degrees(v); got != want {
			t.Errorf("degrees(%v) = %q, want %q", v, got, want)
		}
	}
}
