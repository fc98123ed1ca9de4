package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// LocomoDefaultPath is where the LoCoMo release sits beside a recollect
// clone (../shared/bench/locomo). The file is CC BY-NC 4.0 and is never
// copied into this repository; it is read where it lies.
const LocomoDefaultPath = "../shared/bench/locomo/locomo10.json"

// Conversation is one LoCoMo sample: sessions of dialog turns and the
// questions asked about them.
type Conversation struct {
	ID        string
	Sessions  []Session
	Questions []Question
}

// Session is one dated sitting of a conversation.
type Session struct {
	Number int
	Date   time.Time
	Turns  []Turn
}

// Turn is one dialog turn, identified by its dia_id ("D3:7").
type Turn struct {
	DiaID   string
	Speaker string
	Text    string
}

// Question is one QA item with its cleaned evidence turn ids.
type Question struct {
	Text     string
	Category int
	Evidence []string
}

// Cleaning counts the annotation defects fixed or dropped while reading.
type Cleaning struct {
	// Split counts evidence strings holding several ids ("D8:6; D9:17").
	Split int `json:"split"`
	// Repaired counts ids rewritten to their evident meaning ("D:11:26",
	// "D30:05").
	Repaired int `json:"repaired"`
	// Junk counts evidence strings that name no turn ("D").
	Junk int `json:"junk"`
	// Missing counts ids that name a turn the conversation does not have.
	Missing int `json:"missing"`
	// NoEvidence counts questions left without any valid evidence id; they
	// are not scored.
	NoEvidence int `json:"no_evidence"`
}

type rawSample struct {
	SampleID     string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []struct {
		Question string          `json:"question"`
		Category int             `json:"category"`
		Evidence []string        `json:"evidence"`
		Answer   json.RawMessage `json:"answer"`
	} `json:"qa"`
}

type rawTurn struct {
	Speaker string `json:"speaker"`
	DiaID   string `json:"dia_id"`
	Text    string `json:"text"`
}

// LoadLocomo reads locomo10.json. A missing file gets an error that says
// where the dataset is expected.
func LoadLocomo(path string) ([]Conversation, Cleaning, error) {
	var cl Cleaning
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, cl, fmt.Errorf("read LoCoMo dataset: %w; pass the path to locomo10.json (expected at %s beside the repository)", err, LocomoDefaultPath)
	}
	var raw []rawSample
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, cl, fmt.Errorf("parse LoCoMo dataset %s: %w; pass the official locomo10.json", path, err)
	}
	out := make([]Conversation, 0, len(raw))
	for i, s := range raw {
		c, err := parseConversation(s, &cl)
		if err != nil {
			return nil, cl, fmt.Errorf("LoCoMo sample %d (%s): %w", i, s.SampleID, err)
		}
		out = append(out, c)
	}
	return out, cl, nil
}

func parseConversation(s rawSample, cl *Cleaning) (Conversation, error) {
	c := Conversation{ID: s.SampleID}
	if c.ID == "" {
		return c, fmt.Errorf("sample has no sample_id")
	}
	known := map[string]bool{}
	for key, val := range s.Conversation {
		n, ok := sessionNumber(key)
		if !ok {
			continue
		}
		var turns []rawTurn
		if err := json.Unmarshal(val, &turns); err != nil {
			return c, fmt.Errorf("session %s: %w", key, err)
		}
		if len(turns) == 0 {
			continue
		}
		var when string
		if err := json.Unmarshal(s.Conversation[key+"_date_time"], &when); err != nil {
			return c, fmt.Errorf("session %s has no readable date_time: %w", key, err)
		}
		date, err := time.Parse("3:04 pm on 2 January, 2006", strings.TrimSpace(when))
		if err != nil {
			return c, fmt.Errorf("session %s date %q: %w", key, when, err)
		}
		sess := Session{Number: n, Date: date}
		for _, t := range turns {
			id, _ := normalizeDiaID(t.DiaID)
			sess.Turns = append(sess.Turns, Turn{DiaID: id, Speaker: t.Speaker, Text: t.Text})
			known[id] = true
		}
		c.Sessions = append(c.Sessions, sess)
	}
	sort.Slice(c.Sessions, func(i, j int) bool { return c.Sessions[i].Number < c.Sessions[j].Number })
	for _, q := range s.QA {
		c.Questions = append(c.Questions, Question{Text: q.Question, Category: q.Category, Evidence: cleanEvidence(q.Evidence, known, cl)})
		if len(c.Questions[len(c.Questions)-1].Evidence) == 0 {
			cl.NoEvidence++
		}
	}
	return c, nil
}

// sessionNumber reads "session_12" (not "session_12_date_time").
func sessionNumber(key string) (int, bool) {
	rest, ok := strings.CutPrefix(key, "session_")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil
}

// cleanEvidence splits multi-id strings, repairs evident typos and drops
// ids that name no turn of the conversation.
func cleanEvidence(raw []string, known map[string]bool, cl *Cleaning) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range raw {
		parts := strings.FieldsFunc(r, func(c rune) bool { return c == ';' || c == ',' || c == ' ' })
		if len(parts) > 1 {
			cl.Split++
		}
		for _, p := range parts {
			id, repaired := normalizeDiaID(p)
			switch {
			case id == "":
				cl.Junk++
				continue
			case !known[id]:
				cl.Missing++
				continue
			}
			if repaired {
				cl.Repaired++
			}
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}

// normalizeDiaID rewrites "D:11:26" and "D30:05" to "D11:26" and "D30:5";
// it returns "" for a string that names no turn.
func normalizeDiaID(s string) (id string, repaired bool) {
	body, ok := strings.CutPrefix(strings.TrimSpace(s), "D")
	if !ok {
		return "", false
	}
	body = strings.TrimPrefix(body, ":")
	sess, turn, ok := strings.Cut(body, ":")
	if !ok {
		return "", false
	}
	a, err1 := strconv.Atoi(sess)
	b, err2 := strconv.Atoi(turn)
	if err1 != nil || err2 != nil || a <= 0 || b <= 0 {
		return "", false
	}
	id = fmt.Sprintf("D%d:%d", a, b)
	return id, id != strings.TrimSpace(s)
}
