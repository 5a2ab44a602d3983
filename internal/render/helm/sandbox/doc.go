// Package sandbox renders Helm charts in child processes of the bot, so that a chart from a
// pull request cannot run or allocate without bound. Helm's engine ignores its context
// (helm.sh/helm/v4 pkg/engine/engine.go Engine.render gives it only to lookup; text/template
// cannot be interrupted), and a 1.5 KB template doubling through include runs for seconds
// and reaches GiB (HELM.md §6), so the only reliable bound is a process killed in time.
//
// A Pool keeps Options.Size long-lived workers (`bot helm-worker`, which calls Serve) and
// sends each one request at a time over stdin/stdout as length-prefixed gob frames. The
// parent kills a worker past the deadline or the output cap; the worker exits by itself
// past its memory limit (GOMEMLIMIT plus a heap watchdog). A killed worker is replaced on
// the next request. Workers get an empty environment and an empty working directory.
package sandbox
