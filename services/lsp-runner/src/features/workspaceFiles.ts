// read_file, list_files and search_text: the workspace's files as text, with no language server
// involved — the same path rules as every request, ripgrep for walking and searching.

import { RunnerError } from "../errors.js";
import { listFiles } from "../files/fileListing.js";
import { readWorkspaceFile } from "../files/fileReading.js";
import { searchText } from "../files/textSearch.js";
import { workspaceRef } from "../grpc/protoMapping.js";
import { defineFeature, rpcHandler } from "./runnerFeature.js";

export const workspaceFilesFeature = defineFeature({
  name: "workspace files",
  capabilities: {},
  cachedMethods: [],
  rpc: (engine) => ({
    readFile: rpcHandler(async (request) => {
      const paths = await engine.context.workspacePaths(workspaceRef(request.workspace));
      const answer = await readWorkspaceFile({
        paths,
        file: request.file,
        startLine: request.startLine,
        endLine: request.endLine,
        maxBytes: request.maxBytes,
      });
      return { ...answer, size: BigInt(answer.size) };
    }),
    listFiles: rpcHandler(async (request, context) => {
      const paths = await engine.context.workspacePaths(workspaceRef(request.workspace));
      const answer = await listFiles({
        root: paths.root,
        globs: request.globs,
        includeIgnored: request.includeIgnored,
        limit: request.limit,
        offset: request.offset,
        signal: context.signal,
      });
      return { ...answer, files: answer.files.map((f) => ({ file: f.file, size: BigInt(f.size) })) };
    }),
    searchText: rpcHandler(async (request, context) => {
      if (request.query === "") throw new RunnerError("INVALID_ARGUMENT", "query must not be empty");
      const paths = await engine.context.workspacePaths(workspaceRef(request.workspace));
      const answer = await searchText({
        root: paths.root,
        query: request.query,
        regex: request.regex,
        globs: request.globs,
        caseSensitive: request.caseSensitive,
        includeIgnored: request.includeIgnored,
        limit: request.limit,
        offset: request.offset,
        signal: context.signal,
      });
      return { ...answer, filesSearchedWithMatches: answer.filesWithMatches };
    }),
  }),
});
