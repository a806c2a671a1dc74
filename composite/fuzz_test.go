package composite

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// byteSource feeds the tuple generator from fuzz input, so that the fuzzer's
// mutations steer which elements are built.
// Once the input runs out it continues with a SplitMix64 sequence: a
// constant source would make rand.IntN's rejection sampling loop forever.
type byteSource struct {
	b     []byte
	state uint64
}

func (s *byteSource) Uint64() uint64 {
	if len(s.b) >= 8 {
		v := binary.LittleEndian.Uint64(s.b)
		s.b = s.b[8:]
		return v
	}
	var buf [8]byte
	copy(buf[:], s.b)
	s.b = nil
	s.state += 0x9e3779b97f4a7c15 ^ binary.LittleEndian.Uint64(buf[:])
	z := s.state
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

func tupleFrom(data []byte) Tuple { return genTuple(rand.New(&byteSource{b: data}), 2) }

var fuzzSeeds = [][]byte{
	nil, {0}, {1, 2, 3, 4, 5, 6, 7, 8}, []byte("San Francisco:42"), bytes.Repeat([]byte{0xff}, 40),
	{13, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0}, []byte("\x00\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d"),
}

// FuzzRoundTrip: Unpack(Pack(t)) == t, and every prefix of t packs to a
// byte prefix of Pack(t).
func FuzzRoundTrip(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tup := tupleFrom(data)
		checkRoundTrip(t, tup)
		checkPrefix(t, tup)
	})
}

// FuzzOrder: byte order of encodings equals the tuple order of the oracle.
func FuzzOrder(f *testing.F) {
	for i, a := range fuzzSeeds {
		f.Add(a, fuzzSeeds[(i+1)%len(fuzzSeeds)])
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		checkOrder(t, tupleFrom(a), tupleFrom(b))
	})
}

// FuzzUnpack: arbitrary bytes never panic; whatever decodes packs again to
// something that decodes to the same tuple.
func FuzzUnpack(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
		f.Add(tupleFrom(s).Pack())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tup, err := Unpack(data)
		if err != nil {
			return
		}
		again, err := Unpack(tup.Pack())
		if err != nil || !equalTuples(again, tup) {
			t.Fatalf("Unpack(%q) = %#v, repacked and unpacked to %#v, %v", data, tup, again, err)
		}
		checkElements(t, data, tup)
	})
}

// checkElements: NextElement walks data element by element, each element
// unpacks to the matching element of tup, and UnpackString and
// AppendUnpackedString agree with Unpack on strings.
func checkElements(t *testing.T, data []byte, tup Tuple) {
	t.Helper()
	rest := data
	for i := range tup {
		elem, r, err := NextElement(rest)
		if err != nil {
			t.Fatalf("NextElement at element %d of %q: %v", i, data, err)
		}
		one, err := Unpack(elem)
		if err != nil || !equalTuples(one, tup[i:i+1]) {
			t.Fatalf("element %d of %q is %q, unpacks to %#v (%v), want %#v", i, data, elem, one, err, tup[i])
		}
		s, err := UnpackString(elem)
		want, isString := tup[i].(string)
		if isString != (err == nil) || s != want {
			t.Fatalf("UnpackString(%q) = %q, %v; element is %#v", elem, s, err, tup[i])
		}
		// AppendUnpackedString, reading elem and what follows it, agrees
		// with UnpackString, keeps what dst held and hands back the rest.
		got, after, err := AppendUnpackedString([]byte("dst"), rest)
		if isString != (err == nil) || (isString && (string(got) != "dst"+want || len(after) != len(r))) || (!isString && string(got) != "dst") {
			t.Fatalf("AppendUnpackedString(dst, %q) = %q, %d bytes after, %v; element is %#v", rest, got, len(after), err, tup[i])
		}
		if isString && string(AppendString(nil, want)) != string(Tuple{want}.Pack()) {
			t.Fatalf("AppendString(%q) = %q, Pack %q", want, AppendString(nil, want), Tuple{want}.Pack())
		}
		// Compared with Pack, not with elem: Unpack accepts non-canonical
		// integers, such as zero written as a negative (13 FF).
		if u, isUint := tup[i].(uint64); isUint && string(AppendUint(nil, u)) != string(Tuple{u}.Pack()) {
			t.Fatalf("AppendUint(%d) = %q, Pack %q", u, AppendUint(nil, u), Tuple{u}.Pack())
		}
		if n, isInt := tup[i].(int64); isInt && n >= 0 && string(AppendUint(nil, uint64(n))) != string(Tuple{n}.Pack()) {
			t.Fatalf("AppendUint(%d) = %q, Pack %q", n, AppendUint(nil, uint64(n)), Tuple{n}.Pack())
		}
		rest = r
	}
	if len(rest) != 0 {
		t.Fatalf("%q: %d bytes left after %d elements", data, len(rest), len(tup))
	}
}

// FuzzText: text input never panics; whatever parses formats to text that
// parses to the same tuple.
func FuzzText(f *testing.F) {
	for _, s := range []string{"", "CA:San Francisco:42", `a\:b:\42:~7`, "*", "CA:*", "x*", `\`, "@2024-01-01T00\\:00\\:00Z", "0x00ff:null:-1.5e3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if q, err := ParseQuery(s, nil); err == nil {
			_ = q.Range(NewSubspace("t"))
		}
		tup, err := ParseText(s, nil)
		if err != nil {
			return
		}
		out, err := FormatText(tup)
		if err != nil {
			t.Fatalf("FormatText(%#v) from %q: %v", tup, s, err)
		}
		again, err := ParseText(out, nil)
		if err != nil || !equalTuples(again, tup) {
			t.Fatalf("%q parsed to %#v, formatted as %q, parsed to %#v, %v", s, tup, out, again, err)
		}
	})
}
