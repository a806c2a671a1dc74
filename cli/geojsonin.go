package cli

import (
	"errors"
	"fmt"
)

// Reading GeoJSON: orb reads the geometry; numberedFeatures reads each
// feature's id and properties again with their numbers as written; and
// orbGeoJSON turns orb's panics on malformed input into errors.

// numberedFeature is a GeoJSON feature's id and properties with their
// numbers as written (json.Number).
type numberedFeature struct {
	ID         any            `json:"id"`
	Properties map[string]any `json:"properties"`
}

// numberedFeatures decodes the id and properties of each feature of the
// GeoJSON FeatureCollection b with their numbers as written, which orb's
// decoding reads as float64s: a payload's 20-digit serial, or an id
// property so large, keeps every digit through a GeoJSON import. orb
// read features features from b, and these match them one for one.
func numberedFeatures(b []byte, features int) ([]numberedFeature, error) {
	var fc struct {
		Features []numberedFeature `json:"features"`
	}
	if err := decodeJSON(b, &fc); err != nil {
		return nil, err
	}
	if len(fc.Features) != features {
		return nil, fmt.Errorf("read %d features and then %d", features, len(fc.Features))
	}
	return fc.Features, nil
}

// orbGeoJSON is one of orb's GeoJSON readers (geojson.UnmarshalFeature
// and the like) on b, its panic an error: orb v0.14.0 dereferences a
// null member of a GeometryCollection ("geometries":[null]) while it
// reads it, and a bad file must be an error naming it, not a crash.
func orbGeoJSON[T any](read func([]byte) (T, error), b []byte) (v T, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("GeoJSON that orb, its reader, could not read (a GeometryCollection with a null member does this): %v", p)
		}
	}()
	return read(b)
}

// errNullFeature is a FeatureCollection's feature that is null, which
// orb reads as a nil Feature.
var errNullFeature = errors.New("null, not a Feature")
