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
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// EnvoyGatewayVersion is the envoyproxy/gateway version
// third_party/envoy-gateway builds (keep in step with
// hack/build-third-party.sh). The build copies the CRD files of its module
// next to the binary, without their Helm conditionals.
const EnvoyGatewayVersion = "v1.9.1"

// EnvoyGatewayNamespace is Envoy Gateway's own namespace (its default),
// where it would deploy the Envoy of each Gateway.
const EnvoyGatewayNamespace = "envoy-gateway-system"

// EnvoyGatewayClass is the controllerName Envoy Gateway's GatewayClass names.
const EnvoyGatewayClass = "gateway.envoyproxy.io/gatewayclass-controller"

// envoyGatewayXDS is Envoy Gateway's xDS server (its port is fixed).
const envoyGatewayXDS = "127.0.0.1:18000"

// envoyGatewayCerts is where Envoy Gateway reads its xDS server's
// certificate when its provider is Kubernetes (a fixed path, a Secret
// mounted in its pod). It runs in a mount namespace of its own with its
// certificates bound there: the directory is created if missing (and
// removed by Stop), nothing is written into it.
const envoyGatewayCerts = "/certs"

// EnvoyGateway is a running Envoy Gateway control plane (no Envoy): it
// builds each Gateway's configuration from Gateway API objects and serves
// it over xDS.
type EnvoyGateway struct {
	cmd        *exec.Cmd
	dir        string
	madeCerts  bool
	clientCert string
}

func envoyGatewayDir() string {
	return filepath.Join(BinDir(), "envoy-gateway-"+EnvoyGatewayVersion)
}

// EnvoyGatewayBinary is the envoy-gateway binary.
func EnvoyGatewayBinary() string { return filepath.Join(envoyGatewayDir(), "envoy-gateway") }

// InstallEnvoyGatewayCRDs creates the CRDs Envoy Gateway needs, from its
// module's files (the Gateway API's standard channel it ships, and its
// own), and waits until they are established.
func (c *Cluster) InstallEnvoyGatewayCRDs(ctx context.Context) error {
	ext, err := apiextensionsclient.NewForConfig(c.Config)
	if err != nil {
		return err
	}
	dir := envoyGatewayDir()
	return createCRDs(ctx, ext, filepath.Join(dir, "gateway-api-crds.yaml"), filepath.Join(dir, "envoy-gateway-crds.yaml"))
}

// envoyGatewayConfig is its EnvoyGateway configuration: the Kubernetes
// provider without leader election or the topology webhook (no pod is
// scheduled here), its admin and health listeners on loopback.
const envoyGatewayConfig = `apiVersion: gateway.envoyproxy.io/v1alpha1
kind: EnvoyGateway
gateway:
  controllerName: ` + EnvoyGatewayClass + `
provider:
  type: Kubernetes
  kubernetes:
    leaderElection:
      disable: true
    proxyTopologyInjector:
      disabled: true
admin:
  address:
    host: 127.0.0.1
    port: 19000
logging:
  level:
    default: info
`

// StartEnvoyGateway runs `envoy-gateway server` against the cluster with
// the admin kubeconfig (it creates the Deployments, Services and
// ServiceAccounts of each Gateway's Envoy, which here never run; its Helm
// chart's role is cluster-wide too), after `envoy-gateway certgen --local`
// made its certificates. It serves every GatewayClass whose controllerName
// is EnvoyGatewayClass. Stop it with Stop.
func (c *Cluster) StartEnvoyGateway(ctx context.Context) (*EnvoyGateway, error) {
	bin := EnvoyGatewayBinary()
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("envoy-gateway is not built (%w): run hack/build-third-party.sh ingresses", err)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: EnvoyGatewayNamespace}}
	if _, err := c.Client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil && !apierrs.IsAlreadyExists(err) {
		return nil, err
	}
	dir := filepath.Join(c.Dir, "envoy-gateway")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if out, err := exec.CommandContext(ctx, bin, "certgen", "--local", "--config-home", dir).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("envoy-gateway certgen: %w\n%s", err, out)
	}
	// The Secrets its Helm chart's certgen job would make, from the same
	// certificates: its translation refuses a Gateway without Envoy's.
	for _, name := range []string{"envoy-gateway", "envoy", "envoy-rate-limit", "envoy-oidc-hmac"} {
		secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: EnvoyGatewayNamespace, Name: name}, Data: map[string][]byte{}}
		files := []string{"tls.crt", "tls.key", "ca.crt"}
		secret.Type = corev1.SecretTypeTLS
		if name == "envoy-oidc-hmac" {
			files, secret.Type = []string{"hmac-secret"}, corev1.SecretTypeOpaque
		}
		for _, f := range files {
			b, err := os.ReadFile(filepath.Join(dir, "certs", name, f))
			if err != nil {
				return nil, err
			}
			secret.Data[f] = b
		}
		if _, err := c.Client.CoreV1().Secrets(EnvoyGatewayNamespace).Create(ctx, secret, metav1.CreateOptions{}); err != nil && !apierrs.IsAlreadyExists(err) {
			return nil, err
		}
	}
	conf := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(conf, []byte(envoyGatewayConfig), 0o600); err != nil {
		return nil, err
	}
	eg := &EnvoyGateway{dir: dir, clientCert: filepath.Join(dir, "certs", "envoy")}
	if _, err := os.Stat(envoyGatewayCerts); errors.Is(err, os.ErrNotExist) {
		if err := os.Mkdir(envoyGatewayCerts, 0o755); err != nil {
			return nil, err
		}
		eg.madeCerts = true
	}
	script := fmt.Sprintf("mount --bind %q %s && exec %q server --config-path %q",
		filepath.Join(dir, "certs", "envoy-gateway"), envoyGatewayCerts, bin, conf)
	var err error
	eg.cmd, err = Run(filepath.Join(c.Dir, "envoy-gateway.log"), []string{"KUBECONFIG=" + c.Kubeconfig},
		"unshare", "--mount", "--propagation", "private", "sh", "-c", script)
	if err != nil {
		eg.removeCerts()
		return nil, fmt.Errorf("failed to start envoy-gateway: %w", err)
	}
	c.procs = append(c.procs, eg.cmd)
	if err := waitHTTP(ctx, "http://127.0.0.1:19000/api/info", nil, 60*time.Second); err != nil {
		eg.Stop()
		return nil, fmt.Errorf("envoy-gateway not ready: %w (see %s)", err, filepath.Join(c.Dir, "envoy-gateway.log"))
	}
	return eg, nil
}

// Stop stops Envoy Gateway and removes the directory it was given for its
// certificates if it made it.
func (eg *EnvoyGateway) Stop() {
	stop(eg.cmd)
	eg.removeCerts()
}

func (eg *EnvoyGateway) removeCerts() {
	if eg.madeCerts {
		_ = os.Remove(envoyGatewayCerts)
		eg.madeCerts = false
	}
}

// Snapshot returns the resources of kind (cds, eds, rds or lds) that Envoy
// Gateway's xDS server sends, in its first response, to an Envoy of the
// Gateway namespace/name that connected now (third_party/envoy-gateway's
// xdsdump, with the client certificate certgen made for Envoy).
func (eg *EnvoyGateway) Snapshot(ctx context.Context, gateway, kind string) ([]json.RawMessage, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(envoyGatewayDir(), "xdsdump"),
		"-server", envoyGatewayXDS, "-certs", eg.clientCert, "-cluster", gateway, "-type", kind)
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("xdsdump %s: %w: %s", kind, err, ee.Stderr)
		}
		return nil, err
	}
	var resp struct {
		Resources []json.RawMessage `json:"resources"`
	}
	if err := json.Unmarshal(out, &resp); err != nil {
		return nil, fmt.Errorf("xdsdump %s: %w", kind, err)
	}
	return resp.Resources, nil
}
