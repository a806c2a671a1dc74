// Package errctx gives an error its context once: the package and the
// thing it happened to ("geo: index places: "), without repeating the
// package name that the package's own sentinel errors start with.
//
// Wrapping ErrInvalidPoint ("geo: invalid coordinates: latitude 91 …")
// with fmt.Errorf("geo: index %s: %w", …) reads "geo: index places: geo:
// invalid coordinates: latitude 91 …"; Wrap("geo", "index places", err)
// reads "geo: index places: invalid coordinates: latitude 91 …", and
// errors.Is and errors.As still see the sentinel. Inside a package,
// context added in the middle of a message uses Bare:
// fmt.Errorf("box minimum corner: %w", errctx.Bare("geo", err)).
package errctx

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Wrap returns err with the context "pkg: what: ", less the "pkg: " that
// err's message may already start with; nil for a nil err. The result
// unwraps to err.
func Wrap(pkg, what string, err error) error {
	if err == nil {
		return nil
	}
	return &wrapped{context: pkg + ": " + what + ": ", pkg: pkg, err: err}
}

// Bare returns err with the "pkg: " its message may start with left
// out, for a message that puts err after context of its own; nil for a
// nil err. The result unwraps to err.
func Bare(pkg string, err error) error {
	if err == nil {
		return nil
	}
	return &wrapped{pkg: pkg, err: err}
}

type wrapped struct {
	context, pkg string
	err          error
}

func (w *wrapped) Error() string {
	msg := strings.TrimPrefix(w.err.Error(), w.pkg+": ")
	if w.context != "" {
		// The same context deeper in (a step's name between them:
		// "indextable: table t index u: build: indextable: table t index
		// u: unique index violation") is said once, at the front.
		msg = strings.ReplaceAll(msg, w.context, "")
	}
	return w.context + msg
}

func (w *wrapped) Unwrap() error { return w.err }

// quoteMax is how many bytes of a name Quote shows.
const quoteMax = 64

// Quote is %q of a name an error mentions (a point's id, a key), cut to
// its first 64 bytes with its length said after, so that an id of 40 KB
// makes a message of one line: "zzzz…" (40000 bytes).
func Quote(s string) string {
	if len(s) <= quoteMax {
		return strconv.Quote(s)
	}
	cut := quoteMax
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut-- // keep the cut on a character's first byte
	}
	return strconv.Quote(s[:cut]) + "… (" + strconv.Itoa(len(s)) + " bytes)"
}
