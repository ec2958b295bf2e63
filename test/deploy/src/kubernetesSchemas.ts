// Validation of rendered objects against the Kubernetes API schemas (kubernetes-models: the
// OpenAPI schemas of the Kubernetes API and of the Prometheus Operator's and Gateway API's CRDs).

import { HTTPRoute } from "@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1";
import { PrometheusRule, ServiceMonitor } from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1";
import { Deployment, StatefulSet } from "kubernetes-models/apps/v1";
import { HorizontalPodAutoscaler } from "kubernetes-models/autoscaling/v2";
import { Ingress, NetworkPolicy } from "kubernetes-models/networking.k8s.io/v1";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1";
import {
  ConfigMap,
  Namespace,
  PersistentVolumeClaim,
  Pod,
  Secret,
  Service,
  ServiceAccount,
} from "kubernetes-models/v1";
import type { KubeObject } from "./kustomize.js";

type Model = new (data: never) => { validate(): void };

const MODELS: Record<string, Model> = {
  "v1/ConfigMap": ConfigMap,
  "v1/Namespace": Namespace,
  "v1/Pod": Pod,
  "v1/PersistentVolumeClaim": PersistentVolumeClaim,
  "v1/Secret": Secret,
  "v1/Service": Service,
  "v1/ServiceAccount": ServiceAccount,
  "apps/v1/Deployment": Deployment,
  "apps/v1/StatefulSet": StatefulSet,
  "autoscaling/v2/HorizontalPodAutoscaler": HorizontalPodAutoscaler,
  "networking.k8s.io/v1/NetworkPolicy": NetworkPolicy,
  "networking.k8s.io/v1/Ingress": Ingress,
  "gateway.networking.k8s.io/v1/HTTPRoute": HTTPRoute,
  "policy/v1/PodDisruptionBudget": PodDisruptionBudget,
  "monitoring.coreos.com/v1/ServiceMonitor": ServiceMonitor,
  "monitoring.coreos.com/v1/PrometheusRule": PrometheusRule,
};

/** The schema problem of an object, or undefined when it is valid. */
export function schemaProblem(object: KubeObject): string | undefined {
  const model = MODELS[`${object.apiVersion}/${object.kind}`];
  if (!model) return `no schema known for ${object.apiVersion} ${object.kind}`;
  // kustomize wraps a Secret's base64 at 70 columns; the API server's decoder skips the line
  // breaks, the schema's "byte" format does not.
  const data = object.kind === "Secret" && object.data ? { data: unwrapped(object.data) } : {};
  try {
    new model({ ...object, ...data } as never).validate();
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

function unwrapped(data: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, value.replace(/\s+/g, "")]));
}
