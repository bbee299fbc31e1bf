/**
 * The answer of `git check-attr --stdin -z <attribute>…`: `path NUL attribute NUL value NUL` for
 * each path in turn, each asked attribute in the order asked.
 */

/**
 * Each path's values of `attributes`, in the order asked (`set`, `unset`, `unspecified` or a value);
 * throws when git did not answer for exactly these paths and attributes, in order.
 */
export function checkAttrValues(output: Buffer, paths: readonly Buffer[], attributes: readonly string[]): string[][] {
  const fields: Buffer[] = [];
  for (let start = 0; start < output.length;) {
    const end = output.indexOf(0, start);
    if (end === -1) break;
    fields.push(output.subarray(start, end));
    start = end + 1;
  }
  const answers = paths.length * attributes.length;
  if (fields.length !== answers * 3) throw new Error(`git check-attr answered ${Math.floor(fields.length / 3)} attributes for ${answers}`);
  return paths.map((path, index) =>
    attributes.map((attribute, which) => {
      const at = (index * attributes.length + which) * 3;
      if (!fields[at]?.equals(path)) throw new Error('git check-attr answered paths out of order');
      if (fields[at + 1]?.toString('utf8') !== attribute) throw new Error('git check-attr answered attributes out of order');
      return fields[at + 2]?.toString('utf8') ?? 'unspecified';
    }),
  );
}
