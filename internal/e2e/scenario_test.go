package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// expectation is the part of a scenario's expect.json that a published review must show.
type expectation struct {
	Exit         int       `json:"exit"`
	HeadFindings []finding `json:"head_findings"`
	Absent       []finding `json:"absent"`
}

type finding struct {
	Rule     string `json:"rule"`
	Status   string `json:"status"`
	Severity string `json:"severity"`
	Cluster  string `json:"cluster"`
	Object   struct {
		Group, Kind, Namespace, Name string
	} `json:"object"`
	Kustomization string `json:"kustomization"`
	File          string `json:"file"`
}

func loadExpectation(t *testing.T, scenario string) expectation {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(scenario, "expect.json"))
	if err != nil {
		t.Fatal(err)
	}
	var exp expectation
	if err := json.Unmarshal(raw, &exp); err != nil {
		t.Fatalf("%s/expect.json: %v", scenario, err)
	}
	return exp
}

// finalState is the commit status a review of the scenario ends with: the CLI's exit 0 is
// success, exit 1 (a new finding at or above fail-on) failure.
func (x expectation) finalState() string {
	if x.Exit == 0 {
		return "success"
	}
	return "failure"
}

// object is the finding's object as the summary prints it: Kind.group/[namespace/]name.
func (f finding) object() string {
	s := f.Object.Kind
	if f.Object.Group != "" {
		s += "." + f.Object.Group
	}
	s += "/"
	if f.Object.Namespace != "" {
		s += f.Object.Namespace + "/"
	}
	return s + f.Object.Name
}

// matchesRow reports whether a row of the summary's findings tables shows f. Rows are
// status (the table's section, see checkSummary) then severity | rule | where | message.
// Where is [cluster · ]Kustomization, object, file:line on lines of their own; the cluster
// is printed only when the review has several, as "clusters: a, b" when they share the cause.
func (f finding) matchesRow(row string) bool {
	status, row, _ := strings.Cut(row, "\x00")
	cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(row, "| "), " |"), " | ")
	if len(cells) != 4 || cells[1] != "`"+f.Rule+"`" {
		return false
	}
	if f.Status != "" && f.Status != status {
		return false
	}
	if f.Severity != "" && !strings.HasSuffix(cells[0], " "+f.Severity) {
		return false
	}
	where := strings.Split(cells[2], "<br>")
	cluster, first, multi := strings.Cut(where[0], " · ")
	if !multi {
		first = where[0]
	}
	if list, shared := strings.CutPrefix(cluster, "clusters: "); f.Cluster != "" && multi &&
		cluster != f.Cluster && !(shared && slices.Contains(strings.Split(list, ", "), f.Cluster)) {
		return false
	}
	if f.Object.Kind != "" && !slices.Contains(where, f.object()) {
		return false
	}
	if f.Kustomization != "" && first != f.Kustomization {
		return false
	}
	if f.File != "" && !strings.HasPrefix(where[len(where)-1], "`"+f.File+":") {
		return false
	}
	return true
}

// checkSummary checks that the summary comment shows each expected finding in exactly one
// row of its findings table, and none of the absent ones.
func checkSummary(t *testing.T, body string, exp expectation) {
	t.Helper()
	if !strings.HasPrefix(body, summaryMarker+"\n") {
		t.Errorf("summary does not start with %q:\n%s", summaryMarker, firstLines(body, 3))
	}
	var rows []string
	section := ""
	for line := range strings.Lines(body) {
		switch {
		case line == "#### Findings\n":
			section = "new"
		case line == "#### Resolved\n":
			section = "resolved"
		case strings.Contains(line, " existing finding"):
			section = "existing"
		case strings.HasPrefix(line, "#### "):
			section = ""
		case strings.HasPrefix(line, "| ") && section != "":
			rows = append(rows, section+"\x00"+strings.TrimSpace(line))
		}
	}
	ok := true
	for _, f := range exp.HeadFindings {
		n := 0
		for _, r := range rows {
			if f.matchesRow(r) {
				n++
			}
		}
		if n != 1 {
			ok = false
			t.Errorf("summary shows %s %s %s %s in %d rows, want 1", f.Status, f.Rule, f.Cluster, f.object(), n)
		}
	}
	for _, f := range exp.Absent {
		for _, r := range rows {
			if f.matchesRow(r) {
				ok = false
				t.Errorf("summary shows %s %s, which the scenario rules out:\n%s", f.Status, f.Rule, r)
			}
		}
	}
	if !ok {
		t.Logf("summary:\n%s", body)
	}
}

// checkLineComments checks that every new finding of exp that names a file has a line
// comment on that file.
func checkLineComments(t *testing.T, lines []string, exp expectation) {
	t.Helper()
	for _, f := range exp.HeadFindings {
		if f.Status != "new" || f.File == "" {
			continue
		}
		found := false
		for _, l := range lines {
			if strings.HasPrefix(l, f.File+":") && strings.Contains(l, " **"+f.Rule+"** ") && strings.HasSuffix(l, ": "+f.object()) {
				found = true
			}
		}
		if !found {
			t.Errorf("no line comment on %s for %s %s; comments:\n%s", f.File, f.Rule, f.object(), strings.Join(lines, "\n"))
		}
	}
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], "\n")
}
