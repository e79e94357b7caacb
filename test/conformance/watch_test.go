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
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"
	"knative.dev/pkg/kmeta"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/preview/cli"
)

// TestWatchFollowsSwitch: `kubectl route-address status --watch`, started
// with a switch of 40 Routes (80 names), follows it to exit 0, drawn in
// place on a terminal (tmux, as a person sees it) and one line per
// interval otherwise; in a namespace where somebody else's Service holds a
// Route's name it exits 4 (ExitNotOwned) once nothing else is left, and
// names it, rather than running to --timeout. How far the switch
// has got by the first frame depends on the machine: the frames are
// logged, the last one checked.
func TestWatchFollowsSwitch(t *testing.T) {
	needLocal(t)
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		skipOrFail(t, "needs tmux to see the terminal rendering")
	}
	setMode(t, netcfg.RouteAddressModeExternalName, netcfg.RouteAddressFallbackEnabled)
	gw := namespace(t, "gw")
	gatewayService(t, gw, "gateway", "198.19.0.110", 80)
	ns := namespace(t, "watch")
	const routes = 40
	gatewayRoutes(t, ns, gw, routes)
	stuckNS := namespace(t, "watch-stuck")
	if _, err := env.kube.CoreV1().Services(stuckNS).Create(bg(), &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: stuckNS, Name: "held"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "elsewhere.example.com",
			Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(80)}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	held := route(t, stuckNS, "held")
	if _, err := env.net.NetworkingV1alpha1().Ingresses(stuckNS).Create(bg(), &netv1alpha1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: stuckNS, Name: "held", OwnerReferences: []metav1.OwnerReference{*kmeta.NewControllerRef(held)}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	setLoadBalancer(t, stuckNS, "held", internalEntry(fmt.Sprintf(gwDomain, gw)))
	eventually(t, "every name ExternalName", func() error {
		l, err := env.kube.CoreV1().Services(ns).List(bg(), metav1.ListOptions{})
		if err != nil {
			return err
		}
		n := 0
		for _, s := range l.Items {
			if s.Spec.Type == corev1.ServiceTypeExternalName {
				n++
			}
		}
		if n != 2*routes {
			return fmt.Errorf("%d of %d ExternalName", n, 2*routes)
		}
		return nil
	})

	bin := filepath.Join(t.TempDir(), "kubectl-route_address")
	if out, err := exec.Command("go", "build", "-o", bin, "knative.dev/route-address/cmd/kubectl-route_address").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v: %s", err, out)
	}

	// The watches start with the switch (before it, every name has
	// ExternalName's shape and a watch would be done at once).
	setMode(t, netcfg.RouteAddressModeEndpointSlices, netcfg.RouteAddressFallbackEnabled)
	// The plugin on a terminal: tmux runs it in a pane of 200×20.
	session := fmt.Sprintf("watch-%d", time.Now().UnixNano())
	cmd := fmt.Sprintf("%s status --watch --interval 500ms --kubeconfig %s -n %s; echo EXIT=$?; sleep 600", bin, env.local.Kubeconfig, ns)
	if out, err := exec.Command(tmux, "new-session", "-d", "-s", session, "-x", "200", "-y", "20", cmd).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command(tmux, "kill-session", "-t", session).Run() })

	// The plain lines, and the namespace whose one name is held.
	type result struct {
		code     int
		out, err string
	}
	watch := func(args ...string) <-chan result {
		ch := make(chan result, 1)
		go func() {
			var out, errOut bytes.Buffer
			code := cli.Main(context.Background(), append([]string{"status", "--watch", "--kubeconfig", env.local.Kubeconfig}, args...), &out, &errOut)
			ch <- result{code, out.String(), errOut.String()}
		}()
		return ch
	}
	plain := watch("-n", ns, "--interval", "500ms", "--per-namespace")
	stuck := watch("-n", stuckNS, "--interval", "1s", "--timeout", "20s")

	var screen string
	eventually(t, "the watch on the terminal to exit", func() error {
		out, err := exec.Command(tmux, "capture-pane", "-p", "-t", session).CombinedOutput()
		if err != nil {
			return fmt.Errorf("capture-pane: %v: %s", err, out)
		}
		screen = strings.TrimRight(string(out), "\n")
		if !strings.Contains(screen, "EXIT=") {
			return fmt.Errorf("not done yet: %q", screen)
		}
		return nil
	})
	t.Logf("the terminal as tmux shows it:\n%s", screen)
	lines := strings.Split(screen, "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "[##############################] 80/80 names done (route-address-mode=endpointslices), 0 operations left,") ||
		!strings.HasSuffix(lines[0], ", done") || lines[1] != "EXIT=0" {
		t.Errorf("the terminal shows %d lines, want the progress bar drawn in place, done, then EXIT=0:\n%s", len(lines), screen)
	}

	r := <-plain
	t.Logf("status --watch --per-namespace, not on a terminal (exit %d):\n%s", r.code, r.out)
	if r.code != 0 {
		t.Errorf("status --watch exited %d, want 0: %s", r.code, r.err)
	}
	plainLines := strings.Split(strings.TrimSpace(r.out), "\n")
	// With --per-namespace a frame is two lines: the last frame's first.
	if last := plainLines[len(plainLines)-2]; !strings.Contains(last, " 80/80 names done (route-address-mode=endpointslices), 0 operations left") || !strings.HasSuffix(last, ", done") {
		t.Errorf("the last frame is %q, want 80/80 names done", last)
	}

	r = <-stuck
	t.Logf("status --watch in %s (exit %d):\n%s", stuckNS, r.code, r.out)
	if r.code != cli.ExitNotOwned {
		t.Errorf("status --watch exited %d, want %d: %s", r.code, cli.ExitNotOwned, r.err)
	}
	if want := "0/1 names done (route-address-mode=endpointslices), 0 operations left, done, 1 held by objects their Routes do not control\n"; !strings.Contains(r.out, want) {
		t.Errorf("no frame says %q:\n%s", want, r.out)
	}
	if want := fmt.Sprintf("  %s/held held: blocked: Service held is not controlled by the Route", stuckNS); !strings.Contains(r.out, want) {
		t.Errorf("the names left do not include %q:\n%s", want, r.out)
	}
}
