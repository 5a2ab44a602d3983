package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	bolt "go.etcd.io/bbolt"

	"github.com/tiergate/tiergate/internal/forge"
	"github.com/tiergate/tiergate/internal/gitrepo"
	"github.com/tiergate/tiergate/internal/server"
)

// childEnv names the environment variable that makes the test binary a server process
// (its JSON value is a childConfig): the crash tests kill it with SIGKILL.
const childEnv = "TIERGATE_E2E_CHILD"

// childConfig is what a child server is wired with, as bot serve wires it.
type childConfig struct {
	DataDir  string
	Kind     forge.Kind
	APIURL   string // the fake forge
	Secret   string
	Run      bool   // run workers (else it only accepts deliveries)
	AddrFile string // the child writes its listen address here once it serves
}

// serveChild runs a server until the process is killed; it is the child's whole life.
func serveChild(raw string) error {
	var c childConfig
	if err := json.Unmarshal([]byte(raw), &c); err != nil {
		return err
	}
	gin.SetMode(gin.ReleaseMode)
	metrics := server.NewMetrics()
	cfg := forgeConfig(c.Kind, false, c.APIURL, c.Secret)
	cfg.HTTPTimeout = 2 * time.Minute
	fs, err := server.NewForges(cfg, metrics)
	if err != nil {
		return err
	}
	mirrors, err := gitrepo.NewMirrors(filepath.Join(c.DataDir, "mirrors"))
	if err != nil {
		return err
	}
	srv, err := server.New(server.Options{DataDir: c.DataDir, Forges: fs, GitHost: fs.GitHosts,
		Fetcher: server.MirrorFetcher{Mirrors: mirrors}, Workers: 2, ReviewTimeout: 2 * time.Minute,
		Metrics: metrics, Logger: slog.New(slog.NewJSONHandler(os.Stderr, nil))})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	tmp := c.AddrFile + ".tmp"
	if err := os.WriteFile(tmp, []byte(ln.Addr().String()), 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, c.AddrFile); err != nil {
		return err
	}
	if c.Run {
		go srv.Run(context.Background())
	}
	return http.Serve(ln, srv.Handler())
}

// child is a server process.
type child struct {
	e    *env
	cmd  *exec.Cmd
	url  string
	log  *syncBuffer
	done chan struct{}
}

// startChild starts a server process over the env's data directory and waits until it
// serves.
func (e *env) startChild(run bool) *child {
	e.t.Helper()
	addr := filepath.Join(e.t.TempDir(), "addr")
	raw, _ := json.Marshal(childConfig{DataDir: e.dataDir, Kind: e.fl.kind, APIURL: e.fake.URL, Secret: secret, Run: run, AddrFile: addr})
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+string(raw))
	c := &child{e: e, cmd: cmd, log: e.log, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = c.log, c.log
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	go func() { cmd.Wait(); close(c.done) }()
	e.t.Cleanup(c.kill)
	deadline := time.Now().Add(waitLimit)
	for {
		b, err := os.ReadFile(addr)
		if err == nil {
			c.url = "http://" + string(b)
			return c
		}
		select {
		case <-c.done:
			e.t.Fatalf("the server process exited: %v", cmd.ProcessState)
		default:
		}
		if time.Now().After(deadline) {
			e.t.Fatal("the server process never listened")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// kill ends the process with SIGKILL (kill -9) and waits for it.
func (c *child) kill() {
	select {
	case <-c.done:
		return
	default:
	}
	c.cmd.Process.Kill()
	<-c.done
}

// send posts d to the process; err is set when no answer came (the process died).
func (c *child) send(d delivery) (code int, err error) {
	req, err := http.NewRequest(http.MethodPost, c.url+c.e.fl.endpoint, bytes.NewReader(d.body))
	if err != nil {
		return 0, err
	}
	req.Header = c.e.headers(d)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// checkQueueFile opens the queue file of a dead process and runs bbolt's consistency check
// over it (every page reachable once, freelist and branches sound).
func checkQueueFile(t *testing.T, dataDir string) (jobs int) {
	t.Helper()
	db, err := bolt.Open(filepath.Join(dataDir, "queue.db"), 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatalf("open the queue after kill -9: %v", err)
	}
	defer db.Close()
	err = db.View(func(tx *bolt.Tx) error {
		var errs []error
		for err := range tx.Check() {
			errs = append(errs, err)
		}
		if b := tx.Bucket([]byte("jobs")); b != nil {
			jobs = b.Stats().KeyN
		}
		return errors.Join(errs...)
	})
	if err != nil {
		t.Fatalf("queue file after kill -9 fails bbolt's check: %v", err)
	}
	return jobs
}

func init() {
	if raw := os.Getenv(childEnv); raw != "" {
		err := serveChild(raw)
		fmt.Fprintln(os.Stderr, "child server:", err)
		os.Exit(3)
	}
}

// waitLog polls the servers' log until it holds n lines with s.
func (e *env) waitLog(s string, n int) {
	e.t.Helper()
	deadline := time.Now().Add(waitLimit)
	for strings.Count(e.log.String(), s) < n {
		if time.Now().After(deadline) {
			e.t.Fatalf("the log has %d lines with %s, want %d", strings.Count(e.log.String(), s), s, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stopDrained stops in and fails the test unless its queue file is sound and holds no job.
func stopDrained(t *testing.T, in *instance, dataDir string) {
	t.Helper()
	in.stop()
	if n := checkQueueFile(t, dataDir); n != 0 {
		t.Errorf("%d jobs stored at the end, want 0", n)
	}
}
