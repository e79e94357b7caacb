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
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/test/cluster"
)

// TestNodeDataPath runs on a real node (cluster.StartNode): the gateway is a
// Deployment's pod behind a dual-stack ClusterIP Service, which only
// kube-proxy's iptables and ip6tables rules lead to, and the client is a
// pod that resolves the Route's names through the cluster's DNS with
// kubelet's resolv.conf. In externalname the names are CNAMEs to the
// gateway's Service; in endpointsandslices they are a headless Service
// whose endpoints are the gateway's ClusterIPs (a slice per family), which
// the client connects to, each, and kube-proxy forwards to the gateway
// pod. Every address answers with the gateway's reply for the Route's host.
func TestNodeDataPath(t *testing.T) {
	needLocal(t)
	n, err := cluster.StartNode(bg(), env.local)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Close)
	gwImage, err := n.Image(bg(), "gateway", "knative.dev/route-address/test/cmd/gateway")
	if err != nil {
		t.Fatal(err)
	}
	fetchImage, err := n.Image(bg(), "fetch", "knative.dev/route-address/test/cmd/fetch")
	if err != nil {
		t.Fatal(err)
	}

	gw := nodeNamespace(t, "gw")
	clusterIPs := gatewayDeployment(t, gw, gwImage)
	ns := nodeNamespace(t, "node")
	route(t, ns, "hello", "tag")
	setLoadBalancer(t, ns, "hello", internalEntry(fmt.Sprintf(gwDomain, gw)))
	names := []string{"hello." + ns + ".svc.cluster.local", "tag-hello." + ns + ".svc.cluster.local"}

	for _, tc := range []struct {
		mode  netcfg.RouteAddressMode
		cname string
	}{
		{netcfg.RouteAddressModeExternalName, fmt.Sprintf(gwDomain, gw)},
		{netcfg.RouteAddressModeEndpointsAndSlices, ""},
	} {
		setMode(t, tc.mode, netcfg.RouteAddressFallbackEnabled)
		// The suite's controller may have just restarted (after
		// TestNodeServing): its informers' sync is in this wait.
		eventuallyWithin(t, timeout*3, "hello's names in "+string(tc.mode), func() error {
			for _, svc := range []string{"hello", "tag-hello"} {
				s, err := observe(ns, svc)
				if err != nil {
					return err
				}
				if s.Headless != (tc.cname == "") || (tc.cname == "" && len(s.Slices) == 0) {
					return fmt.Errorf("%s: %+v", svc, s)
				}
			}
			return nil
		})
		lines := runFetch(t, ns, fetchImage, names...)
		for i, name := range names {
			answer := fmt.Sprintf("HTTP=200 %q", "gateway saw host="+name)
			want := fmt.Sprintf("%s A=%s %s %s", name, strings.Join(clusterIPs, ","), answer, answer)
			if tc.cname != "" {
				want = fmt.Sprintf("%s CNAME=%s A=%s %s %s", name, tc.cname, strings.Join(clusterIPs, ","), answer, answer)
			}
			if lines[i] != want {
				t.Errorf("%s: the client pod saw\n  %s\nwant\n  %s", tc.mode, lines[i], want)
			} else {
				t.Logf("%s: %s", tc.mode, lines[i])
			}
		}
	}
}

// gatewayDeployment runs the gateway (test/cmd/gateway, answering on port
// 80) as a Deployment of one pod behind a dual-stack ClusterIP Service
// "gateway", and returns the Service's ClusterIPs, sorted as the client
// sorts them, once its EndpointSlices hold the ready pod.
func gatewayDeployment(t *testing.T, ns, image string) []string {
	t.Helper()
	svc := podBehindService(t, ns, "gateway", corev1.PodSpec{Containers: []corev1.Container{{
		Name: "gateway", Image: image,
		Ports:          []corev1.ContainerPort{{ContainerPort: 80}},
		ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{TCPSocket: &corev1.TCPSocketAction{Port: intstr.FromInt32(80)}}},
	}}}, corev1.ServiceTypeClusterIP)
	eventuallyWithin(t, timeout*4, "the gateway pod ready behind its Service", func() error {
		sls, err := env.kube.DiscoveryV1().EndpointSlices(ns).List(bg(), metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=gateway"})
		if err != nil {
			return err
		}
		ready := map[discoveryv1.AddressType]bool{}
		for _, sl := range sls.Items {
			for _, e := range sl.Endpoints {
				if e.Conditions.Ready != nil && *e.Conditions.Ready {
					ready[sl.AddressType] = true
				}
			}
		}
		if len(ready) == len(svc.Spec.IPFamilies) {
			return nil
		}
		return fmt.Errorf("a ready endpoint in %v of %d slices, want %v; pods: %s", ready, len(sls.Items), svc.Spec.IPFamilies, describePods(ns))
	})
	return slices.Sorted(slices.Values(svc.Spec.ClusterIPs))
}

// podBehindService runs pod as the Deployment name of one replica (its
// pods labelled app=name) behind the dual-stack Service name of type typ,
// port 80 to the pods' port 80, and returns the Service.
func podBehindService(t *testing.T, ns, name string, pod corev1.PodSpec, typ corev1.ServiceType) *corev1.Service {
	t.Helper()
	labels := map[string]string{"app": name}
	if _, err := env.kube.AppsV1().Deployments(ns).Create(bg(), &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: pod},
		},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	svc, err := env.kube.CoreV1().Services(ns).Create(bg(), &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.ServiceSpec{
			Type:           typ,
			IPFamilyPolicy: ptr.To(corev1.IPFamilyPolicyRequireDualStack),
			Selector:       labels,
			Ports:          []corev1.ServicePort{{Name: "http2", Port: 80, TargetPort: intstr.FromInt32(80)}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// runFetch runs the client (test/cmd/fetch) as a pod in ns and returns the
// line it wrote for each name.
func runFetch(t *testing.T, ns, image string, names ...string) []string {
	t.Helper()
	p, err := env.kube.CoreV1().Pods(ns).Create(bg(), &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, GenerateName: "fetch-"},
		Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: "fetch", Image: image, Args: names}},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var msg string
	eventuallyWithin(t, timeout*4, "the client pod "+p.Name+" done", func() error {
		p, err := env.kube.CoreV1().Pods(ns).Get(bg(), p.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, s := range p.Status.ContainerStatuses {
			if s.State.Terminated != nil {
				msg = s.State.Terminated.Message
				return nil
			}
		}
		return fmt.Errorf("pods: %s", describePods(ns))
	})
	lines := strings.Split(strings.TrimSpace(msg), "\n")
	if len(lines) != len(names) {
		t.Fatalf("the client pod wrote %q, want a line per name %v", msg, names)
	}
	return lines
}

// describePods says where each pod of ns is: phase, and each container's
// state when it is not running.
func describePods(ns string) string {
	pods, err := env.kube.CoreV1().Pods(ns).List(bg(), metav1.ListOptions{})
	if err != nil {
		return err.Error()
	}
	var out []string
	for _, p := range pods.Items {
		d := p.Name + " " + string(p.Status.Phase)
		for _, c := range p.Status.ContainerStatuses {
			switch {
			case c.State.Waiting != nil:
				d += fmt.Sprintf(" (%s waiting: %s %s)", c.Name, c.State.Waiting.Reason, c.State.Waiting.Message)
			case c.State.Terminated != nil:
				d += fmt.Sprintf(" (%s terminated: %s, exit %d %q)", c.Name, c.State.Terminated.Reason, c.State.Terminated.ExitCode, c.State.Terminated.Message)
			case c.LastTerminationState.Terminated != nil:
				d += fmt.Sprintf(" (%s restarted, last exit %d %q)", c.Name, c.LastTerminationState.Terminated.ExitCode, c.LastTerminationState.Terminated.Message)
			case !c.Ready:
				d += fmt.Sprintf(" (%s running, not ready)", c.Name)
			}
		}
		for _, c := range p.Status.Conditions {
			if c.Status != corev1.ConditionTrue && c.Message != "" {
				d += fmt.Sprintf(" [%s: %s]", c.Type, c.Message)
			}
		}
		out = append(out, d)
	}
	return strings.Join(out, "; ")
}
