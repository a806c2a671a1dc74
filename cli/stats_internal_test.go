package cli

import "testing"

// TestSizeInUnits: a size in the largest binary unit it fills, to three
// significant digits with trailing zeros dropped, at each unit's edges.
func TestSizeInUnits(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{
		{0, ""},
		{1023, ""},
		{1024, " (1 KiB)"},
		{1536, " (1.5 KiB)"},
		{32768, " (32 KiB)"},
		{1<<20 - 1, " (1024 KiB)"},
		{1 << 20, " (1 MiB)"},
		{44879872, " (42.8 MiB)"},
		{151126016, " (144 MiB)"},
		{4586471424, " (4.27 GiB)"},
		{3 << 40, " (3 TiB)"},
		{5000 << 40, " (5000 TiB)"},
	} {
		if got := sizeInUnits(c.n); got != c.want {
			t.Errorf("sizeInUnits(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
