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
// client rate limits raised for tests (env may set others), under leader
// election as config-leader-election says (LeaderElection).
func StartController(c *Cluster, bin string, env ...string) (*exec.Cmd, error) {
	return startController(c, bin, "", "controller.log", env)
}

// StartReplica runs replica i of the controller (a build whose health
// probes are off, so that replicas can share this host), logging to
// Dir/controller-{i}.log, with env added. Its program name, and so the
// user agent of its requests, is controller-{i}: the audit log tells the
// replicas' writes apart (ReplicaAgent).
func StartReplica(c *Cluster, bin string, i int, env ...string) (*exec.Cmd, error) {
	return startController(c, bin, ReplicaAgent(i), fmt.Sprintf("controller-%d.log", i), env)
}

// ReplicaAgent is the first word of the user agent of replica i's requests.
func ReplicaAgent(i int) string { return fmt.Sprintf("controller-%d", i) }

// Limits are the environment variables that set the controller's client
// rate limits (KUBE_API_QPS, KUBE_API_BURST), for StartController's env.
func Limits(qps, burst int) []string {
	return []string{fmt.Sprintf("KUBE_API_QPS=%d", qps), fmt.Sprintf("KUBE_API_BURST=%d", burst)}
}

// startController runs bin as name (its argv[0]: the user agent's program
// name; the binary's own when empty).
func startController(c *Cluster, bin, name, log string, env []string) (*exec.Cmd, error) {
	// The later of two settings of a variable wins.
	return runAs(filepath.Join(c.Dir, log),
		append([]string{"SYSTEM_NAMESPACE=" + SystemNamespace, "PROFILING_PORT=0", "KUBE_API_QPS=200", "KUBE_API_BURST=400"}, env...),
		name, bin, "--kubeconfig", c.ControllerKubeconfig)
}
