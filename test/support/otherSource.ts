/**
 * A template export as another source would have it: every uuid new (`prefix` and a count,
 * the same uuid the same everywhere), every id as it was, so an import tests what it does
 * with ids a deleted row gave up.
 */
export function withNewUuids<T = { template_uuid: string }>(templateJson: string, prefix: string): T {
  let n = 0;
  const uuids = new Map<string, string>();
  return JSON.parse(
    templateJson.replace(/"(template_uuid|field_uuid|template_tag_uuid|metadata_for_uuid)":"([a-z0-9]+)"/g, (_m, k: string, u: string) => {
      if (!uuids.has(u)) uuids.set(u, `${prefix}${String(++n).padStart(26, '0')}`);
      return `"${k}":"${uuids.get(u)}"`;
    }),
  ) as T;
}
