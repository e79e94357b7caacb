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

package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// Version is the plugin's release, set when it is built for one:
// -ldflags "-X knative.dev/route-address/pkg/preview/cli.Version=v0.1.0".
// Otherwise the version comes from the Go module it was built as, or says
// it was built from a checkout.
var Version = ""

// versionInfo is what version prints, with kubectl's field names.
type versionInfo struct {
	GitVersion string `json:"gitVersion"`
	GitCommit  string `json:"gitCommit,omitempty"`
	BuildDate  string `json:"buildDate,omitempty"`
	GoVersion  string `json:"goVersion"`
	Platform   string `json:"platform"`
}

func (v versionInfo) String() string {
	s := "kubectl-route_address " + v.GitVersion
	if v.GitCommit != "" {
		s += " (commit " + v.GitCommit + ")"
	}
	return fmt.Sprintf("%s, %s %s", s, v.GoVersion, v.Platform)
}

// buildVersion reads the version from Version and the binary's build
// information.
func buildVersion() versionInfo {
	v := versionInfo{GitVersion: Version, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if v.GitVersion == "" {
		v.GitVersion = bi.Main.Version
	}
	if v.GitVersion == "" || v.GitVersion == "(devel)" {
		v.GitVersion = "(built from a checkout)"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.GitCommit = s.Value
		case "vcs.time":
			v.BuildDate = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				v.GitCommit += "-dirty"
			}
		}
	}
	return v
}
