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
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
)

// ContourVersion is the projectcontour/contour version third_party/contour
// builds (keep in step with hack/build-third-party.sh). The build copies the
// CRD files of its module next to the binary.
const ContourVersion = "v1.33.6"

// ContourNamespace holds Contour's ServiceAccount, and the Gateway it serves.
const ContourNamespace = "projectcontour"

// ContourGatewayClass is the controllerName Contour's GatewayClass names.
const ContourGatewayClass = "projectcontour.io/gateway-controller"

// contourRules are what Contour's control plane reads and the status it
// writes on its own objects; nothing else (no Secrets are written, no
// leases: leader election is off).
var contourRules = []rbacv1.PolicyRule{{
	APIGroups: []string{""},
	Resources: []string{"configmaps", "namespaces", "secrets", "services"},
	Verbs:     []string{"get", "list", "watch"},
}, {
	APIGroups: []string{"discovery.k8s.io"},
	Resources: []string{"endpointslices"},
	Verbs:     []string{"get", "list", "watch"},
}, {
	APIGroups: []string{"gateway.networking.k8s.io"},
	Resources: []string{"backendtlspolicies", "gatewayclasses", "gateways", "grpcroutes", "httproutes", "referencegrants", "tcproutes", "tlsroutes"},
	Verbs:     []string{"get", "list", "watch"},
}, {
	APIGroups: []string{"gateway.networking.k8s.io"},
	Resources: []string{"gatewayclasses/status", "gateways/status", "httproutes/status"},
	Verbs:     []string{"update"},
}, {
	APIGroups: []string{"networking.k8s.io"},
	Resources: []string{"ingresses"},
	Verbs:     []string{"get", "list", "watch"},
}, {
	APIGroups: []string{"projectcontour.io"},
	Resources: []string{"contourconfigurations", "extensionservices", "httpproxies", "tlscertificatedelegations"},
	Verbs:     []string{"get", "list", "watch"},
}, {
	APIGroups: []string{"projectcontour.io"},
	Resources: []string{"httpproxies/status"},
	Verbs:     []string{"create", "get", "update"},
}}

// Contour is a running Contour control plane (no Envoy): it builds its
// routing table from HTTPRoutes and HTTPProxies and serves it over xDS.
type Contour struct {
	// XDS is its xDS server, host:port on loopback (plaintext).
	XDS string
	// Debug is its debug listener (/debug/dag).
	Debug string

	cmd *exec.Cmd
	dir string
}

// ContourBinary is the contour binary.
func ContourBinary() string {
	return filepath.Join(BinDir(), "contour-"+ContourVersion, "contour")
}

// InstallContourCRDs creates the CRDs Contour needs, from its module's
// files (its own, and the Gateway API's experimental channel it ships),
// and waits until they are established.
func (c *Cluster) InstallContourCRDs(ctx context.Context) error {
	dir := filepath.Join(BinDir(), "contour-"+ContourVersion)
	ext, err := apiextensionsclient.NewForConfig(c.Config)
	if err != nil {
		return err
	}
	return createCRDs(ctx, ext, filepath.Join(dir, "contour-crds.yaml"), filepath.Join(dir, "gateway-api-crds.yaml"))
}

// contourKubeconfig creates Contour's ServiceAccount, its ClusterRole and
// binding, and writes a kubeconfig with a token for it (valid for a day).
func (c *Cluster) contourKubeconfig(ctx context.Context) (string, error) {
	token, err := c.serviceAccountToken(ctx, ContourNamespace, "contour", "contour", contourRules)
	if err != nil {
		return "", err
	}
	path := filepath.Join(c.Dir, "contour.kubeconfig")
	return path, os.WriteFile(path, []byte(fmt.Sprintf(tokenKubeconfigTmpl, c.Config.Host, c.Config.CAFile, token)), 0o600)
}

// StartContour runs `contour serve` against the cluster, as the
// ServiceAccount projectcontour/contour, serving the Gateway
// ContourNamespace/gateway (which the caller creates, with a GatewayClass
// whose controllerName is ContourGatewayClass), every listener on
// loopback. ExternalName Services stay refused (Contour's default). Stop
// it with Stop.
func (c *Cluster) StartContour(ctx context.Context, gateway string) (*Contour, error) {
	bin := ContourBinary()
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("contour is not built (%w): run hack/build-third-party.sh", err)
	}
	kubeconfig, err := c.contourKubeconfig(ctx)
	if err != nil {
		return nil, err
	}
	conf := filepath.Join(c.Dir, "contour.yaml")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf("gateway:\n  gatewayRef:\n    namespace: %s\n    name: %s\n", ContourNamespace, gateway)), 0o600); err != nil {
		return nil, err
	}
	ports, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	ct := &Contour{
		XDS:   fmt.Sprintf("127.0.0.1:%d", ports[0]),
		Debug: fmt.Sprintf("127.0.0.1:%d", ports[1]),
		dir:   c.Dir,
	}
	args := []string{
		"serve", "--kubeconfig", kubeconfig, "--config-path", conf, "--insecure", "--disable-leader-election",
		"--xds-address", "127.0.0.1", "--xds-port", fmt.Sprint(ports[0]),
		"--debug-http-address", "127.0.0.1", "--debug-http-port", fmt.Sprint(ports[1]),
		"--http-address", "127.0.0.1", "--http-port", fmt.Sprint(ports[2]),
		"--health-address", "127.0.0.1", "--health-port", fmt.Sprint(ports[2]),
	}
	ct.cmd, err = Run(filepath.Join(c.Dir, "contour.log"), nil, bin, args...)
	if err != nil {
		return nil, fmt.Errorf("failed to start contour: %w", err)
	}
	c.procs = append(c.procs, ct.cmd)
	if err := waitHTTP(ctx, "http://"+ct.Debug+"/debug/dag", nil, 60*time.Second); err != nil {
		return nil, fmt.Errorf("contour not ready: %w (see %s)", err, filepath.Join(c.Dir, "contour.log"))
	}
	return ct, nil
}

// Cmd is Contour's process, for Stop.
func (ct *Contour) Cmd() *exec.Cmd { return ct.cmd }

// xdsWatch streams one xDS type from Contour (`contour cli eds|rds|cds`)
// and keeps the latest resources it sent.
type xdsWatch struct {
	cmd *exec.Cmd

	mu      sync.Mutex
	latest  []json.RawMessage
	updates int
	done    chan struct{}
	err     error
}

// Snapshot returns the resources of the first response of a new `contour
// cli kind` stream (kind is eds, rds or cds; names filters the resources
// as Envoy asks for them, none for all): what Contour would send an Envoy
// that connected now. A long-lived cli stream is no substitute: the EDS
// stream stops receiving changes after the first responses (observed with
// v1.33.6's LinearCache, with and without resource names).
func (ct *Contour) Snapshot(kind string, names ...string) ([]json.RawMessage, error) {
	w, err := ct.watch(kind, names...)
	if err != nil {
		return nil, err
	}
	defer w.close()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		w.mu.Lock()
		latest, n, werr := w.latest, w.updates, w.err
		w.mu.Unlock()
		if n > 0 {
			return latest, nil
		}
		if werr != nil {
			return nil, werr
		}
		time.Sleep(5 * time.Millisecond)
	}
	return nil, fmt.Errorf("no %s response from contour within 5 s (see %s)", kind, filepath.Join(ct.dir, "contour-cli-"+kind+".log"))
}

// watch starts `contour cli kind` against Contour's xDS server; close it
// when done.
func (ct *Contour) watch(kind string, names ...string) (*xdsWatch, error) {
	cmd := exec.Command(ContourBinary(), append([]string{"cli", kind, "--contour", ct.XDS}, names...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	logf, err := os.Create(filepath.Join(ct.dir, "contour-cli-"+kind+".log"))
	if err != nil {
		return nil, err
	}
	cmd.Stderr = logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	w := &xdsWatch{cmd: cmd, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		defer logf.Close()
		w.read(stdout)
	}()
	return w, nil
}

// read decodes the stream of JSON documents the cli prints: its request,
// then each DiscoveryResponse.
func (w *xdsWatch) read(r io.Reader) {
	dec := json.NewDecoder(bufio.NewReader(r))
	for {
		var msg struct {
			TypeURL   string            `json:"type_url"`
			Resources []json.RawMessage `json:"resources"`
			Nonce     string            `json:"nonce"`
		}
		if err := dec.Decode(&msg); err != nil {
			w.mu.Lock()
			if err != io.EOF {
				w.err = err
			}
			w.mu.Unlock()
			return
		}
		if msg.Nonce == "" {
			continue // the request it sent
		}
		w.mu.Lock()
		w.latest, w.updates = msg.Resources, w.updates+1
		w.mu.Unlock()
	}
}

// close stops the cli.
func (w *xdsWatch) close() {
	if w.cmd.Process != nil {
		w.cmd.Process.Kill()
	}
	w.cmd.Wait()
	<-w.done
}
