package hooks

import "github.com/recollect/recollect/hooks/notice"

// ParseMoment checks that s names a moment a client may send.
func ParseMoment(s string) (Moment, error) { return notice.ParseMoment(s) }
