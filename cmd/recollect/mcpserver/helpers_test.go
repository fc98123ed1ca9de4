package mcpserver_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// binary is the recollect command built once for every test.
var binary string

func TestMain(m *testing.M) {
	flag.Parse()
	dir, err := os.MkdirTemp("", "recollect-mcp-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "recollect")
	build := exec.Command("go", "build", "-tags", "sqlite_fts5", "-o", binary, "github.com/recollect/recollect/cmd/recollect")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build recollect:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// client is a session with a `recollect mcp` subprocess.
type client struct {
	t    *testing.T
	cs   *mcp.ClientSession
	dir  string
	init *mcp.InitializeResult
}

// start runs `recollect mcp --no-scheduler --data dir` and initializes a
// client session. The scheduler stays off so that what a test's tool calls
// consolidate is not raced by the start moment's own run.
func start(t *testing.T, dir string, env ...string) *client {
	t.Helper()
	return startArgs(t, []string{"mcp", "--no-scheduler", "--data", dir}, dir, env...)
}

// startArgs runs the binary with args and initializes a client session.
func startArgs(t *testing.T, args []string, dir string, env ...string) *client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	cmd := exec.Command(binary, args...)
	cmd.Env = append([]string{"HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "RECOLLECT_DATA="}, env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	c := mcp.NewClient(&mcp.Implementation{Name: "recollect-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr: %s", err, stderr.String())
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Logf("close: %v", err)
		}
		if strings.Contains(stderr.String(), "panic") {
			t.Errorf("server panicked:\n%s", stderr.String())
		}
	})
	return &client{t: t, cs: cs, dir: dir, init: cs.InitializeResult()}
}

// call invokes a tool and returns its text, structured content and whether
// it is an error result. A protocol error fails the test.
func (c *client) call(name string, args any) (string, map[string]any, bool) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		c.t.Fatalf("%s: protocol error: %v", name, err)
	}
	var text strings.Builder
	for _, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	var obj map[string]any
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(b, &obj)
	}
	return text.String(), obj, res.IsError
}

// ok calls a tool that must succeed.
func (c *client) ok(name string, args any) (string, map[string]any) {
	c.t.Helper()
	text, obj, isErr := c.call(name, args)
	if isErr {
		c.t.Fatalf("%s(%v) failed: %s", name, args, text)
	}
	return text, obj
}

func (c *client) read(uri string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return "", err
	}
	if len(res.Contents) != 1 {
		return "", fmt.Errorf("%d contents", len(res.Contents))
	}
	return res.Contents[0].Text, nil
}

// list is a JSON array field of a structured answer.
func list(obj map[string]any, key string) []any {
	v, _ := obj[key].([]any)
	return v
}

func field(v any, key string) any {
	m, _ := v.(map[string]any)
	return m[key]
}
