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

package main

import (
	"context"
	"fmt"
	"log"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	netv1alpha1 "knative.dev/networking/pkg/apis/networking/v1alpha1"
	v1 "knative.dev/serving/pkg/apis/serving/v1"

	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/test/cluster"
)

// parallel runs f(i) for i in [0,n) on 16 workers.
func parallel(n int, f func(i int) error) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	ch := make(chan int)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range ch {
				if err := f(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for i := range n {
		ch <- i
	}
	close(ch)
	wg.Wait()
	return first
}

// createRoutes creates N ready Revisions and Routes (one tag each) and plays
// the ingress: every KIngress gets a ready status whose DomainInternal names
// the gateway.
func (b *bench) createRoutes() error {
	ctx := context.Background()
	err := parallel(b.n, func(i int) error { return b.createRoute(b.nss[i%len(b.nss)], fmt.Sprintf("r%d", i)) })
	if err != nil {
		return err
	}
	lb := []netv1alpha1.LoadBalancerIngressStatus{{DomainInternal: gwDomain}}
	done := map[string]bool{}
	deadline := time.Now().Add(b.patience())
	for len(done) < b.n {
		if time.Now().After(deadline) {
			return fmt.Errorf("only %d of %d KIngresses appeared", len(done), b.n)
		}
		var todo []*netv1alpha1.Ingress
		for _, ns := range b.nss {
			l, err := b.net.NetworkingV1alpha1().Ingresses(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return err
			}
			for i := range l.Items {
				if !done[ns+"/"+l.Items[i].Name] {
					todo = append(todo, &l.Items[i])
				}
			}
		}
		if err := parallel(len(todo), func(i int) error {
			ing := todo[i]
			ing.Status.ObservedGeneration = ing.Generation
			ing.Status.MarkNetworkConfigured()
			ing.Status.MarkLoadBalancerReady(lb, lb)
			_, err := b.net.NetworkingV1alpha1().Ingresses(ing.Namespace).UpdateStatus(ctx, ing, metav1.UpdateOptions{})
			return err
		}); err != nil {
			log.Printf("KIngress status (will retry): %v", err)
			continue
		}
		for _, ing := range todo {
			done[ing.Namespace+"/"+ing.Name] = true
		}
		if len(done) < b.n {
			time.Sleep(pollEvery)
		}
	}
	return nil
}

// countRoutes counts the Routes in the bench's namespaces: those an
// earlier run with the same -dir created.
func (b *bench) countRoutes(ctx context.Context) (int, error) {
	n := 0
	for _, ns := range b.nss {
		l, err := b.serving.ServingV1().Routes(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return 0, err
		}
		n += len(l.Items)
	}
	return n, nil
}

// createRoute creates a ready Revision and a Route to it with one tag.
func (b *bench) createRoute(namespace, name string) error {
	ctx := context.Background()
	rev := name + "-00001"
	if err := cluster.CreateReadyRevision(ctx, b.serving, namespace, rev); err != nil {
		return err
	}
	_, err := b.serving.ServingV1().Routes(namespace).Create(ctx, &v1.Route{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
		Spec: v1.RouteSpec{Traffic: []v1.TrafficTarget{
			{RevisionName: rev, Percent: ptr.To[int64](100), LatestRevision: ptr.To(false)},
			{RevisionName: rev, Tag: "tag", LatestRevision: ptr.To(false)},
		}},
	}, metav1.CreateOptions{})
	return err
}

// waitShape waits until all 2N Services have the final shape of mode.
func (b *bench) waitShape(mode netcfg.RouteAddressMode, ip string) error {
	ctx := context.Background()
	deadline := time.Now().Add(b.patience())
	for time.Now().Before(deadline) {
		ok, err := b.shaped(ctx, mode, ip)
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		time.Sleep(pollEvery)
	}
	return fmt.Errorf("not shaped for %s within %v", mode, b.patience())
}

func (b *bench) shaped(ctx context.Context, mode netcfg.RouteAddressMode, ip string) (bool, error) {
	per := b.n / len(b.nss)
	for i, ns := range b.nss {
		n := per
		if i < b.n%len(b.nss) {
			n++
		}
		ok, err := b.shapedIn(ctx, ns, n, mode, ip)
		if err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// shapedIn reports whether the n Routes in ns have mode's final shape.
func (b *bench) shapedIn(ctx context.Context, ns string, routes int, mode netcfg.RouteAddressMode, ip string) (bool, error) {
	svcs, err := b.kube.CoreV1().Services(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return false, err
	}
	good := 0
	for _, s := range svcs.Items {
		if mode.Managed() {
			if s.Spec.ClusterIP == corev1.ClusterIPNone {
				good++
			}
		} else if s.Spec.Type == corev1.ServiceTypeExternalName && s.Spec.ExternalName == gwDomain {
			good++
		}
	}
	if good != 2*routes {
		return false, nil
	}
	slices, err := b.kube.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{
		LabelSelector: discoveryv1.LabelManagedBy + "=routeaddress-controller.knative.dev",
	})
	if err != nil {
		return false, err
	}
	withIP := 0
	for _, s := range slices.Items {
		if len(s.Endpoints) == 1 && len(s.Endpoints[0].Addresses) == 1 && s.Endpoints[0].Addresses[0] == ip {
			withIP++
		}
	}
	want := 0
	if mode.WritesEndpointSlices() {
		want = 2 * routes
	}
	if withIP != want || len(slices.Items) != want {
		return false, nil
	}
	if mode.WritesEndpoints() {
		eps, err := b.kube.CoreV1().Endpoints(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		n := 0
		for _, e := range eps.Items {
			if len(e.Subsets) == 1 && len(e.Subsets[0].Addresses) == 1 && e.Subsets[0].Addresses[0].IP == ip {
				n++
			}
		}
		return n == 2*routes, nil
	}
	return true, nil
}

// writes counts the writes to Services, Endpoints and EndpointSlices in
// the Routes' namespaces since since.
func (b *bench) writes(since time.Time) int { return b.count(since, b.c.AuditWrites) }

// allWrites counts every object write in the Routes' namespaces since
// since: Revisions, Routes, KIngresses and their status too (not Events).
func (b *bench) allWrites(since time.Time) int { return b.count(since, b.c.AuditAllWrites) }

// count counts the writes audit finds in the Routes' namespaces that took
// effect, in one pass over the audit log (one pass per namespace made every
// wait on quiet() take tens of seconds at 10 000 Routes in 100 namespaces).
// Writes that did not (conflicts, refusals) are logged, not counted.
func (b *bench) count(since time.Time, audit func(time.Time, ...string) ([]cluster.AuditEvent, error)) int {
	ws, err := audit(since, b.nss...)
	if err != nil {
		log.Fatal(err)
	}
	took, not := cluster.Took(ws)
	if len(not) > 0 && len(not) != b.notTook {
		b.notTook = len(not)
		log.Printf("%d writes since %s did not take effect (not counted)", len(not), since.Format(time.TimeOnly))
	}
	return len(took)
}
