package composite

import (
	"fmt"

	"github.com/keyspacedb/keyspace"
)

// Query is a parsed key query in text form:
//
//	CA:San Francisco:42   one key (Exact)
//	CA:*                  every key under ("CA")
//	CA:San Fran*          every key under ("CA") whose next string starts with "San Fran"
//	*                     every key
type Query struct {
	// Prefix holds the complete components.
	Prefix Tuple
	// Partial is the start of the component after Prefix, for "San Fran*";
	// nil when the query ends in ":*", is "*", or is exact.
	Partial *string
	// PartialDesc is set when the partial component's column is descending.
	PartialDesc bool
	// Exact is set when the query has no '*': it names one key.
	Exact bool
}

// ParseQuery reads a query. A partial component must be a string (or
// untyped, with no schema): "starts with" means nothing for numbers.
func ParseQuery(s string, schema Schema) (Query, error) {
	comps, star, err := splitText(s)
	if err != nil {
		return Query{}, err
	}
	if !star {
		t, err := parseComponents(comps, schema)
		return Query{Prefix: t, Exact: true}, err
	}
	last := comps[len(comps)-1]
	q := Query{}
	if q.Prefix, err = parseComponents(comps[:len(comps)-1], schema); err != nil {
		return Query{}, err
	}
	if last.text == "" && !last.firstEscaped() {
		return q, nil // "CA:*" or "*"
	}
	col := Column{Kind: KindString}
	if schema != nil {
		if len(comps) > len(schema) {
			return Query{}, fmt.Errorf("%w: %d components, but the key has %d columns", ErrSyntax, len(comps), len(schema))
		}
		col = schema[len(comps)-1]
		if col.Kind != KindString && col.Kind != KindAny {
			return Query{}, fmt.Errorf("%w: %q: '*' needs a string column, and %s is %s", ErrSyntax, s, col.Name, col.Kind)
		}
	}
	partial := last.text
	q.Partial, q.PartialDesc = &partial, col.Desc
	return q, nil
}

// Range returns the keys of s that the query selects.
func (q Query) Range(s Subspace) keyspace.Range {
	key := s.Pack(q.Prefix)
	switch {
	case q.Exact:
		return keyspace.Range{Start: key, End: append(key, 0x00)}
	case q.Partial == nil:
		return tupleRange(key)
	}
	// The encoding of a string is code, escaped bytes, terminator: a string
	// starting with p encodes to code + escape(p) + more. Without the
	// terminator, that is a byte prefix of every such key.
	enc := appendEscaped([]byte{codeString}, []byte(*q.Partial))
	enc = enc[:len(enc)-1]
	if q.PartialDesc {
		// Descending elements are escaped and inverted byte by byte, so a
		// prefix stays a prefix (appendDesc): no terminator either.
		enc = appendInvertedEscaped([]byte{codeDesc}, enc)
	}
	return keyspace.Prefix(append(key, enc...))
}
