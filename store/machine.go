package store

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// machineIDFile is the operating system's stable machine id (systemd).
const machineIDFile = "/etc/machine-id"

// MachineID names this machine in a store several machines may copy
// into: it keys copy progress, so two machines following transcripts at
// the same path never share a file's progress. It is derived from
// /etc/machine-id when that is readable (hashed, as systemd asks of
// applications, so the raw id never leaves the machine), else a random id
// generated once and kept in $XDG_CONFIG_HOME/recollect/machine-id
// (~/.config when unset) with mode 0600. Never the hostname: two machines
// can share one. getenv reads the environment (os.Getenv when nil).
func MachineID(getenv func(string) string) (string, error) {
	return machineID(machineIDFile, getenv)
}

func machineID(osFile string, getenv func(string) string) (string, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	if b, err := os.ReadFile(osFile); err == nil {
		if id := strings.TrimSpace(string(b)); id != "" {
			sum := sha256.Sum256([]byte("recollect machine:" + id))
			return hex.EncodeToString(sum[:8]), nil
		}
	}
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home := getenv("HOME")
		if home == "" {
			return "", errors.New("name this machine: /etc/machine-id is unreadable and neither XDG_CONFIG_HOME nor HOME is set; set HOME")
		}
		dir = filepath.Join(home, ".config")
	}
	path := filepath.Join(dir, "recollect", "machine-id")
	if id, err := readMachineFile(path); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return id, err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", fmt.Errorf("keep machine id in %s: %w", path, err)
	}
	var raw [8]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", fmt.Errorf("generate machine id: %w", err)
	}
	id := hex.EncodeToString(raw[:])
	// Written whole under a temporary name, then linked into place: a
	// reader never sees half an id, and of two processes racing, the
	// first link wins and the other reads it.
	tmp, err := os.CreateTemp(filepath.Dir(path), ".machine-id-*")
	if err != nil {
		return "", fmt.Errorf("keep machine id in %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(id + "\n")
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Link(tmp.Name(), path)
	}
	if errors.Is(err, fs.ErrExist) {
		return readMachineFile(path)
	}
	if err != nil {
		return "", fmt.Errorf("keep machine id in %s: %w", path, err)
	}
	return id, nil
}

// readMachineFile reads a kept machine id; an empty or garbled file is an
// error naming it, never silently replaced (the store's progress is keyed
// by it).
func readMachineFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	id := strings.TrimSpace(string(b))
	if len(id) < 8 || strings.ContainsAny(id, " \t\n/") {
		return "", fmt.Errorf("read machine id %s: %q is not an id; delete the file to have a new one made", path, id)
	}
	return id, nil
}
