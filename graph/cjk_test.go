package graph_test

import (
	"slices"
	"testing"

	"github.com/recollect/recollect/graph"
	"github.com/recollect/recollect/graph/text"
)

// TestAnalyzeCJK: a Chinese or Japanese question is searched by the
// character pairs the index holds for its unspaced runs; English words
// beside them stay whole.
func TestAnalyzeCJK(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string
	}{
		{"我在哪里买了书？", []string{"我在", "在哪", "哪里", "里买", "买了", "了书"}},
		{"カメラはどこで買いましたか", []string{"カメ", "メラ", "ラは", "はど", "どこ", "こで", "で買", "買い", "いま", "まし", "した", "たか"}},
		{"Which camera did I buy?", []string{"camera", "buy"}},
		{"我的iPhone在哪", []string{"我的", "iphone", "在哪"}},
	} {
		if got := text.Analyze(tc.text).Terms; !slices.Equal(got, tc.want) {
			t.Errorf("Analyze(%q).Terms = %q, want %q", tc.text, got, tc.want)
		}
	}
}

// TestSearchCJK: search finds a fact by a word inside a longer Chinese or
// Japanese sentence, ranks the sentence sharing most of the question
// first, and English search is as it was.
func TestSearchCJK(t *testing.T) {
	db := newDB(t)
	zh := addFact(t, db, fact{content: "我上个月在北京买了一辆红色的自行车。"})
	zhOther := addFact(t, db, fact{content: "北海道的冬天很冷。"})
	ja := addFact(t, db, fact{content: "先週、東京で新しいカメラを買いました。"})
	en := addFact(t, db, fact{content: "I bought a new camera in Tokyo last week."})
	addFact(t, db, fact{content: "The build runs on every push"})

	for _, tc := range []struct {
		q     string
		first int64
		not   []int64
	}{
		{"自行车", zh, []int64{zhOther, ja, en}},
		{"我在北京买了什么？", zh, nil},
		{"カメラ", ja, []int64{zh, en}},
		{"東京で何を買いましたか？", ja, nil},
		{"camera Tokyo", en, []int64{ja, zh}},
	} {
		got := ids(search(t, db, graph.Query{Text: tc.q}).Results)
		if len(got) == 0 || got[0] != tc.first {
			t.Errorf("%q: results %v, want %d first", tc.q, got, tc.first)
		}
		for _, id := range tc.not {
			if slices.Contains(got, id) {
				t.Errorf("%q: results %v hold %d, which does not hold the words", tc.q, got, id)
			}
		}
	}
}
