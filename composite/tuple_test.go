package composite

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The test cases published in FoundationDB's design/tuple.md.
func TestSpecVectors(t *testing.T) {
	cases := []struct {
		t    Tuple
		want string
	}{
		{Tuple{[]byte("foo\x00bar")}, "\x01foo\x00\xffbar\x00"},
		{Tuple{"F\u00d4O\u0000bar"}, "\x02F\xc3\x94O\x00\xffbar\x00"},
		{Tuple{Tuple{[]byte("foo\x00bar"), nil, Tuple{}}}, "\x05\x01foo\x00\xffbar\x00\x00\xff\x05\x00\x00"},
		{Tuple{-5551212}, "\x11\xabK\x93"},
		{Tuple{float32(-42)}, "\x20\x3d\xd7\xff\xff"},
		{Tuple{-1}, "\x13\xfe"},
		{Tuple{0}, "\x14"},
		{Tuple{nil}, "\x00"},
		{Tuple{Tuple{}}, "\x05\x00"},
		{Tuple{Tuple{nil}}, "\x05\x00\xff\x00"},
		{Tuple{false, true}, "\x26\x27"},
		{Tuple{uint64(math.MaxUint64)}, "\x1c\xff\xff\xff\xff\xff\xff\xff\xff"},
		{Tuple{int64(math.MinInt64)}, "\x0c\x7f\xff\xff\xff\xff\xff\xff\xff"},
	}
	for _, c := range cases {
		if got := c.t.Pack(); string(got) != c.want {
			t.Errorf("Pack(%#v) = %q, want %q", c.t, got, c.want)
		}
	}
}

// compareTuples is the test oracle: the tuple order defined by the spec,
// computed on Go values (not on bytes). Types order by their type code; within
// a type, the natural order of the values.
func compareTuples(a, b Tuple) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := compareElements(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmpInt(len(a), len(b))
}

func typeRank(e any) int {
	switch e.(type) {
	case nil:
		return 0
	case []byte:
		return 1
	case string:
		return 2
	case Tuple:
		return 5
	case int64, uint64:
		return 20
	case float32:
		return 32
	case float64:
		return 33
	case bool:
		return 38
	case UUID:
		return 48
	case time.Time:
		return 64
	case Desc:
		return 65
	}
	panic(fmt.Sprintf("no rank for %T", e))
}

func compareElements(a, b any) int {
	if ra, rb := typeRank(a), typeRank(b); ra != rb {
		return cmpInt(ra, rb)
	}
	switch x := a.(type) {
	case nil:
		return 0
	case []byte:
		return bytes.Compare(x, b.([]byte))
	case string:
		return bytes.Compare([]byte(x), []byte(b.(string)))
	case Tuple:
		return compareTuples(x, b.(Tuple))
	case int64, uint64:
		return compareIntegers(x, b)
	case float32:
		return compareFloat(float64(x), float64(b.(float32)), math.Signbit(float64(x)), math.Signbit(float64(b.(float32))))
	case float64:
		y := b.(float64)
		return compareFloat(x, y, math.Signbit(x), math.Signbit(y))
	case bool:
		y := b.(bool)
		if x == y {
			return 0
		}
		if !x {
			return -1
		}
		return 1
	case UUID:
		y := b.(UUID)
		return bytes.Compare(x[:], y[:])
	case time.Time:
		return x.Compare(b.(time.Time))
	case Desc:
		return -compareElements(x.V, b.(Desc).V)
	}
	panic("unreachable")
}

func compareIntegers(a, b any) int {
	neg := func(v any) bool { i, ok := v.(int64); return ok && i < 0 }
	switch {
	case neg(a) && neg(b):
		return cmpInt(a.(int64), b.(int64))
	case neg(a):
		return -1
	case neg(b):
		return 1
	}
	u := func(v any) uint64 {
		if i, ok := v.(int64); ok {
			return uint64(i)
		}
		return v.(uint64)
	}
	return cmpInt(u(a), u(b))
}

// compareFloat is IEEE total order, for the generator's values (which
// include ±0, ±Inf and NaNs of both signs but only canonical payloads).
func compareFloat(x, y float64, sx, sy bool) int {
	nx, ny := math.IsNaN(x), math.IsNaN(y)
	switch {
	case nx && ny:
		return cmpBool(sy, sx) // -NaN < +NaN
	case nx:
		if sx {
			return -1
		}
		return 1
	case ny:
		if sy {
			return 1
		}
		return -1
	case x == y && x == 0:
		return cmpBool(sy, sx) // -0 < +0
	}
	return cmpInt(x, y)
}

func cmpBool(a, b bool) int { // false < true
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

func cmpInt[T int | int64 | uint64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// genTuple builds a tuple from a random source; used by the property tests
// and, fed from fuzz bytes, by the fuzz targets. Elements are in the form
// Unpack returns, so that round trips compare with reflect.DeepEqual.
func genTuple(r *rand.Rand, depth int) Tuple {
	n := r.IntN(5)
	t := make(Tuple, n)
	for i := range t {
		t[i] = genElement(r, depth)
	}
	return t
}

var interestingInts = []int64{0, 1, -1, 255, 256, -255, -256, -257, 65535, 65536, math.MaxInt64, math.MinInt64, math.MinInt64 + 1, 1 << 40, -(1 << 40)}
var interestingFloats = []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, math.Inf(1), math.Inf(-1), math.NaN(), math.Copysign(math.NaN(), -1), math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, 1e-300}
var interestingStrings = []string{"", "\x00", "\x00\xff", "\xff", "a", "a\x00", "a\x00b", "ab", "a:b", "a*", "\\", "é", "日本語", "\x01",
	"42", "-7", "1.5", "null", "true", "~x", "0x00ff", "Inf", "@2024-01-01T00:00:00Z"} // the last read as other types in text form

func genElement(r *rand.Rand, depth int) any {
	switch k := r.IntN(14); k {
	case 0:
		return nil
	case 1:
		return []byte(interestingStrings[r.IntN(len(interestingStrings))])
	case 2:
		return interestingStrings[r.IntN(len(interestingStrings))]
	case 3:
		b := make([]byte, r.IntN(4))
		for i := range b {
			b[i] = byte(r.IntN(3)) * 0x7F // 0x00, 0x7f, 0xfe
		}
		return string(b)
	case 4:
		if depth > 0 {
			return genTuple(r, depth-1)
		}
		return Tuple{}
	case 5:
		return interestingInts[r.IntN(len(interestingInts))]
	case 6:
		return int64(r.Uint64()) >> r.IntN(64)
	case 7:
		return r.Uint64()>>r.IntN(2) | 1<<63 // above MaxInt64: stays uint64
	case 8:
		return interestingFloats[r.IntN(len(interestingFloats))]
	case 9:
		return float32(interestingFloats[r.IntN(len(interestingFloats))])
	case 10:
		return r.IntN(2) == 0
	case 11:
		var u UUID
		for i := range u {
			u[i] = byte(r.IntN(3)) * 0x7F
		}
		return u
	case 12:
		return time.Unix(0, int64(r.Uint64())>>r.IntN(64)).UTC()
	default:
		if depth > 0 {
			return Desc{V: genElement(r, depth-1)}
		}
		return Desc{V: interestingStrings[r.IntN(len(interestingStrings))]}
	}
}

// equalTuples is reflect.DeepEqual, except that NaNs with the same bits are
// equal.
func equalTuples(a, b Tuple) bool {
	return bytes.Equal(a.Pack(), b.Pack()) && reflect.DeepEqual(normNaN(a), normNaN(b))
}

func normNaN(t Tuple) Tuple {
	out := make(Tuple, len(t))
	for i, e := range t {
		switch v := e.(type) {
		case float64:
			if math.IsNaN(v) {
				e = fmt.Sprintf("NaN%x", math.Float64bits(v))
			}
		case float32:
			if v != v {
				e = fmt.Sprintf("NaN32%x", math.Float32bits(v))
			}
		case Tuple:
			e = normNaN(v)
		case Desc:
			e = Desc{normNaN(Tuple{v.V})[0]}
		}
		out[i] = e
	}
	return out
}

func TestPropertiesRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for i := 0; i < 20000; i++ {
		a, b := genTuple(r, 2), genTuple(r, 2)
		checkRoundTrip(t, a)
		checkOrder(t, a, b)
		checkPrefix(t, a)
	}
}

func checkRoundTrip(t *testing.T, a Tuple) {
	t.Helper()
	packed := a.Pack()
	got, err := Unpack(packed)
	if err != nil {
		t.Fatalf("Unpack(Pack(%#v)) error: %v", a, err)
	}
	if !equalTuples(got, a) {
		t.Fatalf("round trip: %#v became %#v", a, got)
	}
}

func checkOrder(t *testing.T, a, b Tuple) {
	t.Helper()
	want := compareTuples(a, b)
	if got := bytes.Compare(a.Pack(), b.Pack()); got != want {
		t.Fatalf("order of\n %#v\n %#v\nbytes say %d, tuple order %d\n %q\n %q", a, b, got, want, a.Pack(), b.Pack())
	}
}

func checkPrefix(t *testing.T, a Tuple) {
	t.Helper()
	full := a.Pack()
	for i := 0; i <= len(a); i++ {
		if p := a[:i].Pack(); !bytes.HasPrefix(full, p) {
			t.Fatalf("Pack(%#v[:%d]) = %q is not a prefix of %q", a, i, p, full)
		}
	}
}

func TestEdgeValuesOrder(t *testing.T) {
	// Every pair from a table of awkward values, each alone and followed by
	// a second element, must sort by the oracle.
	var elems []any
	for _, s := range interestingStrings {
		elems = append(elems, s, []byte(s), Desc{s})
	}
	for _, i := range interestingInts {
		elems = append(elems, i, Desc{i})
	}
	for _, f := range interestingFloats {
		elems = append(elems, f, float32(f), Desc{f})
	}
	elems = append(elems, nil, true, false, Tuple{}, Tuple{nil}, Tuple{""}, Tuple{"a", nil}, uint64(math.MaxUint64),
		time.Unix(0, 0).UTC(), time.Unix(-1, 0).UTC(), Desc{Tuple{"a"}}, Desc{Tuple{"a", "b"}}, Desc{Desc{"x"}})
	for _, a := range elems {
		for _, b := range elems {
			for _, tail := range []Tuple{{}, {"z"}, {nil}, {Desc{""}}} {
				ta := append(Tuple{a}, tail...)
				checkOrder(t, ta, Tuple{b})
				checkOrder(t, ta, append(Tuple{b}, tail...))
			}
		}
		checkRoundTrip(t, Tuple{a})
	}
}

func TestPackErrors(t *testing.T) {
	type custom struct{}
	for _, bad := range []Tuple{{custom{}}, {"ok", map[string]int{}}, {Tuple{complex(1, 2)}}, {Desc{struct{}{}}}, {time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)}} {
		if _, err := bad.TryPack(); err == nil {
			t.Errorf("TryPack(%#v) succeeded", bad)
		}
	}
	if _, err := (Tuple{struct{}{}}).TryPack(); !errors.Is(err, ErrUnsupportedType) {
		t.Errorf("TryPack(struct) = %v, want ErrUnsupportedType", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("Pack of an unsupported type did not panic")
		}
	}()
	Tuple{struct{}{}}.Pack()
}

func TestUnpackMalformed(t *testing.T) {
	for _, b := range []string{
		"\x01abc",                              // unterminated bytes
		"\x02",                                 // unterminated string
		"\x05\x01a\x00",                        // unterminated nested
		"\x05\x00\x00",                         // hmm: nested () then null -- valid, checked below
		"\x15",                                 // int missing its byte
		"\x1c\x01",                             // int missing bytes
		"\x20\x00",                             // short float32
		"\x21\x00\x00",                         // short float64
		"\x30\x00",                             // short UUID
		"\x40\x00",                             // short time
		"\x41\xfd",                             // unterminated desc
		"\x41\xff\xfe",                         // empty desc
		"\x03",                                 // deprecated code
		"\xff",                                 // the escape is never a type code
		"\x1d\x09\x01",                         // big integer
		"\x0c\x00\x00\x00\x00\x00\x00\x00\x00", // below MinInt64
	} {
		got, err := Unpack([]byte(b))
		if b == "\x05\x00\x00" {
			if err != nil || len(got) != 2 {
				t.Errorf("Unpack(%q) = %#v, %v; want ((), nil)", b, got, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("Unpack(%q) = %#v, want an error", b, got)
		}
	}
}

// TestNextElement: every kind of element, zero bytes and separators in
// strings, and the errors for truncated or foreign input.
func TestNextElement(t *testing.T) {
	tup := Tuple{nil, []byte{0, 1, 0xff}, "a\x00b:c", "", Tuple{"x", nil, int64(3)}, int64(-70000), uint64(1 << 63),
		int64(0), float32(1.5), 2.25, false, true, UUID{1, 2, 3}, time.Unix(5, 6).UTC(), Desc{"z"}}
	checkElements(t, tup.Pack(), tup)
	for _, bad := range [][]byte{{}, {codeString, 'a'}, {codeIntZero + 3, 1}, {codeFloat64, 1, 2}, {0xff}} {
		if _, _, err := NextElement(bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("NextElement(%q) = %v, want ErrMalformed", bad, err)
		}
	}
	for _, bad := range [][]byte{{codeString, 'a', 0, 0}, {codeBytes, 'a', 0}, {codeString}, {codeString, 'a', 0, 0xff}} {
		if s, err := UnpackString(bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("UnpackString(%q) = %q, %v, want ErrMalformed", bad, s, err)
		}
	}
	for _, bad := range [][]byte{{codeString, 'a'}, {codeBytes, 'a', 0}, {codeString}, {}} {
		if got, _, err := AppendUnpackedString([]byte("x"), bad); !errors.Is(err, ErrMalformed) || string(got) != "x" {
			t.Errorf("AppendUnpackedString(x, %q) = %q, %v, want x and ErrMalformed", bad, got, err)
		}
	}
}

// TestNestingLimit: MaxNesting levels of nested tuples or descending
// elements pack, unpack and parse; one more is an error everywhere, and
// packing a thousand '~' finishes at once (it once grew without bound).
func TestNestingLimit(t *testing.T) {
	deep := func(levels int, wrap func(any) any) any {
		var e any = int64(4)
		for range levels {
			e = wrap(e)
		}
		return e
	}
	for name, wrap := range map[string]func(any) any{
		"desc":  func(e any) any { return Desc{V: e} },
		"tuple": func(e any) any { return Tuple{e, nil} },
		"mixed": func(e any) any { return Desc{V: Tuple{e}} },
	} {
		levels := MaxNesting
		if name == "mixed" {
			levels /= 2
		}
		ok := Tuple{deep(levels, wrap)}
		b, err := ok.TryPack()
		if err != nil {
			t.Fatalf("%s: %d levels: %v", name, levels, err)
		}
		back, err := Unpack(b)
		if err != nil || !equalTuples(back, ok) {
			t.Fatalf("%s: %d levels round trip: %v", name, levels, err)
		}
		if _, err := (Tuple{wrap(deep(levels, wrap))}).TryPack(); !errors.Is(err, ErrTooDeep) {
			t.Errorf("%s: %d levels packed: %v", name, levels+1, err)
		}
	}
	// Bytes nested one level too deep: 17 nested-tuple codes.
	var b []byte
	for range MaxNesting + 1 {
		b = append(b, codeNested)
	}
	for range MaxNesting + 1 {
		b = append(b, 0x00)
	}
	if _, err := Unpack(b); !errors.Is(err, ErrMalformed) || !errors.Is(err, ErrTooDeep) {
		t.Errorf("Unpack of %d nested tuples: %v", MaxNesting+1, err)
	}
	if _, err := ParseText(strings.Repeat("~", MaxNesting)+"4", nil); err != nil {
		t.Errorf("%d '~': %v", MaxNesting, err)
	}
	if _, err := ParseText(strings.Repeat("~", 1000)+"4", nil); !errors.Is(err, ErrSyntax) || !errors.Is(err, ErrTooDeep) {
		t.Errorf("1000 '~': %v", err)
	}
}
