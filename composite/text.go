package composite

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The text form is what people type and read: components separated by ':',
// as in "CA:San Francisco:42".
//
//   - '\' makes the next character literal: "A\:B" is the one component
//     "A:B", "\*" a literal star, "\\" a backslash.
//   - A component whose first character is escaped is always a string, so
//     the string "42" is written "\42" and the integer 42 is written "42".
//   - Otherwise, without a schema, a component's type is read from its form:
//     null; true, false; integers in canonical decimal (no leading zeros, so
//     the ZIP code 02134 stays a string); floats with a '.' or an exponent,
//     and Inf, -Inf, NaN, -NaN; 0x… (even hex digits) for bytes; canonical UUIDs;
//     '@' and an RFC 3339 time; '~' before a component marks it descending.
//     Anything else is a string.
//   - With a Schema, each component is read as its column's kind, and
//     descending where the column says so: "42" in a string column is "42".
//   - A trailing unescaped '*' makes a prefix query (see ParseQuery).
//
// Nested tuples have no text form. The empty text is the empty tuple, so a
// tuple holding one empty string has no text form either.

// Kind is the type of one key column.
type Kind int

// The kinds a Schema column may take. KindAny reads the type from the text.
const (
	KindAny Kind = iota
	KindString
	KindBytes
	KindInt
	KindUint
	KindFloat32
	KindFloat64
	KindBool
	KindUUID
	KindTime
)

var kindNames = map[Kind]string{KindAny: "any", KindString: "string", KindBytes: "bytes", KindInt: "int",
	KindUint: "uint", KindFloat32: "float32", KindFloat64: "float", KindBool: "bool", KindUUID: "uuid", KindTime: "time"}

func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// ParseKind reads a kind by name ("string", "int", "float", …).
func ParseKind(s string) (Kind, error) {
	for k, name := range kindNames {
		if name == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("%w: unknown kind %q", ErrSyntax, s)
}

// Column describes one component of a key.
type Column struct {
	Name string
	Kind Kind
	Desc bool // sorts descending
}

// Schema describes the components of a key, in order.
type Schema []Column

// ErrSyntax is wrapped by every error about the text form.
var ErrSyntax = errors.New("composite: bad key text")

// component is one ':'-separated piece of the text, unescaped.
type component struct {
	text string
	// escaped is where in text the first character written escaped
	// lies, or -1: a component escaped at 0 is a string, and so is one
	// escaped just after its leading '~'s, inside its Desc ("~\\42" is
	// Desc{"42"}).
	escaped int
}

// firstEscaped reports whether c's first character was written escaped.
func (c component) firstEscaped() bool { return c.escaped == 0 }

// afterTilde is c without its first character, a '~' written unescaped.
func (c component) afterTilde() component {
	return component{text: c.text[1:], escaped: max(c.escaped-1, -1)}
}

// splitText splits s at unescaped ':' and reports whether it ended with an
// unescaped '*' (removed from the last component).
func splitText(s string) (comps []component, star bool, err error) {
	if s == "" {
		return nil, false, nil
	}
	var cur strings.Builder
	c := component{escaped: -1}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '\\':
			if i+1 >= len(s) {
				return nil, false, fmt.Errorf("%w: %q ends with a lone backslash", ErrSyntax, s)
			}
			if c.escaped < 0 {
				c.escaped = cur.Len()
			}
			i++
			cur.WriteByte(s[i])
		case ch == ':':
			c.text = cur.String()
			comps = append(comps, c)
			cur.Reset()
			c = component{escaped: -1}
		case ch == '*':
			if i != len(s)-1 {
				return nil, false, fmt.Errorf("%w: %q has '*' before its end (write \\* for a literal star)", ErrSyntax, s)
			}
			star = true
		default:
			cur.WriteByte(ch)
		}
	}
	c.text = cur.String()
	return append(comps, c), star, nil
}

var (
	intForm   = regexp.MustCompile(`^(0|-?[1-9][0-9]*)$`)
	floatForm = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$`)
	uuidForm  = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	hexForm   = regexp.MustCompile(`^0x([0-9a-f]{2})*$`)
)

// inferKind reads the kind of an unescaped component written without schema.
func inferKind(s string) Kind {
	switch {
	case s == "null" || s == "true" || s == "false":
		return KindAny // handled by parseAs
	case intForm.MatchString(s):
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			return KindInt
		}
		if _, err := strconv.ParseUint(s, 10, 64); err == nil {
			return KindUint
		}
		return KindString
	case s == "Inf" || s == "-Inf" || s == "NaN" || s == "-NaN", floatForm.MatchString(s) && strings.ContainsAny(s, ".eE"):
		return KindFloat64
	case hexForm.MatchString(s):
		return KindBytes
	case uuidForm.MatchString(s):
		return KindUUID
	case strings.HasPrefix(s, "@"):
		if _, err := parseTime(s[1:]); err == nil {
			return KindTime
		}
	}
	return KindString
}

// parseComponent turns one component into an element: col's kind, in a
// Desc when col is descending.
func parseComponent(c component, col Column) (any, error) {
	v, err := parseValue(c, col)
	if err != nil || !col.Desc {
		return v, err
	}
	return Desc{V: v}, nil
}

// parseValue is parseComponent without the column's Desc. In a KindAny
// column a leading '~' is the text's own Desc, and a first character
// written escaped makes a string.
func parseValue(c component, col Column) (any, error) {
	s := c.text
	kind := col.Kind
	if kind == KindAny {
		if c.firstEscaped() {
			return s, nil
		}
		if strings.HasPrefix(s, "~") {
			most := MaxNesting
			if col.Desc {
				most-- // the column's own Desc is one more level
			}
			if tildes := len(s) - len(strings.TrimLeft(s, "~")); tildes > most {
				return nil, fmt.Errorf("%w: %w: %d '~' in a row (at most %d)", ErrSyntax, ErrTooDeep, tildes, most)
			}
			v, err := parseValue(c.afterTilde(), Column{Kind: KindAny})
			return Desc{V: v}, err
		}
		switch s {
		case "null":
			return nil, nil
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		kind = inferKind(s)
	}
	v, err := parseAs(s, kind)
	if err != nil {
		name := col.Name
		if name == "" {
			name = kind.String()
		}
		return nil, fmt.Errorf("%w: %q is not a valid %s for %s", ErrSyntax, s, kind, name)
	}
	return v, nil
}

func parseAs(s string, kind Kind) (any, error) {
	switch kind {
	case KindString:
		return s, nil
	case KindInt:
		return strconv.ParseInt(s, 10, 64)
	case KindUint:
		return strconv.ParseUint(s, 10, 64)
	case KindFloat64:
		if s == "-NaN" {
			return math.Copysign(math.NaN(), -1), nil
		}
		return strconv.ParseFloat(s, 64)
	case KindFloat32:
		if s == "-NaN" {
			return float32(math.Copysign(math.NaN(), -1)), nil
		}
		f, err := strconv.ParseFloat(s, 32)
		return float32(f), err
	case KindBool:
		return strconv.ParseBool(s)
	case KindBytes:
		return hex.DecodeString(strings.TrimPrefix(s, "0x"))
	case KindUUID:
		var u UUID
		if !uuidForm.MatchString(s) {
			return nil, errors.New("not a UUID")
		}
		_, err := hex.Decode(u[:], []byte(strings.ReplaceAll(s, "-", "")))
		return u, err
	case KindTime:
		return parseTime(strings.TrimPrefix(s, "@"))
	}
	return nil, fmt.Errorf("unknown kind %v", kind)
}

// ParseText reads a key in text form. With a schema, the text must have at
// most as many components as the schema has columns, and each is read as
// its column's kind. A trailing '*' is an error here: use ParseQuery.
func ParseText(s string, schema Schema) (Tuple, error) {
	comps, star, err := splitText(s)
	if err != nil {
		return nil, err
	}
	if star {
		return nil, fmt.Errorf("%w: %q is a prefix query, not a key", ErrSyntax, s)
	}
	return parseComponents(comps, schema)
}

func parseComponents(comps []component, schema Schema) (Tuple, error) {
	if schema != nil && len(comps) > len(schema) {
		return nil, fmt.Errorf("%w: %d components, but the key has %d columns", ErrSyntax, len(comps), len(schema))
	}
	t := make(Tuple, 0, len(comps))
	for i, c := range comps {
		col := Column{Kind: KindAny}
		if schema != nil {
			col = schema[i]
		}
		v, err := parseComponent(c, col)
		if err != nil {
			return nil, fmt.Errorf("component %d: %w", i+1, err)
		}
		t = append(t, v)
	}
	return t, nil
}

// FormatText writes t in text form such that ParseText(FormatText(t), nil)
// returns t again, except that integers come back as int64 (uint64 above
// math.MaxInt64) and float32 as float64 (a schema restores float32).
func FormatText(t Tuple) (string, error) {
	var b strings.Builder
	for i, e := range t {
		if i > 0 {
			b.WriteByte(':')
		}
		if err := formatElement(&b, e); err != nil {
			return "", fmt.Errorf("composite: element %d: %w", i, err)
		}
	}
	return b.String(), nil
}

// Format writes t in text form such that ParseText(text, s) returns t
// again: each element as its column reads it. A string in a string column
// is escaped only where it must be (':', '*' and '\'), so the state code
// "11" is written 11, where FormatText writes \11 to keep it from reading
// as a number; a descending column's element is written without its '~',
// the column saying it. Elements in KindAny columns are written as
// FormatText writes them. t may be shorter than s (a prefix of a key).
//
// A tuple longer than the schema is an error wrapping ErrKeyShape, and an
// element that its column would read back as something else (an integer
// in a string column, a descending value in an ascending column, null in
// any typed column) one wrapping ErrUnsupportedType.
func (s Schema) Format(t Tuple) (string, error) {
	if len(t) > len(s) {
		return "", fmt.Errorf("%w: %d elements, but the schema has %d columns", ErrKeyShape, len(t), len(s))
	}
	var b strings.Builder
	for i, e := range t {
		if i > 0 {
			b.WriteByte(':')
		}
		if s[i].Kind == KindAny && !s[i].Desc {
			if err := formatElement(&b, e); err != nil {
				return "", fmt.Errorf("composite: element %d: %w", i, err)
			}
			continue
		}
		if err := s[i].format(&b, e); err != nil {
			return "", fmt.Errorf("composite: element %d: %w", i, err)
		}
	}
	return b.String(), nil
}

// format writes e as parseComponent reads it back for c.
func (c Column) format(b *strings.Builder, e any) error {
	if d, isDesc := e.(Desc); isDesc != c.Desc {
		return fmt.Errorf("%w: %#v in column %s, which is %s", ErrUnsupportedType, e, c.Name, c.order())
	} else if isDesc {
		e = d.V
	}
	if c.Kind == KindAny { // a descending column of any kind: the element's own form, with no '~'
		return formatElement(b, e)
	}
	if !kindMatches(c.Kind, e) {
		return fmt.Errorf("%w: %#v in column %s of kind %s", ErrUnsupportedType, e, c.Name, c.Kind)
	}
	if str, ok := e.(string); ok {
		writeEscapes(b, str)
		return nil
	}
	return formatElement(b, e)
}

// order is "descending" or "ascending".
func (c Column) order() string {
	if c.Desc {
		return "descending"
	}
	return "ascending"
}

func formatElement(b *strings.Builder, e any) error {
	switch v := e.(type) {
	case nil:
		b.WriteString("null")
	case string:
		writeEscaped(b, v)
	case []byte:
		b.WriteString("0x" + hex.EncodeToString(v))
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		fmt.Fprint(b, v)
	case float32:
		b.WriteString(formatFloat(float64(v), 32))
	case float64:
		b.WriteString(formatFloat(v, 64))
	case UUID:
		h := hex.EncodeToString(v[:])
		b.WriteString(h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:])
	case time.Time:
		b.WriteString("@" + strings.ReplaceAll(v.UTC().Format(time.RFC3339Nano), ":", `\:`))
	case Desc:
		b.WriteByte('~')
		return formatElement(b, v.V)
	default:
		return fmt.Errorf("%w: %T has no text form", ErrUnsupportedType, e)
	}
	return nil
}

func formatFloat(f float64, bits int) string {
	switch {
	case math.IsNaN(f) && math.Signbit(f):
		return "-NaN" // NaN payloads are not kept, only the sign
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	}
	s := strconv.FormatFloat(f, 'g', -1, bits)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

// writeEscaped writes a string component: ':', '*' and '\' escaped, and the
// first character escaped when the string would otherwise read as another
// type.
func writeEscaped(b *strings.Builder, s string) {
	if s != "" && (inferKind(s) != KindString || s == "null" || s == "true" || s == "false" || s[0] == '~') {
		b.WriteByte('\\')
		b.WriteByte(s[0])
		s = s[1:]
	}
	writeEscapes(b, s)
}

// writeEscapes writes s with ':', '*' and '\' escaped.
func writeEscapes(b *strings.Builder, s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == ':' || c == '*' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
}

// parseTime reads an RFC 3339 time that the tuple encoding can hold (int64
// nanoseconds: the years 1678 to 2262).
func parseTime(s string) (time.Time, error) {
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, err
	}
	if tm.Before(minTime) || tm.After(maxTime) {
		return time.Time{}, fmt.Errorf("%w: time %s", ErrIntegerRange, s)
	}
	return tm.UTC(), nil
}
