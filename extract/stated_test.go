package extract

import (
	"testing"
	"time"
)

func TestStatedDate(t *testing.T) {
	day := func(y int, m time.Month, d, h, min int) time.Time { return time.Date(y, m, d, h, min, 0, 0, time.UTC) }
	for _, tc := range []struct {
		text string
		want time.Time
		ok   bool
	}{
		{"[2023/05/21] user: I adopted a cat named Miso.", day(2023, 5, 21, 0, 0), true},
		{"2023-05-21: the team moved to Go.", day(2023, 5, 21, 0, 0), true},
		{"  [2024-01-02 14:05] the deploy failed", day(2024, 1, 2, 14, 5), true},
		{"(2022.12.31) year-end review", day(2022, 12, 31, 0, 0), true},
		{"[8 May 2023] Caroline: I went to a support group.", day(2023, 5, 8, 0, 0), true},
		{"May 8, 2023: Caroline went to a support group.", day(2023, 5, 8, 0, 0), true},
		{"[31 September 2023] no such day", time.Time{}, false},
		{"[2023/02/30] no such day", time.Time{}, false},
		{"[2023/05/21 25:00] no such hour", time.Time{}, false},
		{"The release is due 2023-05-21.", time.Time{}, false},
		{"Caroline went on 8 May 2023.", time.Time{}, false},
		{"20230521 is a build number", time.Time{}, false},
		{"2023-05-21T is not a stamp", time.Time{}, false},
	} {
		got, ok := StatedDate(tc.text)
		if ok != tc.ok || !got.Equal(tc.want) {
			t.Errorf("StatedDate(%q) = %v, %v; want %v, %v", tc.text, got, ok, tc.want, tc.ok)
		}
	}
}
