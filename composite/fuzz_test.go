package composite

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
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
	for _, s := range []string{"", "CA:San Francisco:42", `a\:b:\42:~7`, "*", "CA:*", "x*", `\`, "@2024-01-01T00\\:00\\:00Z", "0x00ff:null:-1.5e3", `11:\~x:~\42:7:2024-01-01T00\:00\:00Z`, "a::", "a:b:~~~~~~~~~~~~~~~~x"} { // the last: 16 '~' in a descending column
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
		// The same with a schema, through Schema.Format.
		schema := Schema{{Name: "s", Kind: KindString}, {Name: "d", Kind: KindString, Desc: true}, {Name: "a", Kind: KindAny, Desc: true}, {Name: "i", Kind: KindInt}, {Name: "t", Kind: KindTime, Desc: true}}
		tup, err = ParseText(s, schema[:min(len(schema), strings.Count(s, ":")+1)])
		if err != nil {
			return
		}
		if out, err = schema.Format(tup); err != nil {
			t.Fatalf("Format(%#v) from %q: %v", tup, s, err)
		}
		again, err = ParseText(out, schema[:len(tup)])
		if err != nil || !equalTuples(again, tup) {
			t.Fatalf("%q parsed to %#v with a schema, formatted as %q, parsed to %#v, %v", s, tup, out, again, err)
		}
	})
}

// FuzzQueryAgainstFilter: a text query's key range holds exactly the keys
// whose rows the query's meaning selects, on a table whose middle column
// is descending. Rows come from a fuzzed seed, with strings made of
// separators, stars, backslashes, tildes and zero bytes. Queries are the
// fuzzed text and queries built from the rows (exact keys, "state:*" and
// "state:cit*"), whose parses are also checked against the components
// they were built from.
func FuzzQueryAgainstFilter(f *testing.F) {
	f.Add(uint64(1), "a:*")
	f.Add(uint64(2), `\::b*`)
	f.Add(uint64(3), "*")
	f.Add(uint64(4), "a:~b:7")
	f.Fuzz(func(t *testing.T, seed uint64, text string) {
		schema := Schema{{Name: "state", Kind: KindString}, {Name: "city", Kind: KindString, Desc: true}, {Name: "id", Kind: KindInt}}
		sub := NewSubspace("t", "q")
		r := rand.New(rand.NewPCG(seed, 5))
		word := func() string {
			const alphabet = "ab:*\\~\x00é"
			var b strings.Builder
			for range r.IntN(4) {
				b.WriteString(string([]rune(alphabet)[r.IntN(len([]rune(alphabet)))]))
			}
			return b.String()
		}
		rows := make([]Tuple, 1+r.IntN(30))
		for i := range rows {
			rows[i] = Tuple{word(), Desc{V: word()}, int64(r.IntN(5) - 2)}
		}
		escaped := func(s string) string {
			var b strings.Builder
			writeEscaped(&b, s)
			return b.String()
		}
		same := func(a, b any) bool { return bytes.Equal(Tuple{a}.Pack(), Tuple{b}.Pack()) }
		matches := func(row Tuple, q Query) bool {
			if len(row) < len(q.Prefix) || q.Exact && len(row) != len(q.Prefix) {
				return false
			}
			for i, e := range q.Prefix {
				if !same(row[i], e) {
					return false
				}
			}
			if q.Partial == nil {
				return true
			}
			if len(row) == len(q.Prefix) {
				return false
			}
			next := row[len(q.Prefix)]
			if d, ok := next.(Desc); ok == q.PartialDesc && ok {
				next = d.V
			} else if ok != q.PartialDesc {
				return false
			}
			s, ok := next.(string)
			return ok && strings.HasPrefix(s, *q.Partial)
		}
		check := func(text string, q Query) {
			rg := q.Range(sub)
			for _, row := range rows {
				k := sub.Pack(row)
				in := (rg.Start == nil || bytes.Compare(k, rg.Start) >= 0) && (rg.End == nil || bytes.Compare(k, rg.End) < 0)
				if want := matches(row, q); in != want {
					t.Fatalf("query %q (%+v): row %#v in its range %v, selected %v", text, q, row, in, want)
				}
			}
		}
		if q, err := ParseQuery(text, schema); err == nil {
			check(text, q)
		}
		for _, row := range rows {
			state, city := row[0].(string), row[1].(Desc).V.(string)
			cut := r.IntN(len(city) + 1)
			var partial *string // "state:*" when the cut is empty
			if cut > 0 {
				partial = &[]string{city[:cut]}[0]
			}
			for _, b := range []struct {
				text    string
				prefix  Tuple
				partial *string
			}{
				{fmt.Sprintf("%s:%s:%d", escaped(state), escaped(city), row[2]), row, nil},
				{escaped(state) + ":*", row[:1], nil},
				{escaped(state) + ":" + escaped(city[:cut]) + "*", row[:1], partial},
			} {
				q, err := ParseQuery(b.text, schema)
				if err != nil {
					t.Fatalf("query %q built from %#v: %v", b.text, row, err)
				}
				if len(q.Prefix) != len(b.prefix) || !matches(b.prefix, Query{Prefix: q.Prefix, Exact: true}) ||
					(q.Partial == nil) != (b.partial == nil) || b.partial != nil && (*q.Partial != *b.partial || !q.PartialDesc) {
					t.Fatalf("query %q built from %#v parsed to %+v", b.text, row, q)
				}
				check(b.text, q)
			}
		}
	})
}
