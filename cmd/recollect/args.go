package main

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/recollect/recollect/store/config"
)

// arrangeArgs lets flags stand anywhere, as in git or docker: urfave/cli
// stops reading flags at the first argument, so `search foo --limit 3` would
// search for "foo --limit 3". It walks args with each command's own flag
// definitions (which flags take a value) and rewrites them into the order
// urfave/cli reads: a level's flags, then its subcommand's name, …, then the
// leaf's flags and, after a "--" when one of them starts with a dash, its
// arguments. "--" ends flags anywhere. It works from the registered commands,
// so every command, nested or added later, gets the same treatment.
//
// It also answers what urfave/cli answers badly: an unknown command or
// subcommand and an unknown flag are usage errors (exit 2) with the nearest
// known name.
func arrangeArgs(app *cli.App, args []string) ([]string, error) {
	if len(args) == 0 {
		return args, nil
	}
	out := []string{args[0]}
	rest := args[1:]
	flags := append(append([]cli.Flag{}, app.Flags...), cli.HelpFlag, cli.VersionFlag, cli.BashCompletionFlag)
	subs := app.Commands
	path := []string{app.Name}
	hasAction := false
	for {
		lvl := splitLevel(rest, flags, subs)
		out = append(out, lvl.flags...)
		if lvl.unknown {
			// urfave/cli stops at the unknown flag and the command's
			// usage-error handler reports it; the rest does not matter.
			out = append(out, lvl.args...)
			if lvl.sub != nil {
				out = append(append(out, lvl.subName), lvl.rest...)
			}
			return out, nil
		}
		if lvl.sub == nil {
			if len(lvl.args) > 0 && len(subs) > 0 && !lvl.dashed && !hasAction {
				name := lvl.args[0]
				if len(path) == 1 && name == "help" {
					// `recollect help [COMMAND]` reads as `recollect [COMMAND] --help`.
					return arrangeArgs(app, append(append([]string{args[0]}, lvl.args[1:]...), "--help"))
				}
				if name != "help" {
					return nil, unknownCommand(path, name, subs)
				}
			}
			return appendArgs(out, lvl.args), nil
		}
		cmd := lvl.sub
		out = append(out, lvl.subName)
		path = append(path, cmd.Name)
		rest = lvl.rest
		flags = append(append([]cli.Flag{}, cmd.Flags...), cli.HelpFlag, cli.BashCompletionFlag)
		subs = cmd.Subcommands
		hasAction = cmd.Action != nil
	}
}

// level is one command's share of the arguments.
type level struct {
	flags   []string     // flag tokens with their values, in order
	args    []string     // the command's own arguments, in order
	dashed  bool         // a "--" was seen: args are all arguments
	unknown bool         // a flag the command does not define was seen
	sub     *cli.Command // the subcommand named by the first argument
	subName string       // as typed (a name or an alias)
	rest    []string     // the tokens after the subcommand's name
}

// splitLevel separates one command's flags (with their values) from its
// arguments, stopping at "--" or at a first argument that names one of subs.
func splitLevel(tokens []string, flags []cli.Flag, subs []*cli.Command) level {
	var l level
	for i := 0; i < len(tokens); i++ {
		t := tokens[i]
		if t == "--" {
			l.args = append(l.args, tokens[i+1:]...)
			l.dashed = true
			return l
		}
		if len(t) < 2 || t[0] != '-' || negativeNumber(t) {
			if len(l.args) == 0 {
				if sub := findCommand(subs, t); sub != nil {
					l.sub, l.subName, l.rest = sub, t, tokens[i+1:]
					return l
				}
			}
			l.args = append(l.args, t)
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(t, "-"), "=")
		f := findFlag(flags, name)
		l.flags = append(l.flags, t)
		l.unknown = l.unknown || f == nil
		// An unknown flag stays where it is: the command's own usage-error
		// handler reports it (see flagError), so a hook command can keep
		// its exit status.
		if f != nil && !hasValue && takesValue(f) && i+1 < len(tokens) {
			i++
			l.flags = append(l.flags, tokens[i])
		}
	}
	return l
}

// negativeNumber reports whether t is a number with a minus sign ("-5",
// "-0.5"): a value, never a flag (settings set context.session_budget -5).
func negativeNumber(t string) bool {
	_, err := strconv.ParseFloat(t, 64)
	return err == nil && strings.HasPrefix(t, "-")
}

// appendArgs appends the leaf's arguments, after "--" when one of them
// could be read as a flag.
func appendArgs(out, args []string) []string {
	for _, a := range args {
		if len(a) > 1 && a[0] == '-' {
			return append(append(out, "--"), args...)
		}
	}
	return append(out, args...)
}

func findFlag(flags []cli.Flag, name string) cli.Flag {
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	return nil
}

// takesValue reports whether a flag reads the next token as its value.
func takesValue(f cli.Flag) bool {
	if bf, ok := f.(interface{ IsBoolFlag() bool }); ok {
		return !bf.IsBoolFlag()
	}
	_, isBool := f.(*cli.BoolFlag)
	return !isBool
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

func unknownCommand(path []string, name string, cmds []*cli.Command) error {
	var names []string
	for _, c := range cmds {
		if !c.Hidden {
			names = append(names, c.Names()...)
		}
	}
	where := strings.Join(path, " ")
	msg := fmt.Sprintf("unknown command %q", name)
	if len(path) > 1 {
		msg = strings.Join(path[1:], " ") + ": " + msg
	}
	if near := config.Nearest(name, names); near != "" {
		msg += fmt.Sprintf("; did you mean %q?", near)
	} else {
		sort.Strings(names)
		msg += "; the commands are " + strings.Join(names, ", ")
	}
	return usagef("%s (see %s --help)", msg, where)
}

// flagError rewrites urfave/cli's "flag provided but not defined: -x" into
// one line naming the command, the flag as typed and the nearest flag.
func flagError(where string, err error, flags []cli.Flag) error {
	const undefined = "flag provided but not defined: "
	msg := err.Error()
	if i := strings.Index(msg, undefined); i >= 0 {
		name := strings.TrimLeft(strings.TrimSpace(msg[i+len(undefined):]), "-")
		var names []string
		for _, f := range flags {
			names = append(names, f.Names()...)
		}
		msg = fmt.Sprintf("unknown flag --%s", name)
		if near := config.Nearest(name, names); near != "" {
			msg += fmt.Sprintf("; did you mean --%s?", near)
		}
	}
	if _, cmd, ok := strings.Cut(where, " "); ok {
		msg = cmd + ": " + msg
	}
	return usagef("%s (see %s --help)", msg, where)
}
