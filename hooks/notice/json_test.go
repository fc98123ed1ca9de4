package notice

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestDecodeObject(t *testing.T) {
	cases := []struct {
		name, in string
		want     []Member // for names a, b
		err      string
	}{
		{"strings", `{"a":"x","b":"y"}`, []Member{{Kind: KindString, Str: "x"}, {Kind: KindString, Str: "y"}}, ""},
		{"absent and other kinds", ` {"b":true,"c":[1,{"a":"nested"}]} `, []Member{{}, {Kind: KindBool, Bool: true}}, ""},
		{"last duplicate wins", `{"a":"1","a":"2"}`, []Member{{Kind: KindString, Str: "2"}, {}}, ""},
		{"keys match exactly", `{"A":"x"}`, []Member{{}, {}}, ""},
		{"escapes", `{"a":"q\"b\\s\/\b\f\n\r\t\u00e9\ud83d\ude00"}`, []Member{{Kind: KindString, Str: "q\"b\\s/\b\f\n\r\té😀"}, {}}, ""},
		{"lone surrogate", `{"a":"\ud83dx"}`, []Member{{Kind: KindString, Str: "\ufffdx"}, {}}, ""},
		{"invalid UTF-8", "{\"a\":\"\xff\"}", []Member{{Kind: KindString, Str: "\ufffd"}, {}}, ""},
		{"numbers", `{"a":-0.5e+10,"b":0}`, []Member{{Kind: KindNumber}, {Kind: KindNumber}}, ""},
		{"null", `{"a":null}`, []Member{{Kind: KindNull}, {}}, ""},
		{"empty object", `{}`, []Member{{}, {}}, ""},
		{"not an object", `["a"]`, nil, "not an object at byte 0"},
		{"empty", ``, nil, "unexpected end of input, want an object at byte 0"},
		{"trailing data", `{} {}`, nil, "data after the object at byte 3"},
		{"trailing comma", `{"a":1,}`, nil, "want a string key at byte 7"},
		{"leading zero", `{"a":01}`, nil, "want ',' or '}' in an object at byte 6"},
		{"control character", "{\"a\":\"\n\"}", nil, "control character in a string at byte 6"},
		{"bad escape", `{"a":"\x"}`, nil, `invalid escape 'x' at byte 6`},
		{"short unicode escape", `{"a":"\u12"}`, nil, `want four hex digits after \u at byte 8`},
		{"unclosed", `{"a":"x"`, nil, "unexpected end of input in an object at byte 8"},
		{"bad literal", `{"a":tru}`, nil, "invalid literal, want true at byte 5"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := DecodeObject([]byte(c.in), "a", "b")
			if c.err != "" {
				if err == nil || err.Error() != c.err {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				if c.name != "not an object" && json.Valid([]byte(c.in)) {
					t.Fatalf("encoding/json accepts %q", c.in)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i := range c.want {
				if got[i] != c.want[i] {
					t.Errorf("member %d = %+v, want %+v", i, got[i], c.want[i])
				}
			}
		})
	}
}

// TestDecodeObjectDepth pins the nesting limit to encoding/json's.
func TestDecodeObjectDepth(t *testing.T) {
	for _, depth := range []int{maxDepth, maxDepth + 1} {
		in := `{"a":` + strings.Repeat("[", depth-1) + strings.Repeat("]", depth-1) + "}"
		_, err := DecodeObject([]byte(in), "a")
		var v any
		jerr := json.Unmarshal([]byte(in), &v)
		if (err == nil) != (jerr == nil) {
			t.Errorf("depth %d: ours %v, encoding/json %v", depth, err, jerr)
		}
	}
}

// FuzzDecodeObject checks DecodeObject against encoding/json: the same
// inputs accepted, the same members and string values.
func FuzzDecodeObject(f *testing.F) {
	for _, s := range []string{
		`{"hook_event_name":"PreCompact","session_id":"s","transcript_path":"/t.jsonl","trigger":"auto"}`,
		`{"a":[1,2,{"b":null}],"b":"\u00e9\ud800"}`, `{"ok":true,"message":"noted"}`, `{}`, `{"a":1e5}`, "{\"a\":\"\xff\"}",
	} {
		f.Add([]byte(s))
	}
	names := []string{"a", "b", "ok", "message", "hook_event_name", "session_id", "transcript_path"}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := DecodeObject(data, names...)
		trimmed := bytes.TrimLeft(data, " \t\r\n")
		var ref map[string]json.RawMessage
		jerr := json.Unmarshal(data, &ref)
		if len(trimmed) == 0 || trimmed[0] != '{' {
			if err == nil {
				t.Fatalf("accepted %q, which is no object", data)
			}
			return
		}
		if (err == nil) != (jerr == nil) {
			t.Fatalf("%q: ours %v, encoding/json %v", data, err, jerr)
		}
		if err != nil {
			return
		}
		for i, n := range names {
			raw, ok := ref[n]
			if !ok {
				if got[i].Kind != KindAbsent {
					t.Fatalf("%q: %s = %+v, encoding/json has none", data, n, got[i])
				}
				continue
			}
			var want Member
			switch raw[0] {
			case '"':
				want.Kind = KindString
				json.Unmarshal(raw, &want.Str)
			case 't', 'f':
				want = Member{Kind: KindBool, Bool: raw[0] == 't'}
			case 'n':
				want.Kind = KindNull
			case '{':
				want.Kind = KindObject
			case '[':
				want.Kind = KindArray
			default:
				want.Kind = KindNumber
			}
			if got[i] != want {
				t.Fatalf("%q: %s = %+v, encoding/json %+v", data, n, got[i], want)
			}
		}
	})
}

// FuzzRequestJSON checks that the daemon's encoding/json decodes
// AppendJSON's line back to the request (strings normalised as
// encoding/json normalises them).
func FuzzRequestJSON(f *testing.F) {
	f.Add("notify", "compaction", "0b2c", "/home/u/.claude/projects/-w/0b2c.jsonl", 0)
	f.Add("status", "", "", "", 0)
	f.Add("notify", "threshold", "q\"\\\n\x01\u2028<&>", "\xff\xfe/é", 0)
	f.Add("wait", "", "", "", 3000)
	f.Add("wait", "", "", "", -1)
	f.Add("context", "", "{\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"x\\ny\"}", "/w/app", 2900)
	f.Fuzz(func(t *testing.T, op, moment, session, path string, wait int) {
		req := Request{Op: op, Moment: Moment(moment), SessionID: session, TranscriptPath: path, WaitMS: wait}
		if op == OpContext {
			// A context request: the same strings in its own fields.
			req = Request{Op: op, Hook: moment, Payload: session, Data: path, Cwd: path, Env: []string{session, "HOME=" + path}, TimeoutMS: wait}
		}
		line := req.AppendJSON(nil)
		var got Request
		if err := json.Unmarshal(line, &got); err != nil {
			t.Fatalf("encoding/json rejects %q: %v", line, err)
		}
		ref, _ := json.Marshal(req)
		var want Request
		json.Unmarshal(ref, &want)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q decodes to %+v, want %+v", line, got, want)
		}
		if bytes.ContainsAny(line, "\n\r") {
			t.Fatalf("%q holds a line break", line)
		}
	})
}
