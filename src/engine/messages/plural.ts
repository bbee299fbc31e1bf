/** `1 file`, `3 files`: the engine's answers and tool results count things in English. */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}
