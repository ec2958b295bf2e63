// Notes of one answer gathered from several parts (sessions, the before and after of an edit
// check): each reason said once.

/**
 * The notes joined with "; ", each reason once: every part's note may count the results withheld
 * from all of them, and a reason can open one note and end another.
 */
export function distinctNotes(notes: ReadonlyArray<string | undefined>): string {
  return [...new Set(notes.flatMap((note) => (note ? note.split("; ") : [])))].join("; ");
}
