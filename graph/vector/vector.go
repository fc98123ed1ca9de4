package vector

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Space is where a vector lives: vectors of different spaces are never
// compared, because their numbers mean different things.
type Space struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Dim      int    `json:"dim"`
}

// String names the space as provider/model/dimension, as stats and
// errors show it.
func (s Space) String() string { return fmt.Sprintf("%s/%s/%d", s.Provider, s.Model, s.Dim) }

// ErrSpaceMismatch is returned when two vectors of different spaces meet.
var ErrSpaceMismatch = errors.New("vectors belong to different embedding spaces")

// ErrNonFinite is returned for a vector with a NaN or infinite component.
var ErrNonFinite = errors.New("vector has a NaN or infinite component")

// Encode stores v as little-endian IEEE-754 float32 bytes, refusing
// NaN and Inf so nothing unusable is written.
func Encode(v []float32) ([]byte, error) {
	if len(v) == 0 {
		return nil, errors.New("empty vector")
	}
	b := make([]byte, 4*len(v))
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, fmt.Errorf("component %d: %w", i, ErrNonFinite)
		}
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b, nil
}

// Decode reads bytes written by Encode; the round trip is
// bit-exact.
func Decode(b []byte) ([]float32, error) {
	if len(b) == 0 || len(b)%4 != 0 {
		return nil, fmt.Errorf("vector blob of %d bytes is not a whole number of float32s", len(b))
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

// Cosine is the cosine similarity of a and b, which must share a space.
func Cosine(sa Space, a []float32, sb Space, b []float32) (float64, error) {
	if sa != sb || len(a) != len(b) || len(a) != sa.Dim {
		return 0, fmt.Errorf("compare %s with %s: %w", sa, sb, ErrSpaceMismatch)
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0, nil
	}
	return dot / (math.Sqrt(na) * math.Sqrt(nb)), nil
}
