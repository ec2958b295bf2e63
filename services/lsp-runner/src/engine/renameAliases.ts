// tsserver (typescript-language-server's default `providePrefixAndSuffixTextForRename`, as VS
// Code's `useAliasesForRenames`) keeps a name other code relies on when it renames a binding: an
// export list's `export { renamed as old }`, an import's `import { old as renamed }`, an object
// shorthand's `{ old: renamed }`. The code using the old name there is left as it is, so a rename
// "everywhere" says where the old name stays.
import type { WorkspaceEdit } from "./answers.js";
import { hasWord } from "./identifiers.js";

/** Examples named in the note at most (3). */
const EXAMPLES = 3;

/** The note for edits that write the old name beside the new one; undefined when none does. */
export function keptNameNote(edit: WorkspaceEdit, oldName: string, newName: string): string | undefined {
  const kept = edit.files.flatMap((fileEdit) =>
    fileEdit.edits
      .filter((textEdit) => textEdit.newText !== newName && hasWord(textEdit.newText, oldName))
      .map(
        (textEdit) =>
          `${fileEdit.file}:${textEdit.range.start.line}:${textEdit.range.start.column} "${textEdit.newText}"`,
      ),
  );
  if (kept.length === 0) return undefined;
  const more = kept.length > EXAMPLES ? `, … (${kept.length - EXAMPLES} more)` : "";
  return (
    `${kept.length === 1 ? "1 edit keeps" : `${kept.length} edits keep`} the old name '${oldName}' through an alias ` +
    `(${kept.slice(0, EXAMPLES).join(", ")}${more}), as the language server renames by default: code that uses ` +
    `'${oldName}' through it (an export's importers, an object's property) is not renamed; to rename that name ` +
    "too, rename it where it is exported or declared as well"
  );
}
