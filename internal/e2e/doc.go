// Package e2e tests `bot serve` end to end: the real server, forge clients and mirror
// fetcher, wired as cmd/bot/serve.go wires them, against fake GitHub, Gitea and Forgejo APIs
// (internal/forge/forgetest: every request is checked against the forge's API description)
// and a git-http-backend that serves the PR's commits. The tests send the forges' real
// webhook payloads (shared/forge-fixtures) and assert the exact sequence of API calls that
// a delivery causes. The package holds tests only.
package e2e
