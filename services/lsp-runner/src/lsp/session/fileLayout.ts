// Which file events may change what a workspace's projects hold (tsconfig's include, a package's
// files): a file created or deleted, or a project file changed. Content changes do not.
import { FileChangeType, type FileEvent } from "vscode-languageserver-protocol";

const PROJECT_FILE = /\/(?:[jt]sconfig(\.[^/]*)?\.json|pyrightconfig\.json|pyproject\.toml)$/;

/** A created or deleted file, or a changed project file (tsconfig, jsconfig, pyright's): the projects may now hold other files. */
export function changesLayout(event: FileEvent): boolean {
  return event.type !== FileChangeType.Changed || PROJECT_FILE.test(event.uri);
}
