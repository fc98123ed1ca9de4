package graph

import (
	"strings"
	"testing"
)

// TestPassageCJK: a Chinese question's words are found inside the
// unspaced sentences of a long message, so the passage shown is the part
// that holds them and its coverage counts them.
func TestPassageCJK(t *testing.T) {
	filler := strings.Repeat("今天天气很好，我们去公园散步了。", 40)
	text := filler + "数据库的备份每天凌晨三点运行。" + filler
	stems := queryStems("备份什么时候运行？")
	if got := coverage("数据库的备份每天凌晨三点运行。", stems); got == 0 {
		t.Fatalf("coverage of the sentence with 备份 and 运行 = 0 (stems %v)", stems)
	}
	p, cut := Passage(text, stems, PassageChars, true)
	if !cut || !strings.Contains(p, "备份每天凌晨三点运行") {
		t.Errorf("passage (cut %v) does not show the sentence with the words: %q", cut, p)
	}
	spans := wordSpans("我的iPhone很好")
	var got []string
	for _, w := range spans {
		got = append(got, w.stem)
	}
	if strings.Join(got, " ") != "我的 iphon 很好" {
		t.Errorf("wordSpans = %q", got)
	}
}

// TestPassageOpening: a long message whose opening holds the question's
// words is shown from its start, even where a part further down, the
// question quoted back, holds more of them; an opening holding too few
// gives way to the part that holds them, and so does tool output, which
// says nothing up front.
func TestPassageOpening(t *testing.T) {
	filler := strings.Repeat("The migration ran without trouble on every table. ", 20)
	for _, tc := range []struct {
		name, opening, later string
		message              bool
		want                 string
	}{
		{"message, opening holds half", "The staging deploy now reads its script from deploy.sh.\n",
			"> where does the staging deploy script live and who runs it nightly\n", true, "reads its script from deploy.sh"},
		{"tool output, opening holds half", "The staging deploy now reads its script from deploy.sh.\n",
			"> where does the staging deploy script live and who runs it nightly\n", false, "who runs it nightly"},
		{"message, opening holds too few", "Notes on the staging host.\n",
			"The nightly deploy script lives in tools/deploy.sh and cron runs it.\n", true, "lives in tools/deploy.sh"},
	} {
		text := tc.opening + filler + tc.later + filler
		stems := queryStems("Where does the nightly staging deploy script live?")
		p, cut := Passage(text, stems, PassageChars, tc.message)
		if !cut || !strings.Contains(p, tc.want) {
			t.Errorf("%s: passage (cut %v) = %q, want it to hold %q", tc.name, cut, p, tc.want)
		}
	}
}
