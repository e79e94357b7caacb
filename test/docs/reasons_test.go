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
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// reasonPatterns find, in the product's Go sources, every event reason and
// load-balancer problem reason the code can emit: an event recorded with a
// literal reason, a warning{reason, …} of the reconciler, a resources.Reason
// constant, and the values of the reconciler's reason maps (pastTense,
// failedReason), a constant whose comment says it is the reason of a
// Warning, and the reasons of the names the pending metric counts.
var reasonPatterns = []*regexp.Regexp{
	regexp.MustCompile(`Event[f]?\([^,]+, corev1\.EventType\w+, "(\w+)"`),
	regexp.MustCompile(`warning\{"(\w+)"`),
	regexp.MustCompile(`\bReason = "(\w+)"`),
	regexp.MustCompile(`(?m)^\s*Pending\w+\s*=\s*"(\w+)"`),
	regexp.MustCompile(`(?m)^// \w+ is the reason of the Warning[^\n]*\n(?://[^\n]*\n)*const \w+ = "(\w+)"`),
	regexp.MustCompile(`(?m)^\s*(?:pastTense|failedReason)\s*=\s*map\[[^\]]+\]string\{(.*)\}`),
}

var mapValue = regexp.MustCompile(`: "(\w+)"`)

func reasons(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, dir := range []string{"../../pkg", "../../cmd"} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") ||
				strings.Contains(path, "/testing/") {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for i, re := range reasonPatterns {
				for _, m := range re.FindAllStringSubmatch(string(b), -1) {
					if i == len(reasonPatterns)-1 {
						for _, v := range mapValue.FindAllStringSubmatch(m[1], -1) {
							out = append(out, v[1])
						}
						continue
					}
					out = append(out, m[1])
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestTroubleshootingNamesEveryReason fails when the code gains an event
// or problem reason that docs/troubleshooting.md does not name.
func TestTroubleshootingNamesEveryReason(t *testing.T) {
	guide, err := os.ReadFile("../../docs/troubleshooting.md")
	if err != nil {
		t.Fatal(err)
	}
	rs := reasons(t)
	// The patterns must find what the reconciler is known to emit, or the
	// test proves nothing.
	for _, known := range []string{"NotOwned", "CreationFailed", "Deleted", "AddressNotAllowed", "ForeignEndpointSlice"} {
		if !slices.Contains(rs, known) {
			t.Errorf("the source scan missed %q (found %v): the patterns are out of date", known, rs)
		}
	}
	for _, r := range rs {
		if !strings.Contains(string(guide), "`"+r+"`") && !strings.Contains(string(guide), " "+r+" (") &&
			!strings.Contains(string(guide), " "+r+",") {
			t.Errorf("docs/troubleshooting.md does not name the reason %s: say what causes it, how to confirm it and what to do", r)
		}
	}
	t.Logf("%d reasons in the code: %s", len(rs), strings.Join(rs, ", "))
}
