/*
Copyright 2026 The Knative Authors

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// read returns a Markdown file of the repository.
func read(t *testing.T, path ...string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(append([]string{"..", ".."}, path...)...))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// section returns the text of a Markdown section, from its heading to the
// next heading of the same level.
func section(t *testing.T, doc, heading string) string {
	t.Helper()
	level := heading[:strings.IndexByte(heading, ' ')+1]
	_, s, ok := strings.Cut(doc, "\n"+heading+"\n")
	if !ok {
		t.Fatalf("no section %q", heading)
	}
	s, _, _ = strings.Cut(s, "\n"+level)
	return s
}

// commands returns the commands an operator copies from a Markdown file:
// its indented lines that start with kubectl (not transcripts, which start
// with $ or sit in fenced blocks), and the kubectl commands quoted inline
// in its runbook, joined across line breaks.
func commands(doc string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(doc, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
		}
		if !fenced && strings.HasPrefix(line, "    kubectl ") {
			cmd, _, _ := strings.Cut(strings.TrimSpace(line), " #")
			out = append(out, strings.TrimSpace(cmd))
		}
	}
	return out
}

// inline returns the kubectl commands quoted in backticks in text.
func inline(text string) []string {
	var out []string
	for _, m := range regexp.MustCompile("`(kubectl [^`]+)`").FindAllStringSubmatch(text, -1) {
		out = append(out, strings.Join(strings.Fields(m[1]), " "))
	}
	return out
}

var switchedTo = regexp.MustCompile(`--mode ([a-z]+)|"route-address-mode":"([a-z]+)"|route-address-mode=([a-z]+)`)

// TestRecommendedModeAgrees: every command of README.md and
// docs/operating.md (and of the runbook) that switches to a managed mode
// switches to the mode README.md recommends.
func TestRecommendedModeAgrees(t *testing.T) {
	readme := read(t, "README.md")
	m := regexp.MustCompile("\\*\\*Recommendation: `([a-z]+)`\\.\\*\\*").FindStringSubmatch(readme)
	if m == nil {
		t.Fatal("README.md has no **Recommendation: `mode`.**")
	}
	recommended := m[1]
	operating := read(t, "docs", "operating.md")
	for file, cmds := range map[string][]string{
		"README.md":         commands(readme),
		"docs/operating.md": append(commands(operating), inline(section(t, operating, "## Runbook"))...),
	} {
		n := 0
		for _, c := range cmds {
			for _, s := range switchedTo.FindAllStringSubmatch(c, -1) {
				mode := s[1] + s[2] + s[3]
				if mode == "externalname" {
					continue // going back, or staying behind
				}
				n++
				if mode != recommended {
					t.Errorf("%s: %q switches to %s; README.md recommends %s", file, c, mode, recommended)
				}
			}
		}
		if n == 0 {
			t.Errorf("%s: no command switches to a managed mode", file)
		}
	}
}

// TestRunbookAgrees: each plugin command of docs/operating.md's runbook is
// one README.md gives (a namespace written NS there is any namespace), and
// the runbook's exit codes of plan and of status --watch are README.md's.
func TestRunbookAgrees(t *testing.T) {
	readme := read(t, "README.md")
	runbook := section(t, read(t, "docs", "operating.md"), "## Runbook")
	given := commands(readme)
	n := 0
	for _, c := range inline(runbook) {
		if !strings.HasPrefix(c, "kubectl route-address ") {
			continue
		}
		n++
		want := regexp.MustCompile("^" + strings.ReplaceAll(regexp.QuoteMeta(c), "NS", `[a-z0-9-]+`) + `( |$)`)
		if !slices.ContainsFunc(given, want.MatchString) {
			t.Errorf("the runbook's %q is not among README.md's commands", c)
		}
	}
	if n == 0 {
		t.Fatal("the runbook quotes no kubectl route-address command")
	}

	// The exit codes, as each document words them: "N when" in README's
	// paragraph on plan, "N (" in the runbook's preview step; "N once"
	// and "N at the timeout" for status --watch in both.
	codes := func(text, pattern string) []string {
		var out []string
		for _, m := range regexp.MustCompile(pattern).FindAllStringSubmatch(text, -1) {
			out = append(out, m[1])
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	step := func(title string) string {
		_, s, ok := strings.Cut(runbook, "**"+title+"**")
		if !ok {
			t.Fatalf("the runbook has no step %q", title)
		}
		if i := regexp.MustCompile(`\n[0-9]+\. `).FindStringIndex(s); i != nil {
			s = s[:i[0]]
		}
		return strings.Join(strings.Fields(s), " ")
	}
	_, plan, _ := strings.Cut(readme, "`plan` exits ")
	plan, _, _ = strings.Cut(plan, "\n\n")
	plan = strings.Join(strings.Fields(plan), " ")
	if got, want := codes(step("Preview"), `\b([0-9]) \(`), codes(plan, `\b([0-9]) when\b`); !slices.Equal(got, want) {
		t.Errorf("plan's exit codes: the runbook's preview step gives %v, README.md %v", got, want)
	}
	watch := ""
	for _, line := range strings.Split(readme, "\n") {
		if strings.Contains(line, "kubectl route-address status --watch -A") {
			watch = line
		}
	}
	if got, want := codes(step("Watch"), `\b([0-9]) (?:once|at the timeout)\b`), codes(watch, `\b([0-9]) (?:once|at the timeout)\b`); len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("status --watch's exit codes: the runbook's watch step gives %v, README.md %v", got, want)
	}
}
