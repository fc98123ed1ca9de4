package integrate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"sort"
	"strings"

	"github.com/recollect/recollect/store"
)

// Near duplicates are found through fact_signatures, a prefix-filter index
// (the all-pairs similarity-join technique): a fact's content words are
// ordered by one fixed rule — longest first, then alphabetically — and the
// first n−⌈0.6·n⌉+1 of its n words are its signature. Two facts whose
// word overlap (Jaccard) is at least NearThreshold always share a
// signature word, and their sizes are within a factor NearThreshold of
// each other, so a new fact looks up only its own few signature words in
// a size band. The cost per fact follows how many facts share its rarest
// words, not the size of the store.

// PostingCap bounds the facts read per signature word: a word in the
// signature of thousands of facts of similar size (boilerplate) yields
// its newest PostingCap, so one fact's lookup stays bounded whatever the
// store holds. A near duplicate shares every word it has in common with
// the new fact; it is missed only if each of them is that common.
const PostingCap = 32

// signature is a fact's signature words, hashed, its size in content
// words and the set of its content words (wordMask).
func signature(content string) (tokens []int64, size int, mask int64) {
	return signatureOf(contentWords(content))
}

// signatureOf is signature of a fact's content words.
func signatureOf(words map[string]bool) (tokens []int64, size int, mask int64) {
	sig := pigeonholeOf(words)
	tokens = make([]int64, len(sig))
	for i, w := range sig {
		tokens[i] = wordHash(w)
	}
	return tokens, len(words), wordMask(words)
}

// wordMask is a set of words in 64 bits: each sets the bit its hash's top
// six bits name. A word two facts share sets its bit in both, so the words
// of one whose bits the other's mask lacks are not shared (mayBeNear).
func wordMask(words map[string]bool) int64 {
	var m uint64
	for w := range words {
		m |= 1 << wordBit(w)
	}
	return int64(m)
}

// wordBit is the bit of w in a word mask.
func wordBit(w string) uint { return uint(uint64(wordHash(w)) >> 58) }

// mayBeNear is false only when a stored fact of size content words, whose
// word mask is mask, cannot overlap the words mine by NearThreshold. Its
// words shared with mine are at most those of mine whose bits (bits[i] is
// the bit of the i-th) mask holds, and the overlap, shared over all,
// grows with the shared; so when even that many shared fall short, the
// fact is passed over without reading it.
func mayBeNear(mine int, bits []uint, size int, mask int64) bool {
	shared := 0
	for _, b := range bits {
		if uint64(mask)&(1<<b) != 0 {
			shared++
		}
	}
	shared = min(shared, size)
	all := mine + size - shared
	if all <= 0 {
		return true
	}
	// The same division as jaccard's, so the two agree at the threshold.
	return float64(shared)/float64(all) >= NearThreshold
}

// wordHash is a word's 64-bit FNV-1a hash.
func wordHash(w string) int64 {
	h := fnv.New64a()
	h.Write([]byte(w))
	return int64(h.Sum64())
}

// sizeBand is the range of sizes a near duplicate of an n-word fact has.
func sizeBand(n int) (lo, hi int) {
	return int(math.Ceil(NearThreshold * float64(n))), int(math.Floor(float64(n) / NearThreshold))
}

// execer writes: a *store.Tx or a *store.DB.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// signFact stores fact id's signature; signed again, its size and word
// mask are written anew (a store from before masks is signed again once).
func signFact(ctx context.Context, x execer, id int64, content string) error {
	tokens, size, mask := signature(content)
	if len(tokens) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString(`INSERT INTO fact_signatures(token, fact_id, size, mask) VALUES `)
	args := make([]any, 0, 4*len(tokens))
	for i, t := range tokens {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("(?,?,?,?)")
		args = append(args, t, id, size, mask)
	}
	b.WriteString(` ON CONFLICT(token, fact_id) DO UPDATE SET size = excluded.size, mask = excluded.mask`)
	if _, err := x.ExecContext(ctx, b.String(), args...); err != nil {
		return fmt.Errorf("sign fact %d: %w", id, err)
	}
	return nil
}

// SignFacts stores the signatures of the active facts with ids from..to
// (inclusive) in tx, and returns how many facts it signed. A store built
// by inserting facts directly (a benchmark's) calls it once after.
func SignFacts(ctx context.Context, tx *store.Tx, from, to int64) (int, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, content FROM facts WHERE id BETWEEN ? AND ? AND status = 'active'`, from, to)
	if err != nil {
		return 0, fmt.Errorf("sign facts: %w", err)
	}
	type fact struct {
		id      int64
		content string
	}
	var facts []fact
	for rows.Next() {
		var f fact
		if err := rows.Scan(&f.id, &f.content); err != nil {
			rows.Close()
			return 0, fmt.Errorf("sign facts: %w", err)
		}
		facts = append(facts, f)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("sign facts: %w", err)
	}
	for _, f := range facts {
		if err := signFact(ctx, tx, f.id, f.content); err != nil {
			return 0, err
		}
	}
	return len(facts), nil
}

// signBackfill signs the facts a store held before it had signatures or
// word masks (fact_signature_backfill names the newest), a batch per
// transaction, then drops the marker.
func (in *Integrator) signBackfill(ctx context.Context) error { return SignStored(ctx, in.DB) }

// SignStored signs the facts a store held before its signatures had what
// this version keeps (fact_signature_backfill names the newest), a batch
// per transaction, then drops the marker; with no marker it does nothing.
// Each integrate run starts with it; a benchmark that keeps built stores
// calls it before copying one.
func SignStored(ctx context.Context, db *store.DB) error {
	var upto int64
	err := db.QueryRowContext(ctx, `SELECT upto FROM fact_signature_backfill`).Scan(&upto)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("sign stored facts: %w", err)
	}
	const batch = 5000
	for from := int64(1); from <= upto; from += batch {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := db.Tx(ctx, func(tx *store.Tx) error {
			_, err := SignFacts(ctx, tx, from, min(from+batch-1, upto))
			return err
		})
		if err != nil {
			return err
		}
	}
	if _, err := db.ExecContext(ctx, `DELETE FROM fact_signature_backfill`); err != nil {
		return fmt.Errorf("sign stored facts: %w", err)
	}
	return nil
}

// signatureCandidates lists the active facts of domain that share a
// signature word with a fact of content words words and lie in its size
// band, each word's
// newest PostingCap at most, with their contents — less those whose word
// mask shows they cannot be near duplicates (mayBeNear), which are never
// read. A signature without a mask (stored before masks, not yet signed
// again) is read.
func signatureCandidates(ctx context.Context, q querier, words map[string]bool, domain string) ([]candidate, error) {
	tokens, size, _ := signatureOf(words)
	if len(tokens) == 0 {
		return nil, nil
	}
	bits := make([]uint, 0, len(words))
	for w := range words {
		bits = append(bits, wordBit(w))
	}
	lo, hi := sizeBand(size)
	var b strings.Builder
	args := make([]any, 0, 4*len(tokens))
	for i, t := range tokens {
		if i > 0 {
			b.WriteString(" UNION ")
		}
		b.WriteString(`SELECT * FROM (SELECT fact_id, size, mask FROM fact_signatures WHERE token = ? AND size BETWEEN ? AND ? ORDER BY fact_id DESC LIMIT ?) s`)
		args = append(args, t, lo, hi, PostingCap)
	}
	rows, err := q.QueryContext(ctx, b.String(), args...)
	if err != nil {
		return nil, fmt.Errorf("find near duplicates: %w", err)
	}
	var read []int64
	seen := map[int64]bool{}
	for rows.Next() {
		var id, n int64
		var mask sql.NullInt64
		if err := rows.Scan(&id, &n, &mask); err != nil {
			rows.Close()
			return nil, fmt.Errorf("find near duplicates: %w", err)
		}
		if !seen[id] && (!mask.Valid || mayBeNear(len(words), bits, int(n), mask.Int64)) {
			seen[id] = true
			read = append(read, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find near duplicates: %w", err)
	}
	if len(read) == 0 {
		return nil, nil
	}
	in, iargs := store.InList(read)
	rows, err = q.QueryContext(ctx, `SELECT f.id, f.content, COALESCE(f.said_at,'') FROM facts f
		WHERE f.id IN (`+in+`) AND f.status = 'active' AND f.domain = ? ORDER BY f.id`, append(iargs, domain)...)
	if err != nil {
		return nil, fmt.Errorf("find near duplicates: %w", err)
	}
	defer rows.Close()
	var out []candidate
	for rows.Next() {
		c := candidate{Status: "active"}
		if err := rows.Scan(&c.ID, &c.Content, &c.SaidAt); err != nil {
			return nil, fmt.Errorf("find near duplicates: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find near duplicates: %w", err)
	}
	return out, nil
}

// bestNear keeps the candidates whose overlap with the content words mine
// reaches NearThreshold, best first (ties oldest first), at most five.
func bestNear(mine map[string]bool, cands []candidate) []candidate {
	var out []candidate
	for _, c := range cands {
		if !mayReachNear(mine, c.Content) {
			continue
		}
		if c.Score = jaccard(mine, contentWords(c.Content)); c.Score >= NearThreshold {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	if len(out) > 5 {
		out = out[:5]
	}
	return out
}

// NearDuplicateIDs lists the active facts of domain that are near
// duplicates of content (overlap ≥ NearThreshold), best first, at most
// five, as integrate finds them; for benchmarks and diagnostics.
func NearDuplicateIDs(ctx context.Context, db *store.DB, content, domain string) ([]int64, error) {
	near, err := nearDuplicates(ctx, db, content, domain)
	ids := make([]int64, len(near))
	for i, c := range near {
		ids[i] = c.ID
	}
	return ids, err
}

// mayReachNear is false only when text's overlap with the content words
// mine cannot reach NearThreshold, told without reading text's words: each
// of them is a part of the lowercased text, so the words the two share are
// at most the words of mine found in it, and the overlap (shared over all)
// at most those over len(mine). Most of a signature word's facts share
// that word and little else; this passes them over without splitting and
// stemming them (bestNear's answer is the same: TestNearPrefilter).
func mayReachNear(mine map[string]bool, text string) bool {
	if len(mine) == 0 {
		return true
	}
	low := strings.ToLower(text)
	found := 0
	for w := range mine {
		if strings.Contains(low, w) {
			found++
		}
	}
	return float64(found)/float64(len(mine)) >= NearThreshold
}
