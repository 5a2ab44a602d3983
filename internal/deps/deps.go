// Package deps pins the server's libraries in go.mod while internal/forge and
// internal/server are written; it is removed once they import them.
package deps

import (
	_ "code.gitea.io/sdk/gitea"
	_ "github.com/bradleyfalzon/ghinstallation/v2"
	_ "github.com/gin-gonic/gin"
	_ "github.com/google/go-github/v66/github"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "go.etcd.io/bbolt"
)
