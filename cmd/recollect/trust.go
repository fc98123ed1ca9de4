package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/store/config"
	"github.com/recollect/recollect/store/datadir"
	"github.com/recollect/recollect/store/sqlite"
)

func trustCommand(env Env) *cli.Command {
	return &cli.Command{
		Name:      "trust",
		Usage:     "show what this directory's config.json would read and where it would send it, and a memory.db you did not create here, and approve them",
		ArgsUsage: " ",
		Description: "A .recollect/config.json found by walking up from the current directory may have come with a\n" +
			"cloned repository. Until you approve its exact bytes here, every command that would act on it refuses.\n" +
			"Approvals live in $XDG_CONFIG_HOME/recollect/approved.json (else ~/.config/recollect), never in the\n" +
			"project; a changed file needs approving again. A project's memory.db that no command of yours created (a\n" +
			"repository can bring one) is refused the same way until approved here; a file put in its place later is\n" +
			"refused again.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "approve without asking (for scripts)"},
			&cli.BoolFlag{Name: "list", Usage: "list every approval (what, file, when) and change nothing"},
			&cli.BoolFlag{Name: "revoke", Usage: "remove this directory's approvals: its config and memory are refused again until approved"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("trust takes no arguments (got %q); run it inside the project, or pass --data DIR", c.Args().First())
			}
			if c.Bool("list") && c.Bool("revoke") {
				return usagef("trust: --list and --revoke do different things; give one")
			}
			if c.Bool("list") {
				return listApprovals(env)
			}
			dir, err := dataDir(c, env)
			if err != nil {
				return err
			}
			if c.Bool("revoke") {
				return revokeApprovals(env, dir)
			}
			return runTrust(env, dir, c.Bool("yes"))
		},
	}
}

func runTrust(env Env, dir string, yes bool) error {
	if !config.Subject(dir, env.Getenv) {
		fmt.Fprintf(env.Stdout, "%s is not a project's store (not named .recollect, not in a repository): it is used only when you name it (--data, RECOLLECT_DATA), so it needs no approval\n", dir)
		return nil
	}
	pc, err := config.ReadProject(dir)
	if err != nil {
		return err
	}
	st, err := config.ReadStore(dir, env.Getenv)
	if err != nil {
		return err
	}
	if pc.ParseErr != nil {
		return fmt.Errorf("%s cannot be approved: %w", pc.Path, pc.ParseErr)
	}
	if !pc.Exists {
		fmt.Fprintf(env.Stdout, "no config.json in %s: the defaults read nothing but what is recorded and send nothing\n", dir)
	} else {
		fmt.Fprintf(env.Stdout, "%s (sha256 %s)\n", pc.Path, pc.Digest[:16])
		for _, line := range config.Describe(pc.Config) {
			fmt.Fprintln(env.Stdout, "  "+line)
		}
		if config.Harmless(pc.Config) {
			fmt.Fprintln(env.Stdout, "  it reads nothing beyond what is recorded and sends nothing: no approval is needed, recording it anyway")
		}
	}
	askStore := st.Exists && !st.Approved
	var foreign *config.ForeignWALError
	if err := config.CheckWAL(dir, env.Getenv); err != nil && !errors.As(err, &foreign) {
		return err
	}
	if foreign != nil {
		fi, _ := os.Stat(foreign.Path)
		size := int64(0)
		if fi != nil {
			size = fi.Size()
		}
		fmt.Fprintf(env.Stdout, "%s (%s)\n", foreign.Path, humanBytes(size))
		fmt.Fprintln(env.Stdout, "  a write-ahead log recollect did not write on this machine: approving it applies what it holds to the memory (after a crash of recollect this is its own unfinished log; from a git pull or a copy, it is someone else's writes)")
	}
	if askStore {
		fmt.Fprintf(env.Stdout, "%s (%s, last changed %s)\n", st.Path, humanBytes(st.Size), st.Modified.UTC().Format("2006-01-02 15:04 UTC"))
		fmt.Fprintln(env.Stdout, "  a memory you did not create here: your agents will read its notes (session start, search) and write theirs into it")
	}
	if !pc.Exists && !askStore && foreign == nil {
		fmt.Fprintln(env.Stdout, "nothing to approve")
		return nil
	}
	what := "this config"
	switch {
	case askStore && pc.Exists:
		what = "this config and this memory"
	case askStore:
		what = "this memory"
	case foreign != nil && pc.Exists:
		what = "this config and this log"
	case foreign != nil:
		what = "this log"
	}
	if !yes {
		if !isTerminal(env.Stdin) {
			return usagef("approve %s: not asked on a non-terminal; pass --yes to approve it as shown", dir)
		}
		fmt.Fprintf(env.Stdout, "approve %s? [y/N] ", what)
		answer, _ := bufio.NewReader(env.Stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			fmt.Fprintln(env.Stdout, "not approved; commands in this project keep refusing it")
			return nil
		}
	}
	where, _ := config.ApprovalsPath(env.Getenv)
	// What is recorded is the digest of the bytes shown above: a file
	// changed since is not approved by this.
	if pc.Exists {
		if err := config.Approve(pc, env.Getenv); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "approved %s (recorded in %s)\n", pc.Path, where)
	}
	if askStore {
		// The approved database gets a new identity, recorded with the
		// approval: content swapped in later does not carry it.
		db, err := sqlite.Open(context.Background(), dir)
		if err != nil {
			return err
		}
		err = adoptStore(context.Background(), db, dir, env)
		if cerr := db.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "approved %s (recorded in %s)\n", st.Path, where)
	}
	if foreign != nil || askStore {
		// The log now is this machine's: the one approved, or the one the
		// approval's open made.
		if err := config.RecordWAL(dir, env.Getenv); err != nil {
			return err
		}
	}
	if foreign != nil {
		fmt.Fprintf(env.Stdout, "approved %s\n", foreign.Path)
	}
	return nil
}

// listApprovals prints every recorded approval, one a line.
func listApprovals(env Env) error {
	approvals, err := config.Approvals(env.Getenv)
	if err != nil {
		return err
	}
	where, _ := config.ApprovalsPath(env.Getenv)
	if len(approvals) == 0 {
		fmt.Fprintf(env.Stdout, "no approvals (%s holds none)\n", where)
		return nil
	}
	fmt.Fprintf(env.Stdout, "%d approvals in %s:\n", len(approvals), where)
	for _, a := range approvals {
		what := "config " + a.SHA256[:min(16, len(a.SHA256))]
		if a.Kind == config.KindStore {
			what = "memory"
		}
		fmt.Fprintf(env.Stdout, "  %-23s %s (approved %s)\n", what, a.Path, a.ApprovedAt)
	}
	return nil
}

// revokeApprovals removes dir's approvals and says which.
func revokeApprovals(env Env, dir string) error {
	removed, err := config.Revoke(dir, env.Getenv)
	if err != nil {
		return err
	}
	if len(removed) == 0 {
		fmt.Fprintf(env.Stdout, "no approval of %s to revoke\n", dir)
		return nil
	}
	for _, a := range removed {
		fmt.Fprintf(env.Stdout, "revoked %s: commands in this project refuse it until you approve it again\n", a.Path)
	}
	return nil
}

// approveEdited records a project config the user just changed (settings
// set) as approved: it was approved, or harmless, before the change.
func approveEdited(c *cli.Context, env Env) error {
	dir, from, err := resolveDataDir(c, env)
	if err != nil || from != datadir.FromProject {
		return err
	}
	return config.ApproveDir(dir, env.Getenv)
}
