package forgetest

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	// AppID is the GitHub App the fake knows; sign its JWTs with AppKeyPEM.
	AppID = 4242
	// AppSlug names the App; its comments are written by AppSlug + "[bot]".
	AppSlug = "tiergate"
	// installationToken prefixes the tokens the fake issues to installations.
	installationToken = "ghs_fake_installation_"
)

var appKey = sync.OnceValue(func() *rsa.PrivateKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return k
})

// AppKeyPEM is the private key of the fake's GitHub App (PKCS#1 PEM, as GitHub issues).
func AppKeyPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(appKey())})
}

// NewGitHub starts a fake GitHub REST API checked against the full June 2022 description
// (api-specs/github-api.github.com.2022-06.json: the selected-operations subset lacks
// GET /user, GET /app, installation tokens and collaborator permissions). It accepts
// Token, installation tokens it issued, and JWTs of AppID signed with AppKeyPEM.
func NewGitHub(t testing.TB) *Server {
	s := newServer(t, "github-api.github.com.2022-06.json", githubRoutes)
	s.auth = githubAuth
	return s
}

// jwtRoutes are authenticated as the App itself, every other route as a user or an
// installation.
var jwtRoutes = map[string]bool{"/app": true, "/app/installations/{installation_id}/access_tokens": true}

func githubAuth(r *http.Request, rt *route) (string, bool) {
	a := r.Header.Get("Authorization")
	if jwtRoutes[rt.template] {
		tok, ok := strings.CutPrefix(a, "Bearer ")
		return AppSlug + "[bot]", ok && validJWT(tok)
	}
	switch {
	case a == "Bearer "+Token:
		return BotLogin, true
	case strings.HasPrefix(a, "token "+installationToken):
		return AppSlug + "[bot]", true
	}
	return "", false
}

// validJWT checks an RS256 JWT signed with the App key and issued by AppID.
func validJWT(tok string) bool {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return false
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return false
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if rsa.VerifyPKCS1v15(&appKey().PublicKey, crypto.SHA256, sum[:], sig) != nil {
		return false
	}
	claims, err := base64.RawURLEncoding.DecodeString(parts[1])
	var c struct{ Iss string }
	return err == nil && json.Unmarshal(claims, &c) == nil && c.Iss == strconv.Itoa(AppID)
}

var githubRoutes = map[string]handler{
	"GET /user": func(s *Server, r *request) (int, any) {
		return http.StatusOK, map[string]any{"login": r.login, "id": 1, "type": "User"}
	},
	"GET /app": func(s *Server, r *request) (int, any) {
		return http.StatusOK, map[string]any{"id": AppID, "slug": AppSlug, "name": "tiergate"}
	},
	"POST /app/installations/{installation_id}/access_tokens": func(s *Server, r *request) (int, any) {
		return http.StatusCreated, map[string]any{"token": installationToken + r.params["installation_id"],
			"expires_at": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)}
	},
	"POST /repos/{owner}/{repo}/statuses/{sha}": func(s *Server, r *request) (int, any) {
		return http.StatusCreated, s.addStatus(r, r.params["sha"], "state")
	},
	"GET /repos/{owner}/{repo}/commits/{ref}/statuses": func(s *Server, r *request) (int, any) {
		return s.githubPage(r, newestFirst(s.statuses[r.params["ref"]]))
	},
	"GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews": func(s *Server, r *request) (int, any) {
		var out []any
		for _, rv := range s.reviews[atoi(r.params["pull_number"])] {
			out = append(out, rv)
		}
		return s.githubPage(r, out)
	},
	"GET /repos/{owner}/{repo}/issues/{issue_number}/comments": func(s *Server, r *request) (int, any) {
		return s.githubPage(r, s.prComments(atoi(r.params["issue_number"])))
	},
	"POST /repos/{owner}/{repo}/issues/{issue_number}/comments": func(s *Server, r *request) (int, any) {
		body, _ := field(r.body, "body").(string)
		id := s.addComment(atoi(r.params["issue_number"]), r.login, body)
		return http.StatusCreated, commentJSON(Comment{id, r.login, body})
	},
	"PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}": func(s *Server, r *request) (int, any) {
		return s.editComment(r, r.params["comment_id"])
	},
	"DELETE /repos/{owner}/{repo}/issues/comments/{comment_id}": func(s *Server, r *request) (int, any) {
		return s.deleteComment(r, r.params["comment_id"])
	},
	"POST /repos/{owner}/{repo}/issues/comments/{comment_id}/reactions": func(s *Server, r *request) (int, any) {
		if !s.hasComment(r.params["comment_id"]) {
			return notFound()
		}
		return http.StatusCreated, map[string]any{"id": 1, "content": field(r.body, "content")}
	},
	"GET /repos/{owner}/{repo}/pulls/{pull_number}": func(s *Server, r *request) (int, any) {
		n := atoi(r.params["pull_number"])
		pr, ok := s.prs[n]
		if !ok {
			return notFound()
		}
		full := r.params["owner"] + "/" + r.params["repo"]
		head := map[string]any{"id": 1, "full_name": full}
		if pr.fork {
			head = map[string]any{"id": 2, "full_name": "someone/" + r.params["repo"]}
		}
		return http.StatusOK, map[string]any{"number": n,
			"head": map[string]any{"sha": pr.head, "ref": "feature", "repo": head},
			"base": map[string]any{"sha": pr.base, "ref": "main", "repo": map[string]any{"id": 1, "full_name": full}}}
	},
	"GET /repos/{owner}/{repo}/pulls/{pull_number}/files": func(s *Server, r *request) (int, any) {
		var files []any
		for _, f := range s.files[atoi(r.params["pull_number"])] {
			files = append(files, map[string]any{"filename": f.Name, "status": "modified", "patch": f.Patch})
		}
		return s.githubPage(r, files)
	},
	"POST /repos/{owner}/{repo}/pulls/{pull_number}/reviews": func(s *Server, r *request) (int, any) {
		return http.StatusOK, s.addReview(r, atoi(r.params["pull_number"]), "COMMENTED")
	},
	"GET /repos/{owner}/{repo}/collaborators/{username}/permission": func(s *Server, r *request) (int, any) {
		role, ok := s.perms[r.params["username"]]
		if !ok {
			return notFound()
		}
		perm := map[string]string{"maintain": "write", "triage": "read"}[role]
		if perm == "" {
			perm = role
		}
		return http.StatusOK, map[string]any{"permission": perm, "role_name": role,
			"user": map[string]any{"login": r.params["username"]}}
	},
	"POST /repos/{owner}/{repo}/check-runs": func(s *Server, r *request) (int, any) {
		s.nextID++
		run := map[string]any{"id": s.nextID, "name": field(r.body, "name"), "head_sha": field(r.body, "head_sha"),
			"app": map[string]any{"slug": strings.TrimSuffix(r.login, "[bot]")}}
		s.checkRuns = append(s.checkRuns, run)
		return http.StatusCreated, run
	},
	"GET /repos/{owner}/{repo}/commits/{ref}/check-runs": func(s *Server, r *request) (int, any) {
		runs := []any{}
		for _, run := range s.checkRuns {
			if run["head_sha"] == r.params["ref"] && (r.URL.Query().Get("check_name") == "" || run["name"] == r.URL.Query().Get("check_name")) {
				runs = append(runs, run)
			}
		}
		return http.StatusOK, map[string]any{"total_count": len(runs), "check_runs": runs}
	},
	"PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}": func(s *Server, r *request) (int, any) {
		return http.StatusOK, map[string]any{"id": atoi(r.params["check_run_id"])}
	},
}

// githubPage answers one page of a list (per_page, page) with GitHub's Link header.
func (s *Server) githubPage(r *request, items []any) (int, any) {
	q := r.URL.Query()
	per := 30
	if n, err := strconv.Atoi(q.Get("per_page")); err == nil && n > 0 {
		per = min(n, 100)
	}
	page := max(atoi(q.Get("page")), 1)
	from := min((page-1)*per, len(items))
	to := min(from+per, len(items))
	if to < len(items) {
		next := *r.URL
		q.Set("page", strconv.Itoa(page+1))
		q.Set("per_page", strconv.Itoa(per))
		next.RawQuery = q.Encode()
		r.w.Header().Set("Link", fmt.Sprintf(`<%s%s>; rel="next"`, s.URL, next.RequestURI()))
	}
	return http.StatusOK, append([]any{}, items[from:to]...)
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// ActionsLogin is the account a GitHub Actions workflow token (GITHUB_TOKEN) writes as; its
// user type is Bot.
const ActionsLogin = "github-actions[bot]"

// AsActionsToken makes Token act as a workflow token: what it writes is by ActionsLogin, a
// Bot. Call it before the first request. (Such a token may not read GET /user either; tests
// inject that with FailNext.)
func (s *Server) AsActionsToken() {
	auth := s.auth
	s.auth = func(r *http.Request, rt *route) (string, bool) {
		login, ok := auth(r, rt)
		if login == BotLogin {
			login = ActionsLogin
		}
		return login, ok
	}
}
