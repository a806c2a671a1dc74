package errctx

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

func TestWrapAndBare(t *testing.T) {
	sentinel := errors.New("geo: invalid coordinates")
	for _, tc := range []struct {
		err        error
		wrap, bare string
	}{
		{sentinel, "geo: index places: invalid coordinates", "invalid coordinates"},
		{fmt.Errorf("%w: latitude 91", sentinel), "geo: index places: invalid coordinates: latitude 91", "invalid coordinates: latitude 91"},
		{io.EOF, "geo: index places: EOF", "EOF"},
		// Another package's prefix stays: it says where the error came from.
		{errors.New("keyspace: key too large"), "geo: index places: keyspace: key too large", "keyspace: key too large"},
		// Only a whole "geo: " is left out, not a longer word.
		{errors.New("geography: x"), "geo: index places: geography: x", "geography: x"},
	} {
		w, b := Wrap("geo", "index places", tc.err), Bare("geo", tc.err)
		if w.Error() != tc.wrap {
			t.Errorf("Wrap(%q) = %q, want %q", tc.err, w, tc.wrap)
		}
		if b.Error() != tc.bare {
			t.Errorf("Bare(%q) = %q, want %q", tc.err, b, tc.bare)
		}
		if !errors.Is(w, tc.err) || !errors.Is(b, tc.err) {
			t.Errorf("Wrap or Bare of %q does not unwrap to it", tc.err)
		}
	}
	// Context added in the middle of a message, then the package's own.
	inner := fmt.Errorf("box minimum corner: %w", Bare("geo", fmt.Errorf("%w: latitude -91", sentinel)))
	if got, want := Wrap("geo", "index x", inner).Error(), "geo: index x: box minimum corner: invalid coordinates: latitude -91"; got != want {
		t.Errorf("nested: %q, want %q", got, want)
	}
	// The same context deeper in, after a step's name, is said once.
	again := fmt.Errorf("build: %w", Wrap("geo", "index x", fmt.Errorf("%w: latitude -91", sentinel)))
	if got, want := Wrap("geo", "index x", again).Error(), "geo: index x: build: invalid coordinates: latitude -91"; got != want {
		t.Errorf("context twice: %q, want %q", got, want)
	}
	if got, want := Wrap("geo", "index y", again).Error(), "geo: index y: build: geo: index x: invalid coordinates: latitude -91"; got != want {
		t.Errorf("another context: %q, want %q", got, want)
	}
	if Wrap("geo", "index places", nil) != nil || Bare("geo", nil) != nil {
		t.Error("Wrap or Bare of nil is not nil")
	}
}

func TestQuote(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"car-7", `"car-7"`},
		{"a\x00b", `"a\x00b"`},
		{strings.Repeat("z", 64), `"` + strings.Repeat("z", 64) + `"`},
		{strings.Repeat("z", 40000), `"` + strings.Repeat("z", 64) + `"… (40000 bytes)`},
		{strings.Repeat("z", 63) + "é" + "tail", `"` + strings.Repeat("z", 63) + `"… (69 bytes)`}, // é's two bytes straddle the cut
	} {
		if got := Quote(tc.in); got != tc.want {
			t.Errorf("Quote(%.20q…) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
