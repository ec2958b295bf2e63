// The baseline of every latency benchmark: typescript-language-server over stdio, asked directly
// with vscode-jsonrpc the way an editor asks it — same package, TypeScript and initialization
// options the runner uses (one tsserver, no syntax server, no typings acquisition), so what is
// left between it and lspmesh is what lspmesh adds. Files are opened on first use.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { descendantPids, isRunning } from "@lspmesh/test-kit";
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from "vscode-jsonrpc/node.js";

const require = createRequire(import.meta.url);
const CLI = require.resolve("typescript-language-server/lib/cli.mjs");
const TSSERVER = require.resolve("typescript/lib/tsserver.js");
/** How long the project may take to load before the first non-empty definition, in ms. */
const READY_TIMEOUT_MS = 180_000;
/** How long shutdown may take before the server is killed, in ms. */
const SHUTDOWN_TIMEOUT_MS = 5_000;

const LANGUAGE_IDS = {
  ".tsx": "typescriptreact",
  ".jsx": "javascriptreact",
  ".js": "javascript",
  ".mjs": "javascript",
  ".cjs": "javascript",
};

function languageIdOf(file) {
  const extension = file.slice(file.lastIndexOf("."));
  return LANGUAGE_IDS[extension] ?? "typescript";
}

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} took more than ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Starts typescript-language-server on `folder` and initializes it. The answer has request(method,
 * file, params): opens `file` (workspace-relative) if needed and sends the request; waitUntilReady
 * (query); close().
 */
export async function startDirectServer(folder) {
  const child = spawn(process.execPath, [CLI, "--stdio"], { cwd: folder, stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk) => {
    stderr = (stderr + chunk).slice(-4000); // the tail is enough to say why it failed
  });
  const exited = once(child, "exit");
  const connection = createMessageConnection(
    new StreamMessageReader(child.stdout),
    new StreamMessageWriter(child.stdin),
  );
  // Server → client requests: configuration gets "no settings", the rest (progress tokens) null.
  connection.onRequest((method, params) =>
    method === "workspace/configuration" ? (params?.items ?? []).map(() => null) : null,
  );
  connection.onNotification(() => {});
  connection.listen();
  void exited.then(() => connection.dispose());

  const opened = new Set();
  const open = (file) => {
    if (opened.has(file)) return;
    opened.add(file);
    void connection.sendNotification("textDocument/didOpen", {
      textDocument: {
        uri: pathToFileURL(join(folder, file)).href,
        languageId: languageIdOf(file),
        version: 1,
        text: readFileSync(join(folder, file), "utf8"),
      },
    });
  };

  let closing;
  const close = () => {
    closing ??= (async () => {
      const leftovers = descendantPids(child.pid); // tsserver, which a killed wrapper would orphan
      if (child.exitCode === null && child.signalCode === null) {
        try {
          await withTimeout(connection.sendRequest("shutdown"), SHUTDOWN_TIMEOUT_MS, "shutdown");
          await connection.sendNotification("exit");
          await withTimeout(exited, SHUTDOWN_TIMEOUT_MS, "exit");
        } catch {
          child.kill("SIGKILL");
          await exited;
        }
      }
      connection.dispose();
      for (const pid of leftovers.filter(isRunning)) process.kill(pid, "SIGKILL");
    })();
    return closing;
  };

  try {
    const rootUri = pathToFileURL(folder).href;
    const initialized = await connection.sendRequest("initialize", {
      processId: process.pid,
      rootUri,
      workspaceFolders: [{ uri: rootUri, name: "workspace" }],
      capabilities: {
        textDocument: {
          synchronization: { didSave: true },
          definition: { linkSupport: false },
          references: {},
          hover: { contentFormat: ["markdown", "plaintext"] },
        },
        workspace: { configuration: true, workspaceFolders: true },
        window: { workDoneProgress: true },
      },
      initializationOptions: {
        tsserver: { path: TSSERVER, useSyntaxServer: "never" },
        disableAutomaticTypingAcquisition: true,
        maxTsServerMemory: 3072,
        plugins: [],
      },
    });
    await connection.sendNotification("initialized", {});
    const server =
      `${initialized.serverInfo?.name ?? "typescript-language-server"} ${initialized.serverInfo?.version ?? ""}`.trim();

    /** Sends an LSP request about `file` (opened first if it is not yet). */
    const request = (method, file, params) => {
      open(file);
      return connection.sendRequest(method, params);
    };

    /** Asks for the definition at `query` until one comes back: the project is loaded then. */
    const waitUntilReady = async (query) => {
      const deadline = Date.now() + READY_TIMEOUT_MS;
      const uri = pathToFileURL(join(folder, query.file)).href;
      for (;;) {
        const result = await request("textDocument/definition", query.file, {
          textDocument: { uri },
          position: query.position,
        });
        if (Array.isArray(result) ? result.length > 0 : result) return;
        if (Date.now() > deadline)
          throw new Error(`no definition at ${query.file}:${query.line}:${query.column} after ${READY_TIMEOUT_MS} ms`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    };

    return { server, pid: child.pid, request, waitUntilReady, close, stderr: () => stderr };
  } catch (error) {
    await close();
    throw new Error(`typescript-language-server did not start: ${error.message}\n${stderr}`);
  }
}
