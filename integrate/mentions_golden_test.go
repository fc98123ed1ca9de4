package integrate

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// TestHeuristicMentionsGolden pins every entity testdata/mentions.json
// expects of a sentence, in order, as "name:type" with ":subject" for the
// subject: nothing more (no sentence-initial common words, greetings,
// dates, placeholders or emphasis) and nothing less.
func TestHeuristicMentionsGolden(t *testing.T) {
	raw, err := os.ReadFile("testdata/mentions.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		Text     string   `json:"text"`
		Mentions []string `json:"mentions"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		got := []string{}
		for _, m := range HeuristicMentions(c.Text) {
			s := m.Name + ":" + m.Type
			if m.IsSubject {
				s += ":subject"
			}
			got = append(got, s)
		}
		if strings.Join(got, " | ") != strings.Join(c.Mentions, " | ") {
			t.Errorf("%q\n got  %q\n want %q", c.Text, got, c.Mentions)
		}
	}
}
