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
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clientgotesting "k8s.io/client-go/testing"

	netfake "knative.dev/networking/pkg/client/clientset/versioned/fake"
	servingfake "knative.dev/serving/pkg/client/clientset/versioned/fake"

	"knative.dev/route-address/pkg/preview"
	rt "knative.dev/route-address/pkg/reconciler/routeaddress/testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func cm(name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "knative-serving", Name: name}, Data: data}
}

// world is a cluster where Route default/hello (tag canary) has
// upstream's ExternalName Services for a DomainInternal load balancer and
// an EndpointSlice that claims kube-controller-manager's EndpointSlice
// controller under its name, and Route other/blocked finds somebody else's
// Service under its name.
func world(mode string) (preview.Clients, *kubefake.Clientset, *servingfake.Clientset) {
	hello := rt.Route(true)
	ing := rt.Ingress(hello, rt.DomainInternal(rt.GatewayDomain))
	blocked := rt.Route(false)
	blocked.Namespace, blocked.Name, blocked.UID = "other", "blocked", "blocked-uid"
	ext := func(name string) *corev1.Service {
		return &corev1.Service{
			ObjectMeta: metav1.ObjectMeta{
				Namespace: rt.Namespace, Name: name, Labels: map[string]string{"serving.knative.dev/route": rt.RouteName},
				OwnerReferences: ing.OwnerReferences,
			},
			Spec: corev1.ServiceSpec{
				Type: corev1.ServiceTypeExternalName, ExternalName: rt.GatewayDomain,
				Ports: []corev1.ServicePort{{Name: "http2", Port: 80}},
			},
		}
	}
	kube := kubefake.NewClientset(
		cm("config-network", map[string]string{"route-address-mode": mode}),
		cm("config-domain", map[string]string{"example.com": ""}),
		rt.GatewayService([]string{"10.96.0.10"}),
		ext(rt.RouteName), ext(rt.TagService),
		&corev1.Service{
			ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "blocked"},
			Spec:       corev1.ServiceSpec{Type: corev1.ServiceTypeClusterIP, ClusterIP: "10.96.0.99"},
		},
		&discoveryv1.EndpointSlice{
			ObjectMeta: metav1.ObjectMeta{Namespace: rt.Namespace, Name: "hello-forged", Labels: map[string]string{
				discoveryv1.LabelServiceName: rt.RouteName, discoveryv1.LabelManagedBy: "endpointslice-controller.k8s.io",
			}},
			AddressType: discoveryv1.AddressTypeIPv4,
			Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{"198.51.100.9"}}},
		},
	)
	serving := servingfake.NewSimpleClientset(hello, blocked)
	net := netfake.NewSimpleClientset(ing)
	return preview.Clients{Kube: kube, Serving: serving, Net: net, Server: "https://fake"}, kube, serving
}

func run(t *testing.T, c preview.Clients, args ...string) (int, string, string) {
	t.Helper()
	saved := NewClients
	NewClients = func(flags genericclioptions.RESTClientGetter) (preview.Clients, string, error) {
		// As the real one: the namespace comes from -n, else the context.
		ns, _, err := flags.ToRawKubeConfigLoader().Namespace()
		if err != nil || ns == "" {
			ns = "default"
		}
		return c, ns, nil
	}
	defer func() { NewClients = saved }()
	var out, errOut bytes.Buffer
	code := Main(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := "testdata/" + name + ".golden"
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err, "(run with -update)")
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s (-want +got):\n%s", path, diff)
	}
}

func TestPlanTable(t *testing.T) {
	c, kube, _ := world("ExternalName")
	code, out, errOut := run(t, c, "plan", "--mode", "EndpointSlices", "-A")
	if code != ExitNotOwned {
		t.Errorf("exit code = %d, want %d (a Service the Route does not control holds other/blocked); stderr: %s", code, ExitNotOwned, errOut)
	}
	golden(t, "plan-endpointslices", out)
	for _, a := range kube.Actions() {
		if v := a.GetVerb(); v != "get" && v != "list" {
			t.Errorf("the plugin sent %s %s; it must only read", v, a.GetResource().Resource)
		}
	}
}

func TestPlanOneNamespaceJSON(t *testing.T) {
	c, _, _ := world("ExternalName")
	code, out, errOut := run(t, c, "plan", "--mode", "EndpointsAndSlices", "--externalname-fallback", "disabled", "-n", "default", "-o", "json")
	if code != 0 {
		t.Fatalf("exit code = %d; stderr: %s", code, errOut)
	}
	golden(t, "plan-default-json", out)
}

// TestPlanEndpointsAfterMirroring: in Endpoints mode an ExternalName
// Service turns headless only once kube-controller-manager has mirrored
// the new Endpoints; the plan lists that second step, marked.
func TestPlanEndpointsAfterMirroring(t *testing.T) {
	c, _, _ := world("ExternalName")
	code, out, errOut := run(t, c, "plan", "--mode", "Endpoints", "-n", "default")
	if code != 0 {
		t.Fatalf("exit code = %d; stderr: %s", code, errOut)
	}
	golden(t, "plan-endpoints", out)
}

func TestStatus(t *testing.T) {
	c, _, _ := world("Endpoints")
	code, out, errOut := run(t, c, "status", "-A")
	if code != 0 {
		t.Fatalf("exit code = %d; stderr: %s", code, errOut)
	}
	golden(t, "status", out)
}

func TestErrors(t *testing.T) {
	routes := schema.GroupResource{Group: "serving.knative.dev", Resource: "routes"}
	for _, tc := range []struct {
		name    string
		args    []string
		react   func(*servingfake.Clientset)
		wantErr string
	}{{
		name:    "bad mode",
		args:    []string{"plan", "--mode", "Slices"},
		wantErr: `bad flag: --mode "Slices", allowed values are externalname, endpoints, endpointslices, endpointsandslices`,
	}, {
		name:    "bad fallback",
		args:    []string{"plan", "--mode", "Endpoints", "--externalname-fallback", "yes"},
		wantErr: `bad flag: --externalname-fallback "yes", allowed values are enabled, disabled`,
	}, {
		name:    "mode missing",
		args:    []string{"plan"},
		wantErr: "--mode is required",
	}, {
		name:    "bad output",
		args:    []string{"status", "-o", "wide"},
		wantErr: `unable to match a printer suitable for the output format "wide", allowed formats are: json,yaml,name` + "\nSee 'kubectl route-address status --help' for usage.",
	}, {
		name:    "an output cleanup cannot print",
		args:    []string{"cleanup", "-o", "name"},
		wantErr: `allowed formats are: json,yaml`,
	}, {
		name:    "--watch prints a table or JSON lines",
		args:    []string{"status", "--watch", "-o", "yaml"},
		wantErr: `--watch: unable to match a printer suitable for the output format "yaml", allowed formats are: json`,
	}, {
		name:    "a watch interval of zero",
		args:    []string{"status", "--watch", "--interval", "0s"},
		wantErr: "--interval must be greater than 0, not 0s",
	}, {
		name:    "a negative watch interval",
		args:    []string{"status", "--watch", "--interval", "-5s"},
		wantErr: "--interval must be greater than 0, not -5s",
	}, {
		name:    "a negative timeout",
		args:    []string{"status", "--watch", "--timeout", "-1m"},
		wantErr: "--timeout must be 0 (never) or greater, not -1m0s",
	}, {
		name:    "a dry run kubectl does not know",
		args:    []string{"cleanup", "--dry-run=true"},
		wantErr: `Invalid dry-run value (true). Must be "none", "server", or "client".` + "\nSee 'kubectl route-address cleanup --help' for usage.",
	}, {
		name:    "unknown flag",
		args:    []string{"plan", "--mode", "endpoints", "--bogus"},
		wantErr: "unknown flag: --bogus\nSee 'kubectl route-address plan --help' for usage.",
	}, {
		name:    "an argument a command does not take",
		args:    []string{"status", "hello"},
		wantErr: `unknown command "hello" for "kubectl route-address status"` + "\nSee 'kubectl route-address status --help' for usage.",
	}, {
		name:    "unknown command",
		args:    []string{"apply"},
		wantErr: `unknown command "apply" for "kubectl route-address"` + "\nSee 'kubectl route-address --help' for usage.",
	}, {
		name: "no Knative CRDs",
		args: []string{"status", "-A"},
		react: func(s *servingfake.Clientset) {
			s.PrependReactor("list", "routes", func(clientgotesting.Action) (bool, kruntime.Object, error) {
				return true, nil, apierrs.NewNotFound(routes, "")
			})
		},
		wantErr: "Knative Serving is not installed: the routes.serving.knative.dev resource does not exist on https://fake",
	}, {
		name: "no permission",
		args: []string{"status", "-A"},
		react: func(s *servingfake.Clientset) {
			s.PrependReactor("list", "routes", func(clientgotesting.Action) (bool, kruntime.Object, error) {
				return true, nil, apierrs.NewForbidden(routes, "", errors.New("RBAC: access denied"))
			})
		},
		wantErr: "permission denied to list Routes",
	}, {
		name: "no cluster",
		args: []string{"plan", "--mode", "Endpoints", "-A"},
		react: func(s *servingfake.Clientset) {
			s.PrependReactor("list", "routes", func(clientgotesting.Action) (bool, kruntime.Object, error) {
				return true, nil, &url.Error{Op: "Get", URL: "https://fake/apis", Err: errors.New("connection refused")}
			})
		},
		wantErr: "cannot reach the cluster at https://fake",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			c, _, serving := world("ExternalName")
			if tc.react != nil {
				tc.react(serving)
			}
			code, _, errOut := run(t, c, tc.args...)
			if code != 1 || !strings.Contains(errOut, tc.wantErr) {
				t.Errorf("exit %d, stderr %q; want 1 and %q", code, errOut, tc.wantErr)
			}
		})
	}
}

// TestHelpAndKubectlFlags: --help exits 0 for every command and lists
// kubectl's standard flags (k8s.io/cli-runtime's), which the commands
// accept and hand to the client configuration.
func TestHelpAndKubectlFlags(t *testing.T) {
	c, _, _ := world("ExternalName")
	for _, args := range [][]string{{"--help"}, {"plan", "--help"}, {"status", "--help"}, {"cleanup", "--help"}, {"version", "--help"}, {"help", "plan"}} {
		code, out, errOut := run(t, c, args...)
		if code != 0 {
			t.Errorf("%v: exit %d, stderr %q; want 0", args, code, errOut)
		}
		if !strings.Contains(out, "Examples:\n  ") {
			t.Errorf("%v: help has no examples:\n%s", args, out)
		}
		for _, f := range []string{"--kubeconfig", "--context", "-n, --namespace", "--as ", "--request-timeout", "-A, --all-namespaces", "-o, --output"} {
			if args[0] != "--help" && !strings.Contains(out, f) {
				t.Errorf("%v: help does not list %s:\n%s", args, f, out)
			}
		}
	}

	var got *genericclioptions.ConfigFlags
	saved := NewClients
	NewClients = func(flags genericclioptions.RESTClientGetter) (preview.Clients, string, error) {
		got = flags.(*genericclioptions.ConfigFlags)
		return c, "other", nil
	}
	defer func() { NewClients = saved }()
	var out, errOut bytes.Buffer
	code := Main(context.Background(), []string{
		"status", "-n", "other", "--context", "prod", "--as", "alice",
		"--request-timeout", "5s", "--kubeconfig", "/tmp/kc",
	}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
	if *got.Namespace != "other" || *got.Context != "prod" || *got.Impersonate != "alice" || *got.Timeout != "5s" || *got.KubeConfig != "/tmp/kc" {
		t.Errorf("flags = ns %q context %q as %q timeout %q kubeconfig %q", *got.Namespace, *got.Context, *got.Impersonate, *got.Timeout, *got.KubeConfig)
	}
}

// controllerObjects are serving's controller Deployment (replicas, of
// which updated run the current template) and, when leaseAge >= 0, the
// routeaddress reconciler's lease renewed leaseAge ago (duration 15 s).
func controllerObjects(replicas, updated int32, leaseAge time.Duration, now time.Time) []kruntime.Object {
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "knative-serving", Name: "controller", Generation: 2},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas, Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "controller", Image: "registry.example/route-address/controller@sha256:1"}},
		}}},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: replicas, UpdatedReplicas: updated, AvailableReplicas: replicas},
	}
	out := []kruntime.Object{dep}
	if leaseAge >= 0 {
		holder, d := "controller-7d9f_1234", int32(15)
		out = append(out, &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Namespace: "knative-serving", Name: "controller.knative.dev.route-address.pkg.reconciler.routeaddress.reconciler.00-of-01"},
			Spec: coordinationv1.LeaseSpec{
				HolderIdentity: &holder, LeaseDurationSeconds: &d,
				RenewTime: &metav1.MicroTime{Time: now.Add(-leaseAge)},
			},
		})
	}
	return out
}

// TestSwitchRefusedWhileAnOldControllerRuns: plan exits 2 (BLOCKED) for a
// switch while serving's controller Deployment is rolling out or no
// route-address controller holds its lease; status says which, and what a
// rollback would leave behind.
func TestSwitchRefusedWhileAnOldControllerRuns(t *testing.T) {
	now := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		objs     []kruntime.Object
		wantCode int
		wantOut  string
	}{{
		name:     "rollout complete, route-address leads",
		objs:     controllerObjects(2, 2, 3*time.Second, now),
		wantCode: 0,
		wantOut:  "route-address: running (leader controller-7d9f_1234)",
	}, {
		name:     "rolling out: an old pod may lead the route reconciler",
		objs:     controllerObjects(2, 1, 3*time.Second, now),
		wantCode: ExitBlocked,
		wantOut:  "BLOCKED: switching route-address-mode now is not safe: Deployment knative-serving/controller is rolling out (1 of 2 replicas updated)",
	}, {
		name:     "no route-address controller (stale lease)",
		objs:     controllerObjects(2, 2, time.Minute, now),
		wantCode: ExitBlocked,
		wantOut:  "BLOCKED: switching route-address-mode now is not safe: no route-address controller runs",
	}, {
		name:     "no lease at all (the stock image)",
		objs:     controllerObjects(1, 1, -1, now),
		wantCode: ExitBlocked,
		wantOut:  "no route-address controller runs",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			c, kube, _ := world("ExternalName")
			for _, o := range tc.objs {
				if err := kube.Tracker().Add(o); err != nil {
					t.Fatal(err)
				}
			}
			c.Now = func() time.Time { return now }
			code, out, errOut := run(t, c, "plan", "--mode", "EndpointSlices", "-n", "default")
			if code != tc.wantCode || !strings.Contains(out, tc.wantOut) {
				t.Errorf("plan: exit %d (stderr %q), want %d; output lacks %q:\n%s", code, errOut, tc.wantCode, tc.wantOut, out)
			}
			// The same mode as configured is no switch: never blocked by this.
			if code, out, _ := run(t, c, "plan", "--mode", "ExternalName", "-n", "default"); code != 0 || strings.Contains(out, "BLOCKED") {
				t.Errorf("plan for the configured mode: exit %d:\n%s", code, out)
			}
			code, out, _ = run(t, c, "status", "-n", "default")
			if code != 0 || !strings.Contains(out, "controller: registry.example/route-address/controller@sha256:1") {
				t.Errorf("status: exit %d:\n%s", code, out)
			}
		})
	}
}

// TestStatusListsWhatARollbackLeaves: our slices and marked Endpoints are
// listed; upstream's Endpoints are not.
func TestStatusListsWhatARollbackLeaves(t *testing.T) {
	c, kube, _ := world("EndpointsAndSlices")
	for _, o := range []kruntime.Object{
		&discoveryv1.EndpointSlice{
			ObjectMeta: metav1.ObjectMeta{
				Namespace: "default", Name: "hello-ipv4",
				Labels: map[string]string{discoveryv1.LabelManagedBy: "routeaddress-controller.knative.dev", discoveryv1.LabelServiceName: "hello"},
			},
			AddressType: discoveryv1.AddressTypeIPv4,
		},
		&corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{
			Namespace: "default", Name: "hello",
			Labels: map[string]string{"serving.knative.dev/route-address": "routeaddress-controller.knative.dev"},
		}},
		&corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "upstreams"}},
	} {
		if err := kube.Tracker().Add(o); err != nil {
			t.Fatal(err)
		}
	}
	code, out, _ := run(t, c, "status", "-n", "default")
	want := "a rollback to the stock controller would leave 2 objects of route-address's behind (switch to ExternalName and wait until this list is empty first):\n  EndpointSlice default/hello-ipv4\n  Endpoints default/hello\n"
	if code != 0 || !strings.Contains(out, want) {
		t.Errorf("status: exit %d, want it to contain\n%s\ngot:\n%s", code, want, out)
	}
}

// TestCleanup: with no route-address controller running, the marks come
// off our Endpoints and our slices go where something else serves the
// name; a headless Service with nothing else keeps its slice. With
// route-address running, cleanup refuses and writes nothing.
func TestCleanup(t *testing.T) {
	ours := func(name, svc string) *discoveryv1.EndpointSlice {
		return &discoveryv1.EndpointSlice{
			ObjectMeta: metav1.ObjectMeta{
				Namespace: "default", Name: name, UID: types.UID(name),
				Labels: map[string]string{discoveryv1.LabelManagedBy: "routeaddress-controller.knative.dev", discoveryv1.LabelServiceName: svc},
			},
			AddressType: discoveryv1.AddressTypeIPv4,
		}
	}
	headless := func(name string) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}, Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone}}
	}
	objs := []kruntime.Object{
		// byip: upstream keeps the headless Service and our marked
		// Endpoints; kube-controller-manager has mirrored them.
		headless("byip"), ours("byip-ipv4", "byip"),
		&corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "byip", Labels: map[string]string{
			"serving.knative.dev/route-address": "routeaddress-controller.knative.dev", discoveryv1.LabelSkipMirror: "true", "app": "x",
		}}},
		&discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "byip-abcde", Labels: map[string]string{
			discoveryv1.LabelManagedBy: "endpointslicemirroring-controller.k8s.io", discoveryv1.LabelServiceName: "byip",
		}}},
		// internal: upstream made it ExternalName.
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "internal"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "gw.example"}},
		ours("internal-ipv4", "internal"),
		// lonely: headless and nothing else serves it.
		headless("lonely"), ours("lonely-ipv4", "lonely"),
	}
	now := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)

	c, kube, _ := world("EndpointsAndSlices")
	for _, o := range append(objs, controllerObjects(1, 1, 3*time.Second, now)...) {
		if err := kube.Tracker().Add(o); err != nil {
			t.Fatal(err)
		}
	}
	c.Now = func() time.Time { return now }
	code, _, errOut := run(t, c, "cleanup", "-n", "default")
	if code != 1 || !strings.Contains(errOut, "route-address runs (lease held by controller-7d9f_1234)") {
		t.Errorf("cleanup with route-address running: exit %d, stderr %q", code, errOut)
	}
	for _, a := range kube.Actions() {
		if a.GetVerb() != "get" && a.GetVerb() != "list" {
			t.Errorf("cleanup wrote while route-address runs: %s %s", a.GetVerb(), a.GetResource().Resource)
		}
	}

	c, kube, _ = world("EndpointsAndSlices")
	for _, o := range append(objs, controllerObjects(1, 1, -1, now)...) {
		if err := kube.Tracker().Add(o); err != nil {
			t.Fatal(err)
		}
	}
	c.Now = func() time.Time { return now }
	code, out, errOut := run(t, c, "cleanup", "-n", "default", "--wait", "1s")
	want := `3 changes done:
  Endpoints default/byip: labels serving.knative.dev/route-address and endpointslice.kubernetes.io/skip-mirror removed
  EndpointSlice default/byip-ipv4: deleted (the Endpoints upstream keeps are mirrored)
  EndpointSlice default/internal-ipv4: deleted (its Service is ExternalName)
1 objects kept:
  EndpointSlice default/lonely-ipv4: kept, its headless Service has no Endpoints: nothing else would serve the name
`
	if code != 0 || out != want {
		t.Errorf("cleanup: exit %d (stderr %q), got:\n%s\nwant:\n%s", code, errOut, out, want)
	}
	ep, err := kube.CoreV1().Endpoints("default").Get(context.Background(), "byip", metav1.GetOptions{})
	if err != nil || fmt.Sprint(ep.Labels) != "map[app:x]" {
		t.Errorf("Endpoints byip labels = %v (%v), want only app=x", ep.Labels, err)
	}
	l, _ := kube.DiscoveryV1().EndpointSlices("default").List(context.Background(), metav1.ListOptions{})
	var left []string
	for _, s := range l.Items {
		left = append(left, s.Name)
	}
	// world's foreign slice is not route-address's: it stays.
	if got := strings.Join(left, " "); got != "byip-abcde hello-forged lonely-ipv4" {
		t.Errorf("slices left: %s, want byip-abcde hello-forged lonely-ipv4", got)
	}
}

// TestOutputs: -o json, yaml and name, as kubectl prints them.
func TestOutputs(t *testing.T) {
	c, _, _ := world("ExternalName")
	for _, tc := range []struct {
		args []string
		code int
		want func(string) bool
		what string
	}{
		{
			[]string{"plan", "--mode", "endpointslices", "-A", "-o", "name"},
			ExitNotOwned,
			func(out string) bool { return out == "route.serving.knative.dev/hello\n" }, "the Route the switch writes to",
		},
		{
			[]string{"plan", "--mode", "endpointslices", "-n", "default", "-o", "yaml"},
			0,
			func(out string) bool {
				return strings.HasPrefix(out, "controller:") && strings.Contains(out, "\nmode: endpointslices\n")
			}, "the plan as YAML",
		},
		{
			[]string{"status", "-A", "-o", "name"},
			0,
			func(out string) bool {
				return out == "route.serving.knative.dev/hello\nroute.serving.knative.dev/blocked\n"
			}, "the Routes in scope",
		},
		{
			[]string{"status", "-o", "yaml"},
			0,
			func(out string) bool { return strings.Contains(out, "\nmode: externalname\n") }, "the status as YAML",
		},
		{
			[]string{"version"},
			0,
			func(out string) bool {
				return strings.HasPrefix(out, "kubectl-route_address ") && strings.Contains(out, runtime.Version())
			}, "the version",
		},
		{
			[]string{"version", "-o", "json"},
			0,
			func(out string) bool {
				var v versionInfo
				return json.Unmarshal([]byte(out), &v) == nil && v.GitVersion != "" && v.GoVersion == runtime.Version()
			}, "the version as JSON",
		},
	} {
		code, out, errOut := run(t, c, tc.args...)
		if code != tc.code || !tc.want(out) {
			t.Errorf("%v: exit %d (stderr %q), stdout:\n%s\nwant exit %d and %s", tc.args, code, errOut, out, tc.code, tc.what)
		}
	}
}

// TestRequestTimeoutNamesTheFlag: a bad kubectl flag value is reported as
// itself, not as a missing cluster.
func TestRequestTimeoutNamesTheFlag(t *testing.T) {
	kc := t.TempDir() + "/kubeconfig"
	if err := os.WriteFile(kc, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]
contexts: [{name: c, context: {cluster: c, user: u}}]
users: [{name: u, user: {token: t}}]
current-context: c
`), 0o600); err != nil {
		t.Fatal(err)
	}
	flags := genericclioptions.NewConfigFlags(true)
	*flags.KubeConfig, *flags.Timeout = kc, "bogus"
	_, _, err := NewClients(flags)
	if err == nil || strings.Contains(err.Error(), "no cluster configured") || !strings.Contains(err.Error(), "timeout") {
		t.Errorf("NewClients(--request-timeout bogus) = %v, want the timeout named and no \"no cluster configured\"", err)
	}
}

// TestCleanupDryRuns: --dry-run (client), =client and =server write
// nothing stored; server sends each write with dryRun All.
func TestCleanupDryRuns(t *testing.T) {
	now := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	marked := &corev1.Endpoints{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "byip", Labels: map[string]string{
		"serving.knative.dev/route-address": "routeaddress-controller.knative.dev",
	}}}
	slice := &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{
		Namespace: "default", Name: "gone-ipv4", UID: "gone-ipv4",
		Labels: map[string]string{discoveryv1.LabelManagedBy: "routeaddress-controller.knative.dev", discoveryv1.LabelServiceName: "gone"},
	}, AddressType: discoveryv1.AddressTypeIPv4}
	for _, tc := range []struct {
		flag   string
		writes []string
		verb   string
	}{
		{"--dry-run", nil, "would be done (dry run)"},
		{"--dry-run=client", nil, "would be done (dry run)"},
		{"--dry-run=server", []string{"update endpoints [All]", "delete endpointslices [All]"}, "accepted by the apiserver (server dry run, nothing stored)"},
		{"--dry-run=none", []string{"update endpoints []", "delete endpointslices []"}, "done"},
	} {
		c, kube, _ := world("EndpointsAndSlices")
		for _, o := range append([]kruntime.Object{marked, slice}, controllerObjects(1, 1, -1, now)...) {
			if err := kube.Tracker().Add(o); err != nil {
				t.Fatal(err)
			}
		}
		c.Now = func() time.Time { return now }
		code, out, errOut := run(t, c, "cleanup", "-n", "default", tc.flag)
		if code != 0 || !strings.HasPrefix(out, "2 changes "+tc.verb+":") {
			t.Errorf("cleanup %s: exit %d (stderr %q), stdout:\n%s", tc.flag, code, errOut, out)
		}
		var writes []string
		for _, a := range kube.Actions() {
			switch a := a.(type) {
			case clientgotesting.UpdateActionImpl:
				writes = append(writes, fmt.Sprintf("update %s %v", a.GetResource().Resource, a.UpdateOptions.DryRun))
			case clientgotesting.DeleteActionImpl:
				writes = append(writes, fmt.Sprintf("delete %s %v", a.GetResource().Resource, a.DeleteOptions.DryRun))
			}
		}
		if diff := cmp.Diff(tc.writes, writes); diff != "" {
			t.Errorf("cleanup %s: writes (-want +got): %s", tc.flag, diff)
		}
	}
}
