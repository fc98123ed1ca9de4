package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// parseCount reads a token count such as "2M", "500k" or "1G" (powers of
// 1000, because token prices are quoted that way).
func parseCount(s string) (int64, error) {
	return parseScaled(s, map[string]int64{"": 1, "k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6, "g": 1e9, "G": 1e9}, "a token count such as 500k, 2M or 1G")
}

// parseBytes reads a size such as "2GB", "500MB" or "1.5G" (powers of 1024).
func parseBytes(s string) (int64, error) {
	s = strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(s), "B"), "b")
	s = strings.TrimSuffix(s, "i")
	return parseScaled(s, map[string]int64{"": 1, "k": 1 << 10, "K": 1 << 10, "m": 1 << 20, "M": 1 << 20, "g": 1 << 30, "G": 1 << 30, "t": 1 << 40, "T": 1 << 40}, "a size such as 500MB or 2GB")
}

func parseScaled(s string, units map[string]int64, want string) (int64, error) {
	s = strings.TrimSpace(s)
	i := len(s)
	for i > 0 && (s[i-1] < '0' || s[i-1] > '9') && s[i-1] != '.' {
		i--
	}
	num, unit := strings.TrimSpace(s[:i]), strings.TrimSpace(s[i:])
	mult, ok := units[unit]
	if !ok || num == "" {
		return 0, fmt.Errorf("%q is not %s", s, want)
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("%q is not %s", s, want)
	}
	v := f * float64(mult)
	if v >= math.MaxInt64 || math.IsNaN(v) {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return int64(v), nil
}
