package forgetest

import (
	"net/http"
	"strings"
	"testing"
)

// NewGitea starts a fake Gitea API (api-specs/gitea-swagger.json, base path /api/v1)
// that accepts "token " + Token.
func NewGitea(t testing.TB) *Server {
	return newGiteaServer(t, "gitea-swagger.json", "1.23.0")
}

// NewForgejo starts a fake Forgejo API (api-specs/forgejo-swagger.json).
func NewForgejo(t testing.TB) *Server {
	return newGiteaServer(t, "forgejo-swagger.json", "9.0.0+gitea-1.22.0")
}

func newGiteaServer(t testing.TB, specFile, version string) *Server {
	routes := map[string]handler{
		"GET /version": func(s *Server, r *request) (int, any) {
			return http.StatusOK, map[string]any{"version": version}
		},
	}
	for k, h := range giteaRoutes {
		routes[k] = h
	}
	s := newServer(t, specFile, routes)
	s.auth = func(r *http.Request, rt *route) (string, bool) {
		if rt.template == "/version" {
			return "", true
		}
		return BotLogin, r.Header.Get("Authorization") == "token "+Token
	}
	return s
}

var giteaRoutes = map[string]handler{
	"GET /user": func(s *Server, r *request) (int, any) {
		return http.StatusOK, map[string]any{"id": 1, "login": r.login}
	},
	"POST /repos/{owner}/{repo}/statuses/{sha}": func(s *Server, r *request) (int, any) {
		return http.StatusCreated, s.addStatus(r, r.params["sha"], "status")
	},
	"GET /repos/{owner}/{repo}/commits/{ref}/statuses": func(s *Server, r *request) (int, any) {
		return http.StatusOK, newestFirst(s.statuses[r.params["ref"]])
	},
	"GET /repos/{owner}/{repo}/pulls/{index}/reviews": func(s *Server, r *request) (int, any) {
		out := []any{}
		for _, rv := range s.reviews[atoi(r.params["index"])] {
			out = append(out, rv)
		}
		return http.StatusOK, out
	},
	"GET /repos/{owner}/{repo}/issues/{index}/comments": func(s *Server, r *request) (int, any) {
		return http.StatusOK, s.prComments(atoi(r.params["index"]))
	},
	"POST /repos/{owner}/{repo}/issues/{index}/comments": func(s *Server, r *request) (int, any) {
		body, _ := field(r.body, "body").(string)
		id := s.addComment(atoi(r.params["index"]), r.login, body)
		return http.StatusCreated, commentJSON(Comment{id, r.login, body})
	},
	"PATCH /repos/{owner}/{repo}/issues/comments/{id}": func(s *Server, r *request) (int, any) {
		return s.editComment(r, r.params["id"])
	},
	"DELETE /repos/{owner}/{repo}/issues/comments/{id}": func(s *Server, r *request) (int, any) {
		return s.deleteComment(r, r.params["id"])
	},
	"POST /repos/{owner}/{repo}/issues/comments/{id}/reactions": func(s *Server, r *request) (int, any) {
		if !s.hasComment(r.params["id"]) {
			return notFound()
		}
		return http.StatusCreated, map[string]any{"content": field(r.body, "content"), "user": map[string]any{"login": r.login}}
	},
	"GET /repos/{owner}/{repo}/pulls/{index}": func(s *Server, r *request) (int, any) {
		n := atoi(r.params["index"])
		pr, ok := s.prs[n]
		if !ok {
			return notFound()
		}
		full := r.params["owner"] + "/" + r.params["repo"]
		headRepo := map[string]any{"id": 1, "full_name": full}
		if pr.fork {
			headRepo = map[string]any{"id": 2, "full_name": "someone/" + r.params["repo"]}
		}
		return http.StatusOK, map[string]any{"number": n,
			"head": map[string]any{"sha": pr.head, "ref": "feature", "repo_id": headRepo["id"], "repo": headRepo},
			"base": map[string]any{"sha": pr.base, "ref": "main", "repo_id": 1, "repo": map[string]any{"id": 1, "full_name": full}}}
	},
	"GET /repos/{owner}/{repo}/pulls/{index}.{diffType}": func(s *Server, r *request) (int, any) {
		if t := r.params["diffType"]; t != "diff" && t != "patch" {
			return notFound()
		}
		var b strings.Builder
		for _, f := range s.files[atoi(r.params["index"])] {
			b.WriteString("diff --git a/" + f.Name + " b/" + f.Name + "\n")
			b.WriteString("index 1111111..2222222 100644\n--- a/" + f.Name + "\n+++ b/" + f.Name + "\n")
			b.WriteString(strings.TrimSuffix(f.Patch, "\n") + "\n")
		}
		return http.StatusOK, b.String()
	},
	"POST /repos/{owner}/{repo}/pulls/{index}/reviews": func(s *Server, r *request) (int, any) {
		return http.StatusOK, s.addReview(r, atoi(r.params["index"]), field(r.body, "event"))
	},
	"GET /repos/{owner}/{repo}/collaborators/{collaborator}/permission": func(s *Server, r *request) (int, any) {
		perm, ok := s.perms[r.params["collaborator"]]
		if !ok {
			return notFound()
		}
		return http.StatusOK, map[string]any{"permission": perm, "role_name": perm,
			"user": map[string]any{"login": r.params["collaborator"]}}
	},
}
