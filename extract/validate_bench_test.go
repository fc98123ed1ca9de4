package extract

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/recollect/recollect/extract/model"
)

// benchAnswer is a 40-fact extract answer, about what a full batch yields.
func benchAnswer() string {
	var b strings.Builder
	b.WriteString(`{"facts":[`)
	for i := range 40 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"content":"The user's service number %d deploys to Fly.io from the main branch.","domain":"work","confidence":0.8,"importance":0.6,"valid_from":null,"entities":[{"name":"the user","type":"person","role":"subject","is_subject":true},{"name":"Fly.io","type":"organization","role":"object","is_subject":false}],"event_ids":[%d,%d]}`, i, i+1, i+2)
	}
	b.WriteString(`]}`)
	return b.String()
}

// BenchmarkValidateAnswer measures schema validation of a full answer;
// compare with BenchmarkDecodeAnswerBaseline, the plain decode every answer
// gets anyway: the ratio is what validation adds.
func BenchmarkValidateAnswer(b *testing.B) {
	text := benchAnswer()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if err := model.ValidateAnswer(FactSchema, text); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeAnswerBaseline decodes the same answer into the extract
// stage's types without validation.
func BenchmarkDecodeAnswerBaseline(b *testing.B) {
	text := benchAnswer()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		var ans struct {
			Facts []modelFact `json:"facts"`
		}
		if err := json.Unmarshal([]byte(text), &ans); err != nil {
			b.Fatal(err)
		}
	}
}
