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
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	corev1listers "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	servinglisters "knative.dev/serving/pkg/client/listers/serving/v1"

	netcfg "knative.dev/route-address/pkg/networking/config"
)

// InvalidModeAnnotation is the reason of the Warning event on a Route whose
// Namespace's route-address-mode annotation is not a mode.
const InvalidModeAnnotation = "InvalidModeAnnotation"

// namespaceNetwork returns the configuration the Routes of namespace ns are
// reconciled under: network with the mode of the Namespace's annotation
// (netcfg.RouteAddressModeAnnotationKey), network itself when it has none
// or is not found. An annotation that is not a mode leaves network's mode,
// and is returned as a Warning about the Route.
func namespaceNetwork(namespaces corev1listers.NamespaceLister, network *netcfg.Config, ns string) (*netcfg.Config, *warning) {
	n, err := namespaces.Get(ns)
	if err != nil {
		return network, nil
	}
	mode, err := network.RouteAddressModeFor(n.Annotations)
	if err != nil {
		return network, &warning{InvalidModeAnnotation, fmt.Sprintf("Namespace %q: %v; its Routes have config-network's %s %q",
			ns, err, netcfg.RouteAddressModeKey, network.RouteAddressMode)}
	}
	if mode == network.RouteAddressMode {
		return network, nil
	}
	copied := *network
	copied.RouteAddressMode = mode
	return &copied, nil
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
