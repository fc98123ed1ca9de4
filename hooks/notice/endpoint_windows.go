package notice

// SocketPath is the control endpoint of data directory dataDir: on
// Windows the named pipe PipeName(dataDir).
func SocketPath(dataDir string) string { return PipeName(dataDir) }
