package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/hooks/install"
)

// installCodexHook sets Codex's notify (in $CODEX_HOME/config.toml or
// ~/.codex/config.toml) to run recollect-notify threshold after each
// turn, and prints the MCP server table for the same file.
func installCodexHook(c *cli.Context, env Env) error {
	if c.IsSet("project") || c.Bool("user") {
		return usagef("hooks install --codex: Codex reads notify from its own config.toml ($CODEX_HOME or ~/.codex); drop --project and --user")
	}
	path, err := install.CodexConfig(env.Getenv)
	if err != nil {
		return err
	}
	bin, dir, err := hookBinaryAndData(c, env)
	if err != nil {
		return err
	}
	res, err := install.Codex(path, bin, dir, c.Bool("force"), time.Now())
	if errors.Is(err, install.ErrOtherNotify) {
		return usagef("hooks install --codex: %v", err)
	}
	if err != nil {
		return err
	}
	switch {
	case res.Action == "unchanged":
		fmt.Fprintf(env.Stdout, "Codex notify already runs recollect in %s; nothing changed\n", res.Path)
	case res.Backup != "":
		fmt.Fprintf(env.Stdout, "set Codex's notify (notify threshold after each turn) in %s (backup: %s)\n", res.Path, res.Backup)
	default:
		fmt.Fprintf(env.Stdout, "set Codex's notify (notify threshold after each turn) in %s (new file)\n", res.Path)
	}
	return printCodexMCP(c, env)
}

// printCodexHooks prints the notify line and the MCP server table.
func printCodexHooks(c *cli.Context, env Env) error {
	bin, dir, err := hookBinaryAndData(c, env)
	if err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, "Codex's ~/.codex/config.toml, at the top level (before any [table]):")
	fmt.Fprintln(env.Stdout, install.CodexNotifyLine(install.CodexNotifyArgv(bin, dir)))
	return printCodexMCP(c, env)
}

// printCodexMCP prints the [mcp_servers.recollect] table for Codex.
func printCodexMCP(c *cli.Context, env Env) error {
	bin, dir, err := binaryAndData(c, env)
	if err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, "add the MCP server to ~/.codex/config.toml:")
	fmt.Fprintln(env.Stdout, install.CodexMCPTable(bin, dir))
	return nil
}
