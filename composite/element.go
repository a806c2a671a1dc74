package composite

import (
	"fmt"
	"strings"
)

// NextElement splits the first element off a packed tuple without decoding
// it: elem is that element's packed bytes, rest is what follows. It
// allocates nothing, so a caller that needs one element of a long key
// steps over the others with NextElement and decodes only that one (with
// UnpackString or Unpack).
//
// It checks the element's framing (its type code and length), not its
// contents: an error wraps ErrMalformed, and bytes it accepts may still fail
// to Unpack.
func NextElement(b []byte) (elem, rest []byte, err error) {
	if len(b) == 0 {
		return nil, nil, fmt.Errorf("composite: %w: no element", ErrMalformed)
	}
	n, err := elementLen(b)
	if err != nil {
		return nil, nil, fmt.Errorf("composite: %w", err)
	}
	return b[:n], b[n:], nil
}

// elementLen is the packed length of the element at the start of b.
func elementLen(b []byte) (int, error) {
	code := b[0]
	want := 0
	switch {
	case code == codeNull || code == codeFalse || code == codeTrue:
		return 1, nil
	case code == codeBytes || code == codeString:
		end, _ := findTerminator(b[1:])
		if end < 0 {
			return 0, fmt.Errorf("%w: string not terminated", ErrMalformed)
		}
		return end + 2, nil
	case code >= codeIntZero-8 && code <= codeIntZero+8:
		want = 1 + max(int(code)-codeIntZero, codeIntZero-int(code))
	case code == codeFloat32:
		want = 5
	case code == codeFloat64 || code == codeTime:
		want = 9
	case code == codeUUID:
		want = 17
	default: // nested tuples, descending elements, bad codes: rare enough to decode
		_, n, err := decodeElement(b, false, 0)
		return n, err
	}
	if len(b) < want {
		return 0, fmt.Errorf("%w: element of type 0x%02x needs %d bytes, has %d", ErrMalformed, code, want, len(b))
	}
	return want, nil
}

// UnpackString decodes one packed string element, such as NextElement
// returns, with a single allocation (the string's bytes). Anything else,
// including a string followed by more bytes, is an error wrapping
// ErrMalformed.
func UnpackString(elem []byte) (string, error) {
	if len(elem) < 2 || elem[0] != codeString {
		return "", fmt.Errorf("composite: %w: not a packed string element", ErrMalformed)
	}
	end, escapes := findTerminator(elem[1:])
	if end != len(elem)-2 {
		return "", fmt.Errorf("composite: %w: not exactly one string element", ErrMalformed)
	}
	if escapes == 0 {
		return string(elem[1 : 1+end]), nil
	}
	s, _, err := decodeEscaped(elem[1:])
	if err != nil {
		return "", fmt.Errorf("composite: %w", err)
	}
	return string(s), nil
}

// AppendString appends s packed as one string element, exactly as
// Tuple{s}.Pack() would write it, without boxing s in an any: for hot
// paths that build many keys.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, codeString)
	if strings.IndexByte(s, 0x00) < 0 { // nothing to escape
		return append(append(dst, s...), 0x00)
	}
	for i := 0; i < len(s); i++ {
		dst = append(dst, s[i])
		if s[i] == 0x00 {
			dst = append(dst, escape)
		}
	}
	return append(dst, 0x00)
}

// AppendUint appends v packed as one integer element, exactly as
// Tuple{v}.Pack() would write it, without boxing v in an any.
func AppendUint(dst []byte, v uint64) []byte { return appendUint(dst, v) }

// AppendUnpackedString decodes the string element at the start of b,
// appends its bytes to dst and returns dst and what follows the element in
// b. It allocates only when dst must grow, so a caller decoding many keys
// gathers their strings in one buffer. Anything but a string element is an
// error wrapping ErrMalformed, and dst is then returned unchanged.
func AppendUnpackedString(dst, b []byte) ([]byte, []byte, error) {
	if len(b) < 2 || b[0] != codeString {
		return dst, nil, fmt.Errorf("composite: %w: not a packed string element", ErrMalformed)
	}
	end, escapes := findTerminator(b[1:])
	if end < 0 {
		return dst, nil, fmt.Errorf("composite: %w: string not terminated", ErrMalformed)
	}
	s := b[1 : 1+end]
	if escapes == 0 {
		return append(dst, s...), b[end+2:], nil
	}
	for i := 0; i < len(s); i++ {
		dst = append(dst, s[i])
		if s[i] == 0x00 {
			i++ // skip the escape byte
		}
	}
	return dst, b[end+2:], nil
}
