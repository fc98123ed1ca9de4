package text

import "sync"

// IsStopword reports whether w (lowercase) is a function word that carries
// no topic: articles, pronouns, auxiliaries, question words, and the
// fragments the tokenizer leaves from contractions ("don't" → "don", "t").
// Matching them only adds noise to a ranked keyword search.
func IsStopword(w string) bool { return stopwords()[w] }

var stopwords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{
		"a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are", "aren",
		"as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but", "by",
		"can", "could", "couldn", "d", "did", "didn", "do", "does", "doesn", "doing", "don", "down", "during",
		"each", "few", "for", "from", "further", "had", "hadn", "has", "hasn", "have", "haven", "having",
		"he", "her", "here", "hers", "herself", "him", "himself", "his", "how", "i", "if", "in", "into",
		"is", "isn", "it", "its", "itself", "just", "ll", "m", "ma", "me", "might", "more", "most", "must",
		"mustn", "my", "myself", "needn", "no", "nor", "not", "now", "o", "of", "off", "on", "once", "only",
		"or", "other", "our", "ours", "ourselves", "out", "over", "own", "re", "s", "same", "shall", "shan",
		"she", "should", "shouldn", "so", "some", "such", "t", "than", "that", "the", "their", "theirs",
		"them", "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too",
		"under", "until", "up", "us", "ve", "very", "was", "wasn", "we", "were", "weren", "what", "when",
		"where", "which", "while", "who", "whom", "whose", "why", "will", "with", "won", "would", "wouldn",
		"y", "you", "your", "yours", "yourself", "yourselves", "also", "ever", "yet", "may",
	} {
		m[w] = true
	}
	return m
})
