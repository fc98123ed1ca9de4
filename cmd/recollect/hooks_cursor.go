package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/cmd/recollect/mcpserver"
	"github.com/recollect/recollect/hooks/install"
)

// cursorHooksPath is Cursor's hooks file that --project DIR or --user
// names.
func cursorHooksPath(c *cli.Context, env Env) (string, error) {
	switch {
	case c.IsSet("project") && c.Bool("user"):
		return "", usagef("hooks install --cursor: choose one of --project DIR or --user, not both")
	case c.IsSet("project"):
		dir, err := filepath.Abs(c.String("project"))
		if err != nil {
			return "", fmt.Errorf("resolve --project %s: %w", c.String("project"), err)
		}
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return "", usagef("hooks install --cursor: --project %s is not a directory; give the project's root", dir)
		}
		return install.CursorProjectHooks(dir), nil
	case c.Bool("user"):
		return install.CursorUserHooks(env.Getenv)
	}
	return "", usagef("hooks install --cursor: say where: --project DIR (that project's .cursor/hooks.json) or --user (~/.cursor/hooks.json)")
}

// installCursorHook merges the stop hook into Cursor's hooks file and the
// MCP server into the mcp.json beside it.
func installCursorHook(c *cli.Context, env Env) error {
	path, err := cursorHooksPath(c, env)
	if err != nil {
		return err
	}
	bin, dir, err := hookBinaryAndData(c, env)
	if err != nil {
		return err
	}
	res, err := install.Cursor(path, bin, dir, time.Now())
	if err != nil {
		return err
	}
	switch {
	case res.Action == "unchanged":
		fmt.Fprintf(env.Stdout, "Cursor stop hook already installed in %s; nothing changed\n", res.Path)
	case res.Action == "updated":
		fmt.Fprintf(env.Stdout, "updated the recollect stop hook in %s (backup: %s)\n", res.Path, res.Backup)
	case res.Backup != "":
		fmt.Fprintf(env.Stdout, "installed the Cursor stop hook (notify threshold) in %s (backup: %s)\n", res.Path, res.Backup)
	default:
		fmt.Fprintf(env.Stdout, "installed the Cursor stop hook (notify threshold) in %s (new file)\n", res.Path)
	}
	return installCursorMCP(c, env, filepath.Join(filepath.Dir(path), install.CursorMCPFile))
}

// installCursorMCP merges the store's MCP server into Cursor's mcp.json
// beside the hooks file.
func installCursorMCP(c *cli.Context, env Env, path string) error {
	bin, dir, err := binaryAndData(c, env)
	if err != nil {
		return err
	}
	name := mcpserver.ServerName(dir, env.Getenv("HOME"))
	res, err := install.CursorMCP(path, name, bin, dir, time.Now())
	if err != nil {
		return err
	}
	switch {
	case res.Action == "unchanged":
		fmt.Fprintf(env.Stdout, "MCP server %s already in %s; nothing changed\n", name, res.Path)
	case res.Backup != "":
		fmt.Fprintf(env.Stdout, "%s the MCP server %s in %s (backup: %s)\n", res.Action, name, res.Path, res.Backup)
	default:
		fmt.Fprintf(env.Stdout, "installed the MCP server %s in %s (new file)\n", name, res.Path)
	}
	return nil
}

// printCursorMCP prints the MCP server entry for Cursor's mcp.json.
func printCursorMCP(c *cli.Context, env Env) error {
	bin, dir, err := binaryAndData(c, env)
	if err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, "add the MCP server to .cursor/mcp.json (this project) or ~/.cursor/mcp.json (every project):")
	fmt.Fprintln(env.Stdout, install.MCPSnippet(bin, dir))
	return nil
}

// printCursorHooks prints Cursor's hooks.json entry and the MCP entry.
func printCursorHooks(c *cli.Context, env Env) error {
	bin, dir, err := hookBinaryAndData(c, env)
	if err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, "Cursor's .cursor/hooks.json (this project) or ~/.cursor/hooks.json (every project):")
	fmt.Fprintln(env.Stdout, install.CursorSnippet(bin, dir))
	return printCursorMCP(c, env)
}
