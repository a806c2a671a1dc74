package cli

import "testing"

// TestScanFrom: a scan for ids starting with a prefix begins just below
// it, or at the cursor when that is later; below is a string every id
// with the prefix sorts after, and no id before it matches.
func TestScanFrom(t *testing.T) {
	for _, c := range []struct{ prefix, cursor, want string }{
		{"", "", ""},
		{"", "car-9", "car-9"},
		{"truck-", "", "truck,"},
		{"truck-", "truck-7", "truck-7"},
		{"truck-", "bike-1", "truck,"},
		{"a\x00", "", "a"},
		{"\x00", "", ""},
		{"é", "", "\xc3\xa8"},
	} {
		got := scanFrom(c.prefix, c.cursor)
		if got != c.want {
			t.Errorf("scanFrom(%q, %q) = %q, want %q", c.prefix, c.cursor, got, c.want)
		}
		if c.prefix != "" && !(got < c.prefix) && got != c.cursor {
			t.Errorf("scanFrom(%q, %q) = %q does not sort before the prefix", c.prefix, c.cursor, got)
		}
	}
}
