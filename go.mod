module github.com/keyspacedb/keyspace

go 1.25.0

require (
	github.com/google/btree v1.1.3
	github.com/mmcloughlin/geohash v0.10.0
	github.com/paulmach/orb v0.14.0
	go.etcd.io/bbolt v1.5.0
)

require golang.org/x/sys v0.46.0 // indirect
