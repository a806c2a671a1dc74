package cli

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/indextable"
	"github.com/keyspacedb/keyspace/internal/errctx"
	ucli "github.com/urfave/cli/v2"
)

func seriesFlag() ucli.Flag {
	return &ucli.StringFlag{Name: "series", Required: true, Usage: "the series `NAME`, e.g. temps"}
}

// shapeFlags are a series' bucket options, stored by its first write.
func shapeFlags() []ucli.Flag {
	return []ucli.Flag{
		&ucli.StringFlag{Name: "width", Usage: "bucket `WIDTH`, whole seconds: 1m, 1h, 90s (a new series' only; default: the series' own, or 1m)"},
		&ucli.BoolFlag{Name: "keep-raw", Usage: "also keep each reading by its second within the bucket (a new series' only)"},
	}
}

func seriesCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "series",
		Usage: "time series folded into minute or hour buckets (count, sum, min, max): add, import, range (--every to roll up), sensors; drop",
		Subcommands: []*ucli.Command{
			{
				Name: "add", Usage: "fold one reading into its bucket", ArgsUsage: "VALUE",
				UsageText: "keyspace series add --series temps --sensor s1 21.5\nkeyspace series add --series temps --sensor s1 --time 2026-11-23T10:30:00Z 21.5",
				Flags: append([]ucli.Flag{seriesFlag(),
					&ucli.StringFlag{Name: "sensor", Required: true, Usage: "the `SENSOR` the reading is from"},
					timeFlag("time", "the reading's time (RFC 3339, a date or Unix seconds; default now)"),
				}, shapeFlags()...),
				Action: seriesAdd,
			},
			{
				Name: "import", Usage: "fold readings from CSV or TSV (with a header, or --columns), NDJSON, JSON or XML into their buckets; all or nothing unless --skip-bad", ArgsUsage: "FILE",
				UsageText: "keyspace series import --series temps readings.csv\ncat readings.csv | keyspace series import --series temps --width 1h -",
				Flags: slices.Concat([]ucli.Flag{seriesFlag(),
					&ucli.StringFlag{Name: "sensor-col", Value: "sensor", Usage: "the sensor `COLUMN`"},
					&ucli.StringFlag{Name: "time-col", Value: "time", Usage: "the time `COLUMN`: " + timeColumnForms},
					&ucli.StringFlag{Name: "value-col", Value: "value", Usage: "the reading's `COLUMN`"},
				}, shapeFlags(), recordFileFlags()),
				Action: seriesImport,
			},
			{
				Name: "range", Usage: "a sensor's buckets from --from to --to, in time order; --every rolls them up into wider ones (an hour of minutes, a day of hours)",
				UsageText: "keyspace series range --series temps --sensor s1 --from 2026-11-23T00:00:00Z --to 2026-11-24T00:00:00Z\n" +
					"keyspace series range --series temps --sensor s1 --every 1h   # hourly count, min, mean, max from minute buckets",
				Flags: []ucli.Flag{seriesFlag(),
					&ucli.StringFlag{Name: "sensor", Required: true, Usage: "the `SENSOR`"},
					timeFlag("from", "the first bucket holds this time (RFC 3339, a date or Unix seconds; default: the first)"),
					timeFlag("to", "buckets start before this time (RFC 3339, a date or Unix seconds; default: the last)"),
					durationFlag("every", "roll the buckets up into buckets `DURATION` wide (1h, 1d, 1w: a whole number of the series' width), starting at midnight UTC and its multiples, as RedisTimeSeries' AGGREGATION", "the series' width"),
				},
				Action: seriesRange,
			},
			{
				Name: "sensors", Usage: "the sensors of a series, each with its buckets and the first and last of them",
				UsageText: "keyspace series sensors --series temps",
				Flags:     []ucli.Flag{seriesFlag()},
				Action:    seriesSensors,
			},
			dropCommand("series", "bucket", seriesFlag(), "keyspace series drop --series temps", dropSeries),
			renameCommand("series", seriesFlag(), "keyspace series rename --series temps heat", renameSeries),
		},
	}
}

// seriesFor returns the series to write to: with the options the flags
// give, else those the series was written with, else the defaults. The
// library refuses options other than the stored ones.
func seriesFor(c *ucli.Context, tx keyspace.Tx) (*indextable.Series, error) {
	name := c.String("series")
	if !c.IsSet("width") && !c.IsSet("keep-raw") {
		s, err := indextable.LoadSeries(tx, name)
		if !errors.Is(err, keyspace.ErrNotFound) {
			return s, err
		}
	}
	width := time.Minute
	if w := c.String("width"); w != "" {
		d, err := time.ParseDuration(w)
		if err != nil || d < time.Second || d%time.Second != 0 {
			return nil, usagef("--width %q: want a whole number of seconds, at least 1s (1m, 1h, 90s)", w)
		}
		width = d
	}
	return indextable.NewSeries(name, &indextable.SeriesOptions{Width: width, KeepRaw: c.Bool("keep-raw")}), nil
}

// fold adds the readings in one transaction: all of them or none. The
// readings are checked already; a reading AddAll still refuses (one that
// would overflow its bucket's sum, a sensor too long for a key) is a
// badRow named by where, and any other failure (other options than the
// series') is the whole import's.
func fold(c *ucli.Context, readings []indextable.Reading, where func(i int) string) error {
	err := updateDB(c, func(tx keyspace.Tx) error {
		s, err := seriesFor(c, tx)
		if err != nil {
			return err
		}
		return s.AddAll(tx, readings)
	})
	if bad := (*indextable.ReadingError)(nil); errors.As(err, &bad) {
		return badRow{where(bad.Index), errctx.Bare("indextable", bad.Err)}
	}
	return err
}

func seriesAdd(c *ucli.Context) error {
	if c.NArg() != 1 {
		return usagef("series add wants one VALUE")
	}
	v, err := parseReading(c.Args().First())
	if err != nil {
		return usageError{err}
	}
	at := time.Now()
	if t := timeOf(c, "time"); t != nil {
		at = *t
	}
	return fold(c, []indextable.Reading{{Sensor: c.String("sensor"), At: at, Value: v}}, func(int) string {
		return "series " + c.String("series")
	})
}

func seriesImport(c *ucli.Context) error {
	rows, bad, err := recordRows(c, "sensor-col", "time-col", "value-col")
	if err != nil {
		return err
	}
	name := bad.name
	cols := []string{c.String("sensor-col"), c.String("time-col"), c.String("value-col")}
	var readings []indextable.Reading
	var wheres []string // each reading's row
	for _, r := range rows {
		rd, err := readingOf(r, cols)
		if err != nil {
			if err := bad.add(r.where(), err); err != nil {
				return err
			}
			continue
		}
		readings, wheres = append(readings, rd), append(wheres, r.where())
	}
	if err := fold(c, readings, func(i int) string { return fmt.Sprintf("%s: %s", name, wheres[i]) }); err != nil {
		if errors.As(err, new(badRow)) {
			return fmt.Errorf("%w (nothing imported)", err)
		}
		return err
	}
	reportImport(c, count(len(readings), "reading"), "series "+c.String("series"), bad.rows)
	return nil
}

// readingOf reads a CSV row's sensor, time and value columns.
func readingOf(r row, cols []string) (indextable.Reading, error) {
	if r.bad != nil {
		return indextable.Reading{}, r.bad
	}
	sensor, at, value := r.get(cols[0]), strings.TrimSpace(r.get(cols[1])), r.get(cols[2])
	if sensor == "" {
		return indextable.Reading{}, errors.New("empty sensor")
	}
	t, err := parseTimeField(at)
	if err != nil {
		return indextable.Reading{}, err
	}
	v, err := parseReading(value)
	if err != nil {
		return indextable.Reading{}, err
	}
	return indextable.Reading{Sensor: sensor, At: t, Value: v}, nil
}

// parseReading reads a finite number.
func parseReading(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("reading %q is not a finite number", s)
	}
	return v, nil
}

func seriesRange(c *ucli.Context) error {
	format, err := output(c, "table", "json", "ndjson")
	if err != nil {
		return err
	}
	var from, to time.Time
	if t := timeOf(c, "from"); t != nil {
		from = *t
	}
	if t := timeOf(c, "to"); t != nil {
		to = *t
	}
	return viewDB(c, func(tx keyspace.Tx) error {
		s, err := loadSeries(tx, c.String("series"))
		if err != nil {
			return err
		}
		buckets, err := s.Range(tx, c.String("sensor"), from, to)
		if err == nil && c.IsSet("every") {
			buckets, err = s.Rollup(buckets, c.Duration("every"))
		}
		if err != nil {
			return err
		}
		type bucket struct {
			Start time.Time         `json:"start"`
			Count int               `json:"count"`
			Sum   float64           `json:"sum"`
			Min   float64           `json:"min"`
			Mean  float64           `json:"mean"`
			Max   float64           `json:"max"`
			Raw   map[int64]float64 `json:"raw,omitempty"`
		}
		var out []bucket
		for _, b := range buckets {
			out = append(out, bucket{b.Start, b.Count, b.Sum, b.Min, b.Mean(), b.Max, b.Raw})
		}
		return writeListing(c.App.Writer, c.App.ErrWriter, format, "buckets", out, "", "START\tCOUNT\tSUM\tMIN\tMEAN\tMAX", func(b bucket) string {
			// A mean to 6 significant digits (1.86389, not 1.8638888888888892),
			// and a sum to 15, which hides the last digit's rounding that
			// adding decimal readings leaves (45.1, not 45.10000000000001)
			// and keeps every whole number up to 10^15; JSON has every digit.
			return fmt.Sprintf("%s\t%d\t%.15g\t%g\t%.6g\t%g", b.Start.Format(time.RFC3339), b.Count, b.Sum, b.Min, b.Mean, b.Max)
		})
	})
}

// loadSeries opens the series --series names, or says it has none.
func loadSeries(tx keyspace.Tx, name string) (*indextable.Series, error) {
	s, err := indextable.LoadSeries(tx, name)
	if errors.Is(err, keyspace.ErrNotFound) {
		return nil, fmt.Errorf("unknown series %q: it has no readings (see keyspace stats)%s", name, didYouMeanIn(tx, name, seriesNames))
	}
	return s, err
}

// seriesNames returns the names of the series in the file: those among
// the names under the tables' layout ("x", name, …), which tables and
// relations share, that have stored options.
func seriesNames(tx keyspace.Tx) ([]string, error) {
	names, err := namesUnder(tx, composite.NewSubspace("x"))
	return slices.DeleteFunc(names, func(name string) bool {
		_, err := indextable.LoadSeries(tx, name)
		return err != nil
	}), err
}

func seriesSensors(c *ucli.Context) error {
	format, err := output(c, "table", "json", "ndjson")
	if err != nil {
		return err
	}
	return viewDB(c, func(tx keyspace.Tx) error {
		s, err := loadSeries(tx, c.String("series"))
		if err != nil {
			return err
		}
		spans, err := s.Sensors(tx)
		if err != nil {
			return err
		}
		type sensor struct {
			Sensor  string    `json:"sensor"`
			Buckets int       `json:"buckets"`
			First   time.Time `json:"first"`
			Last    time.Time `json:"last"`
		}
		out := make([]sensor, len(spans))
		for i, sp := range spans {
			out[i] = sensor{sp.Sensor, sp.Buckets, sp.First, sp.Last}
		}
		return writeListing(c.App.Writer, c.App.ErrWriter, format, "sensors", out, "", "SENSOR\tBUCKETS\tFIRST\tLAST", func(x sensor) string {
			return fmt.Sprintf("%s\t%d\t%s\t%s", x.Sensor, x.Buckets, x.First.Format(time.RFC3339), x.Last.Format(time.RFC3339))
		})
	})
}

func dropSeries(tx keyspace.Tx, name string) (int, error) {
	s, err := loadSeries(tx, name)
	if err != nil {
		return 0, err
	}
	return s.Drop(tx)
}
