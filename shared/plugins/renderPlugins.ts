// The render plugins ODR templates name on datatypes and fields (docs/odr-server.md §3, `render_plugins`),
// and which of them odr-desktop draws itself. Names are ODR's own display names.
import type { RenderPlugin } from '../schemas/template.js';

export const PLUGIN = {
  graph: 'Graph Plugin',
  csvTable: 'CSV Table Plugin',
  chemistry: 'Chemistry Field',
  references: 'References Plugin',
  url: 'URL Field',
} as const;

const KNOWN = new Set<string>(Object.values(PLUGIN));

export const isKnownPlugin = (name: string): boolean => KNOWN.has(name);

/** The instance of a plugin on a datatype or field, if it names it. */
export function pluginNamed(plugins: RenderPlugin[] | undefined, name: string): RenderPlugin | undefined {
  return plugins?.find((p) => p.render_plugin === name);
}

/** Plugins a template names that odr-desktop does not draw: shown quietly beside the plain editors. */
export function unknownPlugins(plugins: RenderPlugin[] | undefined): string[] {
  return (plugins ?? []).map((p) => p.render_plugin).filter((n) => n !== '' && !KNOWN.has(n));
}

export const optionsOf = (p: RenderPlugin | undefined): Record<string, string> => p?.render_plugin_options ?? {};
