package cli

import "testing"

// TestSizeInUnits: a size in the largest binary unit it fills, to three
// significant digits with trailing zeros dropped, at each unit's edges;
// and bytesText, the bytes with it.
func TestSizeInUnits(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{
		{0, ""},
		{1023, ""},
		{1024, "1 KiB"},
		{1536, "1.5 KiB"},
		{32768, "32 KiB"},
		{1<<20 - 1, "1024 KiB"},
		{1 << 20, "1 MiB"},
		{44879872, "42.8 MiB"},
		{151126016, "144 MiB"},
		{4586471424, "4.27 GiB"},
		{3 << 40, "3 TiB"},
		{5000 << 40, "5000 TiB"},
	} {
		if got := sizeInUnits(c.n); got != c.want {
			t.Errorf("sizeInUnits(%d) = %q, want %q", c.n, got, c.want)
		}
	}
	if got := bytesText(1023); got != "1023 bytes" {
		t.Errorf("bytesText(1023) = %q", got)
	}
	if got := bytesText(151126016); got != "151126016 bytes, 144 MiB" {
		t.Errorf("bytesText(151126016) = %q", got)
	}
}
