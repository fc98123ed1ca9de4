package main

import (
	"reflect"
	"testing"
)

// TestParseSearch: recollect search's command line read as recollect
// reads it — flags anywhere, "--" ending them, a negative number an
// argument — and everything this binary leaves to recollect refused.
func TestParseSearch(t *testing.T) {
	for _, c := range []struct {
		args []string
		want searchArgs
		ok   bool
	}{
		{[]string{"where", "do", "I", "live"}, searchArgs{query: "where do I live"}, true},
		{[]string{"foo", "--limit", "3", "bar", "--json"}, searchArgs{query: "foo bar", limit: 3, asJSON: true}, true},
		{[]string{"--data=/d", "--domain", "infra", "-history", "--budget=200", "x"}, searchArgs{data: "/d", domain: "infra", history: true, budget: 200, query: "x"}, true},
		{[]string{"--json=false", "--", "--limit", "-5"}, searchArgs{query: "--limit -5"}, true},
		{[]string{"temperature", "-5"}, searchArgs{query: "temperature -5"}, true},
		{[]string{"--kind", "rule", "x"}, searchArgs{}, false},
		{[]string{"--as-of", "2026-03-03", "x"}, searchArgs{}, false},
		{[]string{"--order", "chronological", "x"}, searchArgs{}, false},
		{[]string{"--help"}, searchArgs{}, false},
		{[]string{"--limit", "0", "x"}, searchArgs{}, false},
		{[]string{"--limit", "0x10", "x"}, searchArgs{}, false},
		{[]string{"--budget", "-1", "x"}, searchArgs{}, false},
		{[]string{"--json=maybe", "x"}, searchArgs{}, false},
		{[]string{"---json", "x"}, searchArgs{}, false},
		{[]string{"--data=", "x"}, searchArgs{}, false},
		{[]string{"x", "--limit"}, searchArgs{}, false},
		{[]string{"--json", " "}, searchArgs{}, false},
		{nil, searchArgs{}, false},
	} {
		got, ok := parseSearch(c.args)
		if ok != c.ok || ok && !reflect.DeepEqual(got, c.want) {
			t.Errorf("parseSearch(%q) = %+v, %v; want %+v, %v", c.args, got, ok, c.want, c.ok)
		}
	}
}

// TestQueryJSON: the query as graph.Query's fields, the empty ones left
// out.
func TestQueryJSON(t *testing.T) {
	for _, c := range []struct {
		s    searchArgs
		want string
	}{
		{searchArgs{query: `say "hi"`}, `{"Text":"say \"hi\""}`},
		{searchArgs{query: "x", limit: 3, domain: "infra", history: true, budget: 200}, `{"Text":"x","Limit":3,"Domain":"infra","History":true,"Budget":200}`},
	} {
		if got := c.s.queryJSON(); got != c.want {
			t.Errorf("%+v: %s, want %s", c.s, got, c.want)
		}
	}
}
