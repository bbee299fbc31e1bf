/**
 * Fingerprints of the tool schemas Sourcegraph served in late 2025 (`mcp-tools-v1.json`, a reference
 * file kept outside this repository): a hash of each tool's argument and result shapes, and a hash
 * of each long sentence of its description. They are facts about the reference, kept here so the
 * protocol tests check the engine against it on any clone; no text of the reference is kept.
 * `referenceFingerprints.json` holds them; `rebuildFingerprints.ts` rebuilds or checks it from the
 * reference (no test reads outside the repository).
 */
import { createHash } from 'node:crypto';

export interface ReferenceTool {
  name: string;
  description: string;
  inputSchema: SchemaShape;
  outputSchema: SchemaShape;
}

export interface SchemaShape {
  required?: string[];
  properties?: Record<string, { type?: string }>;
}

export interface Fingerprints {
  /** Tool name → hash of its shapes (`shapeOf`). */
  shapes: Record<string, string>;
  /** Hashes of the descriptions' sentences longer than 40 characters (`sentencesOf`). */
  sentences: string[];
}

export function hash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

/** A tool's shapes as the protocol test summarises them: required and typed arguments, required results. */
export function shapeOf(input: SchemaShape, output: SchemaShape): { required: string[]; properties: string[]; outputRequired: string[] } {
  return {
    required: [...(input.required ?? [])].sort(),
    properties: Object.entries(input.properties ?? {})
      .map(([name, property]) => `${name}:${property.type ?? '?'}`)
      .sort(),
    outputRequired: [...(output.required ?? [])].sort(),
  };
}

/** The sentences of a description the copy check compares (split at full stops and line ends). */
export function sentencesOf(description: string): string[] {
  return description
    .split(/[.\n]/)
    .map((sentence) => sentence.trim())
    .filter((sentence) => sentence.length > 40);
}

export function referenceFingerprints(reference: { tools: ReferenceTool[] }): Fingerprints {
  return {
    shapes: Object.fromEntries(reference.tools.map((tool) => [tool.name, hash(JSON.stringify(shapeOf(tool.inputSchema, tool.outputSchema)))])),
    sentences: [...new Set(reference.tools.flatMap((tool) => sentencesOf(tool.description).map(hash)))].sort(),
  };
}
