package graph

import (
	"database/sql"
	"fmt"
	"strconv"
	"time"
)

// values reads a result's rows as the driver hands them over: scanning into
// *any is database/sql's one conversion-free path, where an *int64 or a
// *float64 goes through reflection and a sql.Null* through a second
// conversion, which the arms' many rows would pay for on every search. The
// accessors take what either engine's driver gives for a column: int64,
// float64, string or []byte, bool, time.Time, or nil for NULL.
type values struct {
	v    []any
	ptrs []any
}

// newValues reads rows of n columns.
func newValues(n int) *values {
	x := &values{v: make([]any, n), ptrs: make([]any, n)}
	for i := range x.v {
		x.ptrs[i] = &x.v[i]
	}
	return x
}

// scan reads the current row.
func (x *values) scan(rows *sql.Rows) error { return rows.Scan(x.ptrs...) }

// null reports whether column i is NULL.
func (x *values) null(i int) bool { return x.v[i] == nil }

// int reads column i as an integer; NULL is 0.
func (x *values) int(i int) int64 {
	switch v := x.v[i].(type) {
	case int64:
		return v
	case float64:
		return int64(v)
	case bool:
		if v {
			return 1
		}
		return 0
	case []byte:
		n, _ := strconv.ParseInt(string(v), 10, 64)
		return n
	case string:
		n, _ := strconv.ParseInt(v, 10, 64)
		return n
	}
	return 0
}

// float reads column i as a number; NULL is 0.
func (x *values) float(i int) float64 {
	switch v := x.v[i].(type) {
	case float64:
		return v
	case int64:
		return float64(v)
	case []byte:
		f, _ := strconv.ParseFloat(string(v), 64)
		return f
	case string:
		f, _ := strconv.ParseFloat(v, 64)
		return f
	}
	return 0
}

// str reads column i as text; NULL is "".
func (x *values) str(i int) string {
	switch v := x.v[i].(type) {
	case string:
		return v
	case []byte:
		return string(v)
	case nil:
		return ""
	case time.Time:
		return v.Format(time.RFC3339Nano) // as database/sql renders one into a string
	}
	return fmt.Sprint(x.v[i])
}
