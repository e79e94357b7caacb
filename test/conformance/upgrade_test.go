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
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/test/cluster"
)

// seriesInputs are the files the series is made of (hack/upstream-patch.sh's
// inputs): a commit that changes none of them builds the same controller.
var seriesInputs = []string{"go.mod", "go.sum", "hack/upstream-patch.sh", "hack/upstream",
	"pkg/reconciler/routeaddress", "pkg/networking/config", "config/220-route-address-mode-policy.yaml"}

// TestUpgradeInPlace: an operator running the previous build swaps the
// controller's image for this one's with the cluster in
// endpointsandslices. The new controller's first reconcile of every Route
// (a restart: every informer lists everything) writes nothing to the
// Routes' Services, Endpoints and EndpointSlices: nothing is switched back
// or rewritten. The previous build is the controller the parent of the
// last commit that changed the series' files builds
// (E2E_UPGRADE_FROM=REV: that revision's instead).
func TestUpgradeInPlace(t *testing.T) {
	needLocal(t)
	const n = 10
	mode := netcfg.RouteAddressModeEndpointsAndSlices
	rev, bin := previousController(t)
	gw := namespace(t, "gw")
	const ip = "198.19.0.52"
	gatewayService(t, gw, "gateway", ip, 80)
	ns := namespace(t, "upgrade")

	stopController()
	previous, err := cluster.StartController(env.local, bin)
	if err != nil {
		t.Fatalf("starting the controller of %s: %v", rev, err)
	}
	t.Cleanup(func() {
		cluster.Stop(previous)
		if env.ctrl == nil {
			if err := startController(); err != nil {
				t.Error(err)
			}
		}
		setMode(t, netcfg.RouteAddressModeExternalName, netcfg.RouteAddressFallbackEnabled)
	})
	switched := time.Now()
	setMode(t, mode, netcfg.RouteAddressFallbackEnabled)
	steadyRoutes(t, ns, gw, n)
	waitAllShaped(t, ns, gw, ip, n, mode)
	auditQuiet(t, switched, ns, 3*time.Second)
	t.Logf("the controller of %s converged %d Routes (%d Services) in %s with %d writes",
		rev, n, 2*n, mode, len(auditWrites(t, switched, ns)))

	writes := resyncWrites(t, ns, mode, func() {
		cluster.Stop(previous)
		if err := startController(); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("upgraded from %s: %d writes %s", rev, len(writes), summarizeWrites(writes))
	if len(writes) != 0 {
		t.Errorf("upgrading from %s in %s: %d writes, want 0: %s", rev, mode, len(writes), summarizeWrites(writes))
	}
	// Each name still has its shape under the new controller.
	waitAllShaped(t, ns, gw, ip, n, mode)
}

// previousController builds the controller of the revision
// TestUpgradeInPlace upgrades from, in a worktree of this repository, and
// returns the revision and the binary: the controller image that
// revision's install builds (config/controller-patch.yaml): serving's
// cmd/controller as its hack/build-serving.sh builds it, or, in a
// revision from before the install used serving's, this repository's own.
func previousController(t *testing.T) (string, string) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("git", append([]string{"-C", root}, args...)...).Output()
		if err != nil {
			t.Fatalf("git %s: %v", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	rev := os.Getenv("E2E_UPGRADE_FROM")
	if rev == "" {
		if git("rev-parse", "--is-shallow-repository") == "true" {
			// A clone of one commit has no previous build: say so rather
			// than upgrade from this one to itself.
			t.Skip("a shallow clone has no previous revision to upgrade from")
		}
		rev = git(append([]string{"log", "-1", "--format=%H", "--"}, seriesInputs...)...) + "^"
	}
	rev = git("rev-parse", "--short", rev)
	dir := t.TempDir()
	tree := filepath.Join(dir, "tree")
	git("worktree", "add", "--detach", tree, rev)
	defer git("worktree", "remove", "--force", tree)
	patch, err := os.ReadFile(filepath.Join(tree, "config/controller-patch.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	image := regexp.MustCompile(`ko://(\S+)`).FindSubmatch(patch)
	if image == nil {
		t.Fatalf("%s: config/controller-patch.yaml names no ko:// image", rev)
	}
	var cmd *exec.Cmd
	switch pkg := string(image[1]); {
	case pkg == "knative.dev/serving/cmd/controller":
		cmd = exec.Command("./hack/build-serving.sh", dir)
	case strings.HasPrefix(pkg, "knative.dev/route-address/"):
		cmd = exec.Command("go", "build", "-o", dir, "./"+strings.TrimPrefix(pkg, "knative.dev/route-address/"))
	default:
		t.Fatalf("%s: config/controller-patch.yaml installs %s, which this test cannot build", rev, pkg)
	}
	cmd.Dir = tree
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the controller of %s: %v\n%s", rev, err, out)
	}
	t.Logf("built the controller of %s in %s", rev, time.Since(start).Round(time.Second))
	return rev, filepath.Join(dir, "controller")
}
