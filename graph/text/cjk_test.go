package text_test

import (
	"slices"
	"testing"

	"github.com/recollect/recollect/graph/text"
)

func TestIndexText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Caroline moved to Berlin", "Caroline moved to Berlin"},
		{"", ""},
		{"我喜欢猫", " 我喜 喜欢 欢猫 我 喜 欢 猫 "},
		{"猫", " 猫 "},
		{"我在北京，你呢？", " 我在 在北 北京 我 在 北 京 ， 你呢 你 呢 ？"},
		{"iPhone15を買った", "iPhone15 を買 買っ った を 買 っ た "},
		{"コーヒーが好き", " コー ーヒ ヒー ーが が好 好き コ ー ヒ ー が 好 き "},
		{"서울에 살아요", " 서울 울에 서 울 에   살아 아요 살 아 요 "},
	} {
		if got := text.IndexText(tc.in); got != tc.want {
			t.Errorf("IndexText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestQueryWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"berlin", []string{"berlin"}},
		{"北京", []string{"北京"}},
		{"猫", []string{"猫"}},
		{"北京大学", []string{"北京", "京大", "大学"}},
		{"iphone15を買った", []string{"iphone15", "を買", "買っ", "った"}},
		{"東京tower", []string{"東京", "tower"}},
	} {
		if got := text.QueryWords(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("QueryWords(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
