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

package preview

import (
	"context"
	"fmt"
	"io"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrs "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"knative.dev/route-address/pkg/reconciler/routeaddress/resources/names"
)

// DryRun is how Cleanup writes, as kubectl's --dry-run says it.
type DryRun string

const (
	// DryRunNone writes.
	DryRunNone DryRun = "none"
	// DryRunClient writes nothing and reports what it would do.
	DryRunClient DryRun = "client"
	// DryRunServer sends each write as a server-side dry run: admission
	// runs, nothing is stored.
	DryRunServer DryRun = "server"
)

// DryRuns lists the DryRun values.
var DryRuns = []DryRun{DryRunNone, DryRunClient, DryRunServer}

// CleanupReport says what Cleanup did (or, in a dry run, would do).
type CleanupReport struct {
	DryRun DryRun   `json:"dryRun"`
	Done   []string `json:"done"`
	// Kept are objects left because removing them would leave a name
	// without addresses.
	Kept []string `json:"kept"`
}

// Cleanup removes what route-address left behind when the stock serving
// controller replaced it while a managed mode was set (a rollback without
// switching to ExternalName first): the marks come off our Endpoints (so
// that kube-controller-manager mirrors them again), and each of our
// EndpointSlices is deleted once something else serves its name (the
// Service is not headless, or a mirrored slice of the Endpoints upstream
// keeps exists; waited for up to wait). It refuses while a route-address
// controller runs: those objects are its own.
func (c Clients) Cleanup(ctx context.Context, s Scope, dryRun DryRun, wait time.Duration) (*CleanupReport, error) {
	st, err := c.controllerState(ctx, s.SystemNamespace, c.now())
	if err != nil {
		return nil, err
	}
	if st.RouteAddressLeader != "" {
		return nil, fmt.Errorf("route-address runs (lease held by %s) and owns these objects: set route-address-mode to ExternalName instead and wait until `kubectl route-address status` lists nothing left behind", st.RouteAddressLeader)
	}
	cl, err := c.read(ctx, s)
	if err != nil {
		return nil, err
	}
	rep := &CleanupReport{DryRun: dryRun, Done: []string{}, Kept: []string{}}
	// In a server-side dry run nothing is stored, so no mirrored slice
	// appears: what would serve a name is judged as in a client one.
	simulated := dryRun != DryRunNone
	var serverDryRun []string
	if dryRun == DryRunServer {
		serverDryRun = []string{metav1.DryRunAll}
	}
	for _, ep := range cl.endpoints {
		if ep.Labels[names.MarkLabel] == "" {
			continue
		}
		rep.Done = append(rep.Done, fmt.Sprintf("Endpoints %s/%s: labels %s and %s removed", ep.Namespace, ep.Name, names.MarkLabel, discoveryv1.LabelSkipMirror))
		if dryRun == DryRunClient {
			continue
		}
		ep = ep.DeepCopy()
		delete(ep.Labels, names.MarkLabel)
		delete(ep.Labels, discoveryv1.LabelSkipMirror)
		if _, err := c.Kube.CoreV1().Endpoints(ep.Namespace).Update(ctx, ep, metav1.UpdateOptions{DryRun: serverDryRun}); err != nil {
			return rep, c.explain(err, "update Endpoints "+ep.Namespace+"/"+ep.Name)
		}
	}
	services := map[string]*corev1.Service{}
	for _, x := range cl.services {
		services[x.Namespace+"/"+x.Name] = x
	}
	endpoints := map[string]bool{}
	for _, x := range cl.endpoints {
		endpoints[x.Namespace+"/"+x.Name] = true
	}
	for _, sl := range cl.slices {
		svc := sl.Labels[discoveryv1.LabelServiceName]
		what := fmt.Sprintf("EndpointSlice %s/%s", sl.Namespace, sl.Name)
		key := sl.Namespace + "/" + svc
		served, why, err := c.servedOtherwise(ctx, sl.Namespace, svc, services[key], endpoints[key], simulated, wait)
		if err != nil {
			return rep, err
		}
		if !served {
			rep.Kept = append(rep.Kept, fmt.Sprintf("%s: kept, %s", what, why))
			continue
		}
		rep.Done = append(rep.Done, fmt.Sprintf("%s: deleted (%s)", what, why))
		if dryRun == DryRunClient {
			continue
		}
		err = c.Kube.DiscoveryV1().EndpointSlices(sl.Namespace).Delete(ctx, sl.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &sl.UID}, DryRun: serverDryRun})
		if err != nil && !apierrs.IsNotFound(err) {
			return rep, c.explain(err, "delete "+what)
		}
	}
	return rep, nil
}

// servedOtherwise reports whether the Service svc's name (s, nil when it
// does not exist; hasEndpoints, whether an Endpoints of that name does) has
// addresses without our slices, and why (or why not). simulated: the marks
// did not really come off, so the mirrored slice is not waited for.
func (c Clients) servedOtherwise(ctx context.Context, ns, svc string, s *corev1.Service, hasEndpoints, simulated bool, wait time.Duration) (bool, string, error) {
	switch {
	case s == nil:
		return true, "its Service is gone", nil
	case s.Spec.Type == corev1.ServiceTypeExternalName:
		return true, "its Service is ExternalName", nil
	case s.Spec.ClusterIP != corev1.ClusterIPNone:
		return true, "its Service has a ClusterIP", nil
	}
	if !hasEndpoints {
		return false, "its headless Service has no Endpoints: nothing else would serve the name", nil
	}
	if simulated {
		return true, "the Endpoints upstream keeps are mirrored", nil
	}
	// The marks just came off: kube-controller-manager mirrors the
	// Endpoints into a slice of its own.
	deadline := time.Now().Add(wait)
	for {
		l, err := c.Kube.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{
			LabelSelector: discoveryv1.LabelServiceName + "=" + svc + "," + discoveryv1.LabelManagedBy + "=" + names.MirroredBy,
		})
		if err != nil {
			return false, "", c.explain(err, "list EndpointSlices")
		}
		if len(l.Items) > 0 {
			return true, "the Endpoints upstream keeps are mirrored", nil
		}
		if time.Now().After(deadline) {
			return false, fmt.Sprintf("no mirrored slice of its Endpoints appeared within %v (is kube-controller-manager's EndpointSliceMirroring controller running?)", wait), nil
		}
		select {
		case <-ctx.Done():
			return false, "", ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// WriteTable prints the report for people.
func (rep *CleanupReport) WriteTable(w io.Writer) {
	verb := "done"
	switch rep.DryRun {
	case DryRunClient:
		verb = "would be done (dry run)"
	case DryRunServer:
		verb = "accepted by the apiserver (server dry run, nothing stored)"
	}
	if len(rep.Done)+len(rep.Kept) == 0 {
		fmt.Fprintln(w, "nothing of route-address's is left behind")
		return
	}
	fmt.Fprintf(w, "%d changes %s:\n", len(rep.Done), verb)
	for _, d := range rep.Done {
		fmt.Fprintf(w, "  %s\n", d)
	}
	if len(rep.Kept) > 0 {
		fmt.Fprintf(w, "%d objects kept:\n", len(rep.Kept))
		for _, k := range rep.Kept {
			fmt.Fprintf(w, "  %s\n", k)
		}
	}
}
