package forge

import (
	"errors"
	"net/http"

	"github.com/google/go-github/v66/github"
)

// IsForbidden reports whether err is GitHub refusing a request with 403 for want of
// permission (not a rate limit): a token without the scope, such as the read-only
// GITHUB_TOKEN of a workflow run on a pull request from a fork.
func IsForbidden(err error) bool {
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusForbidden
}
