// Creating lspmesh's KV buckets with the deployment's replicas (LSPMESH_JETSTREAM_REPLICAS). A
// bucket that exists is opened as it is: its replicas and limits stay what they were made with
// (raise them with `nats stream edit KV_<bucket> --replicas 3`, docs/operations.md).
import type { KV, Kvm, KvOptions } from "@nats-io/kv";
import { type RetryPolicy, retryTransient } from "./jetstreamRetry.js";

/** kvm.create, retried while the cluster is between leaders (default budget: jetstreamRetry.ts). */
export function createKvBucket(
  kvm: Kvm,
  bucket: string,
  options: Partial<KvOptions>,
  retry?: RetryPolicy,
): Promise<KV> {
  return retryTransient(() => kvm.create(bucket, options), retry);
}
