package cli_test

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// message is a row of the files TestLogImportAgainstRows imports.
type message struct {
	user  string
	at    time.Time
	post  int
	text  string
	index int // its place in the file
}

// logItems reads every item of a parent's log with log range, in id order.
func logItems(t *testing.T, db, log, parent string) []struct {
	ID   uint64
	Time time.Time
	Data string
} {
	t.Helper()
	out, stderr, code := run(t, "", "--db", db, "--output", "json", "log", "range", "--log", log, "--parent", parent)
	var page struct {
		Items []struct {
			ID   uint64
			Time time.Time
			Data string
		}
	}
	if err := json.Unmarshal([]byte(out), &page); code != 0 || err != nil {
		t.Fatalf("log range %s %s: exit %d, %v: %s", log, parent, code, err, stderr)
	}
	return page.Items
}

// TestLogImportAgainstRows: log import of the same messages as CSV, NDJSON
// and XML gives each parent the items the rows name, in time order (ties
// in file order), with ids continuing from the parent's last, and the
// data each file's row holds; checked against the rows themselves.
func TestLogImportAgainstRows(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(3, 4))
	base := time.Date(2016, 3, 1, 0, 0, 0, 0, time.UTC)
	texts := []string{"plain", `with "quotes", commas`, "two\nlines", "cr\rhere", "ünïcode ✓", "", "<tag> & ampersand", " padded "}
	var msgs []message
	for i := range 120 {
		msgs = append(msgs, message{
			user:  fmt.Sprint("u", r.IntN(7)),
			at:    base.Add(time.Duration(r.IntN(40)) * time.Hour).Add(time.Duration(r.IntN(3)) * 250 * time.Millisecond), // ties
			post:  r.IntN(1000),
			text:  texts[r.IntN(len(texts))],
			index: i,
		})
	}
	var csvBuf, ndjson, xmlBuf bytes.Buffer
	w := csv.NewWriter(&csvBuf)
	w.Write([]string{"UserId", "CreationDate", "PostId", "Text"})
	xmlBuf.WriteString("\ufeff<?xml version=\"1.0\" encoding=\"utf-8\"?>\r\n<comments>\r\n")
	for _, m := range msgs {
		// The XML writes Stack Exchange's time without a zone, the CSV
		// RFC 3339, the NDJSON Unix seconds.
		w.Write([]string{m.user, m.at.Format(time.RFC3339Nano), fmt.Sprint(m.post), m.text})
		line, _ := json.Marshal(map[string]any{"UserId": m.user, "CreationDate": float64(m.at.UnixMilli()) / 1000, "PostId": m.post, "Text": m.text})
		ndjson.Write(append(line, '\n'))
		fmt.Fprintf(&xmlBuf, "  <row UserId=%q CreationDate=\"%s\" PostId=\"%d\" Text=\"", m.user, m.at.Format("2006-01-02T15:04:05.000"), m.post)
		xml.EscapeText(&xmlBuf, []byte(m.text))
		xmlBuf.WriteString("\" />\r\n")
	}
	w.Flush()
	xmlBuf.WriteString("</comments>\r\n")
	files := map[string]string{}
	for format, body := range map[string][]byte{"csv": csvBuf.Bytes(), "ndjson": ndjson.Bytes(), "xml": xmlBuf.Bytes()} {
		files[format] = filepath.Join(dir, "messages."+format)
		if err := os.WriteFile(files[format], body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The model: each user's messages in time order, ties in file order.
	byUser := map[string][]message{}
	for _, m := range msgs {
		byUser[m.user] = append(byUser[m.user], m)
	}
	for _, ms := range byUser {
		slices.SortStableFunc(ms, func(a, b message) int { return a.at.Compare(b.at) })
	}
	for _, tc := range []struct {
		format string
		args   []string
		data   func(m message) any // what an item's data decodes to
	}{
		{"csv", nil, func(m message) any { return map[string]any{"PostId": fmt.Sprint(m.post), "Text": m.text} }},
		{"csv", []string{"--typed"}, func(m message) any { return map[string]any{"PostId": float64(m.post), "Text": m.text} }},
		{"ndjson", nil, func(m message) any { return map[string]any{"PostId": float64(m.post), "Text": m.text} }},
		{"xml", nil, func(m message) any { return map[string]any{"PostId": fmt.Sprint(m.post), "Text": m.text} }},
		{"xml", []string{"--data-col", "Text"}, func(m message) any { return m.text }},
	} {
		t.Run(tc.format+strings.Join(tc.args, ""), func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "k.db")
			// u0 has two items already: its imported ids start at 3.
			for range 2 {
				if _, stderr, code := run(t, "", "--db", db, "log", "append", "--log", "c", "--parent", "u0", "before"); code != 0 {
					t.Fatal(stderr)
				}
			}
			args := append([]string{"--db", db, "log", "import", "--log", "c", "--parent-col", "UserId", "--time-col", "CreationDate", "--format", tc.format}, tc.args...)
			_, stderr, code := run(t, "", append(args, files[tc.format])...)
			if code != 0 || !strings.Contains(stderr, fmt.Sprintf("imported %d items into log c under %d parents", len(msgs), len(byUser))) {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			for user, ms := range byUser {
				items := logItems(t, db, "c", user)
				first := uint64(1)
				if user == "u0" {
					first, items = 3, items[2:]
				}
				if len(items) != len(ms) {
					t.Fatalf("%s: %d items, want %d", user, len(items), len(ms))
				}
				for i, it := range items {
					m := ms[i]
					var got any = it.Data
					if _, isText := tc.data(m).(string); !isText {
						got = nil
						if err := json.Unmarshal([]byte(it.Data), &got); err != nil {
							t.Fatalf("%s item %d: data %q: %v", user, it.ID, it.Data, err)
						}
					}
					if it.ID != first+uint64(i) || !it.Time.Equal(m.at) || !reflect.DeepEqual(got, tc.data(m)) {
						t.Errorf("%s: item %d at %v holds %#v, want item %d at %v holding %#v (row %d)",
							user, it.ID, it.Time, got, first+uint64(i), m.at, tc.data(m), m.index)
					}
				}
			}
			// log parents, two a page: each user's count and last id.
			var parents []string
			for cursor, pages := "", 0; pages == 0 || cursor != ""; pages++ {
				out, stderr, code := run(t, "", "--db", db, "--output", "json", "log", "parents", "--log", "c", "--limit", "2", "--cursor", cursor)
				var page struct {
					Parents []struct {
						Parent string
						Items  int
						LastID uint64 `json:"last_id"`
					}
					Next string
				}
				if err := json.Unmarshal([]byte(out), &page); code != 0 || err != nil || len(page.Parents) > 2 || pages > len(byUser) {
					t.Fatalf("log parents: exit %d, %v, %d parents on page %d: %s", code, err, len(page.Parents), pages, stderr)
				}
				for _, p := range page.Parents {
					want := len(byUser[p.Parent])
					if p.Parent == "u0" {
						want += 2
					}
					if p.Items != want || p.LastID != uint64(want) {
						t.Errorf("log parents: %+v, want %d items, last id %d", p, want, want)
					}
					parents = append(parents, p.Parent)
				}
				cursor = page.Next
			}
			if !slices.IsSorted(parents) || len(parents) != len(byUser) {
				t.Errorf("log parents listed %v, want the %d users in order", parents, len(byUser))
			}
			if out, stderr, code := run(t, "", "--db", db, "verify"); code != 0 {
				t.Errorf("verify: exit %d: %s%s", code, out, stderr)
			}
		})
	}
}

// TestLogImportRoundTrip: one parent's items exported with log range
// --output ndjson import back, under --parent, as the same times and data.
func TestLogImportRoundTrip(t *testing.T) {
	dir := t.TempDir()
	from, to := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	base := time.Date(2026, 1, 2, 3, 4, 5, 600_000_000, time.UTC)
	for i, data := range []string{`{"a":1}`, "plain text", "", "line\nbreak", "tab\there"} {
		at := base.Add(time.Duration(5-i) * time.Minute) // appended newest first
		if _, stderr, code := run(t, "", "--db", from, "log", "append", "--log", "l", "--parent", "alice", "--time", at.Format(time.RFC3339), data); code != 0 {
			t.Fatal(stderr)
		}
	}
	export, stderr, code := run(t, "", "--db", from, "--output", "ndjson", "log", "range", "--log", "l", "--parent", "alice")
	if code != 0 {
		t.Fatal(stderr)
	}
	if _, stderr, code := run(t, export, "--db", to, "log", "import", "--log", "l", "--parent", "alice", "--time-col", "time", "--data-col", "data", "--format", "ndjson", "-"); code != 0 {
		t.Fatal(stderr)
	}
	want := logItems(t, from, "l", "alice")
	slices.SortStableFunc(want, func(a, b struct {
		ID   uint64
		Time time.Time
		Data string
	}) int {
		return cmp.Compare(a.Time.UnixNano(), b.Time.UnixNano())
	})
	got := logItems(t, to, "l", "alice")
	if len(got) != len(want) {
		t.Fatalf("%d items back, want %d", len(got), len(want))
	}
	for i := range got {
		// Ids are handed out again, in time order.
		if got[i].ID != uint64(i+1) || !got[i].Time.Equal(want[i].Time) || got[i].Data != want[i].Data {
			t.Errorf("item %d: %+v, want id %d, %v, %q", i, got[i], i+1, want[i].Time, want[i].Data)
		}
	}
}

// TestLogImportBadInput: a bad row, a misspelt column or a malformed file
// is an error naming it, and nothing is imported (--skip-bad imports the
// rest and names the rows it skipped).
func TestLogImportBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := "<c>\n<row U=\"1\" T=\"2016-01-01T00:00:00\" X=\"a\"/>\n"
	for _, tc := range []struct {
		name, format, body string
		args               []string
		code               int
		want               string
	}{
		{"missing parent", "xml", good + "<row T=\"2016-01-01T00:00:00\"/>\n</c>", nil, 1, "line 3: no parent: the row has no U"},
		{"empty parent", "csv", "U,T\n1,2016-01-01T00:00:00Z\n,2016-01-01T00:00:00Z\n", nil, 1, "line 3: no parent: U is empty"},
		{"bad time", "csv", "U,T\n1,2016-01-01T00:00:00Z\n2,yesterday\n", nil, 1, `line 3: time "yesterday" is not RFC 3339`},
		{"time out of range", "csv", "U,T\n1,3000-01-01T00:00:00Z\n", nil, 1, "line 2: time 3000-01-01T00:00:00Z is outside 1677–2262"},
		{"misspelt column", "xml", good + "</c>", []string{"--time-col", "Time"}, 1, "no row has a Time column (choose one with --time-col; nothing imported)"},
		{"missing data column", "xml", good + "<row U=\"2\" T=\"2016-01-01T00:00:00\"/>\n</c>", []string{"--data-col", "X"}, 1, "line 3: no data: the row has no X"},
		{"xml syntax", "xml", good + "<row U=\"2\" T=oops/>\n</c>", nil, 1, "line 3: unquoted or missing attribute value in element"},
		{"xml unclosed", "xml", good, nil, 1, "unexpected EOF"},
		{"xml text in a row", "xml", good + "<row U=\"2\" T=\"2016-01-01T00:00:00\">hello</row>\n</c>", nil, 1, "line 3: text inside the row (line 3)"},
		{"xml element with attributes in a row", "xml", good + "<row U=\"2\" T=\"2016-01-01T00:00:00\">\n<b x=\"1\"/></row>\n</c>", nil, 1, "line 3: <b> inside the row (line 4)"},
		{"xml element in a tag", "xml", good + "<row U=\"2\" T=\"2016-01-01T00:00:00\"><tag k=\"a\" v=\"b\"><x/></tag></row>\n</c>", nil, 1, "line 3: <x> inside <tag> (line 3)"},
		{"xml element in a field", "xml", good + "<row U=\"2\" T=\"2016-01-01T00:00:00\"><b>x<i>y</i></b></row>\n</c>", nil, 1, "line 3: <i> inside <b> (line 3): a row's elements are fields of text"},
		{"xml text in a tag", "xml", good + "<row U=\"2\" T=\"2016-01-01T00:00:00\"><tag k=\"a\" v=\"b\">hi</tag></row>\n</c>", nil, 1, "line 3: text inside <tag> (line 3): a <tag k v> has no text"},
		{"xml field twice", "xml", good + "<row U=\"2\" T=\"2016-01-01T00:00:00\"><U>3</U></row>\n</c>", nil, 1, "line 3: <U> (line 3) names a field the row has already"},
		{"xml tag twice", "xml", good + "<row U=\"2\" T=\"2016-01-01T00:00:00\"><tag v=\"b\" k=\"a\"/><tag k=\"a\" v=\"c\"/></row>\n</c>", nil, 1, `line 3: <tag k="a"> (line 3) names a field the row has already`},
		{"xml attribute twice", "xml", good + "<row U=\"2\" U=\"3\" T=\"2016-01-01T00:00:00\"/>\n</c>", nil, 1, `line 3: <row> has attribute "U" twice`},
		{"xml empty", "xml", "", nil, 1, "no root element"},
		{"ndjson not an object", "ndjson", "{\"U\":\"1\",\"T\":1451606400}\n[1]\n", nil, 1, "line 2: not a JSON object"},
		{"parent too long", "csv", "U,T\n" + strings.Repeat("p", 40000) + ",2016-01-01T00:00:00Z\n", nil, 1, "line 2: enumkeys: log l: parent"},
		{"both parents", "csv", "U,T\n1,2016-01-01T00:00:00Z\n", []string{"--parent", "x"}, 2, "--parent-col (each row's parent) or --parent"},
		{"tsv fields", "tsv", "U\tT\n1\t2016-01-01T00:00:00Z\textra\n", nil, 1, "line 2: 3 fields where the header has 2"},
		{"empty csv", "csv", "", nil, 1, "no CSV header: the input is empty"},
		{"bad format", "csv", "U,T\n", []string{"--format", "yaml"}, 2, `--format "yaml": want csv, tsv, ndjson, json, xml`},
		{"geojson", "csv", "U,T\n", []string{"--format", "geojson"}, 2, `--format "geojson": this import reads csv, tsv, ndjson, json, xml`},
		{"columns of ndjson", "ndjson", "{}\n", []string{"--columns", "U,T"}, 2, "--columns names the columns of a CSV or TSV without a header, not of --format ndjson"},
		{"columns twice", "csv", "1,2\n", []string{"--columns", "U,T,U"}, 2, `--columns "U,T,U": columns 1 and 3 of the header are both named "U"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "k.db")
			file := write(strings.ReplaceAll(tc.name, " ", "_")+"."+tc.format, tc.body)
			args := append([]string{"--db", db, "log", "import", "--log", "l", "--parent-col", "U", "--time-col", "T", "--format", tc.format}, tc.args...)
			_, stderr, code := run(t, "", append(args, file)...)
			if code != tc.code || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
				t.Fatalf("exit %d (want %d), stderr %q, want it to say %q on one line", code, tc.code, stderr, tc.want)
			}
			if code == 1 && !strings.Contains(stderr, "nothing imported") {
				t.Errorf("stderr %q does not say that nothing was imported", stderr)
			}
			if _, err := os.Stat(db); err == nil {
				if out, _, _ := run(t, "", "--db", db, "--output", "json", "log", "count", "--log", "l", "--parent", "1"); strings.TrimSpace(out) != "0" && !strings.Contains(out, `"count": 0`) {
					t.Errorf("after a failed import, parent 1 holds items: %s", out)
				}
			}
		})
	}
	// --skip-bad imports the good rows and names the others.
	db := filepath.Join(dir, "skip.db")
	file := write("skip.xml", good+"<row T=\"2016-01-01T00:00:00\"/>\n<row U=\"1\" T=\"never\"/>\n<row U=\"2\" T=\"2016-01-02T00:00:00\"/>\n</c>")
	_, stderr, code := run(t, "", "--db", db, "log", "import", "--log", "l", "--parent-col", "U", "--time-col", "T", "--format", "xml", "--skip-bad", file)
	if code != 0 || !strings.Contains(stderr, "imported 2 items into log l under 2 parents; skipped 2 bad rows: line 3: no parent") || !strings.Contains(stderr, `line 4: time "never"`) {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

// seComment is a comment of the Stack Exchange dump, as encoding/xml's
// Unmarshal reads it (apart from the imports' own XML reader).
type seComment struct {
	ID, PostID, UserID string // UserID "" for a deleted user
	At                 time.Time
}

// stackExchangeComments reads the Stack Exchange comments dump of
// ../shared/data, or skips t when it is absent.
func stackExchangeComments(t *testing.T) (string, []seComment) {
	t.Helper()
	var dump struct {
		Rows []struct {
			ID           string `xml:"Id,attr"`
			PostID       string `xml:"PostId,attr"`
			CreationDate string `xml:"CreationDate,attr"`
			UserID       string `xml:"UserId,attr"`
		} `xml:"row"`
	}
	path := datasetXML(t, "beer.stackexchange_Comments.xml", &dump)
	var out []seComment
	for _, r := range dump.Rows {
		at, err := time.Parse("2006-01-02T15:04:05.000", r.CreationDate)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, seComment{r.ID, r.PostID, r.UserID, at})
	}
	return path, out
}

// TestLogImportStackExchange imports the Stack Exchange comments dump of
// ../shared/data (when it is there) as userID_commentID logs, and checks
// each user's items against the file read by encoding/xml's Unmarshal.
func TestLogImportStackExchange(t *testing.T) {
	path, all := stackExchangeComments(t)
	type comment struct {
		id string
		at time.Time
	}
	byUser := map[string][]comment{}
	orphans := 0
	for _, c := range all {
		if c.UserID == "" {
			orphans++
			continue
		}
		byUser[c.UserID] = append(byUser[c.UserID], comment{c.ID, c.At})
	}
	db := filepath.Join(t.TempDir(), "se.db")
	_, stderr, code := run(t, "", "--db", db, "log", "import", "--log", "comments", "--parent-col", "UserId", "--time-col", "CreationDate", "--format", "xml", "--skip-bad", path)
	if code != 0 || !strings.Contains(stderr, fmt.Sprintf("into log comments under %d parents; skipped %d bad rows", len(byUser), orphans)) {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	users := slices.Sorted(func(yield func(string) bool) {
		for u := range byUser {
			if !yield(u) {
				return
			}
		}
	})
	// The most active users, and every 40th.
	slices.SortStableFunc(users, func(a, b string) int { return cmp.Compare(len(byUser[b]), len(byUser[a])) })
	for i, u := range users {
		if i >= 3 && i%40 != 0 {
			continue
		}
		want := byUser[u]
		slices.SortStableFunc(want, func(a, b comment) int { return a.at.Compare(b.at) })
		items := logItems(t, db, "comments", u)
		if len(items) != len(want) {
			t.Fatalf("user %s: %d items, want %d", u, len(items), len(want))
		}
		for j, it := range items {
			var data struct{ Id string }
			if err := json.Unmarshal([]byte(it.Data), &data); err != nil || it.ID != uint64(j+1) || !it.Time.Equal(want[j].at) || data.Id != want[j].id {
				t.Errorf("user %s item %d: %v %s, want comment %s at %v", u, it.ID, it.Time, it.Data, want[j].id, want[j].at)
			}
		}
	}
}

// TestLogScanRoundTrip: log scan lists every parent's items, parents in
// key order and each one's by id, page by page; its NDJSON imports into
// another file as the same items (ids handed out again, in time order).
func TestLogScanRoundTrip(t *testing.T) {
	dir := t.TempDir()
	from, to := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	type item struct {
		parent string
		id     uint64
		at     time.Time
		data   string
	}
	r := rand.New(rand.NewPCG(7, 7))
	base := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	last := map[string]uint64{}
	var items []item
	for i := range 25 {
		p := []string{"bob", "alice", "a:b", "Zed"}[r.IntN(4)]
		at := base.Add(time.Duration(r.IntN(1000)) * time.Minute)
		data := fmt.Sprint("m", i, "\t<&>")
		if _, stderr, code := run(t, "", "--db", from, "log", "append", "--log", "l", "--parent", p, "--time", at.Format(time.RFC3339), data); code != 0 {
			t.Fatal(stderr)
		}
		last[p]++
		items = append(items, item{p, last[p], at, data})
	}
	if _, stderr, code := run(t, "", "--db", from, "log", "del", "--log", "l", "--parent", items[3].parent, fmt.Sprint(items[3].id)); code != 0 {
		t.Fatal(stderr)
	}
	items = slices.Delete(items, 3, 4)
	// The model of log scan: by parent, bytewise, then id.
	slices.SortFunc(items, func(a, b item) int { return cmp.Or(strings.Compare(a.parent, b.parent), cmp.Compare(a.id, b.id)) })
	var export strings.Builder
	var got []item
	for cursor, pages := "", 0; pages == 0 || cursor != ""; pages++ {
		out, stderr, code := run(t, "", "--db", from, "--output", "json", "log", "scan", "--log", "l", "--limit", "4", "--cursor", cursor)
		var page struct {
			Items []struct {
				Parent string
				ID     uint64
				Time   time.Time
				Data   string
			}
			Next string
		}
		if err := json.Unmarshal([]byte(out), &page); code != 0 || err != nil || len(page.Items) > 4 || pages > len(items) {
			t.Fatalf("log scan page %d: exit %d, %v: %s", pages, code, err, stderr)
		}
		for _, it := range page.Items {
			got = append(got, item{it.Parent, it.ID, it.Time, it.Data})
		}
		cursor = page.Next
	}
	if !slices.EqualFunc(got, items, func(a, b item) bool {
		return a.parent == b.parent && a.id == b.id && a.at.Equal(b.at) && a.data == b.data
	}) {
		t.Fatalf("log scan: %v\nwant %v", got, items)
	}
	out, stderr, code := run(t, "", "--db", from, "--output", "ndjson", "log", "scan", "--log", "l")
	if code != 0 {
		t.Fatal(stderr)
	}
	export.WriteString(out)
	if _, stderr, code := run(t, export.String(), "--db", to, "log", "import", "--log", "l", "--parent-col", "parent", "--time-col", "time", "--data-col", "data", "--format", "ndjson", "-"); code != 0 {
		t.Fatal(stderr)
	}
	// Each parent's items come back in time order (ties by their old id),
	// numbered from 1.
	byParent := map[string][]item{}
	for _, it := range items {
		byParent[it.parent] = append(byParent[it.parent], it)
	}
	for p, want := range byParent {
		slices.SortStableFunc(want, func(a, b item) int { return a.at.Compare(b.at) })
		back := logItems(t, to, "l", p)
		if len(back) != len(want) {
			t.Fatalf("%s: %d items back, want %d", p, len(back), len(want))
		}
		for i, it := range back {
			if it.ID != uint64(i+1) || !it.Time.Equal(want[i].at) || it.Data != want[i].data {
				t.Errorf("%s item %d: %+v, want %v %q", p, i+1, it, want[i].at, want[i].data)
			}
		}
	}
}

// TestLogCountPeriod: log count --since and --until count the items a
// parent's rows stamp in the period, as the test counts them from its
// own rows, with ends on item times, between them and open; a period
// that ends before it starts is refused, and --date with a period is a
// usage error.
func TestLogCountPeriod(t *testing.T) {
	db := filepath.Join(t.TempDir(), "log.db")
	r := rand.New(rand.NewPCG(49, 6))
	base := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	var b strings.Builder
	b.WriteString("user,at,text\n")
	var stamps [][2]string // user, RFC 3339 time
	for i := range 120 {
		u, at := []string{"ann", "bob"}[r.IntN(2)], base.Add(time.Duration(r.IntN(72))*time.Hour).Format(time.RFC3339)
		fmt.Fprintf(&b, "%s,%s,m%d\n", u, at, i)
		stamps = append(stamps, [2]string{u, at})
	}
	runOK(t, b.String(), "--db", db, "-q", "log", "import", "--log", "inbox", "--parent-col", "user", "--time-col", "at", "--data-col", "text", "-")
	ends := []string{"", base.Format(time.RFC3339), base.Add(24 * time.Hour).Format(time.RFC3339), base.Add(50*time.Hour + 30*time.Minute).Format(time.RFC3339), base.Add(99 * time.Hour).Format(time.RFC3339)}
	for range 30 {
		u, since, until := []string{"ann", "bob"}[r.IntN(2)], ends[r.IntN(len(ends))], ends[r.IntN(len(ends))]
		want := 0
		for _, s := range stamps {
			if s[0] == u && (since == "" || s[1] >= since) && (until == "" || s[1] < until) {
				want++
			}
		}
		args := []string{"--db", db, "log", "count", "--log", "inbox", "--parent", u}
		if since != "" {
			args = append(args, "--since", since)
		}
		if until != "" {
			args = append(args, "--until", until)
		}
		if since != "" && until != "" && until < since {
			if _, stderr, code := run(t, "", args...); code != 1 || !strings.Contains(stderr, "invalid range") {
				t.Errorf("%v: exit %d, %s; want the period refused", args, code, stderr)
			}
		} else if got := strings.TrimSpace(runOK(t, "", args...)); got != fmt.Sprint(want) {
			t.Errorf("%v: %s, want %d", args, got, want)
		}
	}
	if _, stderr, code := run(t, "", "--db", db, "log", "count", "--log", "inbox", "--parent", "ann", "--date", "2026-11-20", "--since", base.Format(time.RFC3339)); code != 2 || !strings.Contains(stderr, "--date") {
		t.Errorf("--date with --since: exit %d, %s", code, stderr)
	}
}
