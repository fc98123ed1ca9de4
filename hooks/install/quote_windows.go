package install

// commandArg spells a path for a hook command that cmd.exe or bash runs.
func commandArg(s string) string { return windowsCommandArg(s) }
