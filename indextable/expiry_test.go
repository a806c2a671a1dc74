package indextable

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/storetest"
)

// stored is the model's copy of a stored record, expired or not.
type stored struct {
	u       user
	version uint64
	expires int64 // nanoseconds since 1970, 0 for never
}

// expiryModel is the oracle for records that expire: the stored records
// and the clock the table reads.
type expiryModel struct {
	records map[int64]stored
	now     int64
	// What the run met, so a test can insist it met each.
	evicted, revived, unique int
}

func (m *expiryModel) live(id int64) (stored, bool) {
	rec, ok := m.records[id]
	return rec, ok && (rec.expires == 0 || rec.expires > m.now)
}

// holder is the other stored record with a user's unique email, if any.
func (m *expiryModel) holder(email string, self int64) (int64, bool) {
	for id, rec := range m.records {
		if id != self && email != "" && rec.u.Email == email {
			return id, true
		}
	}
	return 0, false
}

// put is the model of a write of u under id expiring at expires: an error
// if a live record holds its email, else the expired holder is deleted.
func (m *expiryModel) put(id int64, u user, expires int64) error {
	if h, ok := m.holder(u.Email, id); ok {
		if _, live := m.live(h); live {
			m.unique++
			return ErrUnique
		}
		delete(m.records, h)
		m.evicted++
	}
	old, live := m.live(id)
	if _, ok := m.records[id]; ok && !live {
		m.revived++
	}
	if !live {
		old.version = 0
	}
	m.records[id] = stored{u: u, version: old.version + 1, expires: expires}
	return nil
}

// TestExpiryAgainstModel runs random writes of records that expire (Put,
// PutAll with expiries, SetExpiry, Update, CompareAndSet, Delete,
// DeleteExpired) while a fake clock moves on, and after each checks Get,
// Scan (with and without a limit), every index's lookups (in pages)
// against a recomputation from the live records of a model, Index.Records,
// NextExpiry, and that Verify of the table and of every index finds
// nothing.
func TestExpiryAgainstModel(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		if m := expiryAgainstModel(t, s, 1, 1000); m.evicted == 0 || m.revived == 0 || m.unique == 0 {
			t.Errorf("the run never met an expired holder of a unique value, an expired record written again, or a violation")
		}
	})
}

// FuzzExpiryAgainstModel runs expiryAgainstModel from fuzzed seeds on a
// fuzzed backend.
func FuzzExpiryAgainstModel(f *testing.F) {
	storetest.FuzzEachBackend(f, func(t *testing.T, s keyspace.Store, seed uint64) { expiryAgainstModel(t, s, seed, 150) })
}

func expiryAgainstModel(t *testing.T, s keyspace.Store, seed uint64, steps int) *expiryModel {
	base := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	m := &expiryModel{records: map[int64]stored{}, now: base}
	tb := New[user]("users", &Options{Now: func() time.Time { return time.Unix(0, m.now) }})
	ix := addUserIndexes(t, tb)
	r := rand.New(rand.NewPCG(seed, 77))
	const ids = 25
	randomUser := func() user {
		u := user{Name: fmt.Sprint("n", r.IntN(50)), City: []string{"Oslo", "Lima", "a:b\x00c"}[r.IntN(3)],
			Status: []string{"open", "done"}[r.IntN(2)], Created: r.Int64N(100)}
		if r.IntN(2) == 0 {
			u.Email = fmt.Sprintf("u%d@x", r.IntN(6)) // few: values change hands
		}
		for range r.IntN(3) {
			u.Tags = append(u.Tags, []string{"go", "geo"}[r.IntN(2)])
		}
		return u
	}
	randomExpiry := func() int64 {
		if r.IntN(3) == 0 {
			return 0
		}
		return m.now + r.Int64N(int64(15*time.Second)) - int64(5*time.Second) // some already past
	}
	for step := range steps {
		id := int64(r.IntN(ids))
		var want error // the model's outcome
		var err error
		op := r.IntN(9)
		switch op {
		case 0, 1: // Put, and half the time SetExpiry in the same transaction
			u, at := randomUser(), int64(0)
			if r.IntN(2) == 0 {
				at = randomExpiry()
			}
			if want = m.put(id, u, 0); want == nil && at != 0 {
				rec := m.records[id]
				m.records[id] = stored{rec.u, rec.version + 1, at}
			}
			err = s.Update(func(tx keyspace.Tx) error {
				if _, err := tb.Put(tx, composite.Tuple{id}, u); err != nil || at == 0 {
					return err
				}
				return tb.SetExpiry(tx, composite.Tuple{id}, time.Unix(0, at))
			})
		case 2: // PutAll with expiries; a later row with the same key wins
			var rows []Row[user]
			for range 1 + r.IntN(5) {
				rows = append(rows, Row[user]{Key: composite.Tuple{int64(r.IntN(ids))}, Value: randomUser(), Expires: expiryTime(randomExpiry())})
				if r.IntN(3) == 0 {
					rows[len(rows)-1].Expires = time.Time{}
				}
			}
			want = m.putAll(rows)
			err = s.Update(func(tx keyspace.Tx) error { return tb.PutAll(tx, rows) })
		case 3: // SetExpiry, or PERSIST
			at := randomExpiry()
			if old, live := m.live(id); !live {
				want = keyspace.ErrNotFound
			} else {
				m.records[id] = stored{old.u, old.version + 1, at}
			}
			err = s.Update(func(tx keyspace.Tx) error { return tb.SetExpiry(tx, composite.Tuple{id}, expiryTime(at)) })
		case 4: // Update keeps the expiry; an expired record is none
			old, live := m.live(id)
			if !live {
				old = stored{}
			}
			old.u.Count++
			want = m.put(id, old.u, old.expires)
			err = s.Update(func(tx keyspace.Tx) error {
				_, err := tb.Update(tx, composite.Tuple{id}, func(u *user) error { u.Count++; return nil })
				return err
			})
		case 5: // CompareAndSet at the version the model has, or a wrong one
			old, live := m.live(id)
			version := old.version
			if !live {
				version = 0
			}
			if r.IntN(4) == 0 {
				version++
			}
			u := randomUser()
			if (live && version == old.version) || (!live && version == 0) {
				want = m.put(id, u, 0)
			} else {
				want = ErrVersion
			}
			err = s.Update(func(tx keyspace.Tx) error {
				_, err := tb.CompareAndSet(tx, composite.Tuple{id}, version, u)
				return err
			})
		case 6:
			delete(m.records, id)
			err = s.Update(func(tx keyspace.Tx) error { return tb.Delete(tx, composite.Tuple{id}) })
		case 7: // DeleteExpired as of a time near the clock's, with a limit
			at, limit := m.now+r.Int64N(int64(4*time.Second))-int64(2*time.Second), r.IntN(4)
			wantN := m.deleteExpired(at, limit)
			var n int
			err = s.Update(func(tx keyspace.Tx) error { n, err = tb.DeleteExpired(tx, time.Unix(0, at), limit); return err })
			if err == nil && n != wantN {
				t.Fatalf("step %d: DeleteExpired(%d) deleted %d, model %d", step, limit, n, wantN)
			}
		case 8:
			m.now += r.Int64N(int64(8 * time.Second))
		}
		if !errors.Is(err, want) || (want == nil) != (err == nil) {
			t.Fatalf("step %d (op %d): %v, model says %v", step, op, err, want)
		}
		checkExpiry(t, s, tb, ix, m, ids)
	}
	t.Logf("%d steps: %d expired holders of a unique value deleted, %d expired records written again, %d unique violations",
		steps, m.evicted, m.revived, m.unique)
	return m
}

func expiryTime(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n)
}

// putAll is the model of PutAll: the last row of each key, each checked
// against the other rows and the stored records before any is written.
func (m *expiryModel) putAll(rows []Row[user]) error {
	last := map[int64]Row[user]{}
	for _, row := range rows {
		last[row.Key[0].(int64)] = row
	}
	byEmail := map[string]int64{}
	for id, row := range last {
		e := row.Value.Email
		if other, ok := byEmail[e]; e != "" && ok && other != id {
			return ErrUnique
		}
		byEmail[e] = id
		if h, ok := m.holder(e, id); ok {
			if _, live := m.live(h); live {
				return ErrUnique
			}
		}
	}
	for id, row := range last {
		if h, ok := m.holder(row.Value.Email, id); ok {
			if _, rewritten := last[h]; !rewritten {
				delete(m.records, h)
				m.evicted++
			}
		}
	}
	for id, row := range last {
		old, live := m.live(id)
		if _, ok := m.records[id]; ok && !live {
			m.revived++
		}
		if !live {
			old.version = 0
		}
		m.records[id] = stored{row.Value, old.version + 1, nanos(row.Expires)}
	}
	return nil
}

// deleteExpired is the model of DeleteExpired: the records expired at at,
// soonest first (then in key order), at most limit (0: all).
func (m *expiryModel) deleteExpired(at int64, limit int) int {
	var due []int64
	for id, rec := range m.records {
		if rec.expires != 0 && rec.expires <= at {
			due = append(due, id)
		}
	}
	slices.SortFunc(due, func(a, b int64) int {
		return cmp.Or(cmp.Compare(m.records[a].expires, m.records[b].expires), cmp.Compare(a, b))
	})
	if limit > 0 && len(due) > limit {
		due = due[:limit]
	}
	for _, id := range due {
		delete(m.records, id)
	}
	return len(due)
}

func addUserIndexes(t *testing.T, tb *Table[user]) []*Index[user] {
	var out []*Index[user]
	for _, spec := range []IndexSpec[user]{
		{Name: "by_city", Values: func(u user) []composite.Tuple { return []composite.Tuple{{u.City}} },
			Cover: func(u user) any { return map[string]string{"name": u.Name} }},
		{Name: "by_email", Unique: true, Values: func(u user) []composite.Tuple {
			if u.Email == "" {
				return nil
			}
			return []composite.Tuple{{u.Email}}
		}},
		{Name: "by_tag", Values: func(u user) []composite.Tuple {
			var out []composite.Tuple
			for _, tag := range u.Tags {
				out = append(out, composite.Tuple{tag})
			}
			return out
		}},
	} {
		ix, err := tb.AddIndex(spec)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ix)
	}
	return out
}

// checkExpiry compares everything a reader sees with the model's live
// records.
func checkExpiry(t *testing.T, s keyspace.Store, tb *Table[user], indexes []*Index[user], m *expiryModel, ids int) {
	t.Helper()
	live := map[int64]user{}
	for id := range m.records {
		if rec, ok := m.live(id); ok {
			live[id] = rec.u
		}
	}
	err := s.View(func(tx keyspace.Tx) error {
		for id := range int64(ids) {
			rec, err := tb.Get(tx, composite.Tuple{id})
			want, ok := m.live(id)
			switch {
			case !ok && !errors.Is(err, keyspace.ErrNotFound):
				t.Fatalf("Get %d: %+v %v, want not found", id, rec, err)
			case ok && (err != nil || !reflect.DeepEqual(rec.Value, want.u) || rec.Version != want.version || nanos(rec.Expires) != want.expires):
				t.Fatalf("Get %d: %+v %v, want %+v", id, rec, err, want)
			}
		}
		// Scan with a limit counts live records.
		var first []int64
		rr := tb.Range()
		rr.Limit = 3
		if err := tb.Scan(tx, rr, func(rec Record[user]) bool { first = append(first, rec.Key[0].(int64)); return true }); err != nil {
			return err
		}
		all := slices.Sorted(maps.Keys(live))
		if want := all[:min(3, len(all))]; !slices.Equal(first, want) {
			t.Fatalf("Scan with Limit 3: %v, want %v", first, want)
		}
		for _, ix := range indexes {
			want := recompute(live, ix.spec.Values)
			var got [][2]string
			var entries []Entry
			opts := &ListOptions{Limit: 2}
			for {
				p, err := ix.Scan(tx, ix.All(), opts)
				if err != nil {
					return err
				}
				for _, e := range p.Entries {
					got = append(got, [2]string{fmt.Sprint(e.Value), fmt.Sprint(e.Key)})
					if id := e.Key[0].(int64); nanos(e.Expires) != m.records[id].expires {
						t.Fatalf("entry of %d says it expires at %v, model %d", id, e.Expires, m.records[id].expires)
					}
				}
				entries = append(entries, p.Entries...)
				if opts.Cursor = p.Next; p.Next == "" {
					break
				}
			}
			sortPairs(got)
			if !slices.Equal(got, want) {
				t.Fatalf("index %s:\n got %v\nwant %v", ix.Name(), got, want)
			}
			recs, err := ix.Records(tx, entries)
			if err != nil || len(recs) != len(entries) {
				t.Fatalf("Records of %s: %d of %d, %v", ix.Name(), len(recs), len(entries), err)
			}
			if problems, err := ix.Verify(tx); err != nil || len(problems) > 0 {
				t.Fatalf("Verify %s: %v %v", ix.Name(), problems, err)
			}
		}
		if problems, err := tb.Verify(tx); err != nil || len(problems) > 0 {
			t.Fatalf("table Verify: %v %v", problems, err)
		}
		var soonest int64
		for _, rec := range m.records {
			if rec.expires != 0 && (soonest == 0 || rec.expires < soonest) {
				soonest = rec.expires
			}
		}
		next, ok, err := tb.NextExpiry(tx)
		if err != nil || ok != (soonest != 0) || (ok && next.UnixNano() != soonest) {
			t.Fatalf("NextExpiry %v %v %v, model %d", next, ok, err, soonest)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func sortPairs(p [][2]string) {
	slices.SortFunc(p, func(a, b [2]string) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
}

// TestBadExpiry: an expiry not after 1970 or past 2262 is ErrBadExpiry
// from SetExpiry and PutAll, which write nothing; a record value or an
// entry whose expiry flag promises bytes it lacks is corrupt.
func TestBadExpiry(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		tb := New[user]("users", nil)
		addUserIndexes(t, tb)
		if err := s.Update(func(tx keyspace.Tx) error { _, err := tb.Put(tx, composite.Tuple{"a"}, user{City: "Oslo"}); return err }); err != nil {
			t.Fatal(err)
		}
		before := storetest.Contents(t, s)
		for _, at := range []time.Time{time.Unix(0, 0), time.Unix(-5, 0), time.Date(2263, 1, 1, 0, 0, 0, 0, time.UTC)} {
			err := s.Update(func(tx keyspace.Tx) error { return tb.SetExpiry(tx, composite.Tuple{"a"}, at) })
			if !errors.Is(err, ErrBadExpiry) {
				t.Errorf("SetExpiry %v: %v, want ErrBadExpiry", at, err)
			}
			err = s.Update(func(tx keyspace.Tx) error {
				return tb.PutAll(tx, []Row[user]{{Key: composite.Tuple{"b"}, Value: user{}}, {Key: composite.Tuple{"c"}, Value: user{}, Expires: at}})
			})
			if !errors.Is(err, ErrBadExpiry) {
				t.Errorf("PutAll %v: %v, want ErrBadExpiry", at, err)
			}
		}
		if after := storetest.Contents(t, s); !reflect.DeepEqual(before, after) {
			t.Errorf("a refused expiry changed the store")
		}
		for _, v := range [][]byte{{0x80, 0, 0, 0, 0, 0, 0, 1}, {0x80, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, '{', '}'}} {
			if _, _, _, err := splitRecordValue(v); err == nil {
				t.Errorf("record value %x read without error", v)
			}
		}
		for _, v := range [][]byte{{0x81, 0}, {0x81, 0, 0, 0, 0, 0, 0, 0, 0}} {
			if _, _, _, err := splitEntry(v); err == nil {
				t.Errorf("entry %x read without error", v)
			}
		}
	})
}

// TestExpiryRepair damages the expiry entries (lost, stray, moved, bytes
// no decoder reads): the table's Verify must find a problem exactly when
// they changed, and Repair put them back as the writes left them.
func TestExpiryRepair(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		for seed := range uint64(20) {
			r := rand.New(rand.NewPCG(seed, 8))
			tb := New[user]("users"+fmt.Sprint(seed), nil)
			if err := s.Update(func(tx keyspace.Tx) error {
				for i := range 20 {
					pk := composite.Tuple{int64(i)}
					if _, err := tb.Put(tx, pk, user{Name: fmt.Sprint(i)}); err != nil {
						return err
					}
					if r.IntN(2) == 0 {
						if err := tb.SetExpiry(tx, pk, time.Now().Add(time.Duration(1+r.IntN(100))*time.Hour)); err != nil {
							return err
						}
					}
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			sound := storetest.Contents(t, s)
			if err := s.Update(func(tx keyspace.Tx) error {
				var keys [][]byte
				for k := range tx.Scan(tb.expiry.Range()) {
					keys = append(keys, bytes.Clone(k))
				}
				for range 1 + r.IntN(3) {
					var err error
					switch {
					case r.IntN(2) == 0 && len(keys) > 0:
						err = tx.Delete(keys[r.IntN(len(keys))])
					case r.IntN(2) == 0:
						err = tx.Put(tb.expiryKey(int64(1+r.IntN(1e9)), composite.Tuple{int64(r.IntN(25))}), nil)
					default:
						err = tx.Put(append(tb.expiry.Bytes(), byte(r.IntN(255)), 0xff), nil) // no decoder reads it
					}
					if err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			str := func(do func(keyspace.Tx) ([]Problem, error)) func(keyspace.Tx) ([]string, error) {
				return func(tx keyspace.Tx) ([]string, error) {
					problems, err := do(tx)
					var out []string
					for _, p := range problems {
						out = append(out, p.String())
					}
					return out, err
				}
			}
			storetest.CheckRepair(t, s, sound, str(tb.Verify), str(tb.Repair))
		}
	})
}

// TestExpiryEdges: the instant of expiry itself, and the writes that meet
// an expired record: a unique value taken from it (by Put, and by PutAll
// with and without the holder among the rows), versions starting again.
func TestExpiryEdges(t *testing.T) {
	storetest.EachBackend(t, func(t *testing.T, s keyspace.Store) {
		at := time.Date(2031, 5, 1, 12, 0, 0, 0, time.UTC)
		now := at.Add(-time.Nanosecond)
		tb := New[user]("edges", &Options{Now: func() time.Time { return now }})
		indexes := addUserIndexes(t, tb)
		a, b := composite.Tuple{"a"}, composite.Tuple{"b"}
		update := func(fn func(tx keyspace.Tx) error) {
			t.Helper()
			if err := s.Update(fn); err != nil {
				t.Fatal(err)
			}
		}
		version := func(pk composite.Tuple) uint64 {
			t.Helper()
			var v uint64
			s.View(func(tx keyspace.Tx) error {
				rec, err := tb.Get(tx, pk)
				if err != nil {
					t.Fatalf("Get %v: %v", pk, err)
				}
				v = rec.Version
				return nil
			})
			return v
		}
		gone := func(pk composite.Tuple) bool {
			var err error
			s.View(func(tx keyspace.Tx) error { _, err = tb.Get(tx, pk); return nil })
			return errors.Is(err, keyspace.ErrNotFound)
		}
		putExpiring := func(pk composite.Tuple, u user) {
			update(func(tx keyspace.Tx) error {
				if _, err := tb.Put(tx, pk, u); err != nil {
					return err
				}
				return tb.SetExpiry(tx, pk, at)
			})
		}
		deleteExpired := func(when time.Time) (n int) {
			update(func(tx keyspace.Tx) (err error) { n, err = tb.DeleteExpired(tx, when, 0); return err })
			return n
		}
		clean := func() {
			t.Helper()
			s.View(func(tx keyspace.Tx) error {
				for _, ix := range indexes {
					if p, err := ix.Verify(tx); err != nil || len(p) > 0 {
						t.Fatalf("Verify %s: %v %v", ix.Name(), p, err)
					}
				}
				if p, err := tb.Verify(tx); err != nil || len(p) > 0 {
					t.Fatalf("table Verify: %v %v", p, err)
				}
				return nil
			})
		}

		putExpiring(a, user{Email: "e@x"})
		if gone(a) || version(a) != 2 {
			t.Fatalf("a nanosecond before its expiry the record is gone, or at version %d", version(a))
		}
		if n := deleteExpired(now); n != 0 {
			t.Fatalf("DeleteExpired a nanosecond early deleted %d", n)
		}
		now = at
		if !gone(a) {
			t.Fatal("at its expiry the record is still there")
		}
		err := s.Update(func(tx keyspace.Tx) error { _, err := tb.CompareAndSet(tx, a, 2, user{}); return err })
		if !errors.Is(err, ErrVersion) {
			t.Fatalf("CompareAndSet at the expired record's version: %v, want ErrVersion", err)
		}
		// Put takes the unique value from the expired record, deleting it.
		update(func(tx keyspace.Tx) error { _, err := tb.Put(tx, b, user{Email: "e@x"}); return err })
		if n := deleteExpired(at); n != 0 {
			t.Fatalf("DeleteExpired found %d records; the expired holder should be gone already", n)
		}
		clean()

		// PutAll takes it from an expired holder not among its rows…
		putExpiring(a, user{Email: "f@x"})
		update(func(tx keyspace.Tx) error { return tb.PutAll(tx, []Row[user]{{Key: b, Value: user{Email: "f@x"}}}) })
		if n := deleteExpired(at); n != 0 {
			t.Fatalf("DeleteExpired after PutAll found %d records", n)
		}
		clean()
		// …and from one among them, which is written again at version 1,
		// whichever row comes first.
		for i, holderFirst := range []bool{false, true} {
			now = at.Add(-time.Hour)
			email := fmt.Sprint("g", i, "@x")
			putExpiring(a, user{Email: email})
			now = at
			rows := []Row[user]{{Key: b, Value: user{Email: email}}, {Key: a, Value: user{Name: "again"}}}
			if holderFirst {
				rows[0], rows[1] = rows[1], rows[0]
			}
			update(func(tx keyspace.Tx) error { return tb.PutAll(tx, rows) })
			if gone(a) || version(a) != 1 || version(b) != uint64(3+i) {
				t.Fatalf("after PutAll (holder first %v): a gone %v, at version %d, b at %d", holderFirst, gone(a), version(a), version(b))
			}
			clean()
		}
		// A record expiring at the instant DeleteExpired is given is due.
		putExpiring(a, user{})
		if n := deleteExpired(at); n != 1 || !gone(a) {
			t.Fatalf("DeleteExpired at the expiry instant deleted %d", n)
		}
		// An expiry entry that its record does not bear deletes nothing
		// but itself.
		update(func(tx keyspace.Tx) error { return tx.Put(tb.expiryKey(at.Add(-time.Hour).UnixNano(), b), nil) })
		if n := deleteExpired(at); n != 0 || gone(b) {
			t.Fatalf("a stray expiry entry deleted %d records (b gone: %v)", n, gone(b))
		}
		clean()
		// An entry read before its record expired finds no record after.
		now = at.Add(-time.Hour)
		putExpiring(a, user{City: "Oslo"})
		s.View(func(tx keyspace.Tx) error {
			p, err := indexes[0].Scan(tx, indexes[0].Equal("Oslo"), nil)
			if err != nil || len(p.Entries) != 1 {
				t.Fatalf("Oslo: %v %v", p.Entries, err)
			}
			now = at
			if recs, err := indexes[0].Records(tx, p.Entries); err != nil || len(recs) != 0 {
				t.Fatalf("Records of an entry whose record has since expired: %v %v", recs, err)
			}
			return nil
		})
		// CompareAndSet at version 0 writes over an expired record.
		putExpiring(a, user{})
		update(func(tx keyspace.Tx) error { _, err := tb.CompareAndSet(tx, a, 0, user{Name: "lease"}); return err })
		if version(a) != 1 {
			t.Fatalf("CompareAndSet 0 over an expired record: version %d", version(a))
		}
		clean()
	})
}
