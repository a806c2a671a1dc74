package geo

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/internal/errctx"
	"github.com/keyspacedb/keyspace/internal/fixes"
)

// Checking a fence set: its definitions are the truth; its cells, level
// mask, polygon rings, circle and box regions and expiry entries are
// derived from them.

// Verify checks the set's cells against its fences' definitions, which
// are the truth: each fence is stored under exactly the cells its
// definition lists, each holding the value its region gives it (an edge
// cell may hold 0, as the first build wrote every edge), and no cell
// names anything else; a polygon's stored rings and a circle's or box's
// stored region are its definition's (one with none is read from its
// definition); each fence that expires has its expiry entry and no other
// entry names anything; and the level mask, if the set has one, names
// every level its cells use. It returns a description of each problem.
func (fs *Fences) Verify(tx keyspace.Tx) ([]string, error) { return fs.check(tx, false) }

// Repair makes the set's cells what its definitions imply, in the
// caller's transaction, and returns the problems it fixed, as Verify
// describes them: missing cells and expiry entries are written, wrong
// values, rings, regions and a mask that misses levels rewritten, stray
// cells, rings, regions and expiry entries deleted. Rings stored in the
// form of formats 2 and 3 are sound, and not reported, but Repair
// rewrites them with their band indexes (fence_polygon.go). A definition that
// does not decode is deleted with its cells: nothing else holds its
// region. A Repair that writes raises the file's format to this build's
// fence layout, as a Put does (fenceFormat).
func (fs *Fences) Repair(tx keyspace.Tx) ([]string, error) { return fs.check(tx, true) }

// check is Verify, and with fix Repair.
func (fs *Fences) check(tx keyspace.Tx, fix bool) ([]string, error) {
	var problems []string
	var writes fixes.Set
	want := map[string][]byte{}         // every cell key the definitions list → its value
	rings := map[string]polygonRegion{} // every polygon fence's rings key → its rings
	regions := map[string][]byte{}      // every circle's and box's region key → its value
	expiring := map[string]string{}     // every expiry entry the definitions imply → its fence
	owner := map[string]string{}
	var levels levelMask // of the cells the definitions list
	for k, v := range tx.Scan(fs.defs.Range()) {
		t, err := fs.defs.Unpack(k)
		id, ok := "", false
		if err == nil && len(t) == 1 {
			id, ok = t[0].(string)
		}
		var def storedFence
		if ok {
			err = json.Unmarshal(v, &def)
		}
		var f Fence
		var reg region
		if ok && err == nil {
			f = def.fence(id)
			if reg, err = f.storedRegion(); err == nil && id == "" {
				err = f.Validate() // an empty id, which region does not check
			}
			if err == nil {
				_, err = f.expires()
			}
		}
		if !ok || err != nil {
			problems = append(problems, fmt.Sprintf("corrupt fence definition %s: %v", errctx.Quote(string(k)), err))
			writes.Delete(bytes.Clone(k))
			continue
		}
		for _, c := range def.Cells {
			key := string(fs.cellKey(c, id))
			want[key], owner[key] = f.cellValue(c[3] == 1), id
			levels |= levelOf(c[1])
		}
		if def.Expires != 0 {
			expiring[string(fs.expiryKey(def.Expires, id))] = id
		}
		if f.Polygon != nil {
			key := string(fs.polygons.Pack(composite.Tuple{id}))
			rings[key], owner[key] = reg.(polygonRegion), id
		} else {
			key := string(fs.regions.Pack(composite.Tuple{id}))
			regions[key], owner[key] = f.regionValue(), id
		}
	}
	if err := tx.Err(); err != nil {
		return nil, fs.wrap(err)
	}
	for k, v := range tx.Scan(fs.cells.Range()) {
		w, listed := want[string(k)]
		switch {
		case !listed:
			problems = append(problems, fmt.Sprintf("stray fence cell %s", errctx.Quote(string(k))))
			writes.Delete(bytes.Clone(k))
		case !bytes.Equal(v, w) && !(len(v) == 1 && v[0] == cellEdge && w[0] != cellInside && w[0]&cellExpires == 0):
			problems = append(problems, fmt.Sprintf("fence %s: cell %s holds %x, not %x", errctx.Quote(owner[string(k)]), errctx.Quote(string(k)), v, w))
			writes.Put(bytes.Clone(k), w)
		}
		delete(want, string(k))
	}
	if err := tx.Err(); err != nil {
		return nil, fs.wrap(err)
	}
	for k, v := range want {
		problems = append(problems, fmt.Sprintf("fence %s: cell %s missing", errctx.Quote(owner[k]), errctx.Quote(k)))
		writes.Put([]byte(k), v)
	}
	// A polygon's rings must be its definition's, in either form
	// (fence_polygon.go); a polygon with none (stored before they were
	// kept) is tested from its definition.
	for k, v := range tx.Scan(fs.polygons.Range()) {
		pr, listed := rings[string(k)]
		if !listed {
			problems = append(problems, fmt.Sprintf("stray fence polygon %s", errctx.Quote(string(k))))
			writes.Delete(bytes.Clone(k))
			continue
		}
		switch w := appendPolygon(nil, pr); {
		case bytes.Equal(v, w):
		case bytes.Equal(v, appendPolygonForm(nil, pr, false)):
			// Sound, in the earlier form: not a problem, but Repair
			// writes the indexed form, which lookups read in place.
			writes.Put(bytes.Clone(k), w)
		default:
			problems = append(problems, fmt.Sprintf("fence %s: its stored rings are not its definition's", errctx.Quote(owner[string(k)])))
			writes.Put(bytes.Clone(k), w)
		}
	}
	if err := tx.Err(); err != nil {
		return nil, fs.wrap(err)
	}
	// A circle's or box's region key must be its definition's; one with
	// none (stored before they were kept) is read from its definition.
	for k, v := range tx.Scan(fs.regions.Range()) {
		w, listed := regions[string(k)]
		switch {
		case !listed:
			problems = append(problems, fmt.Sprintf("stray fence region %s", errctx.Quote(string(k))))
			writes.Delete(bytes.Clone(k))
		case !bytes.Equal(v, w):
			problems = append(problems, fmt.Sprintf("fence %s: its stored region %x is not its definition's %x", errctx.Quote(owner[string(k)]), v, w))
			writes.Put(bytes.Clone(k), w)
		}
	}
	if err := tx.Err(); err != nil {
		return nil, fs.wrap(err)
	}
	// Each fence that expires must have its expiry entry, and nothing
	// else one.
	for k := range tx.Scan(fs.expiry.Range()) {
		if _, listed := expiring[string(k)]; !listed {
			problems = append(problems, fmt.Sprintf("stray fence expiry entry %s", errctx.Quote(string(k))))
			writes.Delete(bytes.Clone(k))
		}
		delete(expiring, string(k))
	}
	if err := tx.Err(); err != nil {
		return nil, fs.wrap(err)
	}
	for k, id := range expiring {
		problems = append(problems, fmt.Sprintf("fence %s: expiry entry %s missing", errctx.Quote(id), errctx.Quote(k)))
		writes.Put([]byte(k), nil)
	}
	// The level mask must name every level in use; a set with none
	// (written before masks) is read at every level.
	exact := binary.BigEndian.AppendUint32(nil, uint32(levels))
	switch mask, err := tx.Get(fs.levelsKey); {
	case errors.Is(err, keyspace.ErrNotFound):
	case err != nil:
		return nil, fs.wrap(err)
	case len(mask) != 4:
		problems = append(problems, fmt.Sprintf("corrupt fence level mask %x", mask))
		writes.Put(bytes.Clone(fs.levelsKey), exact)
	case levelMask(binary.BigEndian.Uint32(mask))&levels != levels:
		problems = append(problems, fmt.Sprintf("the level mask %017b misses levels %017b", binary.BigEndian.Uint32(mask), levels&^levelMask(binary.BigEndian.Uint32(mask))))
		writes.Put(bytes.Clone(fs.levelsKey), exact)
	}
	if fix && !writes.Empty() {
		if err := keyspace.RequireFormat(tx, fenceFormat); err != nil {
			return nil, fs.wrap(err)
		}
	}
	problems, err := writes.Finish(tx, problems, fix)
	return problems, fs.wrap(err)
}
