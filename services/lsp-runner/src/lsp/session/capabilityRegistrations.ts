// Capabilities a server registers at run time (`client/registerCapability`): which file changes it
// wants to hear about (`workspace/didChangeWatchedFiles` watchers) and whether it offers pull
// diagnostics (`textDocument/diagnostic`). Every other registration is only remembered by method.
import { fileURLToPath } from "node:url";
import type {
  DidChangeWatchedFilesRegistrationOptions,
  FileEvent,
  Registration,
  Unregistration,
} from "vscode-languageserver-protocol";
import { DidChangeWatchedFilesNotification } from "vscode-languageserver-protocol";
import { globToRegExp } from "./globPattern.js";

/** LSP FileChangeType: 1 created, 2 changed, 3 deleted. */
export type FileChangeType = 1 | 2 | 3;

/** LSP WatchKind bits by FileChangeType (created 1, changed 2, deleted 4). */
const WATCH_KIND_BIT: Record<FileChangeType, number> = { 1: 1, 2: 2, 3: 4 };

interface CompiledWatcher {
  /** Absolute base folder of a RelativePattern; undefined for a plain pattern (matched on the whole path). */
  base?: string;
  pattern: RegExp;
  kind: number;
}

export class CapabilityRegistrations {
  private readonly methods = new Map<string, string>();
  private readonly watchers = new Map<string, CompiledWatcher[]>();
  private readonly registerOptions = new Map<string, unknown>();
  private readonly listeners = new Set<() => void>();

  /** Calls listener after every (un)registration; returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  register(params: { registrations: Registration[] }): void {
    for (const registration of params.registrations ?? []) {
      this.methods.set(registration.id, registration.method);
      this.registerOptions.set(registration.id, registration.registerOptions);
      if (registration.method === DidChangeWatchedFilesNotification.method) {
        const options = registration.registerOptions as DidChangeWatchedFilesRegistrationOptions | undefined;
        this.watchers.set(registration.id, (options?.watchers ?? []).flatMap(compileWatcher));
      }
    }
    for (const listener of this.listeners) listener();
  }

  /** LSP spells the field "unregisterations"; both spellings are accepted. */
  unregister(params: { unregisterations?: Unregistration[]; unregistrations?: Unregistration[] }): void {
    for (const { id } of params.unregisterations ?? params.unregistrations ?? []) {
      this.methods.delete(id);
      this.watchers.delete(id);
      this.registerOptions.delete(id);
    }
    for (const listener of this.listeners) listener();
  }

  has(method: string): boolean {
    return [...this.methods.values()].includes(method);
  }

  /** The register options of the first registration of a method. */
  optionsOf<T>(method: string): T | undefined {
    for (const [id, registered] of this.methods) if (registered === method) return this.registerOptions.get(id) as T;
    return undefined;
  }

  /** Whether the server registered any file watchers at all. */
  get watchesFiles(): boolean {
    return this.watchers.size > 0;
  }

  /** The events a registered watcher asked for (a file: URI each). */
  wanted(events: readonly FileEvent[]): FileEvent[] {
    const all = [...this.watchers.values()].flat();
    return events.filter((event) => {
      if (!event.uri.startsWith("file:")) return false;
      const path = fileURLToPath(event.uri);
      return all.some((watcher) => watcherMatches(watcher, path, event.type as FileChangeType));
    });
  }
}

function compileWatcher(watcher: DidChangeWatchedFilesRegistrationOptions["watchers"][number]): CompiledWatcher[] {
  const kind = watcher.kind ?? 7;
  const glob = watcher.globPattern;
  if (typeof glob === "string") return [{ pattern: globToRegExp(glob), kind }];
  const baseUri = typeof glob.baseUri === "string" ? glob.baseUri : glob.baseUri.uri;
  if (!baseUri.startsWith("file:")) return [];
  return [{ base: fileURLToPath(baseUri).replace(/\/+$/, ""), pattern: globToRegExp(glob.pattern), kind }];
}

function watcherMatches(watcher: CompiledWatcher, path: string, type: FileChangeType): boolean {
  if ((watcher.kind & WATCH_KIND_BIT[type]) === 0) return false;
  if (watcher.base === undefined) return watcher.pattern.test(path);
  if (!path.startsWith(`${watcher.base}/`)) return false;
  return watcher.pattern.test(path.slice(watcher.base.length + 1));
}
