//go:build e2e && node

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
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"
	v1 "knative.dev/serving/pkg/apis/serving/v1"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/test/cluster"
)

// TestNodeServing installs serving on a real node as a release built with
// the pull requests is installed (its own config/core, images built by ko
// in that tree) and runs Knative Services there: serving's controller,
// webhook, activator and autoscaler are pods, each app is a revision's pod
// behind queue-proxy, and the gateways are Skipper pods routing the
// KIngresses' hosts (startIngress). A client pod resolves the Route's
// cluster-local name through the cluster's DNS and gets the app's answer
// through the internal Skipper and kube-proxy, in externalname and in
// endpointsandslices; with the mode set, the revision scales to zero and
// the next request brings it back through the activator; and serving's own
// e2e test of the mode (test/e2e/routeaddress, serving's harness) passes
// against this cluster.
func TestNodeServing(t *testing.T) {
	needLocal(t)
	stopController()
	t.Cleanup(func() {
		// The pods' leases, which nothing releases (their pods are deleted
		// at once), or the suite's controller would wait for them to
		// expire before it reconciles anything.
		if err := env.kube.CoordinationV1().Leases(cluster.SystemNamespace).DeleteCollection(bg(), metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
			t.Error(err)
		}
		if err := startController(); err != nil {
			t.Error(err)
		}
	})
	n, err := cluster.StartNode(bg(), env.local)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Close)
	start := time.Now()
	if err := n.InstallServing(bg(), "../../hack/build-serving.sh"); err != nil {
		t.Fatal(err)
	}
	t.Logf("serving built with ko and up as pods in %s", time.Since(start).Round(time.Second))
	images := map[string]string{}
	for name, pkg := range map[string]string{"hello": "knative.dev/route-address/test/cmd/hello", "fetch": "knative.dev/route-address/test/cmd/fetch"} {
		if images[name], err = n.Image(bg(), name, pkg); err != nil {
			t.Fatal(err)
		}
	}
	// The binary TestSkipper runs.
	if images["skipper"], err = n.ImageOf(bg(), "skipper", cluster.Binary("skipper")); err != nil {
		t.Fatal(err)
	}
	patchConfigMap(t, "config-autoscaler", map[string]string{"stable-window": "6s", "scale-to-zero-grace-period": "6s"})
	gw := startIngress(t, n, images["skipper"])

	ns := nodeNamespace(t, "ksvc")
	if _, err := env.serving.ServingV1().Services(ns).Create(bg(), &v1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "hello", Labels: map[string]string{"networking.knative.dev/visibility": "cluster-local"}},
		Spec: v1.ServiceSpec{ConfigurationSpec: v1.ConfigurationSpec{Template: v1.RevisionTemplateSpec{
			Spec: v1.RevisionSpec{PodSpec: corev1.PodSpec{Containers: []corev1.Container{{Image: images["hello"]}}}},
		}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventuallyWithin(t, 3*time.Minute, "the Knative Service ready", func() error {
		ks, err := env.serving.ServingV1().Services(ns).Get(bg(), "hello", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if !ks.IsReady() {
			return fmt.Errorf("conditions %+v; pods: %s", ks.Status.Conditions, describePods(ns))
		}
		return nil
	})

	name := "hello." + ns + ".svc.cluster.local"
	// The internal gateway's addresses, each answering.
	addrs := fmt.Sprintf("A=%s%s", strings.Join(gw.internalIPs, ","),
		strings.Repeat(fmt.Sprintf(" HTTP=200 %q", "hello from hello-00001"), len(gw.internalIPs)))
	for _, mode := range []netcfg.RouteAddressMode{netcfg.RouteAddressModeExternalName, netcfg.RouteAddressModeEndpointsAndSlices} {
		setMode(t, mode, netcfg.RouteAddressFallbackEnabled)
		want := fmt.Sprintf("%s CNAME=%s %s", name, gw.internalName, addrs)
		if mode == netcfg.RouteAddressModeEndpointsAndSlices {
			want = fmt.Sprintf("%s %s", name, addrs)
		}
		eventually(t, "hello's name in "+string(mode), func() error {
			s, err := observe(ns, "hello")
			if err != nil {
				return err
			}
			if headless := mode == netcfg.RouteAddressModeEndpointsAndSlices; s.Headless != headless || (headless && len(s.Slices) == 0) {
				return fmt.Errorf("%+v", s)
			}
			return nil
		})
		if got := runFetch(t, ns, images["fetch"], name)[0]; got != want {
			t.Errorf("%s: the client pod saw\n  %s\nwant\n  %s", mode, got, want)
		} else {
			t.Logf("%s: %s", mode, got)
		}
	}

	// Scale to zero and back, in endpointsandslices.
	eventuallyWithin(t, 2*time.Minute, "the revision scaled to zero", func() error {
		pods, err := env.kube.CoreV1().Pods(ns).List(bg(), metav1.ListOptions{LabelSelector: "serving.knative.dev/revision=hello-00001"})
		if err != nil {
			return err
		}
		if len(pods.Items) > 0 {
			return fmt.Errorf("%d pods: %s", len(pods.Items), describePods(ns))
		}
		return nil
	})
	want := fmt.Sprintf("%s %s", name, addrs)
	if got := runFetch(t, ns, images["fetch"], name)[0]; got != want {
		t.Errorf("from zero: the client pod saw\n  %s\nwant\n  %s", got, want)
	} else {
		t.Logf("from zero, through the activator: %s", got)
	}

	servingE2E(t, n, gw)
}

// servingE2E runs serving's own e2e test of the mode (test/e2e/routeaddress
// in the tree the images were built from, with serving's harness) against
// the cluster, in endpointsandslices: its images (serving's helloworld and
// httpproxy test images) pushed to the node's registry by tag, as
// serving's upload-test-images.sh pushes them, and skipped by the
// revisions' tag resolution (the registry is on the host's loopback, which
// serving's controller pod does not reach); public Routes under
// example.com; requests from outside go to
// the external Skipper's load balancer (GATEWAY_OVERRIDE and
// GATEWAY_NAMESPACE_OVERRIDE, as net-kourier's e2e tests name theirs).
func servingE2E(t *testing.T, n *cluster.Node, gw gateways) {
	// A tree whose go.mod holds the series' networking, which the
	// generated tree's does not (hack/build-serving.sh builds that one
	// through a copy of go.mod).
	tree := os.Getenv("SERVING_TREE")
	if tree == "" {
		t.Fatal("serving's e2e test builds in SERVING_TREE: set it to hack/verify-upstream.sh's tree, .cache/upstream/verify/serving (as hack/test.sh does)")
	}
	for _, img := range []string{"helloworld", "httpproxy"} {
		if _, err := n.Image(bg(), "serving-test/"+img, "knative.dev/serving/test/test_images/"+img, tree); err != nil {
			t.Fatal(err)
		}
	}
	patchConfigMap(t, "config-deployment", map[string]string{"registries-skipping-tag-resolving": n.Registry})
	// A domain for public Routes (serving's default is svc.cluster.local,
	// which makes every Route cluster-local), as serving's e2e setup sets.
	patchConfigMap(t, "config-domain", map[string]string{"example.com": ""})
	// The namespace serving's e2e tests run in (their -test-namespace).
	if _, err := env.kube.CoreV1().Namespaces().Create(bg(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "serving-tests"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.kube.CoreV1().Namespaces().Delete(bg(), "serving-tests", metav1.DeleteOptions{}) })
	defaultServiceAccount(t, "serving-tests")
	setMode(t, netcfg.RouteAddressModeEndpointsAndSlices, netcfg.RouteAddressFallbackEnabled)
	cmd := exec.Command("go", "test", "-count=1", "-tags", "e2e", "-timeout", "10m", "-v", "-run", "^TestRouteAddress$", "./test/e2e/routeaddress/",
		"--kubeconfig", env.local.Kubeconfig, "--dockerrepo", n.Registry+"/serving-test", "--disable-logstream")
	cmd.Dir = tree
	cmd.Env = append(os.Environ(), "GATEWAY_OVERRIDE=external", "GATEWAY_NAMESPACE_OVERRIDE="+gw.namespace)
	out, err := cmd.CombinedOutput()
	t.Logf("serving's test/e2e/routeaddress:\n%s", out)
	if err != nil {
		t.Fatalf("serving's TestRouteAddress: %v", err)
	}
	if !strings.Contains(string(out), "--- PASS: TestRouteAddress") {
		t.Fatal("serving's TestRouteAddress did not pass (skipped?)")
	}
}

// nodeNamespace is namespace's, once kube-controller-manager has made its
// default ServiceAccount, which a pod needs to be admitted.
func nodeNamespace(t *testing.T, prefix string) string {
	t.Helper()
	ns := namespace(t, prefix)
	defaultServiceAccount(t, ns)
	return ns
}

// defaultServiceAccount waits for the default ServiceAccount of ns.
func defaultServiceAccount(t *testing.T, ns string) {
	t.Helper()
	eventually(t, "the default ServiceAccount of "+ns, func() error {
		_, err := env.kube.CoreV1().ServiceAccounts(ns).Get(bg(), "default", metav1.GetOptions{})
		return err
	})
}

// patchConfigMap merges data into serving's ConfigMap name, and puts its
// data back when the test ends.
func patchConfigMap(t *testing.T, name string, data map[string]string) {
	t.Helper()
	cms := env.kube.CoreV1().ConfigMaps(cluster.SystemNamespace)
	cm, err := cms.Get(bg(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	old := cm.Data
	cm.Data = maps.Clone(old)
	if cm.Data == nil {
		cm.Data = map[string]string{}
	}
	maps.Copy(cm.Data, data)
	if _, err := cms.Update(bg(), cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cm, err := cms.Get(bg(), name, metav1.GetOptions{})
		if err == nil {
			cm.Data = old
			_, err = cms.Update(bg(), cm, metav1.UpdateOptions{})
		}
		if err != nil {
			t.Errorf("putting %s back: %v", name, err)
		}
	})
}

// gateways are the two Skipper Services startIngress runs.
type gateways struct {
	namespace, internalName string
	// internalIPs are the internal gateway's ClusterIPs (both families),
	// sorted as the client pod sorts them.
	internalIPs []string
}

// startIngress plays the part of a KIngress implementation the node's tests
// need, with Skipper pods as its gateways, as net-kourier has two: the
// internal one routes every rule's hosts, the external one the rules of
// visibility ExternalIP only. The test process serves each gateway's routes
// (every KIngress of the cluster, as eskip) on the node's address, which
// Skipper polls every half second, and marks each KIngress ready for its
// generation, with the internal gateway's Service as its private load
// balancer and the external one's as its public one, once both gateways
// have fetched their routes for that generation twice (Skipper applies a
// fetch before it polls again: a KIngress is ready when its routes are
// served, as a real implementation reports it), until the test ends.
func startIngress(t *testing.T, n *cluster.Node, image string) gateways {
	t.Helper()
	l, err := net.Listen("tcp", net.JoinHostPort(n.Host, "0"))
	if err != nil {
		t.Fatal(err)
	}
	f := fetched{}
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ings, err := env.net.NetworkingV1alpha1().Ingresses("").List(r.Context(), metav1.ListOptions{})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		fmt.Fprint(w, skipperRoutes(ings.Items, r.URL.Path == "/external"))
		f.record(r.URL.Path, ings.Items)
	})}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })

	ns := nodeNamespace(t, "gateways")
	var gw gateways
	gw.internalName = "internal." + ns + ".svc.cluster.local"
	gw.namespace = ns
	gw.internalIPs = skipperDeployment(t, ns, "internal", image, "http://"+l.Addr().String()+"/internal", corev1.ServiceTypeClusterIP)
	skipperDeployment(t, ns, "external", image, "http://"+l.Addr().String()+"/external", corev1.ServiceTypeLoadBalancer)
	private := []netv1alpha1.LoadBalancerIngressStatus{internalEntry(gw.internalName)}
	public := []netv1alpha1.LoadBalancerIngressStatus{internalEntry("external." + ns + ".svc.cluster.local")}

	stop := make(chan struct{})
	done := make(chan struct{})
	t.Cleanup(func() { close(stop); <-done })
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			case <-time.After(500 * time.Millisecond):
			}
			ings, err := env.net.NetworkingV1alpha1().Ingresses("").List(bg(), metav1.ListOptions{})
			if err != nil {
				continue
			}
			for _, ing := range ings.Items {
				if (ing.Status.ObservedGeneration == ing.Generation && ing.IsReady()) ||
					!f.served("/internal", &ing) || !f.served("/external", &ing) {
					continue
				}
				ing.Status.ObservedGeneration = ing.Generation
				ing.Status.MarkNetworkConfigured()
				ing.Status.MarkLoadBalancerReady(public, private)
				_, _ = env.net.NetworkingV1alpha1().Ingresses(ing.Namespace).UpdateStatus(bg(), &ing, metav1.UpdateOptions{})
			}
		}
	}()
	return gw
}

// fetched counts, per gateway's routes path and KIngress, how many fetches
// in a row served the KIngress at its generation.
type fetched struct {
	mu sync.Mutex
	by map[string]map[types.NamespacedName]fetches
}

type fetches struct {
	generation int64
	n          int
}

func (f *fetched) record(path string, ings []netv1alpha1.Ingress) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.by == nil {
		f.by = map[string]map[types.NamespacedName]fetches{}
	}
	was := f.by[path]
	now := make(map[types.NamespacedName]fetches, len(ings))
	for _, ing := range ings {
		key := types.NamespacedName{Namespace: ing.Namespace, Name: ing.Name}
		e := fetches{generation: ing.Generation, n: 1}
		if w, ok := was[key]; ok && w.generation == ing.Generation {
			e.n = w.n + 1
		}
		now[key] = e
	}
	f.by[path] = now
}

// served reports whether the gateway whose routes are at path fetched ing
// at its generation twice in a row, so has applied the first.
func (f *fetched) served(path string, ing *netv1alpha1.Ingress) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	e, ok := f.by[path][types.NamespacedName{Namespace: ing.Namespace, Name: ing.Name}]
	return ok && e.generation == ing.Generation && e.n >= 2
}

// skipperRoutes are the KIngresses' rules as Skipper routes (external: the
// rules of visibility ExternalIP only): each host to its path's first
// split, a revision's Service by its cluster-local name (through
// kube-proxy), with the headers the KIngress appends (the activator routes
// on them).
func skipperRoutes(ings []netv1alpha1.Ingress, external bool) string {
	var b strings.Builder
	for x, ing := range ings {
		for i, r := range ing.Spec.Rules {
			if external && r.Visibility != netv1alpha1.IngressVisibilityExternalIP || r.HTTP == nil || len(r.HTTP.Paths) == 0 || len(r.HTTP.Paths[0].Splits) == 0 {
				continue
			}
			p := r.HTTP.Paths[0]
			s := p.Splits[0]
			headers := maps.Clone(p.AppendHeaders)
			if headers == nil {
				headers = map[string]string{}
			}
			maps.Copy(headers, s.AppendHeaders)
			var filters string
			for _, k := range slices.Sorted(maps.Keys(headers)) {
				filters += fmt.Sprintf("setRequestHeader(%q, %q) -> ", k, headers[k])
			}
			for j, h := range r.Hosts {
				fmt.Fprintf(&b, "r%d_%d_%d: Host(/^%s(:[0-9]+)?$/) -> %s\"http://%s.%s.svc.cluster.local:%s\";\n",
					x, i, j, regexp.QuoteMeta(h), filters, s.ServiceName, s.ServiceNamespace, s.ServicePort.String())
			}
		}
	}
	return b.String()
}

// skipperDeployment runs Skipper as the Deployment name of one pod, polling
// its routes from routes, behind the dual-stack Service name of type typ on
// port 80, and returns the Service's ClusterIPs, sorted, once the pod is
// ready. A LoadBalancer's status gets the IPv4 ClusterIP as its address
// (the node has no cloud load balancer; the ClusterIP is reached from the
// host through kube-proxy).
func skipperDeployment(t *testing.T, ns, name, image, routes string, typ corev1.ServiceType) []string {
	t.Helper()
	svc := podBehindService(t, ns, name, corev1.PodSpec{
		Containers: []corev1.Container{{
			Name: "skipper", Image: image,
			Args: []string{"-routes-urls", routes, "-source-poll-timeout", "500", "-address", ":80", "-support-listener", ":9911",
				"-wait-for-healthcheck-interval", "0", "-application-log-level", "INFO"},
			Ports:          []corev1.ContainerPort{{ContainerPort: 80}},
			ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(80)}}},
			// Its last log lines, should it exit.
			TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
			// It writes the routes it polls to a file there.
			VolumeMounts: []corev1.VolumeMount{{Name: "tmp", MountPath: "/tmp"}},
		}},
		Volumes: []corev1.Volume{{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}},
	}, typ)
	if typ == corev1.ServiceTypeLoadBalancer {
		svc.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: svc.Spec.ClusterIP}}
		if _, err := env.kube.CoreV1().Services(ns).UpdateStatus(bg(), svc, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	eventuallyWithin(t, 2*time.Minute, "Skipper's pod "+name+" ready", func() error {
		d, err := env.kube.AppsV1().Deployments(ns).Get(bg(), name, metav1.GetOptions{})
		if apierrs.IsNotFound(err) || (err == nil && d.Status.ReadyReplicas < 1) {
			return fmt.Errorf("pods: %s", describePods(ns))
		}
		return err
	})
	return slices.Sorted(slices.Values(svc.Spec.ClusterIPs))
}
