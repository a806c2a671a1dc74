package geo_test

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/keyspacedb/keyspace"
	"github.com/keyspacedb/keyspace/composite"
	"github.com/keyspacedb/keyspace/geo"
	"github.com/paulmach/orb"
)

func Example() {
	store := keyspace.NewMemory()
	places := geo.NewIndex("places")
	store.Update(func(tx keyspace.Tx) error {
		for _, p := range []geo.Point{
			{ID: "ferry-building", Lat: 37.7955, Lon: -122.3937},
			{ID: "coit-tower", Lat: 37.8024, Lon: -122.4058},
			{ID: "golden-gate", Lat: 37.8199, Lon: -122.4783},
		} {
			if err := places.Put(tx, p); err != nil {
				return err
			}
		}
		return nil
	})
	store.View(func(tx keyspace.Tx) error {
		results, _, err := places.Radius(tx, 37.7946, -122.3999, 2000, nil)
		for _, r := range results {
			fmt.Printf("%s %.0f m\n", r.ID, r.Distance)
		}
		return err
	})
	// Output:
	// ferry-building 554 m
	// coit-tower 1010 m
}

// What lies ahead: the landmarks within 5 km of a ferry leaving the Ferry
// Building on a heading of 330°, in the 60° ahead of it (bearings 300 to
// 360, Tile38's SECTOR). The Bay Bridge, to the east, is within 5 km but
// not ahead, and the Golden Gate, ahead, is 7.9 km off.
func ExampleIndex_Sector() {
	store := keyspace.NewMemory()
	places := geo.NewIndex("places")
	store.Update(func(tx keyspace.Tx) error {
		return places.PutAll(tx, []geo.Point{
			{ID: "coit-tower", Lat: 37.8024, Lon: -122.4058},
			{ID: "alcatraz", Lat: 37.8267, Lon: -122.4230},
			{ID: "bay-bridge", Lat: 37.7983, Lon: -122.3778},
			{ID: "golden-gate", Lat: 37.8199, Lon: -122.4783},
		})
	})
	store.View(func(tx keyspace.Tx) error {
		results, _, err := places.Sector(tx, 37.7955, -122.3937, 5000, 300, 360, nil)
		for _, r := range results {
			fmt.Printf("%s %.0f m\n", r.ID, r.Distance)
		}
		return err
	})
	// Output:
	// coit-tower 1311 m
	// alcatraz 4320 m
}

// Along a route: the landmarks within 500 m of a walk from the Ferry
// Building up the Embarcadero to Pier 39 and on to Fisherman's Wharf,
// nearest the route first, each at its distance from the route (the
// nearest point of any of its legs). Ghirardelli Square, some 505 m past
// the walk's end, and Coit Tower, on the hill above it, are farther.
func ExampleIndex_Along() {
	store := keyspace.NewMemory()
	places := geo.NewIndex("places")
	store.Update(func(tx keyspace.Tx) error {
		return places.PutAll(tx, []geo.Point{
			{ID: "coit-tower", Lat: 37.8024, Lon: -122.4058},
			{ID: "exploratorium", Lat: 37.8017, Lon: -122.3973},
			{ID: "levis-plaza", Lat: 37.8030, Lon: -122.4022},
			{ID: "ghirardelli", Lat: 37.8059, Lon: -122.4228},
			{ID: "bay-bridge", Lat: 37.7983, Lon: -122.3778},
		})
	})
	route := orb.LineString{{-122.3937, 37.7955}, {-122.4010, 37.8060}, {-122.4098, 37.8087}, {-122.4177, 37.8080}}
	store.View(func(tx keyspace.Tx) error {
		results, _, err := places.Along(tx, route, 500, nil)
		for _, r := range results {
			fmt.Printf("%s %.0f m\n", r.ID, r.Distance)
		}
		return err
	})
	// Output:
	// exploratorium 55 m
	// levis-plaza 253 m
}

// A Route puts Along's points in the order a walk along the
// Embarcadero and up to Fisherman's Wharf passes them, each at its
// distance along the walk.
func ExampleRoute() {
	store := keyspace.NewMemory()
	places := geo.NewIndex("places")
	store.Update(func(tx keyspace.Tx) error {
		return places.PutAll(tx, []geo.Point{
			{ID: "coit-tower", Lat: 37.8024, Lon: -122.4058},
			{ID: "exploratorium", Lat: 37.8017, Lon: -122.3973},
			{ID: "levis-plaza", Lat: 37.8030, Lon: -122.4022},
			{ID: "pier-39", Lat: 37.8087, Lon: -122.4098},
		})
	})
	walk := orb.LineString{{-122.3937, 37.7955}, {-122.4010, 37.8060}, {-122.4098, 37.8087}, {-122.4177, 37.8080}}
	route, err := geo.NewRoute(walk)
	if err != nil {
		return
	}
	store.View(func(tx keyspace.Tx) error {
		results, _, err := places.Along(tx, walk, 500, nil)
		along := map[string]float64{}
		for _, r := range results {
			along[r.ID], _, _ = route.Locate(r.Lat, r.Lon)
		}
		slices.SortFunc(results, func(a, b geo.Result) int { return cmp.Compare(along[a.ID], along[b.ID]) })
		for _, r := range results {
			fmt.Printf("%s at %.0f m, %.0f m off\n", r.ID, along[r.ID], r.Distance)
		}
		fmt.Printf("the walk: %.0f m\n", route.Length())
		return err
	})
	// Output:
	// exploratorium at 757 m, 55 m off
	// levis-plaza at 1091 m, 253 m off
	// pier-39 at 2161 m, 0 m off
	// the walk: 2860 m
}

// Near a polygon: the places in Golden Gate Park or within 600 m of it
// (Tile38's WITHIN … BUFFER 600 OBJECT {Polygon}), nearest the park
// first, each at its distance from it (0 inside). The de Young museum
// stands 56 m north of the park's northern edge, Haight-Ashbury 519 m
// east of its eastern end; Sutro Baths, some 810 m from its north-western
// corner, is farther.
func ExampleIndex_NearPolygon() {
	store := keyspace.NewMemory()
	places := geo.NewIndex("places")
	store.Update(func(tx keyspace.Tx) error {
		return places.PutAll(tx, []geo.Point{
			{ID: "bison-paddock", Lat: 37.7695, Lon: -122.4990},
			{ID: "de-young", Lat: 37.7715, Lon: -122.4687},
			{ID: "haight-ashbury", Lat: 37.7692, Lon: -122.4481},
			{ID: "sutro-baths", Lat: 37.7780, Lon: -122.5137},
		})
	})
	park := orb.Polygon{{{-122.511, 37.771}, {-122.454, 37.771}, {-122.454, 37.766}, {-122.511, 37.764}, {-122.511, 37.771}}}
	store.View(func(tx keyspace.Tx) error {
		results, _, err := places.NearPolygon(tx, park, 600, nil)
		for _, r := range results {
			fmt.Printf("%s %.0f m\n", r.ID, r.Distance)
		}
		return err
	})
	// Output:
	// bison-paddock 0 m
	// de-young 56 m
	// haight-ashbury 519 m
}

// The two places nearest Golden Gate Park, with no radius to guess:
// the bison paddock, inside it, at 0 m, then the de Young museum, 56 m
// north of it (PostGIS's ORDER BY geom <-> park LIMIT 2).
func ExampleIndex_NearestPolygon() {
	store := keyspace.NewMemory()
	places := geo.NewIndex("places")
	store.Update(func(tx keyspace.Tx) error {
		return places.PutAll(tx, []geo.Point{
			{ID: "bison-paddock", Lat: 37.7695, Lon: -122.4990},
			{ID: "de-young", Lat: 37.7715, Lon: -122.4687},
			{ID: "haight-ashbury", Lat: 37.7692, Lon: -122.4481},
			{ID: "sutro-baths", Lat: 37.7780, Lon: -122.5137},
		})
	})
	park := orb.Polygon{{{-122.511, 37.771}, {-122.454, 37.771}, {-122.454, 37.766}, {-122.511, 37.764}, {-122.511, 37.771}}}
	store.View(func(tx keyspace.Tx) error {
		results, _, err := places.NearestPolygon(tx, park, 2, nil)
		for _, r := range results {
			fmt.Printf("%s %.0f m\n", r.ID, r.Distance)
		}
		return err
	})
	// Output:
	// bison-paddock 0 m
	// de-young 56 m
}

func ExampleIndex_Nearest() {
	store := keyspace.NewMemory()
	stations := geo.NewIndex("stations")
	store.Update(func(tx keyspace.Tx) error {
		for _, p := range []geo.Point{
			{ID: "amundsen-scott", Lat: -90, Lon: 0},
			{ID: "vostok", Lat: -78.4645, Lon: 106.8339},
			{ID: "mcmurdo", Lat: -77.8419, Lon: 166.6863},
			{ID: "scott-base", Lat: -77.8494, Lon: 166.7682},
		} {
			if err := stations.Put(tx, p); err != nil {
				return err
			}
		}
		return nil
	})
	store.View(func(tx keyspace.Tx) error {
		// Across the antimeridian from McMurdo, no radius needed.
		results, _, err := stations.Nearest(tx, -77.85, -179.9, 2, nil)
		for _, r := range results {
			fmt.Printf("%s %.0f km\n", r.ID, r.Distance/1000)
		}
		return err
	})
	// Output:
	// scott-base 311 km
	// mcmurdo 313 km
}

// The nearest stations a page at a time: each page asks for the two
// after the cursor of the page before, in any later transaction, and a
// station opened between pages shows on a later page if it is farther
// than the cursor.
func ExampleCursorAfter() {
	store := keyspace.NewMemory()
	stations := geo.NewIndex("stations")
	put := func(ps ...geo.Point) {
		store.Update(func(tx keyspace.Tx) error { return stations.PutAll(tx, ps) })
	}
	put(geo.Point{ID: "amundsen-scott", Lat: -90, Lon: 0},
		geo.Point{ID: "vostok", Lat: -78.4645, Lon: 106.8339},
		geo.Point{ID: "mcmurdo", Lat: -77.8419, Lon: 166.6863},
		geo.Point{ID: "scott-base", Lat: -77.8494, Lon: 166.7682})
	opts := &geo.QueryOptions{}
	for page := 1; ; page++ {
		var results []geo.Result
		store.View(func(tx keyspace.Tx) (err error) {
			results, _, err = stations.Nearest(tx, -77.85, -179.9, 2, opts)
			return err
		})
		for _, r := range results {
			fmt.Printf("page %d: %s %.0f km\n", page, r.ID, r.Distance/1000)
		}
		if len(results) < 2 {
			break
		}
		opts.After = geo.CursorAfter(results, opts.After)
		if page == 1 {
			put(geo.Point{ID: "concordia", Lat: -75.1, Lon: 123.3})
		}
	}
	// Output:
	// page 1: scott-base 311 km
	// page 1: mcmurdo 313 km
	// page 2: amundsen-scott 1351 km
	// page 2: concordia 1446 km
	// page 3: vostok 1565 km
}

// Paging through an index in id order: each page starts after the last id
// of the page before.
func ExampleIndex_Scan() {
	store := keyspace.NewMemory()
	fleet := geo.NewIndex("fleet")
	store.Update(func(tx keyspace.Tx) error {
		for i, id := range []string{"car-3", "car-1", "bike-2", "car-2", "bike-1"} {
			if err := fleet.Put(tx, geo.Point{ID: id, Lat: 52.5 + float64(i)/100, Lon: 13.4}); err != nil {
				return err
			}
		}
		return nil
	})
	store.View(func(tx keyspace.Tx) error {
		for after, page := "", 1; ; page++ {
			var ids []string
			err := fleet.Scan(tx, after, func(p geo.Point) bool {
				ids = append(ids, p.ID)
				return len(ids) < 2
			})
			if err != nil || len(ids) == 0 {
				return err
			}
			fmt.Println("page", page, ids)
			after = ids[len(ids)-1]
		}
	})
	// Output:
	// page 1 [bike-1 bike-2]
	// page 2 [car-1 car-2]
	// page 3 [car-3]
}

// The newest ids first, as Tile38's SCAN … DESC lists them: each page
// ends before the id the last one ended with.
func ExampleIndex_ScanReverse() {
	store := keyspace.NewMemory()
	orders := geo.NewIndex("orders")
	store.Update(func(tx keyspace.Tx) error {
		for i, id := range []string{"2026-11-27/0912", "2026-11-26/1730", "2026-11-27/1405", "2026-11-25/0800"} {
			if err := orders.Put(tx, geo.Point{ID: id, Lat: 48.1 + float64(i)/100, Lon: 11.6}); err != nil {
				return err
			}
		}
		return nil
	})
	store.View(func(tx keyspace.Tx) error {
		before := ""
		for page := 1; page <= 2; page++ {
			var ids []string
			err := orders.ScanReverse(tx, before, func(p geo.Point) bool {
				ids = append(ids, p.ID)
				return len(ids) < 2
			})
			if err != nil {
				return err
			}
			fmt.Println("page", page, ids)
			before = ids[len(ids)-1]
		}
		return nil
	})
	// Output:
	// page 1 [2026-11-27/1405 2026-11-27/0912]
	// page 2 [2026-11-26/1730 2026-11-25/0800]
}

// Dropping an index deletes its points under every scope, in the caller's
// transaction: an index of the same store whose name starts the same is
// untouched.
func ExampleIndex_Drop() {
	store := keyspace.NewMemory()
	fleet, fleet2 := geo.NewIndex("fleet"), geo.NewIndex("fleet2")
	store.Update(func(tx keyspace.Tx) error {
		for _, ix := range []*geo.Index{fleet, fleet2} {
			ix.Put(tx, geo.Point{ID: "car-1", Lat: 52.52, Lon: 13.40})
			ix.Put(tx, geo.Point{ID: "car-2", Lat: 48.14, Lon: 11.58, Scope: composite.Tuple{"DE", "BY"}})
		}
		return nil
	})
	store.Update(func(tx keyspace.Tx) error {
		n, err := fleet.Drop(tx)
		fmt.Println("dropped", n, "points")
		return err
	})
	store.View(func(tx keyspace.Tx) error {
		for _, ix := range []*geo.Index{fleet, fleet2} {
			empty, _ := ix.Empty(tx)
			fmt.Println(ix.Name(), "empty:", empty)
		}
		return nil
	})
	// Output:
	// dropped 2 points
	// fleet empty: true
	// fleet2 empty: false
}

func ExampleIndex_ScopeCounts() {
	store := keyspace.NewMemory()
	fleet := geo.NewIndex("fleet")
	store.Update(func(tx keyspace.Tx) error {
		for _, p := range []geo.Point{
			{ID: "car-1", Lat: 59.91, Lon: 10.75, Scope: composite.Tuple{"oslo"}},
			{ID: "car-2", Lat: 59.92, Lon: 10.76, Scope: composite.Tuple{"oslo"}},
			{ID: "sled-1", Lat: 78.22, Lon: 15.65, Scope: composite.Tuple{"svalbard"}},
			{ID: "sled-2", Lat: 79.01, Lon: 12.10, Scope: composite.Tuple{"svalbard"}}, // in the north cap's grid
		} {
			if err := fleet.Put(tx, p); err != nil {
				return err
			}
		}
		return nil
	})
	store.View(func(tx keyspace.Tx) error {
		scopes, err := fleet.ScopeCounts(tx)
		for _, s := range scopes {
			fmt.Println(s.Scope, s.Points)
		}
		return err
	})
	// Output:
	// [oslo] 2
	// [svalbard] 2
}

// Drivers report their position every few seconds; a driver who stops
// reporting drops out of searches 30 seconds after the last report, as
// with Tile38's SET … EX 30. A program deletes the expired points now and
// then; queries leave them out in between.
func ExampleIndex_DeleteExpired() {
	store := keyspace.NewMemory()
	drivers := geo.NewIndex("drivers")
	start := time.Date(2030, 1, 1, 8, 0, 0, 0, time.UTC)
	store.Update(func(tx keyspace.Tx) error {
		for i, p := range []geo.Point{
			{ID: "ana", Lat: 52.5200, Lon: 13.4050},
			{ID: "ben", Lat: 52.5210, Lon: 13.4100},
		} {
			p.Expires = start.Add(time.Duration(i+1) * 30 * time.Second) // ben reported 30 s after ana
			if err := drivers.Put(tx, p); err != nil {
				return err
			}
		}
		return nil
	})
	now := start.Add(45 * time.Second) // ana's report is 45 s old
	store.View(func(tx keyspace.Tx) error {
		results, _, err := drivers.Radius(tx, 52.52, 13.405, 1000, &geo.QueryOptions{Now: now})
		for _, r := range results {
			fmt.Printf("%s, expires %s\n", r.ID, r.Expires.UTC().Format(time.TimeOnly))
		}
		return err
	})
	store.Update(func(tx keyspace.Tx) error {
		n, err := drivers.DeleteExpired(tx, now, 0)
		fmt.Println("deleted", n)
		next, _, _ := drivers.NextExpiry(tx)
		fmt.Println("next expiry", next.UTC().Format(time.TimeOnly))
		return err
	})
	// Output:
	// ben, expires 08:01:00
	// deleted 1
	// next expiry 08:01:00
}

// Intersecting asks which fences share a point with an area, as Tile38's
// INTERSECTS does of a collection of geofences: here, which delivery
// zones a 1 km circle around a depot reaches into.
func ExampleFences_Intersecting() {
	store := keyspace.NewMemory()
	zones := geo.NewFences("zones")
	store.Update(func(tx keyspace.Tx) error {
		return zones.PutAll(tx, []geo.Fence{
			{ID: "mission", Box: &geo.Box{MinLat: 37.748, MinLon: -122.425, MaxLat: 37.770, MaxLon: -122.405}},
			{ID: "soma", Polygon: orb.Polygon{{{-122.41, 37.77}, {-122.39, 37.77}, {-122.39, 37.79}, {-122.41, 37.77}}}},
			{ID: "sunset", Circle: &geo.Circle{Lat: 37.753, Lon: -122.494, Radius: 2000}},
		})
	})
	store.View(func(tx keyspace.Tx) error {
		ids, err := zones.Intersecting(tx, geo.Fence{Circle: &geo.Circle{Lat: 37.775, Lon: -122.415, Radius: 1000}})
		fmt.Println(ids, err)
		return nil
	})
	// Output:
	// [mission soma] <nil>
}

// Within asks which fences lie wholly inside an area, as Tile38's WITHIN
// does of a collection of geofences: here, which delivery zones a
// district's box holds whole, and which it only reaches into.
func ExampleFences_Within() {
	store := keyspace.NewMemory()
	zones := geo.NewFences("zones")
	store.Update(func(tx keyspace.Tx) error {
		return zones.PutAll(tx, []geo.Fence{
			{ID: "mission", Box: &geo.Box{MinLat: 37.748, MinLon: -122.425, MaxLat: 37.770, MaxLon: -122.405}},
			{ID: "soma", Polygon: orb.Polygon{{{-122.41, 37.77}, {-122.39, 37.77}, {-122.39, 37.79}, {-122.41, 37.77}}}},
			{ID: "sunset", Circle: &geo.Circle{Lat: 37.753, Lon: -122.494, Radius: 2000}},
		})
	})
	district := geo.Fence{Box: &geo.Box{MinLat: 37.745, MinLon: -122.43, MaxLat: 37.775, MaxLon: -122.38}}
	store.View(func(tx keyspace.Tx) error {
		within, err := zones.Within(tx, district)
		fmt.Println("within:", within, err)
		meeting, err := zones.Intersecting(tx, district)
		fmt.Println("meeting:", meeting, err)
		return nil
	})
	// Output:
	// within: [mission] <nil>
	// meeting: [mission soma] <nil>
}

// A Corridor is an area for Within: the delivery zones wholly within 2
// km of a route (all of the first, none of the one the route only
// passes, nor the one it encloses farther than 2 km from it).
func ExampleFences_Within_corridor() {
	store := keyspace.NewMemory()
	zones := geo.NewFences("zones")
	store.Update(func(tx keyspace.Tx) error {
		return zones.PutAll(tx, []geo.Fence{
			{ID: "harbour", Circle: &geo.Circle{Lat: 53.543, Lon: 9.97, Radius: 1500}},
			{ID: "city", Circle: &geo.Circle{Lat: 53.555, Lon: 10.02, Radius: 3000}},
			{ID: "park", Box: &geo.Box{MinLat: 53.575, MinLon: 9.95, MaxLat: 53.60, MaxLon: 10.00}},
		})
	})
	// A loop: west along the harbour, north, east and back south; the
	// park's middle lies more than 2 km from every side.
	loop := orb.LineString{{10.05, 53.54}, {9.93, 53.54}, {9.93, 53.64}, {10.05, 53.64}, {10.05, 53.54}}
	store.View(func(tx keyspace.Tx) error {
		within, err := zones.Within(tx, geo.Fence{Corridor: &geo.Corridor{Line: loop, Radius: 2000}})
		fmt.Println("within:", within, err)
		meeting, err := zones.Along(tx, loop, 2000)
		fmt.Println("meeting:", meeting, err)
		return nil
	})
	// Output:
	// within: [harbour] <nil>
	// meeting: [city harbour park] <nil>
}

// A Sector is an area for Intersecting and Within, as Tile38's SECTOR
// is: here, which zones a camera facing east-south-east sees within 3
// km, and which it sees whole.
func ExampleSector() {
	store := keyspace.NewMemory()
	zones := geo.NewFences("zones")
	store.Update(func(tx keyspace.Tx) error {
		return zones.PutAll(tx, []geo.Fence{
			{ID: "mission", Box: &geo.Box{MinLat: 37.748, MinLon: -122.425, MaxLat: 37.770, MaxLon: -122.405}},
			{ID: "soma", Polygon: orb.Polygon{{{-122.41, 37.77}, {-122.39, 37.77}, {-122.39, 37.79}, {-122.41, 37.77}}}},
			{ID: "sunset", Circle: &geo.Circle{Lat: 37.753, Lon: -122.494, Radius: 2000}},
			{ID: "ballpark", Circle: &geo.Circle{Lat: 37.7786, Lon: -122.3893, Radius: 300}},
		})
	})
	view := geo.Fence{Sector: &geo.Sector{Lat: 37.775, Lon: -122.415, Radius: 3000, From: 60, To: 170}}
	store.View(func(tx keyspace.Tx) error {
		seen, err := zones.Intersecting(tx, view)
		fmt.Println("seen:", seen, err)
		whole, err := zones.Within(tx, view)
		fmt.Println("whole:", whole, err)
		return nil
	})
	// Output:
	// seen: [ballpark mission soma] <nil>
	// whole: [ballpark] <nil>
}

// Near asks which fences lie within a distance of a point, nearest first,
// each with its distance (0 for one that holds the point), as Tile38's
// NEARBY does of a fence set: the delivery zones within 8 km of an
// address in Oakland.
func ExampleFences_Near() {
	store := keyspace.NewMemory()
	zones := geo.NewFences("zones")
	store.Update(func(tx keyspace.Tx) error {
		return zones.PutAll(tx, []geo.Fence{
			{ID: "downtown-sf", Circle: &geo.Circle{Lat: 37.7749, Lon: -122.4194, Radius: 5000}},
			{ID: "sf", Box: &geo.Box{MinLat: 37.70, MinLon: -122.52, MaxLat: 37.82, MaxLon: -122.35}},
			{ID: "oakland", Circle: &geo.Circle{Lat: 37.8044, Lon: -122.2712, Radius: 4000}},
		})
	})
	store.View(func(tx keyspace.Tx) error {
		near, err := zones.Near(tx, 37.80, -122.27, 8000, 0)
		for _, n := range near {
			fmt.Printf("%s %.0f m\n", n.ID, n.Distance)
		}
		return err
	})
	// Output:
	// oakland 0 m
	// sf 7029 m
}

// The zones a drive across the Bay Bridge enters, and those it passes
// within 5 km of (Tile38's INTERSECTS zones BUFFER 5000 OBJECT
// {LineString}): Berkeley's centre lies 7.5 km from the end of the
// route, 4.5 km beyond its 3 km circle.
func ExampleFences_Along() {
	store := keyspace.NewMemory()
	zones := geo.NewFences("zones")
	store.Update(func(tx keyspace.Tx) error {
		return zones.PutAll(tx, []geo.Fence{
			{ID: "downtown-sf", Circle: &geo.Circle{Lat: 37.7749, Lon: -122.4194, Radius: 5000}},
			{ID: "sf", Box: &geo.Box{MinLat: 37.70, MinLon: -122.52, MaxLat: 37.82, MaxLon: -122.35}},
			{ID: "oakland", Circle: &geo.Circle{Lat: 37.8044, Lon: -122.2712, Radius: 4000}},
			{ID: "berkeley", Circle: &geo.Circle{Lat: 37.8716, Lon: -122.2727, Radius: 3000}},
		})
	})
	route := orb.LineString{{-122.3964, 37.7879}, {-122.3600, 37.8100}, {-122.2712, 37.8044}} // [lon, lat]
	store.View(func(tx keyspace.Tx) error {
		entered, err := zones.Along(tx, route, 0)
		if err != nil {
			return err
		}
		near, err := zones.Along(tx, route, 5000)
		fmt.Println("enters:", entered)
		fmt.Println("within 5 km:", near)
		return err
	})
	// Output:
	// enters: [downtown-sf oakland sf]
	// within 5 km: [berkeley downtown-sf oakland sf]
}

// The zones a drive from the Ferry Building over the Bay Bridge to
// Oakland enters, in the order it enters them and how far along it each
// begins.
func ExampleFences_Passed() {
	store := keyspace.NewMemory()
	zones := geo.NewFences("zones")
	store.Update(func(tx keyspace.Tx) error {
		return zones.PutAll(tx, []geo.Fence{
			{ID: "downtown-sf", Circle: &geo.Circle{Lat: 37.7749, Lon: -122.4194, Radius: 5000}},
			{ID: "sf", Box: &geo.Box{MinLat: 37.70, MinLon: -122.52, MaxLat: 37.82, MaxLon: -122.35}},
			{ID: "oakland", Circle: &geo.Circle{Lat: 37.8044, Lon: -122.2712, Radius: 4000}},
		})
	})
	route := orb.LineString{{-122.3964, 37.7879}, {-122.3600, 37.8100}, {-122.2712, 37.8044}} // [lon, lat]
	store.View(func(tx keyspace.Tx) error {
		passed, err := zones.Passed(tx, route, 0)
		for _, p := range passed {
			fmt.Printf("%s at %.1f km\n", p.ID, p.At/1000)
		}
		return err
	})
	// Output:
	// downtown-sf at 0.0 km
	// sf at 0.0 km
	// oakland at 7.9 km
}

// The zones that touch a district, and those within 1 km of it
// (Tile38's INTERSECTS zones BUFFER 1000 OBJECT {Polygon}): the school
// zone's circle lies 760 m beyond the district's eastern edge (its
// centre 1,757 m, 0.02° of longitude at 37.785° N), the harbour's 7 km.
func ExampleFences_NearPolygon() {
	store := keyspace.NewMemory()
	zones := geo.NewFences("zones")
	store.Update(func(tx keyspace.Tx) error {
		return zones.PutAll(tx, []geo.Fence{
			{ID: "market", Box: &geo.Box{MinLat: 37.780, MinLon: -122.420, MaxLat: 37.790, MaxLon: -122.400}},
			{ID: "school", Circle: &geo.Circle{Lat: 37.785, Lon: -122.380, Radius: 1000}},
			{ID: "harbour", Circle: &geo.Circle{Lat: 37.810, Lon: -122.300, Radius: 2000}},
		})
	})
	district := orb.Polygon{{{-122.41, 37.78}, {-122.40, 37.78}, {-122.40, 37.79}, {-122.41, 37.79}, {-122.41, 37.78}}}
	store.View(func(tx keyspace.Tx) error {
		touching, err := zones.NearPolygon(tx, district, 0)
		if err != nil {
			return err
		}
		near, err := zones.NearPolygon(tx, district, 1000)
		fmt.Println("touching:", touching)
		fmt.Println("within 1 km:", near)
		return err
	})
	// Output:
	// touching: [market]
	// within 1 km: [market school]
}

// A fence can expire, as a Tile38 hook set with EX does: a road closure
// for the hour ahead, and one that ended a minute ago. Lookups leave the
// ended one out at once; DeleteExpired frees its keys when the program
// gets round to it.
func ExampleFences_DeleteExpired() {
	store := keyspace.NewMemory()
	closures := geo.NewFences("closures")
	now := time.Now()
	store.Update(func(tx keyspace.Tx) error {
		return closures.PutAll(tx, []geo.Fence{
			{ID: "market-st", Box: &geo.Box{MinLat: 37.78, MinLon: -122.42, MaxLat: 37.80, MaxLon: -122.39}, Expires: now.Add(time.Hour)},
			{ID: "parade", Circle: &geo.Circle{Lat: 37.79, Lon: -122.40, Radius: 800}, Expires: now.Add(-time.Minute)},
		})
	})
	store.Update(func(tx keyspace.Tx) error {
		ids, _ := closures.Containing(tx, 37.79, -122.40)
		fmt.Println("closed here:", ids)
		n, err := closures.DeleteExpired(tx, now, 0)
		fmt.Println("deleted", n, err)
		next, _, _ := closures.NextExpiry(tx)
		fmt.Println("next expiry in", next.Sub(now).Round(time.Minute))
		return err
	})
	// Output:
	// closed here: [market-st]
	// deleted 1 <nil>
	// next expiry in 1h0m0s
}

// A delivery van moves; in the same transaction as its new position, the
// fences it entered and left. No notification can be lost between the two,
// as it can between a geofence server's write and its webhook.
func ExampleFences_PutPoint() {
	store := keyspace.NewMemory()
	vans := geo.NewIndex("vans")
	zones := geo.NewFences("zones")
	store.Update(func(tx keyspace.Tx) error {
		return zones.PutAll(tx, []geo.Fence{
			{ID: "downtown", Circle: &geo.Circle{Lat: 37.7749, Lon: -122.4194, Radius: 3000}},
			{ID: "city", Box: &geo.Box{MinLat: 37.70, MinLon: -122.52, MaxLat: 37.82, MaxLon: -122.35}},
		})
	})
	move := func(lat, lon float64) {
		store.Update(func(tx keyspace.Tx) error {
			// Put the van where it is now; the crossings compare it with
			// where it was (Fences.Crossings, for two points of your own).
			crossings, err := zones.PutPoint(tx, vans, geo.Point{ID: "van-1", Lat: lat, Lon: lon})
			fmt.Println(crossings)
			return err
		})
	}
	move(37.80, -122.27) // Oakland, outside both
	move(37.7793, -122.4192)
	move(37.7694, -122.4862)
	// Output:
	// []
	// [{city enter} {downtown enter}]
	// [{city inside} {downtown exit}]
}

// A move between two samples can pass through a fence that holds
// neither: Crossings reports it as a Cross (Tile38's "cross"), along the
// straight line in longitude and latitude between them.
func ExampleFences_Crossings() {
	store := keyspace.NewMemory()
	zones := geo.NewFences("zones")
	store.Update(func(tx keyspace.Tx) error {
		return zones.Put(tx, geo.Fence{ID: "bridge", Box: &geo.Box{MinLat: 37.80, MinLon: -122.40, MaxLat: 37.82, MaxLon: -122.33}})
	})
	store.View(func(tx keyspace.Tx) error {
		sf, oakland := geo.Point{Lat: 37.79, Lon: -122.41}, geo.Point{Lat: 37.83, Lon: -122.30}
		crossings, err := zones.Crossings(tx, &sf, &oakland)
		fmt.Println(crossings, err)
		return nil
	})
	// Output:
	// [{bridge cross}] <nil>
}

// A roaming fence moves with its point: PutRoaming writes a courier's
// move and says which other couriers it came within 250 m of, left, or
// stayed near, as Tile38's roaming geofences do. (The distances agree
// with a haversine computed apart: 130, 238 and 602 m.)
func ExampleIndex_PutRoaming() {
	store := keyspace.NewMemory()
	couriers := geo.NewIndex("couriers")
	store.Update(func(tx keyspace.Tx) error {
		return couriers.PutAll(tx, []geo.Point{
			{ID: "ann", Lat: 52.5200, Lon: 13.4050},
			{ID: "bob", Lat: 52.5230, Lon: 13.4100},
		})
	})
	move := func(lat, lon float64) {
		store.Update(func(tx keyspace.Tx) error {
			meetings, err := couriers.PutRoaming(tx, geo.Point{ID: "cem", Lat: lat, Lon: lon}, 250)
			var said []string
			for _, m := range meetings {
				said = append(said, fmt.Sprintf("%s %s %.0f m.", m.ID, m.Kind, m.Distance))
			}
			fmt.Println(strings.Join(said, " "))
			return err
		})
	}
	move(52.5190, 13.4040) // beside ann
	move(52.5215, 13.4075) // between the two
	move(52.5240, 13.4110) // beside bob
	// Output:
	// ann enter 130 m.
	// ann inside 238 m. bob enter 238 m.
	// ann exit 602 m. bob inside 130 m.
}

// Which zones hold an address, and which drivers are inside a zone: a
// fence answers both ways.
func ExampleFences_Containing() {
	store := keyspace.NewMemory()
	zones := geo.NewFences("zones")
	drivers := geo.NewIndex("drivers")
	store.Update(func(tx keyspace.Tx) error {
		if err := zones.PutAll(tx, []geo.Fence{
			{ID: "mitte", Circle: &geo.Circle{Lat: 52.520, Lon: 13.405, Radius: 2000}, Payload: []byte(`{"tariff":1}`)},
			{ID: "ring", Polygon: orb.Polygon{{{13.28, 52.46}, {13.52, 52.46}, {13.52, 52.57}, {13.28, 52.57}, {13.28, 52.46}}}},
		}); err != nil {
			return err
		}
		return drivers.PutAll(tx, []geo.Point{
			{ID: "ann", Lat: 52.521, Lon: 13.410},
			{ID: "bob", Lat: 52.500, Lon: 13.300},
			{ID: "cem", Lat: 52.400, Lon: 13.050},
		})
	})
	store.View(func(tx keyspace.Tx) error {
		ids, err := zones.Containing(tx, 52.5163, 13.3777) // the Brandenburg Gate
		fmt.Println(ids, err)
		ring, _ := zones.Get(tx, "ring")
		inside, _, err := drivers.InFence(tx, ring, nil)
		for _, r := range inside {
			fmt.Println(r.ID)
		}
		return err
	})
	// Output:
	// [mitte ring] <nil>
	// ann
	// bob
}

// Update changes one point in place: here its payload, as Tile38's FSET
// does, keeping its place and its expiry.
func ExampleIndex_Update() {
	store := keyspace.NewMemory()
	fleet := geo.NewIndex("fleet")
	soon := time.Date(2099, 1, 1, 0, 0, 0, 0, time.UTC)
	store.Update(func(tx keyspace.Tx) error {
		return fleet.Put(tx, geo.Point{ID: "car-7", Lat: 59.91, Lon: 10.75, Payload: []byte(`{"status":"free"}`), Expires: soon})
	})
	err := store.Update(func(tx keyspace.Tx) error {
		_, err := fleet.Update(tx, "car-7", func(p *geo.Point) error {
			p.Payload = []byte(`{"status":"busy"}`)
			return nil
		})
		return err
	})
	fmt.Println(err)
	store.View(func(tx keyspace.Tx) error {
		p, err := fleet.Get(tx, "car-7")
		fmt.Println(p.Lat, p.Lon, string(p.Payload), p.Expires.Year(), err)
		_, err = fleet.Update(tx, "car-9", func(*geo.Point) error { return nil })
		fmt.Println(errors.Is(err, keyspace.ErrNotFound))
		return nil
	})
	// Output:
	// <nil>
	// 59.91 10.75 {"status":"busy"} 2099 <nil>
	// true
}

// A Corridor is the ground within a distance of a line: a truck's route
// with 300 m either side, which it exits when it strays, or with no
// distance a road, which a move crosses. PutPoint reports both, in the
// transaction that moves the truck.
func ExampleCorridor() {
	store := keyspace.NewMemory()
	fleet, fences := geo.NewIndex("fleet"), geo.NewFences("routes")
	store.Update(func(tx keyspace.Tx) error {
		return fences.PutAll(tx, []geo.Fence{
			{ID: "route-7", Corridor: &geo.Corridor{Line: orb.LineString{{13.37, 52.51}, {13.40, 52.52}, {13.45, 52.50}}, Radius: 300}},
			{ID: "spree-bridge", Corridor: &geo.Corridor{Line: orb.LineString{{13.38, 52.45}, {13.38, 52.60}}}},
		})
	})
	for _, at := range [][2]float64{{52.5105, 13.372}, {52.5155, 13.385}, {52.5300, 13.420}} {
		store.Update(func(tx keyspace.Tx) error {
			crossings, err := fences.PutPoint(tx, fleet, geo.Point{ID: "truck", Lat: at[0], Lon: at[1]})
			fmt.Println(crossings, err)
			return err
		})
	}
	store.View(func(tx keyspace.Tx) error {
		near, err := fences.Near(tx, 52.5300, 13.420, 5000, 0)
		fmt.Printf("%s %.0f m, %v\n", near[0].ID, near[0].Distance, err)
		return nil
	})
	// Output:
	// [{route-7 enter}] <nil>
	// [{route-7 inside} {spree-bridge cross}] <nil>
	// [{route-7 exit}] <nil>
	// route-7 1372 m, <nil>
}
