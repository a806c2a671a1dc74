package cli

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
)

// A numberRange is the numbers a field's conditions allow it: from lo to
// hi, both included (±Inf for an open end), with the conditions as
// --explain prints them. It narrows a plan's reading of an index to the
// entries that can hold such a number (scanPlan.numberRanges); the
// conditions themselves still test every row read, so a bound need not
// be exact, only never leave out a row they hold for: > 3 reads from 3.
type numberRange struct {
	lo, hi float64
	text   []string
}

// numberRanges are the ranges the conditions give each field they hold
// only for numbers in: <, <=, > and >=; = a number (7, 7.0 and "7" are
// equal: numbers compare as numbers); and --where-in of numbers alone,
// from the least to the greatest of them. Two conditions on a field
// allow what both allow. A NaN, which no number equals or compares
// with, narrows nothing.
func numberRanges(conds []condition) map[string]*numberRange {
	out := map[string]*numberRange{}
	for _, cond := range conds {
		lo, hi, ok := math.Inf(-1), math.Inf(1), true
		switch cond.op {
		case "<", "<=":
			hi = cond.number
		case ">", ">=":
			lo = cond.number
		case "=":
			lo, ok = numeric(cond.value)
			hi = lo
		case "in":
			lo, hi = math.Inf(1), math.Inf(-1)
			for _, v := range cond.values {
				n, isNumber := numeric(v)
				ok = ok && isNumber
				lo, hi = min(lo, n), max(hi, n)
			}
		default:
			ok = false
		}
		if !ok || math.IsNaN(lo) || math.IsNaN(hi) {
			continue
		}
		r := out[cond.field]
		if r == nil {
			r = &numberRange{lo: math.Inf(-1), hi: math.Inf(1)}
			out[cond.field] = r
		}
		r.lo, r.hi = max(r.lo, lo), min(r.hi, hi)
		r.text = append(r.text, cond.text())
	}
	return out
}

// numeric is the number an = or --where-in value is, when it reads as
// one (condition.test compares it as a number then).
func numeric(v string) (float64, bool) {
	n, err := strconv.ParseFloat(v, 64)
	return n, err == nil
}

// text is the condition as --where or --where-in wrote it.
func (cond condition) text() string {
	if cond.op == "in" {
		return cond.field + " in " + strings.Join(cond.values, ",")
	}
	return cond.field + cond.op + cond.value
}

// numberRanges are the ranges of the plan's index, under one of its
// values (the fixed leading fields), whose next field may hold a number
// in the plan's range. An index keeps a field's value as typed makes it,
// so a number the conditions compare lies in one of three parts of the
// entries under the value, each read as a range:
//
//   - whole numbers, as int64: a JSON number with no fraction, or text of
//     a plain integer ("42", "-7", "+7"), in an index from before
//     numbers were ordered; in one since, only those past 2^53
//     (orderNumber); and past MaxInt64, up to MaxUint64, as uint64
//     (plainInteger), which the tuple encoding sorts after the int64s;
//   - other numbers, as float64: JSON numbers with a fraction, and text
//     with a point or an exponent that reads as a number ("7.0", "1e3"),
//     and in an index whose numbers are ordered every other number;
//   - text, for the rest that still reads as a number ("07", "Inf",
//     "0x1p3"): only text that starts as strconv.ParseFloat's numbers
//     can (a sign, a point, a digit, or the I of Inf in either case),
//     entries that do not read as a number passed over
//     (readsAsNumber) before their rows are read.
//
// The conditions compare a field's float64, and a whole number past 2^53
// rounds to one: float64(n) lies within 512 of n for any int64 n (half
// the spacing of float64s below 2^63). So where a bound is that large,
// the whole numbers are read 1,024 further out; below it every int64
// the range can hold is a float64 exactly, and a bound is its own. Zero
// is taken as both −0 and +0, which a float64's order keeps apart and
// the conditions do not.
func (p scanPlan) numberRanges(value composite.Tuple) []keyspace.Range {
	desc := len(p.texts) < len(p.fields) && p.fields[len(p.texts)][0] == '-'
	r := p.ranged
	var out []keyspace.Range
	for _, first := range numberStarts {
		out = append(out, p.between(value, first[0], first[1], true, desc))
	}
	if lo, hi, ok := wholeBounds(r.lo, r.hi); ok {
		out = append(out, p.between(value, lo, hi, false, desc))
	}
	if lo, hi, ok := uintBounds(r.lo, r.hi); ok {
		out = append(out, p.between(value, lo, hi, false, desc))
	}
	lo, hi := r.lo, r.hi
	if lo == 0 {
		lo = math.Copysign(0, -1)
	}
	if hi == 0 {
		hi = 0 // +0, after −0
	}
	if lo <= hi {
		out = append(out, p.between(value, lo, hi, false, desc))
	}
	return out
}

// numberStarts are the ranges of text, [from, to), that a number the
// conditions can hold for starts in, as strconv.ParseFloat reads it:
// "+" to ":" holds + - . and the digits (and , and /), then the I of
// Inf and Infinity in either case. NaN, which reads as a number too,
// no condition holds for, and other text never reads as one.
var numberStarts = [][2]string{{"+", ":"}, {"I", "J"}, {"i", "j"}}

// wholeBounds are the int64s from lo to hi, widened as numberRanges says
// for bounds of 2^53 or more; ok is false when there are none.
func wholeBounds(lo, hi float64) (from, to int64, ok bool) {
	const exact = 1 << 53 // every whole number of this size or less is a float64 exactly
	if math.Abs(lo) >= exact {
		lo -= 1024
	}
	if math.Abs(hi) >= exact {
		hi += 1024
	}
	lo, hi = math.Ceil(lo), math.Floor(hi)
	if lo > hi || lo >= 1<<63 || hi < -(1<<63) {
		return 0, 0, false
	}
	from, to = math.MinInt64, math.MaxInt64
	if lo > -(1 << 63) {
		from = int64(lo)
	}
	if hi < 1<<63 {
		to = int64(hi)
	}
	return from, to, true
}

// uintBounds are the whole numbers past MaxInt64 from lo to hi, which an
// index keeps as uint64s (plainInteger), widened by 2,048: float64(n)
// lies within 1,024 of n there. ok is false when there are none.
func uintBounds(lo, hi float64) (from, to uint64, ok bool) {
	const past = 1 << 63 // the first whole number past the int64s
	lo, hi = math.Ceil(max(lo-2048, past)), math.Floor(hi+2048)
	if lo > hi {
		return 0, 0, false
	}
	from, to = uint64(lo), math.MaxUint64
	if hi < 1<<64 {
		to = uint64(hi)
	}
	return from, to, true
}

// between is the range of the plan index's entries under value whose
// next field holds lo, hi or a value between them in ascending order
// (hi left out when open); entries of a descending field hold them in
// the opposite order.
func (p scanPlan) between(value composite.Tuple, lo, hi any, open, desc bool) keyspace.Range {
	at := func(v any) keyspace.Range {
		if desc {
			v = composite.Desc{V: v}
		}
		return p.ix.Equal(slices.Concat(value, composite.Tuple{v})...)
	}
	if desc {
		start := at(hi).Start
		if open {
			start = at(hi).End
		}
		return keyspace.Range{Start: start, End: at(lo).End}
	}
	end := at(hi).End
	if open {
		end = at(hi).Start
	}
	return keyspace.Range{Start: at(lo).Start, End: end}
}

// readsAsNumber reports whether an entry's element at i, in a plan's
// number range, may hold a number: one that is no text, or text that
// reads as a number. Entries of other text are passed over without
// reading their rows.
func readsAsNumber(e composite.Tuple, i int) bool {
	if i >= len(e) {
		return false
	}
	v := e[i]
	if d, ok := v.(composite.Desc); ok {
		v = d.V
	}
	s, ok := v.(string)
	if !ok {
		return true
	}
	_, isNumber := numeric(s)
	return isNumber
}
