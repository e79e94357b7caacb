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

// Package controllers is the set of controllers the serving controller
// binary runs with route-address: knative.dev/serving v0.50.0's own, with the
// route controller's Service and Endpoints writes fenced, plus routeaddress.
// The binary and the e2e harness both start them from here.
package controllers
