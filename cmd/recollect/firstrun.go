package main

import (
	"context"
	"fmt"

	"github.com/recollect/recollect/pipeline/firstrun"
	"github.com/recollect/recollect/store/config"
)

// PluginEnv is set by the Claude Code plugin's wrapper (bin/recollect-run)
// on every process it starts: a store it finds missing is made for the
// project as init would make it (see pluginFirstRun).
const PluginEnv = "RECOLLECT_PLUGIN"

// pluginFirstRun gives a plugin user the memory they installed it for: in
// a process the plugin started, a data directory without a store gets the
// copy-mode config init's defaults choose for the project at cwd (every
// agent holding transcripts of it, else Claude Code, whose transcripts of
// this session are about to be written) and the provider init detects.
// The notice of what was made waits in the directory for the next
// session-start message. Outside the plugin it does nothing.
func pluginFirstRun(ctx context.Context, env Env, dir, cwd string) error {
	if env.Getenv(PluginEnv) == "" || cwd == "" {
		return nil
	}
	fresh, err := firstrun.Fresh(ctx, dir)
	if err != nil || !fresh {
		return err
	}
	cwd = resolvePath(cwd)
	cfg, used := firstrun.ProjectConfig(cwd, firstrun.Agents(cwd, env.Getenv), "claude-code")
	detectProvider(ctx, env, cfg.Intelligence).Apply(&cfg.Intelligence)
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("first run: %w", err)
	}
	created, err := firstrun.Create(dir, cfg, firstrun.Describe(dir, cwd, cfg, used))
	if err != nil || !created {
		return err
	}
	// The user's plugin made this config: it needs no recollect trust.
	return config.ApproveDir(dir, env.Getenv)
}
