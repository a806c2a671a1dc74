package cli

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/keyspacedb/keyspace/geo"
	"github.com/tidwall/gjson"
	ucli "github.com/urfave/cli/v2"
)

// fieldsFlag is --fields on a command that prints payloads or records
// (what): only the fields named, as MongoDB's projection keeps them, so
// that a wide record fits a terminal's line or a spreadsheet's columns.
func fieldsFlag(what string) ucli.Flag {
	return &ucli.StringFlag{Name: "fields", Usage: "print only these `FIELDS` of each " + what + ", comma-separated, in that order (a field named as given, else a dotted path through objects and arrays: address.city, tags.0); one it lacks is left out"}
}

// fieldsOf returns --fields' names, nil when it is not given; an empty
// name is a usage error.
func fieldsOf(c *ucli.Context) ([]string, error) {
	if !c.IsSet("fields") {
		return nil, nil
	}
	names := strings.Split(c.String("fields"), ",")
	for i, name := range names {
		if name == "" {
			return nil, usagef("--fields %q: field %d has no name", c.String("fields"), i+1)
		}
	}
	return names, nil
}

// projectPayload returns the fields of a JSON object payload, as an
// object with them in the order named, each value's JSON as the payload
// has it (found as --where finds a field: payloadPaths); {} for a
// payload that is no JSON object, which has no fields.
func projectPayload(p []byte, fields []string) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	if isObject(p) {
		for _, f := range fields {
			for _, path := range payloadPaths(f) {
				if v := gjson.GetBytes(p, path); v.Exists() {
					if b.Len() > 1 {
						b.WriteByte(',')
					}
					name, _ := marshal(f)
					b.Write(name)
					b.WriteByte(':')
					b.WriteString(v.Raw)
					break
				}
			}
		}
	}
	b.WriteByte('}')
	return b.Bytes()
}

// projectResults returns geo results with each payload projected, in a
// new slice (the results' payloads may be the store's bytes); rs itself
// when fields is nil.
func projectResults(rs []geo.Result, fields []string) []geo.Result {
	if fields == nil {
		return rs
	}
	out := make([]geo.Result, len(rs))
	for i, r := range rs {
		out[i] = r
		out[i].Payload = projectPayload(r.Payload, fields)
	}
	return out
}

// projectRecord returns the fields of a table record named, as a JSON
// object with them in the order named, each as the record has it (its
// own field of that name, else the dotted path's).
func projectRecord(r record, fields []string) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for _, f := range fields {
		v, ok := r[f]
		if !ok {
			v, ok = pathValue(r, f)
		}
		if !ok {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		name, _ := marshal(f)
		value, _ := marshal(v)
		b.Write(name)
		b.WriteByte(':')
		b.Write(value)
	}
	b.WriteByte('}')
	return b.Bytes()
}
