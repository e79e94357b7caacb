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

package webhook

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"knative.dev/pkg/configmap"
	"knative.dev/pkg/controller"
	"knative.dev/pkg/injection"
	"knative.dev/pkg/leaderelection"
	"knative.dev/pkg/logging"
	"knative.dev/pkg/webhook"
	"knative.dev/pkg/webhook/certificates"
	"knative.dev/pkg/webhook/configmaps"
	"knative.dev/pkg/webhook/resourcesemantics"
	"knative.dev/pkg/webhook/resourcesemantics/defaulting"
	"knative.dev/pkg/webhook/resourcesemantics/validation"
	servingv1beta1 "knative.dev/serving/pkg/apis/serving/v1beta1"
	o11yconfigmap "knative.dev/serving/pkg/observability/configmap"
	certconfig "knative.dev/serving/pkg/reconciler/certificate/config"

	net "knative.dev/networking/pkg/apis/networking/v1alpha1"
	autoscalingv1alpha1 "knative.dev/serving/pkg/apis/autoscaling/v1alpha1"
	servingv1 "knative.dev/serving/pkg/apis/serving/v1"
	extravalidation "knative.dev/serving/pkg/webhook"

	networkingcfg "knative.dev/networking/pkg/config"
	apisconfig "knative.dev/serving/pkg/apis/config"
	autoscalerconfig "knative.dev/serving/pkg/autoscaler/config"
	"knative.dev/serving/pkg/deployment"
	"knative.dev/serving/pkg/gc"
	domainconfig "knative.dev/serving/pkg/reconciler/route/config"

	netcfg "knative.dev/route-address/pkg/networking/config"
)

// Types are the resources serving's webhook defaults and validates.
var Types = map[schema.GroupVersionKind]resourcesemantics.GenericCRD{
	servingv1.SchemeGroupVersion.WithKind("Revision"):      &servingv1.Revision{},
	servingv1.SchemeGroupVersion.WithKind("Configuration"): &servingv1.Configuration{},
	servingv1.SchemeGroupVersion.WithKind("Route"):         &servingv1.Route{},
	servingv1.SchemeGroupVersion.WithKind("Service"):       &servingv1.Service{},

	autoscalingv1alpha1.SchemeGroupVersion.WithKind("PodAutoscaler"): &autoscalingv1alpha1.PodAutoscaler{},
	autoscalingv1alpha1.SchemeGroupVersion.WithKind("Metric"):        &autoscalingv1alpha1.Metric{},

	net.SchemeGroupVersion.WithKind("Certificate"):       &net.Certificate{},
	net.SchemeGroupVersion.WithKind("Ingress"):           &net.Ingress{},
	net.SchemeGroupVersion.WithKind("ServerlessService"): &net.ServerlessService{},

	servingv1beta1.SchemeGroupVersion.WithKind("DomainMapping"): &servingv1beta1.DomainMapping{},
}

// Callbacks are serving's extra validations of Services and Configurations.
var Callbacks = map[schema.GroupVersionKind]validation.Callback{
	servingv1.SchemeGroupVersion.WithKind("Service"):       validation.NewCallback(extravalidation.ValidateService, webhook.Create, webhook.Update),
	servingv1.SchemeGroupVersion.WithKind("Configuration"): validation.NewCallback(extravalidation.ValidateConfiguration, webhook.Create, webhook.Update),
}

// Constructors are serving's webhook controllers, in its order.
func Constructors() []injection.ControllerConstructor {
	return []injection.ControllerConstructor{
		certificates.NewController,
		NewDefaultingAdmissionController,
		NewValidationAdmissionController,
		NewConfigValidationController,
	}
}

// NewDefaultingAdmissionController is serving's defaulting webhook.
func NewDefaultingAdmissionController(ctx context.Context, cmw configmap.Watcher) *controller.Impl {
	store := apisconfig.NewStore(logging.FromContext(ctx).Named("config-store"))
	store.WatchConfigs(cmw)
	return defaulting.NewAdmissionController(ctx, "webhook.serving.knative.dev", "/defaulting", Types, store.ToContext, false)
}

// NewValidationAdmissionController is serving's resource validation webhook.
func NewValidationAdmissionController(ctx context.Context, cmw configmap.Watcher) *controller.Impl {
	store := apisconfig.NewStore(logging.FromContext(ctx).Named("config-store"))
	store.WatchConfigs(cmw)
	return validation.NewAdmissionController(ctx, "validation.webhook.serving.knative.dev", "/resource-validation", Types, store.ToContext, false, Callbacks)
}

// NewConfigValidationController is serving's ConfigMap validation webhook,
// with config-network validated by NewNetworkConfigFromConfigMap.
func NewConfigValidationController(ctx context.Context, _ configmap.Watcher) *controller.Impl {
	return configmaps.NewAdmissionController(ctx, "config.webhook.serving.knative.dev", "/config-validation", ConfigConstructors(ctx))
}

// ConfigConstructors are the ConfigMaps serving's webhook validates and
// how, with config-network's parser replaced by
// NewNetworkConfigFromConfigMap.
func ConfigConstructors(ctx context.Context) configmap.Constructors {
	return configmap.Constructors{
		autoscalerconfig.ConfigName:      autoscalerconfig.NewConfigFromConfigMap,
		gc.ConfigName:                    gc.NewConfigFromConfigMapFunc(ctx),
		networkingcfg.ConfigMapName:      NewNetworkConfigFromConfigMap,
		deployment.ConfigName:            deployment.NewConfigFromConfigMap,
		apisconfig.FeaturesConfigName:    apisconfig.NewFeaturesConfigFromConfigMap,
		o11yconfigmap.Name():             o11yconfigmap.Parse,
		logging.ConfigMapName():          logging.NewConfigFromConfigMap,
		leaderelection.ConfigMapName():   leaderelection.NewConfigFromConfigMap,
		domainconfig.DomainConfigName:    domainconfig.NewDomainFromConfigMap,
		apisconfig.DefaultsConfigName:    apisconfig.NewDefaultsConfigFromConfigMap,
		certconfig.CertManagerConfigName: certconfig.NewCertManagerConfigFromConfigMap,
	}
}

// NewNetworkConfigFromConfigMap is knative/networking's parser of
// config-network, which serving's webhook uses, followed by the
// route-address keys': either error refuses the ConfigMap.
func NewNetworkConfigFromConfigMap(cm *corev1.ConfigMap) (*networkingcfg.Config, error) {
	c, err := networkingcfg.NewConfigFromConfigMap(cm)
	if err != nil {
		return nil, err
	}
	if _, err := netcfg.NewConfigFromMap(cm.Data); err != nil {
		return nil, fmt.Errorf("invalid ConfigMap %s/%s: %w", cm.Namespace, cm.Name, err)
	}
	return c, nil
}
