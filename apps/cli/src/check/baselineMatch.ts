// Introduced vs existing: pairs one file's head diagnostics with its base diagnostics. A pair needs
// the same rule, message and line text; surrounding lines break ties. Unpaired head findings are
// new, unpaired base findings are fixed. Line numbers play no part, so shifts change nothing.
import { type AnchoredFinding, exactKey, lineKey } from "./anchors.js";
import { compareFindings } from "./findings.js";

export interface FileComparison {
  new: AnchoredFinding[];
  fixed: AnchoredFinding[];
  unchanged: Array<{ head: AnchoredFinding; base: AnchoredFinding }>;
}

export function compareWithBase(head: readonly AnchoredFinding[], base: readonly AnchoredFinding[]): FileComparison {
  const byPosition = (a: AnchoredFinding, b: AnchoredFinding) => compareFindings(a.finding, b.finding);
  let unmatchedHead = [...head].sort(byPosition);
  let unmatchedBase = [...base].sort(byPosition);
  const unchanged: FileComparison["unchanged"] = [];
  // Strict pass first, so that a copied line with an old error pairs the original, not the copy.
  for (const keyOf of [exactKey, lineKey]) {
    const waiting = new Map<string, AnchoredFinding[]>();
    for (const finding of unmatchedBase) {
      const key = keyOf(finding);
      const queue = waiting.get(key);
      if (queue) queue.push(finding);
      else waiting.set(key, [finding]);
    }
    const stillUnmatched: AnchoredFinding[] = [];
    const paired = new Set<AnchoredFinding>();
    for (const finding of unmatchedHead) {
      const partner = waiting.get(keyOf(finding))?.shift();
      if (partner) {
        unchanged.push({ head: finding, base: partner });
        paired.add(partner);
      } else {
        stillUnmatched.push(finding);
      }
    }
    unmatchedHead = stillUnmatched;
    unmatchedBase = unmatchedBase.filter((finding) => !paired.has(finding));
  }
  unchanged.sort((a, b) => byPosition(a.head, b.head));
  return { new: unmatchedHead, fixed: unmatchedBase, unchanged };
}
