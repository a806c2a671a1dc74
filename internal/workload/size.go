package workload

import (
	"fmt"
	"os"
	"strconv"
)

// SizeEnv is the environment variable that sets how many points the Go
// benchmarks generate.
const SizeEnv = "KEYSPACE_BENCH_POINTS"

// BenchSize is how many points a Go benchmark generates: SizeEnv's value
// when it is set, else n.
func BenchSize(n int) (int, error) {
	s := os.Getenv(SizeEnv)
	if s == "" {
		return n, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil || v < 1 {
		return 0, fmt.Errorf("%s=%q: want a positive number of points", SizeEnv, s)
	}
	return v, nil
}
