package store

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode"
)

// Normalize folds a fact's wording for exact-duplicate detection: case,
// runs of whitespace and trailing punctuation do not make two facts differ.
func Normalize(s string) string {
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	return strings.TrimRightFunc(s, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSpace(r) })
}

// Digest is the content digest of a fact: sha256 of its normalized text.
func Digest(content string) string {
	sum := sha256.Sum256([]byte(Normalize(content)))
	return hex.EncodeToString(sum[:16])
}
