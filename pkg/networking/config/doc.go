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

// Package config stands in for knative.dev/networking/pkg/config as the
// knative/networking pull request changes it: route_address.go and its test
// are that pull request's new file, sent there verbatim by
// hack/upstream-patch.sh, and networking.go gives the fields that pull
// request adds to networking's Config, and the few other names of the
// package that the routeaddress packages use. The routeaddress packages import
// this package as netcfg; in the serving patch the import path becomes
// knative.dev/networking/pkg/config and nothing else changes.
//
// The pinned knative.dev/networking has no route-address fields in its
// Config, so this repository's binary parses the two keys itself
// (NewConfigFromMap, in the webhook and the plugin, and
// NewConfigFromMapOrDefaults in routeaddress/config's store).
package config
