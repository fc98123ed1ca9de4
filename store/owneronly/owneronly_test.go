package owneronly

import (
	"reflect"
	"testing"
)

const me = "S-1-5-21-1004336348-1177238915-682003330-1001"

func TestSDDL(t *testing.T) {
	cases := []struct {
		kind Kind
		want string
	}{
		{File, "D:P(A;;FA;;;" + me + ")"},
		{Dir, "D:P(A;OICI;FA;;;" + me + ")"},
		{Pipe, "D:P(A;;GA;;;" + me + ")"},
	}
	for _, c := range cases {
		got := SDDL(me, c.kind)
		if got != c.want {
			t.Errorf("SDDL(%d) = %q; want %q", c.kind, got, c.want)
		}
		if r := Read(got, me); !r.OwnerOnly || len(r.Others) != 0 {
			t.Errorf("Read(SDDL(%d)) = %+v; want owner only", c.kind, r)
		}
	}
}

// The descriptors below are shaped as Windows returns them for a folder
// under C:\Users\<name> (inherited from the profile), for one a user
// tightened, and for the kinds that let anyone in.
func TestRead(t *testing.T) {
	cases := []struct {
		name string
		sddl string
		want Report
	}{
		{"profile folder inherits SYSTEM and Administrators",
			"O:" + me + "G:" + me + "D:AI(A;OICIID;FA;;;SY)(A;OICIID;FA;;;BA)(A;OICIID;FA;;;" + me + ")",
			Report{Others: []string{"SY", "BA"}}},
		{"owner only, protected", "O:" + me + "D:P(A;OICI;FA;;;" + me + ")", Report{OwnerOnly: true}},
		{"SID compares case-insensitively", "D:P(A;;FA;;;" + "s-1-5-21-1004336348-1177238915-682003330-1001" + ")", Report{OwnerOnly: true}},
		{"a deny entry grants nothing", "D:P(D;;FA;;;WD)(A;;FA;;;" + me + ")", Report{OwnerOnly: true}},
		{"inherit-only entry is for children", "D:P(A;OICIIO;GA;;;CO)(A;;FA;;;" + me + ")", Report{OwnerOnly: true}},
		{"everyone may read", "D:(A;;FR;;;WD)(A;;FA;;;" + me + ")", Report{Others: []string{"WD"}}},
		{"null DACL", "O:" + me + "D:NO_ACCESS_CONTROL", Report{Others: []string{"everyone (no DACL)"}}},
		{"no DACL at all", "O:" + me, Report{Others: []string{"everyone (no DACL)"}}},
		{"SACL after the DACL", "D:P(A;;FA;;;" + me + ")S:(AU;SA;FA;;;WD)", Report{OwnerOnly: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Read(c.sddl, me); !reflect.DeepEqual(got, c.want) {
				t.Errorf("Read(%q) = %+v; want %+v", c.sddl, got, c.want)
			}
		})
	}
}
