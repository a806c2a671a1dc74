package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/keyspacedb/keyspace/geo"
	"github.com/keyspacedb/keyspace/internal/workload"
	"github.com/paulmach/orb"
	"github.com/redis/go-redis/v9"
)

// ---- Redis GEO: GEOADD and GEOSEARCH on a server started for the run ----

// redisName is the Redis peer's name in reports.
const redisName = "Redis GEOSEARCH"

// redisMaxLat is the latitude limit of Redis GEO (EPSG:3857's square
// world); GEOADD refuses points beyond it.
const redisMaxLat = 85.05112878

// redisKey is the one sorted set the peer loads.
const redisKey = "bench"

// redisPeer runs a redis-server of its own on 127.0.0.1, with persistence
// off, and asks it over go-redis. Redis is not an exact peer here: it
// measures distances on a sphere of radius 6,372,797.56 m (keyspace and the
// oracle use the mean radius 6,371,008.8 m), so points within a few metres
// of a radius's edge can differ, and it refuses points beyond ±85.05°
// latitude, which lowers its recall on the poles dataset.
type redisPeer struct {
	cmd     *exec.Cmd
	dir     string
	rdb     *redis.Client
	refused int // points GEOADD cannot take
}

// startRedis starts redis-server for one run, or says why it cannot.
func startRedis(dir string) (*redisPeer, error) {
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dir, err = os.MkdirTemp(dir, "redis")
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
		"--dir", dir, "--logfile", "redis.log")
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("starting redis-server: %w", err)
	}
	p := &redisPeer{cmd: cmd, dir: dir}
	// Wait for the port to open before the client exists: go-redis logs
	// every refused dial.
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			p.close()
			return nil, fmt.Errorf("redis-server did not listen on %s within 5 s: %w", addr, err)
		}
	}
	// No retries: a loopback server that fails once has failed.
	p.rdb = redis.NewClient(&redis.Options{Addr: addr, DisableIdentity: true, MaxRetries: -1})
	if err := p.rdb.Ping(context.Background()).Err(); err != nil {
		p.close()
		return nil, fmt.Errorf("redis-server: PING: %w", err)
	}
	return p, nil
}

// freePort asks the kernel for a port nobody listens on.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (p *redisPeer) name() string { return redisName }
func (p *redisPeer) exact() bool  { return false }

func (p *redisPeer) close() error {
	if p.rdb != nil {
		// SHUTDOWN closes the connection instead of answering.
		_ = p.rdb.ShutdownNoSave(context.Background()).Err()
		p.rdb.Close()
	}
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
		<-done
	}
	return os.RemoveAll(p.dir)
}

// load sends GEOADD pipelined, 1,000 members a command and 16 commands a
// round trip, as a Redis user would import.
func (p *redisPeer) load(points []workload.Point) (int64, error) {
	ctx := context.Background()
	before, err := p.usedMemory(ctx)
	if err != nil {
		return 0, err
	}
	const perCommand, perTrip = 1000, 16
	pipe := p.rdb.Pipeline()
	batch := make([]*redis.GeoLocation, 0, perCommand)
	queued := 0
	send := func(final bool) error {
		if len(batch) > 0 {
			pipe.GeoAdd(ctx, redisKey, batch...)
			batch = make([]*redis.GeoLocation, 0, perCommand)
			queued++
		}
		if queued == 0 || (!final && queued < perTrip) {
			return nil
		}
		queued = 0
		_, err := pipe.Exec(ctx)
		return err
	}
	for _, q := range points {
		if math.Abs(q.Lat) > redisMaxLat {
			p.refused++
			continue
		}
		batch = append(batch, &redis.GeoLocation{Name: q.ID, Longitude: q.Lon, Latitude: q.Lat})
		if len(batch) == perCommand {
			if err := send(false); err != nil {
				return 0, fmt.Errorf("GEOADD: %w", err)
			}
		}
	}
	if err := send(true); err != nil {
		return 0, fmt.Errorf("GEOADD: %w", err)
	}
	after, err := p.usedMemory(ctx)
	if err != nil {
		return 0, err
	}
	return after - before, nil
}

// usedMemory is INFO memory's used_memory: the server's allocated bytes.
func (p *redisPeer) usedMemory(ctx context.Context) (int64, error) {
	info, err := p.rdb.Info(ctx, "memory").Result()
	if err != nil {
		return 0, fmt.Errorf("INFO memory: %w", err)
	}
	sc := bufio.NewScanner(strings.NewReader(info))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "used_memory:"); ok {
			return strconv.ParseInt(v, 10, 64)
		}
	}
	return 0, errors.New("INFO memory: no used_memory line")
}

// radius is GEOSEARCH FROMLONLAT … BYRADIUS … ASC. Redis does not say how
// many members it examined, so candidates are reported as 0 (unknown).
func (p *redisPeer) radius(lat, lon, metres float64) ([]string, int, error) {
	if math.Abs(lat) > redisMaxLat {
		return nil, 0, errRefused // GEOSEARCH refuses the centre
	}
	ids, err := p.rdb.GeoSearch(context.Background(), redisKey, &redis.GeoSearchQuery{
		Longitude: lon, Latitude: lat, Radius: metres, RadiusUnit: "m", Sort: "ASC"}).Result()
	return ids, 0, err
}

// within is GEOSEARCH FROMLONLAT … BYRADIUS … ASC COUNT k: Redis reads
// every member of the radius's 3×3 block and keeps the k nearest.
func (p *redisPeer) within(lat, lon, metres float64, k int) ([]string, int, error) {
	return p.searchCount(lat, lon, metres, k, "ASC")
}

// farthest is GEOSEARCH FROMLONLAT … BYRADIUS … DESC COUNT k: Redis
// reads every member of the radius's 3×3 block and keeps the k farthest.
func (p *redisPeer) farthest(lat, lon, metres float64, k int) ([]string, int, error) {
	return p.searchCount(lat, lon, metres, k, "DESC")
}

// searchCount is GEOSEARCH FROMLONLAT … BYRADIUS … sort COUNT k.
func (p *redisPeer) searchCount(lat, lon, metres float64, k int, sort string) ([]string, int, error) {
	if math.Abs(lat) > redisMaxLat {
		return nil, 0, errRefused // GEOSEARCH refuses the centre
	}
	ids, err := p.rdb.GeoSearch(context.Background(), redisKey, &redis.GeoSearchQuery{
		Longitude: lon, Latitude: lat, Radius: metres, RadiusUnit: "m", Sort: sort, Count: k}).Result()
	return ids, 0, err
}

// nearest is the workaround Redis users write for k-nearest, which Redis
// lacks: GEOSEARCH BYRADIUS r ASC COUNT k, doubling r from 1 km until k
// members come back or r covers the whole sphere. Once k members lie
// within r, no member beyond r can be nearer, so the answer is exact in
// Redis's own metric.
func (p *redisPeer) nearest(lat, lon float64, k int) ([]string, int, error) {
	if math.Abs(lat) > redisMaxLat {
		return nil, 0, errRefused
	}
	const halfCircumference = math.Pi * 6372797.560856
	for r := 1000.0; ; r *= 2 {
		r = min(r, halfCircumference)
		ids, err := p.rdb.GeoSearch(context.Background(), redisKey, &redis.GeoSearchQuery{
			Longitude: lon, Latitude: lat, Radius: r, RadiusUnit: "m", Sort: "ASC", Count: k}).Result()
		if err != nil || len(ids) >= k || r == halfCircumference {
			return ids, 0, err
		}
	}
}

// box and polygon are not Redis queries: GEOSEARCH BYBOX is a box in
// metres around a centre, not a latitude/longitude box, and Redis has no
// polygons.
func (p *redisPeer) box(geo.Box) ([]string, int, error)         { return nil, 0, errUnsupported }
func (p *redisPeer) polygon(orb.Polygon) ([]string, int, error) { return nil, 0, errUnsupported }
