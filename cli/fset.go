package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/geo"
)

// geoFsetCommand is geo fset, Tile38's FSET: it sets fields of a point's
// payload, a JSON object, keeping the point's place and expiry, in one
// transaction (geo.Index.Update).
func geoFsetCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "fset",
		Usage: "set fields of a point's JSON payload, keeping its place and expiry (Tile38's FSET); --del removes fields",
		UsageText: "keyspace geo fset --index fleet car-7 speed=70 status=busy\n" +
			"keyspace geo fset --index fleet --del status car-7",
		ArgsUsage: "ID [FIELD=VALUE...]",
		Description: "A VALUE that reads as JSON (70, true, null, \"70\", [1,2], {\"a\":1}) is set as that value, any other as a string " +
			"(busy). The payload must be a JSON object, or empty; its other fields stay as they are. " +
			"It prints how many fields changed, as Tile38 does.",
		Flags: []ucli.Flag{indexFlag(),
			&ucli.StringSliceFlag{Name: "del", Usage: "remove `FIELD` from the payload (repeat it)"},
			&ucli.BoolFlag{Name: "xx", Usage: "a point not in the index is no error: nothing is set, and 0 fields changed (Tile38's FSET XX)"},
		},
		Action: geoFset,
	}
}

func geoFset(c *ucli.Context) error {
	set, del, err := fieldEdits(c, "an ID")
	if err != nil {
		return err
	}
	id := c.Args().First()
	ix := geo.NewIndex(c.String("index"))
	changed := 0
	err = updateDB(c, func(tx keyspace.Tx) error {
		_, err := ix.Update(tx, id, func(p *geo.Point) error {
			payload, n, err := setFields(p.Payload, set, del)
			if err != nil {
				return fmt.Errorf("point %q: %w", id, err)
			}
			p.Payload, changed = payload, n
			return nil
		})
		if errors.Is(err, keyspace.ErrNotFound) && c.Bool("xx") {
			return nil
		}
		return noPoint(ix, id, err)
	})
	if err != nil {
		return err
	}
	fmt.Fprintln(c.App.Writer, changed)
	return nil
}

// fieldEdits reads what geo fset and table set change: the FIELD=VALUE
// arguments after the first (what names the point or row: "an ID") and
// --del.
func fieldEdits(c *ucli.Context, what string) ([]fieldValue, []string, error) {
	if c.NArg() < 1 {
		return nil, nil, usagef("%s wants %s, then FIELD=VALUE pairs", commandName(c), what)
	}
	set, err := parseFieldValues(c.Args().Tail())
	if err != nil {
		return nil, nil, err
	}
	del := c.StringSlice("del")
	if len(set) == 0 && len(del) == 0 {
		return nil, nil, usagef("%s wants FIELD=VALUE pairs or --del FIELD", commandName(c))
	}
	return set, del, nil
}

// fieldValue is one FIELD=VALUE of geo fset or table set, the value as JSON.
type fieldValue struct {
	field string
	value json.RawMessage
}

// parseFieldValues reads FIELD=VALUE arguments: a value that is JSON (and
// decodes, so 1e400 is not a number here) is kept as it is, any other
// becomes a JSON string.
func parseFieldValues(args []string) ([]fieldValue, error) {
	var out []fieldValue
	for _, arg := range args {
		field, value, ok := strings.Cut(arg, "=")
		if !ok || field == "" {
			return nil, usagef("%q: want FIELD=VALUE", arg)
		}
		var decoded any
		raw := json.RawMessage(value)
		if json.Unmarshal(raw, &decoded) != nil {
			raw, _ = marshal(value) // a string always encodes
		} else {
			var compact bytes.Buffer
			json.Compact(&compact, raw) // valid, so it cannot fail
			raw = compact.Bytes()
		}
		out = append(out, fieldValue{field, raw})
	}
	return out, nil
}

// setFields returns payload, a JSON object (or empty, for none), with the
// fields of del removed and then those of set set, and how many fields
// that changed: a field removed that was not there, or set to the value it
// had (70 for 70.0), is no change, and keeps the bytes it had.
func setFields(payload []byte, set []fieldValue, del []string) ([]byte, int, error) {
	fields := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(payload)) > 0 {
		if err := json.Unmarshal(payload, &fields); err != nil || fields == nil {
			return nil, 0, errors.New("its payload is not a JSON object, so it has no fields to set")
		}
	}
	before := maps.Clone(fields)
	touched := map[string]bool{}
	for _, name := range del {
		delete(fields, name)
		touched[name] = true
	}
	for _, f := range set {
		fields[f.field] = f.value
		touched[f.field] = true
	}
	changed := 0
	for name := range touched {
		old, had := before[name]
		now, has := fields[name]
		switch {
		case had && has && sameJSON(old, now):
			fields[name] = old
		case had || has:
			changed++
		}
	}
	out, err := marshal(fields)
	return out, changed, err
}

// sameJSON reports whether two JSON values are the same value: 70 and
// 70.0, or objects whose keys come in another order, are.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if decodeJSON(a, &x) != nil || decodeJSON(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	return sameJSONValue(x, y)
}

// noPoint says a missing or expired point is missing in words that name
// it and its index; other errors pass as they are.
func noPoint(ix *geo.Index, id string, err error) error {
	if errors.Is(err, keyspace.ErrNotFound) {
		return fmt.Errorf("no point %q in index %s", id, ix.Name())
	}
	return err
}
