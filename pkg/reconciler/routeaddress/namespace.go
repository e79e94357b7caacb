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

package routeaddress

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	//series:warned
	"k8s.io/apimachinery/pkg/types"
	//series:end
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"knative.dev/pkg/controller"
	"knative.dev/pkg/logging"
	servinglisters "knative.dev/serving/pkg/client/listers/serving/v1"

	netcfg "knative.dev/route-address/pkg/networking/config"
)

// InvalidModeAnnotation is why a name is left as it is: its Namespace's
// route-address-mode annotation is not a mode. It is also the reason of the
// Warning event on that Namespace.
const InvalidModeAnnotation = "InvalidModeAnnotation"

// namespaceNetwork returns the configuration the Routes of namespace ns are
// reconciled under: network with the mode of the Namespace's annotation
// (netcfg.RouteAddressModeAnnotationKey), network itself when it has none
// or is not found. A Namespace whose annotation is not a mode is returned
// with network: the names of its Routes that have a Service are held as
// they are (plan.Input.HoldExisting), and the others get network's mode.
func namespaceNetwork(namespaces corev1listers.NamespaceLister, network *netcfg.Config, ns string) (*netcfg.Config, *invalidNamespace) {
	n, err := namespaces.Get(ns)
	if err != nil {
		return network, nil
	}
	mode, err := network.RouteAddressModeFor(n.Annotations)
	if err != nil {
		return network, &invalidNamespace{namespace: n, message: fmt.Sprintf(
			"%v; the Services, Endpoints and EndpointSlices of the Routes in Namespace %q are left as they are, and names that have no Service get config-network's %s %q, until the annotation is a mode or is removed",
			err, ns, netcfg.RouteAddressModeKey, network.RouteAddressMode)}
	}
	if mode == network.RouteAddressMode {
		return network, nil
	}
	copied := *network
	copied.RouteAddressMode = mode
	return &copied, nil
}

// invalidNamespace is a Namespace whose route-address-mode annotation is
// not a mode, and the Warning that says so.
type invalidNamespace struct {
	namespace *corev1.Namespace
	message   string
}

// reportInvalid records the Warning about a Namespace whose annotation is
// not a mode.
func (c *Reconciler) reportInvalid(ctx context.Context, n *invalidNamespace) {
	w := warning{InvalidModeAnnotation, n.message}
	//series:warned
	// Once for all its Routes, and again after an hour while it holds.
	if c.warned != nil && len(c.warned.filter(types.NamespacedName{Name: n.namespace.Name}, []string{w.key()})) == 0 {
		return
	}
	//series:end
	logging.FromContext(ctx).Warnw(n.message, "namespace", n.namespace.Name)
	controller.GetEventRecorder(ctx).Event(n.namespace, corev1.EventTypeWarning, w.reason, w.message)
}

// OnNamespaceMode returns a Namespace event handler that enqueues the
// Routes in a Namespace whose route-address-mode annotation changed: the
// route reconciler's and this one's.
func OnNamespaceMode(routes servinglisters.RouteLister, enqueue func(interface{})) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(oldObj, newObj interface{}) {
			o, ok1 := oldObj.(*corev1.Namespace)
			n, ok2 := newObj.(*corev1.Namespace)
			if !ok1 || !ok2 || o.Annotations[netcfg.RouteAddressModeAnnotationKey] == n.Annotations[netcfg.RouteAddressModeAnnotationKey] {
				return
			}
			rs, err := routes.Routes(n.Name).List(labels.Everything())
			if err != nil {
				return
			}
			for _, r := range rs {
				enqueue(r)
			}
		},
	}
}
