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
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Versions of the programs the control plane runs; hack/build-third-party.sh
// builds them from third_party/ into BinDir, keyed by these.
const (
	// DefaultKubernetesVersion is third_party/kubernetes's, the one the
	// test command runs.
	DefaultKubernetesVersion = "v1.34.2"
	EtcdVersion              = "v3.6.16"
	CoreDNSVersion           = "v1.14.7"
)

// KubernetesVersion is the version of the kube-apiserver and
// kube-controller-manager the control plane runs:
// $ROUTE_ADDRESS_KUBERNETES_VERSION (hack/e2e-kubernetes.sh sets it), else
// DefaultKubernetesVersion.
func KubernetesVersion() string {
	if v := os.Getenv("ROUTE_ADDRESS_KUBERNETES_VERSION"); v != "" {
		return v
	}
	return DefaultKubernetesVersion
}

// ServiceCIDR is the cluster's Service range. It lies in 198.18.0.0/15, which
// this machine does not use, so that tests can route part of it into a
// network namespace of their own for a data path.
const ServiceCIDR = "198.19.0.0/16"

// ServiceCIDR6 is the Service range of IPv6, second after ServiceCIDR
// when DualStack is set.
const ServiceCIDR6 = "fd98:96::/112"

// DualStack, set before Start, makes the cluster dual-stack (a Service is
// still of one family, IPv4, unless it asks for both): the node's tests
// set it, their pods having addresses of both families.
var DualStack bool

// kubernetesServiceIP is the default/kubernetes Service's ClusterIP, the
// range's first address.
const kubernetesServiceIP = "198.19.0.1"

func serviceCIDRs() string {
	if DualStack {
		return ServiceCIDR + "," + ServiceCIDR6
	}
	return ServiceCIDR
}

// BinDir is where the built binaries are cached:
// $ROUTE_ADDRESS_BIN_DIR, else $XDG_CACHE_HOME/route-address/bin, else
// ~/.cache/route-address/bin.
func BinDir() string {
	if d := os.Getenv("ROUTE_ADDRESS_BIN_DIR"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "route-address", "bin")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "route-address", "bin")
}

// Binary returns the path of a built program.
func Binary(name string) string {
	switch name {
	case "kube-apiserver", "kube-controller-manager", "kubelet", "kube-proxy", "kube-scheduler":
		return filepath.Join(BinDir(), "kubernetes-"+KubernetesVersion(), name)
	case "etcd":
		return filepath.Join(BinDir(), "etcd-"+EtcdVersion, name)
	case "coredns":
		// CoreDNS with the plugins the Corefile uses only (third_party/coredns).
		return filepath.Join(BinDir(), "coredns-"+CoreDNSVersion+"-kubernetes", name)
	case "skipper":
		return filepath.Join(BinDir(), "skipper-"+SkipperVersion+"-static", name)
	case "promtool":
		return filepath.Join(BinDir(), "promtool-debian", name)
	}
	return filepath.Join(BinDir(), name)
}

// Cluster is a running control plane.
type Cluster struct {
	// Dir holds certificates, data, logs and the kubeconfig.
	Dir string
	// Kubeconfig is an admin kubeconfig (context "admin").
	Kubeconfig string
	// Config is the admin REST config.
	Config *rest.Config
	// Client is an admin clientset.
	Client kubernetes.Interface
	// DNS is CoreDNS's address (UDP and TCP).
	DNS string
	// AuditLog is the apiserver's audit log of writes.
	AuditLog string
	// ControllerKubeconfig authenticates as serving's controller
	// ServiceAccount (see ControllerServiceAccount).
	ControllerKubeconfig string

	procs []*exec.Cmd
	pki   *pki
}

// Start brings up etcd, kube-apiserver, CoreDNS and kube-controller-manager
// under dir and installs Knative's CRDs and config maps. Stop it with Stop.
func Start(ctx context.Context, dir string) (c *Cluster, err error) {
	for _, b := range []string{"etcd", "kube-apiserver", "kube-controller-manager", "coredns"} {
		if _, err := os.Stat(Binary(b)); err != nil {
			return nil, fmt.Errorf("%s is not built (%w): run hack/build-third-party.sh", b, err)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	c = &Cluster{Dir: dir, AuditLog: filepath.Join(dir, "audit.log")}
	// What it started, stopped if a later step fails (c is nil by then).
	started := c
	defer func() {
		if err != nil {
			started.Stop()
		}
	}()
	p, err := writePKI(dir)
	if err != nil {
		return nil, fmt.Errorf("failed to write certificates: %w", err)
	}
	c.pki = p
	ports, err := freePorts(5)
	if err != nil {
		return nil, err
	}
	etcdClient, etcdPeer, apiPort, dnsPort, readyPort := ports[0], ports[1], ports[2], ports[3], ports[4]

	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", etcdClient)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", etcdPeer)
	if err := c.run("etcd", Binary("etcd"),
		"--data-dir", filepath.Join(dir, "etcd"),
		"--listen-client-urls", etcdURL, "--advertise-client-urls", etcdURL,
		"--listen-peer-urls", peerURL, "--initial-advertise-peer-urls", peerURL,
		"--initial-cluster", "default="+peerURL,
		"--listen-metrics-urls", "", "--log-level", "warn",
	); err != nil {
		return nil, err
	}

	policy := filepath.Join(dir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o644); err != nil {
		return nil, err
	}
	if err := c.run("kube-apiserver", Binary("kube-apiserver"),
		"--etcd-servers", etcdURL,
		"--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1",
		fmt.Sprintf("--secure-port=%d", apiPort),
		"--tls-cert-file", p.ServerCert, "--tls-private-key-file", p.ServerKey,
		"--client-ca-file", p.CA,
		"--service-account-issuer", "https://kubernetes.default.svc",
		"--service-account-key-file", p.SAPub,
		"--service-account-signing-key-file", p.SAKey,
		"--service-cluster-ip-range", serviceCIDRs(),
		"--authorization-mode", "RBAC",
		"--endpoint-reconciler-type", "none",
		// As OpenShift runs it: setting blockOwnerDeletion needs the right
		// to update the owner's finalizers (our slices on their Service).
		"--enable-admission-plugins", "OwnerReferencesPermissionEnforcement",
		"--audit-policy-file", policy, "--audit-log-path", c.AuditLog,
		"--audit-log-format", "json", "--audit-log-mode", "blocking",
		// Never rotated (the default rotates at 100 MB, which 10 000 Routes
		// pass during creation): AuditWrites reads this one file.
		"--audit-log-maxsize", "1000000",
		"--v", "0",
	); err != nil {
		return nil, err
	}
	server := fmt.Sprintf("https://127.0.0.1:%d", apiPort)
	c.Kubeconfig = filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(c.Kubeconfig, []byte(fmt.Sprintf(kubeconfigTmpl, server, p.CA, p.AdminCert, p.AdminKey)), 0o600); err != nil {
		return nil, err
	}
	if c.Config, err = clientcmd.BuildConfigFromFlags("", c.Kubeconfig); err != nil {
		return nil, err
	}
	c.Config.QPS, c.Config.Burst = 500, 1000
	if c.Client, err = kubernetes.NewForConfig(c.Config); err != nil {
		return nil, err
	}
	if err := waitHTTP(ctx, server+"/readyz", p, 60*time.Second); err != nil {
		return nil, fmt.Errorf("kube-apiserver not ready: %w (see %s)", err, filepath.Join(dir, "kube-apiserver.log"))
	}

	// CRDs before kube-controller-manager, or garbage collection of
	// custom-resource dependents lags (FACTS).
	if err := installKnative(ctx, c.Config, c.Client); err != nil {
		return nil, fmt.Errorf("failed to install Knative CRDs and config maps: %w", err)
	}
	if err := installRBAC(ctx, c.Client); err != nil {
		return nil, fmt.Errorf("failed to install serving's and our RBAC: %w", err)
	}
	if err := c.run("kube-controller-manager", Binary("kube-controller-manager"),
		"--kubeconfig", c.Kubeconfig,
		"--controllers", KubeControllerManagerControllers,
		// What root-ca-certificate-publisher-controller publishes (a node's
		// pods read it as kube-root-ca.crt).
		"--root-ca-file", p.CA,
		"--leader-elect=false", "--secure-port=0",
		"--v", "0",
	); err != nil {
		return nil, err
	}
	if err := waitAggregated(ctx, c.Client); err != nil {
		return nil, err
	}
	if err := c.writeControllerKubeconfig(ctx); err != nil {
		return nil, err
	}

	corefile := filepath.Join(dir, "Corefile")
	c.DNS = fmt.Sprintf("127.0.0.1:%d", dnsPort)
	if err := os.WriteFile(corefile, []byte(fmt.Sprintf(corefileTmpl, dnsPort, readyPort, c.Kubeconfig)), 0o644); err != nil {
		return nil, err
	}
	if err := c.run("coredns", Binary("coredns"), "-conf", corefile); err != nil {
		return nil, err
	}
	if err := waitHTTP(ctx, fmt.Sprintf("http://127.0.0.1:%d/ready", readyPort), nil, 60*time.Second); err != nil {
		return nil, fmt.Errorf("CoreDNS not ready: %w (see %s)", err, filepath.Join(dir, "coredns.log"))
	}
	return c, nil
}

// Stop ends every process, newest first.
func (c *Cluster) Stop() {
	for i := len(c.procs) - 1; i >= 0; i-- {
		stop(c.procs[i])
	}
	c.procs = nil
}

// RestartAPIServer kills kube-apiserver (SIGKILL, as a crashed or evicted
// one goes), starts it again with the same flags, and returns when it is
// ready, with that time.
func (c *Cluster) RestartAPIServer(ctx context.Context) (time.Time, error) {
	i := slices.IndexFunc(c.procs, func(p *exec.Cmd) bool { return filepath.Base(p.Path) == "kube-apiserver" })
	if i < 0 {
		return time.Time{}, errors.New("kube-apiserver is not running")
	}
	old := c.procs[i]
	_ = syscall.Kill(-old.Process.Pid, syscall.SIGKILL)
	for syscall.Kill(old.Process.Pid, 0) == nil {
		time.Sleep(10 * time.Millisecond)
	}
	cmd, err := Run(filepath.Join(c.Dir, "kube-apiserver.log"), nil, old.Path, old.Args[1:]...)
	if err != nil {
		return time.Time{}, fmt.Errorf("failed to start kube-apiserver again: %w", err)
	}
	c.procs[i] = cmd
	if err := waitHTTP(ctx, c.Config.Host+"/readyz", c.pki, 60*time.Second); err != nil {
		return time.Time{}, fmt.Errorf("kube-apiserver not ready after a restart: %w", err)
	}
	return time.Now(), nil
}

// KubeControllerManagerControllers are the controllers Start runs in
// kube-controller-manager (the Routes' Services have no selector: no
// Endpoints or EndpointSlice controller).
const KubeControllerManagerControllers = "garbage-collector-controller,endpointslice-mirroring-controller,namespace-controller,clusterrole-aggregation-controller"

// RestartControllerManager stops kube-controller-manager and starts it
// again running controllers (a --controllers value) instead.
func (c *Cluster) RestartControllerManager(controllers string) error {
	i := slices.IndexFunc(c.procs, func(p *exec.Cmd) bool { return filepath.Base(p.Path) == "kube-controller-manager" })
	if i < 0 {
		return errors.New("kube-controller-manager is not running")
	}
	old := c.procs[i]
	stop(old)
	args := slices.Clone(old.Args[1:])
	if j := slices.Index(args, "--controllers"); j >= 0 && j+1 < len(args) {
		args[j+1] = controllers
	}
	cmd, err := Run(filepath.Join(c.Dir, "kube-controller-manager.log"), nil, old.Path, args...)
	if err != nil {
		return fmt.Errorf("failed to start kube-controller-manager again: %w", err)
	}
	c.procs[i] = cmd
	return nil
}

// Pid returns the process id of the control-plane program whose binary is
// named base ("etcd", "kube-apiserver", ...), or 0.
func (c *Cluster) Pid(base string) int {
	for _, p := range c.procs {
		if filepath.Base(p.Path) == base && p.Process != nil {
			return p.Process.Pid
		}
	}
	return 0
}

// run starts a program in its own process group, logging to dir/name.log.
func (c *Cluster) run(name, bin string, args ...string) error {
	return runInto(&c.procs, c.Dir, name, bin, args...)
}

// runInto starts a program with Run, logging to dir/name.log, and adds it
// to procs.
func runInto(procs *[]*exec.Cmd, dir, name, bin string, args ...string) error {
	cmd, err := Run(filepath.Join(dir, name+".log"), nil, bin, args...)
	if err != nil {
		return fmt.Errorf("failed to start %s: %w", name, err)
	}
	*procs = append(*procs, cmd)
	return nil
}

// Run starts bin with args in its own process group with its output in
// logPath and env added to this process's environment.
func Run(logPath string, env []string, bin string, args ...string) (*exec.Cmd, error) {
	return runAs(logPath, env, "", bin, args...)
}

// runAs is Run with the program's argv[0] set to name (bin when empty).
func runAs(logPath string, env []string, name, bin string, args ...string) (*exec.Cmd, error) {
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	if name != "" {
		cmd.Args[0] = name
	}
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, err
	}
	go func() {
		_ = cmd.Wait()
		log.Close()
	}()
	return cmd, nil
}

// stop sends SIGTERM to the process group, then SIGKILL after 5 s.
func stop(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if err := syscall.Kill(cmd.Process.Pid, 0); err != nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

// Stop ends a process started with Run.
func Stop(cmd *exec.Cmd) { stop(cmd) }

// FreePorts returns n TCP ports free on 127.0.0.1 now.
func FreePorts(n int) ([]int, error) { return freePorts(n) }

func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var out []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	return out, nil
}

func waitHTTP(ctx context.Context, url string, p *pki, timeout time.Duration) error {
	client := &http.Client{Timeout: 2 * time.Second}
	if p != nil {
		cert, err := tls.LoadX509KeyPair(p.AdminCert, p.AdminKey)
		if err != nil {
			return err
		}
		client.Transport = &http.Transport{TLSClientConfig: &tls.Config{
			Certificates: []tls.Certificate{cert}, InsecureSkipVerify: true, //nolint:gosec // loopback, our own CA
		}}
	}
	deadline := time.Now().Add(timeout)
	var last error = errors.New("timed out")
	for time.Now().Before(deadline) {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		resp, err := client.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Errorf("%s: %s", url, resp.Status)
		} else {
			last = err
		}
		time.Sleep(200 * time.Millisecond)
	}
	return last
}

// auditPolicy logs each write once, when its response is complete, but
// writes to Events and Leases (the controllers' heartbeats), and nothing
// else.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: None
  resources:
  - group: ""
    resources: ["events"]
  - group: "events.k8s.io"
  - group: "coordination.k8s.io"
- level: Metadata
  verbs: ["create", "update", "patch", "delete", "deletecollection"]
- level: None
`

const kubeconfigTmpl = `apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: %s
    certificate-authority: %s
users:
- name: admin
  user:
    client-certificate: %s
    client-key: %s
contexts:
- name: admin
  context:
    cluster: local
    user: admin
current-context: admin
`

const corefileTmpl = `cluster.local:%d {
    bind 127.0.0.1
    errors
    ready 127.0.0.1:%d
    kubernetes cluster.local {
        kubeconfig %s admin
        pods disabled
        ttl 5
    }
}
`
