package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

// worker is one child process serving requests one at a time.
type worker struct {
	cmd    *exec.Cmd
	stdin  *os.File // write end of the child's stdin
	stdout *os.File // read end of the child's stdout
	stderr *tail
	dir    string
	done   chan struct{} // closed once the process has exited and dir is removed
	state  *os.ProcessState
}

// startWorker runs command with an empty environment except GOMEMLIMIT, in a fresh empty
// directory, with pipes for stdin and stdout and stderr kept for crash messages.
func startWorker(command []string, memoryBytes int64) (*worker, error) {
	dir, err := os.MkdirTemp("", "tiergate-helm-worker-")
	if err != nil {
		return nil, fmt.Errorf("start helm worker: %w", err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start helm worker: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		os.RemoveAll(dir)
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("start helm worker: %w", err)
	}
	w := &worker{stdin: inW, stdout: outR, stderr: &tail{max: 4096}, dir: dir, done: make(chan struct{})}
	w.cmd = exec.Command(command[0], command[1:]...)
	w.cmd.Env = []string{"GOMEMLIMIT=" + strconv.FormatInt(memoryBytes, 10)}
	w.cmd.Dir = dir
	w.cmd.Stdin, w.cmd.Stdout, w.cmd.Stderr = inR, outW, w.stderr
	err = w.cmd.Start()
	// The child holds its ends now; closing ours lets reads see EOF when it exits.
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start helm worker %s: %w", command[0], err)
	}
	go func() {
		w.cmd.Wait()
		w.state = w.cmd.ProcessState
		os.RemoveAll(dir)
		close(w.done)
	}()
	return w, nil
}

// kill stops the process and waits for it; it is safe to call more than once.
func (w *worker) kill() {
	w.cmd.Process.Kill()
	<-w.done
	w.stdin.Close()
	w.stdout.Close()
}

// exitCode is the process's exit status after done, or -1 when a signal ended it.
func (w *worker) exitCode() int {
	<-w.done
	return w.state.ExitCode()
}

// died describes how the process ended, for a crash error.
func (w *worker) died() string {
	<-w.done
	msg := w.state.String()
	if why := w.stderr.reason(); why != "" {
		msg += ": " + why
	}
	return msg
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = t.buf[over:]
	}
	return len(p), nil
}

// reason is the line of a Go crash that says why (not its stack), else the last line.
func (t *tail) reason() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.buf)), "\n")
	for _, l := range lines {
		for _, p := range []string{"fatal error: ", "panic: ", "helm-worker: "} {
			if strings.HasPrefix(l, p) {
				return l
			}
		}
	}
	return lines[len(lines)-1]
}
