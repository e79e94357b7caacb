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
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"
)

// The node: one kubelet beside the local control plane, running pods with
// containerd and runc (Debian's packages), connected by the CNI bridge
// plugin (Debian's containernetworking-plugins) on PodCIDR and PodCIDR6
// (each pod has an address of both families), with
// kube-proxy in iptables mode and kube-scheduler, both built from the
// Kubernetes module the control plane is built from. Images come from a
// registry served by the test process on loopback (go-containerregistry's),
// which containerd pulls from over plain HTTP. Pods resolve names through a
// CoreDNS of their own on the bridge's address, serving the cluster's zone
// as the control plane's does.
const (
	// NodeName is the node's name.
	NodeName = "ra-node"
	// PodCIDR and PodCIDR6 are the pods' networks; the bridge holds their
	// first addresses.
	PodCIDR     = "10.244.0.0/24"
	podGateway  = "10.244.0.1"
	PodCIDR6    = "fd98:244::/64"
	podGateway6 = "fd98:244::1"
	nodeBridge  = "ra-node0"
	// nodeControllers are the controllers kube-controller-manager adds for
	// pods: EndpointSlices and v1 Endpoints of Services with a selector
	// (kube-proxy reads the slices; serving's controller reads the
	// activator's Endpoints), Deployments, the node's lifecycle (it lifts
	// the not-ready taint a new Node is created with, or nothing is
	// scheduled), and each namespace's default ServiceAccount and
	// kube-root-ca.crt ConfigMap, which a pod's API credentials are made of.
	nodeControllers = ",endpointslice-controller,endpoints-controller,deployment-controller,replicaset-controller,node-lifecycle-controller," +
		"serviceaccount-controller,root-ca-certificate-publisher-controller"
	// containerLogs is where kubelet links each container's log (a path of
	// its own, whatever its configuration).
	containerLogs = "/var/log/containers"
	// apiPort is where pods reach kube-apiserver: the default/kubernetes
	// Service's endpoint, on the bridge's address (the apiserver listens on
	// loopback, which a pod's loopback is not).
	apiPort = 6443
)

// NodePackages are the Debian packages the node runs on.
var NodePackages = []string{"containerd", "runc", "containernetworking-plugins", "iptables", "conntrack"}

// Node is a running node; Close removes everything StartNode made.
type Node struct {
	// Registry is the image registry's host:port, which pods name images by.
	Registry string
	// DNS is the pods' nameserver.
	DNS string
	// Host is the host's address on the pods' bridge, where pods reach a
	// program of the test process.
	Host string

	c        *Cluster
	dir, run string
	procs    []*exec.Cmd
	reg      *http.Server
	api      net.Listener
	// installed is what InstallServing applied that Close deletes, with
	// the client it applied it with.
	installed []installed
	dyn       dynamic.Interface
	// netns are the network namespaces that existed before, left alone;
	// rules are iptables-save's and ip6tables-save's output before, put
	// back (kubelet, kube-proxy and the CNI plugin add chains and rules).
	netns []string
	rules map[string][]byte
	// sysctls are the kernel settings changed, with their values before.
	sysctls map[string]string
	// kcm is set once kube-controller-manager runs the node's controllers.
	kcm bool
	// logs is set when containerLogs did not exist before.
	logs bool
	// shims is set when /run/containerd, where containerd's shims put
	// their sockets whatever its state directory, did not exist before.
	shims bool
}

// StartNode starts the node and waits until it is Ready. It needs root.
func StartNode(ctx context.Context, c *Cluster) (n *Node, err error) {
	if os.Geteuid() != 0 {
		return nil, errors.New("a node needs root")
	}
	var missing []string
	for _, b := range []string{"containerd", "runc", "iptables", "conntrack", "/usr/lib/cni/bridge"} {
		if _, err := exec.LookPath(b); err != nil {
			missing = append(missing, b)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s not installed: apt-get install %s", strings.Join(missing, ", "), strings.Join(NodePackages, " "))
	}
	for _, b := range []string{"kubelet", "kube-proxy", "kube-scheduler"} {
		if _, err := os.Stat(Binary(b)); err != nil {
			return nil, fmt.Errorf("%s is not built (%w): run hack/build-third-party.sh node", b, err)
		}
	}
	n = &Node{c: c, dir: filepath.Join(c.Dir, "node"), run: fmt.Sprintf("/run/ra-node-%d", os.Getpid()), DNS: podGateway, Host: podGateway}
	n.netns, _ = filepath.Glob("/var/run/netns/*")
	if _, err := os.Stat("/run/containerd"); errors.Is(err, os.ErrNotExist) {
		n.shims = true
	}
	if _, err := os.Stat(containerLogs); errors.Is(err, os.ErrNotExist) {
		n.logs = true
	}
	n.rules = map[string][]byte{}
	for _, save := range []string{"iptables-save", "ip6tables-save"} {
		out, err := exec.CommandContext(ctx, save).Output()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", save, err)
		}
		n.rules[strings.TrimSuffix(save, "-save")+"-restore"] = out
	}
	defer func() {
		if err != nil {
			n.Close()
		}
	}()
	for _, d := range []string{n.dir, n.run, filepath.Join(n.dir, "cni")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return n, err
		}
	}
	if err := n.serveRegistry(); err != nil {
		return n, err
	}
	if err := n.bridge(ctx); err != nil {
		return n, err
	}
	pause, err := n.Image(ctx, "pause", "knative.dev/route-address/test/cmd/pause")
	if err != nil {
		return n, err
	}
	if err := n.write("cni/10-ra-node.conflist", fmt.Sprintf(cniTmpl, nodeBridge, PodCIDR, podGateway, PodCIDR6, podGateway6, filepath.Join(n.dir, "ipam"))); err != nil {
		return n, err
	}
	if err := n.write("containerd.toml", fmt.Sprintf(containerdTmpl, filepath.Join(n.dir, "containerd"), n.run, n.run, pause, n.run, filepath.Join(n.dir, "cni"), n.Registry, n.Registry)); err != nil {
		return n, err
	}
	if err := n.start("containerd", "containerd", "--config", filepath.Join(n.dir, "containerd.toml")); err != nil {
		return n, err
	}
	if err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		_, err := os.Stat(filepath.Join(n.run, "containerd.sock"))
		return err == nil, nil
	}); err != nil {
		return n, fmt.Errorf("containerd did not start: %w (see %s)", err, filepath.Join(n.dir, "containerd.log"))
	}
	if err := n.forwardAPI(ctx); err != nil {
		return n, err
	}
	if err := c.RestartControllerManager(KubeControllerManagerControllers + nodeControllers); err != nil {
		return n, err
	}
	n.kcm = true
	if err := n.write("kubelet.yaml", fmt.Sprintf(kubeletTmpl, n.run, podGateway, PodCIDR, filepath.Join(n.dir, "pod-logs"))); err != nil {
		return n, err
	}
	if err := n.start("kubelet", Binary("kubelet"), "--config", filepath.Join(n.dir, "kubelet.yaml"),
		"--kubeconfig", c.Kubeconfig, "--root-dir", filepath.Join(n.dir, "kubelet"),
		"--cert-dir", filepath.Join(n.dir, "kubelet-pki"), "--hostname-override", NodeName, "--v", "0"); err != nil {
		return n, err
	}
	if err := n.write("kube-proxy.yaml", fmt.Sprintf(kubeProxyTmpl, PodCIDR+","+PodCIDR6, NodeName, c.Kubeconfig)); err != nil {
		return n, err
	}
	if err := n.start("kube-proxy", Binary("kube-proxy"), "--config", filepath.Join(n.dir, "kube-proxy.yaml")); err != nil {
		return n, err
	}
	if err := n.start("kube-scheduler", Binary("kube-scheduler"), "--kubeconfig", c.Kubeconfig,
		"--authentication-kubeconfig", c.Kubeconfig, "--authorization-kubeconfig", c.Kubeconfig,
		"--leader-elect=false", "--secure-port=0"); err != nil {
		return n, err
	}
	if err := n.write("Corefile", fmt.Sprintf(podCorefileTmpl, podGateway, c.Kubeconfig)); err != nil {
		return n, err
	}
	if err := n.start("coredns", Binary("coredns"), "-conf", filepath.Join(n.dir, "Corefile")); err != nil {
		return n, err
	}
	var getErr error
	if err := wait.PollUntilContextTimeout(ctx, time.Second, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		node, err := c.Client.CoreV1().Nodes().Get(ctx, NodeName, metav1.GetOptions{})
		getErr = err
		return err == nil && slices.ContainsFunc(node.Status.Conditions, func(c corev1.NodeCondition) bool {
			return c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue
		}), nil
	}); err != nil {
		return n, fmt.Errorf("node %s not Ready after 2 minutes (%v; see %s)", NodeName, getErr, filepath.Join(n.dir, "kubelet.log"))
	}
	return n, nil
}

// serveRegistry serves an image registry on a free loopback port.
func (n *Node) serveRegistry() error {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	n.Registry = l.Addr().String()
	n.reg = &http.Server{Handler: registry.New(registry.Logger(log.New(io.Discard, "", 0))), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = n.reg.Serve(l) }()
	return nil
}

// forwardAPI gives pods the API as a cluster gives it, through the
// default/kubernetes Service (KUBERNETES_SERVICE_HOST, their in-cluster
// configuration): the test process forwards connections from the bridge's
// address to kube-apiserver on loopback, and the Service's EndpointSlice
// names that address (the apiserver's own endpoint reconciler is off). TLS
// goes through untouched; the apiserver's certificate holds the Service's
// ClusterIP.
func (n *Node) forwardAPI(ctx context.Context) error {
	l, err := net.Listen("tcp", net.JoinHostPort(podGateway, fmt.Sprint(apiPort)))
	if err != nil {
		return err
	}
	n.api = l
	apiserver := strings.TrimPrefix(n.c.Config.Host, "https://")
	go func() {
		for {
			in, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer in.Close()
				out, err := net.Dial("tcp", apiserver)
				if err != nil {
					return
				}
				defer out.Close()
				go func() { _, _ = io.Copy(out, in) }()
				_, _ = io.Copy(in, out)
			}()
		}
	}()
	_, err = n.c.Client.DiscoveryV1().EndpointSlices(metav1.NamespaceDefault).Create(ctx, &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Name: "kubernetes", Labels: map[string]string{
			discoveryv1.LabelServiceName: "kubernetes",
			discoveryv1.LabelManagedBy:   "node.route-address.test",
		}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{podGateway}}},
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("https"), Port: ptr.To[int32](apiPort), Protocol: ptr.To(corev1.ProtocolTCP)}},
	}, metav1.CreateOptions{})
	return err
}

// bridge makes the pods' bridge with its address, so that the pods'
// CoreDNS can listen there before the first pod (the CNI plugin finds it).
func (n *Node) bridge(ctx context.Context) error {
	for _, s := range [][]string{
		{"ip", "link", "add", nodeBridge, "type", "bridge"},
		{"ip", "addr", "add", podGateway + "/24", "dev", nodeBridge},
		{"ip", "-6", "addr", "add", podGateway6 + "/64", "dev", nodeBridge, "nodad"},
		{"ip", "link", "set", nodeBridge, "up"},
	} {
		if out, err := exec.CommandContext(ctx, s[0], s[1:]...).CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %w: %s", strings.Join(s, " "), err, out)
		}
	}
	// Forwarding between the bridge and the host, and the bridge's traffic
	// through iptables (kube-proxy's rules), put back as they were by Close.
	n.sysctls = map[string]string{}
	for _, k := range []string{"/proc/sys/net/ipv4/ip_forward", "/proc/sys/net/bridge/bridge-nf-call-iptables",
		"/proc/sys/net/ipv6/conf/all/forwarding", "/proc/sys/net/bridge/bridge-nf-call-ip6tables"} {
		old, err := os.ReadFile(k)
		if err != nil {
			return fmt.Errorf("%w (the bridge's netfilter: the br_netfilter module)", err)
		}
		n.sysctls[k] = string(old)
		if err := os.WriteFile(k, []byte("1"), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func (n *Node) write(name, data string) error {
	return os.WriteFile(filepath.Join(n.dir, name), []byte(data), 0o644)
}

func (n *Node) start(name, bin string, args ...string) error {
	return runInto(&n.procs, n.dir, name, bin, args...)
}

// Close deletes the node's pods and the Node, stops its programs and
// removes what they left: containers and their shims, mounts, network
// namespaces, the bridge, the iptables rules of kubelet, kube-proxy and the
// CNI plugin, cgroups and files; and sets the kernel settings back.
func (n *Node) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n.uninstall(ctx)
	pods, err := n.c.Client.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=" + NodeName})
	if err == nil {
		for _, p := range pods.Items {
			_ = n.c.Client.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)})
		}
	}
	_ = n.c.Client.DiscoveryV1().EndpointSlices(metav1.NamespaceDefault).Delete(ctx, "kubernetes", metav1.DeleteOptions{})
	if n.api != nil {
		_ = n.api.Close()
	}
	if err := n.c.Client.CoreV1().Nodes().Delete(ctx, NodeName, metav1.DeleteOptions{}); err != nil && !apierrs.IsNotFound(err) {
		fmt.Fprintf(os.Stderr, "deleting node %s: %v\n", NodeName, err)
	}
	// kube-controller-manager back to the control plane's controllers, for
	// the tests that follow.
	if n.kcm {
		if err := n.c.RestartControllerManager(KubeControllerManagerControllers); err != nil {
			fmt.Fprintf(os.Stderr, "kube-controller-manager: %v\n", err)
		}
	}
	ctr := func(args ...string) string {
		out, _ := exec.CommandContext(ctx, "ctr", append([]string{"-a", filepath.Join(n.run, "containerd.sock"), "-n", "k8s.io"}, args...)...).Output()
		return string(out)
	}
	for i := len(n.procs) - 1; i >= 0; i-- {
		if filepath.Base(n.procs[i].Path) == "containerd" {
			// Its containers first, while it runs.
			for _, id := range strings.Fields(ctr("tasks", "ls", "-q")) {
				ctr("tasks", "kill", "-s", "SIGKILL", id)
				ctr("tasks", "delete", "-f", id)
			}
		}
		stop(n.procs[i])
	}
	n.procs = nil
	// Shims outlive containerd by design.
	if procs, err := filepath.Glob("/proc/[0-9]*/cmdline"); err == nil {
		for _, p := range procs {
			if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), n.run) {
				var pid int
				if _, err := fmt.Sscanf(p, "/proc/%d/cmdline", &pid); err == nil && pid != os.Getpid() {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		}
	}
	unmountUnder(n.dir, n.run)
	if created, err := filepath.Glob("/var/run/netns/cni-*"); err == nil {
		for _, ns := range created {
			if !slices.Contains(n.netns, ns) {
				_ = syscall.Unmount(ns, syscall.MNT_DETACH)
				_ = os.Remove(ns)
			}
		}
	}
	_ = exec.Command("ip", "link", "del", nodeBridge).Run()
	for restore, rules := range n.rules {
		cmd := exec.Command(restore)
		cmd.Stdin = bytes.NewReader(rules)
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v: %s\n", restore, err, out)
		}
	}
	removeCgroups("kubepods")
	if n.reg != nil {
		_ = n.reg.Close()
	}
	_ = os.RemoveAll(n.run)
	if n.shims {
		_ = os.RemoveAll("/run/containerd")
	}
	if links, err := filepath.Glob(filepath.Join(containerLogs, "*")); err == nil {
		for _, l := range links {
			if to, err := os.Readlink(l); err == nil && strings.HasPrefix(to, n.dir) {
				_ = os.Remove(l)
			}
		}
	}
	if n.logs {
		_ = os.Remove(containerLogs)
	}
	for k, v := range n.sysctls {
		_ = os.WriteFile(k, []byte(v), 0o644)
	}
}

// unmountUnder detaches every mount below the given directories, deepest
// first.
func unmountUnder(dirs ...string) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return
	}
	var points []string
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) > 4 && slices.ContainsFunc(dirs, func(d string) bool { return strings.HasPrefix(fields[4], d+"/") }) {
			points = append(points, fields[4])
		}
	}
	f.Close()
	slices.SortFunc(points, func(a, b string) int { return len(b) - len(a) })
	for _, p := range points {
		_ = syscall.Unmount(p, syscall.MNT_DETACH)
	}
}

// removeCgroups removes the cgroup named under every v1 hierarchy, its
// children first.
func removeCgroups(name string) {
	roots, _ := filepath.Glob("/sys/fs/cgroup/*/" + name)
	for _, root := range roots {
		var dirs []string
		_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, p)
			}
			return nil
		})
		for _, d := range slices.Backward(dirs) {
			_ = os.Remove(d)
		}
	}
}

// cniTmpl: the bridge, its address the pods' default route (ClusterIPs are
// reached through it, kube-proxy's rules rewriting them on the host), no
// masquerade (pods talk only to the host and to each other).
const cniTmpl = `{
  "cniVersion": "0.4.0",
  "name": "ra-node",
  "plugins": [
    {"type": "bridge", "bridge": %q, "isGateway": true, "hairpinMode": true,
     "ipam": {"type": "host-local", "ranges": [[{"subnet": %q, "gateway": %q}], [{"subnet": %q, "gateway": %q}]],
              "routes": [{"dst": "0.0.0.0/0"}, {"dst": "::/0"}], "dataDir": %q}},
    {"type": "loopback"}
  ]
}
`

// containerdTmpl: its own root, state, socket and runc root; restrict_oom_score_adj
// because this machine refuses a process a lower oom_score_adj than its
// own (no CAP_SYS_RESOURCE), which kubelet asks for the pods' sandboxes.
const containerdTmpl = `version = 2
root = %q
state = "%s/containerd"
[grpc]
  address = "%s/containerd.sock"
[plugins."io.containerd.grpc.v1.cri"]
  restrict_oom_score_adj = true
  sandbox_image = %q
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        Root = "%s/runc"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = %q
  [plugins."io.containerd.grpc.v1.cri".registry.mirrors.%q]
    endpoint = ["http://%s"]
`

// kubeletTmpl: cgroup v1 through cgroupfs; no authentication of the
// apiserver's requests (loopback only); no eviction or image GC (a test
// host's disk is not the pods' business).
const kubeletTmpl = `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
cgroupDriver: cgroupfs
containerRuntimeEndpoint: unix://%s/containerd.sock
failSwapOn: false
authentication:
  anonymous: {enabled: true}
  webhook: {enabled: false}
authorization: {mode: AlwaysAllow}
clusterDomain: cluster.local
clusterDNS: [%s]
resolvConf: ""
readOnlyPort: 0
healthzPort: 0
hairpinMode: hairpin-veth
serializeImagePulls: false
evictionHard: {}
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
podCIDR: %s
podLogsDir: %s
localStorageCapacityIsolation: false
`

const kubeProxyTmpl = `apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: iptables
clusterCIDR: %s
hostnameOverride: %s
clientConnection: {kubeconfig: %s}
conntrack: {maxPerCore: 0}
metricsBindAddress: 127.0.0.1:10249
healthzBindAddress: ""
nodePortAddresses: [primary]
`

const podCorefileTmpl = `cluster.local:53 {
    bind %s
    errors
    kubernetes cluster.local {
        kubeconfig %s admin
        pods disabled
        ttl 5
    }
}
`
