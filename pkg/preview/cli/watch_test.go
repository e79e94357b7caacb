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
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clientgotesting "k8s.io/client-go/testing"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/preview"
)

// fakeTime is a clock that sleep advances, calling then after each sleep.
func fakeTime(t *testing.T, c *preview.Clients, then func(n int)) {
	t.Helper()
	now := time.Date(2026, 12, 2, 19, 0, 0, 0, time.UTC)
	c.Now = func() time.Time { return now }
	n := 0
	saved := sleep
	sleep = func(_ context.Context, d time.Duration) error {
		now = now.Add(d)
		n++
		then(n)
		return nil
	}
	t.Cleanup(func() { sleep = saved })
}

func setMode(t *testing.T, kube *kubefake.Clientset, mode string) {
	t.Helper()
	cm, err := kube.CoreV1().ConfigMaps("knative-serving").Get(context.Background(), "config-network", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data["route-address-mode"] = mode
	if _, err := kube.CoreV1().ConfigMaps("knative-serving").Update(context.Background(), cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestWatchConverges: the watch prints a line per interval and exits 0 once
// every name has the configured mode's shape (here: the switch is taken
// back to ExternalName, the shape the names already have).
func TestWatchConverges(t *testing.T) {
	c, kube, _ := world("EndpointSlices")
	fakeTime(t, &c, func(n int) {
		if n == 2 {
			setMode(t, kube, "ExternalName")
		}
	})
	code, out, errOut := run(t, c, "status", "--watch", "-n", "default", "--per-namespace")
	if code != 0 {
		t.Fatalf("exit code = %d; stderr: %s", code, errOut)
	}
	want := `2026-12-02T19:00:00Z 0/2 names done (route-address-mode=endpointslices), 4 operations left
  default 0/2
2026-12-02T19:00:02Z 0/2 names done (route-address-mode=endpointslices), 4 operations left
  default 0/2
2026-12-02T19:00:04Z 2/2 names done (route-address-mode=externalname), 0 operations left, 1.0 writes/s, done
  default 2/2
`
	if diff := cmp.Diff(want, out); diff != "" {
		t.Error("status --watch (-want +got):", diff)
	}
}

// TestWatchTimeout: a name held by somebody else's Service never gets the
// shape; --timeout ends the watch with ExitTimeout and names it.
func TestWatchTimeout(t *testing.T) {
	c, _, _ := world("EndpointSlices")
	fakeTime(t, &c, func(int) {})
	code, out, errOut := run(t, c, "status", "--watch", "-A", "--interval", "5s", "--timeout", "10s")
	if code != ExitTimeout {
		t.Fatalf("exit code = %d, want %d; stdout: %s, stderr: %s", code, ExitTimeout, out, errOut)
	}
	want := `2026-12-02T19:00:00Z 0/3 names done (route-address-mode=endpointslices), 4 operations left, 1 held by objects their Routes do not control
2026-12-02T19:00:05Z 0/3 names done (route-address-mode=endpointslices), 4 operations left, 1 held by objects their Routes do not control
2026-12-02T19:00:10Z 0/3 names done (route-address-mode=endpointslices), 4 operations left, 1 held by objects their Routes do not control
timed out after 10s: 3 names are not done (route-address-mode=endpointslices):
  default/hello hello: 2 operations
  default/hello canary-hello: 2 operations
  other/blocked blocked: blocked: Service blocked is not controlled by the Route
`
	if diff := cmp.Diff(want, out); diff != "" {
		t.Error("status --watch (-want +got):", diff)
	}
}

// TestWatchJSON: one JSON object per line, the names left only in the last.
func TestWatchJSON(t *testing.T) {
	c, _, _ := world("EndpointSlices")
	fakeTime(t, &c, func(int) {})
	code, out, errOut := run(t, c, "status", "--watch", "-n", "default", "-o", "json", "--timeout", "2s")
	if code != ExitTimeout {
		t.Fatalf("exit code = %d, want %d; stderr: %s", code, ExitTimeout, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2: %s", len(lines), out)
	}
	for i, l := range lines {
		var got map[string]any
		if err := json.Unmarshal([]byte(l), &got); err != nil {
			t.Fatalf("line %d is not JSON: %v: %s", i+1, err, l)
		}
		if got["names"] != 2.0 || got["done"] != 0.0 || got["operationsLeft"] != 4.0 || got["mode"] != "endpointslices" {
			t.Errorf("line %d: %v", i+1, got)
		}
		if _, ok := got["left"]; ok != (i == 1) {
			t.Errorf("line %d: left present = %v, want it in the last line only", i+1, ok)
		}
	}
}

// TestWatchTerminal: on a terminal each frame is drawn over the last: a
// progress bar, the cursor moved back up over the lines drawn.
func TestWatchTerminal(t *testing.T) {
	c, kube, _ := world("EndpointSlices")
	fakeTime(t, &c, func(n int) { setMode(t, kube, "ExternalName") })
	saved := isTerminal
	isTerminal = func(io.Writer) bool { return true }
	defer func() { isTerminal = saved }()
	code, out, errOut := run(t, c, "status", "--watch", "-n", "default", "--per-namespace")
	if code != 0 {
		t.Fatalf("exit code = %d; stderr: %s", code, errOut)
	}
	want := "\r\x1b[2K[------------------------------] 0/2 names done (route-address-mode=endpointslices), 4 operations left\n" +
		"\r\x1b[2K  default 0/2\n" +
		"\x1b[2A" +
		"\r\x1b[2K[##############################] 2/2 names done (route-address-mode=externalname), 0 operations left, 2.0 writes/s, done\n" +
		"\r\x1b[2K  default 2/2\n"
	if diff := cmp.Diff(want, out); diff != "" {
		t.Errorf("status --watch on a terminal (-want +got):\n%s", diff)
	}
}

// TestWatchRetriesPassingFailures: a read that fails for a passing reason
// is retried after the interval, doubling, with a warning; a refusal ends
// the watch.
func TestWatchRetriesPassingFailures(t *testing.T) {
	c, kube, _ := world("ExternalName")
	var delays []time.Duration
	saved := sleep
	sleep = func(_ context.Context, d time.Duration) error {
		delays = append(delays, d)
		return nil
	}
	t.Cleanup(func() { sleep = saved })
	failures := 2
	kube.PrependReactor("get", "configmaps", func(clientgotesting.Action) (bool, kruntime.Object, error) {
		if failures == 0 {
			return false, nil, nil
		}
		failures--
		return true, nil, apierrs.NewServiceUnavailable("etcd is restarting")
	})
	code, _, errOut := run(t, c, "status", "--watch", "-n", "default")
	if code != 0 || strings.Count(errOut, "warning: ") != 2 || !strings.Contains(errOut, "etcd is restarting; reading again in 4s") {
		t.Errorf("exit %d, stderr %q; want 0 after two warnings", code, errOut)
	}
	if diff := cmp.Diff([]time.Duration{2 * time.Second, 4 * time.Second}, delays); diff != "" {
		t.Error("delays (-want +got):", diff)
	}

	c, kube, _ = world("ExternalName")
	kube.PrependReactor("get", "configmaps", func(clientgotesting.Action) (bool, kruntime.Object, error) {
		return true, nil, apierrs.NewForbidden(schema.GroupResource{Resource: "configmaps"}, "config-network", errors.New("RBAC"))
	})
	if code, _, errOut := run(t, c, "status", "--watch", "-n", "default"); code != 1 || !strings.Contains(errOut, "permission denied") {
		t.Errorf("refused: exit %d, stderr %q; want 1 and permission denied", code, errOut)
	}
}

// TestWatchNotOwned: once the controller has nothing left to do, names held
// by objects their Routes do not control end the watch with ExitNotOwned,
// listed; they do not keep it running to --timeout.
func TestWatchNotOwned(t *testing.T) {
	c, _, _ := world("EndpointSlices")
	fakeTime(t, &c, func(int) {})
	code, out, errOut := run(t, c, "status", "--watch", "-n", "other")
	if code != ExitNotOwned {
		t.Fatalf("exit code = %d, want %d; stdout: %s, stderr: %s", code, ExitNotOwned, out, errOut)
	}
	want := `2026-12-02T19:00:00Z 0/1 names done (route-address-mode=endpointslices), 0 operations left, done, 1 held by objects their Routes do not control
1 names are held by objects their Routes do not control (NotOwned); route-address leaves them alone:
  other/blocked blocked: blocked: Service blocked is not controlled by the Route
`
	if diff := cmp.Diff(want, out); diff != "" {
		t.Error("status --watch (-want +got):", diff)
	}
}

// TestWatchReadsOnce: the objects in scope are listed once and then
// watched, however many times the watch plans them; only the ConfigMaps
// and the gateway Service outside scope are read again.
func TestWatchReadsOnce(t *testing.T) {
	c, kube, serving := world("EndpointSlices")
	fakeTime(t, &c, func(n int) {
		if n == 3 {
			setMode(t, kube, "ExternalName")
		}
	})
	if code, out, errOut := run(t, c, "status", "--watch", "-n", "default"); code != 0 {
		t.Fatalf("exit code = %d; stdout: %s, stderr: %s", code, out, errOut)
	}
	count := func(actions []clientgotesting.Action, verb, resource string) (n int) {
		for _, a := range actions {
			if a.GetVerb() == verb && a.GetResource().Resource == resource {
				n++
			}
		}
		return n
	}
	for _, c := range []struct {
		actions        []clientgotesting.Action
		verb, resource string
		want           int
	}{
		{serving.Actions(), "list", "routes", 1},
		{serving.Actions(), "watch", "routes", 1},
		{kube.Actions(), "list", "services", 1},
		{kube.Actions(), "list", "endpoints", 1},
		{kube.Actions(), "list", "endpointslices", 1},
		// Four plans: config-network and config-domain each time (and
		// config-network once more as the test switches the mode).
		{kube.Actions(), "get", "configmaps", 4*2 + 1},
		// The gateway Service, in kourier-system, once per plan.
		{kube.Actions(), "get", "services", 4},
	} {
		if got := count(c.actions, c.verb, c.resource); got != c.want {
			t.Errorf("%s %s: %d requests, want %d", c.verb, c.resource, got, c.want)
		}
	}
}

// TestNamespaceScopedUser: with -n, Services are read in that namespace,
// and the gateway Service a KIngress names outside it by name: a user who
// may list Services in one namespace only can plan and watch it.
func TestNamespaceScopedUser(t *testing.T) {
	c, kube, _ := world("EndpointSlices")
	fakeTime(t, &c, func(n int) {
		if n == 1 {
			setMode(t, kube, "ExternalName")
		}
	})
	for _, verb := range []string{"list", "watch"} {
		kube.PrependReactor(verb, "*", func(a clientgotesting.Action) (bool, kruntime.Object, error) {
			if ns := a.GetNamespace(); ns != "default" {
				return true, nil, apierrs.NewForbidden(a.GetResource().GroupResource(), "", fmt.Errorf("%s in namespace %q is not allowed", verb, ns))
			}
			return false, nil, nil
		})
	}
	for _, args := range [][]string{
		{"plan", "--mode", "endpointslices", "-n", "default"},
		{"status", "-n", "default"},
		{"status", "--watch", "-n", "default"},
	} {
		if code, out, errOut := run(t, c, args...); code != 0 {
			t.Errorf("%v: exit code = %d; stdout: %s, stderr: %s", args, code, out, errOut)
		}
	}
	code, _, errOut := run(t, c, "status", "--watch", "-A")
	if code != 1 || !strings.Contains(errOut, "permission denied to list") {
		t.Errorf("status --watch -A: exit %d, stderr %q; want 1 and permission denied", code, errOut)
	}
}

// TestNamespaceMode: a Namespace's route-address-mode annotation is the
// mode of its Routes in plan and status; a user who may not read
// Namespaces is warned, once, that it is not seen.
func TestNamespaceMode(t *testing.T) {
	c, kube, _ := world("EndpointSlices")
	if _, err := kube.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name: "other", Annotations: map[string]string{netcfg.RouteAddressModeAnnotationKey: "ExternalName"},
	}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, out, _ := run(t, c, "plan", "--mode", "endpointslices", "-A")
	if want := "Namespaces with a mode of their own (annotation networking.knative.dev/route-address-mode): other=externalname"; !strings.Contains(out, want) {
		t.Errorf("plan -A: stdout %q, want %q", out, want)
	}
	_, out, _ = run(t, c, "plan", "--mode", "endpointslices", "-A", "-o", "json")
	var rep preview.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err, out)
	}
	modes := map[string]netcfg.RouteAddressMode{}
	for _, r := range rep.Routes {
		modes[r.Namespace] = r.Mode
	}
	if want := map[string]netcfg.RouteAddressMode{"default": "endpointslices", "other": "externalname"}; !maps.Equal(modes, want) {
		t.Errorf("plan -A -o json: the Routes' modes by namespace %v, want %v", modes, want)
	}

	for _, verb := range []string{"get", "list"} {
		kube.PrependReactor(verb, "namespaces", func(a clientgotesting.Action) (bool, kruntime.Object, error) {
			return true, nil, apierrs.NewForbidden(a.GetResource().GroupResource(), "", errors.New("RBAC: access denied"))
		})
	}
	code, _, errOut := run(t, c, "plan", "--mode", "endpointslices", "-A")
	if code == 1 || strings.Count(errOut, "Warning: cannot read Namespaces") != 1 {
		t.Errorf("plan -A without Namespaces: exit %d, stderr %q; want one warning that Namespaces cannot be read", code, errOut)
	}
}

// TestInvalidNamespaceAnnotation: a Namespace whose annotation is not a
// mode is listed by plan and status, which exit ExitInvalidAnnotation;
// plan shows its Routes' names that exist as held, with no operation,
// status the configured mode, and status --watch never counts them done.
func TestInvalidNamespaceAnnotation(t *testing.T) {
	c, kube, _ := world("ExternalName")
	if _, err := kube.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name: "default", Annotations: map[string]string{netcfg.RouteAddressModeAnnotationKey: "endpointslice"},
	}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	invalid := `INVALID: Namespace default: annotation networking.knative.dev/route-address-mode="endpointslice" is not a mode`
	code, out, errOut := run(t, c, "plan", "--mode", "endpointslices", "-n", "default")
	if code != ExitInvalidAnnotation || !strings.Contains(out, invalid) || !strings.Contains(out, "HELD: hello is left as it is") {
		t.Errorf("plan: exit %d, stdout %q, stderr %q; want %d, %q and hello held", code, out, errOut, ExitInvalidAnnotation, invalid)
	}
	_, out, _ = run(t, c, "plan", "--mode", "endpointslices", "-n", "default", "-o", "json")
	var rep preview.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err, out)
	}
	if want := []preview.InvalidNamespace{{Namespace: "default", Value: "endpointslice"}}; !reflect.DeepEqual(rep.InvalidNamespaces, want) {
		t.Errorf("plan -o json: invalidNamespaces %v, want %v", rep.InvalidNamespaces, want)
	}
	for _, r := range rep.Routes {
		for _, op := range r.Operations {
			if op.Kind == "Service" && op.Name == r.Route {
				t.Errorf("plan -o json: %s %s %s, want the existing name held", op.Verb, op.Kind, op.Name)
			}
		}
	}
	code, out, _ = run(t, c, "status", "-n", "default")
	if code != ExitInvalidAnnotation || !strings.Contains(out, invalid) || !strings.Contains(out, "default    hello  externalname") {
		t.Errorf("status: exit %d, stdout %q; want %d, %q and the configured mode", code, out, ExitInvalidAnnotation, invalid)
	}
}

// TestWatchTimeoutBeforeFirstRead: --timeout ends the watch while the
// objects in scope cannot be listed (the apiserver failing), and while the
// reads that follow keep failing, with ExitTimeout.
func TestWatchTimeoutBeforeFirstRead(t *testing.T) {
	c, _, serving := world("ExternalName")
	serving.PrependReactor("list", "routes", func(clientgotesting.Action) (bool, kruntime.Object, error) {
		return true, nil, apierrs.NewServiceUnavailable("the apiserver is restarting")
	})
	start := time.Now()
	code, out, _ := run(t, c, "status", "--watch", "-A", "--timeout", "1s")
	if code != ExitTimeout || !strings.Contains(out, "timed out after 1s before the names could be read: the objects in scope were not listed yet") {
		t.Errorf("listing fails: exit %d, stdout %q; want %d and the timeout", code, out, ExitTimeout)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("the watch ended %v after it started, with --timeout 1s", d)
	}

	c, kube, _ := world("ExternalName")
	fakeTime(t, &c, func(int) {})
	kube.PrependReactor("get", "configmaps", func(clientgotesting.Action) (bool, kruntime.Object, error) {
		return true, nil, apierrs.NewServiceUnavailable("etcd is restarting")
	})
	code, out, errOut := run(t, c, "status", "--watch", "-n", "default", "--timeout", "10s")
	if code != ExitTimeout || !strings.Contains(out, "timed out after 10s before the names could be read") || strings.Count(errOut, "reading again in") != 3 {
		t.Errorf("reads fail: exit %d, stdout %q, stderr %q; want %d after three retries (2 s, 4 s, 8 s)", code, out, errOut, ExitTimeout)
	}
}
