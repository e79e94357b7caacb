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
	"fmt"
	"os/exec"
	"path/filepath"
)

// StartController runs the controller binary against the cluster as
// serving's controller ServiceAccount, logging to Dir/controller.log, with
// client rate limits raised for tests and leader election off.
func StartController(c *Cluster, bin string) (*exec.Cmd, error) {
	return startController(c, bin, "controller.log", nil)
}

// StartReplica runs one replica of the controller with leader election as
// serving ships it (config-leader-election), logging to
// Dir/controller-{i}.log.
func StartReplica(c *Cluster, bin string, i int) (*exec.Cmd, error) {
	return startController(c, bin, fmt.Sprintf("controller-%d.log", i), []string{"ROUTE_ADDRESS_E2E_HA=1"})
}

// StartControllerWithLimits is StartController with the client's rate
// limits set (KUBE_API_QPS, KUBE_API_BURST), as the benchmark sets them,
// and env added.
func StartControllerWithLimits(c *Cluster, bin string, qps, burst int, env ...string) (*exec.Cmd, error) {
	return startController(c, bin, "controller.log", append([]string{fmt.Sprintf("KUBE_API_QPS=%d", qps), fmt.Sprintf("KUBE_API_BURST=%d", burst)}, env...))
}

func startController(c *Cluster, bin, log string, env []string) (*exec.Cmd, error) {
	// The later of two settings of a variable wins.
	return Run(filepath.Join(c.Dir, log),
		append([]string{"SYSTEM_NAMESPACE=" + SystemNamespace, "PROFILING_PORT=0", "KUBE_API_QPS=200", "KUBE_API_BURST=400"}, env...),
		bin, "--kubeconfig", c.ControllerKubeconfig)
}
