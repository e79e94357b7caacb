//go:build e2e

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

package conformance

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	netclient "knative.dev/networking/pkg/client/clientset/versioned"
	servingclient "knative.dev/serving/pkg/client/clientset/versioned"

	"knative.dev/route-address/test/cluster"
	"knative.dev/route-address/test/dns"
)

// env is what every test uses.
var env struct {
	kube    kubernetes.Interface
	serving servingclient.Interface
	net     netclient.Interface
	dns     *dns.Resolver
	// local is set when the suite runs its own control plane; tests that
	// need the audit log or to restart the controller skip otherwise.
	local *cluster.Cluster
	// controller, webhook, replica and stock are serving's binaries
	// (hack/build-serving.sh): its cmd/controller and cmd/webhook as the
	// pull requests leave them, the same controller with its health probes
	// off (replicas sharing this host), and v0.50.0's released
	// cmd/controller, for rollbacks.
	controller, webhook, replica, stock string
	// gateway is the gateway stand-in's binary (test/cmd/gateway).
	gateway string
	ctrl    *controllerProc
}

type controllerProc struct {
	cmd     *exec.Cmd
	started time.Time
}

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if kc := os.Getenv("E2E_KUBECONFIG"); kc != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", kc)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		cfg.QPS, cfg.Burst = 100, 200
		env.kube = kubernetes.NewForConfigOrDie(cfg)
		env.serving = servingclient.NewForConfigOrDie(cfg)
		env.net = netclient.NewForConfigOrDie(cfg)
		env.dns = dns.New(os.Getenv("E2E_DNS"))
		return m.Run()
	}

	dir, err := os.MkdirTemp("", "route-address-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	start := time.Now()
	// E2E_SERVING_BIN: where hack/build-serving.sh built serving's binaries
	// before (hack/test.sh builds them once for the runs of the suite it
	// starts at once); else they are built here.
	bin := os.Getenv("E2E_SERVING_BIN")
	if bin == "" {
		bin = dir
		if out, err := exec.Command("../../hack/build-serving.sh", bin).CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "hack/build-serving.sh: %v\n%s", err, out)
			return 1
		}
	}
	env.controller = filepath.Join(bin, "controller")
	env.webhook = filepath.Join(bin, "webhook")
	env.replica = filepath.Join(bin, "replica")
	env.stock = filepath.Join(bin, "controller-stock")
	env.gateway = filepath.Join(dir, "gateway")
	if out, err := exec.Command("go", "build", "-o", env.gateway, "knative.dev/route-address/test/cmd/gateway").CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building test/cmd/gateway: %v\n%s", err, out)
		return 1
	}
	c, err := cluster.Start(context.Background(), filepath.Join(dir, "cluster"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	env.local = c
	defer func() {
		c.Stop()
		if os.Getenv("E2E_KEEP") == "" {
			os.RemoveAll(dir)
		} else {
			fmt.Println("kept", dir)
		}
	}()
	env.kube, env.dns = c.Client, dns.New(c.DNS)
	env.serving = servingclient.NewForConfigOrDie(c.Config)
	env.net = netclient.NewForConfigOrDie(c.Config)
	if err := startController(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer stopController()
	fmt.Printf("local control plane (Kubernetes %s) and controller up in %s (logs in %s)\n", cluster.KubernetesVersion(), time.Since(start).Round(time.Millisecond), c.Dir)
	return m.Run()
}

// startController starts the controller with env added to its
// environment (cluster.Limits, say).
func startController(extra ...string) error {
	started := time.Now()
	cmd, err := cluster.StartController(env.local, env.controller, extra...)
	if err != nil {
		return err
	}
	env.ctrl = &controllerProc{cmd: cmd, started: started}
	return nil
}

// runWithoutProbes replaces the suite's controller with the same build
// with its health probes off (env.replica, run alone) until the test ends.
func runWithoutProbes(t *testing.T) {
	t.Helper()
	stopController()
	bin := env.controller
	env.controller = env.replica
	t.Cleanup(func() {
		stopController()
		env.controller = bin
		if err := startController(); err != nil {
			t.Error(err)
		}
	})
	if err := startController(); err != nil {
		t.Fatal(err)
	}
}

func stopController() {
	if env.ctrl != nil {
		cluster.Stop(env.ctrl.cmd)
		env.ctrl = nil
	}
}

// killController ends the controller at once, as a crash would.
func killController() {
	if env.ctrl != nil && env.ctrl.cmd.Process != nil {
		_ = env.ctrl.cmd.Process.Kill()
		env.ctrl = nil
	}
}
