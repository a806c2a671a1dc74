package composite

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"time"
)

// Tuple is an ordered list of elements that packs to a key whose byte order
// is the tuple order. It mirrors the FoundationDB Go binding's tuple.Tuple.
//
// Elements may be: nil, []byte, string, bool, every Go integer type (int,
// int8…int64, uint, uint8…uint64), float32, float64, UUID, a nested Tuple,
// and this package's extensions time.Time and Desc.
type Tuple []any

// UUID is an RFC 4122 UUID in network byte order, as in the FoundationDB
// binding.
type UUID [16]byte

// Desc marks an element as descending: keys sort by it from largest to
// smallest, as in "createTime desc". Desc may wrap any element type,
// including a Tuple. Unpack returns it as Desc again.
type Desc struct{ V any }

// Type codes of the FoundationDB tuple layer (design/tuple.md) and of this
// package's extensions in its user range 0x40–0x4f.
const (
	codeNull      = 0x00
	codeBytes     = 0x01
	codeString    = 0x02
	codeNested    = 0x05
	codeIntZero   = 0x14 // 0x0c..0x13 negative, 0x15..0x1c positive, by byte length
	codeNegBig    = 0x0b // integers beyond 8 bytes: decoded only to report them
	codePosBig    = 0x1d
	codeFloat32   = 0x20
	codeFloat64   = 0x21
	codeFalse     = 0x26
	codeTrue      = 0x27
	codeUUID      = 0x30
	codeTime      = 0x40 // extension: int64 Unix nanoseconds, sign bit flipped
	codeDesc      = 0x41 // extension: inverted, self-terminating inner element
	escape        = 0xFF // never a type code: prefix+0xFF is past every child
	descTerminal1 = 0x00 // descending terminator before inversion: 00 01
	descTerminal2 = 0x01
)

// Errors from packing and unpacking. Every error wraps one of these.
var (
	// ErrUnsupportedType: an element's Go type has no encoding.
	ErrUnsupportedType = errors.New("composite: unsupported element type")
	// ErrMalformed: bytes that are not a packed tuple.
	ErrMalformed = errors.New("composite: malformed tuple encoding")
	// ErrIntegerRange: an encoded integer does not fit in 64 bits, or a time
	// lies outside the years 1678–2262 (int64 nanoseconds).
	ErrIntegerRange = errors.New("composite: value out of 64-bit range")
	// ErrTooDeep: nested tuples and descending elements more than
	// MaxNesting deep.
	ErrTooDeep = errors.New("composite: elements nested too deeply")
)

// MaxNesting bounds how deep nested tuples and descending elements may go,
// in packing and unpacking alike. A descending element escapes the zero
// bytes of what it wraps and turns its 0xFF bytes into zeros, so each level
// of descending inside descending grows the encoding by up to the golden
// ratio: unbounded, a short text key of a thousand '~' would never finish
// packing (found by FuzzText).
const MaxNesting = 16

// Pack encodes t. It panics if an element has an unsupported type, as the
// FoundationDB binding does (a programming error), or a value no key can
// hold (a time outside TimeBounds, nesting deeper than MaxNesting). Use
// TryPack where elements come from input, to get an error instead.
func (t Tuple) Pack() []byte {
	b, err := t.TryPack()
	if err != nil {
		panic(err)
	}
	return b
}

// TryPack encodes t, or reports the first element it cannot encode.
func (t Tuple) TryPack() ([]byte, error) {
	return t.AppendPack(make([]byte, 0, 8*len(t)))
}

// AppendPack appends the encoding of t to dst.
func (t Tuple) AppendPack(dst []byte) ([]byte, error) {
	var err error
	for i, e := range t {
		if dst, err = appendElement(dst, e, false, 0); err != nil {
			return nil, fmt.Errorf("element %d: %w", i, err)
		}
	}
	return dst, nil
}

// appendElement appends one element; nested is true inside a nested tuple,
// where null is written 00 FF so that it cannot be mistaken for the end;
// depth counts the nested tuples and descending elements around it.
func appendElement(dst []byte, e any, nested bool, depth int) ([]byte, error) {
	switch e.(type) {
	case Tuple, Desc:
		if depth >= MaxNesting {
			return nil, fmt.Errorf("%w: more than %d levels", ErrTooDeep, MaxNesting)
		}
	}
	switch v := e.(type) {
	case nil:
		if nested {
			return append(dst, codeNull, escape), nil
		}
		return append(dst, codeNull), nil
	case []byte:
		return appendEscaped(append(dst, codeBytes), v), nil
	case string:
		return appendEscaped(append(dst, codeString), []byte(v)), nil
	case Tuple:
		dst = append(dst, codeNested)
		var err error
		for i, inner := range v {
			if dst, err = appendElement(dst, inner, true, depth+1); err != nil {
				return nil, fmt.Errorf("nested element %d: %w", i, err)
			}
		}
		return append(dst, 0x00), nil
	case bool:
		if v {
			return append(dst, codeTrue), nil
		}
		return append(dst, codeFalse), nil
	case int:
		return appendInt(dst, int64(v)), nil
	case int8:
		return appendInt(dst, int64(v)), nil
	case int16:
		return appendInt(dst, int64(v)), nil
	case int32:
		return appendInt(dst, int64(v)), nil
	case int64:
		return appendInt(dst, v), nil
	case uint:
		return appendUint(dst, uint64(v)), nil
	case uint8:
		return appendUint(dst, uint64(v)), nil
	case uint16:
		return appendUint(dst, uint64(v)), nil
	case uint32:
		return appendUint(dst, uint64(v)), nil
	case uint64:
		return appendUint(dst, v), nil
	case float32:
		return binary.BigEndian.AppendUint32(append(dst, codeFloat32), sortableFloat32(v)), nil
	case float64:
		return binary.BigEndian.AppendUint64(append(dst, codeFloat64), sortableFloat64(v)), nil
	case UUID:
		return append(append(dst, codeUUID), v[:]...), nil
	case time.Time:
		ns := v.UnixNano()
		if v.Before(minTime) || v.After(maxTime) {
			return nil, fmt.Errorf("%w: time %s", ErrIntegerRange, v.Format(time.RFC3339))
		}
		return binary.BigEndian.AppendUint64(append(dst, codeTime), uint64(ns)^(1<<63)), nil
	case Desc:
		return appendDesc(dst, v.V, depth)
	default:
		return nil, fmt.Errorf("%w: %T", ErrUnsupportedType, e)
	}
}

// The instants that int64 nanoseconds since 1970 can hold.
var (
	minTime = time.Unix(0, math.MinInt64)
	maxTime = time.Unix(0, math.MaxInt64)
)

// TimeBounds returns the first and the last instant a time element can
// hold (int64 nanoseconds since 1970: late 1677 to early 2262). Packing a
// time outside them is an error wrapping ErrIntegerRange.
func TimeBounds() (first, last time.Time) { return minTime, maxTime }

// appendEscaped writes b with each 0x00 as 00 FF, then the terminator 0x00.
func appendEscaped(dst, b []byte) []byte {
	for _, c := range b {
		dst = append(dst, c)
		if c == 0x00 {
			dst = append(dst, escape)
		}
	}
	return append(dst, 0x00)
}

// appendInt writes v in the minimal number of big-endian bytes, the length in
// the type code; negatives as the one's complement of their magnitude.
func appendInt(dst []byte, v int64) []byte {
	if v >= 0 {
		return appendUint(dst, uint64(v))
	}
	mag := uint64(-v) // -MinInt64 wraps to 1<<63, which is its magnitude
	n := byteLen(mag)
	dst = append(dst, byte(codeIntZero-n))
	return appendBigEndian(dst, ^mag, n)
}

func appendUint(dst []byte, v uint64) []byte {
	n := byteLen(v)
	dst = append(dst, byte(codeIntZero+n))
	return appendBigEndian(dst, v, n)
}

// byteLen is the number of bytes needed for v (0 for 0).
func byteLen(v uint64) int { return (bits.Len64(v) + 7) / 8 }

// appendBigEndian writes the low n bytes of v, most significant first.
func appendBigEndian(dst []byte, v uint64, n int) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], v)
	return append(dst, b[8-n:]...)
}

// sortableFloat64 maps IEEE bits so that unsigned order is numeric order:
// negatives have every bit flipped, positives only the sign bit. This is the
// IEEE total order: -NaN < -Inf < … < -0 < +0 < … < +Inf < +NaN.
func sortableFloat64(f float64) uint64 {
	b := math.Float64bits(f)
	if b&(1<<63) != 0 {
		return ^b
	}
	return b ^ (1 << 63)
}

func sortableFloat32(f float32) uint32 {
	b := math.Float32bits(f)
	if b&(1<<31) != 0 {
		return ^b
	}
	return b ^ (1 << 31)
}

func unsortFloat64(b uint64) float64 {
	if b&(1<<63) != 0 {
		return math.Float64frombits(b ^ (1 << 63))
	}
	return math.Float64frombits(^b)
}

func unsortFloat32(b uint32) float32 {
	if b&(1<<31) != 0 {
		return math.Float32frombits(b ^ (1 << 31))
	}
	return math.Float32frombits(^b)
}

// appendDesc writes a descending element: the code 0x41, then the inner
// element's ascending encoding made prefix-free and inverted.
//
// Inverting bytes reverses the order of two encodings only when neither is a
// prefix of the other, and the tuple layer's own encodings are not
// prefix-free ("a" packs to 02 61 00, a prefix of "a\x00" = 02 61 00 FF 00).
// So the inner encoding e is first rewritten as escape(e) + 00 01, where
// escape turns each 00 into 00 FF. That is order-preserving (00 FF sorts
// after the terminator 00 01, and a shorter e now ends in 00 01 where a
// longer one continues with a byte ≥ 01 or with 00 FF) and prefix-free (the
// first 00 not followed by FF ends it). Then every byte is inverted.
func appendDesc(dst []byte, inner any, depth int) ([]byte, error) {
	enc, err := appendElement(nil, inner, false, depth+1)
	if err != nil {
		return nil, fmt.Errorf("descending: %w", err)
	}
	dst = appendInvertedEscaped(append(dst, codeDesc), enc)
	return append(dst, ^byte(descTerminal1), ^byte(descTerminal2)), nil
}

// appendInvertedEscaped appends enc with each 00 escaped as 00 FF, every byte
// inverted. It works byte by byte, so a prefix of enc gives a prefix of the
// output: descending "starts with" queries rely on that.
func appendInvertedEscaped(dst, enc []byte) []byte {
	for _, c := range enc {
		dst = append(dst, ^c)
		if c == 0x00 {
			dst = append(dst, ^byte(escape))
		}
	}
	return dst
}

// Unpack decodes a packed tuple. Integers come back as int64, or uint64 when
// above math.MaxInt64; times as UTC time.Time; descending elements as Desc.
// Malformed input returns an error wrapping ErrMalformed, never a panic.
func Unpack(b []byte) (Tuple, error) {
	t := Tuple{}
	for pos := 0; pos < len(b); {
		e, n, err := decodeElement(b[pos:], false, 0)
		if err != nil {
			return nil, fmt.Errorf("composite: byte %d: %w", pos, err)
		}
		t = append(t, e)
		pos += n
	}
	return t, nil
}

// decodeElement decodes the element at the start of b and returns it with
// the number of bytes it took.
func decodeElement(b []byte, nested bool, depth int) (any, int, error) {
	code := b[0]
	if (code == codeNested || code == codeDesc) && depth >= MaxNesting {
		return nil, 0, fmt.Errorf("%w: %w: more than %d levels", ErrMalformed, ErrTooDeep, MaxNesting)
	}
	switch {
	case code == codeNull:
		if nested {
			if len(b) < 2 || b[1] != escape {
				return nil, 0, fmt.Errorf("%w: null inside a nested tuple not followed by FF", ErrMalformed)
			}
			return nil, 2, nil
		}
		return nil, 1, nil
	case code == codeBytes || code == codeString:
		if code == codeString {
			if end, escapes := findTerminator(b[1:]); end >= 0 && escapes == 0 {
				return string(b[1 : 1+end]), end + 2, nil // the common case: one copy
			}
		}
		s, n, err := decodeEscaped(b[1:])
		if err != nil {
			return nil, 0, err
		}
		if code == codeString {
			return string(s), n + 1, nil
		}
		return s, n + 1, nil
	case code == codeNested:
		t := Tuple{}
		for pos := 1; ; {
			if pos >= len(b) {
				return nil, 0, fmt.Errorf("%w: nested tuple not terminated", ErrMalformed)
			}
			if b[pos] == 0x00 && (pos+1 >= len(b) || b[pos+1] != escape) {
				return t, pos + 1, nil
			}
			e, n, err := decodeElement(b[pos:], true, depth+1)
			if err != nil {
				return nil, 0, err
			}
			t = append(t, e)
			pos += n
		}
	case code >= codeIntZero-8 && code <= codeIntZero+8:
		return decodeInt(b)
	case code == codeNegBig || code == codePosBig:
		return nil, 0, fmt.Errorf("%w: integer wider than 8 bytes", ErrIntegerRange)
	case code == codeFloat32:
		if len(b) < 5 {
			return nil, 0, fmt.Errorf("%w: float32 needs 4 bytes", ErrMalformed)
		}
		return unsortFloat32(binary.BigEndian.Uint32(b[1:])), 5, nil
	case code == codeFloat64:
		if len(b) < 9 {
			return nil, 0, fmt.Errorf("%w: float64 needs 8 bytes", ErrMalformed)
		}
		return unsortFloat64(binary.BigEndian.Uint64(b[1:])), 9, nil
	case code == codeFalse:
		return false, 1, nil
	case code == codeTrue:
		return true, 1, nil
	case code == codeUUID:
		if len(b) < 17 {
			return nil, 0, fmt.Errorf("%w: UUID needs 16 bytes", ErrMalformed)
		}
		var u UUID
		copy(u[:], b[1:17])
		return u, 17, nil
	case code == codeTime:
		if len(b) < 9 {
			return nil, 0, fmt.Errorf("%w: time needs 8 bytes", ErrMalformed)
		}
		ns := int64(binary.BigEndian.Uint64(b[1:]) ^ (1 << 63))
		return time.Unix(0, ns).UTC(), 9, nil
	case code == codeDesc:
		return decodeDesc(b, depth)
	default:
		return nil, 0, fmt.Errorf("%w: unknown type code 0x%02x", ErrMalformed, code)
	}
}

// decodeEscaped reads an escaped, 0x00-terminated byte string and returns it
// with the bytes consumed (terminator included). The result is a fresh
// copy, sized once.
func decodeEscaped(b []byte) ([]byte, int, error) {
	end, escapes := findTerminator(b)
	if end >= 0 {
		out := make([]byte, 0, end-escapes)
		for i := 0; i < end; i++ {
			out = append(out, b[i])
			if b[i] == 0x00 {
				i++ // skip the escape byte
			}
		}
		return out, end + 1, nil
	}
	return nil, 0, fmt.Errorf("%w: string not terminated", ErrMalformed)
}

// findTerminator returns the index of the 0x00 that ends an escaped byte
// string (-1 if there is none) and how many escaped zero bytes precede it.
// It finds each zero byte with bytes.IndexByte, which reads many bytes at
// a time: most strings (ids, names) hold no zero byte, and the first it
// finds is the terminator.
func findTerminator(b []byte) (end, escapes int) {
	at := 0
	for {
		i := bytes.IndexByte(b[at:], 0x00)
		if i < 0 {
			return -1, escapes
		}
		i += at
		if i+1 < len(b) && b[i+1] == escape {
			escapes++
			at = i + 2
			continue
		}
		return i, escapes
	}
}

func decodeInt(b []byte) (any, int, error) {
	code := int(b[0])
	n := code - codeIntZero
	neg := n < 0
	if neg {
		n = -n
	}
	if len(b) < 1+n {
		return nil, 0, fmt.Errorf("%w: integer needs %d bytes", ErrMalformed, n)
	}
	var v uint64
	for _, c := range b[1 : 1+n] {
		v = v<<8 | uint64(c)
	}
	if !neg {
		if v > math.MaxInt64 {
			return v, 1 + n, nil
		}
		return int64(v), 1 + n, nil
	}
	// The one's complement of the magnitude, in n bytes.
	mag := ^v
	if n < 8 {
		mag &= 1<<(8*n) - 1
	}
	if mag > 1<<63 {
		return nil, 0, fmt.Errorf("%w: negative integer below math.MinInt64", ErrIntegerRange)
	}
	return -int64(mag), 1 + n, nil // -(1<<63) wraps to MinInt64, as wanted
}

// decodeDesc undoes appendDesc: un-invert up to the inverted terminator,
// unescape, and decode the inner element.
func decodeDesc(b []byte, depth int) (any, int, error) {
	inner := make([]byte, 0, len(b))
	for i := 1; i < len(b); i++ {
		c := ^b[i]
		if c != 0x00 {
			inner = append(inner, c)
			continue
		}
		if i+1 >= len(b) {
			break
		}
		switch ^b[i+1] {
		case escape:
			inner = append(inner, 0x00)
			i++
		case descTerminal2:
			if len(inner) == 0 {
				return nil, 0, fmt.Errorf("%w: empty descending element", ErrMalformed)
			}
			v, n, err := decodeElement(inner, false, depth+1)
			if err != nil {
				return nil, 0, fmt.Errorf("descending: %w", err)
			}
			if n != len(inner) {
				return nil, 0, fmt.Errorf("%w: trailing bytes in a descending element", ErrMalformed)
			}
			return Desc{V: v}, i + 2, nil
		default:
			return nil, 0, fmt.Errorf("%w: bad escape in a descending element", ErrMalformed)
		}
	}
	return nil, 0, fmt.Errorf("%w: descending element not terminated", ErrMalformed)
}
