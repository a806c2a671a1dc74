package cli

// What an import's input is: compressed or not (gzip and bzip2, found by
// their first bytes, so that a .gz file and a gzip stream on standard
// input import alike); its format when --format does not say (from the
// file's name, else from its first bytes); and what separates a CSV's
// fields (commas, or semicolons as spreadsheets write them where the
// comma is the decimal mark).

import (
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	ucli "github.com/urfave/cli/v2"
)

// importFormats are the formats an import may read, as --format names
// them.
var importFormats = []string{"csv", "tsv", "ndjson", "json", "geojson", "xml"}

// formatUsage says what each format is, for --format's usage.
var formatUsage = map[string]string{
	"csv":     "csv",
	"tsv":     "tsv",
	"ndjson":  "ndjson (an object a line)",
	"json":    "json (an array of objects; --each for nested ones)",
	"geojson": "geojson (a FeatureCollection of points)",
	"xml":     "xml (each element under the root a row, its attributes the fields; a GPX file's waypoints)",
}

// formatFlag is an import's --format, naming the formats it reads.
func formatFlag(formats ...string) ucli.Flag {
	var names []string
	for _, f := range formats {
		names = append(names, formatUsage[f])
	}
	return &ucli.StringFlag{Name: "format", Usage: strings.Join(names, ", ") + "; gzip or bzip2 compressed or not",
		DefaultText: "from the FILE's name (.csv, .tsv, .ndjson or .jsonl, .geojson, .xml, .osm or .gpx, any of them .gz or .bz2), else from its first bytes"}
}

// decompressed returns in uncompressed when it starts as a gzip stream
// (1f 8b) or a bzip2 one ("BZh" and a block size digit), and in as it is
// otherwise. The magic bytes decide, not the name, so that
// `curl … | keyspace geo import -` reads a .gz download too.
func decompressed(in io.Reader) (*bufio.Reader, error) {
	br := bufio.NewReaderSize(in, 1<<16)
	head, _ := br.Peek(4)
	switch {
	case len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b:
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("reading gzip: %w", err)
		}
		return bufio.NewReaderSize(compressedReader{zr, "gzip"}, 1<<20), nil
	case len(head) == 4 && string(head[:3]) == "BZh" && head[3] >= '1' && head[3] <= '9':
		return bufio.NewReaderSize(compressedReader{bzip2.NewReader(br), "bzip2"}, 1<<20), nil
	}
	return br, nil
}

// compressedReader says which decompression an error comes from: a gzip
// file cut short fails as "reading gzip: unexpected EOF", not as a CSV's
// line that ends early.
type compressedReader struct {
	r    io.Reader
	kind string // gzip, bzip2
}

func (c compressedReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("reading %s: %w", c.kind, err)
	}
	return n, err
}

// formatByName is the format a file's name says, its .gz or .bz2 aside:
// "" for a name that says none (a GeoNames dump's .txt), and for a .json
// file, whose first bytes tell an array or object (json) from NDJSON or
// GeoJSON.
func formatByName(name string) string {
	name = strings.ToLower(name)
	for _, z := range []string{".gz", ".bz2"} {
		name = strings.TrimSuffix(name, z)
	}
	switch filepath.Ext(name) {
	case ".csv":
		return "csv"
	case ".tsv", ".tab":
		return "tsv"
	case ".ndjson", ".jsonl", ".ldjson":
		return "ndjson"
	case ".geojson":
		return "geojson"
	case ".xml", ".osm", ".gpx":
		return "xml"
	}
	return ""
}

// featureCollection finds a GeoJSON FeatureCollection's type member.
var featureCollection = regexp.MustCompile(`"type"\s*:\s*"FeatureCollection"`)

// formatByContent is the format in's first bytes say: XML starts with <,
// a JSON array with [, GeoJSON is an object whose type is
// FeatureCollection (within its first 64 KiB), NDJSON an object alone on
// its first line, and another object is one JSON document; lines with
// as many tabs each (up to ten of them) are a TSV's, and anything else a
// CSV's. It only peeks: in reads from its start after.
func formatByContent(in *bufio.Reader) string {
	head, _ := in.Peek(1 << 16)
	head = bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\ufeff")), " \t\r\n")
	if len(head) == 0 {
		return "csv"
	}
	switch head[0] {
	case '<':
		return "xml"
	case '[':
		return "json"
	case '{':
		if featureCollection.Match(head) {
			return "geojson"
		}
		if first, _, _ := bytes.Cut(head, []byte("\n")); json.Valid(first) {
			return "ndjson"
		}
		return "json" // one object over many lines
	}
	// A TSV's lines have as many tabs each, one or more; a CSV's commas
	// may not be counted so (GeoNames' alternate names hold commas, in a
	// TSV), nor need it hold a tab.
	if _, even := separators(head, '\t'); even {
		return "tsv"
	}
	return "csv"
}

// separators is how many sep the first line of head holds, and whether
// it holds one or more and its next lines (up to ten, empty ones aside,
// the last left out as it may be cut short) as many each.
func separators(head []byte, sep byte) (int, bool) {
	lines := bytes.Split(bytes.TrimPrefix(head, []byte("\ufeff")), []byte("\n"))
	if len(lines) > 1 {
		lines = lines[:len(lines)-1]
	}
	n := bytes.Count(lines[0], []byte{sep})
	for _, l := range lines[1:min(len(lines), 10)] {
		if len(bytes.TrimSpace(l)) > 0 && bytes.Count(l, []byte{sep}) != n {
			return n, false
		}
	}
	return n, n > 0
}

func csvComma(in *bufio.Reader) rune {
	head, _ := in.Peek(1 << 16)
	if _, even := separators(head, ';'); even && bytes.IndexByte(bytes.SplitN(head, []byte("\n"), 2)[0], ',') < 0 {
		return ';'
	}
	return ','
}

// inputFormat is the format of an import's input: --format when given,
// else the file's name's (formatByName), else its first bytes'
// (formatByContent); with --each, which walks JSON, json unless that is
// ndjson.
// The format must be one of those the import reads (formats); one it
// found rather than was told is said in the error, with how to choose.
// arg is the FILE argument, name the input as errors name it.
//
// guessed reports a format found from the input's first bytes, which an
// error reading it names: the bytes may have misled (a CSV whose header
// starts with {), where a name or --format does not.
func inputFormat(c *ucli.Context, arg, name string, in *bufio.Reader, formats []string) (format string, guessed bool, err error) {
	if c.IsSet("format") {
		f := c.String("format")
		if !slices.Contains(importFormats, f) {
			return "", false, usagef("--format %q: want %s%s", f, strings.Join(formats, ", "), choiceHint(f, formats))
		}
		if !slices.Contains(formats, f) {
			return "", false, usagef("--format %q: this import reads %s", f, strings.Join(formats, ", "))
		}
		return f, false, nil
	}
	f, how := formatByName(arg), "its name"
	if f == "" || arg == "-" {
		f, how = formatByContent(in), "its first bytes"
	}
	if c.IsSet("each") && f != "ndjson" {
		f = "json" // --each walks JSON: a document, or NDJSON's lines
	}
	if !slices.Contains(formats, f) {
		return "", false, fmt.Errorf("%s reads as %s (from %s), which this import does not read: --format %s (nothing imported)", name, f, how, strings.Join(formats, ", "))
	}
	return f, how == "its first bytes", nil
}
