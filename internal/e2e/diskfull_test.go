package e2e

import (
	"bytes"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// tinyFSEnv marks the test process that TestDiskFull re-executes in a mount namespace of
// its own, where it may mount a small tmpfs as the data directory.
const tinyFSEnv = "TIERGATE_E2E_TINYFS"

// TestDiskFull runs the server with its data directory on a small tmpfs that the test fills
// after a first review. While it is full /readyz answers 503, a push is still accepted and
// its review ends in status error naming the full disk (the mirror cannot take the new
// head); once space is freed the next delivery is reviewed as usual.
//
// The tmpfs is mounted in a user and mount namespace of a re-executed test process, so no
// mount outlives the test and no root is needed; the test is skipped where the kernel does
// not allow those namespaces.
func TestDiskFull(t *testing.T) {
	if os.Getenv(tinyFSEnv) == "" {
		reexecInMountNamespace(t)
		return
	}
	// A kernel may allow the namespaces and still refuse mounts in them (an LSM policy).
	if err := syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, ""); err != nil {
		t.Skipf("make mounts private: %v", err)
	}
	e := newEnv(t, github, scenario)
	if err := syscall.Mount("tmpfs", e.dataDir, "tmpfs", 0, "size=8m,mode=0700"); err != nil {
		t.Skipf("mount tmpfs: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(e.dataDir, syscall.MNT_DETACH) })
	exp := loadExpectation(t, e.scenario)
	head, head2 := e.repo.head, e.repo.head2

	in := e.start(true)
	code, body := in.send(e.prDelivery(head, ""))
	expectStatus(t, "opened", code, body, http.StatusAccepted, `"queued"`)
	calls := e.waitCalls("final status of head", e.finalStatus(head))
	e.assertCalls("review before the disk fills", calls, e.reviewRun(head, 0, exp))
	e.waitRuns(in, exp.finalState(), 1)
	summary := e.summary()

	// The disk fills. The queue still takes the push: bbolt rewrites pages its file already
	// has (a write that needs the file to grow is answered 503, see the server package's
	// TestStoreWriteFails). The review cannot fetch the new head into the mirror.
	e.fake.ResetCalls()
	e.pushHead2()
	filler := fill(t, e.dataDir)
	if code, body := in.get("/readyz"); code != http.StatusServiceUnavailable {
		t.Errorf("readyz on a full disk: %d %s, want 503", code, body)
	}
	code, body = in.send(e.prDelivery(head2, head))
	expectStatus(t, "synchronize on a full disk", code, body, http.StatusAccepted, `"queued"`)
	calls = e.waitCalls("final status of head2", e.finalStatus(head2))
	checkErrorStatus(t, e.publishing(calls), "error [tiergate] fetch: ", "no space left on device")
	e.assertCalls("a review on a full disk", calls[:len(calls)-1], []call{e.getPR(), e.status(head2, "pending", pendingDesc)})
	e.waitRuns(in, "error", 1)

	// Space is back: the queue survived, the next delivery is reviewed.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if code, body := in.get("/readyz"); code != http.StatusOK {
		t.Errorf("readyz once space is back: %d %s, want 200", code, body)
	}
	e.fake.ResetCalls()
	code, body = in.send(e.prDelivery(head2, head))
	expectStatus(t, "synchronize redelivered", code, body, http.StatusAccepted, `"queued"`)
	calls = e.waitCalls("final status of head2", e.finalStatus(head2))
	e.assertCalls("review once space is back", calls, e.reviewRun(head2, summary.ID, exp))
	e.waitRuns(in, exp.finalState(), 2)
}

// fill writes a file into dir until the file system is full and returns its path.
func fill(t *testing.T, dir string) string {
	t.Helper()
	f, err := os.CreateTemp(dir, "filler-")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := bytes.Repeat([]byte{'x'}, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				break
			}
			t.Fatal(err)
		}
	}
	// The last pages a partial write left free.
	for {
		if _, err := f.Write([]byte{'x'}); err != nil {
			break
		}
	}
	return f.Name()
}

// reexecInMountNamespace runs TestDiskFull again in a new user and mount namespace and
// reports its outcome.
func reexecInMountNamespace(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestDiskFull$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), tinyFSEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Skipf("no user and mount namespace for a tmpfs: %v", err)
	}
	log := out.String()
	if err != nil {
		t.Fatalf("TestDiskFull in its namespace: %v\n%s", err, log)
	}
	if strings.Contains(log, "--- SKIP") {
		t.Skipf("skipped in its namespace:\n%s", log)
	}
	// Figures for the reader of -v: the child's own log lines.
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "final status:") {
			t.Log(strings.TrimSpace(l))
		}
	}
}
