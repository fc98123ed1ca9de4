package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSettings: show, get and set through the CLI; set keeps every other
// byte of config.json and refuses what loading would refuse, with the
// same words, writing nothing.
func TestSettings(t *testing.T) {
	dir := t.TempDir()
	// A hand-written config: its own key order, layout and a redaction
	// pattern with characters an HTML-escaping encoder would rewrite.
	orig := "{\n\t\"scheduler\": {\"threshold_events\": 3},\n\t\"redaction\": {\"enabled\": true, \"patterns\": [{\"kind\": \"tag\", \"regex\": \"<secret>&[a-z]+\"}]},\n\t\"intelligence\": {\n\t\t\"provider\": \"heuristic\"\n\t}\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	out := diskMust(t, dir, "settings")
	shown := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		shown[f[0]] = strings.Join(f[1:], " ")
	}
	for key, want := range map[string]string{"scheduler.threshold_events": "3", "intelligence.http.model": `""`, "intelligence.stages.extract.on_fail": `""`,
		"extraction.batch_size": "50", "intelligence.provider": "heuristic", "extraction.roles": `["user","assistant"]`, "context.compact_wait": "3s"} {
		if shown[key] != want {
			t.Errorf("settings shows %s = %q, want %q:\n%s", key, shown[key], want, out)
		}
	}
	var cfg map[string]any
	if err := json.Unmarshal([]byte(diskMust(t, dir, "settings", "--json")), &cfg); err != nil || cfg["mode"] != "record" {
		t.Fatalf("settings --json: %v %v", err, cfg)
	}

	for _, kv := range [][2]string{{"intelligence.provider", "ollama"}, {"intelligence.http.model", "gpt-4o-mini"}, {"intelligence.stages.extract.on_fail", "none"}, {"scheduler.threshold_events", "12"}} {
		if out := diskMust(t, dir, "settings", "set", kv[0], kv[1]); !strings.HasPrefix(out, kv[0]+" = ") {
			t.Errorf("set %s: %q", kv[0], out)
		}
		if got := diskMust(t, dir, "settings", "get", kv[0]); strings.TrimSpace(got) != kv[1] {
			t.Errorf("get %s = %q, want %q", kv[0], got, kv[1])
		}
	}
	want := "{\n\t\"scheduler\": {\"threshold_events\": 12},\n\t\"redaction\": {\"enabled\": true, \"patterns\": [{\"kind\": \"tag\", \"regex\": \"<secret>&[a-z]+\"}]},\n\t\"intelligence\": {\n\t\t\"provider\": \"ollama\",\n\t\t\"http\": {\n\t\t\t\"model\": \"gpt-4o-mini\"\n\t\t},\n\t\t\"stages\": {\n\t\t\t\"extract\": {\n\t\t\t\t\"on_fail\": \"none\"\n\t\t\t}\n\t\t}\n\t}\n}\n"
	if b, _ := os.ReadFile(filepath.Join(dir, "config.json")); string(b) != want {
		t.Errorf("config.json after set:\n%s\nwant:\n%s", b, want)
	}

	before, _ := os.ReadFile(filepath.Join(dir, "config.json"))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"settings", "set", "extraction.batch_size", "many"}, "recollect: config.json: extraction.batch_size: \"many\" is not a whole number from 1 to 100000\n"},
		{[]string{"settings", "set", "intelligence.provder", "http"}, "recollect: config.json: intelligence.provder: unknown key; did you mean \"provider\"?\n"},
		{[]string{"settings", "set", "intelligence.provider", "gpt"}, "recollect: config.json: intelligence.provider: unknown provider \"gpt\"; use one of heuristic, http, ollama, cli\n"},
		{[]string{"settings", "get", "schedular.extract_cap"}, "recollect: config.json: schedular: unknown key; did you mean \"scheduler\"?\n"},
		{[]string{"settings", "set", "mode"}, "recollect: settings set: give a key and a value, e.g. recollect settings set intelligence.provider ollama\n"},
		{[]string{"settings", "set", "context.session_budget", "-5"}, "recollect: config.json: context.session_budget: -5 is below 100 tokens, too small for the framing and one fact; write e.g. 1500 (session) or 400 (prompt)\n"},
		{[]string{"settings", "set", "context.prompt_budget", "1e9"}, "recollect: config.json: context.prompt_budget: 1e9 is not a whole number from 100 to 200000\n"},
		{[]string{"settings", "set", "extraction.working_memory_size", "-1"}, "recollect: config.json: extraction.working_memory_size: -1 is out of range; write a whole number from 0 to 1000000 (0 keeps no window)\n"},
		{[]string{"settings", "set", "embedding.base_url", "file:///etc/passwd"}, "recollect: config.json: embedding.base_url: \"file:///etc/passwd\" is not an http(s) URL; write e.g. http://localhost:11434 (ollama) or http://localhost:8080/v1 (http)\n"},
	} {
		_, errs, code := diskRun(t, dir, c.args...)
		if code != 2 || errs != c.want {
			t.Errorf("%v: exit %d, %q; want 2, %q", c.args, code, errs, c.want)
		}
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "config.json")); string(after) != string(before) {
		t.Error("a refused set changed config.json")
	}

	none := filepath.Join(t.TempDir(), "none")
	for _, args := range [][]string{{"settings"}, {"settings", "get", "mode"}, {"settings", "set", "mode", "copy"}} {
		_, errs, code := diskRun(t, none, args...)
		if code != 1 || errs != "recollect: no config.json in "+none+"; create one with: recollect init "+none+"\n" {
			t.Errorf("%v without a config: exit %d, %q", args, code, errs)
		}
		if _, err := os.Stat(none); !os.IsNotExist(err) {
			t.Errorf("%v created %s", args, none)
		}
	}
}
