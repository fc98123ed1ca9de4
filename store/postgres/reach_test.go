package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/recollect/recollect/store/postgres"
	"github.com/recollect/recollect/store/postgres/pgtest"
)

// proxy forwards TCP connections on a local port to the test server, and
// can go away and come back on the same port, as a server behind a VPN
// does.
type proxy struct {
	t      *testing.T
	addr   string
	target func() (net.Conn, error)
	mu     sync.Mutex
	ln     net.Listener
	conns  []net.Conn
}

func newProxy(t *testing.T, serverURL string) *proxy {
	t.Helper()
	cfg, err := pgx.ParseConfig(serverURL)
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{t: t}
	if strings.HasPrefix(cfg.Host, "/") {
		path := fmt.Sprintf("%s/.s.PGSQL.%d", cfg.Host, cfg.Port)
		p.target = func() (net.Conn, error) { return net.Dial("unix", path) }
	} else {
		addr := net.JoinHostPort(cfg.Host, fmt.Sprint(cfg.Port))
		p.target = func() (net.Conn, error) { return net.Dial("tcp", addr) }
	}
	p.start("127.0.0.1:0")
	t.Cleanup(p.stop)
	return p
}

func (p *proxy) start(addr string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		p.t.Fatal(err)
	}
	p.mu.Lock()
	p.ln, p.addr = ln, ln.Addr().String()
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := p.target()
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, s)
			p.mu.Unlock()
			go func() { io.Copy(s, c); s.Close() }()
			go func() { io.Copy(c, s); c.Close() }()
		}
	}()
}

// stop closes the listener and every forwarded connection.
func (p *proxy) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// A server that goes away under an open store is ErrUnreachable at the
// next connection, naming the host and the fix (it was the driver's bare
// dial error in the daemon's log and status), and the store works again,
// without reopening, once the server is back.
func TestServerGoneAndBack(t *testing.T) {
	ctx := context.Background()
	serverURL, schema := pgtest.Schema(t)
	p := newProxy(t, serverURL)
	u, err := url.Parse(serverURL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Del("host")
	q.Set("connect_timeout", "5")
	u.Host, u.RawQuery = p.addr, q.Encode()
	db, err := postgres.OpenStoreURL(ctx, t.TempDir(), u.String(), schema)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	count := func() error {
		var n int
		return db.QueryRowContext(ctx, `SELECT count(*) FROM facts`).Scan(&n)
	}
	if err := count(); err != nil {
		t.Fatal(err)
	}
	p.stop()
	db.SetMaxIdleConns(0) // the pool's connections died with the proxy's
	db.SetMaxIdleConns(8)
	err = count()
	if !errors.Is(err, postgres.ErrUnreachable) || !strings.Contains(err.Error(), p.addr) || !strings.Contains(err.Error(), "start the server") {
		t.Fatalf("a read with the server gone: %v; want ErrUnreachable naming %s and the fix", err, p.addr)
	}
	p.start(p.addr)
	if err := count(); err != nil {
		t.Fatalf("a read with the server back: %v", err)
	}
}
