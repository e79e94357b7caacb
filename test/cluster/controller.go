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

package cluster

import (
	"os/exec"
	"path/filepath"
)

// StartController runs the controller binary against the cluster, logging
// to Dir/controller.log, with client rate limits raised for tests.
func StartController(c *Cluster, bin string) (*exec.Cmd, error) {
	return Run(filepath.Join(c.Dir, "controller.log"),
		[]string{"SYSTEM_NAMESPACE=" + SystemNamespace, "PROFILING_PORT=0", "KUBE_API_QPS=200", "KUBE_API_BURST=400"},
		bin, "--kubeconfig", c.Kubeconfig)
}
