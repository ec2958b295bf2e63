// What every output format of `lspmesh check` is rendered with.

export interface RenderContext {
  /** ANSI colours (text format only): on a TTY unless NO_COLOR is set. */
  color: boolean;
  /**
   * The checked folder relative to the repository root ("" or ending in "/"): SARIF, GitHub and
   * GitLab want repository-relative paths, while the report's paths are workspace-relative.
   */
  pathPrefix: string;
}
