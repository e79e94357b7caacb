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

// This file is where the reconciler meets its configuration, and the one
// file of this package that serving's differs in
// (hack/upstream/_serving/pkg/reconciler/routeaddress/config.go): there the
// route-address settings are fields of networking's Config, read from the
// route reconciler's store, and a value that is not allowed is refused by
// the config webhook through networking's parse. Here the pinned networking
// has no such fields, so routeaddress/config's Store parses the two keys
// and reports a bad value (a log line and a Warning event on the
// ConfigMap) instead of failing.

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"

	kubeclient "knative.dev/pkg/client/injection/kube/client"
	"knative.dev/pkg/controller"
	"knative.dev/pkg/logging"
	routecfg "knative.dev/serving/pkg/reconciler/route/config"

	networkingcfg "knative.dev/networking/pkg/config"
	netcfg "knative.dev/route-address/pkg/networking/config"
	"knative.dev/route-address/pkg/reconciler/routeaddress/config"
)

// newConfigStore returns the store of what a reconcile reads: the route
// reconciler's configuration (its resource constructors read it from the
// context) and the route-address settings. onAfterStore callbacks run
// after a ConfigMap has been parsed and stored.
func newConfigStore(ctx context.Context, onAfterStore ...func(name string, value interface{})) *config.Store {
	return config.NewStore(ctx, reportBadConfig(ctx), onAfterStore...)
}

// networkFromContext returns the network configuration in ctx (its
// route-address settings), and the defaults when it has none.
func networkFromContext(ctx context.Context) *netcfg.Config {
	return config.FromContextOrDefaults(ctx).Network
}

// shapesServices reports whether a stored configuration value is one that
// names a Route's Services, fills their metadata or chooses their shape:
// the network and domain configuration and the route-address settings
// (networking's Config, and this repository's netcfg.Config of the two keys).
func shapesServices(value interface{}) bool {
	switch value.(type) {
	case *networkingcfg.Config, *routecfg.Domain, *netcfg.Config:
		return true
	}
	return false
}

// reportBadConfig reports a bad route-address value as an error log line
// and a Warning event on the ConfigMap, naming the key, the value, the
// allowed values and what is used instead. The config store calls it once
// per bad value; it is the only one of the process's stores that reports.
func reportBadConfig(ctx context.Context) config.Report {
	logger := logging.FromContext(ctx)
	recorder := controller.GetEventRecorder(ctx)
	if recorder == nil {
		b := record.NewBroadcaster()
		b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: kubeclient.Get(ctx).CoreV1().Events("")})
		recorder = b.NewRecorder(scheme.Scheme, corev1.EventSource{Component: AgentName})
		go func() {
			<-ctx.Done()
			b.Shutdown()
		}()
	}
	return func(cm *corev1.ConfigMap, err error) {
		logger.Errorw("Invalid route-address configuration", "error", err)
		recorder.Event(cm, corev1.EventTypeWarning, "InvalidConfiguration", err.Error())
	}
}
