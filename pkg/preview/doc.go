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

// Package preview is the engine of the kubectl-route_address plugin: it
// reads Routes and their objects (listed, or for status --watch listed once
// and then watched: Watch), and runs the same
// resources and planner the controller runs, to show what switching
// route-address-mode would do (plan) and what each Route looks like now
// (status). Cleanup is its one writer: it removes what route-address left
// behind after a rollback.
package preview
