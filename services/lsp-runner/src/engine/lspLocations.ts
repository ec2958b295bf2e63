// The shapes a location request answers with (Location, Location[], LocationLink[] or null) as a
// list of Locations: a link stands for its target's name (selection range, else its whole range).
import type { LocationLink, Location as LspLocation } from "vscode-languageserver-protocol";

export function normaliseLocations(result: LspLocation | LspLocation[] | LocationLink[] | null): LspLocation[] {
  if (!result) return [];
  const list = Array.isArray(result) ? result : [result];
  return list.map((item) =>
    "targetUri" in item ? { uri: item.targetUri, range: item.targetSelectionRange ?? item.targetRange } : item,
  );
}
