package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"golang.org/x/term"
	"io"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/hooks/payload"
	"github.com/recollect/recollect/pipeline"
	"github.com/recollect/recollect/store"
)

// maxStdin bounds what record reads from stdin.
const maxStdin = 64 << 20

func recordCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:      "record",
		Usage:     "store one event directly (no daemon needed); reads --content or stdin, including a Claude Code hook payload",
		ArgsUsage: " ",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "role", Value: "user", Usage: "user | assistant | system | tool"},
			&cli.StringFlag{Name: "event-type", Value: "message", Usage: "message | tool_call | tool_result | artifact"},
			&cli.StringFlag{Name: "content-type", Value: "text", Usage: "text | json | image | audio | binary"},
			&cli.StringFlag{Name: "content", Usage: "the event's content (default: read stdin)"},
			&cli.StringFlag{Name: "speaker", Usage: "who spoke, when not simply the role"},
			&cli.StringFlag{Name: "session-id", Usage: "conversation id (default: record-<UTC date>)"},
			&cli.BoolFlag{Name: "json", Usage: "print the result as JSON"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("record takes no arguments (got %q); pass the text with --content or on stdin", c.Args().First())
			}
			evs, err := recordEvents(c, env)
			if err != nil {
				return err
			}
			p, err := createPipeline(c, env, nil)
			if err != nil {
				return err
			}
			defer p.Close()
			res, err := p.Record(c.Context, evs)
			if err != nil {
				return err
			}
			if !res.Duplicate {
				// A running daemon extracts when the threshold is due, as it
				// does for copied lines; a failed notice loses nothing.
				if _, err := p.WakeThreshold(c.Context); err != nil {
					fmt.Fprintf(env.Stderr, "recollect: note: the daemon did not take the threshold notice: %v\n", err)
				}
			}
			if c.Bool("json") {
				return json.NewEncoder(env.Stdout).Encode(res)
			}
			if res.Duplicate {
				fmt.Fprintf(env.Stdout, "already recorded (event %v); nothing written\n", res.Seqs)
				return nil
			}
			fmt.Fprintf(env.Stdout, "recorded event %s\n", joinInts(res.Seqs))
			return nil
		},
	}
}

// recordEvents builds the events from flags and stdin, validating all of
// them before anything is opened.
func recordEvents(c *cli.Context, env Env) ([]store.Event, error) {
	content := c.String("content")
	if !c.IsSet("content") {
		if isTerminal(env.Stdin) {
			return nil, usagef("content: nothing to record; pass --content TEXT or pipe text on stdin")
		}
		data, err := io.ReadAll(io.LimitReader(env.Stdin, maxStdin+1))
		if err != nil {
			return nil, fmt.Errorf("read stdin: %w", err)
		}
		if len(data) > maxStdin {
			return nil, usagef("content: stdin is larger than %d MiB; store large output as a file and pass a content_ref", maxStdin>>20)
		}
		pl, err := payload.Parse(data)
		switch {
		case err == nil:
			evs := pipeline.HookEvents(pl, "record")
			if len(evs) == 0 {
				return nil, usagef("hook payload: %s carries no prompt, message or tool call to record", pl.HookEventName)
			}
			return evs, nil
		case !errors.Is(err, payload.ErrNotPayload):
			return nil, usagef("%v", err)
		}
		content = string(data)
	}
	session := c.String("session-id")
	if session == "" {
		session = "record-" + time.Now().UTC().Format("2006-01-02")
	}
	ev := store.Event{
		SessionID: session, Source: "record", Role: c.String("role"), Speaker: c.String("speaker"),
		EventType: c.String("event-type"), ContentType: c.String("content-type"), Content: strings.TrimRight(content, "\n"),
	}
	if err := ev.Validate(); err != nil {
		return nil, err
	}
	return []store.Event{ev}, nil
}

func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	// A character device is not enough: /dev/null is one, and init
	// </dev/null must not run the walk-through.
	return term.IsTerminal(int(f.Fd()))
}

func joinInts(xs []int64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ", ")
}
