package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/keyspacedb/keyspace/indextable"
)

// JSON numbers keep every digit through the command line: records,
// payloads and GeoJSON properties are decoded with json.Number, not
// float64, which holds whole numbers exactly only up to 2^53. A serial of
// 20 digits (12345678901234567891) read as a float64 prints as
// 12345678901234567000, is written back so by table set, and is one
// index value with every other serial that rounds to it (a unique index
// refused the second).

// decodeJSON is json.Unmarshal with numbers decoded as json.Number.
func decodeJSON(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return err
	}
	if len(bytes.TrimSpace(data[d.InputOffset():])) > 0 {
		return errors.New("invalid JSON: more after the value")
	}
	return nil
}

// recordCodec is the tables' codec: marshal's JSON, read back with
// json.Number (decodeJSON).
type recordCodec struct{}

func (recordCodec) Marshal(v any) ([]byte, error)      { return marshal(v) }
func (recordCodec) Unmarshal(data []byte, v any) error { return decodeJSON(data, v) }

var _ indextable.Codec = recordCodec{}

// numberElement is a JSON number as an index value (typedByKind), as the
// same digits in a CSV's text are one: a whole number written without a
// fraction or exponent as the integer it is (plainInteger), exactly; any
// other as its float64 reads (7.0 as 7, as typedByKind reads a float64);
// one past float64's range (1e400), or a whole number past the uint64s,
// as its text.
func numberElement(n json.Number) any {
	s := n.String()
	if whole(s) {
		if i, ok := plainInteger(s); ok {
			return i
		}
		return s
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return s
	}
	x, _ := typedByKind(f)
	return x
}

// plainInteger reads a whole number written plainly, without a leading
// zero (so a ZIP code stays text): the int64 it is (isPlainInt), or past
// MaxInt64 digits alone as the uint64 they are, as composite's text reads
// such digits (so that index lookup's VALUE and --where's find it).
func plainInteger(s string) (any, bool) {
	if !isPlainInt(s) {
		if s != "" && s[0] != '0' && s[0] != '-' && s[0] != '+' {
			if u, err := strconv.ParseUint(s, 10, 64); err == nil {
				return u, true
			}
		}
		return nil, false
	}
	n, _ := strconv.ParseInt(s, 10, 64)
	return n, true
}

// sameJSONValue reports whether two values decoded by decodeJSON are the
// same JSON value: numbers by value (70 and 70.0 are one), objects
// whatever the order of their keys.
func sameJSONValue(x, y any) bool {
	switch x := x.(type) {
	case json.Number:
		y, ok := y.(json.Number)
		return ok && sameNumber(x, y)
	case map[string]any:
		y, ok := y.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if w, has := y[k]; !has || !sameJSONValue(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := y.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameJSONValue(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return x == y // strings, booleans, null
}

// sameNumber reports whether two JSON numbers are the same: written
// alike, or as float64s equal and smaller than 2^53, below which a
// float64 is exact. From 2^53 on, 2^53+1 reads as 2^53, and
// 12345678901234567891 and …892 as one float64; two ways of writing a
// number so large, 1e20 and 100000000000000000000, count as two.
func sameNumber(a, b json.Number) bool {
	if a == b {
		return true
	}
	x, errX := strconv.ParseFloat(a.String(), 64)
	y, errY := strconv.ParseFloat(b.String(), 64)
	return errX == nil && errY == nil && x == y && math.Abs(x) < maxExact
}

// exactCompare compares a number, written as text and read as n, with
// want (its text and value) as integers when both are whole numbers
// written so and either is 2^53 or more, where float64s round (2^53+1
// reads as 2^53); ok is false otherwise, and the float64s compare
// exactly.
func exactCompare(text string, n float64, wantText string, want float64) (c int, ok bool) {
	if math.Abs(n) < maxExact && math.Abs(want) < maxExact {
		return 0, false
	}
	a, okA := new(big.Int).SetString(text, 10)
	b, okB := new(big.Int).SetString(wantText, 10)
	if !okA || !okB {
		return 0, false
	}
	return a.Cmp(b), true
}

// whole reports whether a number's text is a whole number written without
// a fraction or an exponent.
func whole(s string) bool { return !strings.ContainsAny(s, ".eE") }
