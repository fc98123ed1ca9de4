//go:build unix

package regfile

import (
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestOpenRegularOnly(t *testing.T) {
	dir := t.TempDir()
	reg := filepath.Join(dir, "a.jsonl")
	if err := os.WriteFile(reg, []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.jsonl")
	if err := os.Symlink(reg, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	fifoLink := filepath.Join(dir, "fifolink.jsonl")
	if err := os.Symlink(fifo, fifoLink); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "s.jsonl")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for _, p := range []string{reg, link} {
		f, fi, err := Open(p)
		if err != nil {
			t.Fatalf("Open(%s): %v", p, err)
		}
		data, err := io.ReadAll(f)
		f.Close()
		if err != nil || string(data) != "x\n" || fi.Size() != 2 {
			t.Fatalf("read %s: %q %v size %d", p, data, err, fi.Size())
		}
	}
	for _, p := range []string{fifo, fifoLink, sock, dir} {
		if _, _, err := Open(p); !errors.Is(err, ErrNotRegular) {
			t.Fatalf("Open(%s) = %v; want ErrNotRegular", p, err)
		}
	}
	if _, _, err := Open(filepath.Join(dir, "none")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Open(missing) = %v; want ErrNotExist", err)
	}
}
