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
	"slices"
	"strings"
	"testing"
)

// installCommands returns the commands of the "## Install on a cluster"
// section of a Markdown file: its indented lines, without comments.
func installCommands(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n## Install on a cluster\n")
	if !ok {
		t.Fatalf("%s has no section \"Install on a cluster\"", path)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var out []string
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "    ") {
			continue
		}
		cmd, _, _ := strings.Cut(strings.TrimSpace(line), " #")
		out = append(out, strings.TrimSpace(cmd))
	}
	return out
}

// TestInstallCommandsAgree: README.md and docs/operating.md give the same
// install commands, which apply every file of config/ an install needs and
// patch serving's webhook and controller with the images built with the
// series.
func TestInstallCommandsAgree(t *testing.T) {
	readme := installCommands(t, filepath.Join("..", "..", "README.md"))
	operating := installCommands(t, filepath.Join("..", "..", "docs", "operating.md"))
	if len(readme) == 0 || !slices.Equal(readme, operating[:min(len(readme), len(operating))]) {
		t.Errorf("README.md's install commands\n  %s\nare not the first of docs/operating.md's\n  %s",
			strings.Join(readme, "\n  "), strings.Join(operating, "\n  "))
	}
	for _, f := range []string{"config/200-clusterrole.yaml", "config/220-route-address-mode-policy.yaml", "config/300-config-network.yaml",
		"hack/build-serving.sh --images", "deployment/webhook", "deployment/controller"} {
		if !slices.ContainsFunc(readme, func(c string) bool { return strings.Contains(c, f) }) {
			t.Errorf("README.md's install commands do not use %s", f)
		}
	}
}
