package enumkeys

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
	_ "time/tzdata" // real zones on any machine

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/internal/errctx"
	"github.com/keyspacedb/keyspace/storetest"
)

// model is the oracle: a plain list per parent.
type model struct {
	last  map[string]uint64
	items map[string][]Item // live items in id order
}

func newModel() *model { return &model{last: map[string]uint64{}, items: map[string][]Item{}} }

func (m *model) clone() *model {
	c := newModel()
	maps.Copy(c.last, m.last)
	for p, items := range m.items {
		c.items[p] = slices.Clone(items)
	}
	return c
}

func (m *model) append(it Item) {
	m.last[it.Parent] = it.ID
	m.items[it.Parent] = append(m.items[it.Parent], it)
}

func (m *model) delete(parent string, id uint64) {
	m.items[parent] = slices.DeleteFunc(m.items[parent], func(it Item) bool { return it.ID == id })
}

func (m *model) between(parent string, from, to time.Time) []Item {
	var out []Item
	for _, it := range m.items[parent] {
		if !it.Time.Before(from) && it.Time.Before(to) {
			out = append(out, it)
		}
	}
	slices.SortStableFunc(out, func(a, b Item) int { return a.Time.Compare(b.Time) }) // ties stay in id order
	return out
}

func sameItems(t *testing.T, what string, got, want []Item) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d items, model %d", what, len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.ID != w.ID || g.Parent != w.Parent || !g.Time.Equal(w.Time) || string(g.Data) != string(w.Data) {
			t.Fatalf("%s: item %d is %+v, model %+v", what, i, g, w)
		}
	}
}

// allPages reads a listing page by page through its cursors.
func allPages(t *testing.T, limit int, read func(cursor string) (Page, error)) []Item {
	t.Helper()
	var out []Item
	cursor := ""
	for pages := 0; ; pages++ {
		p, err := read(cursor)
		if err != nil {
			t.Fatal(err)
		}
		if limit > 0 && len(p.Items) > limit {
			t.Fatalf("page of %d items with limit %d", len(p.Items), limit)
		}
		out = append(out, p.Items...)
		if p.Next == "" {
			return out
		}
		cursor = p.Next
		if pages > 10_000 {
			t.Fatal("cursor does not advance")
		}
	}
}

func reversed(items []Item) []Item {
	out := slices.Clone(items)
	slices.Reverse(out)
	return out
}

func TestLogAgainstModel(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) { logAgainstModel(t, s, 1, 600, 20) })
}

// FuzzLogAgainstModel runs logAgainstModel from fuzzed seeds on a fuzzed
// backend, checking every five steps.
func FuzzLogAgainstModel(f *testing.F) {
	storetest.FuzzEachBackend(f, func(t *testing.T, s keyspace.Store, seed uint64) { logAgainstModel(t, s, seed, 60, 5) })
}

// logAgainstModel runs steps random transactions (appends at times out of
// order, deletes, a parent's whole deletion; one in eight rolled back
// after its write, which must not advance the parent's counter) on logs
// whose parents hold separators and zero bytes, and, every every steps,
// compares every read (counts, last ids, latest, ranges and days in
// several zones page by page, get, previous and next across deleted ids)
// with a model of what was committed.
func logAgainstModel(t *testing.T, s keyspace.Store, seed uint64, steps, every int) {
	zones := []string{"UTC", "America/New_York", "Asia/Kolkata", "Pacific/Chatham"}
	r := rand.New(rand.NewPCG(seed, 2))
	log := NewLog("inbox")
	m := newModel()
	parents := []string{"alice", "bob", "c:a\x00rol"} // separators and zero bytes
	base := time.Date(2026, 3, 7, 0, 0, 0, 0, time.UTC)
	for step := 0; step < steps; step++ {
		parent := parents[r.IntN(len(parents))]
		w := m.clone() // the transaction's writes, kept if it commits
		abort := r.IntN(8) == 0
		if storetest.UpdateOrAbort(t, s, abort, func(tx keyspace.Tx) error {
			switch op := r.IntN(20); {
			case op < 3: // AppendAll of a few entries, as appends in their order
				var entries []Entry
				for j := range 1 + r.IntN(4) {
					p := parents[r.IntN(len(parents))]
					entries = append(entries, Entry{p, base.Add(time.Duration(r.Int64N(int64(96 * time.Hour)))), []byte(fmt.Sprint("b", step, ".", j))})
				}
				ids, err := log.AppendAll(tx, entries)
				if err != nil {
					return err
				}
				for j, e := range entries {
					if ids[j] != w.last[e.Parent]+1 {
						t.Fatalf("AppendAll entry %d of %s got id %d after %d", j, e.Parent, ids[j], w.last[e.Parent])
					}
					w.append(Item{Parent: e.Parent, ID: ids[j], Time: e.At.UTC(), Data: e.Data})
				}
			case op < 14: // append, times out of order
				at := base.Add(time.Duration(r.Int64N(int64(96 * time.Hour))))
				it, err := log.Append(tx, parent, at, []byte(fmt.Sprint("m", step)))
				if err != nil {
					return err
				}
				if it.ID != w.last[parent]+1 {
					t.Fatalf("append to %s got id %d after %d", parent, it.ID, w.last[parent])
				}
				w.append(it)
			case op < 19 && len(w.items[parent]) > 0:
				id := w.items[parent][r.IntN(len(w.items[parent]))].ID
				if err := log.Delete(tx, parent, id); err != nil {
					return err
				}
				w.delete(parent, id)
			case op == 19 && r.IntN(3) == 0: // trim one parent or all, by time, length or both
				var opts TrimOptions
				if r.IntN(2) == 0 {
					opts.Before = base.Add(time.Duration(r.Int64N(int64(96 * time.Hour))))
				}
				if r.IntN(2) == 0 {
					opts.MaxLen = r.IntN(6)
				}
				trimmed := parents
				if r.IntN(2) == 0 {
					trimmed = []string{parent}
				}
				want := 0
				for _, p := range trimmed {
					live := w.items[p]
					var kept []Item
					for _, it := range live {
						if opts.Before.IsZero() || !it.Time.Before(opts.Before) {
							kept = append(kept, it)
						}
					}
					if opts.MaxLen > 0 && len(kept) > opts.MaxLen {
						kept = kept[len(kept)-opts.MaxLen:] // the newest by id
					}
					want += len(live) - len(kept)
					if len(kept) > 0 || w.items[p] != nil {
						w.items[p] = kept
					}
				}
				var n int
				var err error
				if len(trimmed) == 1 {
					n, err = log.Trim(tx, parent, opts)
				} else {
					n, err = log.TrimAll(tx, opts)
				}
				if err != nil || n != want {
					t.Fatalf("trim %v of %q = %d, %v; model %d", opts, trimmed, n, err, want)
				}
			case op == 19 && r.IntN(5) == 0:
				n, err := log.DeleteParent(tx, parent)
				if err != nil || n != len(w.items[parent]) {
					t.Fatalf("DeleteParent(%s) = %d, %v; model has %d", parent, n, err, len(w.items[parent]))
				}
				delete(w.items, parent)
				delete(w.last, parent)
			}
			return nil
		}) {
			m = w
		}
		if step%every != every-1 {
			continue
		}
		s.View(func(tx keyspace.Tx) error {
			// A log kept by its own methods verifies clean.
			if problems, err := log.Verify(tx); err != nil || len(problems) > 0 {
				t.Fatalf("step %d: Verify = %q, %v", step, problems, err)
			}
			modelEmpty := true
			for _, p := range parents {
				modelEmpty = modelEmpty && len(m.items[p]) == 0
			}
			if empty, err := log.Empty(tx); err != nil || empty != modelEmpty {
				t.Fatalf("step %d: Empty = %v, %v; the model holds %d parents' items", step, empty, err, len(m.items))
			}
			for _, p := range parents {
				live := m.items[p]
				if n, _ := log.Count(tx, p); n != len(live) {
					t.Fatalf("Count(%s) = %d, model %d", p, n, len(live))
				}
				if last, _ := log.LastID(tx, p); last != m.last[p] {
					t.Fatalf("LastID(%s) = %d, model %d", p, last, m.last[p])
				}
				if len(live) > 0 {
					n := 1 + r.IntN(5)
					got, err := log.Latest(tx, p, n)
					if err != nil {
						t.Fatal(err)
					}
					sameItems(t, "latest", got, reversed(live)[:min(n, len(live))])
				}
				limit := r.IntN(4)
				fwd := allPages(t, limit, func(c string) (Page, error) {
					return log.Range(tx, p, 0, ^uint64(0), &ListOptions{Limit: limit, Cursor: c})
				})
				sameItems(t, "range", fwd, live)
				back := allPages(t, limit, func(c string) (Page, error) {
					return log.Range(tx, p, 0, ^uint64(0), &ListOptions{Reverse: true, Limit: limit, Cursor: c})
				})
				sameItems(t, "reverse range", back, reversed(live))
				for id := uint64(1); id <= m.last[p]; id++ {
					idx := slices.IndexFunc(live, func(it Item) bool { return it.ID == id })
					got, err := log.Get(tx, p, id)
					if idx < 0 {
						if !errors.Is(err, keyspace.ErrNotFound) {
							t.Fatalf("Get(%s, deleted %d) = %v", p, id, err)
						}
					} else if err != nil || got.ID != id || string(got.Data) != string(live[idx].Data) {
						t.Fatalf("Get(%s, %d) = %+v, %v", p, id, got, err)
					}
					// Prev and Next, across deleted ids.
					wantPrev := -1
					for i, it := range live {
						if it.ID < id {
							wantPrev = i
						}
					}
					prev, err := log.Prev(tx, p, id)
					if wantPrev < 0 != errors.Is(err, keyspace.ErrNotFound) || wantPrev >= 0 && prev.ID != live[wantPrev].ID {
						t.Fatalf("Prev(%s, %d) = %d, %v", p, id, prev.ID, err)
					}
					wantNext := slices.IndexFunc(live, func(it Item) bool { return it.ID > id })
					next, err := log.Next(tx, p, id)
					if wantNext < 0 != errors.Is(err, keyspace.ErrNotFound) || wantNext >= 0 && next.ID != live[wantNext].ID {
						t.Fatalf("Next(%s, %d) = %d, %v", p, id, next.ID, err)
					}
				}
				for _, id := range []uint64{0, m.last[p] + 1} {
					if _, err := log.Get(tx, p, id); !errors.Is(err, ErrBadID) {
						t.Fatalf("Get(%s, %d) = %v, want ErrBadID", p, id, err)
					}
				}
				// Days in several zones, and an arbitrary period.
				loc, _ := time.LoadLocation(zones[r.IntN(len(zones))])
				day := base.Add(time.Duration(r.IntN(5)*24) * time.Hour).In(loc)
				from, to := DayBounds(day)
				got := allPages(t, limit, func(c string) (Page, error) {
					return log.Day(tx, p, day, &ListOptions{Limit: limit, Cursor: c})
				})
				sameItems(t, "day "+day.String(), got, m.between(p, from, to))
				if n, _ := log.CountDay(tx, p, day); n != len(got) {
					t.Fatalf("CountDay = %d, listed %d", n, len(got))
				}
				a := base.Add(time.Duration(r.Int64N(int64(96 * time.Hour))))
				b := a.Add(time.Duration(r.Int64N(int64(30 * time.Hour))))
				gotB, _ := log.Between(tx, p, a, b, &ListOptions{Reverse: true})
				sameItems(t, "between reversed", gotB.Items, reversed(m.between(p, a, b)))
			}
			// Scan: every parent's items, parents in key order, paged
			// either way.
			var all []Item
			for _, p := range slices.Sorted(maps.Keys(m.items)) {
				all = append(all, m.items[p]...)
			}
			limit := r.IntN(4)
			sameItems(t, "scan", allPages(t, limit, func(c string) (Page, error) {
				return log.Scan(tx, &ListOptions{Limit: limit, Cursor: c})
			}), all)
			sameItems(t, "reverse scan", allPages(t, limit, func(c string) (Page, error) {
				return log.Scan(tx, &ListOptions{Reverse: true, Limit: limit, Cursor: c})
			}), reversed(all))
			// Parents: every parent with a counter (appended to, and not
			// deleted whole), in key order, paged either way.
			var want []ParentCount
			for p, last := range m.last {
				want = append(want, ParentCount{Parent: p, Count: len(m.items[p]), LastID: last})
			}
			slices.SortFunc(want, func(a, b ParentCount) int { return strings.Compare(a.Parent, b.Parent) })
			for _, reverse := range []bool{false, true} {
				limit, cursor := r.IntN(3), ""
				var got []ParentCount
				for pages := 0; pages <= len(want)+1; pages++ {
					page, err := log.Parents(tx, &ListOptions{Limit: limit, Cursor: cursor, Reverse: reverse})
					if err != nil || limit > 0 && len(page.Parents) > limit {
						t.Fatalf("Parents: %d with limit %d, %v", len(page.Parents), limit, err)
					}
					got = append(got, page.Parents...)
					if cursor = page.Next; cursor == "" {
						break
					}
				}
				if reverse {
					slices.Reverse(got)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("step %d: Parents (reverse %v, limit %d) = %+v; model %+v", step, reverse, limit, got, want)
				}
			}
			return nil
		})
	}
}

func TestDayPacking(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	s := keyspace.NewMemory()
	log := NewLog("l")
	// 2026-03-08 is the spring-forward day in New York: 23 hours long.
	stamps := []time.Time{
		time.Date(2026, 3, 7, 23, 59, 59, 999_999_999, ny), // the day before, last nanosecond
		time.Date(2026, 3, 8, 0, 0, 0, 0, ny),              // midnight: the day's first
		time.Date(2026, 3, 8, 3, 30, 0, 0, ny),             // after the jump
		time.Date(2026, 3, 8, 1, 59, 0, 0, ny),             // appended out of order
		time.Date(2026, 3, 8, 23, 59, 59, 0, ny),           // the day's last second
		time.Date(2026, 3, 9, 0, 0, 0, 0, ny),              // next midnight: the next day
	}
	s.Update(func(tx keyspace.Tx) error {
		for _, at := range stamps {
			if _, err := log.Append(tx, "u", at, nil); err != nil {
				t.Fatal(err)
			}
		}
		return nil
	})
	s.View(func(tx keyspace.Tx) error {
		from, to := DayBounds(time.Date(2026, 3, 8, 12, 0, 0, 0, ny))
		if to.Sub(from) != 23*time.Hour {
			t.Errorf("spring-forward day is %v long", to.Sub(from))
		}
		p, err := log.Day(tx, "u", time.Date(2026, 3, 8, 12, 0, 0, 0, ny), nil)
		if err != nil {
			t.Fatal(err)
		}
		var ids []uint64
		for _, it := range p.Items {
			ids = append(ids, it.ID)
		}
		// In time order: midnight (2), 01:59 (4), 03:30 (3), 23:59:59 (5).
		if !slices.Equal(ids, []uint64{2, 4, 3, 5}) {
			t.Errorf("items on 2026-03-08 in New York: ids %v, want [2 4 3 5]", ids)
		}
		// The same instants seen from UTC fall on other days: New York is
		// 5 hours behind before the change and 4 after, so UTC's 2026-03-08
		// holds the first four stamps (04:59:59.999 to 07:30 UTC) and not
		// the last two (03:59:59 and 04:00 on the 9th).
		if n, _ := log.CountDay(tx, "u", time.Date(2026, 3, 8, 12, 0, 0, 0, time.UTC)); n != 4 {
			t.Errorf("items on 2026-03-08 UTC: %d, want 4", n)
		}
		return nil
	})
}

func TestBadInput(t *testing.T) {
	s := keyspace.NewMemory()
	log := NewLog("l")
	err := s.Update(func(tx keyspace.Tx) error {
		_, err := log.Append(tx, "", time.Now(), nil)
		return err
	})
	if !errors.Is(err, ErrEmptyParent) {
		t.Errorf("Append with no parent = %v", err)
	}
	err = s.Update(func(tx keyspace.Tx) error {
		_, err := log.Append(tx, "u", time.Date(2300, 1, 1, 0, 0, 0, 0, time.UTC), nil)
		return err
	})
	if !errors.Is(err, ErrBadTime) {
		t.Errorf("Append in 2300 = %v", err)
	}
	if s.Len() != 0 {
		t.Errorf("failed appends left %d keys", s.Len())
	}
	s.Update(func(tx keyspace.Tx) error { _, err := log.Append(tx, "u", time.Time{}, nil); return err })
	s.View(func(tx keyspace.Tx) error {
		now := time.Now()
		checks := map[string]error{
			"Between backwards": func() error { _, err := log.Between(tx, "u", now, now.Add(-time.Hour), nil); return err }(),
			"Range backwards":   func() error { _, err := log.Range(tx, "u", 5, 2, nil); return err }(),
			"Latest 0":          func() error { _, err := log.Latest(tx, "u", 0); return err }(),
			"negative limit":    func() error { _, err := log.Range(tx, "u", 1, 2, &ListOptions{Limit: -1}); return err }(),
		}
		for name, err := range checks {
			if !errors.Is(err, ErrBadRange) {
				t.Errorf("%s = %v, want ErrBadRange", name, err)
			}
		}
		// Zero ends, and ends no key can hold, are open: the one item
		// (stamped now by its zero time) is in every such period.
		far, ancient := time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
		for _, p := range [][2]time.Time{{{}, {}}, {ancient, far}, {{}, far}, {ancient, {}}} {
			page, err := log.Between(tx, "u", p[0], p[1], nil)
			n, cerr := log.CountBetween(tx, "u", p[0], p[1])
			if err != nil || cerr != nil || len(page.Items) != 1 || n != 1 {
				t.Errorf("Between(%s, %s) = %d items, %v; count %d, %v; want 1", p[0], p[1], len(page.Items), err, n, cerr)
			}
		}
		if page, err := log.Between(tx, "u", far, time.Time{}, nil); err != nil || len(page.Items) != 0 {
			t.Errorf("Between(3000, ∞) = %d items, %v; want none", len(page.Items), err)
		}
		for _, id := range []uint64{0, 2} {
			if _, err := log.Prev(tx, "u", id); !errors.Is(err, ErrBadID) {
				t.Errorf("Prev(%d) = %v, want ErrBadID", id, err)
			}
		}
		// A parent with nothing in it is named as such, not as "ids 1…0".
		if _, err := log.Get(tx, "nobody", 3); !errors.Is(err, ErrBadID) || err.Error() != `enumkeys: log `+log.Name()+`: id out of range: "nobody" has no items yet, so no id 3` {
			t.Errorf("Get(nobody, 3) = %v", err)
		}
		if _, err := log.Range(tx, "u", 1, 2, &ListOptions{Cursor: "garbage"}); !errors.Is(err, keyspace.ErrBadCursor) {
			t.Errorf("bad cursor = %v", err)
		}
		return nil
	})
}

// TestConcurrentAppends: many goroutines append to shared and private
// parents; every id is unique, and per parent the ids are dense and rise in
// commit order (taken from a sequence written in the same transaction).
func TestConcurrentAppends(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		log := NewLog("l")
		seq := NewLog("commit-order")
		type rec struct {
			commit uint64
			parent string
			id     uint64
		}
		var mu sync.Mutex
		var recs []rec
		var wg sync.WaitGroup
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 40; i++ {
					parent := []string{"shared", fmt.Sprint("own", g)}[i%2]
					var got []rec
					err := s.Update(func(tx keyspace.Tx) error {
						got = got[:0]
						c, err := seq.Append(tx, "all", time.Unix(0, 0), nil)
						if err != nil {
							return err
						}
						for j := 0; j < 1+i%3; j++ { // several appends in one transaction
							it, err := log.Append(tx, parent, time.Time{}, nil)
							if err != nil {
								return err
							}
							got = append(got, rec{c.ID, parent, it.ID})
						}
						if i%7 == 0 {
							return errors.New("roll back") // consumes no id
						}
						return nil
					})
					if err == nil {
						mu.Lock()
						recs = append(recs, got...)
						mu.Unlock()
					}
				}
			}()
		}
		wg.Wait()
		slices.SortStableFunc(recs, func(a, b rec) int { return int(a.commit) - int(b.commit) })
		last := map[string]uint64{}
		for _, r := range recs {
			if r.id != last[r.parent]+1 {
				t.Fatalf("%s: id %d after %d in commit order", r.parent, r.id, last[r.parent])
			}
			last[r.parent] = r.id
		}
		s.View(func(tx keyspace.Tx) error {
			for p, id := range last {
				if n, _ := log.Count(tx, p); uint64(n) != id {
					t.Errorf("%s: count %d, last id %d", p, n, id)
				}
			}
			return nil
		})
	})
}

// TestDrop drops one log among others whose names start with its name:
// exactly its keys go (decided by unpacking every key), it reports its
// items, and ids start again from 1.
func TestDrop(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		names := []string{"inbox", "inbox2", "inbox\x00", "in"}
		items := map[string]int{}
		at := time.Date(2026, 3, 29, 1, 30, 0, 0, time.UTC)
		err := s.Update(func(tx keyspace.Tx) error {
			for i, name := range names {
				log := NewLog(name)
				for j := range 20 + i {
					parent := fmt.Sprint("user", j%3)
					item, err := log.Append(tx, parent, at.Add(time.Duration(j)*time.Hour), []byte("hi"))
					if err != nil {
						return err
					}
					if j%5 == 4 { // deleted items are not counted, and leave their counter
						if err := log.Delete(tx, parent, item.ID); err != nil {
							return err
						}
						continue
					}
					items[name]++
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		log := NewLog("inbox")
		empty := func() bool {
			var e bool
			if err := s.View(func(tx keyspace.Tx) (err error) { e, err = log.Empty(tx); return err }); err != nil {
				t.Fatal(err)
			}
			return e
		}
		if empty() {
			t.Error("Empty before Drop")
		}
		storetest.CheckDrop(t, s, log.Drop, items["inbox"], func(key string) bool {
			k, err := composite.Unpack([]byte(key))
			return err == nil && len(k) > 1 && k[0] == "e" && k[1] == "inbox"
		})
		if !empty() {
			t.Error("not Empty after Drop")
		}
		err = s.Update(func(tx keyspace.Tx) error {
			item, err := log.Append(tx, "user0", at, nil)
			if err == nil && item.ID != 1 {
				t.Errorf("the first item after Drop has id %d, want 1", item.ID)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzLogRepair: after random appends (some stamped alike) and deletes,
// what the log derives from its items is damaged at random: time entries
// deleted, given bytes, or added (some that do not decode), and counters'
// counts changed or added for parents with no items. Verify must find a
// problem exactly when something changed, and Repair must put every key
// back as the log's own methods left it. A counter whose last id falls
// below its newest item is raised to it.
func FuzzLogRepair(f *testing.F) {
	storetest.FuzzEachBackend(f, func(t *testing.T, s keyspace.Store, seed uint64) {
		r := rand.New(rand.NewPCG(seed, 47))
		log := NewLog("inbox")
		at := time.Date(2026, 11, 23, 23, 0, 0, 0, time.UTC)
		if err := s.Update(func(tx keyspace.Tx) error {
			for range 60 {
				parent := fmt.Sprint("u", r.IntN(4))
				if r.IntN(4) == 0 {
					if last, _ := log.LastID(tx, parent); last > 0 {
						err := log.Delete(tx, parent, 1+uint64(r.IntN(int(last))))
						if err != nil && !errors.Is(err, keyspace.ErrNotFound) {
							return err
						}
						continue
					}
				}
				if _, err := log.Append(tx, parent, at.Add(time.Duration(r.IntN(30))*time.Minute), []byte("m")); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		sound := storetest.Contents(t, s)
		if err := s.Update(func(tx keyspace.Tx) error {
			var times, counters [][]byte
			for k := range tx.Scan(log.times.Range()) {
				times = append(times, slices.Clone(k))
			}
			for k := range tx.Scan(log.counters.Range()) {
				counters = append(counters, slices.Clone(k))
			}
			for range 1 + r.IntN(4) {
				var err error
				switch r.IntN(6) {
				case 0:
					if len(times) > 0 {
						err = tx.Delete(times[r.IntN(len(times))])
					}
				case 1:
					if len(times) > 0 {
						err = tx.Put(times[r.IntN(len(times))], []byte("x"))
					}
				case 2:
					err = tx.Put(log.times.Pack(composite.Tuple{fmt.Sprint("u", r.IntN(6)), at, uint64(r.IntN(40))}), nil)
				case 3:
					err = tx.Put(append(log.times.Bytes(), byte(r.IntN(255)), 0xff), nil) // does not decode
				case 4:
					if len(counters) > 0 { // the count, not the last id, which only the counter knows
						k := counters[r.IntN(len(counters))]
						v, _ := tx.Get(k)
						err = tx.Put(k, append(slices.Clone(v[:8]), 0, 0, 0, 0, 0, 0, 0, byte(r.IntN(9))))
					}
				default:
					err = tx.Put(log.counters.Pack(composite.Tuple{fmt.Sprint("v", r.IntN(3))}), counter{count: uint64(r.IntN(3))}.bytes())
				}
				if err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		storetest.CheckRepair(t, s, sound, log.Verify, log.Repair)
		// A last id below the newest item is raised to it.
		var parent string
		var newest uint64
		s.View(func(tx keyspace.Tx) error {
			for _, p := range []string{"u0", "u1", "u2", "u3"} {
				if items, _ := log.Latest(tx, p, 1); len(items) > 0 {
					parent, newest = p, items[0].ID
				}
			}
			return nil
		})
		if parent == "" {
			return
		}
		s.Update(func(tx keyspace.Tx) error {
			c, _ := log.readCounter(tx, parent)
			c.last = newest - 1
			return log.writeCounter(tx, parent, c)
		})
		var fixed []string
		s.Update(func(tx keyspace.Tx) (err error) { fixed, err = log.Repair(tx); return err })
		if len(fixed) != 1 || !strings.Contains(fixed[0], "last id") {
			t.Errorf("a last id below the newest item: Repair fixed %q", fixed)
		}
		s.View(func(tx keyspace.Tx) error {
			if last, _ := log.LastID(tx, parent); last != newest {
				t.Errorf("after Repair, %s's last id is %d, want %d", parent, last, newest)
			}
			return nil
		})
	})
}

// TestParentsAtTheKeyLimit: the longest parent Append takes (found by
// bisection over parentFits; plain bytes and zero bytes, which pack into
// two) is written, with the latest time a key holds, as the store itself,
// which refuses keys past MaxKeySize, is the judge; one byte more is
// refused with ErrKeyTooLarge naming the parent, and nothing is written,
// even in the transaction that saw the refusal.
func TestParentsAtTheKeyLimit(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		log := NewLog("long")
		_, last := composite.TimeBounds()
		for _, fill := range []string{"p", "\x00"} {
			longest := sort.Search(keyspace.MaxKeySize, func(n int) bool { return log.parentFits(strings.Repeat(fill, n+1)) != nil })
			over := strings.Repeat(fill, longest+1)
			if n := len(log.times.Pack(composite.Tuple{over, last, uint64(1)})); n <= keyspace.MaxKeySize-timeEntryExtra {
				t.Errorf("%q: a parent of %d bytes is refused, and its time entry is %d bytes", fill, longest+1, n)
			}
			err := storetest.RefusedChangesNothing(t, s, func(tx keyspace.Tx) error { _, err := log.Append(tx, over, last, []byte("x")); return err })
			if !errors.Is(err, keyspace.ErrKeyTooLarge) || !strings.Contains(err.Error(), "parent "+errctx.Quote(over)) {
				t.Errorf("%q: Append(%d-byte parent) = %v, want ErrKeyTooLarge naming it", fill, longest+1, err)
			}
			fits := strings.Repeat(fill, longest)
			if err := s.Update(func(tx keyspace.Tx) error {
				for range 2 {
					if _, err := log.Append(tx, fits, last, []byte("x")); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				t.Fatalf("%q: Append(%d-byte parent): %v", fill, longest, err)
			}
			s.View(func(tx keyspace.Tx) error {
				if n, err := log.Count(tx, fits); n != 2 || err != nil {
					t.Errorf("%q: Count = %d, %v; want 2", fill, n, err)
				}
				return nil
			})
		}
	})
}
