package composite

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func TestTextRoundTrip(t *testing.T) {
	u := UUID{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 1, 2, 3, 4, 5, 6, 7, 8}
	cases := []Tuple{
		{"CA", "San Francisco", int64(42)},
		{"A:B", "x*y", `back\slash`, "", "end"},
		{"42", "-7", "0", "1.5", "Inf", "NaN", "null", "true", "false", "~x", "@2024-01-01T00:00:00Z", "0x00ff"},
		{"02134", "007", "-0", "1e5x", "@not a time"},
		{int64(-7), int64(math.MinInt64), uint64(math.MaxUint64), 1.5, -2.0, math.Inf(-1), 1e300},
		{nil, true, false, []byte{0, 1, 0xff}, []byte{}, u},
		{time.Date(2024, 3, 10, 2, 30, 0, 123, time.UTC)},
		{Desc{"CA"}, Desc{int64(5)}, Desc{Desc{"z"}}},
		{Desc{"42"}, Desc{"null"}, Desc{"~x"}, Desc{Desc{"7"}}, Desc{nil}, Desc{"0x00"}},
		{"Ashkāsham", "日本", "Sidi Senoussi سيدي سنوسي", "Ituʻau"},
	}
	for _, tc := range cases {
		s, err := FormatText(tc)
		if err != nil {
			t.Fatalf("FormatText(%#v): %v", tc, err)
		}
		got, err := ParseText(s, nil)
		if err != nil {
			t.Fatalf("ParseText(%q): %v", s, err)
		}
		if !equalTuples(got, tc) {
			t.Errorf("round trip of %#v through %q gave %#v", tc, s, got)
		}
	}
}

func TestTextWithSchema(t *testing.T) {
	schema := Schema{{Name: "zip", Kind: KindString}, {Name: "id", Kind: KindInt}, {Name: "when", Kind: KindTime, Desc: true}, {Name: "w", Kind: KindFloat32}}
	got, err := ParseText(`02134:42:2024-01-01T00\:00\:00Z:1.5`, schema)
	if err != nil {
		t.Fatal(err)
	}
	want := Tuple{"02134", int64(42), Desc{time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}, float32(1.5)}
	if !equalTuples(got, want) {
		t.Errorf("got %#v, want %#v", got, want)
	}
	for _, bad := range []string{"a:notanumber", "a:1:yesterday", "a:1:2024-01-01T00\\:00\\:00Z:x", "a:1:2:3:4"} {
		if _, err := ParseText(bad, schema); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseText(%q) = %v, want ErrSyntax", bad, err)
		}
	}
}

func TestTextSyntaxErrors(t *testing.T) {
	for _, bad := range []string{`abc\`, "a*b", "CA:*:x", "CA*"} {
		if _, err := ParseText(bad, nil); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseText(%q) = %v, want ErrSyntax", bad, err)
		}
	}
	if _, err := ParseQuery("a:1*", Schema{{Name: "s", Kind: KindString}, {Name: "n", Kind: KindInt}}); !errors.Is(err, ErrSyntax) {
		t.Errorf("prefix query on an int column = %v, want ErrSyntax", err)
	}
	if _, err := FormatText(Tuple{Tuple{"nested"}}); !errors.Is(err, ErrUnsupportedType) {
		t.Errorf("FormatText(nested) = %v, want ErrUnsupportedType", err)
	}
}

// Random tuples without nested elements round-trip through text.
func TestTextRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 5000; i++ {
		tup := genTuple(r, 0)
		tup = flatForText(tup)
		s, err := FormatText(tup)
		if err != nil {
			t.Fatalf("FormatText(%#v): %v", tup, err)
		}
		got, err := ParseText(s, nil)
		if err != nil {
			t.Fatalf("ParseText(%q): %v", s, err)
		}
		if !equalTuples(got, tup) {
			t.Fatalf("text round trip of %#v through %q gave %#v", tup, s, got)
		}
	}
}

// flatForText drops what the text form cannot carry: nested tuples, a lone
// empty string, float32 (read back as float64) and sub-nanosecond details.
func flatForText(t Tuple) Tuple {
	var out Tuple
	for _, e := range t {
		switch v := e.(type) {
		case Tuple:
			continue
		case float32:
			e = canonicalNaN(float64(v))
		case float64:
			e = canonicalNaN(v)
		case Desc:
			switch w := v.V.(type) {
			case Tuple:
				continue
			case float32:
				e = Desc{canonicalNaN(float64(w))}
			case float64:
				e = Desc{canonicalNaN(w)}
			}
		}
		out = append(out, e)
	}
	if len(out) == 1 && out[0] == "" {
		return nil
	}
	return out
}

// canonicalNaN keeps a NaN's sign and drops its payload, as the text form
// does.
func canonicalNaN(f float64) float64 {
	if math.IsNaN(f) {
		return math.Copysign(math.NaN(), map[bool]float64{true: -1, false: 1}[math.Signbit(f)])
	}
	return f
}

// TestSchemaFormat: with a schema, strings in string columns need no
// escape for looking like numbers, descending columns take no '~', and
// elements the column cannot read back are refused.
func TestSchemaFormat(t *testing.T) {
	schema := Schema{{Name: "state", Kind: KindString}, {Name: "city", Kind: KindString, Desc: true}, {Name: "id", Kind: KindInt}, {Name: "any", Kind: KindAny, Desc: true}}
	for _, tc := range []struct {
		tup  Tuple
		want string
	}{
		{Tuple{"11", Desc{"null"}, int64(7), Desc{"42"}}, `11:null:7:\42`},
		{Tuple{"a:b*", Desc{`~\`}, int64(-1), Desc{Desc{int64(3)}}}, `a\:b\*:~\\:-1:~3`},
		{Tuple{"", Desc{""}}, ":"},
		{Tuple{"x", Desc{"y"}, int64(1), Desc{nil}}, "x:y:1:null"},
	} {
		got, err := schema.Format(tc.tup)
		if err != nil || got != tc.want {
			t.Errorf("Format(%#v) = %q, %v; want %q", tc.tup, got, err, tc.want)
			continue
		}
		if back, err := ParseText(got, schema[:len(tc.tup)]); err != nil || !equalTuples(back, tc.tup) {
			t.Errorf("%q read back as %#v, want %#v", got, back, tc.tup)
		}
	}
	for _, bad := range []Tuple{{int64(11)}, {"CA", "Fresno"}, {Desc{"CA"}}, {nil}, {"CA", Desc{"x"}, "7"}, {"CA", Desc{"x"}, int64(7), "not desc"}, {Tuple{"nested"}}} {
		if s, err := schema.Format(bad); !errors.Is(err, ErrUnsupportedType) {
			t.Errorf("Format(%#v) = %q, %v; want ErrUnsupportedType", bad, s, err)
		}
	}
	if s, err := schema.Format(Tuple{"x", Desc{"y"}, int64(1), Desc{nil}, "past the schema"}); !errors.Is(err, ErrKeyShape) {
		t.Errorf("Format of five elements with four columns = %q, %v; want ErrKeyShape", s, err)
	}
}

// Random tuples fitting random schemas round-trip through Format and
// ParseText with the schema.
func TestSchemaFormatRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 5000 {
		checkSchemaFormat(t, r)
	}
}

// checkSchemaFormat makes a random schema and a tuple that fits it, and
// checks that ParseText(Format(tuple), schema) is the tuple.
func checkSchemaFormat(t *testing.T, r *rand.Rand) {
	t.Helper()
	kinds := []Kind{KindAny, KindString, KindBytes, KindInt, KindUint, KindFloat32, KindFloat64, KindBool, KindUUID, KindTime}
	schema := make(Schema, 1+r.IntN(4))
	tup := make(Tuple, len(schema))
	for i := range schema {
		schema[i] = Column{Name: fmt.Sprint("c", i), Kind: kinds[r.IntN(len(kinds))], Desc: r.IntN(3) == 0}
		for {
			e := genElement(r, 1)
			flat := flatForText(Tuple{e})
			if len(flat) != 1 || schema[i].Kind != KindAny && !kindMatches(schema[i].Kind, e) {
				continue
			}
			if schema[i].Kind == KindAny {
				e = flat[0] // float32 reads back as float64
			}
			if f, ok := e.(float32); ok {
				e = float32(canonicalNaN(float64(f)))
			}
			if f, ok := e.(float64); ok {
				e = canonicalNaN(f)
			}
			if schema[i].Desc {
				e = Desc{V: e}
			}
			tup[i] = e
			break
		}
	}
	s, err := schema.Format(tup)
	if err != nil {
		t.Fatalf("Format(%#v) with %v: %v", tup, schema, err)
	}
	if s == "" {
		return // one empty string: the empty text is the empty tuple
	}
	back, err := ParseText(s, schema)
	if err != nil || !equalTuples(back, tup) {
		t.Fatalf("%#v with %v formatted as %q, read back as %#v, %v", tup, schema, s, back, err)
	}
}

// TestParseKindRoundTrip: every kind's name reads back as that kind, and
// a name that is no kind's (or a kind's in another case) is ErrSyntax,
// naming it.
func TestParseKindRoundTrip(t *testing.T) {
	for _, k := range []Kind{KindAny, KindString, KindBytes, KindInt, KindUint, KindFloat32, KindFloat64, KindBool, KindUUID, KindTime} {
		if got, err := ParseKind(k.String()); err != nil || got != k {
			t.Errorf("ParseKind(%q) = %v, %v; want %v", k.String(), got, err, k)
		}
	}
	for _, bad := range []string{"", "float64", "Int", "Kind(3)", "strings"} {
		if k, err := ParseKind(bad); !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), fmt.Sprintf("%q", bad)) {
			t.Errorf("ParseKind(%q) = %v, %v; want ErrSyntax naming it", bad, k, err)
		}
	}
}
