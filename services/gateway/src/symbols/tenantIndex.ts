// One tenant's symbol indexes in the gateway's memory, as followed from the store: per workspace
// its meta (state, epoch, progress) and its files' declarations with lower-case names ready for
// matching. Built only from updates of that tenant's own bucket.
import type { IndexedSymbol, SymbolIndexFileEntry, SymbolIndexMeta, SymbolIndexUpdate } from "@lspmesh/events";

export interface IndexedFile {
  entry: SymbolIndexFileEntry;
  /** Lower-case names, index for index with entry.symbols. */
  lower: string[];
  /** Folders above the file (0 at the workspace root): shallower files rank first. */
  depth: number;
}

export interface WorkspaceIndexView {
  meta?: SymbolIndexMeta;
  files: Map<string, IndexedFile>;
}

export class TenantIndex {
  readonly workspaces = new Map<string, WorkspaceIndexView>();

  constructor(readonly tenant: string) {}

  apply(update: SymbolIndexUpdate): void {
    switch (update.type) {
      case "meta":
        if (update.meta.tenant !== this.tenant) return; // never another tenant's, whatever was stored
        this.workspace(update.meta.workspace).meta = update.meta;
        return;
      case "file":
        this.workspace(update.workspace).files.set(update.entry.file, indexedFile(update.entry));
        return;
      case "deleted":
        this.workspaces.get(update.workspace)?.files.delete(update.file);
        return;
      case "workspaceDeleted":
        this.workspaces.delete(update.workspace);
        return;
    }
  }

  /** Declarations held, over every workspace. */
  get symbolCount(): number {
    let count = 0;
    for (const view of this.workspaces.values()) for (const file of view.files.values()) count += file.lower.length;
    return count;
  }

  private workspace(workspace: string): WorkspaceIndexView {
    let view = this.workspaces.get(workspace);
    if (!view) {
      view = { files: new Map() };
      this.workspaces.set(workspace, view);
    }
    return view;
  }
}

function indexedFile(entry: SymbolIndexFileEntry): IndexedFile {
  return {
    entry,
    lower: entry.symbols.map((symbol: IndexedSymbol) => symbol.name.toLowerCase()),
    depth: entry.file.split("/").length - 1,
  };
}
