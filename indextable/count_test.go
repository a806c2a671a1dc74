package indextable

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/storetest"
)

// TestGroupCountsAgainstRecomputation: records keyed (state, city, id),
// some expiring, written, re-expired and deleted while a fake clock moves;
// after each step GroupCounts at every depth, under no prefix and under
// each state and city, must equal counts recomputed from the records live
// in a model. A stray expiry entry that names a live record subtracts
// nothing.
func TestGroupCountsAgainstRecomputation(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(81, 82))
		now := int64(1e18)
		tb := New[string]("places", &Options{Now: func() time.Time { return time.Unix(0, now) }})
		type rec struct{ expires int64 }
		model := map[string]rec{} // by the key's text
		keyOf := func(text string) composite.Tuple {
			var st, city string
			var id int64
			fmt.Sscanf(text, "%s %s %d", &st, &city, &id)
			return composite.Tuple{st, city, id}
		}
		states := []string{"CA", "CA:x", "NY", "C\x00A"}
		cities := []string{"Fresno", "LA", "LA\x00", "Albany"}
		emptied, expiredStored := 0, 0
		for step := range 300 {
			err := s.Update(func(tx keyspace.Tx) error {
				text := fmt.Sprintf("%s %s %d", states[r.IntN(len(states))], cities[r.IntN(len(cities))], r.IntN(6))
				pk := keyOf(text)
				switch op := r.IntN(10); {
				case op < 5:
					if _, err := tb.Put(tx, pk, text); err != nil {
						return err
					}
					model[text] = rec{}
					fallthrough
				case op < 8:
					if m, ok := model[text]; ok && (m.expires == 0 || m.expires > now) {
						at := now + int64(r.IntN(100)+1)
						if err := tb.SetExpiry(tx, pk, time.Unix(0, at)); err != nil {
							return err
						}
						model[text] = rec{expires: at}
					}
				case op < 9:
					if err := tb.Delete(tx, pk); err == nil {
						delete(model, text)
					}
				default:
					now += int64(r.IntN(40))
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range model {
				if m.expires != 0 && m.expires <= now {
					expiredStored++
				}
			}
			s.View(func(tx keyspace.Tx) error {
				for depth := 0; depth <= 3; depth++ {
					prefixes := []composite.Tuple{nil}
					for _, st := range states {
						if depth >= 1 {
							prefixes = append(prefixes, composite.Tuple{st})
						}
						for _, c := range cities {
							if depth >= 2 {
								prefixes = append(prefixes, composite.Tuple{st, c})
							}
						}
					}
					for _, prefix := range prefixes {
						got, err := tb.GroupCounts(tx, prefix, depth)
						if err != nil {
							t.Fatal(err)
						}
						want := map[string]int{}
						for text, m := range model {
							pk := keyOf(text)
							if (m.expires == 0 || m.expires > now) && slices.Equal(pk[:len(prefix)], prefix) {
								want[fmt.Sprint(pk[:depth])]++
							}
						}
						gotMap := map[string]int{}
						for _, g := range got {
							gotMap[fmt.Sprint(g.Group)] = g.Count
						}
						if fmt.Sprint(gotMap) != fmt.Sprint(want) {
							t.Fatalf("step %d, depth %d under %q: %v, recomputed %v", step, depth, prefix, gotMap, want)
						}
						if len(want) == 0 && len(prefix) == 2 && depth == 3 {
							emptied++
						}
					}
				}
				return nil
			})
		}
		// A stray expiry entry, due, of a record that does not expire.
		s.Update(func(tx keyspace.Tx) error {
			pk := composite.Tuple{"NY", "Albany", int64(99)}
			tb.Put(tx, pk, "stray")
			return tx.Put(tb.expiryKey(now-1, pk), nil)
		})
		s.View(func(tx keyspace.Tx) error {
			got, err := tb.GroupCounts(tx, composite.Tuple{"NY", "Albany"}, 3)
			if err != nil || !slices.ContainsFunc(got, func(g composite.GroupCount) bool { return g.Group[2] == int64(99) && g.Count == 1 }) {
				t.Fatalf("a stray expiry entry subtracted a live record: %v, %v", got, err)
			}
			return nil
		})
		if emptied == 0 || expiredStored < 100 {
			t.Fatalf("groups under a city were empty %d times, and %d expired records were counted before a delete: too few", emptied, expiredStored)
		}
	})
}

// TestIndexGroupCountsAgainstRecomputation: records with tags (a multikey
// index on (tag, descending level), tags repeated within a record, some
// records with none) written, re-expired and deleted while a fake clock
// moves; after each step the index's GroupCounts at every depth, under no
// prefix and under each tag and (tag, level), must equal counts
// recomputed from the records live in a model, in the order of the
// groups' packed keys; Distinct must list those groups.
func TestIndexGroupCountsAgainstRecomputation(t *testing.T) {
	tags := []string{"a", "a\x00", "b", ""}
	levels := []string{"hi", "lo", "lo\x00x"}
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(83, 84))
		now := int64(1e18)
		tb, ix := taggedTable(t, &now)
		type rec struct {
			r       tagged
			expires int64
		}
		model := map[int64]rec{}
		multikey, expiredStored := 0, 0
		for step := range 300 {
			err := s.Update(func(tx keyspace.Tx) error {
				id := int64(r.IntN(12))
				pk := composite.Tuple{id}
				switch op := r.IntN(10); {
				case op < 5:
					var v tagged
					for range r.IntN(4) {
						v.Tags = append(v.Tags, tags[r.IntN(len(tags))])
					}
					v.Level = levels[r.IntN(len(levels))]
					if _, err := tb.Put(tx, pk, v); err != nil {
						return err
					}
					model[id] = rec{r: v}
				case op < 8:
					if m, ok := model[id]; ok && (m.expires == 0 || m.expires > now) {
						at := now + int64(r.IntN(100)+1)
						if err := tb.SetExpiry(tx, pk, time.Unix(0, at)); err != nil {
							return err
						}
						m.expires = at
						model[id] = m
					}
				case op < 9:
					if err := tb.Delete(tx, pk); err == nil {
						delete(model, id)
					}
				default:
					now += int64(r.IntN(40))
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			s.View(func(tx keyspace.Tx) error {
				for depth := 0; depth <= 3; depth++ {
					prefixes := []composite.Tuple{nil}
					for _, tag := range tags {
						if depth >= 1 {
							prefixes = append(prefixes, composite.Tuple{tag})
						}
						for _, level := range levels {
							if depth >= 2 {
								prefixes = append(prefixes, composite.Tuple{tag, composite.Desc{V: level}})
							}
						}
					}
					for _, prefix := range prefixes {
						got, err := ix.GroupCounts(tx, prefix, depth)
						if err != nil {
							t.Fatal(err)
						}
						want := map[string]int{}
						for id, m := range model {
							if m.expires != 0 && m.expires <= now {
								expiredStored++
								continue
							}
							seen := map[string]bool{}
							for _, v := range taggedValues(m.r) {
								key := append(slices.Clone(v), id)
								packed := string(key.Pack())
								if seen[packed] || !slices.Equal(key[:len(prefix)], prefix) {
									continue
								}
								seen[packed] = true
								want[string(key[:depth].Pack())]++
							}
							if len(seen) > 1 {
								multikey++
							}
						}
						gotMap := map[string]int{}
						for i, g := range got {
							packed := string(g.Group.Pack())
							gotMap[packed] = g.Count
							if i > 0 && string(got[i-1].Group.Pack()) >= packed {
								t.Fatalf("step %d, depth %d under %q: groups out of order: %v", step, depth, prefix, got)
							}
						}
						if fmt.Sprint(gotMap) != fmt.Sprint(want) {
							t.Fatalf("step %d, depth %d under %q: %v, recomputed %v", step, depth, prefix, got, want)
						}
						// Distinct lists the same groups, in the same order,
						// reading one entry of each.
						var groups []composite.Tuple
						for _, g := range got {
							groups = append(groups, g.Group)
						}
						for _, limit := range []int{0, 1, 2} {
							want := groups
							if limit > 0 {
								want = groups[:min(limit, len(groups))]
							}
							if distinct, err := ix.Distinct(tx, prefix, depth, limit); err != nil || fmt.Sprint(distinct) != fmt.Sprint(want) {
								t.Fatalf("step %d, depth %d under %q, limit %d: Distinct %v (%v), the groups %v", step, depth, prefix, limit, distinct, err, want)
							}
						}
					}
				}
				return nil
			})
		}
		if multikey < 100 || expiredStored < 100 {
			t.Fatalf("%d records counted under several values, %d expired ones left out: too few", multikey, expiredStored)
		}
		s.View(func(tx keyspace.Tx) error {
			if _, err := ix.GroupCounts(tx, composite.Tuple{"a", "b"}, 1); err == nil {
				t.Error("a depth shallower than the prefix was taken")
			}
			return nil
		})
	})
}

// TestIndexDistinctSkipsLargeGroups: Distinct over groups of hundreds of
// entries (which it seeks past rather than reads through) and of one,
// with text that goes on past a zero byte ("a", "a\x00", "a\x00b"),
// descending components and groups whose records have all expired, must
// list the groups of the live records a model holds, in packed order,
// under each prefix and limit.
func TestIndexDistinctSkipsLargeGroups(t *testing.T) {
	tags := []string{"a", "a\x00", "a\x00b", "b", "", "gone"}
	levels := []string{"hi", "lo", "lo\x00x"}
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		r := rand.New(rand.NewPCG(49, 7))
		now := int64(1e18)
		tb, ix := taggedTable(t, &now)
		live := map[int]tagged{}
		if err := s.Update(func(tx keyspace.Tx) error {
			for id := range 1500 {
				v := tagged{Level: levels[r.IntN(len(levels))]}
				for range 1 + r.IntN(2) {
					if tag := tags[r.IntN(len(tags)-1)]; tag != "b" || r.IntN(100) == 0 { // b is rare: a group of few
						v.Tags = append(v.Tags, tag)
					}
				}
				expires := int64(0)
				if id%7 == 0 { // some records expire: all of those tagged gone
					v.Tags, expires = append(v.Tags, "gone"), now+1
				}
				if _, err := tb.Put(tx, composite.Tuple{int64(id)}, v); err != nil {
					return err
				}
				if expires != 0 {
					if err := tb.SetExpiry(tx, composite.Tuple{int64(id)}, time.Unix(0, expires)); err != nil {
						return err
					}
				} else {
					live[id] = v
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		now += 2 // the records tagged gone have expired
		prefixes := []composite.Tuple{nil}
		for _, tag := range tags {
			prefixes = append(prefixes, composite.Tuple{tag})
		}
		s.View(func(tx keyspace.Tx) error {
			for _, prefix := range prefixes {
				for depth := max(len(prefix), 1); depth <= 2; depth++ {
					want := map[string]composite.Tuple{}
					for _, rec := range live {
						for _, v := range taggedValues(rec) {
							if slices.Equal(v[:len(prefix)], prefix) {
								want[string(v[:depth].Pack())] = v[:depth]
							}
						}
					}
					var ordered []composite.Tuple
					for _, k := range slices.Sorted(maps.Keys(want)) {
						ordered = append(ordered, want[k])
					}
					for _, limit := range []int{0, 1, 3} {
						w := ordered
						if limit > 0 {
							w = ordered[:min(limit, len(ordered))]
						}
						got, err := ix.Distinct(tx, prefix, depth, limit)
						if err != nil || fmt.Sprint(got) != fmt.Sprint(w) {
							t.Fatalf("Distinct under %q, depth %d, limit %d: %v (%v), want %v", prefix, depth, limit, got, err, w)
						}
					}
				}
			}
			return nil
		})
	})
}

// tagged is the record of the GroupCounts and Distinct tests: tags, a
// multikey index's values, each with a descending level.
type tagged struct {
	Tags  []string
	Level string
}

// taggedValues are a tagged record's index values: (tag, Desc(level)) for
// each tag.
func taggedValues(r tagged) []composite.Tuple {
	var out []composite.Tuple
	for _, tag := range r.Tags {
		out = append(out, composite.Tuple{tag, composite.Desc{V: r.Level}})
	}
	return out
}

// taggedTable is a table of tagged records whose clock reads *now
// (Unix nanoseconds), and its index by_tag (taggedValues).
func taggedTable(t *testing.T, now *int64) (*Table[tagged], *Index[tagged]) {
	tb := New[tagged]("things", &Options{Now: func() time.Time { return time.Unix(0, *now) }})
	ix, err := tb.AddIndex(IndexSpec[tagged]{Name: "by_tag", Values: taggedValues})
	if err != nil {
		t.Fatal(err)
	}
	return tb, ix
}
