export { Metadata, type ServiceError, status as GrpcStatus } from "@grpc/grpc-js";
export * from "./gen/lspmesh/v1/runner_pb.js";
export * from "./grpcAdapter.js";
