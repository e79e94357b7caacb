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

// Package config holds the configuration store of the routeaddress
// reconciler: the route-address keys of the config-network ConfigMap
// (networking's Config fields, netcfg.Config here) and the route
// reconciler's configuration, which its resource constructors read from the
// context.
//
// This package is this repository's and is not sent to serving: there the
// reconciler reads the route-address fields of networking's Config from the
// route reconciler's store
// (hack/upstream/_serving/pkg/reconciler/routeaddress/config.go). Here the
// pinned networking has no such fields, so Store parses the two keys
// itself, with networking's parse (netcfg.NewConfigFromMapOrDefaults), for
// this package's tests.
package config
