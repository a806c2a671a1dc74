package cli

import (
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// An aggregate is table count --of's figures for one group: how many of
// its rows hold a number in the field, and their sum, least, greatest
// and mean (SQL's COUNT(f), SUM, MIN, MAX and AVG). A number is a JSON
// number, or text that reads as one (a CSV's "542107"); anything else
// (text, true, an array, no field) is passed over, as SQL passes over
// NULL. Whole numbers written without a fraction or exponent sum
// exactly, as integers of any size; once a number with a fraction or an
// exponent joins them, the sum is a float64.
type aggregate struct {
	numbers  int
	whole    *big.Int // the sum while every number is whole
	float    float64  // the sum once one is not (whole is then nil)
	min, max fieldNumber
}

// fieldNumber is a field's number: its text as written and its float64.
type fieldNumber struct {
	text  string
	value float64
}

// numberIn reads v as a number, when it is a finite one.
func numberIn(v any) (fieldNumber, bool) {
	var text string
	switch v := v.(type) {
	case json.Number:
		text = v.String()
	case string:
		text = strings.TrimSpace(v)
	default:
		return fieldNumber{}, false
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return fieldNumber{}, false
	}
	return fieldNumber{text, f}, true
}

// add counts v into a when it is a number.
func (a *aggregate) add(v any) {
	n, ok := numberIn(v)
	if !ok {
		return
	}
	if a.numbers == 0 {
		a.whole, a.min, a.max = new(big.Int), n, n
	} else {
		if n.less(a.min) {
			a.min = n
		}
		if a.max.less(n) {
			a.max = n
		}
	}
	a.numbers++
	if a.whole != nil {
		if i, ok := new(big.Int).SetString(n.text, 10); ok {
			a.whole.Add(a.whole, i)
			return
		}
		a.float, _ = new(big.Float).SetInt(a.whole).Float64()
		a.whole = nil
	}
	a.float += n.value
}

// less compares two numbers by value: exactly, as integers, when both
// are whole and either is 2^53 or more (exactCompare), else as float64s.
func (n fieldNumber) less(m fieldNumber) bool {
	if c, exact := exactCompare(n.text, n.value, m.text, m.value); exact {
		return c < 0
	}
	return n.value < m.value
}

// json is n as written when that is a JSON number, else as its float64
// (a CSV's "07" as 7).
func (n fieldNumber) json() json.Number {
	if isJSONNumber(n.text) {
		return json.Number(n.text)
	}
	return floatNumber(n.value)
}

// sum is the sum as JSON writes it: every digit of a whole sum.
func (a *aggregate) sum() json.Number {
	if a.whole != nil {
		return json.Number(a.whole.String())
	}
	return floatNumber(a.float)
}

// mean is the sum over the numbers, as a float64.
func (a *aggregate) mean() json.Number {
	if a.whole != nil {
		q, _ := new(big.Rat).SetFrac(a.whole, big.NewInt(int64(a.numbers))).Float64()
		return floatNumber(q)
	}
	return floatNumber(a.float / float64(a.numbers))
}

// floatNumber is f as encoding/json writes a float64.
func floatNumber(f float64) json.Number {
	b, _ := json.Marshal(f)
	return json.Number(b)
}

// aggregateJSON is an aggregate in table count --of's JSON: rows, and
// numbers with sum, min, mean and max when any row held one.
type aggregateJSON struct {
	Rows    int          `json:"rows"`
	Numbers int          `json:"numbers"`
	Sum     *json.Number `json:"sum,omitempty"`
	Min     *json.Number `json:"min,omitempty"`
	Mean    *json.Number `json:"mean,omitempty"`
	Max     *json.Number `json:"max,omitempty"`
}

// json is g's aggregate as table count --of writes it.
func (a *aggregate) json(rows int) aggregateJSON {
	out := aggregateJSON{Rows: rows, Numbers: a.numbers}
	if a.numbers > 0 {
		sum, mean := a.sum(), a.mean()
		lo, hi := a.min.json(), a.max.json()
		out.Sum, out.Min, out.Mean, out.Max = &sum, &lo, &mean, &hi
	}
	return out
}
