package indextable

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/internal/errctx"
	"github.com/keyspacedb/keyspace/storetest"
)

// TestSeedLikes is seed 000 end to end: users u1 (jerrylou) and u2
// (gunsluo), items i1 (mac pro) and i2 (ipad); u1 likes i1 at 1512099720
// and i2 at 1512109720, u2 likes i1 at 1512119720.
func TestSeedLikes(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		type User struct{ Name string }
		type Item struct{ Title string }
		users, items := New[User]("users", nil), New[Item]("items", nil)
		likes := NewRelation("likes")
		nameOf := func(u User) []byte { b, _ := json.Marshal(map[string]string{"name": u.Name}); return b }
		titleOf := func(i Item) []byte { b, _ := json.Marshal(map[string]string{"title": i.Title}); return b }
		err := s.Update(func(tx keyspace.Tx) error {
			for id, u := range map[string]User{"u1": {"jerrylou"}, "u2": {"gunsluo"}} {
				users.Put(tx, composite.Tuple{id}, u)
				likes.SetLeftFields(tx, id, nameOf(u))
			}
			for id, i := range map[string]Item{"i1": {"mac pro"}, "i2": {"ipad"}} {
				items.Put(tx, composite.Tuple{id}, i)
				likes.SetRightFields(tx, id, titleOf(i))
			}
			for _, l := range []struct {
				u, i string
				at   int64
			}{{"u1", "i1", 1512099720}, {"u1", "i2", 1512109720}, {"u2", "i1", 1512119720}} {
				if err := likes.Link(tx, l.u, l.i, time.Unix(l.at, 0)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		list := func(fn func(tx keyspace.Tx) (LinkPage, error)) []string {
			var out []string
			s.View(func(tx keyspace.Tx) error {
				page, err := fn(tx)
				if err != nil {
					t.Fatal(err)
				}
				for _, l := range page.Links {
					out = append(out, l.ID+"@"+strconv.FormatInt(l.Time.Unix(), 10)+"="+string(l.Fields))
				}
				return nil
			})
			return out
		}
		// Items u1 likes, with titles, newest first.
		got := list(func(tx keyspace.Tx) (LinkPage, error) { return likes.Rights(tx, "u1", nil) })
		want := []string{`i2@1512109720={"title":"ipad"}`, `i1@1512099720={"title":"mac pro"}`}
		if !slices.Equal(got, want) {
			t.Errorf("items u1 likes: %v, want %v", got, want)
		}
		// Users who like i1, with names, newest first.
		got = list(func(tx keyspace.Tx) (LinkPage, error) { return likes.Lefts(tx, "i1", nil) })
		want = []string{`u2@1512119720={"name":"gunsluo"}`, `u1@1512099720={"name":"jerrylou"}`}
		if !slices.Equal(got, want) {
			t.Errorf("users who like i1: %v, want %v", got, want)
		}
		// u1 renames: the record and every copy change in one transaction.
		s.Update(func(tx keyspace.Tx) error {
			users.Put(tx, composite.Tuple{"u1"}, User{"jerry"})
			n, err := likes.SetLeftFields(tx, "u1", nameOf(User{"jerry"}))
			if n != 2 {
				t.Errorf("rename rewrote %d copies, want 2", n)
			}
			return err
		})
		for _, item := range []string{"i1", "i2"} {
			for _, l := range list(func(tx keyspace.Tx) (LinkPage, error) { return likes.Lefts(tx, item, nil) }) {
				if l[:2] == "u1" && l[len(l)-len(`{"name":"jerry"}`):] != `{"name":"jerry"}` {
					t.Errorf("%s still shows %s", item, l)
				}
			}
		}
		// Unlink removes both directions; re-linking moves the time.
		s.Update(func(tx keyspace.Tx) error {
			if existed, err := likes.Unlink(tx, "u1", "i1"); err != nil || !existed {
				return fmt.Errorf("unlink u1 i1: %v, %w", existed, err)
			}
			if existed, err := likes.Unlink(tx, "u1", "i9"); err != nil || existed {
				return fmt.Errorf("unlink u1 i9, never linked: %v, %w", existed, err)
			}
			return likes.Link(tx, "u2", "i2", time.Unix(1512200000, 0))
		})
		// The counts: i1 lost u1, and re-linking u2 to i2 counted nothing.
		s.View(func(tx keyspace.Tx) error {
			for _, c := range []struct {
				count func(keyspace.Tx, string) (int, error)
				id    string
				want  int
			}{{likes.CountLefts, "i1", 1}, {likes.CountLefts, "i2", 2}, {likes.CountRights, "u1", 1}, {likes.CountRights, "u2", 2}, {likes.CountRights, "u9", 0}} {
				if n, err := c.count(tx, c.id); err != nil || n != c.want {
					t.Errorf("count of %s: %d, %v; want %d", c.id, n, err, c.want)
				}
			}
			return nil
		})
		if got := list(func(tx keyspace.Tx) (LinkPage, error) { return likes.Lefts(tx, "i1", nil) }); len(got) != 1 || got[0][:2] != "u2" {
			t.Errorf("after unlink, i1's likers: %v", got)
		}
		if got := list(func(tx keyspace.Tx) (LinkPage, error) { return likes.Rights(tx, "u2", nil) }); len(got) != 2 || got[0][:2] != "i2" {
			t.Errorf("u2's likes, newest first: %v", got)
		}
	})
}

// TestRelationVerify: after random links, unlinks, re-links and field
// changes, a relation verifies clean; each damage done to its lists
// behind its back (an entry deleted, one added, one's fields changed) is
// reported, and nothing else is.
func TestRelationVerify(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(21, 22))
		rel := NewRelation("likes")
		at := time.Unix(1512099720, 0)
		for step := range 300 {
			err := s.Update(func(tx keyspace.Tx) error {
				left, right := fmt.Sprint("u", r.IntN(6)), fmt.Sprint("i", r.IntN(8))
				switch r.IntN(5) {
				case 0:
					_, err := rel.Unlink(tx, left, right)
					return err
				case 1:
					_, err := rel.SetLeftFields(tx, left, []byte(fmt.Sprintf(`{"name":"n%d"}`, step)))
					return err
				case 2:
					_, err := rel.SetRightFields(tx, right, []byte(fmt.Sprintf(`{"title":"t%d"}`, step)))
					return err
				}
				return rel.Link(tx, left, right, at.Add(time.Duration(step)*time.Second))
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		verify := func() []string {
			var problems []string
			s.View(func(tx keyspace.Tx) (err error) { problems, err = rel.Verify(tx); return err })
			return problems
		}
		if p := verify(); len(p) > 0 {
			t.Fatalf("a relation kept by its own methods has problems: %v", p)
		}
		// Every key, as its own methods left it: what Repair must restore.
		sound := storetest.Contents(t, s)
		// Damage: delete the first forward entry, change the first back
		// entry's fields, add a back entry no link implies.
		var fwdKey, backKey []byte
		s.View(func(tx keyspace.Tx) error {
			for k := range tx.Scan(rel.fwd.Range()) {
				fwdKey = bytes.Clone(k)
				break
			}
			for k := range tx.Scan(rel.back.Range()) {
				backKey = bytes.Clone(k)
				break
			}
			return nil
		})
		stray := rel.back.Pack(composite.Tuple{"i99", composite.Desc{V: at.UTC()}, "u99"})
		err := s.Update(func(tx keyspace.Tx) error {
			return errors.Join(tx.Delete(fwdKey), tx.Put(backKey, []byte(`{"name":"forged"}`)), tx.Put(stray, nil))
		})
		if err != nil {
			t.Fatal(err)
		}
		got := verify()
		want := []string{"missing forward entry", "stale back entry", "stale back entry"}
		if len(got) != len(want) {
			t.Fatalf("Verify found %d problems, want %d: %q", len(got), len(want), got)
		}
		var kinds []string
		for _, p := range got {
			kinds = append(kinds, strings.Join(strings.Fields(p)[:3], " "))
		}
		slices.Sort(kinds)
		if !slices.Equal(kinds, want) {
			t.Errorf("Verify found %q, want problems of the kinds %q", got, want)
		}
		if !strings.Contains(strings.Join(got, "\n"), "forged") || !strings.Contains(strings.Join(got, "\n"), "u99") {
			t.Errorf("Verify does not name the forged fields and the stray entry: %q", got)
		}
		// Damage the counts: the first left's made 99, the first right's
		// deleted. Each is reported, naming the entity and its links.
		var left, right string
		var leftKey, rightKey []byte
		s.View(func(tx keyspace.Tx) error {
			for k := range tx.Scan(rel.leftCount.Range()) {
				t, _ := rel.leftCount.Unpack(k)
				left, leftKey = t[0].(string), bytes.Clone(k)
				break
			}
			for k := range tx.Scan(rel.rightCount.Range()) {
				t, _ := rel.rightCount.Unpack(k)
				right, rightKey = t[0].(string), bytes.Clone(k)
				break
			}
			return nil
		})
		if err := s.Update(func(tx keyspace.Tx) error {
			return errors.Join(tx.Put(leftKey, binary.BigEndian.AppendUint64(nil, 99)), tx.Delete(rightKey))
		}); err != nil {
			t.Fatal(err)
		}
		got = verify()
		if all := strings.Join(got, "\n"); len(got) != len(want)+2 || !strings.Contains(all, fmt.Sprintf("left %q counts 99 links", left)) ||
			!strings.Contains(all, fmt.Sprintf("right %q has", right)) || !strings.Contains(all, "links and no count") {
			t.Errorf("after damaging two counts, Verify found %q", got)
		}
		// Repair fixes what Verify found, and only that: every key is
		// back as the relation's own methods left it.
		var fixed []string
		if err := s.Update(func(tx keyspace.Tx) (err error) { fixed, err = rel.Repair(tx); return err }); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(fixed, got) {
			t.Errorf("Repair fixed %q; Verify had found %q", fixed, got)
		}
		if p := verify(); len(p) > 0 {
			t.Errorf("after Repair, Verify finds %q", p)
		}
		if after := storetest.Contents(t, s); !maps.Equal(after, sound) {
			t.Errorf("after Repair, %d keys; before the damage, %d (or their values differ)", len(after), len(sound))
		}
	})
}

// TestRelationLinkTimeOutOfRange: a link time no key can hold is an
// error that writes nothing (it panicked).
func TestRelationLinkTimeOutOfRange(t *testing.T) {
	s := keyspace.NewMemory()
	rel := NewRelation("likes")
	for _, at := range []time.Time{time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC), {}} {
		err := s.Update(func(tx keyspace.Tx) error { return rel.Link(tx, "u1", "i1", at) })
		if !errors.Is(err, composite.ErrIntegerRange) {
			t.Errorf("Link at %s = %v, want ErrIntegerRange", at, err)
		}
	}
	if s.Len() != 0 {
		t.Errorf("refused links left %d keys", s.Len())
	}
}

// TestRelationIDsAtTheKeyLimit: the longest right id a link takes (found
// by bisection over Link, each try rolled back) is linked and listed; one
// byte more is refused with ErrKeyTooLarge naming the link, and nothing
// is written, even in the transaction that saw the refusal (the link's
// own key fits: only its list entries, 9 bytes longer, do not).
func TestRelationIDsAtTheKeyLimit(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		rel := NewRelation("likes")
		at := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
		errRollback := errors.New("roll back")
		longest := sort.Search(keyspace.MaxKeySize, func(n int) bool {
			err := s.Update(func(tx keyspace.Tx) error {
				if err := rel.Link(tx, "u1", strings.Repeat("i", n+1), at); err != nil {
					return err
				}
				return errRollback
			})
			return !errors.Is(err, errRollback)
		})
		over := strings.Repeat("i", longest+1)
		if n := len(rel.links.Pack(composite.Tuple{"u1", over})); n > keyspace.MaxKeySize {
			t.Fatalf("the link key itself is %d bytes: the test wants one that fits", n)
		}
		err := storetest.RefusedChangesNothing(t, s, func(tx keyspace.Tx) error { return rel.Link(tx, "u1", over, at) })
		if !errors.Is(err, keyspace.ErrKeyTooLarge) || !strings.Contains(err.Error(), "link \"u1\"–"+errctx.Quote(over)) {
			t.Errorf("Link(%d-byte id) = %v, want ErrKeyTooLarge naming the link", longest+1, err)
		}
		if err := s.Update(func(tx keyspace.Tx) error { return rel.Link(tx, "u1", strings.Repeat("i", longest), at) }); err != nil {
			t.Fatal(err)
		}
		s.View(func(tx keyspace.Tx) error {
			if n, err := rel.CountRights(tx, "u1"); n != 1 || err != nil {
				t.Errorf("u1 links to %d, %v; want 1", n, err)
			}
			return nil
		})
	})
}

func TestRelationAgainstModel(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) { relationAgainstModel(t, s, 1, 300, 10) })
}

// FuzzRelationAgainstModel runs relationAgainstModel from fuzzed seeds on
// a fuzzed backend, checking every three steps.
func FuzzRelationAgainstModel(f *testing.F) {
	storetest.FuzzEachBackend(f, func(t *testing.T, s keyspace.Store, seed uint64) { relationAgainstModel(t, s, seed, 40, 3) })
}

// relationAgainstModel runs steps random transactions of links, re-links,
// unlinks and field changes (a sixth of them rolled back after their
// writes; several links share a time), and, every every steps, compares
// both lists of every entity, whole and limited, with a model of the
// committed links and fields: newest first, ties by id, each entry with
// the other side's current fields. The relation must also verify clean.
func relationAgainstModel(t *testing.T, s keyspace.Store, seed uint64, steps, every int) {
	type pair struct{ left, right string }
	type relModel struct {
		links               map[pair]time.Time
		leftFields, rightFs map[string][]byte
	}
	clone := func(m relModel) relModel {
		return relModel{maps.Clone(m.links), maps.Clone(m.leftFields), maps.Clone(m.rightFs)}
	}
	r := rand.New(rand.NewPCG(seed, 23))
	rel := NewRelation("likes\x00:x") // a name with a zero byte and a separator
	base := time.Unix(1512099720, 0).UTC()
	m := relModel{map[pair]time.Time{}, map[string][]byte{}, map[string][]byte{}}
	lefts, rights := []string{"u0", "u1", "u:2", "u\x003"}, []string{"i0", "i1", "i2", "i:3", "i\x004"}
	for step := range steps {
		w := clone(m)
		if storetest.UpdateOrAbort(t, s, r.IntN(6) == 0, func(tx keyspace.Tx) error {
			for range 1 + r.IntN(3) {
				left, right := lefts[r.IntN(len(lefts))], rights[r.IntN(len(rights))]
				switch r.IntN(6) {
				case 0:
					existed, err := rel.Unlink(tx, left, right)
					if err != nil {
						return err
					}
					if _, linked := w.links[pair{left, right}]; existed != linked {
						return fmt.Errorf("unlink %q %q reports %v; the model has the link: %v", left, right, existed, linked)
					}
					delete(w.links, pair{left, right})
				case 1:
					f := []byte(fmt.Sprintf(`{"name":"n%d"}`, step))
					if _, err := rel.SetLeftFields(tx, left, f); err != nil {
						return err
					}
					w.leftFields[left] = f
				case 2:
					f := []byte(fmt.Sprintf(`{"title":"t%d"}`, step))
					if _, err := rel.SetRightFields(tx, right, f); err != nil {
						return err
					}
					w.rightFs[right] = f
				case 3: // LinkAll of a few edges, as Links in their order
					var edges []Edge
					for j := range 1 + r.IntN(4) {
						e := Edge{lefts[r.IntN(len(lefts))], rights[r.IntN(len(rights))], base.Add(time.Duration(step/3+j%2) * time.Second)}
						edges = append(edges, e)
					}
					if err := rel.LinkAll(tx, edges); err != nil {
						return err
					}
					for _, e := range edges {
						w.links[pair{e.Left, e.Right}] = e.At
					}
				default:
					at := base.Add(time.Duration(step/3) * time.Second)
					if err := rel.Link(tx, left, right, at); err != nil {
						return err
					}
					w.links[pair{left, right}] = at
				}
			}
			return nil
		}) {
			m = w
		}
		if step%every != every-1 {
			continue
		}
		// want lists one entity's links from the model, newest first, ties
		// by the other side's id.
		want := func(id string, isLeft bool) []Link {
			var out []Link
			for p, at := range m.links {
				switch {
				case isLeft && p.left == id:
					out = append(out, Link{ID: p.right, Time: at, Fields: m.rightFs[p.right]})
				case !isLeft && p.right == id:
					out = append(out, Link{ID: p.left, Time: at, Fields: m.leftFields[p.left]})
				}
			}
			slices.SortFunc(out, func(a, b Link) int { return cmp.Or(b.Time.Compare(a.Time), strings.Compare(a.ID, b.ID)) })
			return out
		}
		same := func(what string, got, want []Link) {
			t.Helper()
			ok := len(got) == len(want)
			for i := 0; ok && i < len(got); i++ {
				ok = got[i].ID == want[i].ID && got[i].Time.Equal(want[i].Time) && bytes.Equal(got[i].Fields, want[i].Fields)
			}
			if !ok {
				t.Fatalf("step %d: %s = %v, model %v", step, what, got, want)
			}
		}
		s.View(func(tx keyspace.Tx) error {
			for _, side := range []struct {
				ids    []string
				isLeft bool
				list   func(keyspace.Tx, string, *ListOptions) (LinkPage, error)
				count  func(keyspace.Tx, string) (int, error)
			}{{lefts, true, rel.Rights, rel.CountRights}, {rights, false, rel.Lefts, rel.CountLefts}} {
				for _, id := range side.ids {
					wl := want(id, side.isLeft)
					// The whole list, a page of up to three at a time,
					// newest or oldest first.
					opts := &ListOptions{Limit: r.IntN(4), Reverse: r.IntN(3) == 0}
					if opts.Reverse {
						slices.Reverse(wl)
					}
					var got []Link
					for pages := 0; ; pages++ {
						page, err := side.list(tx, id, opts)
						if err != nil {
							t.Fatal(err)
						}
						if opts.Limit > 0 && len(page.Links) > opts.Limit || pages > len(wl) {
							t.Fatalf("step %d: page %d of %q: %d links, limit %d", step, pages, id, len(page.Links), opts.Limit)
						}
						got = append(got, page.Links...)
						if opts.Cursor = page.Next; opts.Cursor == "" {
							break
						}
					}
					same(fmt.Sprintf("list of %q (left %v, %+v)", id, side.isLeft, *opts), got, wl)
					if n, err := side.count(tx, id); err != nil || n != len(wl) {
						t.Fatalf("step %d: count of %q (left %v) = %d, %v; model %d", step, id, side.isLeft, n, err, len(wl))
					}
				}
			}
			for _, left := range lefts {
				for _, right := range rights {
					at, linked, err := rel.Linked(tx, left, right)
					wantAt, wantLinked := m.links[pair{left, right}]
					if err != nil || linked != wantLinked || !at.Equal(wantAt) {
						t.Fatalf("step %d: Linked(%q, %q) = %v, %v, %v; model %v, %v", step, left, right, at, linked, err, wantAt, wantLinked)
					}
				}
			}
			// Edges: every link, by left then right, paged either way.
			var wantEdges []Edge
			for p, at := range m.links {
				wantEdges = append(wantEdges, Edge{p.left, p.right, at})
			}
			slices.SortFunc(wantEdges, func(a, b Edge) int { return cmp.Or(strings.Compare(a.Left, b.Left), strings.Compare(a.Right, b.Right)) })
			opts := &ListOptions{Limit: r.IntN(4), Reverse: r.IntN(2) == 0}
			if opts.Reverse {
				slices.Reverse(wantEdges)
			}
			var gotEdges []Edge
			for pages := 0; ; pages++ {
				page, err := rel.Edges(tx, opts)
				if err != nil || opts.Limit > 0 && len(page.Edges) > opts.Limit || pages > len(wantEdges) {
					t.Fatalf("step %d: Edges page %d: %d edges, limit %d, %v", step, pages, len(page.Edges), opts.Limit, err)
				}
				gotEdges = append(gotEdges, page.Edges...)
				if opts.Cursor = page.Next; opts.Cursor == "" {
					break
				}
			}
			if !slices.EqualFunc(gotEdges, wantEdges, func(a, b Edge) bool { return a.Left == b.Left && a.Right == b.Right && a.At.Equal(b.At) }) {
				t.Fatalf("step %d: Edges (%+v) = %v, model %v", step, *opts, gotEdges, wantEdges)
			}
			if problems, err := rel.Verify(tx); err != nil || len(problems) > 0 {
				t.Fatalf("step %d: Verify = %v, %v", step, problems, err)
			}
			return nil
		})
	}
}

// FuzzRelationRepair: after random links, unlinks and field changes, the
// derived keys (both lists and both counts) are damaged at random: keys
// deleted, values changed, stray keys added, some with bytes no decoder
// expects. Verify must find a problem exactly when the damage changed a
// key, and Repair must put every key back as the relation's own methods
// left it, whatever the damage, and then verify clean.
func FuzzRelationRepair(f *testing.F) {
	storetest.FuzzEachBackend(f, func(t *testing.T, s keyspace.Store, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 41))
		rel := NewRelation("likes")
		at := time.Unix(1512099720, 0)
		if err := s.Update(func(tx keyspace.Tx) error {
			for step := range 60 {
				left, right := fmt.Sprint("u", r.IntN(5)), fmt.Sprint("i", r.IntN(6))
				var err error
				switch r.IntN(5) {
				case 0:
					_, err = rel.Unlink(tx, left, right)
				case 1:
					_, err = rel.SetLeftFields(tx, left, []byte(fmt.Sprint(`{"n":`, step, `}`)))
				default:
					err = rel.Link(tx, left, right, at.Add(time.Duration(r.IntN(20))*time.Second)) // tied times
				}
				if err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		sound := storetest.Contents(t, s)
		derived := []composite.Subspace{rel.fwd, rel.back, rel.leftCount, rel.rightCount}
		if err := s.Update(func(tx keyspace.Tx) error {
			var keys [][]byte
			for _, sub := range derived {
				for k := range tx.Scan(sub.Range()) {
					keys = append(keys, bytes.Clone(k))
				}
			}
			for range 1 + r.IntN(4) {
				var err error
				switch sub := derived[r.IntN(len(derived))]; {
				case r.IntN(3) == 0 && len(keys) > 0:
					err = tx.Delete(keys[r.IntN(len(keys))])
				case r.IntN(2) == 0 && len(keys) > 0:
					err = tx.Put(keys[r.IntN(len(keys))], []byte{byte(r.IntN(256)), 0, 0, 0, 0, 0, 0, byte(r.IntN(3))})
				case r.IntN(2) == 0:
					// Bytes no decoder reads, under the subspace's tuple range
					// (which a first byte of 0xff would leave: no element
					// starts so, and no scan of the relation reads it).
					err = tx.Put(append(sub.Bytes(), byte(r.IntN(255)), 0xff), []byte("junk"))
				default:
					err = tx.Put(sub.Pack(composite.Tuple{fmt.Sprint("u", r.IntN(7))}), binary.BigEndian.AppendUint64(nil, uint64(r.IntN(3))))
				}
				if err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		storetest.CheckRepair(t, s, sound, rel.Verify, rel.Repair)
	})
}
