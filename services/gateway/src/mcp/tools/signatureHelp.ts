// signature_help: the signature(s) of the call at a position and which parameter is active.
import type { SignatureHelpAnswer } from "@lspmesh/proto";
import { z } from "zod";
import type { ToolAnswer } from "../defineTool.js";
import { answerText, describeTarget } from "../text.js";
import { positionTool } from "../toolSupport/positionTool.js";
import { answerStatusShape, type PositionAt, positionArguments, statusFrom } from "../toolSupport/shared.js";

const input = z.object(positionArguments);

const output = z.object({
  ...answerStatusShape,
  signatures: z.array(z.string()).describe("Signature labels, e.g. makeGreeting(name: string): string."),
  active_signature: z.number().int().describe("0-based index into signatures of the one that applies (-1 = none)."),
  active_parameter: z.number().int().describe("0-based index of the parameter at the position (-1 = none)."),
  documentation: z.string().describe("Documentation of the active signature (markdown), when the server has it."),
});

export function signatureHelpAnswer(answer: SignatureHelpAnswer, at: PositionAt): ToolAnswer<z.output<typeof output>> {
  const status = statusFrom(answer.status);
  const target = describeTarget(at, status);
  const structured = {
    ...status,
    signatures: answer.signatures,
    active_signature: answer.signatures.length > 0 ? answer.activeSignature : -1,
    active_parameter: answer.signatures.length > 0 ? answer.activeParameter : -1,
    documentation: answer.documentation,
  };
  const text = answerText(
    status,
    answer.signatures.length > 0,
    `No signature help at ${target} (is it inside a call's parentheses?).`,
    `Signature help at ${target}:`,
    ...answer.signatures.map(
      (signature, index) =>
        `${index === structured.active_signature ? "→ " : "  "}${signature}${index === structured.active_signature && structured.active_parameter >= 0 ? `  (parameter ${structured.active_parameter + 1})` : ""}`,
    ),
    ...(answer.documentation ? ["", answer.documentation] : []),
  );
  return { text, structured };
}

export const signatureHelpTool = positionTool({
  name: "signature_help",
  title: "Signature help",
  description:
    "The signature of the function or method being called at a position (inside its parentheses) and which parameter the position is at, with documentation. " +
    "Point with file plus line and column (1-based, code points).",
  input,
  output,
  ask: (runner, request, options) => runner.signatureHelp(request, options),
  answer: signatureHelpAnswer,
});
