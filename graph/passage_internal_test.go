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
	p, cut := Passage(text, stems, PassageChars)
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
