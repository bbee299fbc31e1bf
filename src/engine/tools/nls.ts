/**
 * `sg_nls_search`: natural-language search, on the stack answers use (`repo/retrieval.ts`): the
 * query's words become stems and whole identifiers, BM25 picks the candidate files, and the files come
 * back ranked by their best definition (its name, the words its body holds, what the file is: code
 * before tests and docs), each with the spans that hold the most of the words. Filters work as in
 * keyword search. The editor's Search Code, in its natural-language mode, calls this tool.
 */
import { makeChunk, renderBlocks, type Chunk, type FileBlock } from '../repo/blocks';
import { plural, ToolError, type ToolContext, type ToolOutput } from '../repo/context';
import { parseQuery } from '../search/query';
import { checkFilters } from '../repo/targets';
import { analyseQuestion } from '../repo/question';
import { retrieve, type AnswerSpan, type ReadFile } from '../repo/retrieval';

const MAX_FILES = 15;
const CHUNKS_PER_FILE = 3;
/** Lines shown around a span's best line. */
const CHUNK_BEFORE = 2;
const CHUNK_AFTER = 4;

/** The query's patterns become terms (any may match); its filters select repositories and files. */
export async function nlsSearch(context: ToolContext, args: { query: string }): Promise<ToolOutput<{ blocks: FileBlock[] }>> {
  const query = parseQuery(args.query, context.toolName);
  checkFilters(query);
  const analysis = analyseQuestion(query.patterns.map((pattern) => pattern.value).join(' '));
  if (analysis.terms.length === 0) {
    throw new ToolError('The query has no words to search for (only filters or common words): add keywords such as "database connection close".');
  }
  const { spans, files, total, notes } = await retrieve(context, analysis, { query, filesRead: MAX_FILES });
  const blocks = rankedFiles(files, spans).map(({ file, spans: fileSpans }) => block(file, fileSpans));
  const termList = analysis.terms.map((term) => term.text).join(', ');
  const heading =
    total === 0
      ? `No file contains any of the terms (${termList}). Try other words, a synonym, or fewer filters.`
      : `${plural(total, 'file')} contain some of the terms (${termList}); the ${plural(blocks.length, 'most relevant file', 'most relevant files')}:`;
  if (total > blocks.length) notes.push(`${total - blocks.length} less relevant files are not shown: add repo: or file: filters, or more specific words.`);
  return { text: blocks.length > 0 ? `${heading}\n\n${renderBlocks(blocks)}` : heading, structured: { blocks }, notes };
}

/** The files read, by their best span (those without one after, by their BM25 score), each with its best spans. */
function rankedFiles(files: readonly ReadFile[], spans: readonly AnswerSpan[]): Array<{ file: ReadFile; spans: AnswerSpan[] }> {
  const byFile = new Map<ReadFile, AnswerSpan[]>();
  for (const span of spans) {
    const list = byFile.get(span.file) ?? [];
    if (list.length < CHUNKS_PER_FILE && !list.some((known) => known.start <= span.end && span.start <= known.end)) list.push(span);
    byFile.set(span.file, list);
  }
  const unranked = files.filter((file) => !byFile.has(file)).sort((a, b) => b.fileScore - a.fileScore);
  return [...byFile.entries(), ...unranked.map((file): [ReadFile, AnswerSpan[]] => [file, []])]
    .slice(0, MAX_FILES)
    .map(([file, fileSpans]) => ({ file, spans: fileSpans }));
}

/** A file's block: a chunk around each span's best line, in file order. */
function block(file: ReadFile, spans: readonly AnswerSpan[]): FileBlock {
  const chunks: Chunk[] = [...spans]
    .sort((a, b) => a.start - b.start)
    .map((span) => makeChunk(file.lines, Math.max(span.start, span.bestLine - CHUNK_BEFORE), Math.min(span.end, span.bestLine + CHUNK_AFTER)));
  return { type: 'file', repo: file.target.repo.name, file: file.path, rev: file.target.revision, chunks };
}
