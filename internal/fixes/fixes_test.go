package fixes

import (
	"strings"
	"testing"

	"github.com/keyspacedb/keyspace"
)

// A set's deletes and puts land, and a key both deleted and put is put.
func TestApply(t *testing.T) {
	s := keyspace.NewMemory()
	s.Update(func(tx keyspace.Tx) error {
		for _, k := range []string{"a", "b", "c"} {
			tx.Put([]byte(k), []byte("old"))
		}
		return nil
	})
	var set Set
	set.Delete([]byte("a"))
	set.Delete([]byte("b"))
	set.Put([]byte("b"), []byte("new"))
	set.Put([]byte("d"), nil)
	if err := s.Update(set.Apply); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	s.View(func(tx keyspace.Tx) error {
		for k, v := range tx.Scan(keyspace.Range{}) {
			got[string(k)] = string(v)
		}
		return nil
	})
	want := map[string]string{"b": "new", "c": "old", "d": ""}
	if len(got) != len(want) || got["b"] != "new" || got["c"] != "old" || got["d"] != "" {
		t.Errorf("after Apply: %q, want %q", got, want)
	}
}

// orderTx records the order of a transaction's writes.
type orderTx struct {
	keyspace.Tx
	writes []string
}

func (o *orderTx) Put(k, v []byte) error {
	o.writes = append(o.writes, "put "+string(k))
	return o.Tx.Put(k, v)
}

func (o *orderTx) Delete(k []byte) error {
	o.writes = append(o.writes, "del "+string(k))
	return o.Tx.Delete(k)
}

// Finish sorts the problems and, for a repair only, applies the set: the
// deletes, then the puts, each in key order (as bbolt wants a large
// transaction's writes).
func TestFinish(t *testing.T) {
	s := keyspace.NewMemory()
	var set Set
	for _, k := range []string{"m", "c", "x", "a"} {
		set.Put([]byte(k), []byte("v"))
	}
	for _, k := range []string{"z", "b", "k"} {
		set.Delete([]byte(k))
	}
	var rec orderTx
	if err := s.Update(func(tx keyspace.Tx) error {
		rec.Tx = tx
		problems, err := set.Finish(&rec, []string{"stale b", "missing a"}, false)
		if err != nil || len(problems) != 2 || problems[0] != "missing a" || len(rec.writes) != 0 {
			t.Errorf("a verify's Finish: %q, %v, writes %q", problems, err, rec.writes)
		}
		_, err = set.Finish(&rec, nil, true)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{"del b", "del k", "del z", "put a", "put c", "put m", "put x"}
	if strings.Join(rec.writes, ",") != strings.Join(want, ",") {
		t.Errorf("a repair wrote %q, want %q", rec.writes, want)
	}
}
