package graph

import "testing"

func TestConversation(t *testing.T) {
	for _, tc := range []struct{ session, said, want string }{
		{"s1", "2023-05-21T09:00:00.000000000Z", "s1 2023-05-21"},
		{"s1", "2023-05-21T23:00:00.000000000Z", "s1 2023-05-21"},
		{"s1", "", "s1"},
		{"", "2023-05-21T09:00:00.000000000Z", ""},
	} {
		if got := Conversation(tc.session, tc.said); got != tc.want {
			t.Errorf("Conversation(%q, %q) = %q, want %q", tc.session, tc.said, got, tc.want)
		}
	}
}
