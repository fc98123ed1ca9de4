package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/recollect/recollect/pipeline/stats"
	"github.com/recollect/recollect/store/config"
)

// printModel prints where the model stages run, what the router noted at
// config load, each stage's health and the held conversations.
func printModel(w io.Writer, ms stats.ModelStats) {
	var routes []string
	for _, s := range config.Stages {
		if p, ok := ms.Routes[s]; ok {
			routes = append(routes, s+" "+p)
		}
	}
	if len(routes) > 0 {
		fmt.Fprintf(w, "stages       %s\n", strings.Join(routes, ", "))
	}
	for _, n := range ms.Notes {
		fmt.Fprintf(w, "note         %s\n", n)
	}
	for _, h := range ms.Health {
		if h.ConsecutiveFailures == 0 {
			fmt.Fprintf(w, "health       %s on %s: ok (last success %s)\n", h.Stage, h.Provider, h.LastOKAt)
			continue
		}
		fmt.Fprintf(w, "health       %s on %s: %s in a row, last at %s: %s\n", h.Stage, h.Provider,
			plural(h.ConsecutiveFailures, "failure", "failures"), h.LastErrorAt, h.LastError)
	}
	for _, h := range ms.Held {
		fmt.Fprintf(w, "held         conversation %s: %s, watermark kept; last error at %s: %s\n", h.SessionID,
			plural(h.ConsecutiveFailures, "failure", "failures"), h.LastErrorAt, h.LastError)
	}
}
