export { Metadata, type ServiceError, status as GrpcStatus } from "@grpc/grpc-js";
export * from "./grpcAdapter.js";
export * from "./grpcAuth.js";
export * from "./inProcessClient.js";
